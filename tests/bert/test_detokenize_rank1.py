"""detokenize of rank-1 ids [pieces]: one scalar string, as tensorflow_text's FastWordpieceTokenizer gives."""

from __future__ import annotations

import pytest
import tensorflow as tf

import tf_wordpiece as twp

text = pytest.importorskip("tensorflow_text")


@pytest.fixture(scope="module")
def ids_per_line(vocab_path, multilingual, hard_strings) -> list[list[int]]:
    """Each line's piece ids, from the peer's BertTokenizer (so no id comes from our tokenizer)."""
    peer = text.BertTokenizer(vocab_path, lower_case=True)
    lines = multilingual[:1500] + hard_strings
    return peer.tokenize(lines).merge_dims(-2, -1).to_list()


def test_rank1_matches_fast_wordpiece_on_the_sample(vocab_tokens, ids_per_line):
    peer = text.FastWordpieceTokenizer(vocab_tokens, support_detokenization=True)
    ours = twp.WordpieceTokenizer(vocab_tokens)
    spec = [tf.TensorSpec([None], tf.int64)]
    peer_one, ours_one = (
        tf.function(peer.detokenize, input_signature=spec),
        tf.function(ours.detokenize, input_signature=spec),
    )
    bad = []
    for ids in ids_per_line:
        want, got = peer_one(tf.constant(ids, tf.int64)), ours_one(tf.constant(ids, tf.int64))
        assert got.shape.rank == 0
        if got.numpy() != want.numpy():
            bad.append((ids, got.numpy(), want.numpy()))
    assert not bad, bad[:5]


@pytest.mark.parametrize("ids", [[], [0], [2023, 2003, 1037, 3231], [1001, 13, 2054]])
def test_rank1_as_list_and_tensor_matches_fast_wordpiece(vocab_tokens, ids):
    peer = text.FastWordpieceTokenizer(vocab_tokens, support_detokenization=True)
    want = peer.detokenize(tf.constant(ids, tf.int64)).numpy()
    for tokenizer in (twp.WordpieceTokenizer(vocab_tokens), twp.BertTokenizer(vocab_tokens, lower_case=True)):
        for given in (ids, tf.constant(ids, tf.int32), tf.constant(ids, tf.int64)):
            got = tokenizer.detokenize(given)
            assert got.shape.rank == 0 and got.numpy() == want


def test_rank1_bert_matches_fast_bert(vocab_tokens, ids_per_line):
    peer = text.FastBertTokenizer(vocab_tokens, support_detokenization=True, lower_case_nfd_strip_accents=True)
    ours = twp.BertTokenizer(vocab_tokens, lower_case=True)
    for ids in ids_per_line[:200]:
        assert ours.detokenize(ids).numpy() == peer.detokenize(tf.constant(ids, tf.int64)).numpy()


def test_rank2_still_gives_words(vocab_tokens):
    ours = twp.WordpieceTokenizer(vocab_tokens)
    classic = text.WordpieceTokenizer(
        tf.lookup.StaticVocabularyTable(
            tf.lookup.KeyValueTensorInitializer(vocab_tokens, tf.range(len(vocab_tokens), dtype=tf.int64)), 1
        )
    )
    ids = tf.ragged.constant([[2023, 2003, 1037, 3231], [1001, 13]], tf.int64)
    assert ours.detokenize(ids).to_list() == classic.detokenize(ids).to_list()


def test_scalar_ids_are_an_error_naming_the_argument(vocab_tokens):
    with pytest.raises(ValueError, match="token_ids: expected rank >= 1"):
        twp.WordpieceTokenizer(vocab_tokens).detokenize(7)
