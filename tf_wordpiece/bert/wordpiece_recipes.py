"""WordpieceTokenizer's recipes: what its options may be, and what each `compat` mode does differently.

tensorflow_text keeps `FastWordpieceTokenizer` a class of its own beside
`WordpieceTokenizer`; here one `WordpieceTokenizer` takes `compat=` and asks
the recipe that `wordpiece_recipe(compat, ...)` builds, never `compat` itself:

- which options the mode takes (`check_options`, `check_unknown_token`):
  FastWordpieceTokenizer always emits an unknown token of the vocabulary and
  has no `split_unknown_characters`, `max_chars_per_token` or `max_chars_per_word`;
- whether strings are split into words first (`text_splitter`:
  FastWordpieceTokenizer's end-to-end mode, `no_pretokenization=False`);
- where the unknown token of a word over `max_bytes_per_word` ends
  (`unknown_ends_at_word_end`: tensorflow_text's WordpieceTokenizer ends it
  len(unknown_token) bytes past the word's start);
- how ids are joined back (`fast_wordpiece_detokenize`: each piece a word).

`check_wordpiece_options` holds the checks both modes share.

>>> wordpiece_recipe("fast_wordpiece", no_pretokenization=True).unknown_ends_at_word_end
True
>>> wordpiece_recipe("tf_text", no_pretokenization=True)
Traceback (most recent call last):
ValueError: no_pretokenization=True: only for compat='fast_wordpiece'; drop it or pass compat='fast_wordpiece'
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

import tensorflow as tf

from tf_wordpiece.bert import normalizers
from tf_wordpiece.bert.basic_tokenizer import BasicTokenizer
from tf_wordpiece.bert.pre_tokenizers import fast_wordpiece_pre_tokenizer
from tf_wordpiece.messages import check_choice
from tf_wordpiece.vocab import Vocab

ALGORITHMS = ("linmaxmatch", "maxmatch")
TOKEN_OUT_TYPES = (tf.int64, tf.int32, tf.string)


@dataclasses.dataclass(frozen=True)
class TfTextWordpieceRecipe:
    """tensorflow_text.WordpieceTokenizer's rules (`compat="tf_text"`): words in, every option.

    >>> TfTextWordpieceRecipe().text_splitter() is None
    True
    """

    compat: ClassVar[str] = "tf_text"
    unknown_ends_at_word_end: ClassVar[bool] = False
    fast_wordpiece_detokenize: ClassVar[bool] = False

    no_pretokenization: bool = False

    def __post_init__(self):
        if self.no_pretokenization:
            raise ValueError(
                "no_pretokenization=True: only for compat='fast_wordpiece'; drop it or pass compat='fast_wordpiece'"
            )

    def check_options(self, *, unknown_token: str | None, **options) -> None:
        """Every option is one of tensorflow_text's WordpieceTokenizer."""

    def check_unknown_token(self, vocab: Vocab, unknown_token: str | None) -> None:
        """None is allowed (an unknown word is its own piece); a token must have an id (`check_wordpiece_options`)."""

    def text_splitter(self) -> BasicTokenizer | None:
        """None: the input is words."""
        return None


@dataclasses.dataclass(frozen=True)
class FastWordpieceRecipe:
    """tensorflow_text.FastWordpieceTokenizer's rules (`compat="fast_wordpiece"`).

    no_pretokenization: False (the peer's default) splits each string into
    words first (`text_splitter`); True takes words, as compat="tf_text" does.

    >>> FastWordpieceRecipe().check_options(unknown_token="[UNK]", max_chars_per_token=4)
    Traceback (most recent call last):
    ValueError: max_chars_per_token=4: only for compat='tf_text' (FastWordpieceTokenizer has no such option); \
drop it or pass compat='tf_text'
    """

    compat: ClassVar[str] = "fast_wordpiece"
    unknown_ends_at_word_end: ClassVar[bool] = True
    fast_wordpiece_detokenize: ClassVar[bool] = True

    no_pretokenization: bool = False

    def check_options(self, *, unknown_token: str | None, **unsupported) -> None:
        """An unknown token always, and none of the options only tensorflow_text's WordpieceTokenizer has."""
        if unknown_token is None:
            raise ValueError(
                "unknown_token: None is not possible with compat='fast_wordpiece' (FastWordpieceTokenizer "
                "always emits the unknown token); pass a token of the vocabulary"
            )
        given = {k: v for k, v in unsupported.items() if v not in (None, False)}
        if given:
            raise ValueError(
                f"{', '.join(f'{k}={v!r}' for k, v in given.items())}: only for compat='tf_text' "
                "(FastWordpieceTokenizer has no such option); drop it or pass compat='tf_text'"
            )

    def check_unknown_token(self, vocab: Vocab, unknown_token: str | None) -> None:
        """The unknown token is a token of the vocabulary (not an OOV bucket's id)."""
        if vocab.id_of(unknown_token) < 0:
            raise ValueError(
                f"unknown_token: {unknown_token!r} is not in the {vocab.source}, which "
                "compat='fast_wordpiece' needs (as FastWordpieceTokenizer); add it or pass another"
            )

    def text_splitter(self) -> BasicTokenizer | None:
        """FastWordpieceTokenizer's own pre-tokenization as a BasicTokenizer that normalizes nothing
        (None with `no_pretokenization`)."""
        if self.no_pretokenization:
            return None
        identity = normalizers.hf_normalizer(clean_text=False, strip_accents=False, lowercase=False)
        return BasicTokenizer(identity, fast_wordpiece_pre_tokenizer())


WORDPIECE_RECIPES = {recipe.compat: recipe for recipe in (TfTextWordpieceRecipe, FastWordpieceRecipe)}


def wordpiece_recipe(compat: str, *, no_pretokenization: bool) -> TfTextWordpieceRecipe | FastWordpieceRecipe:
    """The recipe that `compat` names; a ValueError naming `compat` or `no_pretokenization` if they do not fit."""
    check_choice("compat", compat, WORDPIECE_RECIPES)
    return WORDPIECE_RECIPES[compat](no_pretokenization=no_pretokenization)


def check_wordpiece_options(
    *,
    algorithm: str,
    token_out_type: tf.DType,
    unknown_token: str | None,
    split_unknown_characters: bool,
    limits: dict[str, int | None],
) -> None:
    """The checks both modes share: each error names the option, shows the value and says what it takes.

    `limits`: option name -> an int >= 0 or None.

    >>> check_wordpiece_options(algorithm="maxmatch", token_out_type=tf.int64, unknown_token="[UNK]",
    ...                         split_unknown_characters=False, limits={"max_bytes_per_word": -1})
    Traceback (most recent call last):
    ValueError: max_bytes_per_word: expected a non-negative int or None, got -1
    """
    check_choice("algorithm", algorithm, ALGORITHMS)
    if token_out_type not in TOKEN_OUT_TYPES:
        raise TypeError(f"token_out_type: expected tf.int64, tf.int32 or tf.string, got {token_out_type!r}")
    if unknown_token is not None and (not isinstance(unknown_token, str) or not unknown_token):
        raise ValueError(f"unknown_token: expected a non-empty str in the vocabulary or None, got {unknown_token!r}")
    if split_unknown_characters and algorithm != "maxmatch":
        raise ValueError(f"split_unknown_characters: True needs algorithm='maxmatch', got algorithm={algorithm!r}")
    for name, limit in limits.items():
        if limit is not None and (not isinstance(limit, int) or limit < 0):
            raise ValueError(f"{name}: expected a non-negative int or None, got {limit!r}")
