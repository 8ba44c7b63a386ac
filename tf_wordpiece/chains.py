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
    reached = tf.scatter_nd(starts[:, None], tf.ones_like(starts), [size + 1]) > 0

    def double(reached, jump):
        hops = tf.math.unsorted_segment_max(tf.cast(reached, tf.int32), jump, size + 1) > 0
        return [reached | hops, tf.gather(jump, jump)]

    rounds = tf.cast(tf.math.ceil(tf.math.log(tf.cast(longest, tf.float32) + 1.0) / tf.math.log(2.0)), tf.int32)
    reached, _ = tf.while_loop(lambda r, j: True, double, [reached, jump], maximum_iterations=rounds + 1)
    return reached[:-1]
