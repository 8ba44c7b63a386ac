"""Length budgets: how many items each of several segments keeps when a row may hold at most `budget` in all.

Three strategies, as tensorflow_text's trimmers allocate (and BERT's packers trim):

- `waterfall`: the first segment takes what it needs, then the second, and so on.
- `round_robin`: one item from each segment in turn, left to right, until the budget or the items run out.
- `shrink_longest`: drop the last item of the longest segment (the first one of those tied) until the row fits.

Two forms of each: on `lengths` int64 [batch, segments] (results int64 [batch, segments]), and, for the
trimmers, on int32 [segments, batch] (`waterfall_by_segment` ...; results int32 [segments, batch]): one row
per segment, so a segment's lengths and row splits stack and unstack along the first axis, and int32
throughout (TF's int64 compares, minimums and selects cost several times more). `budget` is a scalar or one
per row; a negative one reads as 0.

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

import tensorflow as tf

_FEW = 3  # segments the closed form takes (the sets of the others it needs: none, all, one of two)
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


def waterfall_by_segment(lengths: tf.Tensor, budget: int | tf.Tensor) -> tf.Tensor:
    """`waterfall` on int32 [segments, batch] lengths, int32 [segments, batch].

    >>> waterfall_by_segment(tf.constant([[3], [4], [2]]), 5).numpy().tolist()
    [[3], [2], [0]]
    """
    before = tf.cumsum(lengths, axis=0, exclusive=True)
    return tf.clip_by_value(_int32_budget(budget) - before, 0, lengths)


def round_robin_by_segment(lengths: tf.Tensor, budget: int | tf.Tensor) -> tf.Tensor:
    """`round_robin` on int32 [segments, batch] lengths, int32 [segments, batch].

    >>> round_robin_by_segment(tf.constant([[3, 5], [4, 5]]), 5).numpy().tolist()
    [[3, 3], [2, 2]]
    """
    return _by_segment(lengths, budget, from_end=False)


def shrink_longest_by_segment(lengths: tf.Tensor, budget: int | tf.Tensor) -> tf.Tensor:
    """`shrink_longest` on int32 [segments, batch] lengths, int32 [segments, batch].

    >>> shrink_longest_by_segment(tf.constant([[3], [4], [4]]), 7).numpy().tolist()
    [[2], [2], [3]]
    """
    return _by_segment(lengths, budget, from_end=True)


def _by_segment(lengths: tf.Tensor, budget: int | tf.Tensor, *, from_end: bool) -> tf.Tensor:
    """Round robin (from the last segment `from_end`) on [segments, batch]: the closed form for a few segments."""
    count = lengths.shape[0]
    if count is not None and 1 <= count <= _FEW:
        turns = list(range(count))[::-1] if from_end else list(range(count))
        return _round_robin_few(lengths, _int32_budget(budget), turns)
    keep = _share(tf.cast(tf.transpose(lengths), tf.int64), budget, from_end=from_end)
    return tf.cast(tf.transpose(keep), tf.int32)


def _round_robin_few(lengths: tf.Tensor, budget: tf.Tensor, turns: list[int]) -> tf.Tensor:
    """Round robin in closed form (see the module's doc) on int32 [n, batch], n <= 3, `budget` in [0, 2**30].

    `turns[i]` is segment i's place in each round. Three kinds of sets S of the other segments: none of them
    (a constant for a constant budget), all of them (then the numerator is budget - total + l_i, whatever the
    order), and, for 3 segments, one of them: of those the one with the smallest m_j gives the largest level
    (the floor grows with its numerator). No division but the budget's and shifts.
    """
    count = len(turns)
    after = [[turns[j] > turns[i] for j in range(count)] for i in range(count)]  # after[i][j]: j's turn is later
    later = tf.constant([[sum(row)] for row in after], tf.int32)  # c_i, [n, 1]
    level = _floor_divide(budget + later, count)  # S empty
    if count > 1:  # S all the others
        level = tf.maximum(level, (budget - tf.reduce_sum(lengths, axis=0)) + lengths)
    if count == 3:  # S one of the other two: floor((budget + c_i - min_j m_j) / 2)
        rows = tf.unstack(lengths, count)
        smallest, offsets = [], []
        for i in range(count):
            (j, k) = [j for j in range(count) if j != i]
            low = min(after[i][j], after[i][k])
            smallest.append(tf.minimum(_plus(rows[j], after[i][j] - low), _plus(rows[k], after[i][k] - low)))
            offsets.append([sum(after[i]) - low])
        level = tf.maximum(level, _floor_divide((budget + tf.constant(offsets, tf.int32)) - tf.stack(smallest), 2))
    return tf.minimum(lengths, level)


def _plus(tensor: tf.Tensor, offset: int) -> tf.Tensor:
    """`tensor + offset`, without an op for 0."""
    return tensor + offset if offset else tensor


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
        keep = _by_segment(tf.cast(tf.transpose(lengths), tf.int32), budget, from_end=from_end)
        return tf.cast(tf.transpose(keep), tf.int64)
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
