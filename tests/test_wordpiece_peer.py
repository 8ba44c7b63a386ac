"""WordpieceTokenizer against tensorflow_text's WordpieceTokenizer on tiny inline vocabularies (issue 18).

Each case runs eagerly, in tf.function and in tf.data, with and without
offsets, and is compared with the installed tensorflow_text.
"""

from __future__ import annotations

import pytest
import tensorflow as tf
from contract import assert_ragged_equal, check_contract

import tf_wordpiece as twp

text = pytest.importorskip("tensorflow_text")

ALGORITHMS = ["maxmatch", "linmaxmatch"]


def peer_table(vocab: list[str]) -> tf.lookup.StaticVocabularyTable:
    """The vocabulary as tensorflow_text takes it (one OOV bucket)."""
    init = tf.lookup.KeyValueTensorInitializer(vocab, tf.range(len(vocab), dtype=tf.int64))
    return tf.lookup.StaticVocabularyTable(init, num_oov_buckets=1)


def as_lists(outputs) -> list:
    return [t.to_list() if isinstance(t, tf.RaggedTensor) else t.numpy().tolist() for t in outputs]


def every_way(tokenizer, words) -> list:
    """tokenize and tokenize_with_offsets eagerly, in tf.function and in tf.data; all must agree.

    Returns the eager (pieces, begin, end) as lists.
    """
    words = tf.constant(words, tf.string)
    eager = tokenizer.tokenize_with_offsets(words)
    assert_ragged_equal(tokenizer.tokenize(words), eager[0], "tokenize")
    graph = tf.function(tokenizer.tokenize_with_offsets)(words)
    for got, want, name in zip(graph, eager, ("pieces", "begin", "end")):
        assert_ragged_equal(got, want, f"tf.function {name}")
    assert_ragged_equal(tf.function(tokenizer.tokenize)(words), eager[0], "tf.function tokenize")
    dataset = tf.data.Dataset.from_tensor_slices(words)
    for i, (pieces, begin, end) in enumerate(dataset.map(tokenizer.tokenize_with_offsets)):
        for got, want, name in zip((pieces, begin, end), eager, ("pieces", "begin", "end")):
            assert_ragged_equal(got, want[i], f"tf.data element {i} {name}")
    batched = list(dataset.batch(2).map(tokenizer.tokenize))
    if batched:
        assert_ragged_equal(tf.concat(batched, axis=0), eager[0], "tf.data batched")
    return as_lists(eager)


# --- fault 1: an empty word has no piece ----------------------------------------------------------

EMPTY_WORD_VOCABS = {
    "plain": ["[UNK]", "a", "##b"],
    "with-empty-token": ["[UNK]", "", "a", "##b"],
    "suffix-alone": ["[UNK]", "##", "a", "##b"],
}


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("suffix", ["##", "", "@@"])
@pytest.mark.parametrize("vocab", list(EMPTY_WORD_VOCABS), ids=str)
def test_empty_word_has_no_piece(vocab, suffix, algorithm):
    tokens = [t.replace("##", suffix) for t in EMPTY_WORD_VOCABS[vocab]]
    words = ["", "ab", "", "x", "a", ""]
    ours = twp.WordpieceTokenizer(tokens, suffix_indicator=suffix, token_out_type=tf.string, algorithm=algorithm)
    peer = text.WordpieceTokenizer(peer_table(tokens), suffix_indicator=suffix, token_out_type=tf.string)
    got = every_way(ours, words)
    assert got == as_lists(peer.tokenize_with_offsets(words))
    assert got[0][0] == [] and got[0][-1] == []
    ours = twp.WordpieceTokenizer(tokens, suffix_indicator=suffix, algorithm=algorithm)
    peer = text.WordpieceTokenizer(peer_table(tokens), suffix_indicator=suffix, token_out_type=tf.int64)
    assert as_lists(ours.tokenize_with_offsets(words)) == as_lists(peer.tokenize_with_offsets(words))


def test_empty_word_contract(tmp_path):
    ours = twp.WordpieceTokenizer(EMPTY_WORD_VOCABS["with-empty-token"])
    ids = check_contract(ours, ["", "ab", ""], tmp_path)
    assert ids.to_list() == [[], [2, 3], []]
