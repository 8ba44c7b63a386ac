"""Per-code-point tables of tensorflow_text's applied to flat batches of strings, and the strings decoded and encoded.

`table_lookup(name)` applies one of the shipped ICU tables
(`tf_wordpiece.unicode.tables.peer_tables()["tf_text"]`: "nfd", "nfkd",
"casefold", ...) with a `Normalizer`; `decode_strings` / `encode_code_points`
go between strings [n] and flat code points with their rows. keras-hub's
WordPiece (`keras_hub_compat`) and `tf_wordpiece.text`'s normalizers share them.

>>> cps, rows = decode_strings(tf.constant(["\u00e9", "ab"]))
>>> nfd, nfd_rows = table_lookup("nfd")(cps, rows)
>>> encode_code_points(nfd, nfd_rows, 2).numpy().tolist()
[b'e\xcc\x81', b'ab']
"""

from __future__ import annotations

import tensorflow as tf

from tf_wordpiece.bert.normalizers import Normalizer
from tf_wordpiece.shapes import rows_of_values, rows_to_splits
from tf_wordpiece.tf1_graphs import cache_per_graph
from tf_wordpiece.unicode import tables as ut
from tf_wordpiece.unicode.normalization import NormalizationTable


class TableLookup:
    """A per-code-point table of tensorflow_text's (`tf_wordpiece.unicode.tables`) applied to flat code points."""

    def __init__(self, name: str):
        self.normalizer = Normalizer(
            NormalizationTable.from_replacements(ut.code_point_map(ut.peer_tables()["tf_text"][name]))
        )
        self._rows = ut.CodePointLookup(self.normalizer.table.dense_rows)

    def __call__(self, code_points: tf.Tensor, rows: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
        """int32 [m] code points and their rows -> the replaced code points [k] and their rows [k]."""
        replaced, source = self.with_sources(code_points)
        return replaced, tf.gather(rows, source)

    def with_sources(self, code_points: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
        """int32 [m] code points -> (the replaced code points [k], int32 [k]: the index in `code_points` of each)."""
        row = tf.where(tf.equal(code_points, ut.INVALID_UTF8), 0, self._rows(code_points))
        replaced, source, _ = self.normalizer.normalize(code_points, row)
        return replaced, source


@cache_per_graph  # the tables are immutable; tokenizers share them
def table_lookup(name: str) -> TableLookup:
    """The shared `TableLookup` of the shipped table `name`."""
    return TableLookup(name)


def decode_strings(strings: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
    """string [n] -> (int32 code points [m], int32 rows [m]); invalid UTF-8 reads as `ut.INVALID_UTF8`."""
    chars = tf.strings.unicode_decode(strings, "UTF-8", errors="replace", replacement_char=ut.INVALID_UTF8)
    return chars.flat_values, rows_of_values(chars.row_splits[:-1], tf.size(chars.flat_values))


def encode_code_points(code_points: tf.Tensor, rows: tf.Tensor, n: tf.Tensor) -> tf.Tensor:
    """(code points [m], their rows [m], non-decreasing) -> UTF-8 string [n]."""
    values = tf.where(tf.equal(code_points, ut.INVALID_UTF8), ut.REPLACEMENT_CHARACTER, code_points)
    splits = rows_to_splits(tf.cast(rows, tf.int64), tf.cast(n, tf.int64))
    return tf.strings.unicode_encode(tf.RaggedTensor.from_row_splits(values, splits, validate=False), "UTF-8")
