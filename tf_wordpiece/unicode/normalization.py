"""Normalization as a table: each code point becomes zero or more code points.

Both peers normalize one code point at a time (Hugging Face's BertNormalizer,
and tensorflow_text's case fold + NFD + Mn removal), so a normalization is a
table: code point -> its replacement. The table is built here in NumPy; the
string path applies it with `bert.normalizers.Normalizer`, the numeric core
with its own gathers.

>>> table = hf_normalization(clean_text=True, strip_accents=True, lowercase=True)
>>> table.apply("Héllo\\x00!"), [chr(c) for c in table.row_outputs[table.dense_rows[ord("É")]]]
('hello!', ['e'])
"""

from __future__ import annotations

import dataclasses
import functools
import unicodedata
from typing import Iterable

import numpy as np

from tf_wordpiece.unicode import tables as ut

SPACE = 0x20
NORMALIZATION_FORMS = (None, "NFD", "NFKD", "NFC", "NFKC")


@dataclasses.dataclass(frozen=True, eq=False)  # compared (and cached) by identity: the arrays are large
class NormalizationTable:
    """A per-code-point replacement table.

    dense_rows: int32 [0x110000], each code point's row; row 0 keeps the code point.
    row_outputs: per row, the code points it becomes (row 0: `()`).
    compose: canonical composition across code points follows the table (NFC
      and NFKC; the string path does it, see `bert.composition`).
    reorders: canonical ordering alone follows the table (NFD and NFKD: the
      marks of a run sorted by combining class; the string path does it, see
      `bert.composition.MarkOrder`). Not for tensorflow_text's lower_case,
      which drops the marks (Mn) after its NFD: of those with a combining
      class, 25 spacing ones (Mc: U+1D165, U+1D16D, ...) are kept, and two of
      them out of order stay so here.
    """

    dense_rows: np.ndarray
    row_outputs: tuple[tuple[int, ...], ...]
    compose: bool = False
    reorders: bool = False

    @classmethod
    def from_replacements(
        cls,
        replacements: dict[int, tuple[int, ...]],
        *,
        filled: Iterable[tuple[np.ndarray, tuple[int, ...]]] = (),
        compose: bool = False,
        reorders: bool = False,
    ) -> "NormalizationTable":
        """`replacements`: code point -> its replacement (only code points that change); `filled`:
        (mask over all code points, replacement) pairs for large sets, applied first."""
        rows: dict[tuple[int, ...], int] = {}  # replacement -> row
        dense = np.zeros(ut.NUM_CODE_POINTS, dtype=np.int32)

        def row_of(out: tuple[int, ...]) -> int:
            return rows.setdefault(out, len(rows) + 1)

        for mask, out in filled:
            dense[mask] = row_of(out)
        for cp, out in replacements.items():
            dense[cp] = 0 if out == (cp,) else row_of(out)
        return cls(dense, ((),) + tuple(rows), compose, reorders)  # insertion order is row order

    def apply(self, text: str) -> str:
        """The normalized text, in Python (for short strings such as added tokens)."""
        rows = (int(self.dense_rows[ord(ch)]) for ch in text)
        out = "".join(ch if row == 0 else "".join(map(chr, self.row_outputs[row])) for ch, row in zip(text, rows))
        if self.compose:
            return unicodedata.normalize("NFC", out)
        return unicodedata.normalize("NFD", out) if self.reorders else out  # decomposed already: the order


def _apply(table: dict[int, tuple[int, ...]], seq: Iterable[int]) -> tuple[int, ...]:
    return tuple(c for ch in seq for c in table.get(ch, (ch,)))


@functools.cache  # immutable; tokenizers with the same options share it
def tf_text_normalization(*, lower_case: bool, normalization_form: str | None) -> NormalizationTable:
    """tensorflow_text's BasicTokenizer normalization, then `\\p{Cc}|\\p{Cf}` -> space.

    With `lower_case`: NFKC_Casefold, NFD, drop Mn (ICU and RE2 data read off
    tensorflow_text). Otherwise `normalization_form` per code point; NFC and
    NFKC as NFD and NFKD per code point, then canonical composition across
    code points (`compose`).
    """
    peer = ut.peer_tables()["tf_text"]
    composes = normalization_form in ("NFC", "NFKC") and not lower_case
    if lower_case:
        base = ut.code_point_map(peer["lower"])
    elif composes:
        base = ut.code_point_map(peer[{"NFC": "nfd", "NFKC": "nfkd"}[normalization_form]])
    elif normalization_form:
        base = ut.code_point_map(peer[normalization_form.lower()])
    else:
        base = {}
    control = ut.range_mask(peer["control"])
    to_space = {c: (SPACE,) for c in np.flatnonzero(control).tolist()}
    replacements = {cp: _apply(to_space, out) for cp, out in base.items()}
    reorders = not lower_case and normalization_form in ("NFD", "NFKD")
    return NormalizationTable.from_replacements(
        replacements, filled=[(control, (SPACE,))], compose=composes, reorders=reorders
    )


@functools.cache  # immutable; tokenizers with the same options share it
def hf_normalization(*, clean_text: bool, strip_accents: bool, lowercase: bool) -> NormalizationTable:
    """Hugging Face's BertNormalizer (its Chinese-character spacing is a pre-tokenizer class here).

    Steps in HF's order: clean_text (delete controls, white space -> " "),
    strip accents (NFD, drop Mn), lowercase (Rust `char::to_lowercase`).
    """
    peer = ut.peer_tables()["hf"]
    strip = ut.code_point_map(peer["strip_accents"]) if strip_accents else {}
    lower = ut.code_point_map(peer["lower"]) if lowercase else {}
    replacements = {cp: _apply(lower, _apply(strip, (cp,))) for cp in strip.keys() | lower.keys()}
    filled = []
    if clean_text:
        deleted, to_space = ut.range_mask(peer["deleted"]), ut.range_mask(peer["to_space"])
        filled = [(deleted, ()), (to_space, (SPACE,))]
        replacements = {cp: out for cp, out in replacements.items() if not (deleted[cp] or to_space[cp])}
    return NormalizationTable.from_replacements(replacements, filled=filled)
