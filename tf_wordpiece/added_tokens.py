"""Added (special) tokens matched as written in the raw text, before normalization.

Hugging Face splits the input on its added tokens first (leftmost-longest), so
`[MASK]` in text is one id and is never lowercased or split on punctuation.
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

import tensorflow as tf


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

    def __init__(self, tokens: Sequence[str]):
        for token in tokens:
            if not token:
                raise ValueError("special_tokens: an added token must not be empty")
        self.tokens = list(tokens)

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
        token = tf.tensor_scatter_nd_update(tf.fill([n], -1), starts[:, None], token)
        inner = tf.ragged.range(starts + 1, starts + lengths).flat_values
        covered = tf.scatter_nd(inner[:, None], tf.ones_like(inner, tf.bool), [n])
        last = tf.tensor_scatter_nd_update(position, starts[:, None], starts + lengths - 1)
        return Matches(token, covered, last)

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


def _leftmost_non_overlapping(starts: tf.Tensor, lengths: tf.Tensor) -> tf.Tensor:
    """Keeps a match unless it begins inside the previous kept one (a short, sequential scan)."""

    def keep(state, match):
        end_of_kept, _ = state
        start, length = match
        ok = start >= end_of_kept
        return tf.where(ok, start + length, end_of_kept), ok

    _, accepted = tf.scan(keep, (starts, lengths), initializer=(tf.constant(-1), tf.constant(False)))
    return accepted
