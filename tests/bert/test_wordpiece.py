"""The WordPiece stage (tf_wordpiece.bert.wordpiece): WordpieceTokenizer and its two matchers.

Rows on tiny inline vocabularies, each through both matchers (`maxmatch.MaxMatcher`, `linmaxmatch.LinMaxMatcher`,
called through the `Matcher` protocol and through WordpieceTokenizer's `algorithm`); `tokenize_words` on a
basic tokenizer's Words; `vocab_size` and `detokenize` (rank 1 included) against tensorflow_text.
The peer sweeps on tiny vocabularies are in test_wordpiece_peer.py, the LinMaxMatch trie in test_linmaxmatch.py.
"""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf
from hypothesis import given, settings
from hypothesis import strategies as st

import tf_wordpiece as twp
from tf_wordpiece.bert.added_tokens import AddedToken, AddedTokens
from tf_wordpiece.bert.linmaxmatch import LinMaxMatcher
from tf_wordpiece.bert.maxmatch import MaxMatcher
from tf_wordpiece.bert.recipes import HfRecipe, TfTextRecipe
from tf_wordpiece.bert.wordpiece import ALGORITHMS, WordpieceTokenizer, _pieces_in_word_order

PAPER = ["[UNK]", "a", "abcd", "##b", "##bc", "##z"]  # Song et al. 2021, Figure 1

# (vocab, suffix indicator, max piece chars, words, per word its pieces (begin, end, token) or None: unknown)
MATCHER_ROWS = {
    "paper": (
        PAPER,
        "##",
        None,
        ["abcz", "abcd", "abz", "zz"],
        [
            [(0, 1, "a"), (1, 3, "##bc"), (3, 4, "##z")],
            [(0, 4, "abcd")],
            [(0, 1, "a"), (1, 2, "##b"), (2, 3, "##z")],
            None,
        ],
    ),
    "greedy-strands": (
        ["[UNK]", "x", "@@x", "xy", "@@yz"],
        "@@",
        None,
        ["xyz", "xxyz"],
        [None, [(0, 1, "x"), (1, 2, "@@x"), (2, 4, "@@yz")]],
    ),
    "empty-suffix": (
        ["[UNK]", "ab", "a", "b", "abc"],
        "",
        None,
        ["abab", "abcab"],
        [[(0, 2, "ab"), (2, 4, "ab")], [(0, 3, "abc"), (3, 5, "ab")]],
    ),
    "multibyte": (
        ["[UNK]", "\u4e2d", "##\u6587", "\xe9", "##\xe9"],
        "##",
        None,
        ["\u4e2d\u6587", "\xe9\xe9\xe9"],
        [[(0, 1, "\u4e2d"), (1, 2, "##\u6587")], [(0, 1, "\xe9"), (1, 2, "##\xe9"), (2, 3, "##\xe9")]],
    ),
    "max-piece-chars": (
        ["[UNK]", "trea", "tread", "##d", "##ness", "##nes", "##s"],
        "##",
        4,
        ["treadness"],
        [[(0, 4, "trea"), (4, 5, "##d"), (5, 9, "##ness")]],
    ),
}


def matched(matcher, tokens: list[str], words: list[str]) -> list:
    n_chars = tf.constant([len(w) for w in words], tf.int32)
    word, begin, end, ids, failed = (t.numpy().tolist() for t in matcher.match(tf.constant(words), n_chars))
    out = [[] for _ in words]
    for w, b, e, i in zip(word, begin, end, ids):
        out[w].append((b, e, tokens[i]))
    return [None if f else pieces for pieces, f in zip(out, failed)]


@pytest.mark.parametrize("matcher", [MaxMatcher, LinMaxMatcher])
@pytest.mark.parametrize("vocab, suffix, max_chars, words, expected", MATCHER_ROWS.values(), ids=list(MATCHER_ROWS))
def test_matchers(matcher, vocab, suffix, max_chars, words, expected):
    """Both matchers, called as `wordpiece.Matcher`: the words' pieces in code points, or unknown."""
    assert matched(matcher(vocab, suffix_indicator=suffix, max_piece_chars=max_chars), vocab, words) == expected


def test_max_matcher_splits_unknown_characters():
    from tf_wordpiece.bert.maxmatch import UNKNOWN_CHARACTER

    matcher = MaxMatcher(["[UNK]", "a", "##b"], suffix_indicator="##", split_unknown_characters=True)
    word, begin, end, ids, failed = matcher.match(tf.constant(["azb"]), tf.constant([3]))
    assert ids.numpy().tolist() == [1, UNKNOWN_CHARACTER, 2] and not failed.numpy().any()
    assert (begin.numpy().tolist(), end.numpy().tolist()) == ([0, 1, 2], [1, 2, 3])


# (vocab, options, words, pieces, begin, end): byte offsets in each word.
WORDPIECE_ROWS = {
    "pieces-unknown-empty": (
        ["[UNK]", "un", "##aff", "##able"],
        {},
        ["unaffable", "xyz", ""],
        [["un", "##aff", "##able"], ["[UNK]"], []],  # an empty word has no piece
        [[0, 2, 5], [0], []],
        [[2, 5, 9], [3], []],
    ),
    "whole-word-first": (
        ["[UNK]", "a", "##b", "ab"],
        {},
        ["ab", "abb"],
        [["ab"], ["ab", "##b"]],
        [[0], [0, 2]],
        [[2], [2, 3]],
    ),
    "multibyte": (
        ["[UNK]", "\u4e2d", "##\u6587"],
        {},
        ["\u4e2d\u6587", "\u6587"],
        [["\u4e2d", "##\u6587"], ["[UNK]"]],
        [[0, 3], [0]],
        [[3, 6], [3]],
    ),
    "empty-suffix": (
        ["[UNK]", "ab", "a", "b", "abc"],
        dict(suffix_indicator=""),
        ["abab", "abcab"],
        [["ab", "ab"], ["abc", "ab"]],
        [[0, 2], [0, 3]],
        [[2, 4], [3, 5]],
    ),
    "byte-limit-ends-at-the-unknown-token": (
        ["<unk>", "a", "##b"],
        dict(unknown_token="<unk>", max_bytes_per_word=4),
        ["abbbbb", "ab"],
        [["<unk>"], ["a", "##b"]],
        [[0], [0, 1]],
        [[5], [1, 2]],  # tensorflow_text's rule: len(unknown_token), not the word's 6 bytes
    ),
    "char-limit-ends-at-the-word": (
        ["[UNK]", "\xe9", "##\xe9"],
        dict(max_bytes_per_word=None, max_chars_per_word=2),
        ["\xe9\xe9\xe9", "\xe9\xe9"],
        [["[UNK]"], ["\xe9", "##\xe9"]],
        [[0], [0, 2]],
        [[6], [2, 4]],
    ),
    "max-chars-per-token": (
        ["[UNK]", "trea", "tread", "##d", "##ness"],
        dict(max_chars_per_token=4),
        ["treadness"],
        [["trea", "##d", "##ness"]],
        [[0, 4, 5]],
        [[4, 5, 9]],
    ),
    "split-unknown-characters": (
        ["[UNK]", "a", "##b"],
        dict(split_unknown_characters=True),
        ["azb", "zz"],
        [["a", "##[UNK]", "##b"], ["[UNK]", "##[UNK]"]],
        [[0, 1, 2], [0, 1]],
        [[1, 2, 3], [1, 2]],
    ),
}


# Each row with each algorithm, but split_unknown_characters only with maxmatch (a ValueError otherwise, below).
WORDPIECE_CASES = [
    pytest.param(*row, algorithm, id=f"{name}-{algorithm}")
    for name, row in WORDPIECE_ROWS.items()
    for algorithm in ALGORITHMS
    if algorithm == "maxmatch" or not row[1].get("split_unknown_characters")
]


@pytest.mark.parametrize("vocab, options, words, pieces, begin, end, algorithm", WORDPIECE_CASES)
def test_tokenize_with_offsets(vocab, options, words, pieces, begin, end, algorithm):
    wp = WordpieceTokenizer(vocab, token_out_type=tf.string, algorithm=algorithm, **options)
    got = [t.to_list() for t in wp.tokenize_with_offsets(words)]
    assert got == [[[p.encode("utf-8") for p in row] for row in pieces], begin, end]
    ids = WordpieceTokenizer(vocab, algorithm=algorithm, **options).tokenize(words).to_list()
    # A piece with no token ("##[UNK]") takes a list's one OOV bucket, len(vocab), as in tensorflow_text.
    assert ids == [[vocab.index(p) if p in vocab else len(vocab) for p in row] for row in pieces]


def test_wordpiece_offsets_are_bytes_in_the_word():
    wp = twp.WordpieceTokenizer(TINY, token_out_type=tf.string)
    pieces, begin, end = wp.tokenize_with_offsets(["unaffable", "zzz"])
    assert pieces.to_list() == [[b"un", b"##aff", b"##able"], [b"[UNK]"]]
    assert begin.to_list() == [[0, 2, 5], [0]] and end.to_list() == [[2, 5, 9], [3]]


TINY = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "hello", "world", "!", ",", "##s", "un", "##aff", "##able"]


@pytest.mark.parametrize(
    "options, error, message",
    [
        (dict(compat="fast"), ValueError, "compat: expected one of"),
        (dict(algorithm="fast"), ValueError, "algorithm: expected one of"),
        (dict(token_out_type=tf.float32), TypeError, "token_out_type: expected tf.int64, tf.int32 or tf.string"),
        (dict(unknown_token=""), ValueError, "unknown_token: expected a non-empty str in the vocabulary or None"),
        (dict(unknown_token="<unk>"), ValueError, "lacks"),
        (dict(max_bytes_per_word=-1), ValueError, "max_bytes_per_word: expected a non-negative int or None, got -1"),
        (dict(max_chars_per_word=1.5), ValueError, "max_chars_per_word: expected a non-negative int or None, got 1.5"),
        (
            dict(split_unknown_characters=True, algorithm="linmaxmatch"),
            ValueError,
            "split_unknown_characters: True needs algorithm='maxmatch'",
        ),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_bad_options(options, error, message):
    with pytest.raises(error, match=message):
        WordpieceTokenizer(TINY, **options)


# --- tokenize_words: the basic tokenizer's Words -> [strings, words, pieces], offsets added once ----------

WORDS_VOCAB = ["[UNK]", "e", "##e", "un", "##aff", "##able", "a", "##a", "[MASK]"]


@pytest.mark.parametrize(
    "offsets, begin, end",
    [
        ("original", [[[0, 2], [5, 7, 10]], [], [[0]]], [[[2, 4], [7, 10, 14]], [], [[101]]]),
        ("normalized", [[[0, 1], [3, 5, 8]], [], [[0]]], [[[1, 2], [5, 8, 12]], [], [[5]]]),  # [UNK]: 5 bytes
    ],
)
def test_tokenize_words(offsets, begin, end):
    """Offsets into the original string (ÉÉ is 4 bytes) or the normalized one ("ee unaffable"); a word over
    max_bytes_per_word (101 a) ends, in normalized offsets, len("[UNK]") past its start (tensorflow_text)."""
    words = TfTextRecipe(lower_case=True).basic_tokenizer().split(tf.constant(["\xc9\xc9 Unaffable", "", "A" * 101]))
    wp = WordpieceTokenizer(WORDS_VOCAB, token_out_type=tf.string)
    tokens, got_begin, got_end = wp.tokenize_words(words, offsets=offsets)
    assert tokens.to_list() == [[[b"e", b"##e"], [b"un", b"##aff", b"##able"]], [], [[b"[UNK]"]]]
    assert (got_begin.to_list(), got_end.to_list()) == (begin, end)


def test_tokenize_words_keeps_added_tokens_whole():
    """A matched added token (Words.added_id) is one piece with its id, whatever the vocabulary says."""
    added = AddedTokens([AddedToken("[MASK]", id=8), AddedToken("aaaa", id=3)])
    words = HfRecipe(lower_case=True).basic_tokenizer(added).split(tf.constant(["a[MASK]aa aaaa"]))
    assert words.added_id.numpy().tolist() == [-1, 8, -1, 3]
    tokens, begin, end = WordpieceTokenizer(WORDS_VOCAB).tokenize_words(words)
    assert tokens.to_list() == [[[6], [8], [6, 7], [3]]]
    assert (begin.to_list(), end.to_list()) == ([[[0], [1], [7, 8], [10]]], [[[1], [7], [8, 9], [14]]])


def test_tokenize_words_in_a_graph_equals_eager():
    basic = TfTextRecipe(lower_case=True).basic_tokenizer()
    wp = WordpieceTokenizer(WORDS_VOCAB)
    strings = tf.constant(["\xc9\xc9 Unaffable", "", "AAAAAA e"])

    @tf.function
    def run(s):
        return wp.tokenize_words(basic.split(s), offsets="normalized")

    for got, want in zip(run(strings), wp.tokenize_words(basic.split(strings), offsets="normalized")):
        assert got.to_list() == want.to_list()


def test_tokenize_words_offsets_are_checked():
    words = TfTextRecipe().basic_tokenizer().split(tf.constant(["a"]))
    with pytest.raises(ValueError, match="offsets: expected one of"):
        WordpieceTokenizer(WORDS_VOCAB).tokenize_words(words, offsets="chars")


# --- piece order: one scatter instead of a sort -----------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_pieces_in_word_order_equals_a_stable_sort(data):
    """WordPiece's scatter ordering == a stable argsort of the pieces' words (one-piece and walked words mixed)."""
    num_words = data.draw(st.integers(0, 8))
    kinds = data.draw(st.lists(st.sampled_from(["none", "single", "walked"]), min_size=num_words, max_size=num_words))
    single = [w for w, kind in enumerate(kinds) if kind == "single"]
    single = data.draw(st.permutations(single))
    walked = [w for w, kind in enumerate(kinds) if kind == "walked" for _ in range(data.draw(st.integers(1, 3)))]
    splits, order = _pieces_in_word_order(
        tf.constant(single, tf.int32), tf.constant(walked, tf.int32), tf.constant(num_words)
    )
    word_of = np.array(list(single) + walked, np.int64)
    assert order.numpy().tolist() == np.argsort(word_of, kind="stable").tolist()
    assert splits.numpy().tolist() == [0] + np.cumsum(np.bincount(word_of, minlength=num_words)).tolist()


# --- vocab_size(): tensorflow_text's count of ids, OOV buckets included -----------------------------------

VOCAB = ["[UNK]", "a", "##b", "un", "##aff", "##able"]


def vocabulary_table(buckets: int) -> tf.lookup.StaticVocabularyTable:
    init = tf.lookup.KeyValueTensorInitializer(VOCAB, tf.range(len(VOCAB), dtype=tf.int64))
    return tf.lookup.StaticVocabularyTable(init, num_oov_buckets=buckets)


def hash_table() -> tf.lookup.StaticHashTable:
    init = tf.lookup.KeyValueTensorInitializer(VOCAB, tf.range(len(VOCAB), dtype=tf.int64))
    return tf.lookup.StaticHashTable(init, default_value=-1)


@pytest.fixture(scope="module")
def tf_text():
    return pytest.importorskip("tensorflow_text")


@pytest.mark.parametrize(
    "make",
    [lambda: vocabulary_table(1), lambda: vocabulary_table(4), hash_table],
    ids=["1-bucket", "4-buckets", "hash-table"],
)
def test_vocab_size_matches_tf_text(tf_text, make):
    ours, peer = twp.WordpieceTokenizer(make()).vocab_size(), tf_text.WordpieceTokenizer(make()).vocab_size()
    assert ours.dtype == peer.dtype and ours.shape == peer.shape
    assert int(ours) == int(peer)


def test_vocab_size_of_a_path_matches_tf_text(tf_text, tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("\n".join(VOCAB) + "\n", encoding="utf-8")
    assert int(twp.WordpieceTokenizer(str(path)).vocab_size()) == int(
        tf_text.WordpieceTokenizer(str(path)).vocab_size()
    )


def test_vocab_size_covers_every_id_tokenize_gives(tf_text):
    # unknown_token=None: an unknown word's id is an OOV bucket, below vocab_size.
    wp = twp.WordpieceTokenizer(vocabulary_table(4), unknown_token=None)
    ids = wp.tokenize(["zz", "q", "unaffable", "abb", "yy"]).flat_values
    assert int(tf.reduce_max(ids)) < int(wp.vocab_size())


def test_vocab_size_in_a_graph(tf_text):
    wp = twp.WordpieceTokenizer(vocabulary_table(2))
    assert int(tf.function(wp.vocab_size)()) == len(VOCAB) + 2


# --- detokenize of rank-1 ids [pieces]: one scalar string, as tensorflow_text's FastWordpieceTokenizer -------


@pytest.fixture(scope="module")
def ids_per_line(tf_text, vocab_path, multilingual, hard_strings) -> list[list[int]]:
    """Each line's piece ids, from the peer's BertTokenizer (so no id comes from our tokenizer)."""
    peer = tf_text.BertTokenizer(vocab_path, lower_case=True)
    lines = multilingual[:1500] + hard_strings
    return peer.tokenize(lines).merge_dims(-2, -1).to_list()


def test_rank1_matches_fast_wordpiece_on_the_sample(tf_text, vocab_tokens, ids_per_line):
    peer = tf_text.FastWordpieceTokenizer(vocab_tokens, support_detokenization=True)
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
def test_rank1_as_list_and_tensor_matches_fast_wordpiece(tf_text, vocab_tokens, ids):
    peer = tf_text.FastWordpieceTokenizer(vocab_tokens, support_detokenization=True)
    want = peer.detokenize(tf.constant(ids, tf.int64)).numpy()
    for tokenizer in (twp.WordpieceTokenizer(vocab_tokens), twp.BertTokenizer(vocab_tokens, lower_case=True)):
        for given_ids in (ids, tf.constant(ids, tf.int32), tf.constant(ids, tf.int64)):
            got = tokenizer.detokenize(given_ids)
            assert got.shape.rank == 0 and got.numpy() == want


def test_rank1_bert_matches_fast_bert(tf_text, vocab_tokens, ids_per_line):
    peer = tf_text.FastBertTokenizer(vocab_tokens, support_detokenization=True, lower_case_nfd_strip_accents=True)
    ours = twp.BertTokenizer(vocab_tokens, lower_case=True)
    for ids in ids_per_line[:200]:
        assert ours.detokenize(ids).numpy() == peer.detokenize(tf.constant(ids, tf.int64)).numpy()


def test_rank2_still_gives_words(tf_text, vocab_tokens):
    ours = twp.WordpieceTokenizer(vocab_tokens)
    classic = tf_text.WordpieceTokenizer(
        tf.lookup.StaticVocabularyTable(
            tf.lookup.KeyValueTensorInitializer(vocab_tokens, tf.range(len(vocab_tokens), dtype=tf.int64)), 1
        )
    )
    ids = tf.ragged.constant([[2023, 2003, 1037, 3231], [1001, 13]], tf.int64)
    assert ours.detokenize(ids).to_list() == classic.detokenize(ids).to_list()


def test_scalar_ids_are_an_error_naming_the_argument(tf_text, vocab_tokens):
    with pytest.raises(ValueError, match="token_ids: expected rank >= 1"):
        twp.WordpieceTokenizer(vocab_tokens).detokenize(7)
