"""Trimmers: tensorflow_text's `trimmer_ops` (Waterfall, RoundRobin, ShrinkLongest) in core TensorFlow ops.

A trimmer takes a list of segments, each a RaggedTensor [batch, (items)] (or [batch, (words), (pieces)]) of
the same batch, and keeps at most `max_seq_length` items per batch row in all, counted at `axis` (-1: the
innermost ids, of each segment's own rank; 1 of a rank-3 input: whole words). How many items each segment
keeps comes from `tf_wordpiece.bert.budgets` (the packer's round-robin trimming is the same closed form), on int32
[segments, batch] lengths: the segments' row splits stack into one tensor, so the lengths, the budget and
the cut are a few ops for all segments. The items kept are the first of each row: one RaggedGather of whole
pieces per segment for `trim`, one RaggedRange per segment for `generate_mask` (`masking.first_n_items`
where the items are words of pieces). Counts are int32: up to 2**30 items per row in all.

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
from tf_wordpiece.text.masking import as_ragged, first_n_items, first_of_rows, item_splits, positive_axis


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
    """The segments as RaggedTensors, at least one of them (their ranks may differ: each counts its own items)."""
    if isinstance(segments, (tf.Tensor, tf.RaggedTensor)) or not len(segments):
        raise ValueError(f"segments: expected a non-empty list of [batch, (items)] RaggedTensors, got {segments!r}")
    return [as_ragged(s, name="segments") for s in segments]


class _BudgetTrimmer(Trimmer):
    """A trimmer whose segments keep their first items, as many as an allocation of the budget gives each."""

    _allocate: Callable[[tf.Tensor, tf.Tensor], tf.Tensor]  # int32 [segments, batch] lengths -> kept

    def __init__(self, max_seq_length: int | tf.Tensor, axis: int = -1):
        self._max_seq_length = max_seq_length
        self._axis = axis

    def generate_mask(self, segments: Sequence[tf.RaggedTensor]) -> list[tf.RaggedTensor]:
        """One bool RaggedTensor per segment, shaped `segment.shape[:axis + 1]`: True for the items kept."""
        segments = _as_segments(segments)
        axes = tuple(positive_axis(self._axis, s) for s in segments)  # -1: each segment's innermost ids
        budget = tf.convert_to_tensor(self._max_seq_length)
        return list(_one_graph(_first_items, tuple(segments), budget, type(self)._allocate, axes))

    def trim(self, segments: Sequence[tf.RaggedTensor]) -> list[tf.RaggedTensor]:
        """The segments with each row's first items kept, as many as the budget allows (see `generate_mask`)."""
        segments = _as_segments(segments)
        if any(s.ragged_rank > 1 for s in segments) or positive_axis(self._axis, segments[0]) != 1:
            return super().trim(segments)
        budget = tf.convert_to_tensor(self._max_seq_length)  # a tensor: one trace for every budget
        return list(_one_graph(_trim_rows, tuple(segments), budget, type(self)._allocate))


def _one_graph(function: tf.types.experimental.PolymorphicFunction, *args: object) -> tuple:
    """`function` as one graph when called eagerly (one dispatch instead of one per op); inside a
    `tf.function` or `tf.data`, its ops go straight into the caller's graph (no nested function call)."""
    return function(*args) if tf.executing_eagerly() else function.python_function(*args)


def _stacked_splits(splits: list[tf.Tensor]) -> tf.Tensor:
    """The segments' row splits as one [segments, batch + 1] tensor (int64 where their dtypes differ): the
    lengths, budgets and pieces of all segments are then a few ops, not a few per segment."""
    if len({s.dtype for s in splits}) > 1:
        splits = [tf.cast(s, tf.int64) for s in splits]
    return tf.stack(splits)


@tf.function(reduce_retracing=True, autograph=False)
def _first_items(segments: tuple[tf.RaggedTensor, ...], budget: tf.Tensor, allocate: Callable, axes: tuple) -> tuple:
    """Each segment's mask of the items (at its axis in `axes`) `allocate` lets it keep, the first of each row."""
    splits = _stacked_splits([item_splits(s, axis) for s, axis in zip(segments, axes)])
    lengths = tf.cast(splits[:, 1:] - splits[:, :-1], tf.int32)
    keep, count = allocate(lengths, budget), len(segments)
    flags = []
    for segment, axis, n, k in zip(segments, axes, tf.unstack(lengths, count), tf.unstack(keep, count)):
        if axis == segment.ragged_rank:  # the items are the values (none is empty): one RaggedRange; for all
            # segments at once, one over all and a split to each cost a third more at 1000 rows
            flags.append(first_of_rows(n, k))
        else:
            flags.append(first_n_items(segment, axis, None, k))
    return tuple(
        tf.RaggedTensor.from_nested_row_splits(f, s.nested_row_splits[:axis], validate=False)
        for s, axis, f in zip(segments, axes, flags)
    )


@tf.function(reduce_retracing=True, autograph=False)
def _trim_rows(segments: tuple[tf.RaggedTensor, ...], budget: tf.Tensor, allocate: Callable) -> tuple:
    """[batch, (items)] segments cut to their first items, as many as `allocate` gives each.

    Each row's values split in two pieces, the kept and the dropped ones (row splits s_0, e_0, s_1, e_1, ...,
    s_batch), and one ragged gather of the kept pieces, the even ones: it copies whole pieces, twice as fast
    as gathering the kept values one by one.
    """
    splits = _stacked_splits([s.row_splits for s in segments])
    starts = splits[:, :-1]
    ends = starts + tf.cast(allocate(tf.cast(splits[:, 1:] - starts, tf.int32), budget), splits.dtype)
    pieces = tf.concat([tf.reshape(tf.stack([starts, ends], axis=2), [len(segments), -1]), splits[:, -1:]], axis=1)
    kept = tf.range(0, 2 * tf.shape(starts, out_type=splits.dtype)[1], 2)
    return tuple(_gather(s, p, kept) for s, p in zip(segments, tf.unstack(pieces, len(segments))))


def _gather(segment: tf.RaggedTensor, pieces: tf.Tensor, kept: tf.Tensor) -> tf.RaggedTensor:
    """The pieces `kept` of the segment's values, split at `pieces`: a RaggedTensor [batch, (items)] with the
    segment's row-splits dtype."""
    gathered = tf.raw_ops.RaggedGather(
        params_nested_splits=[pieces], params_dense_values=segment.values, indices=kept, OUTPUT_RAGGED_RANK=1
    )
    splits = tf.cast(gathered.output_nested_splits[0], segment.row_splits.dtype)
    return tf.RaggedTensor.from_row_splits(gathered.output_dense_values, splits, validate=False)


class WaterfallTrimmer(_BudgetTrimmer):
    """Keeps at most `max_seq_length` items per row: the first segment takes what it needs, then the next, ...

    Args:
      max_seq_length: the budget, an int or int Tensor, scalar or one per batch row.
      axis: the axis whose items are counted. Defaults to -1.

    >>> a, b = tf.ragged.constant([[1, 2, 3], [], [4]]), tf.ragged.constant([[5, 6, 7], [], [8, 9, 10, 11]])
    >>> [t.to_list() for t in WaterfallTrimmer(4).trim([a, b])]
    [[[1, 2, 3], [], [4]], [[5], [], [8, 9, 10]]]
    """

    _allocate = staticmethod(budgets.waterfall_by_segment)


class RoundRobinTrimmer(_BudgetTrimmer):
    """Keeps at most `max_seq_length` items per row, taking one from each segment in turn.

    Args:
      max_seq_length: the budget, an int or int Tensor, scalar or one per batch row.
      axis: the axis whose items are counted. Defaults to -1.

    >>> a, b = tf.ragged.constant([[1, 2, 3], [4]]), tf.ragged.constant([[5, 6, 7, 8], [9, 10]])
    >>> [t.to_list() for t in RoundRobinTrimmer(3).trim([a, b])]
    [[[1, 2], [4]], [[5], [9, 10]]]
    """

    _allocate = staticmethod(budgets.round_robin_by_segment)


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

    _allocate = staticmethod(budgets.shrink_longest_by_segment)
