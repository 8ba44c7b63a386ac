"""A batch's bytes as the stages take them: each string followed by a space, per byte its string and offset.

The space after each string ends any UTF-8 sequence, word or walk there, so
that the stages never look at string boundaries (a space is white space in
every pre-tokenizer, and normalization keeps it). XLA pads the result to a
bucket of sizes with more spaces, which hold no words.
"""

from __future__ import annotations

from typing import NamedTuple

import tensorflow as tf

SPACE = 0x20
SMALLEST_BUCKET = 64  # the smallest padded size (XLA compiles once per size)


class Separated(NamedTuple):
    """int32 [N] each, N = bytes + strings + 1 (or its bucket): the bytes with a space after each string
    (and one more at the end, so that no batch is empty); each byte's string (-1 for the spaces put in)
    and its byte offset in its string (at a space put in: meaningless)."""

    data: tf.Tensor
    row: tf.Tensor
    offset: tf.Tensor


def separate(data: tf.Tensor, lengths: tf.Tensor) -> Separated:
    """data int32 [B] (the strings end to end), lengths int32 [n] (their sizes, summing to B).

    Gathers, not scatters, move the bytes (a scatter of B values costs several
    times a gather in TFLite and TensorFlow): only the n + 1 spaces are scattered.

    >>> out = separate(tf.constant(list(b"abc"), tf.int32), tf.constant([2, 0, 1]))
    >>> [t.numpy().tolist() for t in out]
    [[97, 98, 32, 32, 99, 32, 32], [0, 0, -1, -1, 2, -1, -1], [0, 1, 2, 0, 0, 1, 3]]
    """
    size = tf.shape(data)[0]
    n = tf.size(lengths)
    total = size + n + 1
    row_end = tf.cumsum(lengths)
    spaces = tf.concat([row_end + tf.range(n), [total - 1]], 0)  # string r's space: after it and r spaces before
    is_space = tf.scatter_nd(spaces[:, None], tf.ones_like(spaces), [total]) > 0
    row = tf.cumsum(tf.cast(is_space, tf.int32), exclusive=True)  # spaces before a byte: its string
    source = tf.range(total) - row  # the byte that lands here (meaningless at the spaces)
    row_start = tf.concat([row_end - lengths, [0]], 0)
    return Separated(
        data=tf.where(is_space, SPACE, tf.gather(tf.concat([data, [SPACE]], 0), tf.minimum(source, size))),
        row=tf.where(is_space, -1, row),
        offset=source - tf.gather(row_start, row),
    )


def padded(batch: Separated, size: tf.Tensor) -> Separated:
    """The batch padded to `size` (>= its own) with spaces of no string."""
    extra = [[0, size - tf.shape(batch.data)[0]]]
    return Separated(
        data=tf.pad(batch.data, extra, constant_values=SPACE),
        row=tf.pad(batch.row, extra, constant_values=-1),
        offset=tf.pad(batch.offset, extra),
    )


def bucket(value: tf.Tensor) -> tf.Tensor:
    """The next power of two >= value (int32 scalar), at least SMALLEST_BUCKET."""
    powers = tf.constant([1 << k for k in range(31)])
    return tf.reduce_min(tf.where(powers >= tf.maximum(tf.cast(value, tf.int32), SMALLEST_BUCKET), powers, 1 << 30))
