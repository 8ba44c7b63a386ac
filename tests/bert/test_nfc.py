"""normalization_form="NFC" and "NFKC" in compat="tf_text".

Canonical composition across code points (issue 18, option 4).
"""

from __future__ import annotations

import unicodedata

import pytest
import tensorflow as tf

import tf_wordpiece as twp
from helpers.contract import check_contract
from helpers.ragged import batches, rows

text = pytest.importorskip("tensorflow_text")

# Combining sequences: composition, blocking, canonical reordering, Hangul, singletons, ccc-0 pairs, marks first.
HARD = [
    "e\u0301",
    "E\u0301\u0301",
    "a\u0307\u0323",
    "a\u0323\u0307",
    "q\u0307\u0323",
    "\u1e9b\u0323",
    "A\u0328\u0301",
    "\u1100\u1161\u11a8",
    "\u1100\u1161",
    "\uac00\u11a8",
    "\u1100 \u1161",
    "한국어 테스트",
    "\u0b47\u0b3e",
    "\u0dd9\u0dcf\u0dca",
    "\u212b",
    "A\u030a",
    "\u0301a",
    "\u0301\u0301",
    "x\u0301y\u0308",
    "ﬁ\u0301",
    "\u00c5\u0323",
    "\u0958",
    "\u0344",
    "o\u0308\u0304",
    "u\u0308\u0301 u\u0301\u0308",
    "\u0041\u0300\u0020\u0301",
    "e\u200b\u0301",
    "e\x00\u0301",
    "I\u0307stanbul",
    "\u1f00\u0345",
    "\u03b1\u0313\u0301\u0345",
    "Ω\u0301",
    "\uff21\u0301",
    "\u2126",
    "①\u0301",
    # Long runs of marks (the loop skips a mark after 4 of its class, which cannot combine any more).
    "a" + "\u0301" * 12,
    "u" + "\u0308\u0301" * 6 + "b",
    "e" + "\u0323\u0301" * 7,
    "\u0301" * 9 + "a\u0301",
    "\u0b47" + "\u0301" * 5 + "\u0b3e",
    "\u0b47" + "\u0301" * 2 + "\u0b3e",
    "\u1100" + "\u0301" * 6 + "\u1161",
    "Z\u0351\u036b\u0343\u036a\u0302\u036b\u033d\u034f\u0334\u0319\u0324\u031e\u0349\u035a\u032f\u031e\u0320\u034da\u0301",
    "o" + "\u0308" * 5 + "\u0304\u0301",
    "\u03b1" + "\u0313" * 5 + "\u0345\u0301",
]
ASCII_VOCAB = ["[UNK]", "!", "a", "e", "##e"]


def vocab_with(strings: list[str], form: str) -> list[str]:
    """A vocabulary holding the normalized characters of `strings`, so ids show the composition."""
    chars = sorted({c for s in strings for c in unicodedata.normalize(form, s) if not c.isspace()})
    return ASCII_VOCAB + [c for c in chars if c not in ASCII_VOCAB]


def peer_and_ours(vocab, form, **options):
    table = tf.lookup.StaticVocabularyTable(
        tf.lookup.KeyValueTensorInitializer(vocab, tf.range(len(vocab), dtype=tf.int64)), 1
    )
    peer = text.BertTokenizer(table, normalization_form=form, **options)
    return peer, twp.BertTokenizer(vocab, normalization_form=form, offsets="normalized", **options)


def compare(peer, ours, strings) -> list:
    inputs = [s.encode("utf-8") for s in strings]
    bad = []
    for batch in batches(inputs, 1000):
        mine = list(zip(*(rows(t) for t in ours.tokenize_with_offsets(batch))))
        theirs = list(zip(*(rows(t) for t in peer.tokenize_with_offsets(batch))))
        bad += [(s, m, t) for s, m, t in zip(batch, mine, theirs) if m != t]
    return bad


@pytest.mark.parametrize("form", ["NFC", "NFKC"])
@pytest.mark.parametrize("string", HARD, ids=ascii)
def test_combining_sequences_match_tf_text(form, string):
    peer, ours = peer_and_ours(vocab_with(HARD, form), form)
    assert not compare(peer, ours, [string])


@pytest.mark.parametrize("form", ["NFC", "NFKC"])
def test_sample_head_and_hard_strings(vocab_path, vocab_tokens, multilingual, hard_strings, form):
    peer, ours = peer_and_ours(vocab_tokens, form)
    bad = compare(peer, ours, multilingual[:2000] + hard_strings + HARD)
    assert not bad, f"{len(bad)} differ; first: {bad[:2]}"


@pytest.mark.slow
@pytest.mark.parametrize("form", ["NFC", "NFKC"])
def test_whole_sample(vocab_tokens, multilingual, hard_strings, form):
    peer, ours = peer_and_ours(vocab_tokens, form)
    bad = compare(peer, ours, multilingual + hard_strings)
    assert not bad, f"{len(bad)} of {len(multilingual) + len(hard_strings)} differ; first: {bad[:2]}"


def test_original_offsets_span_every_constituent():
    tok = twp.BertTokenizer(vocab_with(HARD, "NFC"), normalization_form="NFC", token_out_type=tf.string)
    text_ = "ae\u0301 \u1100\u1161\u11a8!"  # bytes: a 0, e 1, U+0301 2-4, space 4, jamo 5-14, ! 14
    pieces, begin, end = tok.tokenize_with_offsets([text_])
    assert pieces.to_list()[0][1:] == [["각".encode()], [b"!"]]
    assert begin.to_list() == [[[0], [5], [14]]]
    assert end.to_list() == [[[4], [14], [15]]]  # the composed characters span their combining marks


@pytest.mark.parametrize("form", ["NFC", "NFKC"])
def test_contract(form, tmp_path):
    tok = twp.BertTokenizer(vocab_with(HARD, form), normalization_form=form)
    check_contract(tok, ["e\u0301 a\u0307\u0323!", "", "\u1100\u1161\u11a8 한국어", "\u212b \uff21\u0301"], tmp_path)


def test_basic_tokenizer_words_are_composed():
    from tf_wordpiece.bert.recipes import TfTextRecipe

    words = TfTextRecipe(normalization_form="NFC").basic_tokenizer().tokenize(["Cafe\u0301 \u1100\u1161\u11a8"])
    assert [w.decode() for w in words.to_list()[0]] == ["Café", "각"]
