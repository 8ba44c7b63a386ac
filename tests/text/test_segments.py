"""combine_segments and pad_model_inputs against tensorflow_text: tables, the real ids, rank 1/2/3, bad input."""

from __future__ import annotations

import pytest
import tensorflow as tf

from helpers.text_ops import same, shifted
from tf_wordpiece.text.segments import combine_segments, concatenate_segments, pad_model_inputs

tf_text = pytest.importorskip("tensorflow_text")

ROWS = [[[1, 2], [3], [], [5, 6, 7]], [[10], [30, 40], [], []], [[], [8], [9], [4, 4]]]


@pytest.mark.parametrize("dtype", [tf.int32, tf.int64], ids=str)
def test_combine_small_table(dtype):
    segments = [tf.ragged.constant(rows, dtype) for rows in ROWS]
    for count in (1, 2, 3):
        assert same(combine_segments(segments[:count], 101, 102), tf_text.combine_segments(segments[:count], 101, 102))
    start, end = tf.constant(7, dtype), tf.constant(8, dtype)
    assert same(combine_segments(segments, start, end), tf_text.combine_segments(segments, start, end))


def test_combine_real_ids_rank_2_and_3_and_empty_batch(tokens, word_pieces):
    for batch in (tokens, tf.cast(tokens, tf.int32), word_pieces[:30], tokens[:0]):
        for count in (1, 3):
            segments = shifted(batch, count) if batch.nrows() else [batch] * count
            assert same(combine_segments(segments, 101, 102), tf_text.combine_segments(segments, 101, 102))


def test_combine_in_tf_function_and_dataset_map(tokens):
    segments = shifted(tokens[:40], 2)
    eager = combine_segments(segments, 101, 102)
    assert same(tf.function(lambda a, b: combine_segments([a, b], 101, 102))(*segments), eager)
    dataset = tf.data.Dataset.from_tensor_slices(tuple(segments)).batch(16)
    rows = [[], []]
    for ids, types in dataset.map(lambda a, b: combine_segments([a, b], 101, 102)):
        rows[0] += ids.to_list()
        rows[1] += types.to_list()
    assert rows == [t.to_list() for t in eager]


@pytest.mark.parametrize("dtype", [tf.int32, tf.int64], ids=str)
def test_concatenate_small_table_and_real_ids(dtype, word_pieces):
    segments = [tf.ragged.constant(rows, dtype) for rows in ROWS]
    for count in (1, 2, 3):
        assert same(concatenate_segments(segments[:count]), tf_text.concatenate_segments(segments[:count]))
    deeper = tf.cast(word_pieces[:30], dtype)  # [batch, (words), (pieces)]
    assert same(concatenate_segments([deeper, deeper[::-1]]), tf_text.concatenate_segments([deeper, deeper[::-1]]))
    eager = concatenate_segments(segments[:2])
    assert same(tf.function(lambda a, b: concatenate_segments([a, b]))(*segments[:2]), eager)


@pytest.mark.parametrize(
    "segments",
    [[], [tf.ragged.constant([[1.5]])], [tf.ragged.constant([["a"]])]],
    ids=["none", "float", "string"],
)
def test_combine_bad_input_raises_what_tensorflow_text_raises(segments):
    with pytest.raises(ValueError) as theirs:
        tf_text.combine_segments(segments, 101, 102)
    with pytest.raises(type(theirs.value), match="segments"):
        combine_segments(segments, 101, 102)
    with pytest.raises(ValueError):
        tf_text.concatenate_segments(segments)
    with pytest.raises(ValueError, match="segments"):
        concatenate_segments(segments)


@pytest.mark.parametrize("dtype", [tf.int32, tf.int64], ids=str)
def test_pad_small_table(dtype):
    inputs = [
        tf.ragged.constant([[101, 1, 2, 102], [], [101, 3, 4, 5, 6, 7, 102]], dtype),
        tf.ragged.constant([[[1, 2], [3]], [], [[4], [], [5, 6, 7]]], dtype),
        tf.constant([[1, 2, 3], [4, 5, 6]], dtype),
        tf.constant([1, 2, 3], dtype),
        tf.ragged.constant([], dtype, ragged_rank=1),
    ]
    for rows in inputs:
        for length, pad in ((1, 0), (5, -1), (9, 0)):
            ours = pad_model_inputs(rows, length, pad_value=pad)
            assert same(ours, tf_text.pad_model_inputs(rows, length, pad_value=pad)), (rows, length)


def test_pad_real_ids_eager_tf_function_and_dataset(tokens, word_pieces):
    for rows in (tokens, word_pieces):
        assert same(pad_model_inputs(rows, 128), tf_text.pad_model_inputs(rows, 128))
    eager = pad_model_inputs(tokens[:40], 32)
    assert same(tf.function(lambda r: pad_model_inputs(r, tf.constant(32)))(tokens[:40]), eager)
    dataset = tf.data.Dataset.from_tensor_slices(tokens[:40]).batch(16).map(lambda r: pad_model_inputs(r, 32))
    got = [tf.concat(parts, axis=0) for parts in zip(*dataset)]
    assert same(got, list(eager))


def test_pad_rank_0_is_a_type_error_as_in_tensorflow_text():
    with pytest.raises(TypeError):
        tf_text.pad_model_inputs(tf.constant(3), 4)
    with pytest.raises(TypeError, match="input"):
        pad_model_inputs(tf.constant(3), 4)
