"""Per-code-point Unicode tables, as dense NumPy arrays and as graph lookups.

Core TensorFlow has no NFD, case folding or Unicode categories. The data ships
in `data/unicode_tables.json.gz`, read off the peers by
`tools/gen_unicode_tables.py` (each peer pins its own Unicode version: ICU/RE2
for tensorflow_text, Unicode 8.0 categories for Hugging Face `tokenizers`).
Nothing is read until a tokenizer is built, and TensorFlow is imported only
where a graph lookup is built or run: the data (and `normalization`,
`classes` on top of it) loads without it, as the command line's `--help` does.
"""

from __future__ import annotations

import functools
import gzip
import json
from importlib import resources

import numpy as np

NUM_CODE_POINTS = 0x110000
# Invalid UTF-8 decodes to this code point: a lone surrogate, which valid UTF-8
# can never produce, so invalid bytes stay distinguishable from a real U+FFFD.
INVALID_UTF8 = 0xD800
REPLACEMENT_CHARACTER = 0xFFFD
# Code points from which UTF-8 takes 2, 3 and 4 bytes.
_UTF8_LENGTH_BOUNDS = (0x80, 0x800, 0x10000)
_PAGE_BITS = 8
_PAGE_SIZE = 1 << _PAGE_BITS


@functools.cache
def peer_tables() -> dict:
    """The shipped tables: {"tf_text": {...}, "hf": {...}, "provenance": {...}}."""
    path = resources.files("tf_wordpiece") / "data" / "unicode_tables.json.gz"
    with path.open("rb") as raw, gzip.open(raw, "rt", encoding="utf-8") as f:
        return json.load(f)


def code_point_map(table: dict[str, list[int]]) -> dict[int, tuple[int, ...]]:
    """JSON {"cp": [cps]} -> {cp: (cps)}."""
    return {int(c): tuple(out) for c, out in table.items()}


def range_mask(ranges: list[list[int]]) -> np.ndarray:
    """Inclusive [[first, last], ...] runs -> bool[NUM_CODE_POINTS]."""
    mask = np.zeros(NUM_CODE_POINTS, dtype=bool)
    for first, last in ranges:
        mask[first : last + 1] = True
    return mask


def regex_class(mask: np.ndarray) -> str:
    """An RE2 character class of the code points where `mask` (bool [NUM_CODE_POINTS]) is true.

    >>> mask = np.zeros(NUM_CODE_POINTS, bool)
    >>> mask[[0x41, 0x42, 0x43, 0xE9]] = True
    >>> print(regex_class(mask))
    [\\x{41}-\\x{43}\\x{e9}]
    """
    edges = np.diff(np.concatenate([[0], mask.astype(np.int8), [0]]))
    firsts, lasts = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1) - 1
    return "[" + "".join(f"\\x{{{a:x}}}" + ("" if a == b else f"-\\x{{{b:x}}}") for a, b in zip(firsts, lasts)) + "]"


def utf8_length(code_points):
    """Bytes each code point takes in UTF-8 (surrogates: 3), for a NumPy array or a tensor (int32, same shape).

    >>> utf8_length(np.array([0x41, 0xE9, 0x4E2D, 0x1F600])).tolist()
    [1, 2, 3, 4]
    """
    if isinstance(code_points, np.ndarray):
        return 1 + sum((code_points >= bound).astype(np.int32) for bound in _UTF8_LENGTH_BOUNDS)
    import tensorflow as tf

    return 1 + sum(tf.cast(code_points >= bound, tf.int32) for bound in _UTF8_LENGTH_BOUNDS)


def _first_indices(labels: np.ndarray) -> list[int]:
    """Index of the first occurrence of each label 0, 1, 2, ... (labels numbered in order of appearance)."""
    _, first = np.unique(labels, return_index=True)
    return first.tolist()


class CodePointLookup:
    """A dense int32 table over all code points, stored as deduplicated pages.

    A flat table would be 4.4 MB per property; most 256-code-point pages are
    identical (all zero), so we keep each distinct page once and an index of
    pages, and look up with two gathers.
    """

    def __init__(self, dense: np.ndarray):
        if dense.shape != (NUM_CODE_POINTS,):
            raise ValueError(f"dense table must have shape ({NUM_CODE_POINTS},), got {dense.shape}")
        pages = dense.astype(np.int32).reshape(-1, _PAGE_SIZE)
        first_seen: dict[bytes, int] = {}
        page_of = np.array([first_seen.setdefault(p.tobytes(), len(first_seen)) for p in pages], np.int32)
        unique_pages = pages[_first_indices(page_of)]
        import tensorflow as tf

        with tf.init_scope():  # eager constants, even when built inside a tf.function
            self._page_index = tf.constant(page_of)
            self._pages = tf.constant(unique_pages.reshape(-1))

    def __call__(self, code_points):
        """int32 code points of any shape (each in [0, 0x10FFFF]) -> int32 values."""
        import tensorflow as tf

        page_number = code_points // _PAGE_SIZE  # not a bit shift: TFLite's builtins and TF.js lack it
        within = code_points - page_number * _PAGE_SIZE
        return tf.gather(self._pages, tf.gather(self._page_index, page_number) * _PAGE_SIZE + within)
