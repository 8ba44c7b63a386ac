"""Pre-tokenization: normalized code points -> words.

Every normalized code point has a class: part of a word, white space (a word
boundary that is dropped), or isolated (punctuation and CJK ideographs, each a
word of its own). The learner and the tokenizer share this one splitter; the
factories below give each peer's classes (tensorflow_text's BasicTokenizer,
Hugging Face's BertPreTokenizer, FastWordpieceTokenizer's end-to-end split,
Python's `str.split()`).
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np
import tensorflow as tf

from tf_wordpiece import unicode_tables as ut

WORD, WHITESPACE, ISOLATED = 0, 1, 2


class WordSpans(NamedTuple):
    """Where the words are in a flat sequence of normalized code points.

    kept: int32 [k], indices of the code points that belong to a word, in order.
    row_splits: int64 [words + 1], word i is kept[row_splits[i]:row_splits[i + 1]].
    """

    kept: tf.Tensor
    row_splits: tf.Tensor


class PreTokenizer:
    """Splits on white space and isolates punctuation (and CJK) code points.

    Args:
      whitespace: bool[0x110000], code points that separate words.
      isolated: bool[0x110000], code points that are words on their own.
      keep_whitespace: keep each run of white space as a word (tensorflow_text's
        `keep_whitespace`) instead of dropping it.
      spaced: bool[0x110000] or None, the code points Hugging Face's normalizer
        surrounds with spaces (CJK ideographs); its added tokens see them as
        non-word characters.
    """

    def __init__(
        self,
        *,
        whitespace: np.ndarray,
        isolated: np.ndarray,
        keep_whitespace: bool = False,
        spaced: np.ndarray | None = None,
    ):
        classes = np.full(ut.NUM_CODE_POINTS, WORD, dtype=np.int32)
        classes[isolated] = ISOLATED
        classes[whitespace] = WHITESPACE
        self.dense_classes = classes  # kept for BasicTokenizer's fused lookup
        self._class_of = ut.CodePointLookup(classes)
        self.keep_whitespace = keep_whitespace
        self.spaced = spaced

    def classes_of(self, code_points: tf.Tensor) -> tf.Tensor:
        """int32 class of each code point; negative ones (matched added tokens) are ISOLATED."""
        return tf.where(code_points < 0, ISOLATED, self._class_of(tf.maximum(code_points, 0)))

    def split(self, classes: tf.Tensor, rows: tf.Tensor) -> WordSpans:
        """Finds the words.

        Args:
          classes: int32 [n], `classes_of` each normalized code point.
          rows: int32 [n], the input string each code point comes from
            (non-decreasing); words never cross rows.
        """
        before = lambda t: tf.concat([[-1], t[:-1]], axis=0)  # noqa: E731
        starts = (classes == ISOLATED) | (classes != before(classes)) | (rows != before(rows))
        keep = tf.ones_like(starts) if self.keep_whitespace else classes != WHITESPACE
        kept = tf.cast(tf.reshape(tf.where(keep), [-1]), tf.int32)
        word_starts = tf.reshape(tf.where(tf.gather(starts, kept)), [-1])
        return WordSpans(kept, tf.concat([word_starts, tf.shape(kept, out_type=tf.int64)], 0))


@functools.cache  # the tables are immutable; tokenizers with the same options share them
def tf_text_pre_tokenizer(*, keep_whitespace: bool = False) -> PreTokenizer:
    """tensorflow_text's split: RE2 `\\s` separates; ASCII punctuation, `\\p{P}` and CJK isolate."""
    tables = ut.peer_tables()["tf_text"]
    return PreTokenizer(
        whitespace=ut.range_mask(tables["whitespace"]),
        isolated=ut.range_mask(tables["punctuation"]) | ut.range_mask(tables["cjk"]),
        keep_whitespace=keep_whitespace,
    )


@functools.cache  # the tables are immutable; tokenizers with the same options share them
def hf_pre_tokenizer(*, handle_chinese_chars: bool = True) -> PreTokenizer:
    """Hugging Face BertPreTokenizer, plus BertNormalizer's spaces around CJK ideographs."""
    tables = ut.peer_tables()["hf"]
    isolated = ut.range_mask(tables["punctuation"])
    spaced = ut.range_mask(tables["chinese"]) if handle_chinese_chars else None
    if spaced is not None:
        isolated |= spaced
    return PreTokenizer(whitespace=ut.range_mask(tables["whitespace"]), isolated=isolated, spaced=spaced)


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


@functools.cache  # the tables are immutable; every end-to-end FastWordpieceTokenizer shares them
def fast_wordpiece_pre_tokenizer() -> PreTokenizer:
    """tensorflow_text's FastWordpieceTokenizer's own split (its `no_pretokenization=False`).

    White space (ICU u_isUWhiteSpace, the Unicode White_Space property)
    separates words; ASCII punctuation, Unicode P* (ICU u_ispunct, Unicode 16)
    and CJK ideographs are words on their own.

    >>> pre = fast_wordpiece_pre_tokenizer()
    >>> pre.classes_of(tf.constant([ord("a"), 0x3000, ord("!"), 0x1B4E, 0x4E00])).numpy().tolist()
    [0, 1, 2, 2, 2]
    """
    tables = ut.peer_tables()
    isolated = ut.range_mask(tables["tf_text"]["punctuation"]) | ut.range_mask(tables["tf_text"]["cjk"])
    isolated[list(_UNICODE_16_PUNCTUATION)] = True
    return PreTokenizer(whitespace=ut.range_mask(tables["hf"]["whitespace"]), isolated=isolated)


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


@functools.cache  # the tables are immutable; tokenizers with the same options share them
def python_whitespace_pre_tokenizer() -> PreTokenizer:
    """Python's `str.split()`: white space (`str.isspace`) separates words, nothing is isolated.

    transformers' BertTokenizer with `do_basic_tokenize=False` splits its text this way before WordPiece.
    """
    whitespace = np.zeros(ut.NUM_CODE_POINTS, bool)
    for first, last in PYTHON_WHITESPACE:
        whitespace[first : last + 1] = True
    return PreTokenizer(whitespace=whitespace, isolated=np.zeros(ut.NUM_CODE_POINTS, bool))
