"""WordpieceTokenizer.vocab_size(): tensorflow_text's count of ids, OOV buckets included."""

from __future__ import annotations

import pytest
import tensorflow as tf

import tf_wordpiece as twp

text = pytest.importorskip("tensorflow_text")

VOCAB = ["[UNK]", "a", "##b", "un", "##aff", "##able"]


def vocabulary_table(buckets: int) -> tf.lookup.StaticVocabularyTable:
    init = tf.lookup.KeyValueTensorInitializer(VOCAB, tf.range(len(VOCAB), dtype=tf.int64))
    return tf.lookup.StaticVocabularyTable(init, num_oov_buckets=buckets)


def hash_table() -> tf.lookup.StaticHashTable:
    init = tf.lookup.KeyValueTensorInitializer(VOCAB, tf.range(len(VOCAB), dtype=tf.int64))
    return tf.lookup.StaticHashTable(init, default_value=-1)


@pytest.mark.parametrize(
    "make",
    [lambda: vocabulary_table(1), lambda: vocabulary_table(4), hash_table],
    ids=["1-bucket", "4-buckets", "hash-table"],
)
def test_vocab_size_matches_tf_text(make):
    ours, peer = twp.WordpieceTokenizer(make()).vocab_size(), text.WordpieceTokenizer(make()).vocab_size()
    assert ours.dtype == peer.dtype and ours.shape == peer.shape
    assert int(ours) == int(peer)


def test_vocab_size_of_a_path_matches_tf_text(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("\n".join(VOCAB) + "\n", encoding="utf-8")
    assert int(twp.WordpieceTokenizer(str(path)).vocab_size()) == int(text.WordpieceTokenizer(str(path)).vocab_size())


def test_vocab_size_covers_every_id_tokenize_gives():
    # unknown_token=None: an unknown word's id is an OOV bucket, below vocab_size.
    wp = twp.WordpieceTokenizer(vocabulary_table(4), unknown_token=None)
    ids = wp.tokenize(["zz", "q", "unaffable", "abb", "yy"]).flat_values
    assert int(tf.reduce_max(ids)) < int(wp.vocab_size())


def test_vocab_size_in_a_graph():
    wp = twp.WordpieceTokenizer(vocabulary_table(2))
    assert int(tf.function(wp.vocab_size)()) == len(VOCAB) + 2
