"""Comparisons for tests/text: our text ops' results against tensorflow_text's."""

from __future__ import annotations

import tensorflow as tf


def same(ours, theirs) -> bool:
    """Equal values, dtype and (for RaggedTensors) structure and row-splits dtype."""
    if isinstance(theirs, (list, tuple)):
        return len(ours) == len(theirs) and all(same(a, b) for a, b in zip(ours, theirs))
    if isinstance(theirs, tf.RaggedTensor):
        return (
            isinstance(ours, tf.RaggedTensor)
            and ours.ragged_rank == theirs.ragged_rank
            and ours.row_splits.dtype == theirs.row_splits.dtype
            and ours.dtype == theirs.dtype
            and ours.to_list() == theirs.to_list()
        )
    return (
        ours.dtype == theirs.dtype and ours.shape == theirs.shape and ours.numpy().tolist() == theirs.numpy().tolist()
    )


def shifted(batch: tf.RaggedTensor, count: int) -> list[tf.RaggedTensor]:
    """`count` segments of one batch: the batch, then its rows rotated by 1, 2, ... (different lengths per row)."""
    rows = batch.nrows()
    return [tf.gather(batch, (tf.range(rows) + i * 7) % rows) for i in range(count)]
