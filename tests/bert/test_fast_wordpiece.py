"""WordpieceTokenizer(compat="fast_wordpiece") against tensorflow_text's FastWordpieceTokenizer."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

import tf_wordpiece as twp
from helpers.ragged import batches

text = pytest.importorskip("tensorflow_text")

# The vocabularies of tensorflow_text's own FastWordpieceTokenizer tests (fast_wordpiece_tokenizer_test.py).
ENGLISH = [
    "don",
    "##'",
    "##t",
    "tread",
    "##ness",
    "hel",
    "##lo",
    "there",
    "my",
    "na",
    "##me",
    "is",
    "ter",
    "##ry",
    "what",
    "##cha",
    "##ma",
    "##call",
    "##it?",
    "you",
    "said",
    "[UNK]",
]
CHINESE = list("貿易戰最大受益者越南總理阮春福") + ["[UNK]"]
RUSSIAN = ["к", "##уп", "##иха", "[UNK]"]
DEATH = ["क", "##र", "##े", "##ं", "##*", "##👇", "[UNK]"]
TEST = ["a", "abc", "abcdefghi", "##de", "##defgxy", "##deh", "##f", "##ghz", "<unk>", ","]

# (vocab, inputs, options): the peer's test inputs, with no_pretokenization=True unless given.
PEER_CASES = [
    (RUSSIAN, [["купиха"]], {}),
    (ENGLISH, [["don't", "treadness"]], {}),
    (ENGLISH, [["hello", "there", "my", "name", "is", "terry"], ["whatchamacallit?", "you", "said"]], {}),
    (ENGLISH, [["don't", "tread", "cantfindme", "treadcantfindme"]], {}),
    (CHINESE, [list("貿易戰最大受益者"), list("越南總理阮春福")], {}),
    (ENGLISH + CHINESE[:-1], [list("貿易戰"), ["don't", "treadness"]], {}),
    (ENGLISH, [["don't", "treadness"]], {"max_bytes_per_word": 5}),
    (DEATH, [["करें*👇👇"]], {"max_bytes_per_word": 40}),
    (ENGLISH, [["nap", "hello!me"]], {}),
    (ENGLISH, [[["don't"], ["treadness"], ["whatchamacallit?", "you", "hello"]], [["treadness"]]], {}),
    (RUSSIAN, "купиха", {}),
    (TEST, [["", "abcdefghz", "abc", "abcX"]], {"unknown_token": "<unk>"}),
    (TEST, ["abcdefghz abc, abcX"], {"unknown_token": "<unk>", "no_pretokenization": False}),
    (TEST, [["abcdefghz abc abcX"]], {"unknown_token": "<unk>", "no_pretokenization": False}),
    (TEST, [["", "abcdefghz", "abc"], ["abcX"]], {"unknown_token": "<unk>", "no_pretokenization": False}),
    (TEST, [["", "abcdefghz, a", "abcdefghz abc abcX"]], {"unknown_token": "<unk>", "no_pretokenization": False}),
]


def as_lists(outputs) -> list:
    return [t.to_list() if isinstance(t, tf.RaggedTensor) else t.numpy().tolist() for t in outputs]


def as_input(value):
    if isinstance(value, list) and any(isinstance(v, list) for v in value):
        return tf.ragged.constant(value, tf.string)
    return tf.constant(value, tf.string)


@pytest.mark.parametrize("out_type", [tf.int64, tf.string])
@pytest.mark.parametrize("vocab, inputs, options", PEER_CASES)
def test_peer_test_vectors(vocab, inputs, options, out_type):
    options = {"no_pretokenization": True, **options, "token_out_type": out_type}
    peer = text.FastWordpieceTokenizer(vocab, **options)
    ours = twp.WordpieceTokenizer(vocab, compat="fast_wordpiece", **options)
    assert as_lists(ours.tokenize_with_offsets(as_input(inputs))) == as_lists(
        peer.tokenize_with_offsets(as_input(inputs))
    )


def mismatches(ours, peer, inputs) -> list:
    bad = []
    for batch in batches(inputs, 1000):
        mine, theirs = as_lists(ours.tokenize_with_offsets(batch)), as_lists(peer.tokenize_with_offsets(batch))
        bad += [(s, m, t) for s, *m_t in zip(batch, zip(*mine), zip(*theirs)) for m, t in [m_t] if m != t]
    return bad


@pytest.mark.parametrize("max_bytes", [100, 12])
def test_end_to_end_on_the_sample_and_hard_strings(vocab_tokens, multilingual, hard_strings, max_bytes):
    peer = text.FastWordpieceTokenizer(vocab_tokens, max_bytes_per_word=max_bytes)
    ours = twp.WordpieceTokenizer(vocab_tokens, compat="fast_wordpiece", max_bytes_per_word=max_bytes)
    bad = mismatches(ours, peer, multilingual + hard_strings)
    assert not bad, bad[:3]


@pytest.mark.parametrize("max_bytes", [100, 12])
def test_words_on_the_sample_and_hard_strings(vocab_path, vocab_tokens, multilingual, hard_strings, max_bytes):
    options = dict(max_bytes_per_word=max_bytes, no_pretokenization=True)
    peer = text.FastWordpieceTokenizer(vocab_tokens, **options)
    ours = twp.WordpieceTokenizer(vocab_tokens, compat="fast_wordpiece", **options)
    for lower_case in (True, False):
        basic = twp.BertTokenizer(vocab_path, lower_case=lower_case).basic_tokenizer
        words = sorted(set(basic.tokenize(multilingual + hard_strings).flat_values.numpy().tolist()))
        mine, theirs = as_lists(ours.tokenize_with_offsets(words)), as_lists(peer.tokenize_with_offsets(words))
        bad = [(w, m, t) for w, m, t in zip(words, zip(*mine), zip(*theirs)) if m != t]
        assert not bad, bad[:3]


@pytest.mark.parametrize("no_pretokenization", [False, True])
def test_invalid_utf8_as_the_peer(vocab_tokens, invalid_utf8, no_pretokenization):
    vocab = vocab_tokens + ["\ufffd"]  # a replacement character in the vocabulary must not match invalid bytes
    peer = text.FastWordpieceTokenizer(vocab, no_pretokenization=no_pretokenization)
    ours = twp.WordpieceTokenizer(vocab, compat="fast_wordpiece", no_pretokenization=no_pretokenization)
    inputs = invalid_utf8 + [b"a\xffa b", b"caf\xe9, ok", b"\xc3"]
    assert as_lists(ours.tokenize_with_offsets(inputs)) == as_lists(peer.tokenize_with_offsets(inputs))


def test_every_code_point_splits_as_the_peer_splits():
    """Each code point between two letters: a word character, white space (dropped) or punctuation (a word)."""
    vocab = ["[UNK]", "a", "##a"]
    peer, ours = text.FastWordpieceTokenizer(vocab), twp.WordpieceTokenizer(vocab, compat="fast_wordpiece")
    code_points = np.array([c for c in range(1, 0x110000) if not 0xD800 <= c <= 0xDFFF])
    bad = []
    for chunk in np.array_split(code_points, 12):
        texts = tf.constant([("b" + chr(c) + "b").encode("utf-8") for c in chunk])
        mine, theirs = ours.tokenize(texts).row_lengths().numpy(), peer.tokenize(texts).row_lengths().numpy()
        bad += [hex(c) for c in chunk[mine != theirs]]
    assert not bad, bad[:20]


def test_in_a_graph_equals_eager(vocab_tokens, multilingual):
    ours = twp.WordpieceTokenizer(vocab_tokens, compat="fast_wordpiece")
    lines = tf.constant(multilingual[:300])
    assert as_lists(tf.function(ours.tokenize_with_offsets)(lines)) == as_lists(ours.tokenize_with_offsets(lines))


@pytest.mark.parametrize(
    "options, message",
    [
        (dict(unknown_token=None), "unknown_token: None is not possible with compat='fast_wordpiece'"),
        (dict(unknown_token="<nope>"), r"vocab: the vocab list .* lacks \['<nope>'\]"),
        (dict(split_unknown_characters=True), "split_unknown_characters=True: only for compat='tf_text'"),
        (dict(max_chars_per_token=4), "max_chars_per_token=4: only for compat='tf_text'"),
        (dict(compat="tf_text", no_pretokenization=True), "no_pretokenization=True: only for compat='fast_wordpiece'"),
        (dict(compat="fast"), "compat: expected one of"),
    ],
)
def test_options_are_checked(options, message):
    options = {"compat": "fast_wordpiece", **options}
    with pytest.raises(ValueError, match=message):
        twp.WordpieceTokenizer(["[UNK]", "a"], **options)


def test_end_to_end_contract(tmp_path):
    from helpers.contract import check_contract

    vocab = ["[UNK]", "un", "##aff", "##able", "!", "a", "##b"]
    ours = twp.WordpieceTokenizer(vocab, compat="fast_wordpiece")
    ids = check_contract(ours, ["unaffable!", "", "ab\u00a0a\u2000ab", "  x  "], tmp_path)
    assert (
        ids.to_list()
        == text.FastWordpieceTokenizer(vocab).tokenize(["unaffable!", "", "ab\u00a0a\u2000ab", "  x  "]).to_list()
    )
