"""BERT tokenization of UTF-8 bytes in integer ops over fixed-size tensors (XLA-compilable).

The pipeline, on a flat byte array [B] holding a batch of strings end to end,
in two stages (with `jit_compile`, each a function of its own that XLA
compiles; without it, plain code inlined into the caller's graph, so that a
TF.js or TFLite export holds no function call):

`words` (size B):
1. decode UTF-8 (`utf8.decode`); raw-text added tokens (`[CLS]`, ...) are
   matched byte for byte and become one character each;
2. normalize: each character becomes 0..K code points (a table row per code
   point); a running sum of the counts places them in C = B * expansion slots;
3. classes (word, white space, isolated) and word boundaries, from a table.

`pieces` (one lane a word, W lanes):
4. WordPiece: each lane walks down the vocabulary trie from its piece's first
   slot, one character a loop step, remembering the last token it passed;
   where the walk stops, that token is a piece and the next walk starts after
   it. A word where a walk passes no token, or over the length limit, is
   `unknown_token`;
5. pieces are compacted in order, with their word and byte offsets.

Sizes are static (B, C, W and the number of strings R), so XLA compiles once
per bucket of sizes; `NumericCore` pads each to the next power of two.
"""

from __future__ import annotations

import math
from typing import NamedTuple, Sequence

import numpy as np
import tensorflow as tf

from tf_wordpiece.numeric import tables
from tf_wordpiece.shapes import rows_to_splits
from tf_wordpiece.unicode import tables as ut
from tf_wordpiece.unicode import utf8
from tf_wordpiece.unicode.classes import ISOLATED, WHITESPACE, CharacterClasses
from tf_wordpiece.unicode.normalization import NormalizationTable
from tf_wordpiece.unicode.utf8 import ahead, behind

_MIN_BYTES = 64  # the smallest byte bucket
# The most UTF-8 bytes one call takes: its tensors are ~30 int32 arrays of the byte bucket's size (the next power
# of two, times `max_expansion` for text that expands), so 4 MiB needs about 1 GB; more is an error, not a swap storm.
MAX_BATCH_BYTES = 1 << 22
_MIN_ROWS = 8  # the smallest bucket of strings


class PaddedWords(NamedTuple):
    """A padded batch after normalization and word splitting (stage 1).

    Per slot (int32 / bool [C]): char, the code point's index among the
    vocabulary's characters (0: in no token); word, the slot's word (-1
    outside words); begin, end, the byte offsets of the character the slot
    comes from, in its string.
    Per word ([C], valid below num_words): first, end_slot, its slots;
    single, it is one piece whatever it holds (an added token, or over the
    length limit); single_id, that piece's id; row, its string.
    overflow: bool scalar, C slots were too few for the normalized text.
    """

    char: tf.Tensor
    word: tf.Tensor
    begin: tf.Tensor
    end: tf.Tensor
    first: tf.Tensor
    end_slot: tf.Tensor
    single: tf.Tensor
    single_id: tf.Tensor
    row: tf.Tensor
    num_words: tf.Tensor
    overflow: tf.Tensor


class PaddedPieces(NamedTuple):
    """The pieces of a padded batch in order (stage 2), each [C], valid below num_pieces.

    ids: int32. begin, end: int32 byte offsets in the piece's string. word: int32, each piece's word.
    """

    num_pieces: tf.Tensor
    ids: tf.Tensor
    begin: tf.Tensor
    end: tf.Tensor
    word: tf.Tensor


class NumericCore(tf.Module):
    """Strings -> WordPiece ids and byte offsets, all after `decode_raw` in integer ops.

    Shapes: `tokenize_with_offsets(string [n])` -> (ids, begin, end), each
    int64 RaggedTensor [n, (words), (pieces)]; begin and end are byte offsets
    into the original strings (`end` exclusive), as `BertTokenizer` gives them.

    Args:
      normalization, classes: the basic tokenizer's per-code-point tables.
      tokens: the vocabulary (token n has id n).
      suffix_indicator: prefix of non-initial pieces.
      unknown_id: id of the unknown token.
      max_bytes_per_word, max_chars_per_word: words longer than this (UTF-8
        bytes of the normalized word, invalid bytes counted as they are; or
        code points) are unknown; None for no limit.
      invalid_utf8: "keep" (an invalid sequence is a character no piece
        matches, tensorflow_text) or "replace" (U+FFFD, then normalized).
      added_tokens: (UTF-8 bytes, id) of the tokens matched in the raw text.
        They must not overlap one another (no token inside another, no end
        of one the start of another): then every match is unambiguous.
      jit_compile: compile the integer pipeline with XLA.

    >>> from tf_wordpiece.unicode import classes, normalization
    >>> table = normalization.hf_normalization(clean_text=True, strip_accents=True, lowercase=True)
    >>> core = NumericCore(normalization=table, classes=classes.hf_classes(),
    ...                    tokens=["[UNK]", "un", "##aff", "##able", "!"],
    ...                    suffix_indicator="##", unknown_id=0, max_bytes_per_word=None, max_chars_per_word=100,
    ...                    invalid_utf8="replace")
    >>> ids, begin, end = core.tokenize_with_offsets(tf.constant(["Unaffable! x"]))
    >>> ids.to_list(), begin.to_list(), end.to_list()
    ([[[1, 2, 3], [4], [0]]], [[[0, 2, 5], [9], [11]]], [[[2, 5, 9], [10], [12]]])
    """

    def __init__(
        self,
        *,
        normalization: NormalizationTable,
        classes: CharacterClasses,
        tokens: Sequence[str],
        suffix_indicator: str,
        unknown_id: int,
        max_bytes_per_word: int | None,
        max_chars_per_word: int | None,
        invalid_utf8: str,
        added_tokens: Sequence[tuple[bytes, int]] = (),
        jit_compile: bool = False,
    ):
        super().__init__()
        self.jit_compile = jit_compile
        self.unknown_id = unknown_id
        self.max_bytes_per_word = max_bytes_per_word
        self.max_chars_per_word = max_chars_per_word
        self.replace_invalid = invalid_utf8 == "replace"
        check_no_overlaps([b for b, _ in added_tokens])
        self.added = list(added_tokens)
        trie = tables.build_trie(tokens, suffix_indicator, ut.NUM_CODE_POINTS)
        double_array = tables.build_double_array(trie)
        self.suffix_root = double_array.suffix_root
        outputs = normalization.row_outputs  # row 0 keeps the code point
        width = max(1, max(len(out) for out in outputs))
        values = np.zeros((len(outputs), width), np.int32)
        for row, out in enumerate(outputs):
            values[row, : len(out)] = out
        lengths = np.array([1] + [len(out) for out in outputs[1:]], np.int32)
        # Slots per byte that always suffice: the most code points a character gives per byte it takes.
        per_byte = lengths[normalization.dense_rows] / ut.utf8_length(np.arange(ut.NUM_CODE_POINTS))
        self.max_expansion = max(1, math.ceil(float(per_byte.max())))
        with tf.init_scope():  # eager constants, even when built inside a tf.function
            self._norm_row = ut.CodePointLookup(normalization.dense_rows)
            self._norm_length = tf.constant(lengths)
            self._norm_values = tf.constant(values.reshape(-1))
            self._norm_width = width
            self._class = ut.CodePointLookup(classes.dense)
            self._char_index = ut.CodePointLookup(trie.char_index)
            self._base = tf.constant(double_array.base)
            self._check = tf.constant(double_array.check)
            self._node_token = tf.constant(double_array.token)
        self._stages: dict[str, tf.types.experimental.GenericFunction] = {}

    def tokenize_with_offsets(self, strings: tf.Tensor) -> tuple[tf.RaggedTensor, tf.RaggedTensor, tf.RaggedTensor]:
        """string [n] -> (ids, begin, end), int64 [n, (words), (pieces)]; byte offsets."""
        strings = tf.reshape(strings, [-1])
        lengths = tf.strings.length(strings)
        total = tf.reduce_sum(lengths)
        too_large = tf.debugging.assert_less_equal(
            total,
            MAX_BATCH_BYTES,
            message=f"strings: the numeric core takes at most {MAX_BATCH_BYTES} bytes of "
            "UTF-8 a call; split the batch, or use core='string' for larger inputs",
        )
        with tf.control_dependencies([too_large]):
            data = tf.io.decode_raw(tf.strings.reduce_join(strings), tf.uint8)
        words, pieces = self._tokenize_padded(tf.reshape(data, [-1]), lengths)  # an empty join decodes to no bytes
        return _to_ragged(pieces, words, tf.size(strings))

    def tokenize_bytes(self, data: tf.Tensor, row_lengths: tf.Tensor) -> dict[str, tf.Tensor]:
        """UTF-8 bytes in, ids and byte offsets out, in integer ops only (TFLite builtins, TF.js, XLA on GPUs).

        Args:
          data: uint8 or int32 [B], the strings' bytes end to end (JavaScript:
            `new TextEncoder().encode(text)` per string, concatenated).
          row_lengths: int32 [n], each string's length in bytes; they must sum
            to B (bytes past the sum are ignored, missing bytes read as NUL).

        Returns:
          {"token_ids", "starts", "ends": int32 [pieces], the pieces of all
          strings in order with their byte offsets in their own string
          (`ends` exclusive); "row_lengths": int32 [n], pieces per string}.
          `tokenize_with_offsets` gives the same pieces, grouped in words.

        >>> from tf_wordpiece.unicode import classes, normalization
        >>> table = normalization.hf_normalization(clean_text=True, strip_accents=True, lowercase=True)
        >>> core = NumericCore(normalization=table,
        ...                    classes=classes.hf_classes(), tokens=["[UNK]", "un", "##aff", "!"],
        ...                    suffix_indicator="##", unknown_id=0, max_bytes_per_word=None, max_chars_per_word=100,
        ...                    invalid_utf8="replace")
        >>> out = core.tokenize_bytes(tf.constant(list(b"Unaff!x"), tf.uint8), tf.constant([6, 1]))
        >>> {k: v.numpy().tolist() for k, v in sorted(out.items())}  # doctest: +NORMALIZE_WHITESPACE
        {'ends': [2, 5, 6, 1], 'row_lengths': [3, 1], 'starts': [0, 2, 5, 0], 'token_ids': [1, 2, 3, 0]}
        """
        row_lengths = tf.reshape(tf.cast(row_lengths, tf.int32), [-1])
        words, pieces = self._tokenize_padded(tf.reshape(data, [-1]), row_lengths)
        count = pieces.num_pieces
        piece_row = tf.gather(words.row, pieces.word[:count])
        return {
            "token_ids": pieces.ids[:count],
            "starts": pieces.begin[:count],
            "ends": pieces.end[:count],
            "row_lengths": _add_at(piece_row, tf.ones_like(piece_row), tf.size(row_lengths)),
        }

    def _tokenize_padded(self, data: tf.Tensor, lengths: tf.Tensor) -> tuple[PaddedWords, PaddedPieces]:
        """Both stages on bytes [B] and lengths int32 [n], padded to their buckets."""
        total = tf.reduce_sum(lengths)
        n = tf.size(lengths)
        num_bytes = _bucket(total + 1, _MIN_BYTES)  # one padding byte at least: its row holds no word
        num_rows = _bucket(n + 1, _MIN_ROWS)
        data = tf.cast(data[:total], tf.int32)
        data = tf.pad(data, [[0, num_bytes - tf.size(data)]])
        lengths = tf.pad(lengths, [[0, num_rows - n]])

        words = self._stage("words", 1)(data, lengths)
        if (
            self.max_expansion > 1
        ):  # rare text that expands past one slot a byte: once more, with room for the worst case
            words = tf.cond(
                words.overflow, lambda: self._stage("words", self.max_expansion)(data, lengths), lambda: words
            )
        # Stage 2 runs one lane a word: as many lanes as words, to the next bucket.
        num_lanes = tf.minimum(_bucket(words.num_words + 1, _MIN_ROWS), tf.size(words.char))
        per_word = [t[:num_lanes] for t in (words.first, words.end_slot, words.single, words.single_id)]
        pieces = self._stage("pieces", 1)(words.char, words.word, words.begin, words.end, *per_word, words.num_words)
        return words, pieces

    def _stage(self, name: str, expansion: int):
        """`words` or `pieces`: with jit_compile, a tf.function compiled by XLA, made once per expansion.

        Without it, the plain method: its ops go into the caller's graph, with
        no function call between (TF.js runs no `PartitionedCall`).
        """
        if name == "words":
            fn = lambda data, lengths: self.words(data, lengths, expansion=expansion)  # noqa: E731
        else:
            fn = self.pieces
        if not self.jit_compile:
            return fn
        key = f"{name}_{expansion}"  # a string: SavedModels track the dict
        if key not in self._stages:
            vector, scalar = tf.TensorSpec([None], tf.int32), tf.TensorSpec([], tf.int32)
            spec = [vector] * 2 if name == "words" else [vector] * 6 + [tf.TensorSpec([None], tf.bool), vector, scalar]
            self._stages[key] = tf.function(fn, input_signature=spec, jit_compile=True, autograph=False)
        return self._stages[key]

    def words(self, data: tf.Tensor, lengths: tf.Tensor, *, expansion: int = 1) -> PaddedWords:
        """Stage 1 on a padded batch: data int32 [B] (bytes), lengths int32 [R] (each string's bytes)."""
        num_bytes = tf.shape(data)[0]
        row_start = tf.cumsum(lengths, exclusive=True)
        size = tf.reduce_sum(lengths)
        starts_here = _add_at(row_start, tf.ones_like(lengths), num_bytes)  # empty strings share a start
        position = tf.range(num_bytes)
        byte_row = tf.where(position < size, tf.cumsum(starts_here) - 1, tf.shape(lengths)[0])

        chars = utf8.decode(data, byte_row, size)
        start, code_point, char_length = chars.start, chars.code_point, chars.length
        if self.added:
            start, code_point, char_length = self._mark_added(data, byte_row, start, code_point, char_length)
        if self.replace_invalid:
            code_point = tf.where(code_point == ut.INVALID_UTF8, ut.REPLACEMENT_CHARACTER, code_point)

        # 2. Normalization: each character's code points in slots [C].
        row = tf.where(code_point < 0, 0, self._norm_row(tf.maximum(code_point, 0)))
        count = tf.where(start, tf.gather(self._norm_length, row), 0)
        slot_end = tf.cumsum(count)
        num_slots = num_bytes * expansion
        used = slot_end[-1]
        source, within = _expand(count, slot_end, num_slots)
        source_row = tf.gather(row, source)
        within = tf.minimum(within, self._norm_width - 1)  # slots past the last character hold garbage
        replaced = tf.gather(self._norm_values, source_row * self._norm_width + within)
        normalized = tf.where(source_row == 0, tf.gather(code_point, source), replaced)
        slot = tf.range(num_slots)
        safe = tf.clip_by_value(normalized, 0, ut.NUM_CODE_POINTS - 1)

        # 3. Words.
        char_class = tf.where(normalized < 0, ISOLATED, self._class(safe))
        char_class = tf.where(slot < used, char_class, WHITESPACE)
        string = tf.gather(byte_row, source)
        kept = char_class != WHITESPACE
        word_start = kept & (
            (char_class == ISOLATED) | (char_class != behind(char_class, 1, -1)) | (string != behind(string, 1, -1))
        )
        word = tf.where(kept, tf.cumsum(tf.cast(word_start, tf.int32)) - 1, -1)
        word_end = kept & (ahead(word, 1, -1) != word)

        def per_word(values, at=kept):
            """[C] per word: the sum of `values` over the word's slots where `at` holds."""
            return _add_at(tf.where(at, word, num_slots), values, num_slots)

        first = per_word(slot, at=word_start)
        # An added token is a word of one slot (class ISOLATED): its index, or -1.
        forced = per_word(tf.where(normalized < 0, -normalized, 0), at=word_start) - 1
        string_start = tf.gather(tf.concat([row_start, [0]], 0), string)
        source_position = tf.gather(position, source)
        return PaddedWords(
            char=tf.where(normalized < 0, 0, self._char_index(safe)),
            word=word,
            begin=source_position - string_start,
            end=source_position + tf.gather(char_length, source) - string_start,
            first=first,
            end_slot=per_word(slot + 1, at=word_end),
            single=(forced >= 0) | self._over_limit(normalized, safe, tf.gather(char_length, source), per_word),
            single_id=tf.where(forced >= 0, tf.gather(self._added_ids(), tf.maximum(forced, 0)), self.unknown_id),
            row=tf.gather(string, tf.minimum(first, num_slots - 1)),
            num_words=tf.reduce_sum(tf.cast(word_start, tf.int32)),
            overflow=used > num_slots,
        )

    def pieces(self, char, word, begin, end, first, end_slot, single, single_id, num_words) -> PaddedPieces:
        """Stage 2: WordPiece, one lane a word (per-word arguments [W], the rest [C] as in `PaddedWords`).

        Each lane walks down the trie from its piece's first slot while the
        word goes on and an edge exists, remembering the last token passed;
        where the walk stops, that token is the piece, and the next walk
        starts after it from the suffix indicator's node. A walk that passes
        no token breaks the word: it becomes `unknown_token`.
        """
        num_slots = tf.shape(char)[0]
        lanes = tf.range(tf.shape(first)[0])
        valid = lanes < num_words
        active = valid & ~single
        first = tf.where(valid, first, 0)
        spare = num_slots  # scatters of inactive lanes land here, cut off below

        def step(active, cursor, at, node, best_length, best_id, broken, piece_length, piece_id):
            c = tf.gather(char, tf.minimum(at, num_slots - 1))
            child = tf.gather(self._base, node) + c  # the double array keeps it in range
            advance = active & (tf.gather(self._check, child) == node) & (at < end_slot)
            node = tf.where(advance, child, node)
            at = at + tf.cast(advance, tf.int32)
            token = tf.gather(self._node_token, node)
            found = advance & (token >= 0)
            best_length = tf.where(found, at - cursor, best_length)
            best_id = tf.where(found, token, best_id)
            stop = active & ~advance
            broken |= stop & (best_length == 0)
            emit = stop & (best_length > 0)
            target = tf.where(emit, cursor, spare)[:, None]
            piece_length = tf.tensor_scatter_nd_update(piece_length, target, best_length)
            piece_id = tf.tensor_scatter_nd_update(piece_id, target, best_id)
            cursor = tf.where(emit, cursor + best_length, cursor)
            active &= ~stop | (emit & (cursor < end_slot))
            return (
                active,
                cursor,
                tf.where(emit, cursor, at),
                tf.where(emit, self.suffix_root, node),
                tf.where(emit, 0, best_length),
                best_id,
                broken,
                piece_length,
                piece_id,
            )

        # Every loop variable starts from a tensor of its own: TF.js mixes up loop variables that share one.
        state = (
            active,
            first,
            tf.identity(first),
            tf.fill(tf.shape(lanes), tables.ROOT),
            tf.zeros_like(lanes),
            tf.zeros_like(lanes),
            tf.zeros_like(active),
            tf.zeros([num_slots + 1], tf.int32),
            tf.fill([num_slots + 1], self.unknown_id),
        )
        state = tf.while_loop(lambda active, *_: tf.reduce_any(active), step, state)
        broken, piece_length, piece_id = state[6:]

        # Whole words (added tokens, over the limit, broken): one piece over all their slots.
        whole = valid & (single | broken)
        target = tf.where(whole, first, spare)[:, None]
        piece_length = tf.tensor_scatter_nd_update(piece_length, target, end_slot - first)[:num_slots]
        unknown = tf.fill(tf.shape(lanes), self.unknown_id)
        piece_id = tf.tensor_scatter_nd_update(piece_id, target, tf.where(single, single_id, unknown))[:num_slots]
        slot_word = tf.maximum(word, 0)
        in_whole = tf.gather(whole, slot_word) & (tf.range(num_slots) != tf.gather(first, slot_word))
        is_piece = (word >= 0) & (piece_length > 0) & ~in_whole

        # Pieces in order, with byte offsets.
        index = tf.where(is_piece, tf.cumsum(tf.cast(is_piece, tf.int32)) - 1, num_slots)[:, None]

        def compact(values):
            return tf.scatter_nd(index, values, [num_slots + 1])[:num_slots]

        last = tf.maximum(tf.range(num_slots) + piece_length - 1, 0)
        return PaddedPieces(
            tf.reduce_sum(tf.cast(is_piece, tf.int32)),
            compact(piece_id),
            compact(begin),
            compact(tf.gather(end, tf.minimum(last, num_slots - 1))),
            compact(word),
        )

    def _mark_added(self, data, byte_row, start, code_point, char_length):
        """Each match of an added token becomes one character, -1 - the token's index, spanning its bytes."""
        token = tf.fill(tf.shape(data), -1)
        for index, (content, _) in enumerate(self.added):
            match = start
            for k, byte in enumerate(content):
                match &= (ahead(data, k, -1) == byte) & (ahead(byte_row, k, -2) == byte_row)
            token = tf.where(match, index, token)
        length = tf.where(token >= 0, tf.gather([len(c) for c, _ in self.added], tf.maximum(token, 0)), char_length)
        inside = tf.zeros_like(start)
        for k in range(1, max(len(c) for c, _ in self.added)):
            inside |= behind(tf.where(token >= 0, length, 1), k, 1) > k
        return start & ~inside, tf.where(token >= 0, -1 - token, code_point), length

    def _added_ids(self) -> tf.Tensor:
        return tf.constant([i for _, i in self.added] or [0], tf.int32)

    def _over_limit(self, normalized, safe, source_length, per_word):
        """bool [C] per word: longer than the byte or character limit."""
        over = tf.zeros(tf.shape(normalized), tf.bool)
        if self.max_bytes_per_word is not None:  # invalid UTF-8 counts the bytes it is, as in tensorflow_text
            length = tf.where(normalized == ut.INVALID_UTF8, source_length, ut.utf8_length(safe))
            over |= per_word(length) > self.max_bytes_per_word
        if self.max_chars_per_word is not None:
            over |= per_word(tf.ones_like(normalized)) > self.max_chars_per_word
        return over


def _expand(count: tf.Tensor, slot_end: tf.Tensor, num_slots) -> tuple[tf.Tensor, tf.Tensor]:
    """Which byte position fills each of `num_slots` slots, and its index among that position's code points.

    Positions with `count` > 0 own slots [slot_end - count, slot_end), in order.
    """
    num_bytes = tf.shape(count)[0]
    owns = count > 0
    order = tf.cumsum(tf.cast(owns, tf.int32)) - 1
    owners = tf.scatter_nd(tf.where(owns, order, num_bytes)[:, None], tf.range(num_bytes), [num_bytes + 1])
    first = tf.where(owns, slot_end - count, num_slots)
    starts = _add_at(first, tf.cast(owns, tf.int32), num_slots)
    source = tf.gather(owners, tf.maximum(tf.cumsum(starts) - 1, 0))
    within = tf.range(num_slots) - tf.gather(slot_end - count, source)
    return source, within


def _to_ragged(pieces: PaddedPieces, words: PaddedWords, n: tf.Tensor) -> tuple:
    """Pieces of a padded batch -> (ids, begin, end) int64 [n, (words), (pieces)]."""
    num_words, num_pieces = words.num_words, pieces.num_pieces
    piece_splits = rows_to_splits(tf.cast(pieces.word[:num_pieces], tf.int64), num_words)
    word_splits = rows_to_splits(tf.cast(words.row[:num_words], tf.int64), n)

    def ragged(values):
        per_word = tf.RaggedTensor.from_row_splits(tf.cast(values[:num_pieces], tf.int64), piece_splits, validate=False)
        return tf.RaggedTensor.from_row_splits(per_word, word_splits, validate=False)

    return ragged(pieces.ids), ragged(pieces.begin), ragged(pieces.end)


def _add_at(index: tf.Tensor, values: tf.Tensor, size) -> tf.Tensor:
    """int32 [size]: the sum of `values` at each index in [0, size); indexes of `size` are dropped.

    A segment sum as `scatter_nd` (which adds duplicates), because TFLite's
    builtins and TF.js have it and not the unsorted segment ops.
    """
    return tf.scatter_nd(index[:, None], values, [size + 1])[:size]


def _bucket(value: tf.Tensor, smallest: int) -> tf.Tensor:
    """The next power of two >= value (int32 scalar), at least `smallest`."""
    powers = tf.constant([1 << k for k in range(31)])
    return tf.reduce_min(tf.where(powers >= tf.maximum(tf.cast(value, tf.int32), smallest), powers, 1 << 30))


def check_no_overlaps(contents: Sequence[bytes]) -> None:
    """ValueError unless no token holds another and no token's end is another's start."""
    for a in contents:
        for b in contents:
            if a != b and b in a:
                raise ValueError(
                    f"special_tokens: {b.decode(errors='replace')!r} is inside "
                    f"{a.decode(errors='replace')!r}; the numeric core matches tokens that cannot "
                    "overlap: drop one, or use core='string'"
                )
            for k in range(1, min(len(a), len(b))):
                if a[-k:] == b[:k]:
                    raise ValueError(
                        f"special_tokens: {a.decode(errors='replace')!r} ends with the start of "
                        f"{b.decode(errors='replace')!r}; the numeric core matches tokens that cannot "
                        "overlap: drop one, or use core='string'"
                    )
