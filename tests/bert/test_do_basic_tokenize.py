"""BertTokenizer(compat="hf", do_basic_tokenize=False) against a pure-Python twin of transformers' BertTokenizer.

transformers (not installed) then splits the text on its special tokens, splits each
other part with `str.split()` and runs WordPiece (greedy longest match, `##`, words over
100 characters unknown) on each word: no cleaning, no lowercasing, no punctuation split.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
import tensorflow as tf

import tf_wordpiece as twp
from helpers.ragged import batches
from tf_wordpiece.unicode import classes

SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def transformers_tokenize(text: str, vocab: dict[str, int]) -> list[tuple[str, int, int]]:
    """(piece, char begin, char end), as transformers' BertTokenizer(do_basic_tokenize=False).tokenize splits."""
    out, position = [], 0
    for i, part in enumerate(re.split("(" + "|".join(map(re.escape, SPECIALS)) + ")", text)):
        if i % 2:  # a special token, never split
            out.append((part, position, position + len(part)))
        else:
            starts = [k for k, ch in enumerate(part) if not ch.isspace() and (k == 0 or part[k - 1].isspace())]
            words = [(k, k + len(word)) for k, word in zip(starts, part.split())]  # str.split(), with positions
            for begin, end in words:
                out += [(p, position + b, position + e) for p, b, e in _wordpiece(part[begin:end], vocab, begin)]
        position += len(part)
    return out


def _wordpiece(word: str, vocab: dict[str, int], at: int) -> list[tuple[str, int, int]]:
    if len(word) > 100:
        return [("[UNK]", at, at + len(word))]
    pieces, start = [], 0
    while start < len(word):
        end = len(word)
        while end > start and ("##" if start else "") + word[start:end] not in vocab:
            end -= 1
        if end == start:
            return [("[UNK]", at, at + len(word))]
        pieces.append((("##" if start else "") + word[start:end], at + start, at + end))
        start = end
    return pieces


def _in_bytes(text: str, pieces, vocab) -> tuple[list[int], list[int], list[int]]:
    ends = np.cumsum([0] + [len(ch.encode("utf-8")) for ch in text]).tolist()
    return [vocab[p] for p, _, _ in pieces], [ends[b] for _, b, _ in pieces], [ends[e] for _, _, e in pieces]


@pytest.fixture(scope="module")
def vocab(vocab_tokens) -> dict[str, int]:
    return {t: i for i, t in enumerate(vocab_tokens)}


@pytest.fixture(scope="module")
def ours(vocab_path):
    return twp.BertTokenizer(vocab_path, compat="hf", do_basic_tokenize=False)


def _flat_rows(t: tf.RaggedTensor) -> list[list[int]]:
    return t.merge_dims(-2, -1).to_list()


def test_matches_transformers_on_the_sample_and_hard_strings(ours, vocab, multilingual, hard_strings):
    extra = [
        "a[SEP]b [CLS]",
        "x\x1cy\x1dz\x1e\x1fw",
        "a\xa0b\u2000c\u3000d\u200be",
        "\x85lead\u2028trail\u2029",
        "Hello, World!",
        "x" * 101,
        "x" * 100,
        "  ",
        "",
        "[UNK][UNK]",
        "\u180eq\u205fr\u202fs\u1680t",
    ]
    bad = []
    for batch in batches(multilingual + hard_strings + extra, 1000):
        ids, begin, end = (_flat_rows(t) for t in ours.tokenize_with_offsets(batch))
        for k, text in enumerate(batch):
            want = _in_bytes(text, transformers_tokenize(text, vocab), vocab)
            if (ids[k], begin[k], end[k]) != want:
                bad.append((text, ids[k], want[0]))
    assert not bad, bad[:5]


def test_no_lowercasing_or_punctuation_split(ours, vocab):
    pieces = ours.tokenize("Hello, world!").merge_dims(-2, -1).numpy().tolist()
    assert pieces == [
        vocab["[UNK]"],
        vocab["world"],
        vocab["##!"],
    ]  # "Hello," is unknown: "H" is not in the uncased vocab


def test_encode_adds_the_template(ours, vocab):
    text = "the cat\u00a0sat [MASK] down"
    want = [vocab["[CLS]"]] + [vocab[p] for p, _, _ in transformers_tokenize(text, vocab)] + [vocab["[SEP]"]]
    assert ours.encode(text).ids.numpy().tolist() == want


def test_in_a_graph_equals_eager(ours, multilingual):
    lines = tf.constant(multilingual[:300])
    graph = tf.function(ours.tokenize)(lines)
    assert _flat_rows(graph) == _flat_rows(ours.tokenize(lines))


def test_whitespace_is_pythons_isspace():
    mask = np.zeros(0x110000, bool)
    for first, last in classes.PYTHON_WHITESPACE:
        mask[first : last + 1] = True
    assert np.flatnonzero(mask).tolist() == [c for c in range(0x110000) if chr(c).isspace()]


def test_only_for_compat_hf(vocab_path):
    with pytest.raises(ValueError, match="do_basic_tokenize=False: only for compat='hf'"):
        twp.BertTokenizer(vocab_path, do_basic_tokenize=False)


@pytest.mark.parametrize("option", ["lower_case", "strip_accents"])
def test_basic_tokenizer_options_that_would_change_text_are_refused(vocab_path, option):
    with pytest.raises(ValueError, match=f"{option}=True: has no effect with do_basic_tokenize=False"):
        twp.BertTokenizer(vocab_path, compat="hf", do_basic_tokenize=False, **{option: True})


@pytest.mark.parametrize("option", ["clean_text", "handle_chinese_chars"])
def test_cleaning_options_are_ignored_as_transformers_ignores_them(ours, vocab_path, option):
    text = ["a\x00b 中文 x"]
    for value in (True, False):
        tok = twp.BertTokenizer(vocab_path, compat="hf", do_basic_tokenize=False, **{option: value})
        assert tok.tokenize(text).to_list() == ours.tokenize(text).to_list()


def test_save_refuses(ours, tmp_path):
    with pytest.raises(ValueError, match="do_basic_tokenize: False has no tokenizer.json equivalent"):
        ours.save(tmp_path / "tokenizer.json")
    assert not (tmp_path / "tokenizer.json").exists()


def test_contract(vocab_path, vocab, tmp_path):
    from helpers.contract import check_contract

    tok = twp.BertTokenizer(vocab_path, compat="hf", do_basic_tokenize=False)
    strings = ["the cat\x1csat", "", "[CLS]hello world!", "  "]
    ids = check_contract(tok, strings, tmp_path)
    assert [sum(row, []) for row in ids.to_list()] == [
        [vocab[p] for p, _, _ in transformers_tokenize(s, vocab)] for s in strings
    ]
