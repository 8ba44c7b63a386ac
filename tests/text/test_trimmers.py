"""tf_wordpiece.text.trimmers against tensorflow_text's trimmers: small tables, the real ids, rank 2 and 3."""

from __future__ import annotations

import pytest
import tensorflow as tf

from helpers.text_ops import same, shifted
from tf_wordpiece.text import trimmers

tf_text = pytest.importorskip("tensorflow_text")

NAMES = ("WaterfallTrimmer", "RoundRobinTrimmer", "ShrinkLongestTrimmer")
ROWS = [[[1, 2, 3], [4], [5, 6, 7, 8, 9], [], [1]], [[1, 2], [4, 5, 6, 7, 8], [5, 6, 7, 8, 9], [3], []]]
ROWS += [[[7], [], [1, 2, 3, 4, 5, 6], [1, 2], []]]


def both(name: str, *args, **kwargs):
    return getattr(trimmers, name)(*args, **kwargs), getattr(tf_text, name)(*args, **kwargs)


@pytest.mark.parametrize("name", NAMES)
def test_small_table(name):
    for dtype, count, budget in [
        (tf.int32, 1, 2),
        (tf.int64, 2, 0),
        (tf.int32, 3, 4),
        (tf.int64, 3, 7),
        (tf.int64, 3, 30),
    ]:
        segments = [tf.ragged.constant(rows, dtype) for rows in ROWS[:count]]
        ours, theirs = both(name, budget)
        assert same(ours.trim(segments), theirs.trim(segments)), (budget, count)
        assert same(ours.generate_mask(segments), theirs.generate_mask(segments)), (budget, count)


@pytest.mark.parametrize("name", NAMES)
def test_real_ids_rank_2(name, tokens):
    for count, budget in [(1, 9), (2, 128), (3, 64), (4, 90)]:  # 4: past the closed form (the fair level)
        segments = shifted(tokens, count)
        ours, theirs = both(name, budget)
        assert same(ours.trim(segments), theirs.trim(segments)), (count, budget)


@pytest.mark.parametrize("axis", [-1, 1])
@pytest.mark.parametrize("name", ["WaterfallTrimmer", "ShrinkLongestTrimmer"])
def test_real_ids_rank_3(name, axis, word_pieces):
    segments = shifted(word_pieces[:12], 3)
    for budget in (5, 40) if axis == 1 else (60,):
        ours, theirs = both(name, budget, axis=axis)
        assert same(ours.trim(segments), theirs.trim(segments)), budget
        assert same(ours.generate_mask(segments), theirs.generate_mask(segments)), budget


@pytest.mark.parametrize("axis", [-1, 1])
def test_round_robin_rank_3_is_tensorflow_texts_row_by_row(axis, word_pieces):
    """tensorflow_text's rank-3 loop is right for a batch of one row; ours is right for every row at once."""
    segments = shifted(word_pieces[:5], 2)
    ours = trimmers.RoundRobinTrimmer(12, axis=axis).trim(segments)
    for row in range(5):
        theirs = tf_text.RoundRobinTrimmer(12, axis=axis).trim([s[row : row + 1] for s in segments])
        assert [t[row : row + 1].to_list() for t in ours] == [t.to_list() for t in theirs], row
    kept = sum(tf.reduce_sum(t.row_lengths(axis=2), axis=1) if axis == -1 else t.row_lengths() for t in ours)
    assert int(tf.reduce_max(kept)) <= 12


def test_round_robin_rank_3_keeps_the_budget_where_tensorflow_text_does_not():
    a, b = tf.ragged.constant([[[1]], [[1, 2, 3, 4, 5]]]), tf.ragged.constant([[[1, 2, 3, 4, 5]], [[1, 2, 3, 4, 5]]])
    ours = trimmers.RoundRobinTrimmer(4).trim([a, b])
    theirs = tf_text.RoundRobinTrimmer(4).trim([a, b])
    assert [t.flat_values.shape[0] for t in ours] == [3, 5]  # row 0: 1 + 3; row 1: 2 + 2
    assert [t.flat_values.shape[0] for t in theirs] == [4, 6]  # row 1 kept 3 + 3 of a budget of 4


@pytest.mark.parametrize("name", ["WaterfallTrimmer", "ShrinkLongestTrimmer"])
def test_per_row_budget(name, tokens):
    segments = shifted(tokens[:50], 2)
    budget = tf.range(50) % 17
    ours, theirs = both(name, budget)
    assert same(ours.trim(segments), theirs.trim(segments))


def test_round_robin_per_row_budget_is_each_row_alone(tokens):
    segments = shifted(tokens[:8], 3)
    budget = tf.range(8) * 3
    ours = trimmers.RoundRobinTrimmer(budget).trim(segments)
    for row in range(8):
        alone = tf_text.RoundRobinTrimmer(row * 3).trim([s[row : row + 1] for s in segments])
        assert [t[row : row + 1].to_list() for t in ours] == [t.to_list() for t in alone]


@pytest.mark.parametrize("name", NAMES)
def test_empty_batch_and_dense_rows(name):
    empty = tf.ragged.constant([], tf.int64, ragged_rank=1)
    ours, theirs = both(name, 3)
    assert same(ours.trim([empty, empty]), theirs.trim([empty, empty]))
    dense = tf.constant([[1, 2, 3], [4, 5, 6]])
    assert [t.to_list() for t in ours.trim([dense])] == [[[1, 2, 3], [4, 5, 6]]]  # tensorflow_text: ragged only


@pytest.mark.parametrize("name", NAMES)
def test_in_tf_function_and_dataset_map(name, tokens):
    segments = shifted(tokens[:40], 2)
    trimmer = getattr(trimmers, name)(10)
    eager = trimmer.trim(segments)
    graph = tf.function(lambda a, b: trimmer.trim([a, b]))(*segments)
    assert same(graph, eager)
    dataset = tf.data.Dataset.from_tensor_slices(tuple(segments)).batch(8).map(lambda a, b: tuple(trimmer.trim([a, b])))
    rows = [[], []]
    for a, b in dataset:
        rows[0] += a.to_list()
        rows[1] += b.to_list()
    assert rows == [t.to_list() for t in eager]


@pytest.mark.parametrize("name", NAMES)
def test_bad_axis_is_a_value_error_as_in_tensorflow_text(name):
    segments = [tf.ragged.constant([[1, 2]])]
    for trimmer in both(name, 3, axis=4):
        with pytest.raises(ValueError):
            trimmer.generate_mask(segments)


@pytest.mark.parametrize("name", NAMES)
def test_segments_of_different_ranks_count_their_own_innermost_items(name, tokens, word_pieces):
    """A [batch, (items)] segment beside a [batch, (words), (pieces)] one (tensorflow_text's own test has ranks 3
    and 4): at axis -1 each counts its innermost ids."""
    cases = [
        [tf.ragged.constant([[[3897], [4702]]]), tf.ragged.constant([[[[4248], [2829], [4419]]]])],
        [tokens[:50], word_pieces[50:100]],
        [word_pieces[:50], tokens[50:100], word_pieces[100:150]],
    ]
    for number, segments in enumerate(cases):
        if name == "RoundRobinTrimmer" and number == 1:
            continue  # a first segment of rank 2 sends tensorflow_text's to its rank-2 kernel, which fails on the rest
        # tensorflow_text's RoundRobinTrimmer on deeper segments is right row by row (see above): compare so
        rows = [slice(None)] if name != "RoundRobinTrimmer" else [slice(row, row + 1) for row in range(3)]
        for budget in (3, 7, 64):
            ours, theirs = both(name, budget)
            for row in rows:
                assert same(
                    ours.generate_mask([s[row] for s in segments]), theirs.generate_mask([s[row] for s in segments])
                )
                assert same(ours.trim([s[row] for s in segments]), theirs.trim([s[row] for s in segments])), budget
