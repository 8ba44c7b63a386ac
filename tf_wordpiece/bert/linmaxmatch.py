"""LinMaxMatch: greedy longest-match WordPiece in time linear in the word length.

Song et al., "Fast WordPiece Tokenization" (EMNLP 2021). The vocabulary is a
trie over code points with, for every node v, a failure link f(v) and failure
pops F(v): when v cannot be extended by the next character, the tokens F(v)
are exactly what MaxMatch emits before it continues from node f(v). Following
these links never re-reads a character, so a word of n characters takes at
most 2n + 1 steps whatever the vocabulary (MaxMatch may take n x longest piece).

Two tries share one node numbering: initial pieces hang off the root
`INITIAL_ROOT`, non-initial pieces (suffix indicator removed) off
`suffix_root`. With an empty suffix indicator both are the same root. Keeping
them apart (the paper instead reaches the suffix root through the "##" path)
means a word that itself starts with the suffix indicator needs no special case.

`LinMaxMatchTrie` is the precompute (the paper's Algorithm 2, a BFS in plain
Python, at construction); `LinMaxMatcher` holds it as tensors and runs
Algorithm 1 for all words of a batch at once, one step per loop iteration.

>>> matcher = LinMaxMatcher(["a", "abcd", "##b", "##bc", "##z"], suffix_indicator="##")
>>> word, begin, end, ids, failed = matcher.match(tf.constant(["abcz", "abcd", "zz"]), tf.constant([4, 4, 2]))
>>> ids.numpy().tolist(), word.numpy().tolist(), failed.numpy().tolist()
([0, 3, 4, 1], [0, 0, 0, 1], [False, False, True])
>>> begin.numpy().tolist(), end.numpy().tolist()
([0, 1, 3, 0], [1, 3, 4, 4])
"""

from __future__ import annotations

from collections import deque
from typing import Sequence

import numpy as np
import tensorflow as tf

from tf_wordpiece.shapes import rows_of_values
from tf_wordpiece.unicode import tables as ut

INITIAL_ROOT = 0
# Transition keys pack (node, code point); code points take 21 bits.
_CP_BITS = 21
# Words are cut from one joined string, each followed by this byte (never valid
# UTF-8): it decodes to ut.INVALID_UTF8, which no trie edge carries, so a word's
# end needs no bounds check. Invalid bytes inside words decode to it as well.
_SEPARATOR = b"\xff"


class LinMaxMatchTrie:
    """The trie with failure links and pops, as NumPy arrays (the precompute).

    Attributes (NumPy arrays, int32 but for the int64 edge_keys):
      edge_keys, edge_children: transition (node << 21 | code point) -> child node.
      fail_link: [nodes] f(v), -1 where undefined (the roots, dead ends).
      pop_start, pop_count: [nodes] F(v) is pop_ids[pop_start : pop_start + pop_count].
      pop_ids, pop_chars: [pops] token id and its length in characters (without
        the suffix indicator for non-initial pieces).
      suffix_root: the node non-initial pieces start from.

    >>> trie = LinMaxMatchTrie(["a", "abcd", "##b", "##bc", "##z"], "##")
    >>> trie.num_nodes, trie.suffix_root
    (14, 1)
    """

    def __init__(self, tokens: Sequence[str], suffix_indicator: str, max_piece_chars: int | None = None):
        self.suffix_root = INITIAL_ROOT if suffix_indicator == "" else 1
        children: list[dict[int, int]] = [{} for _ in range(self.suffix_root + 1)]
        token_at: list[tuple[int, int] | None] = [None] * len(children)  # (id, chars)

        def insert(root: int, piece: str, token_id: int) -> None:
            if max_piece_chars is not None and len(piece) > max_piece_chars:
                return  # never tried (tensorflow_text's max_chars_per_token)
            node = root
            for ch in piece:
                child = children[node].get(ord(ch))
                if child is None:
                    child = len(children)
                    children[node][ord(ch)] = child
                    children.append({})
                    token_at.append(None)
                node = child
            if token_at[node] is None:  # the first of duplicate tokens wins, as in the hash lookup
                token_at[node] = (token_id, len(piece))

        for token_id, token in enumerate(tokens):
            if token:
                insert(INITIAL_ROOT, token, token_id)
            if suffix_indicator and token.startswith(suffix_indicator) and len(token) > len(suffix_indicator):
                insert(self.suffix_root, token[len(suffix_indicator) :], token_id)

        fail, pops = _failure_links_and_pops(children, token_at, self.suffix_root)
        self.num_nodes = len(children)
        keys = [(node << _CP_BITS) | cp for node, edges in enumerate(children) for cp in edges]
        self.edge_keys = np.array(keys, np.int64)
        self.edge_children = np.array([c for edges in children for c in edges.values()], np.int32)
        self.fail_link = np.array(fail, np.int32)
        self.pop_count = np.array([len(p) for p in pops], np.int32)
        self.pop_start = (np.cumsum(self.pop_count) - self.pop_count).astype(np.int32)
        flat = [pop for node_pops in pops for pop in node_pops]
        self.pop_ids = np.array([i for i, _ in flat] or [0], np.int32)
        self.pop_chars = np.array([n for _, n in flat] or [0], np.int32)


def _failure_links_and_pops(children, token_at, suffix_root: int):
    """The paper's Algorithm 2: f(v) and F(v) for every node, breadth first from both roots.

    A token node pops itself and continues at the suffix root. Any other node v
    (child of u by character c) pops F(u) and then follows failure links from
    f(u) until a node that has an edge c, popping on the way; f(v) is that
    edge's target. Breadth first, f of every node on that chain (all shallower
    than v) is known when v is reached.
    """
    fail = [-1] * len(children)
    pops: list[tuple] = [()] * len(children)
    queue = deque(sorted({INITIAL_ROOT, suffix_root}))
    while queue:
        parent = queue.popleft()
        for cp, node in children[parent].items():
            queue.append(node)
            if token_at[node] is not None:
                fail[node], pops[node] = suffix_root, (token_at[node],)
                continue
            link, popped = fail[parent], pops[parent]
            while link >= 0 and cp not in children[link]:
                link, popped = fail[link], popped + pops[link]
            if link >= 0:
                fail[node], pops[node] = children[link][cp], popped
    return fail, pops


class LinMaxMatcher(tf.Module):
    """Algorithm 1 over a batch of words, in core TensorFlow ops.

    Every word of the batch moves one step per loop iteration: along a trie
    edge (consuming a character), or along its failure link (emitting the
    link's pops). A word stops where neither exists; it succeeded if it read
    all its characters and stopped at the suffix root.

    Args:
      tokens: the vocabulary, token n having id n.
      suffix_indicator: prefix of non-initial pieces; may be empty.
      max_piece_chars: pieces longer than this many code points (without the
        suffix indicator) are never matched. Defaults to None (no limit).
    """

    def __init__(self, tokens: Sequence[str], *, suffix_indicator: str, max_piece_chars: int | None = None):
        super().__init__()
        trie = LinMaxMatchTrie(tokens, suffix_indicator, max_piece_chars)
        self.suffix_root = trie.suffix_root
        self._node_bits = max(1, int(trie.num_nodes - 1).bit_length())
        nodes, fails = np.arange(trie.num_nodes), trie.fail_link >= 0
        keys = np.bitwise_or(
            np.left_shift(trie.edge_keys & ((1 << _CP_BITS) - 1), self._node_bits), trie.edge_keys >> _CP_BITS
        )
        with tf.init_scope():  # eager constants, even when built inside a tf.function
            self._edges = tf.lookup.StaticHashTable(
                tf.lookup.KeyValueTensorInitializer(
                    tf.constant(keys, tf.int64), tf.constant(trie.edge_children.astype(np.int64))
                ),
                default_value=-1,
            )
            # Where a node goes when the next character has no edge: its failure
            # link, or itself when it has none (the word stops there).
            self._fall_back = tf.constant(np.where(fails, trie.fail_link, nodes).astype(np.int64))
            self._pop_start = tf.constant(trie.pop_start)
            self._pop_count = tf.constant(trie.pop_count)
            self._pop_ids = tf.constant(trie.pop_ids.astype(np.int64))
            self._pop_chars = tf.constant(trie.pop_chars)

    def match(self, words: tf.Tensor, n_chars: tf.Tensor | None):
        """`wordpiece.Matcher.match`: one trie step a character, failure links at a dead end."""
        joined = tf.strings.join([_SEPARATOR, tf.strings.reduce_join(words, separator=_SEPARATOR), _SEPARATOR])
        chars = tf.strings.unicode_decode(joined, "UTF-8", errors="replace", replacement_char=ut.INVALID_UTF8)
        if n_chars is None:
            n_chars = tf.cast(tf.strings.unicode_decode(words, "UTF-8", errors="replace").row_lengths(), tf.int32)
        chars = tf.cast(chars, tf.int64)
        first_char = tf.cumsum(n_chars + 1, exclusive=True) + 1
        node, pos, popped = self._walk(chars, first_char, n_chars)
        failed = tf.not_equal(node, self.suffix_root) | (pos < n_chars)

        # popped [steps, w]: the node whose pops a word emitted at each step, or -1.
        popped = tf.transpose(popped)
        emitted = (popped >= 0) & ~failed[:, None]
        emitted &= tf.gather(self._pop_count, tf.maximum(popped, 0)) > 0
        pop_word = tf.cast(tf.where(emitted)[:, 0], tf.int32)
        pop_node = tf.boolean_mask(popped, emitted)
        count = tf.gather(self._pop_count, pop_node)
        first_token = tf.cumsum(count, exclusive=True)
        num_tokens = tf.reduce_sum(count)
        token_pop = rows_of_values(first_token, num_tokens)
        token_at = tf.gather(self._pop_start, pop_node)
        token_at = tf.gather(token_at - first_token, token_pop) + tf.range(num_tokens)
        word = tf.gather(pop_word, token_pop)
        length = tf.gather(self._pop_chars, token_at)
        end = tf.cumsum(length)
        word_start = tf.math.unsorted_segment_min(end - length, word, tf.size(words))
        end -= tf.gather(word_start, word)
        return word, end - length, end, tf.gather(self._pop_ids, token_at), failed

    def _walk(self, chars: tf.Tensor, first_char: tf.Tensor, n_chars: tf.Tensor):
        """Runs every word to its stop: (node [w], chars read [w], popped nodes [steps, w])."""
        # Few ops per step: the loop's cost is their fixed cost, not their size.
        # Keys are (code point << node bits) | node, so shifting is done once, before the loop.
        chars = tf.bitwise.left_shift(chars, self._node_bits)
        node = tf.fill(tf.shape(n_chars), tf.constant(INITIAL_ROOT, tf.int64))
        cursor = tf.cast(first_char, tf.int64)
        popped = tf.TensorArray(tf.int64, size=0, dynamic_size=True, element_shape=[None])

        def step(i, node, cursor, moving, popped):
            char = tf.gather(chars, cursor)
            child = self._edges.lookup(char | node)
            advance = child >= 0
            # Stuck words record their node too: such nodes have no pops.
            popped = popped.write(i, tf.where(advance, tf.constant(-1, tf.int64), node))
            moved = tf.where(advance, child, tf.gather(self._fall_back, node))
            # After failure pops, the same character in the same step: most words
            # then take one step per character instead of two.
            retry = self._edges.lookup(char | moved)
            again = ~advance & (retry >= 0)
            advance |= again
            moving = tf.reduce_any(tf.not_equal(moved, node))
            return [i + 1, tf.where(again, retry, moved), cursor + tf.cast(advance, tf.int64), moving, popped]

        limit = 2 * tf.reduce_max(tf.concat([n_chars, [0]], 0)) + 1
        _, node, cursor, _, popped = tf.while_loop(
            lambda i, node, cursor, moving, popped: moving,
            step,
            [0, node, cursor, True, popped],  # one step at least: stack() needs an element
            maximum_iterations=limit,
        )
        return node, tf.cast(cursor, tf.int32) - first_char, popped.stack()
