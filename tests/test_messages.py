"""tf_wordpiece.messages: errors passed on in the caller's argument names (the Keras layers, the tutorial's modules
and, through console.in_option_names, the command line). No TensorFlow."""

from __future__ import annotations

import json

import pytest

from tf_wordpiece.messages import errors_in_names, in_names

NAMES = {"vocab": "vocabulary", "unknown_token": "oov_token"}


@pytest.mark.parametrize(
    "message, renamed",
    [
        ("vocab: the vocab list lacks ['[UNK]']; pass another unknown_token",
         "vocabulary: the vocab list lacks ['[UNK]']; pass another oov_token"),
        ("vocab_size: expected a positive int", "vocab_size: expected a positive int"),  # not a name it maps
        ("the vocab file is empty", "the vocab file is empty"),  # "vocab" in prose is no argument
        ("unknown_token: None needs compat='tf_text'", "oov_token: None needs compat='tf_text'"),
        ("see my_unknown_token", "see my_unknown_token"),  # a longer name that holds one is not it
    ],
)  # fmt: skip
def test_in_names_renames_arguments_only(message, renamed):
    assert in_names(message, NAMES) == renamed


@pytest.mark.parametrize(
    "raised, error, message",
    [
        (FileNotFoundError("vocab: 'v.txt' does not exist"), FileNotFoundError, "vocabulary: 'v.txt' does not exist"),
        (ValueError("vocab: empty"), ValueError, "vocabulary: empty"),
        (TypeError("unknown_token: expected a str"), TypeError, "oov_token: expected a str"),
        (ValueError("strings: the list is empty"), ValueError, "strings: the list is empty"),  # nothing to rename
    ],
)
def test_errors_in_names_keeps_the_type(raised, error, message):
    with pytest.raises(error) as caught, errors_in_names(NAMES):
        raise raised
    assert type(caught.value) is error and str(caught.value) == message


def test_errors_in_names_passes_subclasses_unchanged():
    """A JSONDecodeError (a ValueError whose constructor takes more) is re-raised as it was."""
    with pytest.raises(json.JSONDecodeError) as caught, errors_in_names({"vocab": "vocabulary"}):
        json.loads("vocab: {")
    assert caught.value.pos == 0
