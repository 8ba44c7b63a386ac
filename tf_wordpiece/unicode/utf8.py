"""UTF-8 decoding in elementwise integer ops, as `tf.strings.unicode_decode(errors="replace")` decodes.

Every byte position is looked at once, with the three bytes after it: a lead
byte's sequence is valid when its continuation bytes are (the second one in
the narrower range that excludes overlong forms, surrogates and code points
past U+10FFFF); otherwise the lead and the continuation bytes that were valid
so far are one invalid character (the "maximal subpart" rule of Unicode and
ICU), and every other stray byte is an invalid character of its own.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

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


def decode(data: tf.Tensor, byte_row: tf.Tensor, size: tf.Tensor) -> Characters:
    """Decodes the bytes of many strings at once.

    Args:
      data: int32 [B], bytes (0-255); positions at or past `size` are padding.
      byte_row: int32 [B], the string each byte belongs to (non-decreasing): a
        character never reaches into the next string.
      size: int32 scalar, the number of real bytes.

    >>> chars = decode(tf.constant([104, 0xC3, 0xA9, 0xE2, 0x82, 0]), tf.constant([0, 0, 0, 1, 1, 2]), tf.constant(5))
    >>> chars.start.numpy().tolist(), chars.code_point.numpy().tolist()[:2], chars.length.numpy().tolist()
    ([True, True, False, True, False, False], [104, 233], [1, 2, 1, 2, 1, 1])
    """
    following = [ahead(data, k, 0) for k in (1, 2, 3)]
    same_row = [ahead(byte_row, k, -1) == byte_row for k in (1, 2, 3)]
    is_continuation = [(b >= 0x80) & (b < 0xC0) & same for b, same in zip(following, same_row)]

    # Continuation bytes a lead asks for, and the range its first continuation byte must be in.
    need = tf.where(data < 0xC2, 0, tf.where(data < 0xE0, 1, tf.where(data < 0xF0, 2, tf.where(data < 0xF5, 3, 0))))
    low = tf.where(data == 0xE0, 0xA0, tf.where(data == 0xF0, 0x90, 0x80))
    high = tf.where(data == 0xED, 0x9F, tf.where(data == 0xF4, 0x8F, 0xBF))
    first_ok = same_row[0] & (following[0] >= low) & (following[0] <= high)
    got1 = (need >= 1) & first_ok
    got2 = got1 & (need >= 2) & is_continuation[1]
    got3 = got2 & (need >= 3) & is_continuation[2]
    got = tf.cast(got1, tf.int32) + tf.cast(got2, tf.int32) + tf.cast(got3, tf.int32)
    lead_ok = (data < 0x80) | ((data >= 0xC2) & (data < 0xF5))
    valid = lead_ok & (got == need)
    length = 1 + got

    # Bit fields in arithmetic (TFLite's builtins and TF.js lack most bitwise ops): x % 2**n, x * 2**n.
    b1, b2, b3 = (tf.math.floormod(b, 64) for b in following)

    def bits(*parts):  # (value, shift) pairs put together
        return functools.reduce(tf.add, [v * (1 << s) for v, s in parts])

    code_point = tf.where(
        need == 0,
        data,
        tf.where(
            need == 1,
            bits((tf.math.floormod(data, 32), 6), (b1, 0)),
            tf.where(
                need == 2,
                bits((tf.math.floormod(data, 16), 12), (b1, 6), (b2, 0)),
                bits((tf.math.floormod(data, 8), 18), (b1, 12), (b2, 6), (b3, 0)),
            ),
        ),
    )
    code_point = tf.where(valid, code_point, ut.INVALID_UTF8)

    # A byte inside an earlier lead's sequence (valid or not) starts nothing.
    inside = tf.zeros_like(valid)
    for k in (1, 2, 3):
        inside |= behind(length, k, 1) > k
    start = ~inside & (tf.range(tf.shape(data)[0]) < size)
    return Characters(start, code_point, length)
