"""Stage 1: a batch's bytes -> slots of normalized characters, their classes and words.

Input (from `batch.separate`): the strings' bytes with one space after each
string, so that no UTF-8 sequence, word or walk runs from a string into the
next, and per byte its string and its offset in it. Then, over fixed-size
tensors:
1. UTF-8 decoding (`unicode.utf8`); raw-text added tokens (`[CLS]`, ...) are
   matched byte for byte and become one character each;
2. one paged lookup per character (`chars.CharTable`): how many slots it
   becomes (0..K), and per slot its vocabulary character, UTF-8 length and
   class; a running sum of the counts places the slots (C of them);
3. word boundaries from the classes; per word its first slot, its length, and
   whether it is one piece whatever it holds (an added token, or over the
   length limit).
"""

from __future__ import annotations

from typing import NamedTuple

import tensorflow as tf

from tf_wordpiece.numeric import chars as ch
from tf_wordpiece.unicode import tables as ut
from tf_wordpiece.unicode import utf8
from tf_wordpiece.unicode.classes import ISOLATED, WHITESPACE


class Slots(NamedTuple):
    """A batch after normalization and word splitting, all int32 / bool [C] (per word [W + 1], per byte [N]).

    char: the slot's vocabulary character (0: no walk takes it). kept: the
    slot is in a word. word_start: it starts one. word: its word (where not
    kept: W, the spare last entry of the per-word tensors). source: the byte
    where the character the slot comes from starts. added: the slot is an
    added token, added_index its index among them (both None without added
    tokens).
    Per byte: byte_offset, byte_end, the byte offsets of the character that
    starts there, in its string (`byte_end` exclusive); byte_row, its string.
    Per word: first (its first slot), length (its slots), whole (one piece
    whatever it holds: an added token, or over a length limit).
    used: the slots filled (C in a padded batch can be more); overflow: C was
    too few (the batch must run again with more slots a byte).
    """

    char: tf.Tensor
    kept: tf.Tensor
    word_start: tf.Tensor
    word: tf.Tensor
    source: tf.Tensor
    byte_offset: tf.Tensor
    byte_end: tf.Tensor
    byte_row: tf.Tensor
    added: tf.Tensor
    added_index: tf.Tensor
    first: tf.Tensor
    length: tf.Tensor
    whole: tf.Tensor
    used: tf.Tensor
    overflow: tf.Tensor


class WordSplitter:
    """Stage 1's tables as constants, and the stage itself (`__call__`)."""

    def __init__(
        self,
        table: ch.CharTable,
        *,
        added: list[bytes],
        replace_invalid: bool,
        max_bytes_per_word: int | None,
        max_chars_per_word: int | None,
    ):
        self.added = added
        self.added_key = table.added_key
        self.replace_invalid = replace_invalid
        self.max_bytes_per_word = max_bytes_per_word
        self.max_chars_per_word = max_chars_per_word
        self.most_slots = int(table.count.max())  # the most slots one character becomes
        with tf.init_scope():  # eager constants, even when built inside a tf.function
            self._key = ut.CodePointLookup(table.key)
            self._info = tf.constant(table.info)
            self._count = tf.constant(table.count)

    def __call__(self, data: tf.Tensor, row: tf.Tensor, offset: tf.Tensor, *, num_slots=None) -> Slots:
        """Stage 1 on separated bytes (int32 [N] each, from `batch.separate`).

        num_slots: C, a static count for a padded batch (XLA, `padded`);
        None: exactly the slots the batch fills (`exact`).
        """
        if num_slots is None:
            return self.exact(data, row, offset)
        return self.padded(data, row, offset, num_slots=num_slots)

    def exact(self, data: tf.Tensor, row: tf.Tensor, offset: tf.Tensor) -> Slots:
        """Stage 1 with exactly the slots the batch fills; words from where they start and end (no scatter)."""
        start, length, key = self._characters(data, row, offset, padded=False)
        count = tf.where(start, tf.gather(self._count, key), 0)
        source, within = self._expand(count)
        used = size = tf.size(source)
        slot_key, info, char_class = self._slot_classes(key, source, within)
        kept, word_start = _word_starts(char_class)
        first = tf.cast(tf.reshape(tf.where(word_start), [-1]), tf.int32)
        goes_on = tf.concat([kept[1:] & ~word_start[1:], [False]], 0)
        end = tf.cast(tf.reshape(tf.where(kept & ~goes_on), [-1]), tf.int32) + 1
        first, word_length = tf.concat([first, [0]], 0), tf.concat([end - first, [0]], 0)  # and the spare entry
        spare = tf.size(first) - 1
        word = tf.where(kept, tf.cumsum(tf.cast(word_start, tf.int32)) - 1, spare)  # out of words: the spare entry
        parts = _SlotParts(slot_key, info, kept, word_start, word, source, first, word_length, used, size)
        return self._slots(parts, row, offset, length)

    def padded(self, data: tf.Tensor, row: tf.Tensor, offset: tf.Tensor, *, num_slots: int) -> Slots:
        """Stage 1 in `num_slots` slots (C, static, for XLA): the ones past those filled are white space,
        `overflow` says the batch needed more; words by scatters into C + 1 entries."""
        start, length, key = self._characters(data, row, offset, padded=True)
        count = tf.where(start, tf.gather(self._count, key), 0)
        used, size = tf.reduce_sum(count), num_slots
        source, within = _expand_padded(count, size)
        slot_key, info, char_class = self._slot_classes(key, source, within)
        position = tf.range(size)
        char_class = tf.where(position < used, char_class, WHITESPACE)  # slots past the filled ones hold garbage
        kept, word_start = _word_starts(char_class)
        word = tf.where(kept, tf.cumsum(tf.cast(word_start, tf.int32)) - 1, size)  # out of words: the spare entry
        first = tf.scatter_nd(word[:, None], tf.where(word_start, position, 0), [size + 1])
        word_length = tf.scatter_nd(word[:, None], tf.ones_like(position), [size + 1])
        parts = _SlotParts(slot_key, info, kept, word_start, word, source, first, word_length, used, size)
        return self._slots(parts, row, offset, length)

    def _characters(self, data: tf.Tensor, row: tf.Tensor, offset: tf.Tensor, *, padded: bool) -> tuple:
        """Bytes -> (start, length, key) per byte: where a character starts, its UTF-8 length and its table key
        (raw-text added tokens matched, each one character)."""
        start, code_point, length = utf8.decode(data)
        if self.replace_invalid:
            code_point = tf.where(tf.equal(code_point, ut.INVALID_UTF8), ut.REPLACEMENT_CHARACTER, code_point)
        elif self.max_bytes_per_word is not None:  # the invalid sequence's own length counts
            code_point = tf.where(tf.equal(code_point, ut.INVALID_UTF8), code_point + length - 1, code_point)
        key = self._key(code_point)
        if self.added:
            start, length, key = self._mark_added(data, row, start, length, key, padded=padded)
        return start, length, key

    def _slot_classes(self, key: tf.Tensor, source: tf.Tensor, within: tf.Tensor) -> tuple:
        """Each slot's table key, packed info and class."""
        slot_key = tf.gather(key, source)
        info = tf.gather(self._info, slot_key + within)
        return slot_key, info, tf.math.floormod(info, ch.LENGTH_UNIT)

    def _slots(self, parts: "_SlotParts", row: tf.Tensor, offset: tf.Tensor, length: tf.Tensor) -> Slots:
        """The word limits (one whole piece: over a length limit, or an added token), then `Slots`."""
        whole = tf.zeros_like(parts.word_length) > 0
        if self.max_chars_per_word is not None:
            whole |= parts.word_length > self.max_chars_per_word
        added_index = added = None
        if self.added:  # an added token is a word of one slot (class ISOLATED)
            added_index = parts.slot_key - self.added_key
            added = added_index >= 0
            whole |= tf.gather(tf.concat([added, [False]], 0), parts.first)
        slots = Slots(
            char=tf.math.floordiv(parts.info, ch.CHAR_UNIT),
            kept=parts.kept,
            word_start=parts.word_start,
            word=parts.word,
            source=parts.source,
            byte_offset=offset,
            byte_end=offset + length,
            byte_row=row,
            added=added,
            added_index=added_index,
            first=parts.first,
            length=parts.word_length,
            whole=whole,
            used=parts.used,
            overflow=parts.used > parts.size,
        )
        if self.max_bytes_per_word is not None:
            utf8_length = (
                tf.math.floormod(tf.math.floordiv(parts.info, ch.LENGTH_UNIT), ch.CHAR_UNIT // ch.LENGTH_UNIT) + 1
            )
            slots = slots._replace(whole=whole | (word_sum(slots, utf8_length) > self.max_bytes_per_word))
        return slots

    def _expand(self, count: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
        """int32 [C] each: which position fills each slot, and its index among that position's slots.

        The positions that own slots, in order (`tf.where`), are the slots
        themselves, but for the rare characters that become several: their
        extra slots alone are scattered, and each slot's owner is its index
        less the extra slots up to it.
        """
        owners = tf.cast(tf.reshape(tf.where(count > 0), [-1]), tf.int32)
        if self.most_slots == 1:
            return owners, tf.zeros_like(owners)
        owned = tf.gather(count, owners)
        first = tf.cumsum(owned, exclusive=True)  # each owner's first slot
        size = tf.reduce_sum(owned)
        several = tf.reshape(tf.where(owned > 1), [-1])
        extra = tf.range(1, self.most_slots)
        extra = tf.where(extra < tf.gather(owned, several)[:, None], tf.gather(first, several)[:, None] + extra, size)
        extra = tf.reshape(extra, [-1, 1])
        owner = tf.range(size) - tf.cumsum(tf.scatter_nd(extra, tf.ones_like(extra[:, 0]), [size + 1])[:-1])
        return tf.gather(owners, owner), tf.range(size) - tf.gather(first, owner)

    def _mark_added(self, data, row, start, length, key, *, padded: bool):
        """Each match of an added token becomes one character spanning its bytes, keyed `added_key + index`.

        The tokens cannot overlap one another (`check_no_overlaps`), so every
        match is unambiguous; a match never spans two strings (nor the space
        between them, whose row is -1). Only positions that hold a token's
        first byte are compared (without padding: those alone, gathered).
        """
        contents = self.added
        longest = max(len(c) for c in contents)
        size = tf.shape(data)[0]
        firsts = sorted({c[0] for c in contents})
        if len(firsts) == 1:
            candidate = start & tf.equal(data, firsts[0])
        else:
            candidate = start & tf.reduce_any(tf.equal(data[:, None], firsts), axis=1)
        at = tf.range(size) if padded else tf.cast(tf.reshape(tf.where(candidate), [-1]), tf.int32)
        window = at[:, None] + tf.range(longest)
        ahead = tf.gather(tf.concat([data, tf.fill([longest], -1)], 0), window)  # [K, longest]
        padded_contents = [list(c) + [-1] * (longest - len(c)) for c in contents]
        wildcard = tf.constant([[b < 0 for b in c] for c in padded_contents])  # [tokens, longest]
        matches = tf.reduce_all(tf.equal(ahead[:, None, :], padded_contents) | wildcard, axis=2)  # [K, tokens]
        if padded:
            matches &= candidate[:, None]
        if any(b" " in c for c in contents):  # a space could be the one between two strings
            rows = tf.gather(tf.concat([row, tf.fill([longest], -2)], 0), window)
            matches &= tf.reduce_all(tf.equal(rows, tf.gather(row, at)[:, None])[:, None, :] | wildcard, axis=2)
        token = tf.reduce_sum(tf.cast(matches, tf.int32) * tf.range(1, len(contents) + 1), axis=1) - 1  # [K]
        token_length = tf.where(token >= 0, tf.gather([len(c) for c in contents], tf.maximum(token, 0)), 0)
        # Per position: the token matched there (-1: none), and whether a match started 1..longest-1 bytes back.
        inside = tf.reshape(tf.where(tf.range(1, longest) < token_length[:, None], window[:, 1:], size), [-1, 1])
        inside = tf.scatter_nd(inside, tf.ones_like(inside[:, 0]), [size + 1])[:-1] > 0
        token = tf.scatter_nd(at[:, None], token + 1, [size]) - 1
        matched = token >= 0
        return (
            start & ~inside,
            tf.where(matched, tf.scatter_nd(at[:, None], token_length, [size]), length),
            tf.where(matched, self.added_key + token, key),
        )


def word_sum(slots: Slots, values: tf.Tensor) -> tf.Tensor:
    """int32 [W + 1]: per word, the sum of `values` (int32 [C]) over its slots (the spare entry: meaningless).

    The running sum at each word's end less the one at its start (a scatter of
    C values costs several gathers of W in TensorFlow and TFLite).
    """
    running = tf.concat([[0], tf.cumsum(values)], 0)
    return tf.gather(running, slots.first + slots.length) - tf.gather(running, slots.first)


def _expand_padded(count: tf.Tensor, num_slots) -> tuple[tf.Tensor, tf.Tensor]:
    """Which position fills each of `num_slots` slots, and its index among that position's slots.

    Positions with `count` > 0 own slots [slot_end - count, slot_end), in order;
    slots past `num_slots` are dropped (a padded batch that overflows).
    """
    slot_end = tf.cumsum(count)
    size = tf.shape(count)[0]
    owns = tf.minimum(count, 1)
    order = tf.cumsum(owns) - 1
    owners = tf.scatter_nd(tf.where(owns > 0, order, size)[:, None], tf.range(size), [size + 1])
    first = tf.minimum(slot_end - count, num_slots)
    marks = tf.scatter_nd(first[:, None], owns, [num_slots + 1])[:num_slots]
    source = tf.gather(owners, tf.maximum(tf.cumsum(marks) - 1, 0))
    within = tf.range(num_slots) - tf.gather(first, source)
    return source, within


class _SlotParts(NamedTuple):
    """What `exact` and `padded` each compute their own way, for `WordSplitter._slots`."""

    slot_key: tf.Tensor
    info: tf.Tensor
    kept: tf.Tensor
    word_start: tf.Tensor
    word: tf.Tensor
    source: tf.Tensor
    first: tf.Tensor
    word_length: tf.Tensor
    used: tf.Tensor
    size: tf.Tensor | int


def _word_starts(char_class: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
    """Per slot: kept (not white space) and word_start (kept, and isolated or of another class than the slot before)."""
    kept = tf.not_equal(char_class, WHITESPACE)
    before = tf.concat([[WHITESPACE], char_class[:-1]], 0)
    return kept, kept & (tf.equal(char_class, ISOLATED) | tf.not_equal(before, char_class))
