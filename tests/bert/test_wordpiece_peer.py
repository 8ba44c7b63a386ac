"""WordpieceTokenizer against tensorflow_text's WordpieceTokenizer on tiny inline vocabularies (issue 18).

Each case runs eagerly, in tf.function and in tf.data, with and without
offsets, and is compared with the installed tensorflow_text.
"""

from __future__ import annotations

import pytest
import tensorflow as tf

import tf_wordpiece as twp
from helpers.contract import assert_ragged_equal, check_contract, every_way
from helpers.ragged import as_lists

text = pytest.importorskip("tensorflow_text")

ALGORITHMS = ["maxmatch", "linmaxmatch"]


def peer_table(vocab: list[str]) -> tf.lookup.StaticVocabularyTable:
    """The vocabulary as tensorflow_text takes it (one OOV bucket)."""
    init = tf.lookup.KeyValueTensorInitializer(vocab, tf.range(len(vocab), dtype=tf.int64))
    return tf.lookup.StaticVocabularyTable(init, num_oov_buckets=1)


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


# --- faults 2 and 3: ragged inputs with int32 row_splits, and with uniform inner dimensions -------

RAGGED_VOCAB = ["[UNK]", "[CLS]", "[SEP]", "a", "##b", "hello", "world", "!"]
RAGGED_WORDS = [["ab", "a"], ["hello", "x"], ["", "ab!"]]


def ragged_inputs(splits_dtype):
    """{name: ragged string tensor} with `splits_dtype` row_splits: ragged_rank 1 and 2, uniform inner dims."""
    flat = tf.constant(RAGGED_WORDS)  # [3, 2]
    splits = tf.constant([0, 2, 2, 3], splits_dtype)
    return {
        "rank2": tf.RaggedTensor.from_row_splits(tf.reshape(flat, [-1]), tf.constant([0, 3, 3, 6], splits_dtype)),
        "uniform-inner": tf.RaggedTensor.from_row_splits(flat, splits),  # ragged_rank 1 over [4, None, 2]
        "ragged-rank2": tf.RaggedTensor.from_row_splits(
            tf.RaggedTensor.from_row_splits(tf.reshape(flat, [-1]), tf.constant([0, 1, 3, 6], splits_dtype)),
            tf.constant([0, 1, 1, 3], splits_dtype),
        ),
    }


def check_ragged_ways(tokenize_with_offsets, rt: tf.RaggedTensor, tmp_path=None) -> list:
    """Eager, tf.function (with a RaggedTensorSpec), tf.data and optionally a SavedModel agree; returns eager lists."""
    eager = tokenize_with_offsets(rt)
    assert all(t.row_splits.dtype == rt.row_splits.dtype for t in eager), "row_splits dtype kept"
    spec = tf.RaggedTensorSpec(
        shape=rt.shape, dtype=tf.string, ragged_rank=rt.ragged_rank, row_splits_dtype=rt.row_splits.dtype
    )
    graph = tf.function(tokenize_with_offsets, input_signature=[spec])(rt)
    for got, want in zip(graph, eager):
        assert_ragged_equal(got, want, "tf.function")
    for i, element in enumerate(tf.data.Dataset.from_tensor_slices(rt).map(lambda s: tokenize_with_offsets(s)[0])):
        assert_ragged_equal(element, eager[0][i], f"tf.data element {i}")
    if tmp_path is not None:
        module = tf.Module()
        module.f = tf.function(lambda s: tokenize_with_offsets(s), input_signature=[spec])
        module.keep = tokenize_with_offsets.__self__
        tf.saved_model.save(module, str(tmp_path / "ragged"))
        loaded = tf.saved_model.load(str(tmp_path / "ragged")).f(rt)
        for got, want in zip(loaded, eager):
            assert_ragged_equal(got, want, "SavedModel")
    return as_lists(eager)


@pytest.mark.parametrize("splits_dtype", [tf.int32, tf.int64], ids=["int32", "int64"])
@pytest.mark.parametrize("kind", ["rank2", "uniform-inner", "ragged-rank2"])
def test_wordpiece_ragged_inputs_match_tf_text(kind, splits_dtype):
    rt = ragged_inputs(splits_dtype)[kind]
    ours = twp.WordpieceTokenizer(RAGGED_VOCAB, token_out_type=tf.string)
    peer = text.WordpieceTokenizer(peer_table(RAGGED_VOCAB), token_out_type=tf.string)
    got = check_ragged_ways(ours.tokenize_with_offsets, rt)
    want = peer.tokenize_with_offsets(rt)
    assert got == as_lists(want)
    assert [t.shape.as_list() for t in ours.tokenize_with_offsets(rt)] == [t.shape.as_list() for t in want]


@pytest.mark.parametrize("splits_dtype", [tf.int32, tf.int64], ids=["int32", "int64"])
@pytest.mark.parametrize("kind", ["rank2", "uniform-inner", "ragged-rank2"])
@pytest.mark.parametrize("compat", ["tf_text", "hf"])
def test_bert_ragged_inputs(compat, kind, splits_dtype, tmp_path):
    rt = ragged_inputs(splits_dtype)[kind]
    ours = twp.BertTokenizer(RAGGED_VOCAB, compat=compat, token_out_type=tf.string)
    got = check_ragged_ways(ours.tokenize_with_offsets, rt, tmp_path if kind == "uniform-inner" else None)
    # The strings' pieces are those of the same strings as a flat batch.
    flat = as_lists(ours.tokenize_with_offsets(tf.reshape(rt.flat_values, [-1])))
    assert [tf.nest.flatten(t) for t in got] == [tf.nest.flatten(t) for t in flat]
    words = check_ragged_ways(ours.basic_tokenizer.tokenize_with_offsets, rt)
    flat_words = as_lists(ours.basic_tokenizer.tokenize_with_offsets(tf.reshape(rt.flat_values, [-1])))
    assert [tf.nest.flatten(t) for t in words] == [tf.nest.flatten(t) for t in flat_words]
    if (
        compat == "tf_text"
    ):  # tensorflow_text.BertTokenizer's tokenize (its tokenize_with_offsets fails on ragged input)
        peer = text.BertTokenizer(peer_table(RAGGED_VOCAB), token_out_type=tf.string)
        want = peer.tokenize(rt)
        assert got[0] == want.to_list()
        assert ours.tokenize(rt).shape.as_list() == want.shape.as_list()


# --- fault 4: max_chars_per_token limits the pieces tried ------------------------------------------

LIMIT_VOCAB = ["[UNK]", "trea", "tread", "##d", "##ness", "##nes", "##s", "ness", "##", "a", "##bcdef", "abcdefg"]


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("limit", [None, 0, 1, 3, 4, 5, 7])
def test_max_chars_per_token_matches_tf_text(limit, algorithm):
    words = ["treadness", "tread", "trea", "ness", "abcdefg", "abcdefgh", "a##", "ab", "", "ad"]
    ours = twp.WordpieceTokenizer(LIMIT_VOCAB, max_chars_per_token=limit, token_out_type=tf.string, algorithm=algorithm)
    peer = text.WordpieceTokenizer(peer_table(LIMIT_VOCAB), max_chars_per_token=limit, token_out_type=tf.string)
    assert every_way(ours, words) == as_lists(peer.tokenize_with_offsets(words))


def test_max_chars_per_token_issue_example():
    ours = twp.WordpieceTokenizer(LIMIT_VOCAB, max_chars_per_token=4, token_out_type=tf.string)
    assert ours.tokenize(["treadness"]).to_list() == [[b"trea", b"##d", b"##ness"]]


@pytest.mark.parametrize("limit", [None, 2, 4])
@pytest.mark.parametrize("lower_case", [False, True])
def test_bert_max_chars_per_token_matches_tf_text(limit, lower_case, tmp_path):
    vocab = LIMIT_VOCAB + ["!", "tre", "##ad"]
    strings = ["treadness Tread! a##", "abcdefg ness", ""]
    ours = twp.BertTokenizer(vocab, lower_case=lower_case, max_chars_per_token=limit, offsets="normalized")
    peer = text.BertTokenizer(peer_table(vocab), lower_case=lower_case, max_chars_per_token=limit)
    want = as_lists(peer.tokenize_with_offsets(strings))
    assert as_lists(ours.tokenize_with_offsets(strings)) == want
    if limit == 4 and lower_case:
        check_contract(ours, strings, tmp_path)


def test_max_chars_per_token_arguments():
    with pytest.raises(ValueError, match="max_chars_per_token: expected a non-negative int or None, got -1"):
        twp.WordpieceTokenizer(LIMIT_VOCAB, max_chars_per_token=-1)
    with pytest.raises(ValueError, match="max_chars_per_token=4: only for compat='tf_text'"):
        twp.BertTokenizer(LIMIT_VOCAB, compat="hf", max_chars_per_token=4)


# --- fault 5: a word over the byte limit: tensorflow_text ends its unknown token at len(unknown_token) --


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("unknown", ["[UNK]", "<unk>", "ü", "[a-very-long-unknown-token]"])
def test_over_the_byte_limit_ends_at_the_unknown_tokens_length(unknown, algorithm):
    vocab = [unknown, "a", "##b", "ab", "##ü"]
    words = ["ab", "abbb", "abbbbb", "aüü", "x", "", "abbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"]
    ours = twp.WordpieceTokenizer(
        vocab, max_bytes_per_word=4, unknown_token=unknown, token_out_type=tf.string, algorithm=algorithm
    )
    peer = text.WordpieceTokenizer(
        peer_table(vocab), max_bytes_per_word=4, unknown_token=unknown, token_out_type=tf.string
    )
    got = every_way(ours, words)
    assert got == as_lists(peer.tokenize_with_offsets(words))
    assert got[2][2] == [len(unknown.encode())]


def test_over_the_char_limit_ends_at_the_words_end():
    """Hugging Face's limit (max_chars_per_word): its unknown token spans the word."""
    ours = twp.WordpieceTokenizer(["[UNK]", "a", "##b"], max_bytes_per_word=None, max_chars_per_word=2)
    _, begin, end = ours.tokenize_with_offsets(["abbbb", "ab"])
    assert begin.to_list() == [[0], [0, 1]] and end.to_list() == [[5], [1, 2]]


def test_bert_normalized_offsets_of_a_word_over_the_byte_limit(tmp_path):
    vocab = ["[UNK]", "a", "##b", "<unk>"]
    strings = ["ab abbbbbb a", "abbbbbbbbb"]
    for unknown in ("[UNK]", "<unk>"):
        ours = twp.BertTokenizer(vocab, max_bytes_per_word=4, unknown_token=unknown, offsets="normalized")
        peer = text.BertTokenizer(peer_table(vocab), max_bytes_per_word=4, unknown_token=unknown)
        assert as_lists(ours.tokenize_with_offsets(strings)) == as_lists(peer.tokenize_with_offsets(strings))
    check_contract(ours, strings, tmp_path)
