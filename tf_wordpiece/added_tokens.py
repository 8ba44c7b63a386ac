"""Added (special) tokens matched as written in the raw text, before normalization.

Hugging Face splits the input on its added tokens first (leftmost-longest), so
`[MASK]` in text is one id and is never lowercased or split on punctuation.
"""

from __future__ import annotations

import dataclasses
import functools
import unicodedata
from typing import NamedTuple, Sequence

import numpy as np
import tensorflow as tf

from tf_wordpiece import unicode_tables as ut

# Rust regex `\s` (Unicode White_Space), which HF's lstrip/rstrip remove next to a token.
WHITE_SPACE = (0x9, 0xA, 0xB, 0xC, 0xD, 0x20, 0x85, 0xA0, 0x1680, *range(0x2000, 0x200B), 0x2028, 0x2029, 0x202F,
               0x205F, 0x3000)


@dataclasses.dataclass(frozen=True)
class AddedToken:
    """A Hugging Face added token: matched as written, one id, with its flags.

    content: the text matched. id: its id (None: its id in the vocabulary).
    special: skipped by `decode(skip_special_tokens=True)`.
    normalized: matched in the normalized text instead of the raw text (not supported: ValueError).
    lstrip, rstrip: the match takes the white space on its left / right.
    single_word: only matches with no word character (`\\w`) right before or after it.

    >>> AddedToken("[MASK]", id=103)
    AddedToken(content='[MASK]', id=103, special=True, normalized=False, lstrip=False, rstrip=False, single_word=False)
    """

    content: str
    id: int | None = None
    special: bool = True
    normalized: bool = False
    lstrip: bool = False
    rstrip: bool = False
    single_word: bool = False


class Matches(NamedTuple):
    """Per input code point: `token` is the added-token index starting there (-1 if none);
    `covered` is True for the other code points of a match; `last` is the index of
    the match's last code point (the code point itself where there is no match)."""

    token: tf.Tensor
    covered: tf.Tensor
    last: tf.Tensor


class AddedTokens:
    """Finds added tokens in flat code points, leftmost-longest, without overlaps.

    >>> m = AddedTokens(["[MASK]"]).match(tf.constant([ord(c) for c in "a[MASK]"]), tf.zeros(7, tf.int32))
    >>> m.token.numpy().tolist(), m.covered.numpy().tolist()
    ([-1, 0, -1, -1, -1, -1, -1], [False, False, True, True, True, True, True])
    """

    def __init__(self, tokens: Sequence[str | AddedToken]):
        tokens = [t if isinstance(t, AddedToken) else AddedToken(t) for t in tokens]
        for token in tokens:
            if not token.content:
                raise ValueError("special_tokens: an added token must not be empty")
            if token.normalized:
                raise ValueError(
                    f"special_tokens: added token {token.content!r} has normalized=True (matched after "
                    "normalization), which tf_wordpiece does not support; use normalized=False"
                )
        self.flags = tokens
        self.tokens = [t.content for t in tokens]

    def __bool__(self) -> bool:
        return bool(self.tokens)

    def match(self, code_points: tf.Tensor, rows: tf.Tensor) -> Matches:
        """code_points: int32 [n]; rows: int32 [n] string index of each (non-decreasing)."""
        n = tf.size(code_points)
        position = tf.range(n)
        # Only positions holding the first character of some token can start a
        # match; the full comparison runs on those few positions alone.
        is_first = tf.zeros([n], tf.bool)
        for first in sorted({token[0] for token in self.tokens}):
            is_first |= code_points == ord(first)
        candidates = tf.cast(tf.reshape(tf.where(is_first), [-1]), tf.int32)
        best_token = tf.fill(tf.shape(candidates), -1)
        best_length = tf.zeros_like(candidates)
        for index, token in enumerate(self.tokens):
            hit = self._occurs_at(token, candidates, code_points, rows)
            longer = hit & (len(token) > best_length)
            best_token = tf.where(longer, index, best_token)
            best_length = tf.where(longer, len(token), best_length)
        found = best_token >= 0
        candidates, best_token, best_length = (tf.boolean_mask(t, found) for t in (candidates, best_token, best_length))
        accepted = _leftmost_non_overlapping(candidates, best_length)
        starts, token, lengths = (tf.boolean_mask(t, accepted) for t in (candidates, best_token, best_length))
        if any(t.single_word or t.lstrip or t.rstrip for t in self.flags):
            starts, token, lengths = self._apply_flags(starts, token, lengths, code_points, rows)
        token = tf.tensor_scatter_nd_update(tf.fill([n], -1), starts[:, None], token)
        inner = tf.ragged.range(starts + 1, starts + lengths).flat_values
        covered = tf.scatter_nd(inner[:, None], tf.ones_like(inner, tf.bool), [n])
        last = tf.tensor_scatter_nd_update(position, starts[:, None], starts + lengths - 1)
        return Matches(token, covered, last)

    def _apply_flags(self, starts, token, lengths, code_points, rows):
        """HF's single_word (drop matches touching a word character), then lstrip / rstrip (take white space)."""
        n = tf.size(code_points)
        stops = starts + lengths

        def flag(name):
            return tf.gather(tf.constant([getattr(t, name) for t in self.flags]), token)

        def neighbour_is(mask, at):  # the code point at `at` exists, is in this match's string, and is in `mask`
            inside = (at >= 0) & (at < n)
            at = tf.clip_by_value(at, 0, tf.maximum(n - 1, 0))
            same_row = tf.gather(rows, at) == tf.gather(rows, tf.minimum(starts, tf.maximum(n - 1, 0)))
            return inside & same_row & mask(tf.gather(code_points, at))

        if any(t.single_word for t in self.flags):
            word = _word_lookup()
            is_word = lambda cp: word(tf.clip_by_value(cp, 0, ut.NUM_CODE_POINTS - 1)) > 0  # noqa: E731
            touching = neighbour_is(is_word, starts - 1) | neighbour_is(is_word, stops)
            keep = ~(flag("single_word") & touching)
            starts, token, lengths, stops = (tf.boolean_mask(t, keep) for t in (starts, token, lengths, stops))
        if not any(t.lstrip or t.rstrip for t in self.flags):
            return starts, token, lengths
        space = tf.reduce_any(code_points[:, None] == tf.constant(WHITE_SPACE, code_points.dtype), axis=1)
        new_row = tf.concat([tf.concat([[True], rows[1:] != rows[:-1]], 0)[:n], [True]], 0)  # [n + 1]
        # lstrip: back to the start of the white space run that ends at the match, within its string.
        run_starts_here = new_row | tf.concat([[True], ~space], 0)
        run_start = _last_marked_at_or_before(run_starts_here)
        # rstrip: on to the end of the white space run that starts at the match's end, within its string.
        run_ends_here = new_row | tf.concat([~space, [True]], 0)
        run_end = _first_marked_at_or_after(run_ends_here)
        new_starts = tf.where(flag("lstrip"), tf.gather(run_start, starts), starts)
        new_stops = tf.where(flag("rstrip"), tf.gather(run_end, stops), stops)
        # White space already taken by the previous match's rstrip stays with it.
        new_starts = tf.maximum(new_starts, tf.concat([[0], new_stops[:-1]], 0))
        return new_starts, token, new_stops - new_starts

    @staticmethod
    def _occurs_at(token: str, starts: tf.Tensor, code_points: tf.Tensor, rows: tf.Tensor) -> tf.Tensor:
        """bool [len(starts)]: `token` is written at each start, within one string."""
        n = tf.size(code_points)
        row = tf.gather(rows, starts)
        hit = tf.ones_like(starts, tf.bool)
        for k, ch in enumerate(token):
            at = tf.minimum(starts + k, n - 1)
            hit &= (starts + k < n) & (tf.gather(rows, at) == row) & (tf.gather(code_points, at) == ord(ch))
        return hit


def _last_marked_at_or_before(marks: tf.Tensor) -> tf.Tensor:
    """int32 [k]: for each i, the largest j <= i with marks[j] (marks[0] must be True)."""
    positions = tf.cast(tf.reshape(tf.where(marks), [-1]), tf.int32)
    return tf.gather(positions, tf.cumsum(tf.cast(marks, tf.int32)) - 1)


def _first_marked_at_or_after(marks: tf.Tensor) -> tf.Tensor:
    """int32 [k]: for each i, the smallest j >= i with marks[j] (marks[-1] must be True)."""
    positions = tf.cast(tf.reshape(tf.where(marks), [-1]), tf.int32)
    return tf.gather(positions, tf.cumsum(tf.cast(marks, tf.int32), exclusive=True))


@functools.cache
def _word_lookup() -> ut.CodePointLookup:
    """Rust regex `\\w`: Alphabetic, marks, decimal digits, connector punctuation, joiners (from Python's tables)."""
    word = np.zeros(ut.NUM_CODE_POINTS, np.int64)
    for cp in range(ut.NUM_CODE_POINTS):
        category = unicodedata.category(chr(cp))
        if category[0] in "LM" or category in ("Nd", "Nl", "Pc"):
            word[cp] = 1
    # Join_Control, and the Other_Alphabetic symbols (circled and squared letters).
    for first, last in ((0x200C, 0x200D), (0x24B6, 0x24E9), (0x1F130, 0x1F149), (0x1F150, 0x1F169), (0x1F170, 0x1F189)):
        word[first : last + 1] = 1
    return ut.CodePointLookup(word)


def _leftmost_non_overlapping(starts: tf.Tensor, lengths: tf.Tensor) -> tf.Tensor:
    """Keeps a match unless it begins inside the previous kept one (a short, sequential scan)."""

    def keep(state, match):
        end_of_kept, _ = state
        start, length = match
        ok = start >= end_of_kept
        return tf.where(ok, start + length, end_of_kept), ok

    _, accepted = tf.scan(keep, (starts, lengths), initializer=(tf.constant(-1), tf.constant(False)))
    return accepted
