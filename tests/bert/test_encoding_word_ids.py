"""Encoding.special_tokens_mask, word_ids and sequence_ids against tokenizers (issue 18, option 1).

The whole-sample parity (with truncation and padding) is in test_hf_encode.py;
here: tiny inline cases, and every way of running (tf.function, tf.data, SavedModel).
"""

from __future__ import annotations

import pytest
import tensorflow as tf

import tf_wordpiece as twp
from helpers.contract import assert_ragged_equal
from helpers.data import TOKENIZER_JSON
from helpers.oracles import hf_oracle

FIELDS = ("special_tokens_mask", "word_ids", "sequence_ids")
CASES = [
    (
        ["Hello [MASK] world!", "[MASK]", "a[MASK]b  c", " [SEP] x ", "", "unaffable 日本語 ok", "\x00 zz \ufffd yy"],
        None,
    ),
    (["hello world", "", "don't stop"], ["how are you?", "", "[MASK] it's ok"]),
]


@pytest.fixture(scope="module")
def ours():
    return twp.BertTokenizer.from_tokenizer_json(TOKENIZER_JSON)


def hf_fields(encodings) -> list:
    return [
        [e.special_tokens_mask for e in encodings],
        [[-1 if w is None else w for w in e.word_ids] for e in encodings],
        [[-1 if s is None else s for s in e.sequence_ids] for e in encodings],
    ]


def as_lists(t) -> list:
    return t.to_list() if isinstance(t, tf.RaggedTensor) else t.numpy().tolist()


@pytest.mark.parametrize(
    "options",
    [
        {},
        dict(padding="longest"),
        dict(truncation="longest_first", max_length=6),
        dict(add_special_tokens=False, padding="max_length", max_length=12),
    ],
    ids=repr,
)
@pytest.mark.parametrize("texts, pairs", CASES, ids=["single", "pair"])
def test_fields_match_tokenizers(ours, texts, pairs, options):
    peer = hf_oracle()
    if "truncation" in options:
        peer.enable_truncation(options["max_length"])
    if "padding" in options:
        peer.enable_padding(length=options.get("max_length") if options["padding"] == "max_length" else None)
    inputs = texts if pairs is None else list(zip(texts, pairs))
    want = hf_fields(peer.encode_batch(inputs, add_special_tokens=options.get("add_special_tokens", True)))
    enc = ours.encode(texts, pairs, **options)
    assert [as_lists(getattr(enc, name)) for name in FIELDS] == want


def test_scalar_input(ours):
    enc = ours.encode("Hello [MASK] world!")
    e = hf_oracle().encode("Hello [MASK] world!")
    assert [as_lists(getattr(enc, name)) for name in FIELDS] == [row[0] for row in hf_fields([e])]


def test_fields_every_way(ours, tmp_path):
    texts, pairs = CASES[1]
    eager = ours.encode(texts, pairs, padding="longest")

    def encode(a, b):
        enc = ours.encode(a, b, padding="longest")
        return {name: getattr(enc, name) for name in FIELDS}

    graph = tf.function(encode)(tf.constant(texts), tf.constant(pairs))
    for name in FIELDS:
        assert_ragged_equal(graph[name], getattr(eager, name), f"tf.function {name}")
    dataset = tf.data.Dataset.from_tensor_slices((texts, pairs)).batch(len(texts)).map(encode)
    for name in FIELDS:
        assert_ragged_equal(next(iter(dataset))[name], getattr(eager, name), f"tf.data {name}")
    module = tf.Module()
    module.tok = ours
    module.encode = tf.function(encode, input_signature=[tf.TensorSpec([None], tf.string)] * 2)
    tf.saved_model.save(module, str(tmp_path / "m"))
    loaded = tf.saved_model.load(str(tmp_path / "m")).encode(tf.constant(texts), tf.constant(pairs))
    for name in FIELDS:
        assert_ragged_equal(loaded[name], getattr(eager, name), f"SavedModel {name}")
