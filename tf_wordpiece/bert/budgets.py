"""Length budgets: how many items each of several segments keeps when a row may hold at most `budget` in all.

Three strategies, as tensorflow_text's trimmers allocate (and BERT's packers trim):

- `waterfall`: the first segment takes what it needs, then the second, and so on.
- `round_robin`: one item from each segment in turn, left to right, until the budget or the items run out.
- `shrink_longest`: drop the last item of the longest segment (the first one of those tied) until the row fits.

Round robin and shrink-longest end at the same fair level L (the largest with sum(min(length, L)) <= budget);
they differ only in who gets the items left over: the first segments longer than L, or the last ones. So L is
found once, in closed form (all pairs of segments, no loop), and both strategies are a few element-wise ops on it.

Shapes: `lengths` int64 [batch, segments]; `budget` a scalar or [batch]; results int64 [batch, segments].
"""

from __future__ import annotations

import tensorflow as tf


def row_budget(budget: int | tf.Tensor, batch: tf.Tensor) -> tf.Tensor:
    """`budget` (a scalar, or one per row) as int64 [batch, 1], negative ones read as 0.

    >>> row_budget(3, tf.constant(2, tf.int64)).numpy().tolist(), row_budget([4, -1], 2).numpy().tolist()
    ([[3], [3]], [[4], [0]])
    """
    budget = tf.cast(budget, tf.int64)
    return tf.maximum(tf.broadcast_to(tf.reshape(budget, [-1]), tf.reshape(tf.cast(batch, tf.int64), [1])), 0)[:, None]


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

    In int32 (TF's int64 compares, minimums and selects cost several times more), with the budget cut to the
    row's total: a budget past it keeps everything anyway.
    """
    budget = row_budget(budget, tf.shape(lengths, out_type=tf.int64)[0])
    budget = tf.cast(tf.minimum(budget, tf.reduce_sum(lengths, axis=1, keepdims=True)), tf.int32)
    lengths = tf.cast(lengths, tf.int32)
    if lengths.shape[1] == 2:  # the common case (a pair of texts): no sort, cumsum or gather
        return tf.cast(_share_two(lengths, budget, from_end=from_end), tf.int64)
    keep = tf.minimum(lengths, _fair_level(lengths, budget))
    left = budget - tf.reduce_sum(keep, axis=1, keepdims=True)
    longer = lengths > keep
    rank = tf.cumsum(tf.cast(longer, tf.int32), axis=1, exclusive=True, reverse=from_end)
    return tf.cast(keep + tf.cast(longer & (rank < left), tf.int32), tf.int64)


def _share_two(lengths: tf.Tensor, budget: tf.Tensor, *, from_end: bool) -> tf.Tensor:
    """`_share` of two segments: each keeps min(its length, max(what the other leaves, its half of the budget)).

    Its half is ceil(budget / 2) for the segment that gets the odd item (the first, or the last `from_end`) and
    floor(budget / 2) for the other; a segment shorter than its half leaves the rest to the other one.
    """
    odd = tf.constant([[0, 1]] if from_end else [[1, 0]], lengths.dtype)
    return tf.minimum(lengths, tf.maximum(budget - tf.reverse(lengths, [1]), (budget + odd) // 2))


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
