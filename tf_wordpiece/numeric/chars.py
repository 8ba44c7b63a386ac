"""Normalization, pre-tokenizer classes and vocabulary characters fused into one table (stage 1's lookups).

Each code point gets a key. A character becomes `count[key]` slots (0 when
normalization deletes it, more when it expands), and its i-th slot holds
`info[key + i]`: the output code point's character number in the vocabulary
(for the walks), its UTF-8 length (for the word-length limit) and its class
(word, white space, isolated), packed in one int32. So normalizing and
classifying a batch is one paged lookup per character and one gather per slot,
instead of a lookup per table: fewer ops, which is what TFLite and TF.js pay.

Code points that normalization keeps share keys by their info (most of them
have the same one: no vocabulary character, class word); each code point that
normalization changes has the key of its replacement, whose slots follow it.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from tf_wordpiece.unicode import tables as ut
from tf_wordpiece.unicode.classes import ISOLATED
from tf_wordpiece.unicode.normalization import NormalizationTable

# info = char * CHAR_UNIT + (UTF-8 length - 1) * LENGTH_UNIT + class
LENGTH_UNIT = 4
CHAR_UNIT = 16
INVALID_KEYS = 3  # "keep": an invalid sequence of 1, 2 or 3 bytes reads as code point INVALID_UTF8 + length - 1


class CharTable(NamedTuple):
    """key: int32 [0x110000]; info, count: int32 [keys]. Keys from `added_key` on are the added tokens, in order.

    max_expansion: the most slots a byte can take (a character's slots per byte of it), rounded up.
    """

    key: np.ndarray
    info: np.ndarray
    count: np.ndarray
    added_key: int
    max_expansion: int


def pack(char, utf8_length, char_class):
    """The info of a slot (NumPy arrays or tensors alike)."""
    return char * CHAR_UNIT + (utf8_length - 1) * LENGTH_UNIT + char_class


def build_char_table(
    normalization: NormalizationTable, classes: np.ndarray, char_index: np.ndarray, *, num_added: int
) -> CharTable:
    """The fused table for these per-code-point tables and `num_added` added tokens.

    >>> from tf_wordpiece.unicode import classes, normalization
    >>> norm = normalization.hf_normalization(clean_text=True, strip_accents=False, lowercase=True)
    >>> char_index = np.zeros(0x110000, np.int32); char_index[ord("é")] = 5
    >>> t = build_char_table(norm, classes.hf_classes().dense, char_index, num_added=0)
    >>> [int(t.count[t.key[ord(c)]]) for c in "É\\x00İ"], int(t.info[t.key[ord("É")]]) == pack(5, 2, 0)
    ([1, 0, 2], True)
    """
    code_points = np.arange(ut.NUM_CODE_POINTS)
    lengths = ut.utf8_length(code_points)
    own_info = pack(char_index.astype(np.int64), lengths, classes)
    rows = normalization.dense_rows
    kept = rows == 0
    infos, inverse = np.unique(own_info[kept], return_inverse=True)
    key = np.zeros(ut.NUM_CODE_POINTS, np.int64)
    key[kept] = inverse
    info, count = list(infos), [1] * len(infos)
    row_key = np.zeros(len(normalization.row_outputs), np.int64)
    for row, outputs in enumerate(normalization.row_outputs[1:], start=1):
        row_key[row] = len(info)
        info += [int(own_info[o]) for o in outputs] or [0]
        count += [len(outputs)] + [0] * max(len(outputs) - 1, 0)
    key[~kept] = row_key[rows[~kept]]
    per_byte = np.asarray(count)[key] / lengths
    # Invalid sequences ("keep") count the bytes they are against the word limit: three keys, one per length.
    invalid = ut.INVALID_UTF8
    if rows[invalid] == 0:
        for length in range(1, INVALID_KEYS + 1):
            key[invalid + length - 1] = len(info)
            info.append(pack(int(char_index[invalid]), length, int(classes[invalid])))
            count.append(1)
    added_key = len(info)
    info += [pack(0, 1, ISOLATED)] * num_added
    count += [1] * num_added
    return CharTable(
        key=key.astype(np.int32),
        info=np.asarray(info, np.int32),
        count=np.asarray(count, np.int32),
        added_key=added_key,
        max_expansion=max(1, math.ceil(float(per_byte.max()))),
    )
