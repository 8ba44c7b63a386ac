"""The basic tokenizer (tf_wordpiece.bert.basic_tokenizer): strings -> Words (decode, added tokens, normalize,
pre-tokenize), built here from its parts directly; then its words where added tokens match, against tokenizers."""

from __future__ import annotations

import pytest
import tensorflow as tf

import tf_wordpiece as twp
from helpers.contract import check_contract
from helpers.oracles import hf_oracle
from tf_wordpiece.bert import normalizers, pre_tokenizers
from tf_wordpiece.bert.added_tokens import AddedToken, AddedTokens
from tf_wordpiece.bert.basic_tokenizer import BasicTokenizer

TF_LOWER = dict(lower_case=True, normalization_form=None)
HF_UNCASED = dict(clean_text=True, strip_accents=True, lowercase=True)
BUILDERS = {
    "tf_text-lower": lambda: BasicTokenizer(
        normalizers.tf_text_normalizer(**TF_LOWER), pre_tokenizers.tf_text_pre_tokenizer()
    ),
    "tf_text-keep-whitespace": lambda: BasicTokenizer(
        normalizers.tf_text_normalizer(lower_case=False, normalization_form=None),
        pre_tokenizers.tf_text_pre_tokenizer(keep_whitespace=True),
    ),
    "tf_text-unused": lambda: BasicTokenizer(
        normalizers.tf_text_normalizer(**TF_LOWER), pre_tokenizers.tf_text_pre_tokenizer(), preserve_unused_token=True
    ),
    "hf-uncased": lambda: BasicTokenizer(
        normalizers.hf_normalizer(**HF_UNCASED), pre_tokenizers.hf_pre_tokenizer(), invalid_utf8="replace"
    ),
    "hf-added": lambda: BasicTokenizer(
        normalizers.hf_normalizer(**HF_UNCASED),
        pre_tokenizers.hf_pre_tokenizer(),
        added_tokens=AddedTokens([AddedToken("[MASK]", id=4), AddedToken("Hello World", id=9, normalized=True)]),
        invalid_utf8="replace",
    ),
}

# (basic tokenizer, what the row shows, strings, per word: (text, row, begin, end, added_id)); byte offsets
# into the original string, `end` exclusive; a byte that is not UTF-8 is written as Python's surrogateescape does.
WORD_ROWS = [
    (
        "tf_text-lower",
        "expansions-and-empty-rows",
        ["Stra\xdfe \u0130x", "", "\xc9\xc9  Unaffable"],
        [("strasse", 0, 0, 7, -1), ("ix", 0, 8, 11, -1), ("ee", 2, 0, 4, -1), ("unaffable", 2, 6, 15, -1)],
    ),
    (
        "tf_text-lower",
        "invalid-utf8-kept",  # one character of its own in the word, its raw bytes (tensorflow_text's word)
        [b"a\xffb c"],
        [("a\udcffb", 0, 0, 3, -1), ("c", 0, 4, 5, -1)],
    ),
    ("hf-uncased", "invalid-utf8-replaced", [b"a\xffb c"], [("ab", 0, 0, 3, -1), ("c", 0, 4, 5, -1)]),
    ("hf-uncased", "cjk", ["\u4e2d\u6587x"], [("\u4e2d", 0, 0, 3, -1), ("\u6587", 0, 3, 6, -1), ("x", 0, 6, 7, -1)]),
    (
        "hf-added",
        "added-tokens",  # raw "[MASK]" as written; "Hello World" in its normalized form
        ["x[MASK]y HELLO world!", "\u4e2d"],
        [
            ("x", 0, 0, 1, -1),
            ("[MASK]", 0, 1, 7, 4),
            ("y", 0, 7, 8, -1),
            ("hello world", 0, 9, 20, 9),
            ("!", 0, 20, 21, -1),
            ("\u4e2d", 1, 0, 3, -1),
        ],
    ),
    (
        "tf_text-unused",
        "preserve-unused-token",  # kept whole only where its three parts touch
        ["[unused1] [ unused1 ] x[unused12]y"],
        [
            ("[unused1]", 0, 0, 9, -1),
            ("[", 0, 10, 11, -1),
            ("unused1", 0, 12, 19, -1),
            ("]", 0, 20, 21, -1),
            ("x", 0, 22, 23, -1),
            ("[unused12]", 0, 23, 33, -1),
            ("y", 0, 33, 34, -1),
        ],
    ),
    (
        "tf_text-keep-whitespace",
        "keep-whitespace",  # the tab is a control character: a space before the split
        [" a\tb "],
        [(" ", 0, 0, 1, -1), ("a", 0, 1, 2, -1), (" ", 0, 2, 3, -1), ("b", 0, 3, 4, -1), (" ", 0, 4, 5, -1)],
    ),
    (
        "tf_text-lower",
        "one-character-many-words",  # U+FDFA folds to four words: each spans the character
        ["\ufdfa!"],
        [
            ("\u0635\u0644\u0649", 0, 0, 3, -1),
            ("\u0627\u0644\u0644\u0647", 0, 0, 3, -1),
            ("\u0639\u0644\u064a\u0647", 0, 0, 3, -1),
            ("\u0648\u0633\u0644\u0645", 0, 0, 3, -1),
            ("!", 0, 3, 4, -1),
        ],
    ),
]

# (basic tokenizer, strings, per word: (normalized begin, normalized end)): byte offsets in the normalized string.
NORMALIZED_ROWS = [
    ("tf_text-lower", ["Stra\xdfe \u0130x", "", "\xc9\xc9  Unaffable"], [(0, 7), (8, 10), (0, 2), (4, 13)]),
    ("tf_text-lower", [b"a\xffb c"], [(0, 3), (4, 5)]),  # an invalid byte keeps its own length
    ("hf-uncased", [b"a\xffb c"], [(0, 2), (3, 4)]),  # its U+FFFD is deleted
    ("tf_text-lower", ["\ufdfa!"], [(0, 6), (7, 15), (16, 24), (25, 33), (33, 34)]),
    ("hf-added", ["x [MASK] y", "X[MASK]Y"], [(0, 1), (2, 8), (9, 10), (0, 1), (1, 7), (7, 8)]),  # as written
]


def word_rows(words) -> list[tuple]:
    text = [t.decode("utf-8", "surrogateescape") for t in words.text.numpy().tolist()]
    begin = [chars[0] for chars in words.begin.to_list()]
    end = [chars[-1] for chars in words.end.to_list()]
    # added_id None: no added tokens, so every word's is -1
    added = [-1] * len(text) if words.added_id is None else words.added_id.numpy().tolist()
    return list(zip(text, words.row.numpy().tolist(), begin, end, added))


@pytest.mark.parametrize("name, what, strings, expected", WORD_ROWS, ids=[f"{r[0]}:{r[1]}" for r in WORD_ROWS])
def test_split_words(name, what, strings, expected):
    words = BUILDERS[name]().split(tf.constant(strings))
    assert word_rows(words) == expected
    assert int(words.num_strings) == len(strings)


@pytest.mark.parametrize("name, what, strings, expected", WORD_ROWS, ids=[f"{r[0]}:{r[1]}" for r in WORD_ROWS])
def test_tokenize_with_offsets_gives_the_words_spans(name, what, strings, expected):
    words, begin, end = BUILDERS[name]().tokenize_with_offsets(tf.constant(strings))
    per_string = [[] for _ in strings]
    for text, row, b, e, _ in expected:
        per_string[row].append((text.encode("utf-8", "surrogateescape"), b, e))
    assert [list(zip(*t)) for t in zip(words.to_list(), begin.to_list(), end.to_list())] == per_string


@pytest.mark.parametrize(
    "name, strings, expected", NORMALIZED_ROWS, ids=[f"{r[0]}:{ascii(r[1][0])}" for r in NORMALIZED_ROWS]
)
def test_normalized_offsets(name, strings, expected):
    words = BUILDERS[name]().split(tf.constant(strings))
    got = [
        (chars[0], last[-1]) for chars, last in zip(words.normalized_begin.to_list(), words.normalized_end.to_list())
    ]
    assert got == expected


def test_each_characters_offsets():
    """Every character of a word has its source's offsets: both s of ß span its two bytes."""
    words = BUILDERS["tf_text-lower"]().split(tf.constant(["Stra\xdfe \u0130x"]))
    assert words.begin.to_list() == [[0, 1, 2, 3, 4, 4, 6], [8, 10]]
    assert words.end.to_list() == [[1, 2, 3, 4, 6, 6, 7], [10, 11]]
    assert words.normalized_begin.to_list() == [[0, 1, 2, 3, 4, 5, 6], [8, 9]]
    assert words.normalized_end.to_list() == [[1, 2, 3, 4, 5, 6, 7], [9, 10]]


def test_split_in_a_graph_equals_eager():
    basic = BUILDERS["hf-added"]()
    strings = tf.constant(["x[MASK]y HELLO world!", "", "\u4e2d \xc9"])
    eager, graph = basic.split(strings), tf.function(basic.split)(strings)
    for name in eager._fields:
        assert listed(getattr(graph, name)) == listed(getattr(eager, name)), name


def listed(t) -> list:
    return t.to_list() if isinstance(t, tf.RaggedTensor) else t.numpy().tolist()


@pytest.mark.parametrize("scalar_as_batch, expected", [(False, [b"a", b"b"]), (True, [[b"a", b"b"]])])
def test_scalar_as_batch(scalar_as_batch, expected):
    """tensorflow_text's BasicTokenizer gives [1, words] for a scalar; tokenizers gives the words."""
    basic = BasicTokenizer(
        normalizers.tf_text_normalizer(**TF_LOWER),
        pre_tokenizers.tf_text_pre_tokenizer(),
        scalar_as_batch=scalar_as_batch,
    )
    assert listed(basic.tokenize("A b")) == expected


def test_invalid_utf8_option_is_checked():
    with pytest.raises(ValueError, match=r"invalid_utf8: expected one of \['keep', 'replace'\], got 'drop'"):
        BasicTokenizer(
            normalizers.tf_text_normalizer(**TF_LOWER), pre_tokenizers.tf_text_pre_tokenizer(), invalid_utf8="drop"
        )


@pytest.mark.parametrize(
    "character_ends, ends",
    [("source", [7, 9, 15, 15, 15, 17]), ("offset_map", [7, 11, 12, 12, 15, 17])],
)
def test_character_ends(character_ends, ends):
    """With "offset_map", a word ends where the normalized character after it comes from (tensorflow_text's
    FastBertNormalizer): past U+0301 (deleted), inside \u2026's "..." where \u2026 begins, else as "source"."""
    basic = BasicTokenizer(
        normalizers.tf_text_normalizer(**TF_LOWER),
        pre_tokenizers.fast_wordpiece_pre_tokenizer(),
        character_ends=character_ends,
    )
    words, begin, end = basic.tokenize_with_offsets(["Stra\u00dfe x\u0301 \u2026ab"])
    assert listed(words) == [[b"strasse", b"x", b".", b".", b".", b"ab"]]
    assert listed(begin) == [[0, 8, 12, 12, 12, 15]]
    assert listed(end) == [ends]


def test_character_ends_option_is_checked():
    with pytest.raises(ValueError, match=r"character_ends: expected one of \['source', 'offset_map'\], got 'next'"):
        BasicTokenizer(
            normalizers.tf_text_normalizer(**TF_LOWER), pre_tokenizers.tf_text_pre_tokenizer(), character_ends="next"
        )


# --- words where added tokens match: the token's text, never the internal marker (issue 18, fault 6) -----

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "hello", "world", "x", "!", "hello world", "ｘ"]
NORMALIZED = AddedToken("Hello World", id=len(VOCAB), normalized=True)


@pytest.mark.parametrize(
    "special_tokens, text, words",
    [
        (None, "[UNK] x [MASK]!", ["[UNK]", "x", "[MASK]", "!"]),
        (None, "x[MASK][MASK]", ["x", "[MASK]", "[MASK]"]),
        (None, "\ufffd [MASK]", ["[MASK]"]),  # a real U+FFFD is deleted (HF), the token stays
        (["[MASK]", NORMALIZED], "HELLO world [MASK]", ["hello world", "[MASK]"]),  # normalized form
        (["[UNK]"], "[unk] [UNK]", ["[", "unk", "]", "[UNK]"]),
    ],
    ids=repr,
)
def test_added_token_words_are_their_text(special_tokens, text, words):
    tok = twp.BertTokenizer(VOCAB, compat="hf", lower_case=True, special_tokens=special_tokens)
    got, begin, end = tok.basic_tokenizer.tokenize_with_offsets([text])
    assert [w.decode() for w in got.to_list()[0]] == words
    # Offsets are unchanged: they still point at the token as written.
    raw = text.encode()
    spans = [raw[b:e] for b, e in zip(begin.to_list()[0], end.to_list()[0])]
    assert [s.decode().lower() for s in spans] == [w.lower() for w in words]


def test_added_token_words_match_hf_tokens():
    tok = twp.BertTokenizer(VOCAB, compat="hf", lower_case=True)
    text = "Hello [MASK] [UNK]x[SEP]"
    words = tok.basic_tokenizer.tokenize([text]).to_list()[0]
    specials = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}
    hf_tokens = hf_oracle().encode(text, add_special_tokens=False).tokens
    assert [w.decode() for w in words if w.decode() in specials] == [t for t in hf_tokens if t in specials]


def test_added_token_words_contract(tmp_path):
    tok = twp.BertTokenizer(VOCAB, compat="hf", lower_case=True)
    words = check_contract(tok.basic_tokenizer, ["a [MASK]!", "", "[UNK][SEP] x"], tmp_path)
    assert words.to_list() == [[b"a", b"[MASK]", b"!"], [], [b"[UNK]", b"[SEP]", b"x"]]
