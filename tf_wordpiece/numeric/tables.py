"""The vocabulary as integer tensors: two tries (first pieces, suffix pieces) stored as one double array.

Built once in NumPy at construction. A step of a walk is `base[node] + char`
and one comparison with `check` there, whatever the vocabulary: int32 gathers
and adds, which every runtime has. Each node also stores the longest token on
its path (`last_token`, `last_length`), so a walk needs no bookkeeping per step:
where it stops, that token is the piece.

The tries keep only what greedy longest match can use, given the pre-tokenizer's
classes: no token with white space in it (white space ends every word), and an
isolated character (punctuation, CJK) only as a whole first piece (it is a word
of its own). So a walk never runs past the end of its word: white space and the
characters of no token read as character 0, which no edge takes, and an
isolated character is neither followed nor reached after the first step.
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

import numpy as np

from tf_wordpiece.unicode.classes import ISOLATED, WHITESPACE

ROOT = 0


class WalkTables(NamedTuple):
    """What the walks read, all int32.

    char_index [0x110000]: each code point's character number (0: no edge takes it).
    num_chars: the character numbers used, plus one.
    base, check [size]: the edge (node, char) leads to `base[node] + char` where
      `check` there is `node`. Nodes are numbered by their slot; the root is slot 0.
    last_token [size]: the id of the longest token on the path from the node's
      root (the root or the suffix root) to it, -1 if none; last_length: its
      length in characters.
    suffix_root: the root of the suffix pieces (the root itself when the
      suffix indicator is empty).
    dead: a slot no edge leaves (where a walk goes once it stops).
    depth: the longest path from a root: no walk takes more steps.
    """

    char_index: np.ndarray
    num_chars: int
    base: np.ndarray
    check: np.ndarray
    last_token: np.ndarray
    last_length: np.ndarray
    suffix_root: int
    dead: int
    depth: int


class _Trie:
    """Nodes as dicts of edges (char -> child), with the token that ends at each."""

    def __init__(self):
        self.children: list[dict[int, int]] = []
        self.token: list[int] = []
        self.parent: list[int] = []

    def node(self, parent: int = -1) -> int:
        self.children.append({})
        self.token.append(-1)
        self.parent.append(parent)
        return len(self.token) - 1

    def insert(self, root: int, chars: Sequence[int], token_id: int) -> None:
        node = root
        for char in chars:
            child = self.children[node].get(char)
            if child is None:
                child = self.children[node][char] = self.node(node)
            node = child
        if self.token[node] < 0:  # duplicates keep the first id
            self.token[node] = token_id


def build_walk_tables(tokens: Sequence[str], suffix_indicator: str, classes: np.ndarray) -> WalkTables:
    """The tables of `tokens` (token n has id n) for words split by `classes` (int32 [0x110000]).

    >>> from tf_wordpiece.unicode.classes import tf_text_classes
    >>> t = build_walk_tables(["[UNK]", "ab", "a", "##b", "!", "a!"], "##", tf_text_classes().dense)
    >>> walk = lambda node, text: [node := int(t.base[node]) + int(t.char_index[ord(c)]) for c in text][-1]
    >>> [(int(t.last_token[n]), int(t.last_length[n])) for n in (walk(0, "ab"), walk(t.suffix_root, "b"))]
    [(1, 2), (3, 1)]
    >>> int(t.check[walk(0, "a!")]) == walk(0, "a")  # "a!" is no word: that edge is not stored
    False
    """

    def usable(text: str, first: bool) -> bool:
        """Greedy longest match can produce `text` as a piece (first: as a word's first piece)."""
        kinds = [int(classes[ord(c)]) for c in text]
        if not text or WHITESPACE in kinds:
            return False
        return ISOLATED not in kinds or (first and len(text) == 1)

    firsts = [(i, t) for i, t in enumerate(tokens) if usable(t, True)]
    suffixes = []
    if suffix_indicator:
        n = len(suffix_indicator)
        suffixes = [(i, t[n:]) for i, t in enumerate(tokens) if t.startswith(suffix_indicator) and usable(t[n:], False)]
    chars = sorted({ord(c) for _, t in firsts + suffixes for c in t})
    char_index = np.zeros(len(classes), np.int32)
    char_index[chars] = np.arange(1, len(chars) + 1, dtype=np.int32)

    trie = _Trie()
    root = trie.node()
    suffix_root = trie.node() if suffix_indicator else root
    for token_id, text in firsts:
        trie.insert(root, [int(char_index[ord(c)]) for c in text], token_id)
    for token_id, text in suffixes:
        trie.insert(suffix_root, [int(char_index[ord(c)]) for c in text], token_id)
    return _double_array(trie, [root] if suffix_root == root else [root, suffix_root], char_index, len(chars) + 1)


def _double_array(trie: _Trie, roots: list[int], char_index: np.ndarray, num_chars: int) -> WalkTables:
    """Places every node's children at `base + char` in free slots, breadth first, first fit.

    A lookup is then two gathers and an add, in int32 and without hashing,
    so it runs wherever integer gathers do (TFLite builtins, TF.js, XLA).
    """
    slot_of = {root: index for index, root in enumerate(roots)}  # the roots take slots 0 and 1
    used = bytearray(len(trie.token) + num_chars + len(roots))
    used[: len(roots)] = b"\x01" * len(roots)
    bases: dict[int, int] = {}
    last: dict[int, tuple[int, int]] = {}  # slot -> (longest token on the path, its length)
    depth = {root: 0 for root in roots}
    first_free = len(roots)
    queue = list(roots)
    for node in queue:  # the queue grows while it is read: breadth first
        slot = slot_of[node]
        token = trie.token[node]
        parent = trie.parent[node]
        last[slot] = (token, depth[node]) if token >= 0 or parent < 0 else last[slot_of[parent]]
        kids = sorted(trie.children[node].items())
        if not kids:
            continue
        while used[first_free]:
            first_free += 1
        base = _first_fit([char for char, _ in kids], used, first_free)
        bases[slot] = base
        for char, child in kids:
            slot_of[child] = base + char
            used[base + char] = 1
            depth[child] = depth[node] + 1
            queue.append(child)
    dead = max(slot_of.values()) + num_chars + 1  # base + any char stays inside
    size = dead + 1
    base_array = np.zeros(size, np.int32)
    check = np.full(size, -1, np.int32)  # no slot's check is `dead`: no edge leaves it
    last_token = np.full(size, -1, np.int32)
    last_length = np.zeros(size, np.int32)
    for slot, base in bases.items():
        base_array[slot] = base
    for node, kids in enumerate(trie.children):
        for child in kids.values():
            check[slot_of[child]] = slot_of[node]
    for slot, (token, length) in last.items():
        last_token[slot], last_length[slot] = token, length
    return WalkTables(
        char_index=char_index,
        num_chars=num_chars,
        base=base_array,
        check=check,
        last_token=last_token,
        last_length=last_length,
        suffix_root=slot_of[roots[-1]],
        dead=dead,
        depth=max(depth.values()),
    )


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
