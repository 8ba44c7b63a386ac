"""Recipes: what each compat mode assembles, from that mode's own options.

`BertTokenizer(vocab, compat=..., **options)` hands the mode's options to its
recipe, a frozen settings object that builds the parts (the basic tokenizer's
normalizer and pre-tokenizer, the WordPiece limits, the default added tokens).
Each recipe holds only its own options, with that mode's defaults: no option
means "the other mode's default", so a new option is one field and one doc line.
`HfRecipe` is also what a tokenizer.json's normalizer and WordPiece limit are
read into and written from (`tf_wordpiece.bert.tokenizer_json`).

>>> TfTextRecipe(lower_case=True).max_bytes_per_word, HfRecipe(lower_case=True).max_input_chars_per_word
(100, 100)
>>> recipe_for("hf", {"lower_case": True, "strip_accents": False})
HfRecipe(lower_case=True, clean_text=True, handle_chinese_chars=True, strip_accents=False, do_basic_tokenize=True, \
max_input_chars_per_word=100, max_bytes_per_word=None)
"""

from __future__ import annotations

import dataclasses
import types
import typing
from typing import ClassVar, Mapping

from tf_wordpiece.bert import normalizers, pre_tokenizers
from tf_wordpiece.bert.added_tokens import AddedTokens
from tf_wordpiece.bert.basic_tokenizer import BasicTokenizer
from tf_wordpiece.messages import check_choice
from tf_wordpiece.unicode.normalization import NORMALIZATION_FORMS

# The added tokens of Hugging Face's BERT tokenizers, used in compat="hf" when present in the vocabulary.
HF_SPECIAL_TOKENS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")


@dataclasses.dataclass(frozen=True)
class TfTextRecipe:
    """tensorflow_text.BertTokenizer's options and rules (`compat="tf_text"`).

    Args:
      lower_case: NFKC_Casefold, then NFD and accents (Mn) removed. Defaults to False.
      keep_whitespace: white space characters are words of their own. Defaults to False.
      normalization_form: None, "NFD", "NFKD", "NFC" or "NFKC" (with
        lower_case=False; NFC and NFKC compose across code points, see
        `tf_wordpiece.bert.composition`). Defaults to None.
      preserve_unused_token: `[unused<digits>]` stays one word. Defaults to False.
      split_unknown_characters: where no piece matches, one character becomes
        unknown and the word goes on (see `WordpieceTokenizer`). Defaults to False.
      max_chars_per_token: the longest piece tried, in code points without the
        suffix indicator (with `trea` and `tread` in the vocabulary and 4,
        `treadness` gives `trea ##d ##ness`); None or 0 for no limit. Defaults to None.
      max_bytes_per_word: longer words (UTF-8 bytes) are unknown. Defaults to 100.
      max_input_chars_per_word: longer words (code points) are unknown. Defaults to None.

    Invalid UTF-8 stays in its word (which becomes unknown), and a scalar
    string gives a batch of one, as in tensorflow_text. A true/false option
    takes a bool only (None is a TypeError); a limit takes an int >= 0 or None.

    >>> TfTextRecipe(lower_case=True).basic_tokenizer().tokenize(["Ünïcode [unused1]!"]).to_list()
    [[b'unicode', b'[', b'unused1', b']', b'!']]
    """

    compat: ClassVar[str] = "tf_text"
    # A scalar string gives a batch of one ([1, words, pieces]), as tensorflow_text's BertTokenizer.
    scalar_as_batch: ClassVar[bool] = True
    # How two segments share a fixed length: tensorflow_text's RoundRobinTrimmer (`FixedLengthTemplate`).
    trimming: ClassVar[str] = "round_robin"

    lower_case: bool = False
    keep_whitespace: bool = False
    normalization_form: str | None = None
    preserve_unused_token: bool = False
    split_unknown_characters: bool = False
    max_chars_per_token: int | None = None
    max_bytes_per_word: int | None = 100
    max_input_chars_per_word: int | None = None

    def __post_init__(self):
        check_option_types(self)
        check_choice("normalization_form", self.normalization_form, NORMALIZATION_FORMS)
        if self.lower_case and self.normalization_form not in (None, "NFD"):
            raise ValueError(
                "normalization_form: lower_case=True already applies NFD, got "
                f"normalization_form={self.normalization_form!r}; pass None or 'NFD', or lower_case=False"
            )

    @classmethod
    def from_keras_hub_options(cls, *, lowercase: bool, strip_accents: bool | None) -> "TfTextRecipe":
        """keras-hub's two options (the Keras `WordPieceTokenizer`'s): tensorflow_text strips accents exactly
        when it lowercases, so `strip_accents` is None or equal to `lowercase`.

        >>> TfTextRecipe.from_keras_hub_options(lowercase=True, strip_accents=None).lower_case
        True
        """
        if strip_accents is not None and strip_accents != lowercase:
            raise ValueError(
                f"strip_accents: {strip_accents!r} with lowercase={lowercase!r} needs compat='hf'; "
                "tensorflow_text strips accents exactly when it lowercases"
            )
        return cls(lower_case=bool(lowercase))

    def basic_tokenizer(self, added_tokens: AddedTokens | None = None) -> BasicTokenizer:
        """The words of `tensorflow_text.BasicTokenizer` with these options (the vocabulary learner splits
        with the same one); output string [..., words], a scalar giving [1, words], like tensorflow_text."""
        return BasicTokenizer(
            normalizers.tf_text_normalizer(lower_case=self.lower_case, normalization_form=self.normalization_form),
            pre_tokenizers.tf_text_pre_tokenizer(keep_whitespace=self.keep_whitespace),
            added_tokens=added_tokens,
            preserve_unused_token=self.preserve_unused_token,
            scalar_as_batch=self.scalar_as_batch,
        )

    def wordpiece_options(self) -> dict:
        """`WordpieceTokenizer` keyword arguments."""
        return dict(
            max_bytes_per_word=self.max_bytes_per_word,
            max_chars_per_word=self.max_input_chars_per_word,
            max_chars_per_token=self.max_chars_per_token,
            split_unknown_characters=self.split_unknown_characters,
        )

    def default_special_tokens(self, has_token) -> list[str]:
        """None: tensorflow_text splits `[MASK]` written in text like any word."""
        return []

    def check_unknown_token(self, unknown_token: str | None) -> None:
        """None is allowed: an unknown word is its own piece, as in tensorflow_text."""


@dataclasses.dataclass(frozen=True)
class HfRecipe:
    """Hugging Face tokenizers' BERT options and rules (`compat="hf"`).

    Args:
      lower_case: BertNormalizer's `lowercase`. Defaults to False.
      clean_text: controls deleted, white space made a space. Defaults to True.
      handle_chinese_chars: CJK ideographs become words of their own. Defaults to True.
      strip_accents: NFD and Mn removed; None follows `lower_case`, as in
        tokenizers. Defaults to None.
      do_basic_tokenize: transformers' BertTokenizer option. False: no
        normalization and no punctuation split; the text between special tokens
        is split on white space as Python's `str.split()` splits it, then into
        pieces (transformers then ignores `do_lower_case`, so `lower_case` and
        `strip_accents` must be left off). Defaults to True.
      max_input_chars_per_word: longer words (code points) are unknown. Defaults to 100.
      max_bytes_per_word: longer words (UTF-8 bytes) are unknown. Defaults to None.

    Invalid UTF-8 is read as U+FFFD (which the normalizer deletes), and a
    scalar string gives one row, as in tokenizers. A true/false option takes
    a bool only (None is a TypeError, except for `strip_accents`, where None
    means "as lower_case"); a limit takes an int >= 0 or None.
    """

    compat: ClassVar[str] = "hf"
    scalar_as_batch: ClassVar[bool] = False  # a scalar string gives one row ([words, pieces]), as tokenizers
    trimming: ClassVar[str] = "longest_first"  # Hugging Face's truncation

    lower_case: bool = False
    clean_text: bool = True
    handle_chinese_chars: bool = True
    strip_accents: bool | None = None
    do_basic_tokenize: bool = True
    max_input_chars_per_word: int | None = 100
    max_bytes_per_word: int | None = None

    def __post_init__(self):
        check_option_types(self)
        if not self.do_basic_tokenize:
            # transformers ignores these without its basic tokenizer: refuse them rather than drop them.
            ignored = {name: getattr(self, name) for name in ("lower_case", "strip_accents") if getattr(self, name)}
            if ignored:
                raise ValueError(
                    f"{', '.join(f'{k}={v!r}' for k, v in ignored.items())}: has no effect with "
                    "do_basic_tokenize=False (transformers then neither normalizes nor lowercases); "
                    "drop it or pass lower_case=False"
                )

    @classmethod
    def from_keras_hub_options(cls, *, lowercase: bool, strip_accents: bool | None) -> "HfRecipe":
        """keras-hub's two options (the Keras `WordPieceTokenizer`'s), Hugging Face's meaning.

        >>> HfRecipe.from_keras_hub_options(lowercase=True, strip_accents=False).strips_accents
        False
        """
        return cls(lower_case=bool(lowercase), strip_accents=strip_accents)

    @property
    def strips_accents(self) -> bool:
        return self.lower_case if self.strip_accents is None else self.strip_accents

    def basic_tokenizer(self, added_tokens: AddedTokens | None = None) -> BasicTokenizer:
        if self.do_basic_tokenize:
            normalizer = normalizers.hf_normalizer(
                clean_text=self.clean_text, strip_accents=self.strips_accents, lowercase=self.lower_case
            )
            pre_tokenizer = pre_tokenizers.hf_pre_tokenizer(handle_chinese_chars=self.handle_chinese_chars)
        else:
            normalizer = normalizers.hf_normalizer(clean_text=False, strip_accents=False, lowercase=False)
            pre_tokenizer = pre_tokenizers.python_whitespace_pre_tokenizer()
        return BasicTokenizer(
            normalizer,
            pre_tokenizer,
            added_tokens=added_tokens,
            invalid_utf8="replace",
            scalar_as_batch=self.scalar_as_batch,
        )

    def wordpiece_options(self) -> dict:
        return dict(max_bytes_per_word=self.max_bytes_per_word, max_chars_per_word=self.max_input_chars_per_word)

    def default_special_tokens(self, has_token) -> list[str]:
        """BERT's specials that the vocabulary has (`has_token(str) -> bool`), as tokenizers' BERT files add them."""
        return [t for t in HF_SPECIAL_TOKENS if has_token(t)]

    def check_unknown_token(self, unknown_token: str | None) -> None:
        if unknown_token is None:
            raise ValueError(
                "unknown_token: None is only for compat='tf_text' (Hugging Face's WordPiece needs one); "
                "pass a token of the vocabulary"
            )

    # tokenizer.json: the BertNormalizer object and the WordPiece model's limit are read into and written from here.
    @classmethod
    def from_tokenizer_json(cls, normalizer: Mapping | None, max_input_chars_per_word: int) -> "HfRecipe":
        """A BertNormalizer object (None: no normalizer) and the model's limit -> the recipe.

        A field missing from the object takes tokenizers' BertNormalizer default
        (every flag on, strip_accents None). Field types are checked by the reader.
        """
        if normalizer is None:
            return cls(
                clean_text=False,
                handle_chinese_chars=False,
                strip_accents=False,
                max_input_chars_per_word=max_input_chars_per_word,
            )
        return cls(
            lower_case=normalizer.get("lowercase", True),
            clean_text=normalizer.get("clean_text", True),
            handle_chinese_chars=normalizer.get("handle_chinese_chars", True),
            strip_accents=normalizer.get("strip_accents"),
            max_input_chars_per_word=max_input_chars_per_word,
        )

    def tokenizer_json_normalizer(self) -> dict:
        """The BertNormalizer object of a tokenizer.json."""
        return {
            "type": "BertNormalizer",
            "clean_text": self.clean_text,
            "handle_chinese_chars": self.handle_chinese_chars,
            "strip_accents": self.strip_accents,
            "lowercase": self.lower_case,
        }


RECIPES = {recipe.compat: recipe for recipe in (TfTextRecipe, HfRecipe)}


def check_option_types(recipe) -> None:
    """A TypeError naming the first option of the wrong type, by the field's type (resolved, however it is
    spelled: `bool | None` or `Optional[bool]`): `bool` takes True or False, `int` an int >= 0 (a ValueError
    below 0), `str` a str; each also None where the type allows it.

    >>> @dataclasses.dataclass
    ... class Options:
    ...     flag: typing.Optional[bool] = None
    >>> check_option_types(Options(flag=1))
    Traceback (most recent call last):
    TypeError: flag: expected True or False or None, got 1
    """
    hints = typing.get_type_hints(type(recipe))
    for field in dataclasses.fields(recipe):
        value = getattr(recipe, field.name)
        kind, optional = _base_type(field.name, hints[field.name])
        if value is None and optional:
            continue
        or_none = " or None" if optional else ""
        if kind is bool and not isinstance(value, bool):
            raise TypeError(f"{field.name}: expected True or False{or_none}, got {value!r}")
        if kind is int:
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"{field.name}: expected an int >= 0{or_none}, got {value!r}")
            if value < 0:
                raise ValueError(f"{field.name}: expected an int >= 0{or_none}, got {value!r}")
        if kind is str and not isinstance(value, str):
            raise TypeError(f"{field.name}: expected a str{or_none}, got {value!r}")


def _base_type(name: str, hint) -> tuple[type, bool]:
    """A field's type -> (bool, int or str, whether None is allowed); another type is a TypeError (a recipe's bug)."""
    args = typing.get_args(hint) if typing.get_origin(hint) in (typing.Union, types.UnionType) else (hint,)
    kinds = [arg for arg in args if arg is not type(None)]
    if len(kinds) != 1 or kinds[0] not in (bool, int, str):
        raise TypeError(f"{name}: a recipe option is a bool, int or str (or None), got the type {hint!r}")
    return kinds[0], len(kinds) < len(args)


def recipe_for(compat: str, options: Mapping) -> TfTextRecipe | HfRecipe:
    """`compat`'s recipe from keyword options; an option of another mode is a ValueError naming it.

    An option of the other mode given at its default (or None) changes nothing
    and is accepted, so settings can be passed around whole.
    """
    check_choice("compat", compat, RECIPES)
    recipe = RECIPES[compat]
    own = _fields(recipe)
    foreign = {}
    for name, value in options.items():
        if name in own:
            continue
        modes = [mode for mode, other in RECIPES.items() if name in _fields(other)]
        if not modes:
            raise TypeError(
                f"{name}: not an option of BertTokenizer; compat={compat!r} takes {sorted(own)} and "
                "the options in BertTokenizer's signature"
            )
        if value is not None and value != _fields(RECIPES[modes[0]])[name]:
            foreign[name] = (value, modes[0])
    if foreign:
        raise ValueError(
            ", ".join(f"{k}={v!r}" for k, (v, _) in foreign.items())
            + f": only for compat={_one_mode(foreign)!r}; drop it or pass compat={_one_mode(foreign)!r}"
        )
    return recipe(**{name: value for name, value in options.items() if name in own})


def _fields(recipe: type) -> dict:
    """Option name -> default."""
    return {f.name: f.default for f in dataclasses.fields(recipe)}


def _one_mode(foreign: dict) -> str:
    (mode,) = {mode for _, mode in foreign.values()}  # two modes only: the other one
    return mode
