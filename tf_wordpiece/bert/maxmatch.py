"""MaxMatch: greedy longest-match WordPiece with every candidate piece looked up at once.

For each (word, start character), the candidates are the substrings from there
up to the longest vocabulary piece that starts with that character; all of them
go through one hash-table lookup, each start keeps its longest hit, and each
word then follows its chain of longest hits from its first character (pointer
doubling, log2 of the longest word's length in rounds: `tf_wordpiece.chains`).
A word of n characters costs up to n x longest piece lookups, but all in one
batch: on ordinary text this beats `tf_wordpiece.bert.linmaxmatch`, whose loop
takes a step per character. Both give the same pieces.

Initial pieces are keyed `MARK + token`, non-initial ones by the token without
its suffix indicator: words are joined into one string, each after `MARK`, so
an initial candidate is cut together with its marker and no key is built per
candidate.

>>> matcher = MaxMatcher(["a", "abcd", "##b", "##bc", "##z"], suffix_indicator="##")
>>> word, begin, end, ids, failed = matcher.match(tf.constant(["abcz", "abcd", "zz"]), tf.constant([4, 4, 2]))
>>> ids.numpy().tolist(), word.numpy().tolist(), failed.numpy().tolist()
([0, 3, 4, 1], [0, 0, 0, 1], [False, False, True])
>>> begin.numpy().tolist(), end.numpy().tolist()
([0, 1, 3, 0], [1, 3, 4, 4])
>>> matcher.match(tf.constant(["abcz"]), None)[3].numpy().tolist()  # None: it counts the characters
[0, 3, 4]
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np
import tensorflow as tf

from tf_wordpiece.chains import follow
from tf_wordpiece.shapes import lower_bound, rows_and_positions
from tf_wordpiece.tf1_graphs import HashTable

# A byte no UTF-8 text contains (0xFF is never valid UTF-8): it marks initial
# pieces in the piece table, and WordpieceTokenizer prefixes its dedup keys of
# forced words with it.
MARK = b"\xff"
# Piece ids that stand for text with no vocabulary token, which WordpieceTokenizer
# resolves: the whole word (its own), or one character (emitted here with
# `split_unknown_characters`).
WHOLE_WORD, UNKNOWN_CHARACTER = -2, -3
_UNKNOWN_CHARACTER_BITS = 0xFFFFFFFD  # UNKNOWN_CHARACTER in the low 32 bits of a packed (end << 32 | id)
# The table of the longest piece from each code point is dense up to the last
# code point with a piece longer than one character, and at most this long: past
# it, one entry holds the longest over all the rest (too many candidates at
# worst, never too few).
_MAX_DENSE_CODE_POINTS = 1 << 16


class MaxMatcher(tf.Module):
    """Greedy longest match over a batch of words, every candidate looked up in one batch.

    Args:
      tokens: the vocabulary, token n having id n.
      suffix_indicator: prefix of non-initial pieces; may be empty.
      max_piece_chars: pieces longer than this many code points (without the
        suffix indicator) are never matched. Defaults to None (no limit).
      split_unknown_characters: where no piece matches, emit the character as
        a piece of id `UNKNOWN_CHARACTER` and go on (tensorflow_text's option),
        instead of failing the word. Defaults to False.
      token_tensor: `tokens` as an eager string tensor (`Vocab.token_tensor`),
        which the piece table makes its keys from, so that a SavedModel holds
        the vocabulary once. Defaults to a tensor of its own.
    """

    def __init__(
        self,
        tokens: Sequence[str],
        *,
        suffix_indicator: str,
        max_piece_chars: int | None = None,
        split_unknown_characters: bool = False,
        token_tensor: tf.Tensor | None = None,
    ):
        super().__init__()
        self.split_unknown_characters = split_unknown_characters
        if token_tensor is None or not hasattr(token_tensor, "numpy"):  # none, or a graph's: one of our own
            token_tensor = tf.constant(list(tokens), tf.string)
        self._piece_table = _piece_table(tokens, token_tensor, suffix_indicator, max_piece_chars)
        self._longest_from = _LongestPieceFrom(tokens, suffix_indicator, max_piece_chars)

    def match(self, words: tf.Tensor, n_chars: tf.Tensor | None):
        """`wordpiece.Matcher.match`: every candidate looked up at once; ids may be `UNKNOWN_CHARACTER`
        (an unknown character, with `split_unknown_characters`, which never fails a word)."""
        # All words in one string, each after a marker byte: candidates are cut
        # from it without copying words, and an initial piece is cut together
        # with its marker, which is how the piece table keys initial tokens.
        joined = tf.strings.join([MARK, tf.strings.reduce_join(words, separator=MARK), MARK])
        code_points, char_starts = tf.strings.unicode_decode_with_offsets(joined, "UTF-8", errors="replace")
        if n_chars is None:
            n_chars = _chars_between_markers(words, char_starts)

        # One segment per node (word, position 0..n), in order: each start
        # character and each word's end, which has no candidate. Node k is
        # character k + 1 of `joined` (the end: the marker after the word).
        seg_word, seg_start = rows_and_positions(n_chars + 1)
        seg_char = tf.range(tf.size(seg_word)) + 1
        initial = tf.equal(seg_start, 0)
        remaining = tf.gather(n_chars, seg_word) - seg_start
        # Only as many candidates as the longest piece that starts with this
        # character: most scripts have single-character pieces only.
        seg_count = tf.minimum(remaining, self._longest_from(tf.gather(code_points, seg_char), initial))
        seg_byte_start = tf.gather(char_starts, seg_char) - tf.cast(initial, tf.int64)  # initial: the marker too
        # Candidate (s, e) is segment s up to character e of `joined`.
        cand_seg, cand_end = rows_and_positions(seg_count, first=seg_char + 1, out_type=tf.int64)
        byte_start = tf.gather(seg_byte_start, cand_seg)
        cand_id = self._piece_table.lookup(
            tf.strings.substr(joined, byte_start, tf.gather(char_starts, cand_end) - byte_start)
        )
        # Each segment's longest piece is its largest e << 32 | id (a miss, id -1, makes -1; no candidate, less).
        best = tf.math.unsorted_segment_max(
            tf.bitwise.bitwise_or(tf.bitwise.left_shift(cand_end, 32), cand_id), cand_seg, tf.size(seg_char)
        )
        if self.split_unknown_characters:  # no match: the character alone, as an unknown piece
            unknown = tf.bitwise.bitwise_or(
                tf.bitwise.left_shift(tf.cast(seg_char, tf.int64) + 1, 32), _UNKNOWN_CHARACTER_BITS
            )
            best = tf.where((best >= 0) | tf.equal(remaining, 0), best, unknown)
        best_end_char = tf.cast(tf.bitwise.right_shift(best, 32), tf.int32)

        # Follow each word's chain of longest matches from its first node: a
        # node with no piece, a word's end too, jumps to `follow`'s absorbing
        # node, past the last (a word is known when its end is reached).
        num_nodes = tf.size(seg_word)
        jump = tf.where(best >= 0, best_end_char - 1, num_nodes)
        first_node = tf.cumsum(n_chars + 1, exclusive=True)
        reached = follow(jump, first_node, num_nodes, tf.reduce_max(tf.concat([n_chars, [0]], 0)))
        failed = ~tf.gather(reached, first_node + n_chars)
        piece = tf.reshape(tf.where(reached & (remaining > 0) & ~tf.gather(failed, seg_word)), [-1])
        piece = tf.cast(piece, tf.int32)
        piece_start = tf.gather(seg_start, piece)
        return (
            tf.gather(seg_word, piece),
            piece_start,
            piece_start + tf.gather(best_end_char, piece) - (piece + 1),
            self._piece_ids(tf.bitwise.bitwise_and(tf.gather(best, piece), 0xFFFFFFFF)),
            failed,
        )

    def _piece_ids(self, low_bits: tf.Tensor) -> tf.Tensor:
        """int64 [pieces]: the packed ids' low 32 bits, with the unknown character's back to UNKNOWN_CHARACTER."""
        if not self.split_unknown_characters:
            return low_bits
        return tf.where(tf.equal(low_bits, _UNKNOWN_CHARACTER_BITS), tf.constant(UNKNOWN_CHARACTER, tf.int64), low_bits)


def _chars_between_markers(words: tf.Tensor, char_starts: tf.Tensor) -> tf.Tensor:
    """int32 [w]: each word's number of characters, from where the markers of `joined` decode (a marker
    byte, never part of a UTF-8 sequence, always decodes as a character of its own): no decode of its own.

    >>> words = tf.constant([b"ab", b"\\xc3\\xa9", b"x\\xe2\\x82"])  # the last one cut short: two characters
    >>> joined = tf.strings.join([MARK, tf.strings.reduce_join(words, separator=MARK), MARK])
    >>> _, char_starts = tf.strings.unicode_decode_with_offsets(joined, "UTF-8", errors="replace")
    >>> _chars_between_markers(words, char_starts).numpy().tolist()
    [2, 1, 2]
    """
    marker_bytes = tf.cumsum(tf.strings.length(words) + 1)  # the marker after each word
    # (lower_bound, not tf.searchsorted, whose LowerBound op TFLite cannot run.)
    char_starts = tf.cast(char_starts, tf.int32)
    marker_chars = lower_bound(char_starts, marker_bytes, char_starts[-1])  # the last: the last marker
    return marker_chars - tf.concat([[0], marker_chars[:-1]], 0) - 1


def _piece_table(
    tokens: Sequence[str], token_tensor: tf.Tensor, suffix: str, max_chars: int | None = None
) -> tf.lookup.StaticHashTable:
    """Keys for candidate pieces: an initial piece is `MARK + token`; a non-initial
    piece is the token without its suffix indicator. Pieces over `max_chars` code points are left out.

    The keys are made from `token_tensor` (string [vocab size], token n at n)
    when the table is initialized, so a SavedModel stores the tokens once, in
    that tensor, and here only which tokens give keys. No two keys are equal:
    tokens are distinct, and only initial keys hold `MARK`, which no UTF-8 text holds.
    """
    fits = _fits(max_chars)
    initial = np.array([fits(token) for token in tokens], bool)
    non_initial = np.array([token.startswith(suffix) and fits(token[len(suffix) :]) for token in tokens], bool)
    suffix_bytes = len(suffix.encode("utf-8"))

    def keys_and_ids() -> tuple[tf.Tensor, tf.Tensor]:
        ids = tf.range(len(tokens), dtype=tf.int64)
        initial_keys = tf.strings.join([MARK, _where(initial, token_tensor)])
        non_initial_keys = tf.strings.substr(_where(non_initial, token_tensor), suffix_bytes, -1)
        return tf.concat([initial_keys, non_initial_keys], 0), tf.concat(
            [_where(initial, ids), _where(non_initial, ids)], 0
        )

    return HashTable(_KeysMadeOnInit(keys_and_ids), default_value=-1)


def _where(mask: np.ndarray, values: tf.Tensor) -> tf.Tensor:
    """`values` where `mask` holds (all of them without a mask constant when it holds everywhere)."""
    return values if mask.all() else tf.boolean_mask(values, tf.constant(mask))


class _KeysMadeOnInit(tf.lookup.KeyValueTensorInitializer):
    """A table initializer that makes its keys and values with `make()` when the table is initialized,
    in this process and, from a SavedModel, where it loads: the model holds the ops, not the keys."""

    def __init__(self, make: Callable[[], tuple[tf.Tensor, tf.Tensor]]):
        super().__init__(tf.constant([], tf.string), tf.constant([], tf.int64))  # the dtypes only
        self._make = make

    def initialize(self, table):
        keys, values = self._make()
        init = tf.raw_ops.LookupTableImportV2(table_handle=table.resource_handle, keys=keys, values=values)
        # As tf.lookup's own initializers do: in a TF1-style graph, tf.compat.v1.tables_initializer() runs it.
        tf.compat.v1.add_to_collection(tf.compat.v1.GraphKeys.TABLE_INITIALIZERS, init)
        return init


def _fits(max_chars: int | None) -> Callable[[str], bool]:
    """Whether a piece (str, without the suffix indicator) is short enough to be tried."""
    return lambda piece: max_chars is None or len(piece) <= max_chars


class _LongestPieceFrom:
    """Per code point and initial or not: the longest piece (in characters, at most `max_chars`) that
    starts with it, 0 for none. A dense int32 table, looked up with one gather (a CodePointLookup's
    pages take seven ops a lookup, on every start character of a batch).

    >>> longest = _LongestPieceFrom(["ab", "abc", "##b", "x"], "##")
    >>> longest(tf.constant([ord("a"), ord("b"), ord("a")]), tf.constant([True, False, False])).numpy().tolist()
    [3, 1, 0]
    """

    def __init__(self, tokens: Sequence[str], suffix: str, max_chars: int | None = None):
        fits = _fits(max_chars)
        starts: list[tuple[int, int, int]] = []  # (row: 1 initial / 0 not, code point, piece length)
        for token in tokens:
            if token and fits(token):
                starts.append((1, ord(token[0]), len(token)))
            rest = token[len(suffix) :]
            if token.startswith(suffix) and rest and fits(rest):
                starts.append((0, ord(rest[0]), len(rest)))
        row, code_point, length = (np.array(column, np.int64) for column in zip(*starts or [(0, 0, 0)]))
        # Dense through the last code point that starts a piece of two or more characters.
        self.dense = int(min(code_point[length > 1].max(initial=-1) + 1, _MAX_DENSE_CODE_POINTS))
        # Each (row, code point)'s longest: the last of its entries sorted by length (np.maximum.at takes a
        # fifth of a second on 30,000 tokens).
        slot = row * (self.dense + 1) + np.minimum(code_point, self.dense)
        order = np.lexsort((length, slot))
        slot, length = slot[order], length[order]
        last = np.append(slot[1:] != slot[:-1], True)
        table = np.zeros(2 * (self.dense + 1), np.int64)
        table[slot[last]] = length[last]
        with tf.init_scope():  # an eager constant, even when built inside a tf.function
            self._table = tf.constant(np.minimum(table, np.iinfo(np.int32).max).astype(np.int32))

    def __call__(self, code_points: tf.Tensor, initial: tf.Tensor) -> tf.Tensor:
        """int32 code points [n], bool [n] (an initial piece or not) -> int32 [n] the longest piece's length."""
        index = tf.minimum(code_points, self.dense)
        return tf.gather(self._table, tf.where(initial, index + (self.dense + 1), index))
