"""The normalization stage: each code point becomes zero or more code points, in the graph.

The tables (code point -> replacement) are built in `tf_wordpiece.unicode.normalization`,
shared with the numeric core; a `Normalizer` applies one to decoded strings
with gathers.
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf

from tf_wordpiece.shapes import rows_and_positions
from tf_wordpiece.tf1_graphs import cache_per_graph
from tf_wordpiece.unicode import normalization
from tf_wordpiece.unicode.normalization import NormalizationTable


class Normalizer:
    """A `NormalizationTable` applied in the graph (`normalize`) and in Python (`apply`).

    >>> hf_normalizer(clean_text=True, strip_accents=True, lowercase=True).apply("Héllo")
    'hello'
    """

    def __init__(self, table: NormalizationTable):
        self.table = table
        lengths = [1] + [len(out) for out in table.row_outputs[1:]]
        values = [0] + [c for out in table.row_outputs[1:] for c in out]
        with tf.init_scope():  # eager constants, even when built inside a tf.function
            self._lengths = tf.constant(lengths, tf.int32)
            self._starts = tf.constant(np.cumsum([0] + lengths[:-1]), tf.int32)
            self._values = tf.constant(values, tf.int32)

    @property
    def compose(self) -> bool:
        """Whether canonical composition follows the table (NFC / NFKC; see tf_wordpiece.bert.composition)."""
        return self.table.compose

    def apply(self, text: str) -> str:
        """The normalized text, in Python (for short strings such as added tokens)."""
        return self.table.apply(text)

    def normalize(self, code_points: tf.Tensor, row: tf.Tensor):
        """Replaces each code point by its sequence.

        Args:
          code_points: int32 [n], valid code points; negative values (matched
            added tokens) are kept as they are.
          row: int32 [n], each code point's row in the table's `dense_rows` (0 for negative
            code points); BasicTokenizer looks it up fused with the classes.
        Returns:
          (normalized int32 [m], source int32 [m], one_to_one bool scalar):
          `source[k]` is the index in `code_points` of the code point that
          produced `normalized[k]`; `one_to_one` is true when m == n and
          source is the identity.
        """
        lengths = tf.gather(self._lengths, row)
        one_to_one = tf.reduce_all(tf.equal(lengths, 1))

        def replace():  # the common case (e.g. English): no expansion or deletion
            replaced = tf.gather(self._values, tf.gather(self._starts, row))
            return tf.where(tf.equal(row, 0), code_points, replaced), tf.range(tf.size(code_points))

        def expand():
            source, within = rows_and_positions(lengths)
            source_row = tf.gather(row, source)
            replaced = tf.gather(self._values, tf.gather(self._starts, source_row) + within)
            return tf.where(tf.equal(source_row, 0), tf.gather(code_points, source), replaced), source

        normalized, source = tf.cond(one_to_one, replace, expand)
        return normalized, source, one_to_one


@cache_per_graph  # the tables are immutable; tokenizers with the same options share them
def tf_text_normalizer(*, lower_case: bool, normalization_form: str | None) -> Normalizer:
    """tensorflow_text's BasicTokenizer normalization (see `normalization.tf_text_normalization`)."""
    return Normalizer(normalization.tf_text_normalization(lower_case=lower_case, normalization_form=normalization_form))


@cache_per_graph  # the tables are immutable; tokenizers with the same options share them
def hf_normalizer(*, clean_text: bool, strip_accents: bool, lowercase: bool) -> Normalizer:
    """Hugging Face's BertNormalizer (see `normalization.hf_normalization`)."""
    return Normalizer(
        normalization.hf_normalization(clean_text=clean_text, strip_accents=strip_accents, lowercase=lowercase)
    )
