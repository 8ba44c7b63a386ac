"""tf_wordpiece.bert.budgets' closed forms against the loops they replace, on random lengths and budgets."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

from tf_wordpiece.bert import budgets


def round_robin_loop(lengths: list[int], budget: int) -> list[int]:
    keep = [0] * len(lengths)
    while sum(keep) < budget and any(k < n for k, n in zip(keep, lengths)):
        for i, n in enumerate(lengths):
            if keep[i] < n and sum(keep) < budget:
                keep[i] += 1
    return keep


def shrink_longest_loop(lengths: list[int], budget: int) -> list[int]:
    keep = list(lengths)
    while sum(keep) > max(budget, 0):
        keep[keep.index(max(keep))] -= 1
    return keep


def waterfall_loop(lengths: list[int], budget: int) -> list[int]:
    keep, left = [], max(budget, 0)
    for n in lengths:
        keep.append(min(n, left))
        left -= keep[-1]
    return keep


@pytest.mark.parametrize("segments", [1, 2, 3, 5])
def test_closed_forms_equal_the_loops(segments):
    rng = np.random.default_rng(segments)
    lengths = rng.integers(0, 40, size=(300, segments))
    lengths[:20] = 7  # ties
    budget = rng.integers(-2, 90, size=300)
    for strategy, loop in (
        (budgets.round_robin, round_robin_loop),
        (budgets.shrink_longest, shrink_longest_loop),
        (budgets.waterfall, waterfall_loop),
    ):
        got = strategy(tf.constant(lengths, tf.int64), tf.constant(budget)).numpy().tolist()
        assert got == [loop(row, int(b)) for row, b in zip(lengths.tolist(), budget)], strategy.__name__
        scalar = strategy(tf.constant(lengths, tf.int64), 25).numpy().tolist()
        assert scalar == [loop(row, 25) for row in lengths.tolist()], strategy.__name__


def test_an_empty_batch():
    assert budgets.round_robin(tf.zeros([0, 2], tf.int64), 5).shape == [0, 2]


@pytest.mark.parametrize("segments", [1, 2, 3, 5])
def test_by_segment_forms_equal_the_loops(segments):
    """The trimmers' form: int32 [segments, batch] in and out (closed form up to 3 segments)."""
    rng = np.random.default_rng(10 + segments)
    lengths = rng.integers(0, 40, size=(300, segments))
    lengths[:20] = 7  # ties
    budget = rng.integers(-2, 90, size=300)
    by_segment = tf.constant(lengths.T, tf.int32)
    for strategy, loop in (
        (budgets.round_robin_by_segment, round_robin_loop),
        (budgets.shrink_longest_by_segment, shrink_longest_loop),
        (budgets.waterfall_by_segment, waterfall_loop),
    ):
        for given, each in ((tf.constant(budget), budget), (25, [25] * 300), (tf.constant(2**40), [2**40] * 300)):
            got = strategy(by_segment, given)
            assert got.dtype == tf.int32, strategy.__name__
            want = [loop(row, int(b)) for row, b in zip(lengths.tolist(), each)]
            assert got.numpy().T.tolist() == want, strategy.__name__
