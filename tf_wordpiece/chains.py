"""Following chains of jumps in the graph by pointer doubling (greedy longest match's last step).

Given where each position jumps to (the end of its longest match), the
positions on the chain from each start are found in log2(longest chain)
rounds of whole-tensor ops, not one loop step per piece.

>>> follow(tf.constant([2, 2, 3, 5, 5]), tf.constant([0, 3]), tf.constant(5), tf.constant(3)).numpy().tolist()
[True, False, True, True, False]
"""

from __future__ import annotations

import tensorflow as tf


def follow(jump: tf.Tensor, starts: tf.Tensor, size: tf.Tensor, longest: tf.Tensor) -> tf.Tensor:
    """bool [size]: positions on the chain start -> jump[start] -> ... of each segment.

    A segment's end is the next one's start (or `size`, a node that jumps to
    itself), so chains never cross. Pointer doubling: log2(longest) rounds.
    """
    jump = tf.concat([jump, [size]], 0)
    # 1 on a chain, as int32: a round is a segment max and a maximum (bool marks take a cast and a comparison more).
    reached = tf.scatter_nd(starts[:, None], tf.ones_like(starts, tf.int32), [size + 1])

    def double(reached, jump):
        return [tf.maximum(reached, tf.math.unsorted_segment_max(reached, jump, size + 1)), tf.gather(jump, jump)]

    reached, _ = tf.while_loop(lambda r, j: True, double, [reached, jump], maximum_iterations=rounds_for(longest))
    return reached[:-1] > 0


def rounds_for(longest: tf.Tensor) -> tf.Tensor:
    """int32 scalar: the doubling rounds that reach `longest` jumps (its bit length; r rounds reach 2**r - 1).

    >>> [int(rounds_for(tf.constant(n))) for n in (0, 1, 2, 3, 4, 7, 8, 100)]
    [0, 1, 2, 2, 3, 3, 4, 7]
    """
    powers = tf.constant([1 << i for i in range(62)], tf.int64)
    return tf.reduce_sum(tf.cast(tf.cast(longest, tf.int64) >= powers, tf.int32))
