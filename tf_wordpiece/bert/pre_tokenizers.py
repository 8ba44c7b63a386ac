"""The pre-tokenizer stage: normalized code points -> words, in the graph.

Every normalized code point has a class (`tf_wordpiece.unicode.classes`: part
of a word, white space, or isolated); a `PreTokenizer` finds the words from
them. The learner and the tokenizer share this one splitter; the factories
below give each peer's (tensorflow_text's BasicTokenizer, Hugging Face's
BertPreTokenizer, FastWordpieceTokenizer's end-to-end split, Python's
`str.split()`).
"""

from __future__ import annotations

from typing import NamedTuple

import tensorflow as tf

from tf_wordpiece.tf1_graphs import cache_per_graph
from tf_wordpiece.unicode import classes as cc
from tf_wordpiece.unicode import tables as ut
from tf_wordpiece.unicode.classes import ISOLATED, WHITESPACE, CharacterClasses


class WordSpans(NamedTuple):
    """Where the words are in a flat sequence of normalized code points.

    kept: int32 [k], indices of the code points that belong to a word, in order.
    row_splits: int64 [words + 1], word i is kept[row_splits[i]:row_splits[i + 1]].
    """

    kept: tf.Tensor
    row_splits: tf.Tensor


class PreTokenizer:
    """Splits on white space and isolates punctuation (and CJK) code points, by `CharacterClasses`."""

    def __init__(self, classes: CharacterClasses):
        self.classes = classes
        self._class_of = ut.CodePointLookup(classes.dense)

    @property
    def keep_whitespace(self) -> bool:
        return self.classes.keep_whitespace

    @property
    def spaced(self):
        """bool [0x110000] or None: the code points Hugging Face's normalizer surrounds with spaces."""
        return self.classes.spaced

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
        starts = tf.equal(classes, ISOLATED) | tf.not_equal(classes, before(classes)) | tf.not_equal(rows, before(rows))
        keep = tf.ones_like(starts) if self.keep_whitespace else tf.not_equal(classes, WHITESPACE)
        kept = tf.cast(tf.reshape(tf.where(keep), [-1]), tf.int32)
        word_starts = tf.reshape(tf.where(tf.gather(starts, kept)), [-1])
        return WordSpans(kept, tf.concat([word_starts, tf.shape(kept, out_type=tf.int64)], 0))


@cache_per_graph  # the tables are immutable; tokenizers with the same options share them
def tf_text_pre_tokenizer(*, keep_whitespace: bool = False) -> PreTokenizer:
    """tensorflow_text's split (`classes.tf_text_classes`)."""
    return PreTokenizer(cc.tf_text_classes(keep_whitespace=keep_whitespace))


@cache_per_graph
def hf_pre_tokenizer(*, handle_chinese_chars: bool = True) -> PreTokenizer:
    """Hugging Face's BertPreTokenizer (`classes.hf_classes`)."""
    return PreTokenizer(cc.hf_classes(handle_chinese_chars=handle_chinese_chars))


@cache_per_graph
def fast_wordpiece_pre_tokenizer() -> PreTokenizer:
    """tensorflow_text's FastWordpieceTokenizer's own split (`classes.fast_wordpiece_classes`).

    >>> pre = fast_wordpiece_pre_tokenizer()
    >>> pre.classes_of(tf.constant([ord("a"), 0x3000, ord("!"), 0x1B4E, 0x4E00])).numpy().tolist()
    [0, 1, 2, 2, 2]
    """
    return PreTokenizer(cc.fast_wordpiece_classes())


@cache_per_graph
def python_whitespace_pre_tokenizer() -> PreTokenizer:
    """Python's `str.split()` (`classes.python_whitespace_classes`), transformers' `do_basic_tokenize=False`."""
    return PreTokenizer(cc.python_whitespace_classes())
