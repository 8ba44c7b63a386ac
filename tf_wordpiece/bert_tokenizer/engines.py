"""Engines: what runs `BertTokenizer.tokenize_with_offsets`, string ops or integer ops.

Both take the same parts (the basic tokenizer and the WordPiece tokenizer that
the recipe built) and give the same ids and offsets; `BertTokenizer` holds one
and never asks which: what a core can do is its `capabilities`
(`tf_wordpiece.cores`), which callers ask instead of testing its name. Which
options the numeric core takes is decided here, in `NumericEngine.refused`, and
nowhere else (special tokens that overlap included).

- `StringEngine`: the basic tokenizer, then WordPiece (`tf.strings`, ragged
  tensors, `tf.lookup`): every option, no compilation.
- `NumericEngine`: `tf_wordpiece.numeric`'s core: the strings become bytes once,
  then integer ops only (XLA compiles it with `core="xla"`); it also takes
  UTF-8 bytes (`tokenize_bytes`), which TFLite's builtins and TF.js run.
"""

from __future__ import annotations

from typing import Protocol, Sequence

import tensorflow as tf

from tf_wordpiece.bert import space_chunks
from tf_wordpiece.bert.added_tokens import AddedToken
from tf_wordpiece.bert.basic_tokenizer import BasicTokenizer
from tf_wordpiece.bert.wordpiece import WordpieceTokenizer
from tf_wordpiece.cores import CORES, Capabilities, capabilities
from tf_wordpiece.numeric.core import NumericCore, overlapping_tokens

__all__ = ["CORES", "Engine", "NumericEngine", "StringEngine", "build_engine"]


class Engine(Protocol):
    """string [n] -> (tokens, begin, end), each [n, (words), (pieces)]: ids (or piece strings, per the
    WordPiece tokenizer's `token_out_type`) and int64 byte offsets."""

    core: str
    capabilities: Capabilities  # what it can do (tf_wordpiece.cores)
    takes_bytes: bool  # whether `tokenize_bytes` works: capabilities.takes_bytes

    def tokenize_with_offsets(self, flat: tf.Tensor) -> tuple: ...

    def tokenize_bytes(self, data: tf.Tensor, row_lengths: tf.Tensor) -> dict[str, tf.Tensor]: ...

    def warm_up(self, *, max_bytes: int, max_strings: int) -> list[int]: ...


def build_engine(
    core: str,
    *,
    basic_tokenizer: BasicTokenizer,
    wordpiece_tokenizer: WordpieceTokenizer,
    added_tokens: Sequence[AddedToken],
    offsets: str,
    parallel_shards: int,
) -> Engine:
    """The engine for `core` ("string", "numeric" or "xla"); a ValueError names what it cannot take."""
    capabilities(core)  # a ValueError naming core for an unknown one
    if core == "string":
        return StringEngine(basic_tokenizer, wordpiece_tokenizer, offsets=offsets, parallel_shards=parallel_shards)
    return NumericEngine(basic_tokenizer, wordpiece_tokenizer, added_tokens, offsets=offsets, core=core)


class StringEngine(tf.Module):
    """The basic tokenizer, then WordPiece, in string ops.

    When no word can span a space (the default settings of both compat
    modes), each batch is cut at spaces and each distinct chunk is tokenized
    once (`space_chunks`); `parallel_shards` > 1 cuts a batch inside a graph
    into slices that TensorFlow runs side by side (see `BertTokenizer`).
    """

    core = "string"
    capabilities = capabilities("string")
    takes_bytes = capabilities.takes_bytes

    def __init__(self, basic: BasicTokenizer, wordpiece: WordpieceTokenizer, *, offsets: str, parallel_shards: int):
        super().__init__()
        self.basic_tokenizer = basic
        self.wordpiece_tokenizer = wordpiece
        self.offsets = offsets
        self.parallel_shards = parallel_shards
        # Whether each distinct space-separated chunk of a batch can be tokenized once (exact; see space_chunks).
        self._by_chunks = space_chunks.words_never_span_spaces(basic) and (
            offsets == "original" or not (basic.added_tokens or basic.normalizer.compose)
        )

    def tokenize_with_offsets(self, flat: tf.Tensor) -> tuple:
        if not self._by_chunks:
            return self._tokenize_in_shards(flat)
        # Each distinct chunk once, over the whole batch (more repeats than per shard).
        chunks = space_chunks.cut_at_spaces(flat)
        outputs = self._tokenize_in_shards(chunks.unique)
        if self.offsets == "original":
            lengths = tf.strings.length(chunks.unique)
        else:
            lengths = space_chunks.normalized_lengths(chunks.unique, self.basic_tokenizer)
        lengths = tf.gather(tf.cast(lengths, tf.int64), chunks.occurrence)
        return space_chunks.scatter_to_chunks(outputs, chunks, space_chunks.chunk_starts(lengths, chunks.row_splits))

    def _tokenize_in_shards(self, flat: tf.Tensor) -> tuple:
        shards = 1 if tf.executing_eagerly() else self.parallel_shards
        if shards == 1:
            return self._tokenize(flat)
        # Independent copies of the graph over slices of the batch: TensorFlow
        # runs them side by side, which hides the fixed cost of each small op.
        size = tf.size(flat)
        bounds = [size * i // shards for i in range(shards + 1)]
        outputs = [self._tokenize(flat[bounds[i] : bounds[i + 1]]) for i in range(shards)]
        return tuple(tf.concat(parts, axis=0) for parts in zip(*outputs))

    def _tokenize(self, flat: tf.Tensor) -> tuple:
        words = self.basic_tokenizer.split(flat)
        return self.wordpiece_tokenizer.tokenize_words(words, offsets=self.offsets)

    def warm_up(self, *, max_bytes: int, max_strings: int) -> list[int]:
        return []  # string ops compile nothing

    def tokenize_bytes(self, data, row_lengths) -> dict[str, tf.Tensor]:
        raise ValueError(
            "core='string': tokenize_bytes needs the numeric core; build the tokenizer with core='numeric' or 'xla'"
        )


class NumericEngine(tf.Module):
    """`tf_wordpiece.numeric.NumericCore` for the parts' settings (compiled by XLA with core="xla")."""

    def __init__(
        self,
        basic: BasicTokenizer,
        wordpiece: WordpieceTokenizer,
        added_tokens: Sequence[AddedToken],
        *,
        offsets: str,
        core: str,
    ):
        super().__init__()
        self.core = core
        self.capabilities = capabilities(core)
        self.takes_bytes = self.capabilities.takes_bytes
        refused = self.refused(basic, wordpiece, added_tokens, offsets=offsets)
        if refused:
            raise ValueError(
                f"core={core!r}: the numeric core does not take "
                f"{', '.join(f'{k}={v!r}' for k, v in refused.items())}; use core='string' for it"
            )
        self.wordpiece_tokenizer = wordpiece
        self.numeric_core = NumericCore(
            normalization=basic.normalizer.table,
            classes=basic.pre_tokenizer.classes,
            tokens=wordpiece.vocab.tokens,
            suffix_indicator=wordpiece.suffix_indicator,
            unknown_id=wordpiece.unknown_id,
            max_bytes_per_word=wordpiece.max_bytes_per_word,
            max_chars_per_word=wordpiece.max_chars_per_word,
            invalid_utf8=basic.invalid_utf8,
            added_tokens=[(t.content.encode("utf-8"), t.id) for t in added_tokens],
            jit_compile=core == "xla",
        )

    @staticmethod
    def refused(
        basic: BasicTokenizer, wordpiece: WordpieceTokenizer, added_tokens: Sequence[AddedToken], *, offsets: str
    ) -> dict:
        """The settings the numeric core does not take, by option name, with the value given (empty: all taken).

        It takes the default options of both compat modes; these few are string-path only, and
        special tokens that overlap (one inside another, or one's end another's start).
        """
        overlap = overlapping_tokens([t.content.encode("utf-8") for t in added_tokens])
        settings = {
            "keep_whitespace": basic.pre_tokenizer.keep_whitespace,
            "normalization_form": basic.normalizer.compose
            and "NFC/NFKC"
            or basic.normalizer.table.reorders
            and "NFD/NFKD",
            "preserve_unused_token": basic.preserve_unused_token,
            "max_chars_per_token": wordpiece.max_chars_per_token,
            "split_unknown_characters": wordpiece.split_unknown_characters,
            "unknown_token": wordpiece.unknown_token is None and "None",
            "offsets": offsets != "original" and offsets,
            "special_tokens": any(t.normalized or t.lstrip or t.rstrip or t.single_word for t in added_tokens)
            and "tokens with normalized/lstrip/rstrip/single_word"
            or overlap
            and f"tokens that overlap ({overlap})",
        }
        return {name: value for name, value in settings.items() if value}

    def tokenize_with_offsets(self, flat: tf.Tensor) -> tuple:
        ids, begin, end = self.numeric_core.tokenize_with_offsets(flat)
        return self.wordpiece_tokenizer.to_output_type(ids), begin, end

    def tokenize_bytes(self, data, row_lengths) -> dict[str, tf.Tensor]:
        data = tf.convert_to_tensor(data)
        if data.dtype not in (tf.uint8, tf.int32):
            raise TypeError(f"data: expected uint8 (or int32) bytes, got {data.dtype.name}")
        return self.numeric_core.tokenize_bytes(data, tf.convert_to_tensor(row_lengths, tf.int32))

    def warm_up(self, *, max_bytes: int, max_strings: int) -> list[int]:
        return self.numeric_core.warm_up(max_bytes=max_bytes, max_strings=max_strings)
