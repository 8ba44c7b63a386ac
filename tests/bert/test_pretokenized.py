"""encode(..., is_pretokenized=True) against tokenizers' is_pretokenized=True (issue 18, option 2)."""

from __future__ import annotations

import pytest
import tensorflow as tf

import tf_wordpiece as twp
from helpers.contract import assert_ragged_equal
from helpers.data import TOKENIZER_JSON
from helpers.oracles import byte_ends, hf_oracle
from helpers.ragged import batches

tokenizers = pytest.importorskip("tokenizers")


@pytest.fixture(scope="module")
def ours():
    return twp.BertTokenizer.from_tokenizer_json(TOKENIZER_JSON)


def hf_rows(encodings, words, pair_words) -> list:
    """Per row: ids, type_ids, byte offsets into each word, special_tokens_mask, word_ids, sequence_ids."""
    out = []
    for i, e in enumerate(encodings):
        texts = (words[i], pair_words[i] if pair_words is not None else None)
        offsets = []
        for s, w, (a, b) in zip(e.sequence_ids, e.word_ids, e.offsets):
            ends = [0] if s is None else byte_ends(texts[s][w])
            offsets.append([0, 0] if s is None else [ends[a], ends[b]])
        none = lambda values: [-1 if v is None else v for v in values]  # noqa: E731
        out.append((e.ids, e.type_ids, offsets, e.special_tokens_mask, none(e.word_ids), none(e.sequence_ids)))
    return out


def our_rows(enc) -> list:
    fields = (enc.ids, enc.type_ids, enc.offsets, enc.special_tokens_mask, enc.word_ids, enc.sequence_ids)
    return list(zip(*(t.to_list() if isinstance(t, tf.RaggedTensor) else t.numpy().tolist() for t in fields)))


def compare(ours, peer, words, pair_words=None, **options) -> list:
    inputs = words if pair_words is None else list(zip(words, pair_words))
    want = hf_rows(peer.encode_batch(inputs, is_pretokenized=True), words, pair_words)
    got = our_rows(ours.encode(words, pair_words, is_pretokenized=True, **options))
    return [(w, g, h) for w, g, h in zip(words, got, want) if g != h]


WORDS = [
    ["Hello", "world!"],
    ["Héllo wörld", "", "[MASK]", "x[MASK]"],
    [],
    ["日本", "語"],
    ["\x00", "a\u0301b"],
    ["don't", "[UNK]", "   ", "ab" * 80],
]


def test_tiny_batches_match_tokenizers(ours):
    peer = hf_oracle()
    assert not compare(ours, peer, WORDS)
    assert not compare(ours, peer, WORDS, WORDS[::-1])


def test_one_example_drops_the_batch_axis(ours):
    enc = ours.encode(["Hello", "world!"], is_pretokenized=True)
    e = hf_oracle().encode(["Hello", "world!"], is_pretokenized=True)
    assert enc.ids.numpy().tolist() == e.ids
    assert enc.word_ids.numpy().tolist() == [-1, 0, 1, 1, -1]


def test_inputs_of_every_kind(ours):
    want = ours.encode([["a", "b"], ["c"]], is_pretokenized=True).ids.to_list()
    ragged = tf.ragged.constant([["a", "b"], ["c"]])
    assert ours.encode(ragged, is_pretokenized=True).ids.to_list() == want
    assert ours.encode(ragged.with_row_splits_dtype(tf.int32), is_pretokenized=True).ids.to_list() == want
    dense = ours.encode(tf.constant([["a", "b"], ["c", "d"]]), is_pretokenized=True).ids.to_list()
    assert dense == ours.encode([["a", "b"], ["c", "d"]], is_pretokenized=True).ids.to_list()
    with pytest.raises(ValueError, match=r"texts: with is_pretokenized=True expected words"):
        ours.encode(tf.constant([[["a"]]]), is_pretokenized=True)
    with pytest.raises(ValueError, match="pairs: must have the same shape"):
        ours.encode([["a"]], ["b"], is_pretokenized=True)


def test_truncation_and_padding(ours):
    peer = hf_oracle()
    peer.enable_truncation(6)
    peer.enable_padding()
    assert not compare(ours, peer, WORDS, WORDS[::-1], truncation="longest_first", max_length=6, padding="longest")


def test_every_way(ours, tmp_path):
    words = tf.ragged.constant(WORDS[:4], dtype=tf.string)
    eager = ours.encode(words, is_pretokenized=True, padding="longest")

    def encode(w):
        enc = ours.encode(w, is_pretokenized=True, padding="longest")
        return {"ids": enc.ids, "word_ids": enc.word_ids, "offsets": enc.offsets}

    spec = tf.RaggedTensorSpec([None, None], tf.string, ragged_rank=1, row_splits_dtype=tf.int64)
    graph = tf.function(encode, input_signature=[spec])(words)
    dataset = next(iter(tf.data.Dataset.from_tensors(words).map(encode)))
    module = tf.Module()
    module.tok = ours
    module.encode = tf.function(encode, input_signature=[spec])
    tf.saved_model.save(module, str(tmp_path / "m"))
    loaded = tf.saved_model.load(str(tmp_path / "m")).encode(words)
    for name in ("ids", "word_ids", "offsets"):
        for way, got in (("tf.function", graph), ("tf.data", dataset), ("SavedModel", loaded)):
            assert_ragged_equal(got[name], getattr(eager, name), f"{way} {name}")


@pytest.mark.parametrize("split", ["spaces", "chars"])
def test_hard_strings_and_sample_head(ours, multilingual, hard_strings, split):
    peer = hf_oracle()
    lines = multilingual[:300] + hard_strings
    cut = str.split if split == "spaces" else (lambda s: list(s[:40]))
    bad = []
    for batch in batches([cut(line) for line in lines], 500):
        bad += compare(ours, peer, batch)
    assert not bad, f"{len(bad)} differ; first: {bad[:2]}"


@pytest.mark.slow
def test_whole_sample(ours, multilingual, hard_strings):
    peer = hf_oracle()
    words = [line.split(" ") for line in multilingual + hard_strings]
    bad = []
    for batch in batches(words, 1000):
        bad += compare(ours, peer, batch, batch[1:] + batch[:1])
    assert not bad, f"{len(bad)} of {len(words)} differ; first: {bad[:2]}"
