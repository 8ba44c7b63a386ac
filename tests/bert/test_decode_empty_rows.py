"""BertTokenizer.decode of rows that decode to nothing, the last one included (issue 18, fault 8)."""

from __future__ import annotations

import pytest
import tensorflow as tf

import tf_wordpiece as twp
from helpers.data import TOKENIZER_JSON
from helpers.oracles import hf_oracle

BATCHES = [
    [""],
    ["hello", ""],
    ["", "hello"],
    ["", "", ""],
    ["[UNK]"],
    ["hello", "[UNK] [PAD]"],
    ["hello", "", "world", "[MASK]"],
]


@pytest.fixture(scope="module")
def tok():
    return twp.BertTokenizer.from_tokenizer_json(TOKENIZER_JSON)


@pytest.mark.parametrize("skip", [True, False], ids=["skip-special", "keep-special"])
@pytest.mark.parametrize("texts", BATCHES, ids=repr)
def test_decode_matches_tokenizers(tok, texts, skip):
    oracle = hf_oracle()
    ids = tok.encode(texts).ids
    want = oracle.decode_batch([e.ids for e in oracle.encode_batch(texts)], skip_special_tokens=skip)
    assert ids.to_list() == [e.ids for e in oracle.encode_batch(texts)]
    got = [s.decode() for s in tok.decode(ids, skip_special_tokens=skip).numpy()]
    assert got == want
    graph = tf.function(lambda i: tok.decode(i, skip_special_tokens=skip))(ids)
    assert [s.decode() for s in graph.numpy()] == want


def test_decode_in_tf_data(tok):
    ids = tok.encode(["hello", "", "[UNK]"]).ids
    dataset = tf.data.Dataset.from_tensors(ids).map(tok.decode)
    assert [list(map(bytes.decode, t.numpy())) for t in dataset] == [["hello", "", ""]]


def test_decode_saved_model(tok, tmp_path):
    module = tf.Module()
    module.tok = tok
    module.decode = tf.function(tok.decode, input_signature=[tf.RaggedTensorSpec([None, None], tf.int64)])
    tf.saved_model.save(module, str(tmp_path / "m"))
    loaded = tf.saved_model.load(str(tmp_path / "m"))
    ids = tok.encode(["hello", "", "[UNK]"]).ids
    assert loaded.decode(ids).numpy().tolist() == [b"hello", b"", b""]


def test_decode_of_all_empty_dense_rows(tok):
    assert tok.decode(tf.zeros([2, 0], tf.int64)).numpy().tolist() == [b"", b""]
    assert tok.decode(tf.constant([[0, 0], [101, 102]])).numpy().tolist() == [b"", b""]
