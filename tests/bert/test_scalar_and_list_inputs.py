"""Scalars, Python lists and batches at every public tokenize/encode/decode (issue 18, fault 9)."""

from __future__ import annotations

import pytest
import tensorflow as tf

import tf_wordpiece as twp

tfds = pytest.importorskip("tensorflow_datasets")
text = pytest.importorskip("tensorflow_text")

LINES = ["hello world", "the world is a hello", "hello, world!"] * 4
BERT_VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "hello", "world", "!", ",", "##s"]


@pytest.fixture(scope="module", params=["t2t", "tfds"])
def encoder(request):
    target = 60 if request.param == "t2t" else 300  # tfds: at least padding and the 256 bytes
    return twp.SubwordTextEncoder.build_from_corpus(LINES, target, compat=request.param, verbose=False)


@pytest.mark.parametrize("line", ["hello world", "", "hello, worlds! \u00e9_x"])
def test_subword_scalar_encode_is_a_list_of_ids(encoder, line):
    ids = encoder.encode(line)
    assert ids.shape.rank == 1 and ids.dtype == tf.int64
    assert ids.numpy().tolist() == encoder.encode(tf.constant([line])).to_list()[0]
    assert encoder.encode([line]).to_list() == [ids.numpy().tolist()]  # a Python list is a batch
    assert encoder.decode(ids).numpy().decode() == line  # 1-D ids -> a scalar string
    assert encoder.decode(ids.numpy().tolist()).numpy().decode() == line  # a Python list of int too
    assert encoder.decode([ids.numpy().tolist()]).numpy().tolist() == [line.encode()]


def test_subword_scalar_matches_tfds():
    ours = twp.SubwordTextEncoder.build_from_corpus(LINES, 300, compat="tfds", verbose=False)
    peer = tfds.deprecated.text.SubwordTextEncoder(vocab_list=ours.subtokens)
    for line in ["hello world", "hello, worlds!", "zz_top"]:
        assert ours.encode(line).numpy().tolist() == peer.encode(line)
        assert ours.decode(peer.encode(line)).numpy().decode() == peer.decode(peer.encode(line))


def test_subword_python_inputs_do_not_retrace(encoder):
    encode_fn = encoder.encode.__dict__["__call__"]
    decode_fn = encoder.decode.__dict__["__call__"]
    encoder.encode("warm up")
    encoder.encode(["warm", "up"])
    encoder.decode([1, 2])
    traces = encode_fn.experimental_get_tracing_count(), decode_fn.experimental_get_tracing_count()
    for line in ["a", "bb", "hello there", "x y z"]:
        encoder.decode(encoder.encode(line).numpy().tolist())
        encoder.decode(encoder.encode([line, line + "!", ""]))
    assert (encode_fn.experimental_get_tracing_count(), decode_fn.experimental_get_tracing_count()) == traces


def test_subword_scalars_in_graphs_and_saved_model(encoder, tmp_path):
    want = [encoder.encode(line).numpy().tolist() for line in LINES[:3]]
    graph = tf.function(lambda s: encoder.encode(s))
    assert [graph(tf.constant(line)).numpy().tolist() for line in LINES[:3]] == want
    dataset = tf.data.Dataset.from_tensor_slices(LINES[:3]).map(encoder.encode)
    assert [t.numpy().tolist() for t in dataset] == want
    decoded = tf.data.Dataset.from_tensor_slices(LINES[:3]).map(lambda s: encoder.decode(encoder.encode(s)))
    assert [t.numpy().decode() for t in decoded] == LINES[:3]
    tf.saved_model.save(encoder, str(tmp_path / "enc"))
    loaded = tf.saved_model.load(str(tmp_path / "enc"))
    assert [loaded.encode(tf.constant(line)).numpy().tolist() for line in LINES[:3]] == want
    assert loaded.decode(tf.constant(want[0], tf.int64)).numpy().decode() == LINES[0]
    assert loaded.encode(tf.constant(LINES[:3])).to_list() == want


def test_subword_bad_ranks(encoder):
    with pytest.raises(ValueError, match=r"strings: expected a string or a \[batch\] vector"):
        encoder.encode([["a"]])
    with pytest.raises(ValueError, match=r"ids: expected int \[ids\] or \[batch, ids\]"):
        encoder.decode(tf.zeros([1, 1, 1], tf.int64))
    with pytest.raises(TypeError, match="ids: expected integer ids"):
        encoder.decode(["a"])


def test_bert_scalar_shape_is_the_peers_in_tf_text_mode():
    vocab = tf.lookup.StaticVocabularyTable(
        tf.lookup.KeyValueTensorInitializer(BERT_VOCAB, tf.range(len(BERT_VOCAB), dtype=tf.int64)), 1
    )
    peer = text.BertTokenizer(vocab)
    ours = twp.BertTokenizer(BERT_VOCAB, offsets="normalized")
    for got, want in zip(ours.tokenize_with_offsets("hello worlds!"), peer.tokenize_with_offsets("hello worlds!")):
        assert got.shape.rank == want.shape.rank == 3
        assert got.to_list() == want.to_list()
    assert ours.basic_tokenizer.tokenize("hello worlds!").to_list() == [[b"hello", b"worlds", b"!"]]
    graph = tf.function(ours.tokenize)(tf.constant("hello"))
    assert graph.to_list() == [[[4]]]
    hf = twp.BertTokenizer(BERT_VOCAB, compat="hf")
    assert hf.tokenize("hello worlds").to_list() == [[4], [5, 8]]  # HF has no tensors: one row


def test_bert_decode_scalar_and_python_lists():
    tok = twp.BertTokenizer(BERT_VOCAB, compat="hf", lower_case=True)
    ids = tok.encode("hello worlds!").ids
    assert ids.shape.rank == 1
    assert tok.decode(ids).numpy() == b"hello worlds!"
    assert tok.decode(ids.numpy().tolist()).numpy() == b"hello worlds!"
    assert tok.decode([[2, 4, 3], [5]]).numpy().tolist() == [b"hello", b"world"]  # ragged Python lists
    assert tok.encode(["hello", "world"]).ids.to_list() == [[2, 4, 3], [2, 5, 3]]
    assert tok.decode([4, 8, 6], skip_special_tokens=False).numpy().decode() == "hellos!"
    assert tok.detokenize([[4, 8], [5]]).to_list() == [[b"hellos"], [b"world"]]
