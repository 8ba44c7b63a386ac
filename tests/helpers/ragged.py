"""RaggedTensors (and dense tensors) as Python lists, and a list in batches."""

from __future__ import annotations

import numpy as np
import tensorflow as tf


def rows(rt: tf.RaggedTensor) -> list:
    """A [batch, words, pieces] RaggedTensor -> per batch row (piece counts per word, flat values).

    Much faster than to_list() on large batches, and just as exact.
    """
    outer = rt.row_splits.numpy()
    inner = rt.values.row_splits.numpy()
    values = rt.flat_values.numpy()
    out = []
    for i in range(len(outer) - 1):
        a, b = outer[i], outer[i + 1]
        out.append((np.diff(inner[a : b + 1]).tolist(), values[inner[a] : inner[b]].tolist()))
    return out


def row_lists(t) -> list:
    """A [batch, (n)] RaggedTensor or a dense [batch, n] tensor -> a list of value lists per row."""
    if isinstance(t, tf.RaggedTensor):
        splits, values = t.row_splits.numpy(), t.flat_values.numpy()
        return [values[a:b].tolist() for a, b in zip(splits[:-1], splits[1:])]
    return t.numpy().tolist()


def as_lists(outputs) -> list:
    """Each tensor of a tuple (ragged or dense) as a nested list."""
    return [t.to_list() if isinstance(t, tf.RaggedTensor) else t.numpy().tolist() for t in outputs]


def batches(items: list, size: int = 1000):
    for i in range(0, len(items), size):
        yield items[i : i + size]
