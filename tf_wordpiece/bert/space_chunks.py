"""Tokenizing each distinct space-separated chunk of a batch once.

Text repeats its chunks ("the", "of", ...): cutting strings at ASCII spaces,
tokenizing the distinct chunks and scattering the results back to every
occurrence skips most of the work. It is exact when no word can span a space
(`words_never_span_spaces`); offsets then only move by the chunk's start.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import tensorflow as tf

from tf_wordpiece.bert.added_tokens import WHITE_SPACE
from tf_wordpiece.bert.basic_tokenizer import BasicTokenizer
from tf_wordpiece.bert.normalizers import Normalizer
from tf_wordpiece.shapes import rows_of_values, rows_to_splits
from tf_wordpiece.tf1_graphs import cache_per_graph
from tf_wordpiece.unicode import tables as ut
from tf_wordpiece.unicode.classes import WHITESPACE
from tf_wordpiece.unicode.normalization import SPACE


def words_never_span_spaces(basic_tokenizer: BasicTokenizer) -> bool:
    """Whether tokenizing space-separated chunks one by one gives the words of the whole string.

    True when " " is dropped white space and normalizes to itself (then every
    word ends at a space, and normalizing one code point at a time never
    reaches across one), and no added token can take a space: none contains
    white space or strips it (lstrip / rstrip), and none is matched after
    normalization. tensorflow_text's `[unused<n>]` merge needs its three words
    to touch, so it never spans a space either.

    >>> from tf_wordpiece.bert.recipes import TfTextRecipe
    >>> words_never_span_spaces(TfTextRecipe(lower_case=True).basic_tokenizer())
    True
    >>> words_never_span_spaces(TfTextRecipe(keep_whitespace=True).basic_tokenizer())
    False
    """
    for token in basic_tokenizer.added_tokens.flags:
        if token.lstrip or token.rstrip or token.normalized or any(ord(c) in WHITE_SPACE for c in token.content):
            return False
    return bool(
        not basic_tokenizer.pre_tokenizer.keep_whitespace
        and basic_tokenizer.normalizer.table.dense_rows[SPACE] == 0
        and basic_tokenizer.pre_tokenizer.classes.dense[SPACE] == WHITESPACE
    )


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
    # The raw op: tf.strings.split wraps it in a RaggedTensor built with a dozen more ops (bincount, checks).
    indices, values, _ = tf.raw_ops.StringSplitV2(input=strings, sep=" ")
    unique, occurrence = tf.unique(values, out_idx=tf.int64)
    return Chunks(unique, occurrence, rows_to_splits(indices[:, 0], tf.size(strings, out_type=tf.int64)))


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
        tf.range(tf.size(pieces.flat_values, out_type=tf.int64)), pieces.nested_row_splits, validate=False
    )
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
        tf.RaggedTensor.from_nested_row_splits(
            tf.gather(begin.flat_values, piece_index) + shift, splits, validate=False
        ),
        tf.RaggedTensor.from_nested_row_splits(tf.gather(end.flat_values, piece_index) + shift, splits, validate=False),
    )


def normalized_lengths(strings: tf.Tensor, basic_tokenizer: BasicTokenizer) -> tf.Tensor:
    """int64 [n]: the UTF-8 byte length of each string once normalized, as `BasicTokenizer` counts it.

    Invalid UTF-8 keeps its own length with `invalid_utf8="keep"` and reads
    as U+FFFD with `"replace"`. For tokenizers without added tokens.
    """
    chars, starts = tf.strings.unicode_decode_with_offsets(
        strings, "UTF-8", errors="replace", replacement_char=ut.INVALID_UTF8
    )
    code_points = chars.flat_values
    if basic_tokenizer.invalid_utf8 == "replace":
        code_points = tf.where(tf.equal(code_points, ut.INVALID_UTF8), ut.REPLACEMENT_CHARACTER, code_points)
    length = tf.cast(_normalized_byte_lengths(basic_tokenizer.normalizer)(code_points), tf.int64)
    # A kept invalid sequence takes its source bytes: up to the next character, or the string's end.
    string_length = tf.cast(tf.strings.length(strings), tf.int64)
    next_start = tf.concat([starts.flat_values[1:], [0]], 0)
    rows = rows_of_values(chars.row_splits[:-1], tf.size(code_points))
    is_last = tf.not_equal(rows, tf.concat([rows[1:], [-1]], 0))
    source = tf.where(is_last, tf.gather(string_length, rows), next_start) - starts.flat_values
    length = tf.where(length < 0, source, length)
    return tf.math.unsorted_segment_sum(length, rows, tf.size(strings))


@cache_per_graph  # normalizers are shared and immutable
def _normalized_byte_lengths(normalizer: Normalizer) -> ut.CodePointLookup:
    """Code point -> the UTF-8 byte length of its normalization; -1 for invalid UTF-8 left as it is."""
    code_points = np.arange(ut.NUM_CODE_POINTS)
    own = ut.utf8_length(code_points)
    row_bytes = np.array(
        [0]
        + [len("".join(map(chr, out)).encode("utf-8", "surrogatepass")) for out in normalizer.table.row_outputs[1:]],
        np.int64,
    )
    rows = normalizer.table.dense_rows
    lengths = np.where(rows == 0, own, row_bytes[rows])
    if rows[ut.INVALID_UTF8] == 0:
        lengths[ut.INVALID_UTF8] = -1
    return ut.CodePointLookup(lengths)
