"""`NumericCore`: BERT tokenization of UTF-8 bytes in integer ops over fixed-size tensors (XLA-compilable).

The strings of a batch become bytes once; `batch.separate` puts a space after
each string; `words` (stage 1: UTF-8, normalization, classes, words) and
`pieces` (stage 2: WordPiece on every slot at once, chains by pointer
doubling) do the rest in gathers, elementwise ops, running sums and scatters,
with no loop that grows with the text (see their docstrings). Without XLA the
tensors have the batch's own sizes and the ops go into the caller's graph
(TFLite and TF.js run no function call); with `jit_compile` the whole pipeline
is one function that XLA compiles once per bucket of sizes (powers of two).
"""

from __future__ import annotations

from typing import Sequence

import tensorflow as tf

from tf_wordpiece.numeric import batch as bt
from tf_wordpiece.numeric import chars, tables
from tf_wordpiece.numeric.parts import tokenize_in_parts
from tf_wordpiece.numeric.pieces import PieceArrays, PieceMatcher
from tf_wordpiece.numeric.words import WordSplitter
from tf_wordpiece.shapes import rows_to_splits
from tf_wordpiece.unicode.classes import CharacterClasses
from tf_wordpiece.unicode.normalization import NormalizationTable

# The most UTF-8 bytes one call of the pipeline takes (its tensors are a few dozen int32 arrays of the bytes' size,
# or the next power of two of it under XLA, times `max_expansion` for text that expands): larger batches are
# tokenized in parts of at most this many bytes, so memory stays bounded. Parts of 256 KiB also run faster per byte
# than larger ones (16 MB of text: 7.6 s in parts of 256 KiB, 9.1 s of 1 MiB, 11.3 s of 4 MiB).
MAX_BATCH_BYTES = 1 << 18
# What `warm_up` compiles by default: batches of up to 64 KiB in up to 1024 strings (buckets 64 to 128 Ki).
WARM_UP_BYTES = 1 << 16
WARM_UP_STRINGS = 1024


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
        check_no_overlaps([b for b, _ in added_tokens])
        walk = tables.build_walk_tables(tokens, suffix_indicator, classes.dense)
        table = chars.build_char_table(normalization, classes.dense, walk.char_index, num_added=len(added_tokens))
        self.max_expansion = table.max_expansion
        self._words = WordSplitter(
            table,
            added=[content for content, _ in added_tokens],
            replace_invalid=invalid_utf8 == "replace",
            max_bytes_per_word=max_bytes_per_word,
            max_chars_per_word=max_chars_per_word,
        )
        limits = [limit for limit in (max_bytes_per_word, max_chars_per_word) if limit is not None]
        self._pieces = PieceMatcher(
            walk,
            unknown_id=unknown_id,
            added_ids=[i for _, i in added_tokens],
            max_word_slots=min(limits, default=None),
        )
        self._compiled: dict[str, tf.types.experimental.GenericFunction] = {}

    def tokenize_with_offsets(self, strings: tf.Tensor) -> tuple[tf.RaggedTensor, tf.RaggedTensor, tf.RaggedTensor]:
        """string [n] -> (ids, begin, end), int64 [n, (words), (pieces)]; byte offsets.

        A batch of more than `MAX_BATCH_BYTES` bytes is tokenized in parts of
        at most that many (`parts.tokenize_in_parts`: cut at string ends and
        after spaces), with the same ids and offsets.
        """
        strings = tf.reshape(strings, [-1])
        lengths = tf.strings.length(strings)
        data = tf.reshape(tf.io.decode_raw(tf.strings.reduce_join(strings), tf.uint8), [-1])  # "": no bytes
        pieces = tf.cond(
            tf.size(data) <= MAX_BATCH_BYTES,
            lambda: self._one_call()(tf.cast(data, tf.int32), lengths),
            lambda: tokenize_in_parts(self._one_call(), data, lengths, MAX_BATCH_BYTES),
        )
        return _to_ragged(pieces, tf.size(strings))

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
        total = tf.reduce_sum(row_lengths)
        data = tf.cast(tf.reshape(data, [-1])[:total], tf.int32)
        data = tf.pad(data, [[0, total - tf.size(data)]])  # missing bytes read as NUL
        pieces = self._tokenize(data, row_lengths)
        piece_row = tf.gather(pieces.word_row, pieces.word)
        return {
            "token_ids": pieces.ids,
            "starts": pieces.begin,
            "ends": pieces.end,
            "row_lengths": tf.scatter_nd(piece_row[:, None], tf.ones_like(piece_row), tf.shape(row_lengths)),
        }

    def warm_up(self, *, max_bytes: int = WARM_UP_BYTES, max_strings: int = WARM_UP_STRINGS) -> list[int]:
        """Compiles every bucket a batch of up to `max_bytes` bytes in up to `max_strings` strings runs in.

        With `jit_compile`, XLA compiles the core once per bucket (1-4 s each,
        on the first batch of that size); call this after building the
        tokenizer (or loading it) so that no request waits for it. Returns the
        buckets compiled (sizes, see `warm_up_batches`); without `jit_compile`
        there is nothing to compile and it returns []. Text that expands past
        one slot a byte (rare, e.g. U+FDFA) compiles once more on first use.
        """
        if not self.jit_compile:
            return []
        sizes = buckets_up_to(max_bytes + max_strings + 1)
        compiled = self._compiled_stages(1)
        for size in sizes:
            compiled(tf.fill([size], bt.SPACE), tf.fill([size], -1), tf.zeros([size], tf.int32))
        return sizes

    def _tokenize(self, data: tf.Tensor, lengths: tf.Tensor) -> PieceArrays:
        """Both stages on bytes int32 [B] and lengths int32 [n] (summing to B): pieces [P], words [W]."""
        separated = bt.separate(data, lengths)
        if not self.jit_compile:
            return self._stages(*separated, expansion=None)
        separated = bt.padded(separated, bt.bucket(tf.shape(separated.data)[0]))
        pieces, overflow = self._compiled_stages(1)(*separated)
        if self.max_expansion > 1:  # rare text that expands past one slot a byte: again, with room for the worst
            pieces, _ = tf.cond(
                overflow, lambda: self._compiled_stages(self.max_expansion)(*separated), lambda: (pieces, overflow)
            )
        return PieceArrays(
            pieces.count,
            *(t[: pieces.count] for t in (pieces.ids, pieces.begin, pieces.end, pieces.word)),
            pieces.num_words,
            pieces.word_row[: pieces.num_words],
        )

    def _one_call(self):
        """`_tokenize` as one tf.function: a batch in one call and each part of a larger one run the same graph."""
        if "one_call" not in self._compiled:
            spec = [tf.TensorSpec([None], tf.int32)] * 2
            self._compiled["one_call"] = tf.function(self._tokenize, input_signature=spec, autograph=False)
        return self._compiled["one_call"]

    def _stages(self, data, row, offset, *, expansion: int | None) -> tuple[PieceArrays, tf.Tensor] | PieceArrays:
        """Stage 1 then stage 2; `expansion`: slots a byte in a padded batch (XLA), None for exact sizes."""
        if expansion is None:
            return self._pieces(self._words(data, row, offset), padded=False)
        slots = self._words(data, row, offset, num_slots=tf.shape(data)[0] * expansion)
        return self._pieces(slots, padded=True), slots.overflow

    def _compiled_stages(self, expansion: int):
        """Both stages as one tf.function that XLA compiles (once per bucket of sizes), made once per expansion."""
        key = f"stages_{expansion}"  # a string: SavedModels track the dict
        if key not in self._compiled:
            spec = [tf.TensorSpec([None], tf.int32)] * 3
            self._compiled[key] = tf.function(
                lambda data, row, offset: self._stages(data, row, offset, expansion=expansion),
                input_signature=spec,
                jit_compile=True,
                autograph=False,
            )
        return self._compiled[key]


def buckets_up_to(size: int) -> list[int]:
    """The padded sizes (powers of two from `batch.SMALLEST_BUCKET`) of batches of up to `size` = bytes + strings + 1.

    >>> buckets_up_to(300)
    [64, 128, 256, 512]
    """
    sizes = [bt.SMALLEST_BUCKET]
    while sizes[-1] < size:
        sizes.append(sizes[-1] * 2)
    return sizes


def warm_up_batches(*, max_bytes: int = WARM_UP_BYTES, max_strings: int = WARM_UP_STRINGS) -> list[list[bytes]]:
    """One batch of text per bucket `NumericCore.warm_up` compiles: what TF Serving's warm-up requests send.

    >>> [sum(map(len, batch)) + len(batch) + 1 for batch in warm_up_batches(max_bytes=100, max_strings=1)]
    [64, 128]
    """
    text = b"warm up the numeric core, one bucket at a time. "
    return [[(text * (size // len(text) + 1))[: size - 2]] for size in buckets_up_to(max_bytes + max_strings + 1)]


def _to_ragged(pieces: PieceArrays, n: tf.Tensor) -> tuple:
    """PieceArrays -> (ids, begin, end) int64 [n, (words), (pieces)]."""
    piece_splits = rows_to_splits(tf.cast(pieces.word, tf.int64), pieces.num_words)
    word_splits = rows_to_splits(tf.cast(pieces.word_row, tf.int64), n)

    def ragged(values):
        per_word = tf.RaggedTensor.from_row_splits(tf.cast(values, tf.int64), piece_splits, validate=False)
        return tf.RaggedTensor.from_row_splits(per_word, word_splits, validate=False)

    return ragged(pieces.ids), ragged(pieces.begin), ragged(pieces.end)


def check_no_overlaps(contents: Sequence[bytes]) -> None:
    """ValueError unless no token holds another and no token's end is another's start (`overlapping_tokens`).

    `BertTokenizer` refuses such tokens before it gets here (`bert_tokenizer.engines.NumericEngine.refused`).
    """
    overlap = overlapping_tokens(contents)
    if overlap:
        raise ValueError(
            f"special_tokens: {overlap}; the numeric core matches tokens that cannot overlap: drop one, "
            "or use core='string'"
        )


def overlapping_tokens(contents: Sequence[bytes]) -> str | None:
    """How two of the tokens overlap (one inside another, or one's end the other's start), or None.

    >>> overlapping_tokens([b"[MASK]", b"[CLS]"]) is None, overlapping_tokens([b"ab", b"bc"])
    (True, "'ab' ends with the start of 'bc'")
    """
    for a in contents:
        for b in contents:
            if a != b and b in a:
                return f"{b.decode(errors='replace')!r} is inside {a.decode(errors='replace')!r}"
            for k in range(1, min(len(a), len(b))):
                if a[-k:] == b[:k]:
                    return f"{a.decode(errors='replace')!r} ends with the start of {b.decode(errors='replace')!r}"
    return None
