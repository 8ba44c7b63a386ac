"""Graph pieces shared by both modes of SubwordTextEncoder: greedy longest match over whole strings.

Core TF ops only. Positions are code points (characters) of the strings joined
end to end; byte offsets are UTF-8 bytes of that joined string.

>>> init = tf.lookup.KeyValueTensorInitializer(["ab", "b"], tf.constant([7, 8], tf.int64))
>>> table = tf.lookup.StaticHashTable(init, -1)
>>> longest = np.zeros(0x110000, np.int64); longest[[ord("a"), ord("b")]] = [2, 1]
>>> m = longest_match(tf.constant(["abab", "cb"]), table, ut.CodePointLookup(longest))
>>> tf.boolean_mask(m.ids, m.on_path).numpy().tolist()  # "ab" "ab" | "c" (no match) "b"
[7, 7, -1, 8]
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import tensorflow as tf

from tf_wordpiece.chains import follow
from tf_wordpiece.shapes import rows_of_values
from tf_wordpiece.unicode import tables as ut


class Matches(NamedTuple):
    """Per character of the joined strings (int32 / int64 / bool vectors [chars])."""

    joined: tf.Tensor  # string scalar: the strings joined end to end
    byte_at: tf.Tensor  # int32 [chars + 1]: byte offset of each character, then the total
    code_points: tf.Tensor  # int32 [chars]
    string: tf.Tensor  # int32 [chars]: which input string the character is in
    first: tf.Tensor  # int32 [strings]: the position of each string's first character
    ids: tf.Tensor  # int64 [chars]: the value of the longest match starting here, -1 for none
    length: tf.Tensor  # int32 [chars]: its length in characters, 0 for none
    on_path: tf.Tensor  # bool [chars]: where a piece starts, left to right (a piece without match is one character)


def longest_match(strings: tf.Tensor, table: tf.lookup.StaticHashTable, longest_from: ut.CodePointLookup) -> Matches:
    """Greedy longest match of `table`'s keys over each of `strings` (valid UTF-8 [n]), left to right.

    Every candidate (start, length up to the longest key that starts with that
    character) is looked up in one batch; then each string follows its chain of
    longest matches (one character where nothing matches) from its first character.
    """
    joined = tf.strings.reduce_join(strings)
    cps, byte_at = tf.strings.unicode_decode_with_offsets(tf.strings.join([joined, "\x00"]), "UTF-8")
    byte_at = tf.cast(byte_at, tf.int32)
    cps = cps[:-1]
    n_chars = tf.strings.length(strings, unit="UTF8_CHAR")
    size = tf.reduce_sum(n_chars)
    first = tf.cumsum(n_chars, exclusive=True)
    string = rows_of_values(first, size)
    position = tf.range(size)
    remaining = tf.gather(first + n_chars, string) - position
    count = tf.minimum(remaining, tf.cast(longest_from(cps), tf.int32))
    first_cand = tf.cumsum(count, exclusive=True)
    num_cands = tf.reduce_sum(count)
    cand_char = rows_of_values(first_cand, num_cands)
    cand_length = tf.range(num_cands) - tf.gather(first_cand, cand_char) + 1
    begin = tf.gather(byte_at, cand_char)
    end = tf.gather(byte_at, cand_char + cand_length)
    cand_id = table.lookup(tf.strings.substr(joined, begin, end - begin))
    best = tf.math.unsorted_segment_max(tf.where(cand_id >= 0, cand_length, 0), cand_char, size)
    best = tf.maximum(best, 0)  # no candidates at all: the segment max is the lowest int
    at = tf.clip_by_value(first_cand + best - 1, 0, tf.maximum(num_cands - 1, 0))
    ids = tf.where(best > 0, tf.gather(tf.concat([cand_id, [-1]], 0), at), tf.constant(-1, tf.int64))
    on_path = follow(position + tf.maximum(best, 1), first, size, tf.reduce_max(tf.concat([n_chars, [0]], 0)))
    return Matches(joined, byte_at, cps, string, first, ids, best, on_path)


def longest_key_from(keys) -> np.ndarray:
    """int64 per code point: the longest key (in characters) that starts with it."""
    longest = np.zeros(ut.NUM_CODE_POINTS, np.int64)
    for s in keys:
        if s:
            longest[ord(s[0])] = max(longest[ord(s[0])], len(s))
    return longest


def previous(values: tf.Tensor) -> tf.Tensor:
    """values shifted right by one (the first repeats itself): the value before each position."""
    return tf.concat([values[:1], values[:-1]], 0)


def following(values: tf.Tensor, fill) -> tf.Tensor:
    """values shifted left by one, `fill` at the end: the value after each position."""
    return tf.concat([values[1:], tf.fill([1], tf.cast(fill, values.dtype))], 0)
