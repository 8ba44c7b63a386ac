"""Trimmers: tensorflow_text's `trimmer_ops` (Waterfall, RoundRobin, ShrinkLongest) in core TensorFlow ops.

A trimmer takes a list of segments, each a RaggedTensor [batch, (items)] (or [batch, (words), (pieces)]) of
the same batch, and keeps at most `max_seq_length` items per batch row in all, counted at `axis` (-1: the
innermost ids; 1 of a rank-3 input: whole words). How many items each segment keeps comes from
`tf_wordpiece.bert.budgets` (the packer's round-robin trimming is the same function); which ones are the
first of each row (`masking.first_n_items`).

`max_seq_length` may be a scalar or one budget per batch row for all three (tensorflow_text's
RoundRobinTrimmer takes only a scalar). Where tensorflow_text's RoundRobinTrimmer loops on inputs of rank 3,
it can give rows more than the budget when rows differ (a row that ran out of one segment keeps being
served in the loop the other rows need); here every row gets its own round robin, as its rank-2 kernel does.
"""

from __future__ import annotations

import abc
from typing import Callable, Sequence

import tensorflow as tf

from tf_wordpiece.bert import budgets
from tf_wordpiece.text.masking import as_ragged, first_n_items, item_splits, positive_axis


class Trimmer(abc.ABC):
    """Truncates a list of segments by the strategy `generate_mask` defines.

    >>> class KeepNone(Trimmer):
    ...     def generate_mask(self, segments):
    ...         return [tf.ragged.map_flat_values(tf.zeros_like, s, dtype=tf.bool) for s in segments]
    >>> KeepNone().trim([tf.ragged.constant([[1, 2]])])[0].to_list()
    [[]]
    """

    def trim(self, segments: Sequence[tf.RaggedTensor]) -> list[tf.RaggedTensor]:
        """The segments, each RaggedTensor [batch, (items), ...], with the items `generate_mask` drops removed.

        >>> WaterfallTrimmer(2).trim([tf.ragged.constant([[1, 2, 3]]), tf.ragged.constant([[4]])])
        [<tf.RaggedTensor [[1, 2]]>, <tf.RaggedTensor [[]]>]
        """
        segments = _as_segments(segments)
        masks = self.generate_mask(segments)
        return [tf.ragged.boolean_mask(s, m.with_row_splits_dtype(s.row_splits.dtype)) for s, m in zip(segments, masks)]

    @abc.abstractmethod
    def generate_mask(self, segments: Sequence[tf.RaggedTensor]) -> list[tf.RaggedTensor]:
        """One bool RaggedTensor per segment, shaped like it up to the trimmed axis: True keeps the item."""


def _as_segments(segments: Sequence[tf.RaggedTensor]) -> list[tf.RaggedTensor]:
    """The segments as RaggedTensors of one rank, at least one of them."""
    if isinstance(segments, (tf.Tensor, tf.RaggedTensor)) or not len(segments):
        raise ValueError(f"segments: expected a non-empty list of [batch, (items)] RaggedTensors, got {segments!r}")
    segments = [as_ragged(s, name="segments") for s in segments]
    if len({s.ragged_rank for s in segments}) > 1:
        raise ValueError(f"segments: expected one rank for all, got ranks {[s.ragged_rank + 1 for s in segments]}")
    return segments


class _BudgetTrimmer(Trimmer):
    """A trimmer whose segments keep their first items, as many as an allocation of the budget gives each."""

    _allocate: Callable[[Sequence[tf.Tensor], tf.Tensor], list[tf.Tensor]]  # int32 [batch] per segment

    def __init__(self, max_seq_length: int | tf.Tensor, axis: int = -1):
        self._max_seq_length = max_seq_length
        self._axis = axis

    def generate_mask(self, segments: Sequence[tf.RaggedTensor]) -> list[tf.RaggedTensor]:
        """One bool RaggedTensor per segment, shaped `segment.shape[:axis + 1]`: True for the items kept."""
        segments = _as_segments(segments)
        axis = positive_axis(self._axis, segments[0])
        budget = tf.convert_to_tensor(self._max_seq_length)
        return list(_one_graph(_first_items, tuple(segments), budget, type(self)._allocate, axis))

    def trim(self, segments: Sequence[tf.RaggedTensor]) -> list[tf.RaggedTensor]:
        """The segments with each row's first items kept, as many as the budget allows (see `generate_mask`)."""
        segments = _as_segments(segments)
        if segments[0].ragged_rank > 1 or positive_axis(self._axis, segments[0]) != 1:
            return super().trim(segments)
        budget = tf.convert_to_tensor(self._max_seq_length)  # a tensor: one trace for every budget
        return list(_one_graph(_trim_rows, tuple(segments), budget, type(self)._allocate))


def _one_graph(function: tf.types.experimental.PolymorphicFunction, *args: object) -> tuple:
    """`function` as one graph when called eagerly (one dispatch instead of some sixty ops); inside a
    `tf.function` or `tf.data`, its ops go straight into the caller's graph (no nested function call)."""
    return function(*args) if tf.executing_eagerly() else function.python_function(*args)


def _lengths(splits: tf.Tensor) -> tf.Tensor:
    """Row lengths from row splits, int32 [rows] (the allocations compare and take minimums in int32)."""
    return tf.cast(splits[1:] - splits[:-1], tf.int32)


@tf.function(reduce_retracing=True, autograph=False)
def _first_items(segments: tuple[tf.RaggedTensor, ...], budget: tf.Tensor, allocate: Callable, axis: int) -> tuple:
    """Each segment's mask of the items `allocate` lets it keep, the first of each row."""
    lengths = [_lengths(item_splits(s, axis)) for s in segments]
    masks = []
    for segment, length, keep in zip(segments, lengths, allocate(lengths, budget)):
        if axis == segment.ragged_rank:  # the items are the values: none is empty
            flags = _first_of_rows(length, keep)
        else:
            flags = first_n_items(segment, axis, None, keep)
        masks.append(tf.RaggedTensor.from_nested_row_splits(flags, segment.nested_row_splits[:axis], validate=False))
    return tuple(masks)


def _first_of_rows(length: tf.Tensor, keep: tf.Tensor) -> tf.Tensor:
    """bool [sum(length)]: True for the first `keep` (int32 [rows], at most `length`) items of each row.

    One RaggedRange from -keep counts each row's items up; the first `keep` of them are the negative ones.
    """
    return tf.raw_ops.RaggedRange(starts=-keep, limits=length - keep, deltas=1, Tsplits=tf.int32).rt_dense_values < 0


@tf.function(reduce_retracing=True, autograph=False)
def _trim_rows(segments: tuple[tf.RaggedTensor, ...], budget: tf.Tensor, allocate: Callable) -> tuple:
    """[batch, (items)] segments cut to what `allocate` gives each."""
    starts = [s.row_splits[:-1] for s in segments]
    lengths = [tf.cast(s.row_splits[1:] - start, tf.int32) for s, start in zip(segments, starts)]
    kept_pieces = tf.range(0, 2 * tf.size(starts[0], out_type=tf.int64), 2)  # one for all: the batch is shared
    return tuple(
        _keep_first(s, start, k, kept_pieces) for s, start, k in zip(segments, starts, allocate(lengths, budget))
    )


def _keep_first(
    segment: tf.RaggedTensor, starts: tf.Tensor, keep: tf.Tensor, kept_pieces: tf.Tensor
) -> tf.RaggedTensor:
    """A [batch, (items)] segment cut to its first `keep` (int32 [batch], at most each row's length) items per row.

    Each row's values split in two pieces, the kept and the dropped ones, and one ragged gather of the kept
    pieces (`kept_pieces`, the even ones): it copies whole pieces, twice as fast as gathering the kept values
    one by one.
    """
    splits = segment.row_splits
    ends = starts + tf.cast(keep, splits.dtype)
    pieces = tf.concat([tf.reshape(tf.stack([starts, ends], axis=1), [-1]), splits[-1:]], axis=0)
    kept = tf.raw_ops.RaggedGather(
        params_nested_splits=[pieces], params_dense_values=segment.values, indices=kept_pieces, OUTPUT_RAGGED_RANK=1
    )
    return tf.RaggedTensor.from_row_splits(kept.output_dense_values, kept.output_nested_splits[0], validate=False)


class WaterfallTrimmer(_BudgetTrimmer):
    """Keeps at most `max_seq_length` items per row: the first segment takes what it needs, then the next, ...

    Args:
      max_seq_length: the budget, an int or int Tensor, scalar or one per batch row.
      axis: the axis whose items are counted. Defaults to -1.

    >>> a, b = tf.ragged.constant([[1, 2, 3], [], [4]]), tf.ragged.constant([[5, 6, 7], [], [8, 9, 10, 11]])
    >>> [t.to_list() for t in WaterfallTrimmer(4).trim([a, b])]
    [[[1, 2, 3], [], [4]], [[5], [], [8, 9, 10]]]
    """

    _allocate = staticmethod(budgets.waterfall_list)


class RoundRobinTrimmer(_BudgetTrimmer):
    """Keeps at most `max_seq_length` items per row, taking one from each segment in turn.

    Args:
      max_seq_length: the budget, an int or int Tensor, scalar or one per batch row.
      axis: the axis whose items are counted. Defaults to -1.

    >>> a, b = tf.ragged.constant([[1, 2, 3], [4]]), tf.ragged.constant([[5, 6, 7, 8], [9, 10]])
    >>> [t.to_list() for t in RoundRobinTrimmer(3).trim([a, b])]
    [[[1, 2], [4]], [[5], [9, 10]]]
    """

    _allocate = staticmethod(budgets.round_robin_list)


class ShrinkLongestTrimmer(_BudgetTrimmer):
    """Keeps at most `max_seq_length` items per row by dropping the last item of the longest segment (the first
    of those tied), again and again.

    Args:
      max_seq_length: the budget, an int or int Tensor, scalar or one per batch row.
      axis: the axis whose items are counted. Defaults to -1.

    >>> segments = [tf.ragged.constant([[1, 2, 3]]), tf.ragged.constant([[4, 5, 6, 7]]), tf.ragged.constant([[8, 9]])]
    >>> [t.to_list() for t in ShrinkLongestTrimmer(7).trim(segments)]
    [[[1, 2]], [[4, 5, 6]], [[8, 9]]]
    """

    _allocate = staticmethod(budgets.shrink_longest_list)
