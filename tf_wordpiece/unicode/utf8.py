"""UTF-8 decoding in a few table gathers, as `tf.strings.unicode_decode(errors="replace")` decodes.

Every byte position is looked at once, with the three bytes after it: a lead
byte's sequence is valid when its continuation bytes are (the first one in the
narrower range that excludes overlong forms, surrogates and code points past
U+10FFFF); otherwise the lead and the continuation bytes that were valid so far
are one invalid character (the "maximal subpart" rule of Unicode and ICU), and
every other stray byte is an invalid character of its own. What a lead byte
asks of the bytes after it is a table built once in NumPy (`lead_tables`), so a
batch costs about 40 elementwise ops and gathers over [B] whatever its size:
the op count is what TFLite and TF.js pay per call. Int32 only, no bitwise op
(TFLite's builtins and TF.js lack most of them).
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np
import tensorflow as tf

from tf_wordpiece.unicode import tables as ut


class Characters(NamedTuple):
    """Per byte position of a flat byte array [B] (all int32 / bool [B]).

    start: the position begins a character (valid or not).
    code_point: its code point where it begins a valid one, `ut.INVALID_UTF8`
      where it begins an invalid one (meaningless elsewhere).
    length: the character's length in bytes, where it begins one.
    """

    start: tf.Tensor
    code_point: tf.Tensor
    length: tf.Tensor


def ahead(values: tf.Tensor, k: int, fill) -> tf.Tensor:
    """values[i + k], `fill` past the end (int or bool [B], any B >= 0)."""
    return tf.concat([values, tf.fill([k], tf.constant(fill, values.dtype))], 0)[k:]


def behind(values: tf.Tensor, k: int, fill) -> tf.Tensor:
    """values[i - k], `fill` before the start."""
    return tf.concat([tf.fill([k], tf.constant(fill, values.dtype)), values], 0)[: tf.shape(values)[0]]


@functools.cache
def lead_tables() -> dict[str, np.ndarray]:
    """Per byte value (int32 arrays, built once).

    need [256]: continuation bytes it asks for as a lead; -1 for bytes that
      lead nothing (continuation bytes, C0, C1, F5-FF), so that no count of
      them matches.
    first [256 * 256]: at lead * 256 + the next byte, `need` where that byte
      is in the lead's range for its first continuation (narrower after E0,
      ED, F0 and F4: no overlong forms, surrogates or code points past
      U+10FFFF), else 0.
    continuation [256]: 1 for continuation bytes (80-BF), else 0.
    got [4 * 3]: at first * 3 + (continuation bytes in a row after the
      first one, 0-2) -> the continuation bytes the lead takes.
    payload [256]: the lead's own bits, times 64 ** 3; scale [256]: 64 ** (3 - need).
    """
    need = np.full(256, -1, np.int64)
    need[:0x80] = 0
    need[0xC2:0xE0], need[0xE0:0xF0], need[0xF0:0xF5] = 1, 2, 3
    low, high = np.full(256, 0x80), np.full(256, 0xBF)
    low[0xE0], high[0xED], low[0xF0], high[0xF4] = 0xA0, 0x9F, 0x90, 0x8F
    first = np.zeros((256, 256), np.int64)
    for lead in np.flatnonzero(need > 0):
        first[lead, low[lead] : high[lead] + 1] = need[lead]
    byte = np.arange(256)
    continuation = (byte >= 0x80) & (byte < 0xC0)
    got = np.array([[min(f, 1 + min(more, f - 1)) if f else 0 for more in range(3)] for f in range(4)])
    bits = np.where(need == 0, byte, byte % (64 >> np.clip(need, 0, 3)))
    tables = dict(
        need=need,
        first=first.reshape(-1),
        continuation=continuation,
        got=got.reshape(-1),
        payload=np.where(need >= 0, bits, 0) * 64**3,
        scale=64 ** (3 - np.clip(need, 0, 3)),
    )
    return {name: value.astype(np.int32) for name, value in tables.items()}


def decode(data: tf.Tensor, byte_row: tf.Tensor | None = None, size: tf.Tensor | None = None) -> Characters:
    """Decodes the bytes of many strings at once.

    Args:
      data: int32 [B], bytes (0-255).
      byte_row: int32 [B], the string each byte belongs to (non-decreasing): a
        character never reaches into the next string. None when the strings
        are apart already (an ASCII byte between them, which no sequence
        takes as a continuation).
      size: int32 scalar, the number of real bytes (positions from there on
        are padding and start nothing); None: all of them.

    >>> chars = decode(tf.constant([104, 0xC3, 0xA9, 0xE2, 0x82, 0]), tf.constant([0, 0, 0, 1, 1, 2]), tf.constant(5))
    >>> chars.start.numpy().tolist(), chars.code_point.numpy().tolist()[:2], chars.length.numpy().tolist()
    ([True, True, False, True, False, False], [104, 233], [1, 2, 1, 2, 1, 1])
    """
    table = {name: tf.constant(value) for name, value in lead_tables().items()}
    padded = tf.concat([data, [0, 0, 0]], 0)
    following = [padded[1:-2], padded[2:-1], padded[3:]]  # the 1st, 2nd, 3rd byte after each
    if byte_row is not None:  # bytes of the next string read as 0, which no sequence takes
        rows = tf.concat([byte_row, [-1, -1, -1]], 0)
        following = [
            tf.where(tf.equal(r, byte_row), b, 0) for r, b in zip([rows[1:-2], rows[2:-1], rows[3:]], following)
        ]
    b1, b2, b3 = following
    first = tf.gather(table["first"], data * 256 + b1)
    more = tf.gather(table["continuation"], b2) * (1 + tf.gather(table["continuation"], b3))
    got = tf.gather(table["got"], first * 3 + more)  # continuation bytes taken
    valid = tf.equal(got, tf.gather(table["need"], data))
    length = got + 1
    # Bit fields in arithmetic (TFLite's builtins and TF.js lack most bitwise ops): the lead's bits and the
    # three bytes' low six bits side by side in base 64, divided down to the lead's length.
    low = [tf.math.floormod(b, 64) for b in following]
    digits = tf.gather(table["payload"], data) + low[0] * 4096 + low[1] * 64 + low[2]
    code_point = tf.where(valid, tf.math.floordiv(digits, tf.gather(table["scale"], data)), ut.INVALID_UTF8)
    # A byte inside an earlier character (valid or not) starts nothing: a lead 1-3 bytes back that reaches past it.
    back = tf.concat([[1, 1, 1], length], 0)  # lengths at i - 1, i - 2, i - 3: back[2:-1], back[1:-2], back[:-3]
    start = ~((back[2:-1] > 1) | (back[1:-2] > 2) | (back[:-3] > 3))
    if size is not None:
        start &= tf.range(tf.shape(data)[0]) < size
    return Characters(start, code_point, length)
