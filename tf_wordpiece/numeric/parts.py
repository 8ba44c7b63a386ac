"""Batches larger than one call takes, tokenized in parts: memory bounded, ids and offsets unchanged.

A batch's bytes are cut where no word, character or added token can span the
cut: at the end of a string, or right after a space (0x20, white space in
every pre-tokenizer, kept by every normalization). Each part holds at most
`max_bytes` bytes (a string longer than that is cut at its spaces), goes
through the core on its own, and its pieces are put back in place: the rows,
words and byte offsets of a part are shifted to the batch's. A run of more
than `max_bytes` bytes with no space is an error naming the way out.
"""

from __future__ import annotations

from typing import Callable

import tensorflow as tf

from tf_wordpiece.numeric.batch import SPACE
from tf_wordpiece.numeric.pieces import PieceArrays


def tokenize_in_parts(
    tokenize: Callable[[tf.Tensor, tf.Tensor], PieceArrays], data: tf.Tensor, lengths: tf.Tensor, max_bytes: int
) -> PieceArrays:
    """`tokenize(bytes int32 [B], lengths int32 [n]) -> PieceArrays` on parts of at most `max_bytes` bytes of `data`.

    data: uint8 [B], the strings end to end; lengths: int32 [n], summing to B.
    Returns the pieces of the whole batch, as one call would give them.
    """
    total = tf.size(data)
    row_end = tf.cumsum(lengths)
    row_start = row_end - lengths
    after_spaces = tf.cast(tf.reshape(tf.where(tf.equal(data, SPACE)), [-1]), tf.int32) + 1
    cuts = tf.sort(tf.concat([row_end, after_spaces], 0))
    outputs = [
        tf.TensorArray(tf.int32, 0, dynamic_size=True, infer_shape=False, element_shape=[None]) for _ in range(5)
    ]

    def part(index, start, words_before, *outputs):
        furthest = start + max_bytes
        end = tf.where(furthest >= total, total, tf.gather(cuts, tf.searchsorted(cuts, [furthest], "right")[0] - 1))
        no_cut = tf.debugging.assert_greater(
            end,
            start,
            message=f"strings: more than {max_bytes} bytes without a space, which the numeric core cannot cut "
            "into calls of at most that many bytes; use core='string' for it",
        )
        with tf.control_dependencies([no_cut]):
            first_row = tf.searchsorted(row_end, [start], "right")[0]  # the rows that overlap [start, end)
            last_row = tf.searchsorted(row_start, [end], "left")[0]
        begins = tf.maximum(row_start[first_row:last_row], start)
        pieces = tokenize(tf.cast(data[start:end], tf.int32), tf.minimum(row_end[first_row:last_row], end) - begins)
        shift = tf.gather(begins - row_start[first_row:last_row], tf.gather(pieces.word_row, pieces.word))
        values = (
            pieces.ids,
            pieces.begin + shift,
            pieces.end + shift,
            pieces.word + words_before,
            pieces.word_row + first_row,
        )
        outputs = [array.write(index, value) for array, value in zip(outputs, values)]
        return (index + 1, end, words_before + pieces.num_words, *outputs)

    state = tf.while_loop(
        lambda index, start, *_: start < total, part, (tf.constant(0), tf.constant(0), tf.constant(0), *outputs)
    )
    ids, begin, end, word, word_row = (array.concat() for array in state[3:])
    return PieceArrays(tf.size(ids), ids, begin, end, word, state[2], word_row)
