"""The vocabulary as integer tensors: a trie stored as a double array.

Built once in Python at construction. A lookup of the edge (node, character)
is `base[node] + character` and one comparison with `check` there, whatever
the vocabulary: int32 gathers and adds, which every runtime has.
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

import numpy as np


class Trie(NamedTuple):
    """Every token of the vocabulary as a path of characters from the root.

    Characters are numbered densely (`char_index`, 0 for characters in no
    token), so that `base + char` in the double array stays small.

    char_index: int32 [0x110000] (dense; callers page it).
    num_chars: characters in the vocabulary, plus one.
    children: per node, its edges as (char, child node).
    node_token: int32 [nodes], the id of the token that ends at each node, -1 if none.
    suffix_root: the node of the suffix indicator (the root when it is empty).
    """

    char_index: np.ndarray
    num_chars: int
    children: list[list[tuple[int, int]]]
    node_token: np.ndarray
    suffix_root: int


ROOT = 0


def build_trie(tokens: Sequence[str], suffix_indicator: str, num_code_points: int) -> Trie:
    """The trie of `tokens` (token n has id n; duplicates keep the first id).

    >>> trie = build_trie(["ab", "a", "##b"], "##", 0x80)
    >>> trie.node_token.tolist(), trie.children[0]
    ([-1, 1, 0, -1, -1, 2], [(2, 1), (1, 3)])
    """
    chars = sorted({ord(c) for token in tokens for c in token} | {ord(c) for c in suffix_indicator})
    char_index = np.zeros(num_code_points, np.int32)
    char_index[chars] = np.arange(1, len(chars) + 1, dtype=np.int32)
    children: list[dict[int, int]] = [{}]  # per node: char -> child
    node_token = [-1]

    def walk(text: str) -> int:
        node = ROOT
        for c in text:
            char = int(char_index[ord(c)])
            child = children[node].get(char)
            if child is None:
                child = children[node][char] = len(node_token)
                children.append({})
                node_token.append(-1)
            node = child
        return node

    for token_id, token in enumerate(tokens):
        node = walk(token)
        if node_token[node] < 0 and token:  # an empty token is never a piece (tensorflow_text)
            node_token[node] = token_id
    suffix_root = walk(suffix_indicator)
    return Trie(
        char_index=char_index,
        num_chars=len(chars) + 1,
        children=[list(edges.items()) for edges in children],
        node_token=np.array(node_token, np.int32),
        suffix_root=suffix_root,
    )


class DoubleArray(NamedTuple):
    """The trie as a double array: the edge (node, char) leads to `base[node] + char`
    if `check` there is `node`. Nodes are numbered by their slot; the root is slot 0.

    base, check, token: int32 [size]. token: the id of the token that ends at
    each slot's node, -1 if none; check is -1 in free slots. Every slot that
    `base[node] + char` can reach (char < num_chars) lies inside the arrays.
    suffix_root: the slot of the suffix indicator's node.
    """

    base: np.ndarray
    check: np.ndarray
    token: np.ndarray
    suffix_root: int


def build_double_array(trie: Trie) -> DoubleArray:
    """Places every node's children at `base + char` in free slots, breadth first, first fit.

    A lookup is then two gathers and an add, in int32 and without hashing,
    so it runs wherever integer gathers do (TFLite builtins, TF.js, XLA).
    """
    children = trie.children
    slot_of = [0] * len(trie.node_token)
    used = bytearray(len(trie.node_token) + trie.num_chars + 1)
    used[0] = 1  # the root
    bases: dict[int, int] = {}
    first_free = 1
    queue = [ROOT]
    for node in queue:  # the queue grows while it is read: breadth first
        kids = sorted(children[node])
        if not kids:
            continue
        while used[first_free]:
            first_free += 1
        base = _first_fit([char for char, _ in kids], used, first_free)
        bases[slot_of[node]] = base
        for char, child in kids:
            slot_of[child] = base + char
            used[base + char] = 1
            queue.append(child)
    size = max(slot_of) + trie.num_chars + 1  # base + any char stays inside
    base_array = np.zeros(size, np.int32)
    check = np.full(size, -1, np.int32)
    token = np.full(size, -1, np.int32)
    for slot, base in bases.items():
        base_array[slot] = base
    for node, kids in enumerate(children):
        for _, child in kids:
            check[slot_of[child]] = slot_of[node]
    token[slot_of] = trie.node_token
    return DoubleArray(base_array, check, token, slot_of[trie.suffix_root])


def _first_fit(chars: list[int], used: bytearray, first_free: int) -> int:
    """The smallest base >= 0 that puts chars[0] at or past `first_free` and every char in a free slot."""
    position = max(first_free, chars[0])
    while True:
        base = position - chars[0]
        if base + chars[-1] >= len(used):
            used.extend(bytes(base + chars[-1] + 1 - len(used)))
        if not any(used[base + char] for char in chars):
            return base
        position += 1
