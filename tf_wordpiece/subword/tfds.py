"""tfds.deprecated.text.SubwordTextEncoder's encoding and decoding, in core TensorFlow ops.

The graph half of `SubwordTextEncoder(..., compat="tfds")`, step by step as
tensorflow_datasets does it:

1. Reserved tokens (`\\&undsc` and every vocabulary subword that mixes `\\w`
   and `\\W` characters) are split out of the text first, leftmost, longest
   first (tfds tries them in Python set order, which only matters when two
   start at the same place: we take the longest).
2. The rest is cut into runs of `re`'s `\\w` (letters, digits, `_`) and `\\W`.
3. A token followed by exactly `" "` gets `_` and the space is dropped; `_`
   inside tokens becomes `\\&undsc`; a reserved `\\&undsc` written in the text
   becomes the tokens `\\&` and `undsc` (its following space is kept).
4. Each token is cut into the longest subwords left to right (`\\&undsc`
   always matches and gives the byte id of `_`); a character no subword starts
   gives its UTF-8 byte ids (a lone trailing `_`: the byte id of `" "`).
5. Ids: 0 is padding, subword n is n + 1, byte b is 1 + len(subwords) + b.

Decoding maps each subword to its text (a trailing `_` becomes a space; a
`\\&undsc` inside a subword stays as written, as in tfds) and each run of byte
ids to its UTF-8 text, invalid sequences as U+FFFD (Python's "replace").
Ids 0 and ids outside [1, vocab_size) decode to nothing (tfds raises for
those, except trailing zeros).

>>> g = TfdsGraph(["hello_", "wor", "ld"])
>>> ids = g.encode(tf.constant(["hello world", "a_b"]))
>>> ids.to_list()
[[1, 2, 3], [101, 99, 102]]
>>> g.decode(ids).numpy().tolist()
[b'hello world', b'a_b']
"""

from __future__ import annotations

import functools
import re
from typing import Sequence

import numpy as np
import tensorflow as tf

from tf_wordpiece.shapes import value_rows
from tf_wordpiece.subword import graph as sg
from tf_wordpiece.subword.text import NUM_BYTES, TFDS_UNDERSCORE, is_mixed_alphanum, subtoken_ids
from tf_wordpiece.tf1_graphs import HashTable
from tf_wordpiece.unicode import tables as ut

UNDERSCORE, SPACE = 95, 32


class TfdsGraph(tf.Module):
    """Tables and graph code for tfds's encoding of `subwords` (id n + 1 is subwords[n]).

    encode: string [n] (invalid UTF-8 read as U+FFFD) -> int64 RaggedTensor [n, ids].
    decode: int64 RaggedTensor [n, ids] -> string [n].
    """

    def __init__(self, subwords: Sequence[str]):
        super().__init__()
        self.subwords = [s for s in subwords if s]
        n = len(self.subwords)
        self.vocab_size = 1 + n + NUM_BYTES
        ids = subtoken_ids(self.subwords)
        ids[TFDS_UNDERSCORE] = n + UNDERSCORE  # always the byte of "_", even when it is a subword
        self._table = _hash_table(ids)
        self._longest_from = ut.CodePointLookup(sg.longest_key_from(ids))
        reserved = sorted({TFDS_UNDERSCORE, *(s for s in self.subwords if is_mixed_alphanum(s))})
        self.reserved_tokens = reserved
        self._reserved = _hash_table({s: i for i, s in enumerate(reserved)})
        self._reserved_from = ut.CodePointLookup(sg.longest_key_from(reserved))
        self._alnum = ut.CodePointLookup(word_table())
        shown = [s[:-1] + " " if s.endswith("_") else s for s in self.subwords]
        self._texts = tf.constant([t.encode("utf-8") for t in shown] + [bytes([b]) for b in range(NUM_BYTES)])

    def encode(self, strings: tf.Tensor) -> tf.RaggedTensor:
        # The steps below cut at byte offsets of characters, so the text must be valid UTF-8 first.
        strings = tf.strings.unicode_transcode(strings, "UTF-8", "UTF-8", errors="replace")
        tokens, rows = self._prepared_tokens(strings)
        unique, index = tf.unique(tokens)
        per_token = tf.gather(self._token_ids(unique), index)
        nrows = tf.shape(strings, out_type=tf.int64)[0]
        return tf.RaggedTensor.from_value_rowids(per_token, rows, nrows=nrows).merge_dims(1, 2)

    def decode(self, ids: tf.RaggedTensor) -> tf.Tensor:
        values = tf.cast(ids.flat_values, tf.int64) - 1
        keep = (values >= 0) & (values < self.vocab_size - 1)
        kept = tf.ragged.boolean_mask(ids.with_flat_values(values), ids.with_flat_values(keep))
        values = kept.flat_values
        texts = tf.gather(self._texts, values)
        is_byte = values >= len(self.subwords)
        position = tf.range(tf.size(values, out_type=tf.int64))
        row = value_rows(kept)
        row_start = tf.gather(kept.row_starts(), row)
        # A run of byte ids is read as UTF-8 together; each subword is a run of its own.
        starts = tf.equal(position, row_start) | ~is_byte | ~sg.previous(is_byte)
        run = tf.cumsum(tf.cast(starts, tf.int64)) - 1
        run_text = tf.strings.reduce_join(tf.RaggedTensor.from_value_rowids(texts, run), axis=1)
        run_is_bytes = tf.boolean_mask(is_byte, starts)
        run_text = tf.where(
            run_is_bytes, tf.strings.unicode_transcode(run_text, "UTF-8", "UTF-8", errors="replace"), run_text
        )
        per_row = tf.RaggedTensor.from_value_rowids(
            run_text, tf.cast(tf.boolean_mask(row, starts), tf.int64), nrows=kept.nrows()
        )
        return tf.strings.reduce_join(per_row, axis=1)

    def _prepared_tokens(self, strings: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
        """string [n] -> (prepared tokens [t], int64 row of each [t]): steps 1 to 3."""
        m = sg.longest_match(strings, self._reserved, self._reserved_from)
        size = tf.size(m.code_points)
        position = tf.range(size)
        match_start = m.on_path & (m.length > 0)
        ends = tf.boolean_mask(position + m.length, match_start)
        delta = tf.math.unsorted_segment_sum(
            tf.cast(match_start, tf.int32), position, size + 1
        ) - tf.math.unsorted_segment_sum(tf.ones_like(ends), ends, size + 1)
        covered = tf.cumsum(delta)[:-1] > 0
        inside = covered & ~match_start
        alnum = self._alnum(m.code_points) > 0
        row_first = tf.equal(tf.gather(m.first, m.string), position)
        starts = (
            row_first
            | match_start
            | (sg.previous(covered) & ~inside)
            | (~covered & ~sg.previous(covered) & tf.not_equal(alnum, sg.previous(alnum)))
        )
        token_start = tf.boolean_mask(position, starts)
        token_end = tf.concat([token_start[1:], [size]], 0)
        begin = tf.gather(m.byte_at, token_start)
        text = tf.strings.substr(m.joined, begin, tf.gather(m.byte_at, token_end) - begin)
        row = tf.gather(m.string, token_start)
        same_row_next = tf.equal(sg.following(row, -1), row)
        same_row_prev = tf.equal(sg.previous(row), row) & (tf.range(tf.size(row)) > 0)
        undsc = tf.gather(match_start, token_start) & tf.equal(text, TFDS_UNDERSCORE)
        space = tf.equal(text, " ")
        skip = space & same_row_prev & ~sg.previous(undsc)
        suffix = tf.where(same_row_next & sg.following(space, False), "_", "")
        escaped = tf.strings.regex_replace(text, "_", "\\\\&undsc")
        first = tf.where(undsc, TFDS_UNDERSCORE[:2], tf.strings.join([escaped, suffix]))
        second = tf.where(undsc, tf.strings.join([TFDS_UNDERSCORE[2:], suffix]), "")
        both = tf.reshape(tf.stack([first, second], 1), [-1])
        both_rows = tf.reshape(tf.stack([row, row], 1), [-1])
        keep = tf.not_equal(both, "") & tf.reshape(tf.stack([~skip, ~skip], 1), [-1])
        return tf.boolean_mask(both, keep), tf.cast(tf.boolean_mask(both_rows, keep), tf.int64)

    def _token_ids(self, tokens: tf.Tensor) -> tf.RaggedTensor:
        """Prepared tokens [u] -> ids [u, ids] (padding offset included): step 4."""
        m = sg.longest_match(tokens, self._table, self._longest_from)
        ids = tf.boolean_mask(m.ids, m.on_path)
        cps = tf.boolean_mask(m.code_points, m.on_path)
        token = tf.cast(tf.boolean_mask(m.string, m.on_path), tf.int64)
        n = len(self.subwords)
        matched = ids >= 0
        n_bytes = ut.utf8_length(cps)
        count = tf.cast(tf.where(matched | tf.equal(cps, UNDERSCORE), 1, n_bytes), tf.int64)
        pieces = tf.RaggedTensor.from_row_lengths(tf.range(tf.reduce_sum(count)), count)
        piece = value_rows(pieces)
        k = tf.cast(pieces.flat_values - tf.gather(pieces.row_starts(), piece), tf.int32)  # byte index in the piece
        cp, width = tf.gather(cps, piece), tf.gather(n_bytes, piece)
        part = tf.bitwise.right_shift(cp, 6 * (width - 1 - k))
        lead = tf.gather(tf.constant([0, 0, 0xC0, 0xE0, 0xF0]), width)
        byte = tf.where(
            tf.equal(k, 0),
            tf.where(tf.equal(width, 1), cp, tf.bitwise.bitwise_or(lead, part)),
            tf.bitwise.bitwise_or(0x80, tf.bitwise.bitwise_and(part, 0x3F)),
        )
        byte = tf.where(tf.equal(tf.gather(cps, piece), UNDERSCORE), SPACE, byte)  # tfds: an unmatched "_" is a space
        value = tf.where(tf.gather(matched, piece), tf.gather(ids, piece), n + tf.cast(byte, tf.int64)) + 1
        per_piece = pieces.with_flat_values(value)
        return tf.RaggedTensor.from_value_rowids(per_piece, token, nrows=tf.cast(tf.size(tokens), tf.int64)).merge_dims(
            1, 2
        )


@functools.cache
def word_table() -> np.ndarray:
    """bool [0x110000]: the code points `re`'s `\\w` matches (letters, numbers and `_`): tfds's token runs.

    >>> table = word_table()
    >>> bool(table[ord("_")]), bool(table[ord("٣")]), bool(table[ord("-")])
    (True, True, False)
    """
    # A space stands in for each surrogate: never a word character (and no valid UTF-8 text holds one).
    chars = "".join(chr(c) if not 0xD800 <= c < 0xE000 else " " for c in range(ut.NUM_CODE_POINTS))
    table = np.zeros(ut.NUM_CODE_POINTS, bool)
    table[[m.start() for m in re.finditer(r"\w", chars)]] = True
    return table


def _hash_table(ids: dict[str, int]) -> tf.lookup.StaticHashTable:
    with tf.init_scope():
        return HashTable(
            tf.lookup.KeyValueTensorInitializer(
                tf.constant(list(ids), tf.string), tf.constant(list(ids.values()), tf.int64)
            ),
            default_value=-1,
        )
