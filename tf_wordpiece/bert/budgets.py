"""Length budgets: how many items each of several segments keeps when a row may hold at most `budget` in all.

Three strategies, as tensorflow_text's trimmers allocate (and BERT's packers trim):

- `waterfall`: the first segment takes what it needs, then the second, and so on.
- `round_robin`: one item from each segment in turn, left to right, until the budget or the items run out.
- `shrink_longest`: drop the last item of the longest segment (the first one of those tied) until the row fits.

Round robin and shrink-longest end at the same fair level L (the largest with sum(min(length, L)) <= budget);
they differ only in who gets the items left over: the first segments longer than L, or the last ones. So L is
found once, in closed form (sort the lengths, no loop), and both strategies are a few element-wise ops on it.

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
    """The largest level L with sum(min(lengths, L)) <= budget, int64 [batch, 1] (the longest length if all fit).

    With the lengths sorted, s_1 <= ... <= s_n, the cost of level s_j is f(s_j) = s_1 + ... + s_j + (n - j) s_j,
    which grows with j; if the first m fit, L lies between s_m and s_(m+1): (budget - (s_1 + ... + s_m)) // (n - m).
    """
    count = tf.shape(lengths, out_type=tf.int64)[1]
    ascending = tf.sort(lengths, axis=1)
    shorter = tf.cumsum(ascending, axis=1, exclusive=True)  # s_1 + ... + s_(j-1)
    cost = shorter + ascending * (count - tf.range(count))[None, :]  # f(s_j)
    fitting = tf.reduce_sum(tf.cast(cost <= budget, tf.int64), axis=1, keepdims=True)  # m
    all_fit = fitting == count
    spent = tf.gather(tf.pad(shorter, [[0, 0], [0, 1]]), tf.minimum(fitting, count), batch_dims=1)
    level = (budget - spent) // tf.maximum(count - fitting, 1)
    return tf.where(all_fit, ascending[:, -1:], level)


def _share(lengths: tf.Tensor, budget: int | tf.Tensor, *, from_end: bool) -> tf.Tensor:
    """The fair level for every segment, then one more item each to the first (or last) segments still longer."""
    budget = row_budget(budget, tf.shape(lengths, out_type=tf.int64)[0])
    if lengths.shape[1] == 2:  # the common case (a pair of texts): no sort, cumsum or gather
        return _share_two(lengths, budget, from_end=from_end)
    keep = tf.minimum(lengths, _fair_level(lengths, budget))
    left = budget - tf.reduce_sum(keep, axis=1, keepdims=True)
    longer = lengths > keep
    rank = tf.cumsum(tf.cast(longer, tf.int64), axis=1, exclusive=True, reverse=from_end)
    return keep + tf.cast(longer & (rank < left), tf.int64)


def _share_two(lengths: tf.Tensor, budget: tf.Tensor, *, from_end: bool) -> tf.Tensor:
    """`_share` of two segments: each keeps min(its length, max(what the other leaves, its half of the budget)).

    Its half is ceil(budget / 2) for the segment that gets the odd item (the first, or the last `from_end`) and
    floor(budget / 2) for the other; a segment shorter than its half leaves the rest to the other one.
    """
    odd = tf.constant([[0, 1]] if from_end else [[1, 0]], tf.int64)
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
