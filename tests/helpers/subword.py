"""A SubwordTextEncoder's encode / decode over many lines, in batches."""

from __future__ import annotations

import tensorflow as tf


def encode_all(enc, lines: list[str], batch: int = 2000) -> list[list[int]]:
    """A SubwordTextEncoder's ids for many lines, in batches."""
    out = []
    for i in range(0, len(lines), batch):
        out += enc.encode(tf.constant(lines[i : i + batch])).to_list()
    return out


def decode_all(enc, ids: list[list[int]], batch: int = 2000) -> list[str]:
    """A SubwordTextEncoder's text for many id lists, in batches."""
    out = []
    for i in range(0, len(ids), batch):
        out += [s.decode("utf-8") for s in enc.decode(tf.ragged.constant(ids[i : i + batch], tf.int64)).numpy()]
    return out
