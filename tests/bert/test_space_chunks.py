"""Tokenizing distinct space-separated chunks once (space_chunks).

Same ids and offsets as whole strings, and as the peers.
"""

from __future__ import annotations

import functools

import pytest
import tensorflow as tf
from hypothesis import given, settings
from hypothesis import strategies as st

import tf_wordpiece as twp
from helpers.oracles import hf_oracle
from tf_wordpiece.bert.added_tokens import AddedToken
from tf_wordpiece.bert.space_chunks import words_never_span_spaces

# Spaces at the ends and in runs, characters whose normalized length differs
# (ß -> ss, İ -> i̇, ﬁ -> fi), marks right after a space, other white space,
# invalid UTF-8 touching spaces, too-long words, and tensorflow_text's [unused].
EDGE = [
    "",
    " ",
    "   ",
    " the",
    "the ",
    "the  the   the",
    " ß İ ﬁ ",
    "ß  İ\tﬁ",
    " \u0301e \u0301",
    "e\u0301 \u0301 \u0301\u0301",
    "a\u00a0b the\tcat",
    "[unused1] [ unused1 ] x[unused1]",
    "İstanbul the İ",
    "x" * 150 + " the " + "y" * 150,
    "ß" * 60 + "  ß",
    "日本 語 the",
    "\x00 \u200b the",
    "the. (the) the,",
    'Hello, World! (it) "quoted" x,, ,. ., , ( ) Hi!? (Hi)) ((hi unaffable. A1b2',
    "[CLS] [CLS], a[CLS] [SEP]. [unused12] [UNUSED12] (unused1) [unused1 the's don't",
    "e\u0301, é. é (é) ,é ß, ǅ, \x7f, a\x00 \x00 ~ `the` #1 ##the",
]
INVALID = [b"\xc3 \xe2\x82 a\xf0 \xff", b" \xc3", b"\xe2\x82 ", b"the \xf0\x9f\x98 the", b"  \xed\xa0\x80  the"]
# One word in many rows, at different byte offsets in each.
REPEATED = [" " * k + "the " * k + "cat" for k in range(8)]
INPUTS = [s.encode("utf-8") for s in EDGE + REPEATED] + INVALID

MODES = [
    dict(compat="tf_text", lower_case=True, offsets="normalized"),
    dict(compat="tf_text", lower_case=True),
    dict(compat="tf_text", lower_case=False, offsets="normalized"),
    dict(compat="tf_text", normalization_form="NFKD", offsets="normalized"),
    dict(compat="tf_text", lower_case=True, preserve_unused_token=True, offsets="normalized"),
    dict(compat="hf", lower_case=True),
    dict(compat="hf", lower_case=False),
]


def _whole_strings(tok: twp.BertTokenizer) -> twp.BertTokenizer:
    """The same tokenizer, forced onto the path that tokenizes whole strings."""
    tok.engine._by_chunks = False
    return tok


def _lists(outputs) -> list:
    return [t.to_list() for t in outputs]


@pytest.mark.parametrize("options", MODES, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_chunks_match_whole_strings(vocab_path, options):
    chunked = twp.BertTokenizer(vocab_path, **options)
    assert chunked.engine._by_chunks
    whole = _whole_strings(twp.BertTokenizer(vocab_path, **options))
    assert _lists(chunked.tokenize_with_offsets(INPUTS)) == _lists(whole.tokenize_with_offsets(INPUTS))
    # In a graph (test_parity checks the batch cut into parallel shards).
    spec = [tf.TensorSpec([None], tf.string)]
    in_graph = tf.function(chunked.tokenize_with_offsets, input_signature=spec)
    assert _lists(in_graph(tf.constant(INPUTS))) == _lists(whole.tokenize_with_offsets(INPUTS))


def test_repeated_word_offsets_point_at_each_occurrence(vocab_path):
    tok = twp.BertTokenizer(vocab_path, lower_case=True, token_out_type=tf.string)
    pieces, begin, end = tok.tokenize_with_offsets(REPEATED)
    for text, row_pieces, row_begin, row_end in zip(REPEATED, pieces.to_list(), begin.to_list(), end.to_list()):
        raw = text.encode("utf-8")
        spans = [raw[b:e] for word_b, word_e in zip(row_begin, row_end) for b, e in zip(word_b, word_e)]
        assert spans == [p for word in row_pieces for p in word] == raw.split()


@pytest.mark.parametrize("lower_case", [True, False], ids=["uncased", "cased"])
def test_chunks_match_tensorflow_text(vocab_path, lower_case):
    text = pytest.importorskip("tensorflow_text")
    ours = twp.BertTokenizer(vocab_path, lower_case=lower_case, offsets="normalized")
    peer = text.BertTokenizer(vocab_path, lower_case=lower_case)
    assert _lists(ours.tokenize_with_offsets(INPUTS)) == _lists(peer.tokenize_with_offsets(INPUTS))


def test_chunks_match_hugging_face(vocab_path):
    ours = twp.BertTokenizer(vocab_path, compat="hf", lower_case=True)
    strings = EDGE + REPEATED
    ids, begin, end = ours.tokenize_with_offsets([s.encode("utf-8") for s in strings])
    for s, i, b, e, enc in zip(
        strings,
        ids.to_list(),
        begin.to_list(),
        end.to_list(),
        hf_oracle().encode_batch(strings, add_special_tokens=False),
    ):
        char_end = [0]
        for ch in s:
            char_end.append(char_end[-1] + len(ch.encode("utf-8")))
        assert [x for w in i for x in w] == enc.ids, s
        assert [(x, y) for wb, we in zip(b, e) for x, y in zip(wb, we)] == [
            (char_end[x], char_end[y]) for x, y in enc.offsets
        ], s


@pytest.mark.parametrize(
    "options, expected",
    [
        (dict(), True),
        (dict(compat="hf"), True),  # the BERT specials hold no space
        (dict(compat="hf", special_tokens=[AddedToken("[MASK]", single_word=True)]), True),
        (dict(keep_whitespace=True), False),  # a space is a word of its own
        (dict(compat="hf", special_tokens=[AddedToken("[MASK]", lstrip=True)]), False),  # the match takes spaces
        (dict(compat="hf", special_tokens=[AddedToken("[MASK]", rstrip=True)]), False),
        (dict(compat="hf", special_tokens=[AddedToken("a b", id=7)]), False),
    ],
    ids=repr,
)
def test_when_chunks_are_exact(vocab_path, options, expected):
    tok = twp.BertTokenizer(vocab_path, **options)
    assert words_never_span_spaces(tok.basic_tokenizer) is expected
    assert tok.engine._by_chunks is expected


def test_added_tokens_with_normalized_offsets_take_whole_strings(vocab_path):
    tok = twp.BertTokenizer(vocab_path, compat="hf", offsets="normalized")
    assert not tok.engine._by_chunks


def test_fallback_is_still_exact(vocab_path):
    """Where a match spans a space, whole strings are tokenized: "a b" is one id."""
    tok = twp.BertTokenizer(vocab_path, compat="hf", special_tokens=[AddedToken("a b", id=7)])
    ids, begin, end = tok.tokenize_with_offsets(["x a b a  b"])
    assert [w[0] for w in ids.to_list()[0]][1] == 7
    assert (begin.to_list()[0][1], end.to_list()[0][1]) == ([2], [5])


_ALPHABET = st.sampled_from(
    ["the", " ", " ", "  ", "ß", "İ", "ﬁ", "\u0301", "e", "A", ".", "[", "unused1", "]", "\t", "日"]
)
_TEXTS = st.lists(st.lists(_ALPHABET, max_size=12).map("".join), min_size=1, max_size=6)


@functools.cache
def _pair(vocab_path: str, mode: int) -> tuple[twp.BertTokenizer, twp.BertTokenizer]:
    return twp.BertTokenizer(vocab_path, **MODES[mode]), _whole_strings(twp.BertTokenizer(vocab_path, **MODES[mode]))


@settings(max_examples=25, deadline=None)
@given(_TEXTS, st.integers(0, len(MODES) - 1))
def test_chunks_match_whole_strings_property(vocab_path, texts, mode):
    chunked, whole = _pair(vocab_path, mode)
    assert _lists(chunked.tokenize_with_offsets(texts)) == _lists(whole.tokenize_with_offsets(texts))
