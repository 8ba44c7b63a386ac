"""The vocabulary as integer tensors: a trie whose edges live in a cuckoo hash table.

Built once in NumPy at construction. A lookup of the edge (node, character)
is two gathers from the table and a comparison, whatever the vocabulary:
every key sits in one of its two buckets, which is what cuckoo hashing
guarantees (it moves keys around while inserting until that holds).
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

import numpy as np
import tensorflow as tf

# Multipliers of the two hash functions (odd, below 2**31, so key * multiplier stays below 2**62).
_MULTIPLIERS = ((0x5BD1E995, 0x2545F491), (0x68E31DA5, 0x1B873593), (0x7FEB352D, 0x3C6EF372 | 1))
_SHIFT = 16
_MAX_KICKS = 500


class Trie(NamedTuple):
    """Every token of the vocabulary as a path of characters from the root.

    Characters are numbered densely (`char_index`, 0 for characters in no
    token), so that an edge key `node * num_chars + char` fits in int32.

    char_index: int32 [0x110000] (dense; callers page it).
    num_chars: characters in the vocabulary, plus one.
    edge_keys, edge_children: int64 / int32 [edges].
    node_token: int32 [nodes], the id of the token that ends at each node, -1 if none.
    suffix_root: the node of the suffix indicator (the root when it is empty).
    """

    char_index: np.ndarray
    num_chars: int
    edge_keys: np.ndarray
    edge_children: np.ndarray
    node_token: np.ndarray
    suffix_root: int


ROOT = 0


def build_trie(tokens: Sequence[str], suffix_indicator: str, num_code_points: int) -> Trie:
    """The trie of `tokens` (token n has id n; duplicates keep the first id)."""
    chars = sorted({ord(c) for token in tokens for c in token} | {ord(c) for c in suffix_indicator})
    char_index = np.zeros(num_code_points, np.int32)
    char_index[chars] = np.arange(1, len(chars) + 1, dtype=np.int32)
    num_chars = len(chars) + 1
    children: dict[tuple[int, int], int] = {}
    node_token = [-1]

    def walk(text: str) -> int:
        node = ROOT
        for c in text:
            key = (node, int(char_index[ord(c)]))
            child = children.get(key)
            if child is None:
                child = children[key] = len(node_token)
                node_token.append(-1)
            node = child
        return node

    for token_id, token in enumerate(tokens):
        node = walk(token)
        if node_token[node] < 0 and token:  # an empty token is never a piece (tensorflow_text)
            node_token[node] = token_id
    suffix_root = walk(suffix_indicator)
    keys = np.array([node * num_chars + c for node, c in children], np.int64)
    return Trie(
        char_index=char_index,
        num_chars=num_chars,
        edge_keys=keys,
        edge_children=np.array(list(children.values()), np.int32),
        node_token=np.array(node_token, np.int32),
        suffix_root=suffix_root,
    )


class CuckooTable(NamedTuple):
    """keys int64 [size] (-1 where empty), values int32 [size]; a key is in slot
    `bucket(key, multipliers[0])` or `bucket(key, multipliers[1])`."""

    keys: np.ndarray
    values: np.ndarray
    multipliers: tuple[int, int]


def bucket(keys: np.ndarray, multiplier: int, size: int) -> np.ndarray:
    """The bucket of each key: the middle bits of key * multiplier (int64, wrapping as TensorFlow's does)."""
    with np.errstate(over="ignore"):
        return ((keys * np.int64(multiplier)) >> _SHIFT) & (size - 1)


def tf_bucket(keys, multiplier: int, size):
    """`bucket` in TensorFlow ops (`size` an int64 tensor)."""
    return tf.bitwise.bitwise_and(tf.bitwise.right_shift(keys * multiplier, _SHIFT), size - 1)


def build_cuckoo(keys: np.ndarray, values: np.ndarray) -> CuckooTable:
    """A cuckoo hash table holding `keys` (distinct, in [0, 2**31)) -> `values`."""
    size = 1 << max(4, int(2.5 * max(len(keys), 1) - 1).bit_length())
    for multipliers in _MULTIPLIERS:
        table = _try_insert(keys, values, size, multipliers)
        if table is not None:
            return table
    size *= 2  # unlucky with every pair of hash functions: a sparser table always works in practice
    table = _try_insert(keys, values, size, _MULTIPLIERS[0])
    if table is None:
        raise RuntimeError(f"could not build a cuckoo table for {len(keys)} trie edges; please report this")
    return table


def _try_insert(keys: np.ndarray, values: np.ndarray, size: int, multipliers: tuple[int, int]):
    """The table, or None when some key found no place within _MAX_KICKS evictions."""
    first, second = (bucket(keys, m, size).tolist() for m in multipliers)
    choices = {key: (a, b) for key, a, b in zip(keys.tolist(), first, second)}
    table_keys, table_values = [-1] * size, [0] * size
    for key, value in zip(keys.tolist(), values.tolist()):
        slot = choices[key][0]
        for _ in range(_MAX_KICKS):
            if table_keys[slot] < 0:
                table_keys[slot], table_values[slot] = key, value
                break
            # Evict the occupant to its other bucket.
            table_keys[slot], key = key, table_keys[slot]
            table_values[slot], value = value, table_values[slot]
            a, b = choices[key]
            slot = b if slot == a else a
        else:
            return None
    return CuckooTable(np.array(table_keys, np.int64), np.array(table_values, np.int32), multipliers)
