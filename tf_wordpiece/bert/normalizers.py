"""Normalization: each input code point becomes zero or more output code points.

Both peers normalize one code point at a time (HF's BertNormalizer, and
tensorflow_text's case fold + NFD + Mn removal up to canonical reordering of
marks), so a normalizer is a table: code point -> replacement sequence. It is
composed in Python at construction and applied in the graph with gathers.
"""

from __future__ import annotations

import functools
import unicodedata
from typing import Iterable

import numpy as np
import tensorflow as tf

from tf_wordpiece import unicode_tables as ut
from tf_wordpiece.shapes import rows_and_positions

SPACE = 0x20
NORMALIZATION_FORMS = (None, "NFD", "NFKD", "NFC", "NFKC")


class Normalizer:
    """A per-code-point replacement table applied in the graph.

    Args:
      replacements: code point -> its replacement (only code points that change).
      filled: (mask over all code points, replacement) pairs for large sets,
        applied first; `replacements` overrides them.
    """

    def __init__(
        self,
        replacements: dict[int, tuple[int, ...]],
        *,
        filled: Iterable[tuple[np.ndarray, tuple[int, ...]]] = (),
    ):
        rows: dict[tuple[int, ...], int] = {}  # replacement -> row; row 0 keeps the code point
        dense = np.zeros(ut.NUM_CODE_POINTS, dtype=np.int32)

        def row_of(out: tuple[int, ...]) -> int:
            return rows.setdefault(out, len(rows) + 1)

        for mask, out in filled:
            dense[mask] = row_of(out)
        for cp, out in replacements.items():
            dense[cp] = 0 if out == (cp,) else row_of(out)
        outputs = list(rows)  # insertion order is row order
        lengths = [1] + [len(out) for out in outputs]
        values = [0] + [c for out in outputs for c in out]
        self.dense_rows = dense  # looked up by BasicTokenizer, fused with the character classes
        self.row_outputs = [()] + outputs  # row 0 keeps the code point
        with tf.init_scope():  # eager constants, even when built inside a tf.function
            self._lengths = tf.constant(lengths, tf.int32)
            self._starts = tf.constant(np.cumsum([0] + lengths[:-1]), tf.int32)
            self._values = tf.constant(values, tf.int32)

    # Whether canonical composition follows the table (NFC / NFKC; see tf_wordpiece.bert.composition).
    compose = False

    def apply(self, text: str) -> str:
        """The normalized text, in Python (for short strings such as added tokens).

        >>> hf_normalizer(clean_text=True, strip_accents=True, lowercase=True).apply("Héllo")
        'hello'
        """
        rows = (int(self.dense_rows[ord(ch)]) for ch in text)
        out = "".join(ch if row == 0 else "".join(map(chr, self.row_outputs[row])) for ch, row in zip(text, rows))
        return unicodedata.normalize("NFC", out) if self.compose else out

    def normalize(self, code_points: tf.Tensor, row: tf.Tensor):
        """Replaces each code point by its sequence.

        Args:
          code_points: int32 [n], valid code points; negative values (matched
            added tokens) are kept as they are.
          row: int32 [n], each code point's row in `dense_rows` (0 for negative
            code points); BasicTokenizer looks it up fused with the classes.
        Returns:
          (normalized int32 [m], source int32 [m], one_to_one bool scalar):
          `source[k]` is the index in `code_points` of the code point that
          produced `normalized[k]`; `one_to_one` is true when m == n and
          source is the identity.
        """
        lengths = tf.gather(self._lengths, row)
        one_to_one = tf.reduce_all(lengths == 1)

        def replace():  # the common case (e.g. English): no expansion or deletion
            replaced = tf.gather(self._values, tf.gather(self._starts, row))
            return tf.where(row == 0, code_points, replaced), tf.range(tf.size(code_points))

        def expand():
            source, within = rows_and_positions(lengths)
            source_row = tf.gather(row, source)
            replaced = tf.gather(self._values, tf.gather(self._starts, source_row) + within)
            return tf.where(source_row == 0, tf.gather(code_points, source), replaced), source

        normalized, source = tf.cond(one_to_one, replace, expand)
        return normalized, source, one_to_one


def _apply(table: dict[int, tuple[int, ...]], seq: Iterable[int]) -> tuple[int, ...]:
    return tuple(c for ch in seq for c in table.get(ch, (ch,)))


@functools.cache  # the tables are immutable; tokenizers with the same options share them
def tf_text_normalizer(*, lower_case: bool, normalization_form: str | None) -> Normalizer:
    """tensorflow_text's BasicTokenizer normalization, then `\\p{Cc}|\\p{Cf}` -> space.

    With `lower_case`: NFKC_Casefold, NFD, drop Mn (ICU and RE2 data read off
    tensorflow_text). Otherwise `normalization_form` per code point; NFC and
    NFKC as NFD and NFKD per code point, then canonical composition across
    code points (`compose`, done by BasicTokenizer with `composition.Composer`).
    """
    tables = ut.peer_tables()["tf_text"]
    composes = normalization_form in ("NFC", "NFKC") and not lower_case
    if lower_case:
        base = ut.code_point_map(tables["lower"])
    elif composes:
        base = ut.code_point_map(tables[{"NFC": "nfd", "NFKC": "nfkd"}[normalization_form]])
    elif normalization_form:
        base = ut.code_point_map(tables[normalization_form.lower()])
    else:
        base = {}
    control = ut.range_mask(tables["control"])
    to_space = {c: (SPACE,) for c in np.flatnonzero(control).tolist()}
    replacements = {cp: _apply(to_space, out) for cp, out in base.items()}
    normalizer = Normalizer(replacements, filled=[(control, (SPACE,))])
    normalizer.compose = composes
    return normalizer


@functools.cache  # the tables are immutable; tokenizers with the same options share them
def hf_normalizer(*, clean_text: bool, strip_accents: bool, lowercase: bool) -> Normalizer:
    """Hugging Face BertNormalizer (its Chinese-character spacing is a pre-tokenizer class here).

    Steps in HF's order: clean_text (delete controls, white space -> " "),
    strip accents (NFD, drop Mn), lowercase (Rust `char::to_lowercase`).
    """
    tables = ut.peer_tables()["hf"]
    strip = ut.code_point_map(tables["strip_accents"]) if strip_accents else {}
    lower = ut.code_point_map(tables["lower"]) if lowercase else {}
    replacements = {cp: _apply(lower, _apply(strip, (cp,))) for cp in strip.keys() | lower.keys()}
    filled = []
    if clean_text:
        deleted, to_space = ut.range_mask(tables["deleted"]), ut.range_mask(tables["to_space"])
        filled = [(deleted, ()), (to_space, (SPACE,))]
        replacements = {cp: out for cp, out in replacements.items() if not (deleted[cp] or to_space[cp])}
    return Normalizer(replacements, filled=filled)
