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
from tf_wordpiece.text.masking import as_ragged, first_n_items, item_counts, positive_axis


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

    _allocate: Callable[[tf.Tensor, tf.Tensor], tf.Tensor]

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


@tf.function(reduce_retracing=True, autograph=False)
def _first_items(segments: tuple[tf.RaggedTensor, ...], budget: tf.Tensor, allocate: Callable, axis: int) -> tuple:
    """Each segment's mask of the items `allocate` lets it keep, the first of each row."""
    keep = allocate(tf.stack([item_counts(s, axis) for s in segments], axis=1), budget)
    return tuple(
        tf.RaggedTensor.from_nested_row_splits(
            first_n_items(s, axis, None, k), s.nested_row_splits[:axis], validate=False
        )
        for s, k in zip(segments, tf.unstack(keep, len(segments), axis=1))
    )


@tf.function(reduce_retracing=True, autograph=False)
def _trim_rows(segments: tuple[tf.RaggedTensor, ...], budget: tf.Tensor, allocate: Callable) -> tuple:
    """[batch, (items)] segments cut to what `allocate` gives each."""
    keep = allocate(tf.stack([item_counts(s, 1) for s in segments], axis=1), budget)
    return tuple(_keep_first(s, k) for s, k in zip(segments, tf.unstack(keep, len(segments), axis=1)))


def _keep_first(segment: tf.RaggedTensor, keep: tf.Tensor) -> tf.RaggedTensor:
    """A [batch, (items)] segment cut to its first `keep` (int64 [batch], at most each row's length) items per row.

    Each row's values split in two pieces, the kept and the dropped ones, and one ragged gather of the kept
    pieces: it copies whole pieces, twice as fast as gathering the kept values one by one.
    """
    splits = tf.cast(segment.row_splits, tf.int64)
    ends = splits[:-1] + keep
    pieces = tf.concat([tf.reshape(tf.stack([splits[:-1], ends], axis=1), [-1]), splits[-1:]], axis=0)
    kept = tf.gather(
        tf.RaggedTensor.from_row_splits(segment.values, pieces, validate=False),
        tf.range(0, 2 * tf.size(keep, out_type=tf.int64), 2),  # the even pieces
    )
    return kept.with_row_splits_dtype(segment.row_splits.dtype)


class WaterfallTrimmer(_BudgetTrimmer):
    """Keeps at most `max_seq_length` items per row: the first segment takes what it needs, then the next, ...

    Args:
      max_seq_length: the budget, an int or int Tensor, scalar or one per batch row.
      axis: the axis whose items are counted. Defaults to -1.

    >>> a, b = tf.ragged.constant([[1, 2, 3], [], [4]]), tf.ragged.constant([[5, 6, 7], [], [8, 9, 10, 11]])
    >>> [t.to_list() for t in WaterfallTrimmer(4).trim([a, b])]
    [[[1, 2, 3], [], [4]], [[5], [], [8, 9, 10]]]
    """

    _allocate = staticmethod(budgets.waterfall)


class RoundRobinTrimmer(_BudgetTrimmer):
    """Keeps at most `max_seq_length` items per row, taking one from each segment in turn.

    Args:
      max_seq_length: the budget, an int or int Tensor, scalar or one per batch row.
      axis: the axis whose items are counted. Defaults to -1.

    >>> a, b = tf.ragged.constant([[1, 2, 3], [4]]), tf.ragged.constant([[5, 6, 7, 8], [9, 10]])
    >>> [t.to_list() for t in RoundRobinTrimmer(3).trim([a, b])]
    [[[1, 2], [4]], [[5], [9, 10]]]
    """

    _allocate = staticmethod(budgets.round_robin)


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

    _allocate = staticmethod(budgets.shrink_longest)
