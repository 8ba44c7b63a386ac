"""Added (special) tokens: one id each, found before pre-tokenization.

Hugging Face splits the input on its added tokens in two passes, each
leftmost-longest: tokens with `normalized=False` are matched as written in the
raw text (so `[MASK]` is one id, never lowercased or split on punctuation);
then tokens with `normalized=True` are matched, in their normalized form, in
the normalized text of what the first pass left.
"""

from __future__ import annotations

import dataclasses
import unicodedata
from typing import Callable, NamedTuple, Sequence

import numpy as np
import tensorflow as tf

from tf_wordpiece.tf1_graphs import cache_per_graph
from tf_wordpiece.unicode import tables as ut

# Rust regex `\s` (Unicode White_Space), which HF's lstrip/rstrip remove next to a token.
WHITE_SPACE = (
    0x9,
    0xA,
    0xB,
    0xC,
    0xD,
    0x20,
    0x85,
    0xA0,
    0x1680,
    *range(0x2000, 0x200B),
    0x2028,
    0x2029,
    0x202F,
    0x205F,
    0x3000,
)


@dataclasses.dataclass(frozen=True)
class AddedToken:
    """A Hugging Face added token: matched as written, one id, with its flags.

    content: the text matched. id: its id (None: its id in the vocabulary).
    special: skipped by `decode(skip_special_tokens=True)`.
    normalized: its normalized form is matched in the normalized text (after the raw-text pass),
      instead of the content in the raw text.
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
        self.flags = tokens
        # (index in `flags`, text to find) of the tokens matched in the raw text.
        self.raw = [(i, t.content) for i, t in enumerate(tokens) if not t.normalized]

    def __bool__(self) -> bool:
        return bool(self.flags)

    def normalized_patterns(self, normalize: Callable[[str], str]) -> list[tuple[int, str]]:
        """(index in `flags`, normalized content) of the `normalized=True` tokens, as `match` takes them.

        Hugging Face normalizes such a token's content once and looks for the
        result; a token that normalizes to nothing never matches.
        """
        patterns = [(i, normalize(t.content)) for i, t in enumerate(self.flags) if t.normalized]
        return [(i, text) for i, text in patterns if text]

    def match(
        self,
        code_points: tf.Tensor,
        rows: tf.Tensor,
        patterns: Sequence[tuple[int, str]] | None = None,
        *,
        non_word: tf.Tensor | None = None,
    ) -> Matches:
        """Leftmost-longest matches of `patterns` (default: the raw-text tokens, `self.raw`).

        code_points: int32 [n] (negative ones never match); rows: int32 [n]
        string index of each (non-decreasing). non_word: optional bool [n],
        code points that `single_word` treats as non-word characters (Hugging
        Face's normalizer puts spaces around CJK ideographs).
        """
        patterns = self.raw if patterns is None else patterns
        # Only positions holding the first character of some token can start a
        # match; the full comparison runs on those few positions alone.
        candidates = tf.cast(tf.reshape(tf.where(self.first_characters(code_points, patterns)), [-1]), tf.int32)
        best_token, best_length = _longest_written_at(patterns, candidates, code_points, rows)
        found = best_token >= 0
        candidates, best_token, best_length = (tf.boolean_mask(t, found) for t in (candidates, best_token, best_length))
        accepted = tf.cond(  # a sequential scan, needed only where two matches could overlap
            tf.size(candidates) > 1,
            lambda: _leftmost_non_overlapping(candidates, best_length),
            lambda: tf.ones_like(candidates, tf.bool),
        )
        starts, token, lengths = (tf.boolean_mask(t, accepted) for t in (candidates, best_token, best_length))
        if any(self.flags[i].single_word or self.flags[i].lstrip or self.flags[i].rstrip for i, _ in patterns):
            starts, token, lengths = self._apply_flags(starts, token, lengths, code_points, rows, non_word)
        n = tf.size(code_points)
        token = tf.tensor_scatter_nd_update(tf.fill([n], -1), starts[:, None], token)
        inner = tf.ragged.range(starts + 1, starts + lengths).flat_values
        covered = tf.scatter_nd(inner[:, None], tf.ones_like(inner, tf.bool), [n])
        last = tf.tensor_scatter_nd_update(tf.range(n), starts[:, None], starts + lengths - 1)
        return Matches(token, covered, last)

    def first_characters(self, code_points: tf.Tensor, patterns: Sequence[tuple[int, str]] | None = None) -> tf.Tensor:
        """bool, the shape of `code_points`: where a token of `patterns` (default: `self.raw`) could start."""
        patterns = self.raw if patterns is None else patterns
        is_first = tf.zeros(tf.shape(code_points), tf.bool)
        for first in sorted({text[0] for _, text in patterns}):
            is_first |= tf.equal(code_points, ord(first))
        return is_first

    def _apply_flags(self, starts, token, lengths, code_points, rows, non_word):
        """HF's single_word (drop matches touching a word character), then lstrip / rstrip (take white space)."""
        n = tf.size(code_points)
        stops = starts + lengths

        def flag(name):
            return tf.gather(tf.constant([getattr(t, name) for t in self.flags]), token)

        def neighbour_is(mask, at):  # the code point at `at` exists, is in this match's string, and is in `mask`
            inside = (at >= 0) & (at < n)
            at = tf.clip_by_value(at, 0, tf.maximum(n - 1, 0))
            same_row = tf.equal(tf.gather(rows, at), tf.gather(rows, tf.minimum(starts, tf.maximum(n - 1, 0))))
            return inside & same_row & mask(at)

        if any(t.single_word for t in self.flags):
            word = _word_lookup()

            def word_at(at):
                is_word = word(tf.clip_by_value(tf.gather(code_points, at), 0, ut.NUM_CODE_POINTS - 1)) > 0
                return is_word if non_word is None else is_word & ~tf.gather(non_word, at)

            touching = neighbour_is(word_at, starts - 1) | neighbour_is(word_at, stops)
            keep = ~(flag("single_word") & touching)
            starts, token, lengths, stops = (tf.boolean_mask(t, keep) for t in (starts, token, lengths, stops))
        if not any(t.lstrip or t.rstrip for t in self.flags):
            return starts, token, lengths
        space = tf.reduce_any(tf.equal(code_points[:, None], tf.constant(WHITE_SPACE, code_points.dtype)), axis=1)
        new_row = tf.concat([tf.concat([[True], tf.not_equal(rows[1:], rows[:-1])], 0)[:n], [True]], 0)  # [n + 1]
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


def _longest_written_at(
    patterns: Sequence[tuple[int, str]], starts: tf.Tensor, code_points: tf.Tensor, rows: tf.Tensor
) -> tuple[tf.Tensor, tf.Tensor]:
    """(token, length) int32 [k]: the longest pattern written at each start within its string ((-1, 0) if none).

    Patterns of equal length: the first listed. All patterns are compared at
    once, as a [starts, patterns, characters] block, so the graph does not
    grow with the number of added tokens.
    """
    width = max(len(text) for _, text in patterns)
    table = np.zeros([len(patterns), width], np.int32)
    beyond = np.ones([len(patterns), width], bool)  # past the pattern's end: always agrees
    for p, (_, text) in enumerate(patterns):
        table[p, : len(text)] = [ord(c) for c in text]
        beyond[p, : len(text)] = False
    n = tf.size(code_points)
    at = starts[:, None] + tf.range(width)[None, :]  # [k, width]
    inside = (at < n) & tf.equal(tf.gather(rows, tf.minimum(at, n - 1)), tf.gather(rows, starts)[:, None])
    written = tf.equal(
        tf.gather(code_points, tf.minimum(at, n - 1))[:, None, :], table[None, :, :]
    )  # [k, patterns, width]
    hit = tf.reduce_all((written & inside[:, None, :]) | beyond[None, :, :], axis=2)
    lengths = np.array([len(text) for _, text in patterns], np.int32)
    # The longest hit wins, then the first listed: score = length * P + (P - 1 - p), -1 for a miss.
    order = np.arange(len(patterns), dtype=np.int32)
    score = tf.where(hit, lengths * len(patterns) + (len(patterns) - 1 - order), -1)
    best = tf.argmax(score, axis=1, output_type=tf.int32)
    found = tf.reduce_max(score, axis=1) >= 0
    tokens = np.array([index for index, _ in patterns], np.int32)
    return tf.where(found, tf.gather(tokens, best), -1), tf.where(found, tf.gather(lengths, best), 0)


def _last_marked_at_or_before(marks: tf.Tensor) -> tf.Tensor:
    """int32 [k]: for each i, the largest j <= i with marks[j] (marks[0] must be True)."""
    positions = tf.cast(tf.reshape(tf.where(marks), [-1]), tf.int32)
    return tf.gather(positions, tf.cumsum(tf.cast(marks, tf.int32)) - 1)


def _first_marked_at_or_after(marks: tf.Tensor) -> tf.Tensor:
    """int32 [k]: for each i, the smallest j >= i with marks[j] (marks[-1] must be True)."""
    positions = tf.cast(tf.reshape(tf.where(marks), [-1]), tf.int32)
    return tf.gather(positions, tf.cumsum(tf.cast(marks, tf.int32), exclusive=True))


@cache_per_graph
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
