"""The recipes (tf_wordpiece.bert.recipes): each compat mode's options, their types and defaults, and the parts
they build; HfRecipe(do_basic_tokenize=False) against a pure-Python twin of transformers' BertTokenizer."""

from __future__ import annotations

import dataclasses
from typing import Optional

import numpy as np
import pytest
import tensorflow as tf

import tf_wordpiece as twp
from helpers.bert_reference import transformers_tokenize
from helpers.ragged import batches

TINY = ["[UNK]", "a", "##b", "\x05"]


def _options(recipe) -> list[tuple[type, str, str]]:
    return [(recipe, f.name, f.type) for f in dataclasses.fields(recipe)]


ALL_OPTIONS = _options(twp.TfTextRecipe) + _options(twp.HfRecipe)


@pytest.mark.parametrize("recipe, name, kind", ALL_OPTIONS, ids=lambda v: getattr(v, "__name__", str(v)))
def test_every_option_refuses_the_wrong_type_naming_itself(recipe, name, kind):
    """One rule for every field: a true/false option takes a bool (None too where its type says so),
    a limit an int >= 0 or None; anything else is a TypeError that names the option and shows the value."""
    wrong = {"bool": [None, 1, "yes"], "bool | None": [1, "yes"], "int | None": [1.5, "100", True]}.get(kind, [3])
    for value in wrong:
        with pytest.raises(TypeError, match=rf"^{name}: expected .*, got {value!r}$"):
            recipe(**{name: value})


@pytest.mark.parametrize("recipe, name", [(r, n) for r, n, k in ALL_OPTIONS if k == "int | None"])
def test_limits_below_zero_are_value_errors(recipe, name):
    with pytest.raises(ValueError, match=rf"^{name}: expected an int >= 0 or None, got -1$"):
        recipe(**{name: -1})


def test_option_types_are_checked_by_the_real_type_however_spelled():
    """Issue 41: the check matched annotation strings, so `Optional[bool]` (not the string "bool | None") skipped it."""
    from tf_wordpiece.bert.recipes import check_option_types

    @dataclasses.dataclass
    class Spelled:
        flag: Optional[bool] = None
        limit: Optional[int] = None
        name: Optional[str] = None
        strict: bool = False

    check_option_types(Spelled(flag=None, limit=3, name="x"))  # accepted
    for field, value, error in [
        ("flag", 1, TypeError),
        ("limit", "3", TypeError),
        ("limit", -1, ValueError),
        ("name", 3, TypeError),
        ("strict", None, TypeError),
    ]:
        with pytest.raises(error, match=rf"^{field}: expected .*, got {value!r}$"):
            check_option_types(Spelled(**{field: value}))

    @dataclasses.dataclass
    class Unchecked:
        ratio: float = 0.5

    with pytest.raises(TypeError, match="ratio: a recipe option is a bool, int or str"):
        check_option_types(Unchecked())


def test_none_for_a_true_false_option_is_refused_through_the_tokenizer():
    """Issue 36: clean_text=None was accepted and meant "no cleaning"; the control character then stayed in the word."""
    with pytest.raises(TypeError, match="^clean_text: expected True or False, got None$"):
        twp.BertTokenizer(TINY, compat="hf", clean_text=None)
    cleaned = twp.BertTokenizer(TINY, compat="hf", clean_text=True, token_out_type=tf.string)
    assert cleaned.tokenize(["a\x05b"]).to_list() == [[[b"a", b"##b"]]]  # the control character is deleted


def test_strip_accents_none_follows_lower_case():
    assert twp.HfRecipe(lower_case=True).strips_accents and not twp.HfRecipe().strips_accents
    assert not twp.HfRecipe(lower_case=True, strip_accents=False).strips_accents


def test_defaults_are_the_peers():
    tf_text, hf = twp.TfTextRecipe(), twp.HfRecipe()
    assert (tf_text.max_bytes_per_word, tf_text.max_input_chars_per_word) == (100, None)
    assert (hf.max_bytes_per_word, hf.max_input_chars_per_word) == (None, 100)
    assert hf.clean_text and hf.handle_chinese_chars and hf.strip_accents is None and not hf.lower_case


# --- the parts each recipe builds ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "recipe, normalizer, pre_tokenizer, invalid_utf8, scalar_as_batch",
    [
        (
            twp.TfTextRecipe(),
            dict(tf_text=dict(lower_case=False, normalization_form=None)),
            dict(tf_text=dict(keep_whitespace=False)),
            "keep",
            True,
        ),
        (
            twp.TfTextRecipe(lower_case=True, keep_whitespace=True),
            dict(tf_text=dict(lower_case=True, normalization_form=None)),
            dict(tf_text=dict(keep_whitespace=True)),
            "keep",
            True,
        ),
        (
            twp.TfTextRecipe(normalization_form="NFKC"),
            dict(tf_text=dict(lower_case=False, normalization_form="NFKC")),
            dict(tf_text=dict(keep_whitespace=False)),
            "keep",
            True,
        ),
        (
            twp.HfRecipe(lower_case=True),
            dict(hf=dict(clean_text=True, strip_accents=True, lowercase=True)),
            dict(hf=dict(handle_chinese_chars=True)),
            "replace",
            False,
        ),
        (
            twp.HfRecipe(clean_text=False, handle_chinese_chars=False, strip_accents=True),
            dict(hf=dict(clean_text=False, strip_accents=True, lowercase=False)),
            dict(hf=dict(handle_chinese_chars=False)),
            "replace",
            False,
        ),
        (
            twp.HfRecipe(do_basic_tokenize=False),
            dict(hf=dict(clean_text=False, strip_accents=False, lowercase=False)),
            dict(python={}),
            "replace",
            False,
        ),
    ],
    ids=["tf_text", "tf_text-lower-keep-whitespace", "tf_text-NFKC", "hf-lower", "hf-flags", "hf-no-basic-tokenize"],
)
def test_basic_tokenizer_parts(recipe, normalizer, pre_tokenizer, invalid_utf8, scalar_as_batch):
    """Each recipe's basic tokenizer holds the shared (cached) normalizer and pre-tokenizer of its options."""
    from tf_wordpiece.bert import normalizers, pre_tokenizers

    (peer, options), (splitter, split_options) = *normalizer.items(), *pre_tokenizer.items()
    basic = recipe.basic_tokenizer()
    assert basic.normalizer is getattr(normalizers, f"{peer}_normalizer")(**options)
    factory = "python_whitespace" if splitter == "python" else splitter
    assert basic.pre_tokenizer is getattr(pre_tokenizers, f"{factory}_pre_tokenizer")(**split_options)
    assert (basic.invalid_utf8, basic.scalar_as_batch) == (invalid_utf8, scalar_as_batch)


@pytest.mark.parametrize(
    "recipe, options",
    [
        (twp.TfTextRecipe(), dict(max_bytes_per_word=100, max_chars_per_word=None, max_chars_per_token=None)),
        (twp.TfTextRecipe(max_chars_per_token=4, split_unknown_characters=True), dict(max_chars_per_token=4)),
        (twp.HfRecipe(), dict(max_bytes_per_word=None, max_chars_per_word=100)),
        (
            twp.HfRecipe(max_input_chars_per_word=5, max_bytes_per_word=9),
            dict(max_bytes_per_word=9, max_chars_per_word=5),
        ),
    ],
    ids=["tf_text", "tf_text-limits", "hf", "hf-limits"],
)
def test_wordpiece_options(recipe, options):
    got = recipe.wordpiece_options()
    assert {name: got[name] for name in options} == options
    assert got.get("split_unknown_characters", False) == getattr(recipe, "split_unknown_characters", False)


def test_default_special_tokens_and_unknown_token():
    has = {"[PAD]", "[UNK]", "[MASK]"}.__contains__
    assert twp.TfTextRecipe().default_special_tokens(has) == []  # tensorflow_text splits [MASK] like any word
    assert twp.HfRecipe().default_special_tokens(has) == ["[PAD]", "[UNK]", "[MASK]"]
    twp.TfTextRecipe().check_unknown_token(None)  # an unknown word is its own piece
    with pytest.raises(ValueError, match="unknown_token: None is only for compat='tf_text'"):
        twp.HfRecipe().check_unknown_token(None)


@pytest.mark.parametrize(
    "compat, options, expected",
    [
        ("tf_text", {}, twp.TfTextRecipe()),
        ("tf_text", dict(lower_case=True, clean_text=True), twp.TfTextRecipe(lower_case=True)),  # hf's default
        ("hf", dict(strip_accents=False, keep_whitespace=None), twp.HfRecipe(strip_accents=False)),
        ("hf", dict(max_bytes_per_word=7), twp.HfRecipe(max_bytes_per_word=7)),  # both modes' option
    ],
    ids=["defaults", "other-mode-default", "other-mode-none", "shared-option"],
)
def test_recipe_for(compat, options, expected):
    from tf_wordpiece.bert.recipes import recipe_for

    assert recipe_for(compat, options) == expected


@pytest.mark.parametrize(
    "compat, options, error, message",
    [
        ("spacy", {}, ValueError, r"compat: expected one of \['tf_text', 'hf'\], got 'spacy'"),
        ("tf_text", dict(clean_text=False), ValueError, "clean_text=False: only for compat='hf'; drop it or pass"),
        (
            "hf",
            dict(keep_whitespace=True, preserve_unused_token=True),
            ValueError,
            "keep_whitespace=True, preserve_unused_token=True: only for compat='tf_text'",
        ),
        ("hf", dict(lowercase=True), TypeError, "lowercase: not an option of BertTokenizer; compat='hf' takes"),
    ],
)
def test_recipe_for_refuses(compat, options, error, message):
    from tf_wordpiece.bert.recipes import recipe_for

    with pytest.raises(error, match=message):
        recipe_for(compat, options)


@pytest.mark.parametrize(
    "options, message",
    [
        (dict(normalization_form="NFX"), "normalization_form: expected one of"),
        (dict(lower_case=True, normalization_form="NFKC"), "normalization_form: lower_case=True already applies NFD"),
    ],
)
def test_tf_text_normalization_form_is_checked(options, message):
    with pytest.raises(ValueError, match=message):
        twp.TfTextRecipe(**options)


@pytest.mark.parametrize(
    "normalizer, limit, expected",
    [
        (None, 100, twp.HfRecipe(clean_text=False, handle_chinese_chars=False, strip_accents=False)),
        ({"type": "BertNormalizer"}, 100, twp.HfRecipe(lower_case=True)),  # tokenizers' defaults: every flag on
        (
            {"type": "BertNormalizer", "lowercase": False, "strip_accents": True, "clean_text": False},
            7,
            twp.HfRecipe(strip_accents=True, clean_text=False, max_input_chars_per_word=7),
        ),
    ],
    ids=["no-normalizer", "defaults", "given"],
)
def test_hf_recipe_from_tokenizer_json(normalizer, limit, expected):
    recipe = twp.HfRecipe.from_tokenizer_json(normalizer, limit)
    assert recipe == expected
    if normalizer is not None:  # written back, it reads the same
        assert twp.HfRecipe.from_tokenizer_json(recipe.tokenizer_json_normalizer(), limit) == recipe


# --- HfRecipe(do_basic_tokenize=False) against a pure-Python twin of transformers' BertTokenizer ------------------


@pytest.fixture(scope="module")
def vocab(vocab_tokens) -> dict[str, int]:
    return {t: i for i, t in enumerate(vocab_tokens)}


@pytest.fixture(scope="module")
def ours(vocab_path):
    return twp.BertTokenizer(vocab_path, compat="hf", do_basic_tokenize=False)


def _in_bytes(text: str, pieces, vocab) -> tuple[list[int], list[int], list[int]]:
    ends = np.cumsum([0] + [len(ch.encode("utf-8")) for ch in text]).tolist()
    return [vocab[p] for p, _, _ in pieces], [ends[b] for _, b, _ in pieces], [ends[e] for _, _, e in pieces]


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
