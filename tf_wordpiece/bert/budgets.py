"""Length budgets: how many items each of several segments keeps when a row may hold at most `budget` in all.

Three strategies, as tensorflow_text's trimmers allocate (and BERT's packers trim):

- `waterfall`: the first segment takes what it needs, then the second, and so on.
- `round_robin`: one item from each segment in turn, left to right, until the budget or the items run out.
- `shrink_longest`: drop the last item of the longest segment (the first one of those tied) until the row fits.

Two forms of each: on a matrix (`lengths` int64 [batch, segments], results int64 [batch, segments]) and on a
list (`waterfall_list` ...: one int32 [batch] tensor per segment in, one per segment out), which the trimmers
use: no stack or unstack, and int32 throughout (TF's int64 compares, minimums and selects cost several times
more). `budget` is a scalar or one per row; a negative one reads as 0.

Round robin in closed form, for up to `_FEW` segments: segment i gets its t-th item when the items handed out
before it, t - 1 of each segment before i and of each after it (or all it has, if fewer) plus one of each
segment before it that has t, leave room: t + sum_{j<i} min(l_j, t) + sum_{j>i} min(l_j, t - 1) <= budget.
With m_j = l_j + [j > i] and c = #{j > i} that reads t + sum_{j != i} min(m_j, t) <= budget + c, and as each
min is the smaller of its two terms, the largest such t is the largest over the sets S of the other segments
of floor((budget + c - sum_{j in S} m_j) / (n - |S|)). Shrink-longest is round robin from the last segment
(the leftover items go to the last segments longer than the fair level). For more segments, the fair level L
(the largest with sum(min(length, L)) <= budget) over all pairs of segments, then the leftovers.
"""

from __future__ import annotations

import itertools
from typing import Sequence

import tensorflow as tf

_FEW = 3  # segments the closed form takes: 2 ** (n - 1) sets of the others per segment
_MOST = 2**30  # budgets cut to this: no row that int32 lengths count holds more (their sums stay in int32)


def row_budget(budget: int | tf.Tensor, batch: tf.Tensor) -> tf.Tensor:
    """`budget` (a scalar, or one per row) as int64 [batch, 1], negative ones read as 0.

    >>> row_budget(3, tf.constant(2, tf.int64)).numpy().tolist(), row_budget([4, -1], 2).numpy().tolist()
    ([[3], [3]], [[4], [0]])
    """
    budget = tf.cast(budget, tf.int64)
    return tf.maximum(tf.broadcast_to(tf.reshape(budget, [-1]), tf.reshape(tf.cast(batch, tf.int64), [1])), 0)[:, None]


def _int32_budget(budget: int | tf.Tensor) -> tf.Tensor:
    """`budget` as int32, a scalar or [batch] (scalars stay scalars: no broadcast), within [0, 2**30]."""
    budget = tf.convert_to_tensor(budget)
    if budget.shape.rank != 0:
        budget = tf.reshape(budget, [-1])
    return tf.cast(tf.clip_by_value(budget, tf.cast(0, budget.dtype), tf.cast(_MOST, budget.dtype)), tf.int32)


def waterfall_list(lengths: Sequence[tf.Tensor], budget: int | tf.Tensor) -> list[tf.Tensor]:
    """`waterfall` on a list: int32 [batch] per segment in and out.

    >>> [k.numpy().tolist() for k in waterfall_list([tf.constant([3]), tf.constant([4]), tf.constant([2])], 5)]
    [[3], [2], [0]]
    """
    keep, left = [], _int32_budget(budget)
    for length in lengths:
        keep.append(tf.minimum(length, left))
        left -= keep[-1]
    return keep


def round_robin_list(lengths: Sequence[tf.Tensor], budget: int | tf.Tensor) -> list[tf.Tensor]:
    """`round_robin` on a list: int32 [batch] per segment in and out.

    >>> [k.numpy().tolist() for k in round_robin_list([tf.constant([3, 5]), tf.constant([4, 5])], 5)]
    [[3, 3], [2, 2]]
    """
    if len(lengths) > _FEW:
        keep = _share(tf.cast(tf.stack(lengths, axis=1), tf.int64), budget, from_end=False)
        return [tf.cast(k, tf.int32) for k in tf.unstack(keep, len(lengths), axis=1)]
    return _round_robin_few(list(lengths), _int32_budget(budget))


def shrink_longest_list(lengths: Sequence[tf.Tensor], budget: int | tf.Tensor) -> list[tf.Tensor]:
    """`shrink_longest` on a list: int32 [batch] per segment in and out (round robin from the last segment).

    >>> [k.numpy().tolist() for k in shrink_longest_list([tf.constant([3]), tf.constant([4]), tf.constant([4])], 7)]
    [[2], [2], [3]]
    """
    if len(lengths) > _FEW:
        keep = _share(tf.cast(tf.stack(lengths, axis=1), tf.int64), budget, from_end=True)
        return [tf.cast(k, tf.int32) for k in tf.unstack(keep, len(lengths), axis=1)]
    return _round_robin_few(list(lengths)[::-1], _int32_budget(budget))[::-1]


def _round_robin_few(lengths: list[tf.Tensor], budget: tf.Tensor) -> list[tf.Tensor]:
    """Round robin in closed form (see the module's doc): int32 [batch] per segment, `budget` in [0, 2**30].

    Of the sets S of one size, only the one with the smallest sum of m_j can give the largest level (the floor
    grows with its numerator), so the sets of a size are taken together, a group per count of segments after
    i in them (the count is a constant of the numerator): for 3 segments, 8 to 10 ops each, no division but
    by the scalar budget's.
    """
    count = len(lengths)
    keep = []
    for i, length in enumerate(lengths):
        others = [j for j in range(count) if j != i]
        level = _floor_divide(_plus(budget, count - 1 - i), count)  # S empty: a scalar for a scalar budget
        for size in range(1, count):
            for after, smallest in _smallest_sums(lengths, others, size, i).items():
                numerator = _plus(budget, count - 1 - i - after) - smallest
                level = tf.maximum(level, _floor_divide(numerator, count - size))
        keep.append(tf.minimum(length, level))
    return keep


def _smallest_sums(lengths: list[tf.Tensor], others: list[int], size: int, i: int) -> dict[int, tf.Tensor]:
    """For each count of segments after `i`: the smallest sum of the lengths of `size` of `others` with that count."""
    smallest: dict[int, tf.Tensor] = {}
    for subset in itertools.combinations(others, size):
        total = lengths[subset[0]]
        for j in subset[1:]:
            total += lengths[j]
        after = sum(j > i for j in subset)
        smallest[after] = tf.minimum(smallest[after], total) if after in smallest else total
    return smallest


def _plus(budget: tf.Tensor, offset: int) -> tf.Tensor:
    """`budget + offset`, without an op for 0."""
    return budget + offset if offset else budget


def _floor_divide(numerator: tf.Tensor, divisor: int) -> tf.Tensor:
    """floor(numerator / divisor) for int32: a shift for a power of two (arithmetic, so it floors negatives too)."""
    if divisor == 1:
        return numerator
    if divisor & (divisor - 1) == 0:
        return tf.bitwise.right_shift(numerator, divisor.bit_length() - 1)
    return numerator // divisor


def waterfall(lengths: tf.Tensor, budget: int | tf.Tensor) -> tf.Tensor:
    """Each segment in order keeps what is left of the budget after the segments before it, int64 [batch, segments].

    >>> waterfall(tf.constant([[3, 4, 2]], tf.int64), 5).numpy().tolist()
    [[3, 2, 0]]
    """
    budget = row_budget(budget, tf.shape(lengths, out_type=tf.int64)[0])
    before = tf.cumsum(lengths, axis=1, exclusive=True)
    return tf.clip_by_value(budget - before, 0, lengths)


def _fair_level(lengths: tf.Tensor, budget: tf.Tensor) -> tf.Tensor:
    """The largest level L with sum(min(lengths, L)) <= budget, int64 [batch, 1] (at least the longest if all fit).

    The cost of a level, f(l) = sum(min(lengths, l)), grows with l, by k for each step past the longest length s
    whose cost fits (0 if none), k the number of segments longer than s: L = s + (budget - f(s)) // k. All pairs
    of segments at once ([batch, n, n]; segments are few): no sort, cumsum or gather.
    """
    cost = tf.reduce_sum(tf.minimum(lengths[:, :, None], lengths[:, None, :]), axis=2)  # f(each length)
    floor = tf.reduce_max(tf.where(cost <= budget, lengths, 0), axis=1, keepdims=True)  # s
    longer = tf.reduce_sum(tf.cast(lengths > floor, lengths.dtype), axis=1, keepdims=True)  # k
    return floor + (budget - tf.reduce_sum(tf.minimum(lengths, floor), axis=1, keepdims=True)) // tf.maximum(longer, 1)


def _share(lengths: tf.Tensor, budget: int | tf.Tensor, *, from_end: bool) -> tf.Tensor:
    """The fair level for every segment, then one more item each to the first (or last) segments still longer.

    Up to `_FEW` segments, the closed form on their columns; in int32 (TF's int64 compares, minimums and selects
    cost several times more), with the budget cut to the row's total: a budget past it keeps everything anyway.
    """
    count = lengths.shape[1]
    if count is not None and 1 <= count <= _FEW:
        columns = [tf.cast(c, tf.int32) for c in tf.unstack(lengths, count, axis=1)]
        keep = (shrink_longest_list if from_end else round_robin_list)(columns, budget)
        return tf.cast(tf.stack(keep, axis=1), tf.int64)
    budget = row_budget(budget, tf.shape(lengths, out_type=tf.int64)[0])
    budget = tf.cast(tf.minimum(budget, tf.reduce_sum(lengths, axis=1, keepdims=True)), tf.int32)
    lengths = tf.cast(lengths, tf.int32)
    keep = tf.minimum(lengths, _fair_level(lengths, budget))
    left = budget - tf.reduce_sum(keep, axis=1, keepdims=True)
    longer = lengths > keep
    rank = tf.cumsum(tf.cast(longer, tf.int32), axis=1, exclusive=True, reverse=from_end)
    return tf.cast(keep + tf.cast(longer & (rank < left), tf.int32), tf.int64)


def round_robin(lengths: tf.Tensor, budget: int | tf.Tensor) -> tf.Tensor:
    """One item from each segment in turn, int64 [batch, segments] (tensorflow_text's RoundRobinTrimmer).

    >>> round_robin(tf.constant([[3, 4, 2], [5, 5, 5]], tf.int64), 5).numpy().tolist()
    [[2, 2, 1], [2, 2, 1]]
    """
    return _share(lengths, budget, from_end=False)


def shrink_longest(lengths: tf.Tensor, budget: int | tf.Tensor) -> tf.Tensor:
    """The longest segment (the first of those tied) loses its last item until the row fits, int64 [batch, segments].

    >>> shrink_longest(tf.constant([[3, 4, 4]], tf.int64), 7).numpy().tolist()  # 3,3,4 / 3,3,3 / 2,3,3 / 2,2,3
    [[2, 2, 3]]
    """
    return _share(lengths, budget, from_end=True)
