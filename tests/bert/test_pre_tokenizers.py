"""The pre-tokenizer stage (tf_wordpiece.bert.pre_tokenizers, on tf_wordpiece.unicode.classes).

Each row: one peer's split (its factory), a normalized text, the words. The same rows are checked against
the peer where it runs alone: tensorflow_text's BertTokenizer on a vocabulary of every character (its
words from the pieces' offsets), tokenizers' BertPreTokenizer (after BertNormalizer's CJK spaces only),
FastWordpieceTokenizer's end-to-end split (from its unknown tokens' offsets) and Python's `str.split()`.
"""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

from tf_wordpiece.bert import pre_tokenizers
from tf_wordpiece.unicode import classes

FACTORIES = {
    "tf_text": lambda: pre_tokenizers.tf_text_pre_tokenizer(),
    "tf_text-keep-whitespace": lambda: pre_tokenizers.tf_text_pre_tokenizer(keep_whitespace=True),
    "hf": lambda: pre_tokenizers.hf_pre_tokenizer(),
    "hf-no-cjk": lambda: pre_tokenizers.hf_pre_tokenizer(handle_chinese_chars=False),
    "fast_wordpiece": lambda: pre_tokenizers.fast_wordpiece_pre_tokenizer(),
    "python": lambda: pre_tokenizers.python_whitespace_pre_tokenizer(),
}

# (pre-tokenizer, what the row shows, text, words)
ROWS = [
    ("tf_text", "punctuation", "Hello, world!", ["Hello", ",", "world", "!"]),
    ("tf_text", "apostrophe", "don't stop", ["don", "'", "t", "stop"]),
    ("tf_text", "ascii-symbols", "$5 ^x `y` ~z", ["$", "5", "^", "x", "`", "y", "`", "~", "z"]),
    ("tf_text", "unicode-punctuation", "a\xa7b\xbfc\u2010d", ["a", "\xa7", "b", "\xbf", "c", "\u2010", "d"]),
    ("tf_text", "symbol-not-punctuation", "a\xb4b", ["a\xb4b"]),  # Sk is not \p{P}
    ("tf_text", "cjk", "\u65e5\u672c\u8a9e text", ["\u65e5", "\u672c", "\u8a9e", "text"]),
    ("tf_text", "cjk-extensions", "\u3400\U00020000\uf900", ["\u3400", "\U00020000", "\uf900"]),
    ("tf_text", "kana-not-cjk", "\u3042\u30a2", ["\u3042\u30a2"]),
    ("tf_text", "re2-white-space-is-ascii", "a\u3000b\xa0c", ["a\u3000b\xa0c"]),  # lower_case's NFKC makes them spaces
    ("tf_text", "tab-newline", "a\tb\nc", ["a", "b", "c"]),
    ("tf_text", "marks-stay", "e\u0301!", ["e\u0301", "!"]),
    ("tf_text", "edges", " lead trail ", ["lead", "trail"]),
    ("tf_text", "unicode-16-punctuation", "\u1b4ex", ["\u1b4ex"]),  # RE2's \p{P} is Unicode 15
    ("tf_text", "empty", "", []),
    ("tf_text", "only-spaces", "   ", []),
    ("tf_text-keep-whitespace", "run", "a  b", ["a", "  ", "b"]),
    ("tf_text-keep-whitespace", "edges", " lead trail ", [" ", "lead", " ", "trail", " "]),
    ("tf_text-keep-whitespace", "only-spaces", "   ", ["   "]),
    ("tf_text-keep-whitespace", "tab-newline", "a\tb\nc", ["a", "\t", "b", "\n", "c"]),
    ("tf_text-keep-whitespace", "punctuation", "Hello, world!", ["Hello", ",", " ", "world", "!"]),
    ("hf", "punctuation", "Hello, world!", ["Hello", ",", "world", "!"]),
    ("hf", "ascii-symbols", "$5 ^x `y` ~z", ["$", "5", "^", "x", "`", "y", "`", "~", "z"]),
    ("hf", "unicode-white-space", "a\u3000b\xa0c\u2028d\x85e", ["a", "b", "c", "d", "e"]),
    ("hf", "information-separators", "a\x1cb", ["a\x1cb"]),  # not white space to Rust's char::is_whitespace
    ("hf", "cjk", "\u65e5\u672c\u8a9e text", ["\u65e5", "\u672c", "\u8a9e", "text"]),
    ("hf", "cjk-extensions", "\u3400\U00020000", ["\u3400", "\U00020000"]),
    ("hf", "kana-not-cjk", "\u3042\u30a2", ["\u3042\u30a2"]),
    ("hf", "symbol-not-punctuation", "a\xb4b", ["a\xb4b"]),
    ("hf", "marks-stay", "e\u0301!", ["e\u0301", "!"]),
    ("hf", "empty", "", []),
    ("hf-no-cjk", "cjk-kept-together", "\u65e5\u672c\u8a9e text", ["\u65e5\u672c\u8a9e", "text"]),
    ("hf-no-cjk", "punctuation", "a,b", ["a", ",", "b"]),
    ("fast_wordpiece", "punctuation", "Hello, world!", ["Hello", ",", "world", "!"]),
    ("fast_wordpiece", "unicode-16-punctuation", "\u1b4ex", ["\u1b4e", "x"]),
    ("fast_wordpiece", "unicode-white-space", "a\u3000b\xa0c", ["a", "b", "c"]),
    ("fast_wordpiece", "cjk", "\u65e5\u672c text", ["\u65e5", "\u672c", "text"]),
    ("python", "no-punctuation-split", "Hello, world! don't", ["Hello,", "world!", "don't"]),
    ("python", "information-separators", "a\x1cb\x1fc", ["a", "b", "c"]),
    ("python", "unicode-white-space", "a\u3000b\xa0c\u2028d\x85e", ["a", "b", "c", "d", "e"]),
    ("python", "not-isspace", "x\u200by a\u180eb", ["x\u200by", "a\u180eb"]),
    ("python", "cjk-kept-together", "\u65e5\u672c\u8a9e text", ["\u65e5\u672c\u8a9e", "text"]),
    ("python", "only-spaces", " \t ", []),
]
ROW_IDS = [f"{name}:{what}" for name, what, _, _ in ROWS]


def split_words(pre: pre_tokenizers.PreTokenizer, texts: list[str]) -> list[list[str]]:
    """Each text's words, by `classes_of` then `split` over the texts' code points end to end."""
    code_points = [ord(c) for text in texts for c in text]
    rows = [i for i, text in enumerate(texts) for _ in text]
    flat = "".join(texts)
    cps = tf.constant(code_points, tf.int32)
    spans = pre.split(pre.classes_of(cps), tf.constant(rows, tf.int32))
    kept, splits = spans.kept.numpy().tolist(), spans.row_splits.numpy().tolist()
    words = [[kept[i] for i in range(a, b)] for a, b in zip(splits[:-1], splits[1:])]
    out = [[] for _ in texts]
    for word in words:
        out[rows[word[0]]].append("".join(flat[i] for i in word))
    return out


def peer_words(name: str, text: str) -> list[str]:
    if name == "python":
        return text.split()
    if name in ("hf", "hf-no-cjk"):
        tokenizers = pytest.importorskip("tokenizers")
        spaced = tokenizers.normalizers.BertNormalizer(
            clean_text=False, handle_chinese_chars=name == "hf", strip_accents=False, lowercase=False
        ).normalize_str(text)
        return [w for w, _ in tokenizers.pre_tokenizers.BertPreTokenizer().pre_tokenize_str(spaced)]
    tf_text = pytest.importorskip("tensorflow_text")
    raw = text.encode("utf-8")
    if name == "fast_wordpiece":  # every word unknown: its token spans the word
        _, begin, end = tf_text.FastWordpieceTokenizer(["[UNK]", "a"]).tokenize_with_offsets([raw])
        return [raw[b:e].decode("utf-8") for b, e in zip(begin.to_list()[0], end.to_list()[0])]
    characters = sorted(set(text))
    vocab = ["[UNK]"] + characters + ["##" + c for c in characters]
    table = tf.lookup.StaticVocabularyTable(
        tf.lookup.KeyValueTensorInitializer(vocab, tf.range(len(vocab), dtype=tf.int64)), 1
    )
    peer = tf_text.BertTokenizer(table, keep_whitespace=name == "tf_text-keep-whitespace")
    _, begin, end = peer.tokenize_with_offsets([raw])
    return [raw[b[0] : e[-1]].decode("utf-8") for b, e in zip(begin.to_list()[0], end.to_list()[0])]


@pytest.mark.parametrize("name, what, text, words", ROWS, ids=ROW_IDS)
def test_split(name, what, text, words):
    assert split_words(FACTORIES[name](), [text]) == [words]


@pytest.mark.parametrize("name, what, text, words", ROWS, ids=ROW_IDS)
def test_rows_are_the_peers(name, what, text, words):
    assert peer_words(name, text) == words


@pytest.mark.parametrize("name", list(FACTORIES))
def test_words_never_cross_strings(name):
    """The texts are split end to end in one call; a word ends with its string."""
    texts = ["ab", "cd", "", "e f", "  ", "g"]
    assert split_words(FACTORIES[name](), texts) == [split_words(FACTORIES[name](), [t])[0] for t in texts]
    if name == "tf_text-keep-whitespace":
        assert split_words(FACTORIES[name](), [" ", " "]) == [[" "], [" "]]


@pytest.mark.parametrize(
    "name, character, kind",
    [
        ("tf_text", "a", classes.WORD),
        ("tf_text", " ", classes.WHITESPACE),
        ("tf_text", "!", classes.ISOLATED),
        ("tf_text", "\u4e2d", classes.ISOLATED),
        ("tf_text", "\u3000", classes.WORD),
        ("hf", "\u3000", classes.WHITESPACE),
        ("hf", "\u4e2d", classes.ISOLATED),
        ("hf-no-cjk", "\u4e2d", classes.WORD),
        ("fast_wordpiece", "\u1b4e", classes.ISOLATED),
        ("python", "!", classes.WORD),
        ("python", "\x1c", classes.WHITESPACE),
    ],
    ids=lambda v: ascii(v) if isinstance(v, str) else str(v),
)
def test_classes(name, character, kind):
    pre = FACTORIES[name]()
    assert int(pre.classes.dense[ord(character)]) == kind
    assert pre.classes_of(tf.constant([ord(character)])).numpy().tolist() == [kind]


@pytest.mark.parametrize("name", list(FACTORIES))
def test_added_token_markers_are_isolated(name):
    """Negative code points (matched added tokens) are words of their own whatever is around them."""
    pre = FACTORIES[name]()
    cps = tf.constant([ord("a"), -1, ord("b"), -2, -3], tf.int32)
    assert pre.classes_of(cps).numpy().tolist()[1:] == [classes.ISOLATED, classes.WORD, *[classes.ISOLATED] * 2]
    spans = pre.split(pre.classes_of(cps), tf.zeros([5], tf.int32))
    assert spans.row_splits.numpy().tolist() == [0, 1, 2, 3, 4, 5]


@pytest.mark.parametrize(
    "name, keep_whitespace, spaced",
    [
        ("tf_text", False, False),
        ("tf_text-keep-whitespace", True, False),
        ("hf", False, True),
        ("hf-no-cjk", False, False),
        ("fast_wordpiece", False, False),
        ("python", False, False),
    ],
)
def test_keep_whitespace_and_spaced(name, keep_whitespace, spaced):
    """`spaced`: the CJK ideographs Hugging Face's normalizer surrounds with spaces (its added tokens see them)."""
    pre = FACTORIES[name]()
    assert pre.keep_whitespace is keep_whitespace
    assert (pre.spaced is not None) is spaced
    if spaced:
        assert pre.spaced[0x4E2D] and not pre.spaced[ord("a")] and not pre.spaced[0x3042]


def test_split_in_a_graph_equals_eager():
    pre = FACTORIES["tf_text-keep-whitespace"]()
    cps = tf.constant([ord(c) for c in " a, b  c"], tf.int32)
    rows = tf.constant([0, 0, 0, 0, 1, 1, 1, 1], tf.int32)
    eager = pre.split(pre.classes_of(cps), rows)
    graph = tf.function(lambda c, r: pre.split(pre.classes_of(c), r))(cps, rows)
    assert [t.numpy().tolist() for t in graph] == [t.numpy().tolist() for t in eager]


def test_pre_tokenizers_with_the_same_options_are_shared():
    same = pre_tokenizers.tf_text_pre_tokenizer(keep_whitespace=True)
    assert same is pre_tokenizers.tf_text_pre_tokenizer(keep_whitespace=True)
    assert pre_tokenizers.hf_pre_tokenizer() is not pre_tokenizers.hf_pre_tokenizer(handle_chinese_chars=False)


def test_whitespace_is_pythons_isspace():
    mask = np.zeros(0x110000, bool)
    for first, last in classes.PYTHON_WHITESPACE:
        mask[first : last + 1] = True
    assert np.flatnonzero(mask).tolist() == [c for c in range(0x110000) if chr(c).isspace()]
