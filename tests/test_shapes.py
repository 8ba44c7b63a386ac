"""The row helpers in tf_wordpiece.shapes (WordPiece's piece ordering is in tests/bert/test_wordpiece.py).

Checked against NumPy and the ragged ops they replace, on any row lengths (hypothesis), in eager and graph mode.
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf
from hypothesis import given, settings
from hypothesis import strategies as st

from tf_wordpiece.shapes import merge_words, rows_and_positions, rows_of_values, rows_to_splits, value_rows, wrap_rows

row_lengths = st.lists(st.integers(min_value=0, max_value=6), max_size=12)  # empty rows and no rows included


def expected(lengths: list[int]) -> tuple[list[int], list[int], list[int]]:
    """(row, position within the row, row_splits), the slow way."""
    rows = np.repeat(np.arange(len(lengths)), lengths).tolist()
    positions = [p for n in lengths for p in range(n)]
    return rows, positions, np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)]).tolist()


@tf.function(input_signature=[tf.TensorSpec([None], tf.int64)])
def all_helpers(lengths):
    row, position = rows_and_positions(lengths)
    splits = tf.concat([[0], tf.cumsum(lengths)], 0)
    from_starts = rows_of_values(splits[:-1], splits[-1])
    of_ragged = value_rows(tf.RaggedTensor.from_row_splits(tf.range(splits[-1]), splits, validate=False))
    return (
        row,
        position,
        from_starts,
        of_ragged,
        rows_to_splits(tf.cast(row, tf.int64), tf.size(lengths, out_type=tf.int64)),
    )


@settings(max_examples=50, deadline=None)
@given(lengths=row_lengths)
def test_row_helpers_equal_numpy(lengths):
    rows, positions, splits = expected(lengths)
    for run in (all_helpers.python_function, all_helpers):  # eager, then in a graph
        row, position, from_starts, of_ragged, to_splits = (
            t.numpy().tolist() for t in run(tf.constant(lengths, tf.int64))
        )
        assert (row, position, from_starts, of_ragged, to_splits) == (rows, positions, rows, rows, splits)


def test_rows_and_positions_dtypes_and_large_rows():
    row, position = rows_and_positions(tf.constant([0, 70000, 1], tf.int32))
    assert (row.dtype, position.dtype) == (tf.int32, tf.int32)
    assert row.numpy()[-1] == 2 and position.numpy()[-2] == 69999 and position.numpy()[-1] == 0


@settings(max_examples=30, deadline=None)
@given(lengths=row_lengths, data=st.data())
def test_positions_count_from_first(lengths, data):
    first = data.draw(st.lists(st.integers(min_value=0, max_value=2**31), min_size=len(lengths), max_size=len(lengths)))
    rows, positions, _ = expected(lengths)
    row, position = rows_and_positions(
        tf.constant(lengths, tf.int32), first=tf.constant(first, tf.int64), out_type=tf.int64
    )
    assert row.dtype == position.dtype == tf.int64
    assert (row.numpy().tolist(), position.numpy().tolist()) == (rows, [first[r] + p for r, p in zip(rows, positions)])


nested_rows = st.lists(st.lists(st.lists(st.integers(0, 99), max_size=3), max_size=4), max_size=6)


@settings(max_examples=40, deadline=None)
@given(rows=nested_rows, splits_dtype=st.sampled_from([tf.int32, tf.int64]))
def test_merge_words_and_wrap_rows_equal_the_ragged_ops(rows, splits_dtype):
    """merge_words == merge_dims(-2, -1); wrap_rows == tf.concat of [first], row, [last] (what they replace)."""
    if not rows:
        pieces = tf.RaggedTensor.from_nested_row_splits(
            tf.zeros([0], tf.int64), [tf.zeros([1], splits_dtype), tf.zeros([1], splits_dtype)]
        )
    else:
        pieces = tf.ragged.constant(rows, tf.int64, ragged_rank=2, row_splits_dtype=splits_dtype)
    merged = merge_words(pieces)
    assert merged.to_list() == pieces.merge_dims(-2, -1).to_list()
    count = merged.nrows()
    firsts, lasts = tf.fill([count, 1], tf.constant(7, tf.int64)), tf.fill([count, 1], tf.constant(8, tf.int64))
    assert wrap_rows(merged, 7, 8).to_list() == tf.concat([firsts, merged, lasts], axis=1).to_list()
