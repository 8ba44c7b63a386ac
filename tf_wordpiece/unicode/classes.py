"""Pre-tokenizer classes: each code point is part of a word, white space, or a word of its own.

White space separates words and is dropped (or kept as words of its own,
tensorflow_text's `keep_whitespace`); isolated code points (punctuation, CJK
ideographs) are words on their own. The factories give each peer's classes
(tensorflow_text's BasicTokenizer, Hugging Face's BertPreTokenizer,
FastWordpieceTokenizer's end-to-end split, Python's `str.split()`); the string
path splits with `bert.pre_tokenizers.PreTokenizer`, the numeric core with its
own gathers.

>>> classes = tf_text_classes()
>>> [int(classes.dense[ord(c)]) for c in "a !"] == [WORD, WHITESPACE, ISOLATED]
True
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np

from tf_wordpiece.unicode import tables as ut

WORD, WHITESPACE, ISOLATED = 0, 1, 2


@dataclasses.dataclass(frozen=True, eq=False)  # compared (and cached) by identity: the arrays are large
class CharacterClasses:
    """dense: int32 [0x110000], each code point's class (WORD, WHITESPACE or ISOLATED).
    keep_whitespace: each run of white space is a word (tensorflow_text's option) instead of dropped.
    spaced: bool [0x110000] or None, the code points Hugging Face's normalizer surrounds with spaces
      (CJK ideographs); its added tokens see them as non-word characters.
    """

    dense: np.ndarray
    keep_whitespace: bool = False
    spaced: np.ndarray | None = None

    @classmethod
    def from_masks(
        cls,
        *,
        whitespace: np.ndarray,
        isolated: np.ndarray,
        keep_whitespace: bool = False,
        spaced: np.ndarray | None = None,
    ) -> "CharacterClasses":
        """From bool [0x110000] masks; white space wins over isolated."""
        dense = np.full(ut.NUM_CODE_POINTS, WORD, dtype=np.int32)
        dense[isolated] = ISOLATED
        dense[whitespace] = WHITESPACE
        return cls(dense, keep_whitespace, spaced)


@functools.cache  # immutable; tokenizers with the same options share it
def tf_text_classes(*, keep_whitespace: bool = False) -> CharacterClasses:
    """tensorflow_text's split: RE2 `\\s` separates; ASCII punctuation, `\\p{P}` and CJK isolate."""
    peer = ut.peer_tables()["tf_text"]
    return CharacterClasses.from_masks(
        whitespace=ut.range_mask(peer["whitespace"]),
        isolated=ut.range_mask(peer["punctuation"]) | ut.range_mask(peer["cjk"]),
        keep_whitespace=keep_whitespace,
    )


@functools.cache  # immutable; tokenizers with the same options share it
def hf_classes(*, handle_chinese_chars: bool = True) -> CharacterClasses:
    """Hugging Face's BertPreTokenizer, plus BertNormalizer's spaces around CJK ideographs."""
    peer = ut.peer_tables()["hf"]
    isolated = ut.range_mask(peer["punctuation"])
    spaced = ut.range_mask(peer["chinese"]) if handle_chinese_chars else None
    if spaced is not None:
        isolated |= spaced
    return CharacterClasses.from_masks(whitespace=ut.range_mask(peer["whitespace"]), isolated=isolated, spaced=spaced)


# Punctuation new in Unicode 16, which the ICU of tensorflow_text's FastWordpieceTokenizer has and the
# shipped tf_text table (RE2's \\p{P}, Unicode 15) lacks.
_UNICODE_16_PUNCTUATION = (
    0x1B4E,
    0x1B4F,
    0x1B7F,
    0x10D6E,
    0x113D4,
    0x113D5,
    0x113D7,
    0x113D8,
    0x11BE1,
    0x16D6D,
    0x16D6E,
    0x16D6F,
    0x1E5FF,
)


@functools.cache  # immutable; every end-to-end FastWordpieceTokenizer shares it
def fast_wordpiece_classes() -> CharacterClasses:
    """tensorflow_text's FastWordpieceTokenizer's own split (its `no_pretokenization=False`).

    White space (ICU u_isUWhiteSpace, the Unicode White_Space property)
    separates words; ASCII punctuation, Unicode P* (ICU u_ispunct, Unicode 16)
    and CJK ideographs are words on their own.
    """
    peer = ut.peer_tables()
    isolated = ut.range_mask(peer["tf_text"]["punctuation"]) | ut.range_mask(peer["tf_text"]["cjk"])
    isolated[list(_UNICODE_16_PUNCTUATION)] = True
    return CharacterClasses.from_masks(whitespace=ut.range_mask(peer["hf"]["whitespace"]), isolated=isolated)


# Python's str.isspace() code points (category Zs, or bidirectional class WS, B or S), which str.split() splits on.
PYTHON_WHITESPACE = (
    (0x09, 0x0D),
    (0x1C, 0x20),
    (0x85, 0x85),
    (0xA0, 0xA0),
    (0x1680, 0x1680),
    (0x2000, 0x200A),
    (0x2028, 0x2029),
    (0x202F, 0x202F),
    (0x205F, 0x205F),
    (0x3000, 0x3000),
)


@functools.cache  # immutable; tokenizers with the same options share it
def python_whitespace_classes() -> CharacterClasses:
    """Python's `str.split()`: white space (`str.isspace`) separates words, nothing is isolated.

    transformers' BertTokenizer with `do_basic_tokenize=False` splits its text this way before WordPiece.
    """
    return CharacterClasses.from_masks(
        whitespace=ut.range_mask([list(run) for run in PYTHON_WHITESPACE]),
        isolated=np.zeros(ut.NUM_CODE_POINTS, bool),
    )
