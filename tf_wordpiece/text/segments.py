"""Segments into model inputs: tensorflow_text's `combine_segments`, `concatenate_segments` and
`pad_model_inputs` in core ops.

`combine_segments` writes `[start] a [end] b [end] ...` with segment ids (`concatenate_segments`: `a b ...`,
no special ids); for [batch, (tokens)] segments it places every id at its output position in one
`tf.dynamic_stitch` (no ragged concatenation), and for deeper ragged segments it concatenates along axis 1
as tensorflow_text does. `pad_model_inputs` cuts or pads rows to
`max_seq_length` and marks the real items.
"""

from __future__ import annotations

from typing import Sequence

import tensorflow as tf

from tf_wordpiece.text.masking import as_ragged


def combine_segments(
    segments: Sequence[tf.RaggedTensor], start_of_sequence_id: int | tf.Tensor, end_of_segment_id: int | tf.Tensor
) -> tuple[tf.RaggedTensor, tf.RaggedTensor]:
    """`[start] segment_0 [end] segment_1 [end] ...` per row, and each item's segment number.

    Args:
      segments: one or more int32/int64 RaggedTensors [batch, (tokens), ...] of one dtype, rank and batch.
      start_of_sequence_id: the id that starts each row (`[CLS]`), an int or scalar Tensor.
      end_of_segment_id: the id after each segment (`[SEP]`), an int or scalar Tensor.

    Returns:
      `(combined, segment_ids)`: RaggedTensors [batch, (tokens), ...] of the segments' dtype; segment_ids
      is 0 for `[start]` and segment i's items and the `[end]` after them i.

    >>> a, b = tf.ragged.constant([[1, 2], [3]]), tf.ragged.constant([[10], [30, 40]])
    >>> [t.to_list() for t in combine_segments([a, b], start_of_sequence_id=101, end_of_segment_id=102)]
    [[[101, 1, 2, 102, 10, 102], [101, 3, 102, 30, 40, 102]], [[0, 0, 0, 0, 1, 1], [0, 0, 0, 1, 1, 1]]]
    """
    segments = _id_segments(segments)
    dtype = segments[0].dtype
    start = tf.cast(tf.convert_to_tensor(start_of_sequence_id, dtype), dtype)
    end = tf.cast(tf.convert_to_tensor(end_of_segment_id, dtype), dtype)
    return _combine(segments, start, end)


def concatenate_segments(segments: Sequence[tf.RaggedTensor]) -> tuple[tf.RaggedTensor, tf.RaggedTensor]:
    """The segments joined row by row, `segment_0 segment_1 ...`, and each item's segment number.

    Args:
      segments: one or more int32/int64 RaggedTensors [batch, (tokens), ...] of one dtype, rank and batch.

    Returns:
      `(combined, segment_ids)`: RaggedTensors [batch, (tokens), ...] of the segments' dtype; segment_ids is
      i for segment i's items.

    >>> a, b = tf.ragged.constant([[1, 2], [3]]), tf.ragged.constant([[10], [30, 40]])
    >>> [t.to_list() for t in concatenate_segments([a, b])]
    [[[1, 2, 10], [3, 30, 40]], [[0, 0, 1], [0, 1, 1]]]
    """
    return _combine(_id_segments(segments), None, None)


def _id_segments(segments: Sequence[tf.RaggedTensor]) -> list[tf.RaggedTensor]:
    """The segments as RaggedTensors of int32 or int64 ids, one dtype; a ValueError naming `segments` otherwise."""
    if isinstance(segments, (tf.Tensor, tf.RaggedTensor)) or len(segments) == 0:
        raise ValueError(f"segments: expected a non-empty list of RaggedTensors, got {segments!r}")
    segments = [as_ragged(s, name="segments") for s in segments]
    dtype = segments[0].dtype
    if dtype not in (tf.int32, tf.int64) or any(s.dtype != dtype for s in segments):
        raise ValueError(
            f"segments: expected int32 or int64 ids, all of one dtype, got {[s.dtype.name for s in segments]}; "
            "tf.cast them to one"
        )
    return segments


def _combine(segments: list[tf.RaggedTensor], start: tf.Tensor | None, end: tf.Tensor | None) -> tuple:
    """`[start] a [end] b [end] ...`, or `a b ...` where `start` and `end` are None."""
    if all(s.ragged_rank == 1 for s in segments):
        return _stitch(segments, start, end)
    return _concat(segments, start, end)


def _stitch(segments: list[tf.RaggedTensor], start: tf.Tensor | None, end: tf.Tensor | None) -> tuple:
    """[batch, (tokens)] segments combined by computing each id's output position (one dynamic_stitch)."""
    dtype = segments[0].dtype
    specials = int(start is not None)  # [start] and each [end]: one item each, or none
    lengths = [tf.cast(s.row_lengths(), tf.int64) for s in segments]
    total = specials + tf.add_n([n + specials for n in lengths])
    row_start = tf.cumsum(total, exclusive=True)
    batch = tf.shape(total, out_type=tf.int64)[0]
    indices, values, ids = [], [], []
    if specials:
        indices, values, ids = [row_start], [tf.fill([batch], start)], [tf.zeros([batch], dtype)]
    offset = row_start + specials  # where the next segment starts in each row
    for number, (segment, length) in enumerate(zip(segments, lengths)):
        indices.append(tf.ragged.range(offset, offset + length).flat_values)
        values.append(segment.values)
        ids.append(tf.fill(tf.shape(segment.values), tf.constant(number, dtype)))
        if specials:
            indices.append(offset + length)
            values.append(tf.fill([batch], end))
            ids.append(tf.fill([batch], tf.constant(number, dtype)))
        offset += length + specials
    splits = tf.pad(tf.cumsum(total), [[1, 0]])
    indices = [tf.cast(i, tf.int32) for i in indices]
    combined = tf.RaggedTensor.from_row_splits(tf.dynamic_stitch(indices, values), splits, validate=False)
    return combined, combined.with_values(tf.dynamic_stitch(indices, ids))


def _concat(segments: list[tf.RaggedTensor], start: tf.Tensor | None, end: tf.Tensor | None) -> tuple:
    """Deeper segments: `[start]` and `[end]` (where given) as one-item rows at every level, concatenated
    along axis 1."""
    parts, numbers = [], []
    if start is not None:
        nrows = segments[0].nrows()
        first, last = tf.fill([nrows], start), tf.fill([nrows], end)
        for _ in range(segments[0].ragged_rank):
            first, last = first[:, None], last[:, None]
        parts, numbers = [first], [tf.zeros_like(first)]
    for number, segment in enumerate(segments):
        parts.append(segment)
        numbers.append(tf.ones_like(segment) * number)
        if start is not None:
            parts.append(last)
            numbers.append(tf.ones_like(last) * number)
    return tf.concat(parts, axis=1), tf.concat(numbers, axis=1)


def pad_model_inputs(
    input: tf.Tensor | tf.RaggedTensor,  # noqa: A002 (tensorflow_text's argument name)
    max_seq_length: int | tf.Tensor,
    pad_value: int | tf.Tensor = 0,
) -> tuple[tf.Tensor, tf.Tensor]:
    """Rows cut or padded to `max_seq_length`, and a mask of the real items.

    Args:
      input: a RaggedTensor or Tensor of rank >= 1: [batch, (items), ...] (deeper ragged dimensions are merged
        into the items) or a single row [items].
      max_seq_length: the row length, an int or scalar Tensor.
      pad_value: what fills the padding, an int or scalar Tensor. Defaults to 0.

    Returns:
      `(padded, mask)`: dense [batch, max_seq_length] (or [max_seq_length] for one row) of `input`'s dtype;
      the mask (same dtype) is 1 for an item of `input`, 0 for padding.

    >>> padded, mask = pad_model_inputs(tf.ragged.constant([[101, 5, 102], [101, 102]]), max_seq_length=4)
    >>> padded.numpy().tolist(), mask.numpy().tolist()
    ([[101, 5, 102, 0], [101, 102, 0, 0]], [[1, 1, 1, 0], [1, 1, 0, 0]])
    """
    if not isinstance(input, tf.RaggedTensor):
        input = tf.convert_to_tensor(input)
        if input.shape.rank == 1:
            padded, mask = pad_model_inputs(tf.RaggedTensor.from_tensor(input[None, :]), max_seq_length, pad_value)
            return tf.reshape(padded, [-1]), tf.reshape(mask, [-1])
        if input.shape.rank is None or input.shape.rank < 1:
            raise TypeError(f"input: expected a Tensor or RaggedTensor of rank >= 1, got shape {input.shape}")
        input = tf.RaggedTensor.from_tensor(input)
    if input.ragged_rank > 1:
        input = input.merge_dims(1, -1)
    if isinstance(max_seq_length, int):  # a Python list: no ops to make the shape (an eager op costs more here)
        shape = [None, max_seq_length]
    else:
        shape = tf.stack([tf.constant(-1, tf.int64), tf.cast(max_seq_length, tf.int64)])
    padded = input.to_tensor(default_value=pad_value, shape=shape)
    return padded, tf.ones_like(input).to_tensor(shape=shape)
