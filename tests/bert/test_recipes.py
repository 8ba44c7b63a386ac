"""The recipes: each compat mode's options, their types and defaults, and the parts they build."""

from __future__ import annotations

import dataclasses

import pytest
import tensorflow as tf

import tf_wordpiece as twp

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
