"""Tokenizing each distinct space-separated chunk of a batch once.

Text repeats its chunks ("the", "of", ...): cutting strings at ASCII spaces,
tokenizing the distinct chunks and scattering the results back to every
occurrence skips most of the work. It is exact when no word can span a space
(`words_never_span_spaces`); offsets then only move by the chunk's start.
"""

from __future__ import annotations

import functools
import re
from typing import NamedTuple

import numpy as np
import tensorflow as tf

from tf_wordpiece import unicode_tables as ut
from tf_wordpiece.added_tokens import WHITE_SPACE
from tf_wordpiece.basic_tokenizer import BasicTokenizer
from tf_wordpiece.normalizers import SPACE, Normalizer
from tf_wordpiece.pre_tokenizers import ISOLATED, WHITESPACE, WORD
from tf_wordpiece.shapes import rows_of_values
from tf_wordpiece.vocab import Vocab


def words_never_span_spaces(basic_tokenizer: BasicTokenizer) -> bool:
    """Whether tokenizing space-separated chunks one by one gives the words of the whole string.

    True when " " is dropped white space and normalizes to itself (then every
    word ends at a space, and normalizing one code point at a time never
    reaches across one), and no added token can take a space: none contains
    white space or strips it (lstrip / rstrip), and none is matched after
    normalization. tensorflow_text's `[unused<n>]` merge needs its three words
    to touch, so it never spans a space either.

    >>> from tf_wordpiece.basic_tokenizer import tf_text_basic_tokenizer
    >>> words_never_span_spaces(tf_text_basic_tokenizer(lower_case=True))
    True
    >>> words_never_span_spaces(tf_text_basic_tokenizer(keep_whitespace=True))
    False
    """
    for token in basic_tokenizer.added_tokens.flags:
        if token.lstrip or token.rstrip or token.normalized or any(ord(c) in WHITE_SPACE for c in token.content):
            return False
    return bool(not basic_tokenizer.pre_tokenizer.keep_whitespace
                and basic_tokenizer.normalizer.dense_rows[SPACE] == 0
                and basic_tokenizer.pre_tokenizer.dense_classes[SPACE] == WHITESPACE)


_NO_MARK, _UNKNOWN_MARK = -1, -2


class KnownChunks:
    """Chunks whose tokens are found by lookups alone: plain ASCII words with a mark on either side.

    A chunk that is at most one mark, a run of word characters and one mark
    (`"(hello),"` is not one, `"hello,"` and `"(it"` are) is cut by the basic
    tokenizer into exactly those words, when every word character is printable
    ASCII that normalizes to itself (or, if the normalizer lowercases A-Z, to
    its ASCII lowercase) and stays in its word, and every mark is printable
    ASCII that normalizes to itself and is a word of its own. When each of
    those words is a vocabulary token within the word length limit, WordPiece
    gives that token. Chunks that could hold an added token or tensorflow_text's
    `[unused<n>]` are left out. Most English chunks are known.

    Args:
      basic_tokenizer: the tokenizer whose words these must be.
      vocab: the vocabulary.
      limit: the longest word (bytes or characters, the smaller) WordPiece does not make unknown.

    Use `KnownChunks.of(...)`, which gives None when no chunk can be known.
    """

    def __init__(self, word_chars: str, marks: str, *, lowercase: bool, excluded: list[str], vocab: Vocab, limit: int):
        mark, word = _char_class(marks), _char_class(word_chars)
        self.pattern = f"(?:{mark}?{word}+{mark}?|{mark}{mark}?)"  # not ""
        self.lowercase = lowercase
        self.excluded = f".*(?:{'|'.join(excluded)}).*" if excluded else None
        self.vocab = vocab
        self.limit = limit
        mark_ids = np.full(256, _NO_MARK, np.int64)  # byte -> the mark's id, or why there is none
        for mark in marks:
            mark_ids[ord(mark)] = vocab.id_of(mark) if vocab.id_of(mark) >= 0 else _UNKNOWN_MARK
        with tf.init_scope():  # an eager constant, even when built inside a tf.function
            self._mark_ids = tf.constant(mark_ids)

    @classmethod
    def of(cls, basic_tokenizer: BasicTokenizer, vocab: Vocab, *, limit: int) -> "KnownChunks | None":
        """The known chunks of this basic tokenizer, or None when there are none.

        >>> from tf_wordpiece.basic_tokenizer import tf_text_basic_tokenizer
        >>> known = KnownChunks.of(tf_text_basic_tokenizer(lower_case=True), Vocab(["[UNK]", "hi", ","]), limit=100)
        >>> [t.numpy().tolist() for t in known.find(tf.constant(["Hi,", "x", ",,", "(hi", "hi!"]))]
        [[0, 2], [[-1, 1, 2], [2, -1, 2]], [[0, 0, 2], [0, 1, 1]], [[0, 2, 3], [1, 1, 2]]]
        """
        normalizer, classes = basic_tokenizer.normalizer, basic_tokenizer.pre_tokenizer.dense_classes
        lowercase = lowercases_ascii(normalizer)
        word_chars, marks = [], []
        for code_point in range(0x21, 0x7F):
            row = normalizer.dense_rows[code_point]
            output = (code_point,) if row == 0 else normalizer.row_outputs[row]
            lowered = ord(chr(code_point).lower()) if lowercase else code_point
            if output == (lowered,) and classes[lowered] == WORD:
                word_chars.append(chr(code_point))
            elif output == (code_point,) and classes[code_point] == ISOLATED:
                marks.append(chr(code_point))
        if not word_chars or not marks or limit < 1:
            return None
        allowed = set(word_chars) | set(marks)
        excluded = [re.escape(token.content) for token in basic_tokenizer.added_tokens.flags
                    if token.content and set(token.content) <= allowed]
        if basic_tokenizer.preserve_unused_token:
            excluded.append(r"\[(?i:unused)[0-9]+\]")
        return cls("".join(word_chars), "".join(marks), lowercase=lowercase, excluded=excluded,
                   vocab=vocab, limit=limit)

    def find(self, chunks: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor, tf.Tensor, tf.Tensor]:
        """Chunks string [u] -> (known int64 [k], indices of the known chunks, and their ids, begin and end int64 [k, 3]).

        Row i holds the mark before, the word and the mark after (ids -1 where
        absent) of chunk known[i], with their byte offsets in the chunk.
        """
        candidate = tf.strings.regex_full_match(chunks, self.pattern)
        if self.excluded is not None:
            candidate &= ~tf.strings.regex_full_match(chunks, self.excluded)
        at = tf.reshape(tf.where(candidate), [-1])
        chunks = tf.gather(chunks, at)
        length = tf.cast(tf.strings.length(chunks), tf.int64)
        # Each chunk's first and last byte as a number (all are ASCII).
        ends = tf.stack([tf.strings.substr(chunks, 0, 1), tf.strings.substr(chunks, length - 1, tf.ones_like(length))], axis=1)
        mark_ids = tf.gather(self._mark_ids, tf.strings.unicode_decode(ends, "UTF-8").to_tensor(shape=[None, 2, 1])[:, :, 0])
        lead = mark_ids[:, 0] != _NO_MARK
        trail = (mark_ids[:, 1] != _NO_MARK) & (length >= 2)
        word_begin = tf.cast(lead, tf.int64)
        word_end = length - tf.cast(trail, tf.int64)
        word = tf.strings.substr(chunks, word_begin, word_end - word_begin)
        word_id = self.vocab.table.lookup(tf.strings.lower(word) if self.lowercase else word)
        has_word = word_end > word_begin
        ids = tf.stack([tf.where(lead, mark_ids[:, 0], -1), tf.where(has_word, word_id, -1),
                        tf.where(trail, mark_ids[:, 1], -1)], axis=1)
        known = (((word_id >= 0) & (word_end - word_begin <= self.limit)) | ~has_word) & tf.reduce_all(ids != _UNKNOWN_MARK, axis=1)
        begin = tf.stack([tf.zeros_like(length), word_begin, word_end], axis=1)
        end = tf.stack([word_begin, word_end, length], axis=1)
        return (tf.boolean_mask(at, known), *(tf.boolean_mask(t, known) for t in (ids, begin, end)))


def lowercases_ascii(normalizer: Normalizer) -> bool:
    """Whether the normalizer maps A-Z to a-z (then `tf.strings.lower` is its ASCII part)."""
    return all(normalizer.row_outputs[normalizer.dense_rows[c]] == (c + 32,) for c in range(ord("A"), ord("Z") + 1))


def _char_class(chars: str) -> str:
    """Sorted ASCII characters -> an RE2 character class, consecutive runs as `a-z`, all escaped."""
    items, run = [], [chars[0]]
    for char in chars[1:] + "\0":
        if char != "\0" and ord(char) == ord(run[-1]) + 1:
            run.append(char)
            continue
        escape = lambda c: c if c.isalnum() else "\\" + c  # noqa: E731
        items.append(escape(run[0]) if len(run) == 1 else f"{escape(run[0])}-{escape(run[-1])}")
        run = [char]
    return "[" + "".join(items) + "]"


class Chunks(NamedTuple):
    """A flat batch of n strings cut at each " ".

    unique: string [u], the distinct chunks.
    occurrence: int64 [c], each chunk's index in `unique` (chunks in string order).
    row_splits: int64 [n + 1], the chunks of string i are occurrence[row_splits[i]:row_splits[i + 1]].
    """

    unique: tf.Tensor
    occurrence: tf.Tensor
    row_splits: tf.Tensor


def cut_at_spaces(strings: tf.Tensor) -> Chunks:
    """string [n] -> Chunks; "" is one empty chunk, and k spaces make k + 1 chunks.

    >>> chunks = cut_at_spaces(tf.constant(["a b", " a"]))
    >>> chunks.unique.numpy().tolist(), chunks.occurrence.numpy().tolist(), chunks.row_splits.numpy().tolist()
    ([b'a', b'b', b''], [0, 1, 2, 0], [0, 2, 4])
    """
    chunks = tf.strings.split(strings, " ")
    unique, occurrence = tf.unique(chunks.flat_values, out_idx=tf.int64)
    return Chunks(unique, occurrence, chunks.row_splits)


def chunk_starts(lengths: tf.Tensor, row_splits: tf.Tensor) -> tf.Tensor:
    """int64 [c]: each chunk's byte start in its string, given its byte length [c] (one space between chunks).

    >>> chunk_starts(tf.constant([1, 0, 3, 2], tf.int64), tf.constant([0, 3, 4], tf.int64)).numpy().tolist()
    [0, 2, 3, 0]
    """
    total = tf.cumsum(lengths + 1, exclusive=True)
    row = rows_of_values(row_splits[:-1], tf.size(lengths))
    return total - tf.gather(tf.gather(total, row_splits[:-1]), row)  # every string has a chunk ("" has one)


def scatter_to_chunks(outputs: tuple, chunks: Chunks, starts: tf.Tensor) -> tuple:
    """Per-unique-chunk (pieces, begin, end) [u, words, pieces] -> the same per string [n, words, pieces].

    Offsets move by each occurrence's `starts` (int64 [c]).
    """
    pieces, begin, end = outputs
    # One ragged gather of piece indices carries the structure; the values follow with flat gathers.
    index = tf.RaggedTensor.from_nested_row_splits(
        tf.range(tf.size(pieces.flat_values, out_type=tf.int64)), pieces.nested_row_splits, validate=False)
    gathered = tf.gather(index, chunks.occurrence)
    word_splits, piece_splits = gathered.nested_row_splits
    piece_index = gathered.flat_values
    word_chunk = rows_of_values(word_splits[:-1], tf.size(piece_splits) - 1)
    piece_chunk = tf.gather(word_chunk, rows_of_values(piece_splits[:-1], tf.size(piece_index)))
    shift = tf.gather(starts, piece_chunk)
    string_splits = tf.gather(word_splits, chunks.row_splits)
    splits = [string_splits, piece_splits]
    return (
        tf.RaggedTensor.from_nested_row_splits(tf.gather(pieces.flat_values, piece_index), splits, validate=False),
        tf.RaggedTensor.from_nested_row_splits(tf.gather(begin.flat_values, piece_index) + shift, splits, validate=False),
        tf.RaggedTensor.from_nested_row_splits(tf.gather(end.flat_values, piece_index) + shift, splits, validate=False),
    )


def normalized_lengths(strings: tf.Tensor, basic_tokenizer: BasicTokenizer) -> tf.Tensor:
    """int64 [n]: the UTF-8 byte length of each string once normalized, as `BasicTokenizer` counts it.

    Invalid UTF-8 keeps its own length with `invalid_utf8="keep"` and reads
    as U+FFFD with `"replace"`. For tokenizers without added tokens.
    """
    chars, starts = tf.strings.unicode_decode_with_offsets(
        strings, "UTF-8", errors="replace", replacement_char=ut.INVALID_UTF8)
    code_points = chars.flat_values
    if basic_tokenizer.invalid_utf8 == "replace":
        code_points = tf.where(code_points == ut.INVALID_UTF8, ut.REPLACEMENT_CHARACTER, code_points)
    length = tf.cast(_normalized_byte_lengths(basic_tokenizer.normalizer)(code_points), tf.int64)
    # A kept invalid sequence takes its source bytes: up to the next character, or the string's end.
    string_length = tf.cast(tf.strings.length(strings), tf.int64)
    next_start = tf.concat([starts.flat_values[1:], [0]], 0)
    rows = rows_of_values(chars.row_splits[:-1], tf.size(code_points))
    is_last = rows != tf.concat([rows[1:], [-1]], 0)
    source = tf.where(is_last, tf.gather(string_length, rows), next_start) - starts.flat_values
    length = tf.where(length < 0, source, length)
    return tf.math.unsorted_segment_sum(length, rows, tf.size(strings))


@functools.cache  # normalizers are shared and immutable
def _normalized_byte_lengths(normalizer: Normalizer) -> ut.CodePointLookup:
    """Code point -> the UTF-8 byte length of its normalization; -1 for invalid UTF-8 left as it is."""
    code_points = np.arange(ut.NUM_CODE_POINTS)
    own = 1 + (code_points >= 0x80) + (code_points >= 0x800) + (code_points >= 0x10000)
    row_bytes = np.array([0] + [len("".join(map(chr, out)).encode("utf-8", "surrogatepass"))
                                for out in normalizer.row_outputs[1:]], np.int64)
    rows = normalizer.dense_rows
    lengths = np.where(rows == 0, own, row_bytes[rows])
    if rows[ut.INVALID_UTF8] == 0:
        lengths[ut.INVALID_UTF8] = -1
    return ut.CodePointLookup(lengths)
