"""BertTokenizer: basic tokenizer + WordPiece, in core TensorFlow ops only."""

from __future__ import annotations

import dataclasses
import os
from typing import Sequence

import tensorflow as tf

from tf_wordpiece.base import Detokenizer, TokenizerWithOffsets
from tf_wordpiece.bert import space_chunks
from tf_wordpiece.bert.added_tokens import AddedToken, AddedTokens
from tf_wordpiece.bert.decoders import WordPieceDecoder, hf_wordpiece_decode
from tf_wordpiece.bert.post_processors import Encoding, Segment, TemplateProcessing, check_encode_options
from tf_wordpiece.bert.recipes import recipe_for
from tf_wordpiece.bert.tokenizer_json import bert_kwargs_from_tokenizer_json, write_tokenizer_json
from tf_wordpiece.bert.wordpiece import WordpieceTokenizer
from tf_wordpiece.shapes import (
    as_ids,
    as_string_batch,
    as_word_batch,
    gather_in_rows,
    map_over_strings,
    merge_words,
    rows_and_positions,
    rows_to_splits,
    scalar_as_batch,
    value_rows,
)
from tf_wordpiece.vocab import Vocab, VocabLike

OFFSET_MODES = ("original", "normalized")
CORES = ("string", "numeric", "xla")
# decoder's default, BERT's WordPiece decoder with this tokenizer's suffix indicator (None means no decoder).
_BERT_DECODER = object()


class BertTokenizer(TokenizerWithOffsets, Detokenizer):
    """BERT tokenization: normalize, split into words, split words into WordPiece ids.

    A drop-in for `tensorflow_text.BertTokenizer` (`compat="tf_text"`) or for
    Hugging Face `tokenizers` BERT (`compat="hf"`), giving the peer's ids
    exactly, built from core TensorFlow ops only (it runs in `tf.function`,
    `tf.data` and SavedModels without tensorflow_text).

    Shape transformation: `[...] => [..., words, pieces]`. Offsets are int64
    byte offsets into the original strings (`offsets="original"`, like
    Hugging Face), or into the normalized strings (`offsets="normalized"`,
    what tensorflow_text.BertTokenizer returns).

    Args:
      vocab: vocab.txt path (line n is id n), list of tokens, or a
        `tf.lookup.StaticHashTable` with dense ids (or a
        `tf.lookup.StaticVocabularyTable`, whose OOV buckets give unknown words ids).
      compat: `"tf_text"` or `"hf"`: whose normalization and splitting rules to follow.
        Defaults to `"tf_text"`.
      **options: the compat mode's own options, with its defaults: see
        `TfTextRecipe` (`lower_case`, `keep_whitespace`, `normalization_form`,
        `preserve_unused_token`, `split_unknown_characters`,
        `max_chars_per_token`, `max_bytes_per_word` (100),
        `max_input_chars_per_word`) and `HfRecipe` (`lower_case`,
        `clean_text`, `handle_chinese_chars`, `strip_accents`,
        `do_basic_tokenize`, `max_input_chars_per_word` (100),
        `max_bytes_per_word`) in `tf_wordpiece.bert.recipes`. An option of the
        other mode is a ValueError naming it.
      token_out_type: `tf.int64` ids or `tf.string` pieces. Defaults to `tf.int64`.
      unknown_token: token for unknown words. None (compat="tf_text" only):
        an unknown word is its own piece, its id from the vocabulary's table
        (with a `tf.lookup.StaticVocabularyTable`, an OOV bucket), as in
        tensorflow_text; see `WordpieceTokenizer` (a word with invalid UTF-8
        is its text with U+FFFD, not tensorflow_text's raw bytes, so its
        bucket differs). Defaults to `"[UNK]"`.
      suffix_indicator: prefix of non-initial pieces. Defaults to `"##"`.
      special_tokens: added tokens (str, or `AddedToken` for an id outside the
        vocabulary and Hugging Face's flags) matched as written in the raw text
        before normalization, each one id. Defaults to the BERT specials present
        in the vocabulary for hf, none for tf_text (tensorflow_text splits `[MASK]`).
      post_processor: the `encode` template, truncation and padding tokens.
        Defaults to BERT's `[CLS] $A [SEP]` / `[CLS] $A [SEP] $B:1 [SEP]:1`
        when the vocabulary has `[CLS]` and `[SEP]`.
      decoder: Hugging Face's WordPiece decoder settings for `decode`; None
        joins tokens with spaces. Defaults to `WordPieceDecoder(suffix_indicator, cleanup=True)`.
      offsets: `"original"` or `"normalized"`. With `"normalized"`, the
        unknown token of a word over `max_bytes_per_word` ends, as in
        tensorflow_text, len(unknown_token) bytes past the word's start; with
        `"original"` it ends at the word's end. Defaults to `"original"`.
      algorithm: the WordPiece matcher, `"linmaxmatch"` or `"maxmatch"` (same
        ids; see `WordpieceTokenizer`). Defaults to `"maxmatch"`.
      core: how `tokenize` and `tokenize_with_offsets` run: `"string"`
        (string ops: every option, no compilation), `"numeric"`
        (`tf_wordpiece.numeric`: the strings become bytes once, then integer
        ops only) or `"xla"` (the numeric core compiled by XLA, once per
        bucket of batch sizes; faster than `"string"` from batches of about 64
        strings, slower on single strings, see docs/benchmarks.md). The numeric
        core gives the same ids and offsets; it takes the default options of
        both compat modes (an option it does not take is a ValueError naming
        it). `encode` runs on string ops either way. Defaults to `"string"`.
      parallel_shards: inside a graph, the batch is cut into this many slices
        tokenized by independent subgraphs that TensorFlow runs in parallel
        (results are identical). More than 1 lowers the wall time of large
        batches on idle cores, but every shard adds its graph's fixed cost
        to each call and its CPU time, which is what a `tf.data` pipeline or
        a busy server pays. Defaults to `1`.

    >>> tok = BertTokenizer(["[UNK]", "hello", "world", "!", "##s"], lower_case=True)
    >>> tok.tokenize(["Hello worlds!"]).to_list()
    [[[1], [2, 4], [3]]]
    >>> pieces, begin, end = tok.tokenize_with_offsets(["Hello worlds!"])
    >>> begin.to_list(), end.to_list()
    ([[[0], [6, 11], [12]]], [[[5], [11, 12], [13]]])
    """

    def __init__(
        self,
        vocab: VocabLike,
        *,
        compat: str = "tf_text",
        token_out_type: tf.DType = tf.int64,
        unknown_token: str | None = "[UNK]",
        suffix_indicator: str = "##",
        special_tokens: Sequence[str | AddedToken] | None = None,
        post_processor: TemplateProcessing | None = None,
        decoder: WordPieceDecoder | None = _BERT_DECODER,
        offsets: str = "original",
        parallel_shards: int = 1,
        algorithm: str = "maxmatch",
        core: str = "string",
        **options,
    ):
        super().__init__()
        self.recipe = recipe_for(compat, options)
        _check_choice("offsets", offsets, OFFSET_MODES)
        self.recipe.check_unknown_token(unknown_token)
        self.vocab = Vocab(vocab, required=[unknown_token] if isinstance(unknown_token, str) else [])
        if special_tokens is None:
            special_tokens = self.recipe.default_special_tokens(lambda token: self.vocab.id_of(token) >= 0)
        self.added_tokens = self._resolve_added_tokens(special_tokens)
        if not isinstance(parallel_shards, int) or parallel_shards < 1:
            raise ValueError(f"parallel_shards: expected an int >= 1, got {parallel_shards!r}")
        self.parallel_shards = parallel_shards
        self.compat = compat
        self.offsets = offsets
        self.special_tokens = [t.content for t in self.added_tokens]
        self._special_ids = tf.constant([t.id for t in self.added_tokens] or [0], tf.int64)
        self.basic_tokenizer = self.recipe.basic_tokenizer(AddedTokens(self.added_tokens))
        self.wordpiece_tokenizer = WordpieceTokenizer(
            self.vocab,
            suffix_indicator=suffix_indicator,
            token_out_type=token_out_type,
            unknown_token=unknown_token,
            algorithm=algorithm,
            **self.recipe.wordpiece_options(),
        )
        # Whether each distinct space-separated chunk of a batch can be tokenized once (exact; see space_chunks).
        self._by_chunks = space_chunks.words_never_span_spaces(self.basic_tokenizer) and (
            offsets == "original" or not (self.added_tokens or self.basic_tokenizer.normalizer.compose)
        )
        self.post_processor = post_processor if post_processor is not None else self._bert_template()
        self.decoder = WordPieceDecoder(suffix_indicator, True) if decoder is _BERT_DECODER else decoder
        self._decode_tokens, self._decode_special = self._decode_tables()
        _check_choice("core", core, CORES)
        self.core = core
        self._numeric_core = None if core == "string" else self._build_numeric_core(jit_compile=core == "xla")

    def _build_numeric_core(self, *, jit_compile: bool):
        """The numeric core for this tokenizer's settings; a ValueError naming an option it does not take."""
        from tf_wordpiece.numeric.core import NumericCore

        basic, wordpiece = self.basic_tokenizer, self.wordpiece_tokenizer
        unsupported = {
            "keep_whitespace": basic.pre_tokenizer.keep_whitespace,
            "normalization_form": basic.normalizer.compose and "NFC/NFKC",
            "preserve_unused_token": basic.preserve_unused_token,
            "max_chars_per_token": wordpiece.max_chars_per_token,
            "split_unknown_characters": wordpiece.split_unknown_characters,
            "unknown_token": wordpiece.unknown_token is None and "None",
            "offsets": self.offsets != "original" and self.offsets,
            "special_tokens": any(t.normalized or t.lstrip or t.rstrip or t.single_word for t in self.added_tokens)
            and "tokens with normalized/lstrip/rstrip/single_word",
        }
        given = {name: value for name, value in unsupported.items() if value}
        if given:
            raise ValueError(
                f"core={self.core!r}: the numeric core does not take "
                f"{', '.join(f'{k}={v!r}' for k, v in given.items())}; use core='string' for it"
            )
        return NumericCore(
            normalization=basic.normalizer.table,
            classes=basic.pre_tokenizer.classes,
            tokens=self.vocab.tokens,
            suffix_indicator=wordpiece.suffix_indicator,
            unknown_id=wordpiece.unknown_id,
            max_bytes_per_word=wordpiece.max_bytes_per_word,
            max_chars_per_word=wordpiece.max_chars_per_word,
            invalid_utf8=basic.invalid_utf8,
            added_tokens=[(t.content.encode("utf-8"), t.id) for t in self.added_tokens],
            jit_compile=jit_compile,
        )

    def _resolve_added_tokens(self, tokens) -> list[AddedToken]:
        resolved = []
        for token in tokens:
            token = token if isinstance(token, AddedToken) else AddedToken(token)
            if token.id is None:
                if self.vocab.id_of(token.content) < 0:
                    raise ValueError(
                        f"special_tokens: {token.content!r} is not in the {self.vocab.source}; add it to the "
                        "vocabulary or pass AddedToken(content, id=...)"
                    )
                token = dataclasses.replace(token, id=self.vocab.id_of(token.content))
            elif token.id < 0:
                raise ValueError(f"special_tokens: {token.content!r} has a negative id {token.id}")
            resolved.append(token)
        return resolved

    def _bert_template(self) -> TemplateProcessing | None:
        ids = {t.content: t.id for t in self.added_tokens}
        cls_id, sep_id = (ids.get(t, self.vocab.id_of(t)) for t in ("[CLS]", "[SEP]"))
        if cls_id < 0 or sep_id < 0:
            return None
        pad_id = ids.get("[PAD]", self.vocab.id_of("[PAD]"))
        return TemplateProcessing.bert(cls_id=cls_id, sep_id=sep_id, pad_id=max(pad_id, 0))

    def _decode_tables(self) -> tuple[tf.Tensor, tf.Tensor]:
        """Each id's token (added tokens first, "" for ids with none) and whether it is special."""
        size = max([len(self.vocab)] + [t.id + 1 for t in self.added_tokens])
        tokens = self.vocab.tokens + [""] * (size - len(self.vocab))
        special = [False] * size
        specials = {t.content for t in self.added_tokens if t.special}
        for t in self.added_tokens:
            # Like tokenizers: a normalized=True token decodes to its normalized form,
            # special if that is a special's content.
            text = self.basic_tokenizer.hf_normalized(t.content) if t.normalized else t.content
            tokens[t.id], special[t.id] = text, text in specials
        with tf.init_scope():
            return tf.constant(tokens, tf.string), tf.constant(special, tf.bool)

    @classmethod
    def from_tokenizer_json(cls, path: str | os.PathLike, **overrides) -> "BertTokenizer":
        """Builds a compat="hf" tokenizer from a Hugging Face tokenizer.json (BERT family).

        Normalizer, pre-tokenizer, WordPiece model, added tokens (with their
        flags), template post-processor, decoder and padding token are read;
        any component tf_wordpiece cannot reproduce is a ValueError naming it.
        `overrides` are BertTokenizer options that replace the file's.
        """
        kwargs = bert_kwargs_from_tokenizer_json(path)
        kwargs.update(overrides)
        try:
            return cls(kwargs.pop("vocab"), **kwargs)
        except ValueError as e:  # e.g. an unk_token not in the vocabulary: say which file
            raise ValueError(f"{os.fspath(path)!r}: {e}") from None

    @classmethod
    def from_vocab(cls, path: str | os.PathLike, *, lower_case: bool = True, **options) -> "BertTokenizer":
        """A compat="hf" tokenizer from a vocab.txt, with BERT's template and decoder (uncased by default).

        Same as `BertTokenizer(path, compat="hf", lower_case=lower_case, **options)`.
        """
        return cls(path, compat="hf", lower_case=lower_case, **options)

    def save(self, path: str | os.PathLike) -> None:
        """Writes a Hugging Face tokenizer.json (atomically) that `tokenizers.Tokenizer.from_file` loads.

        Only compat="hf" tokenizers can be written (tokenizer.json cannot express
        tensorflow_text's normalization).
        """
        write_tokenizer_json(self, path)

    def encode(
        self,
        texts,
        pairs=None,
        *,
        add_special_tokens: bool = True,
        truncation: bool | str | None = None,
        max_length: int | None = None,
        padding: bool | str | None = None,
        pad_to_multiple_of: int | None = None,
        is_pretokenized: bool = False,
    ) -> Encoding:
        """Model inputs, like Hugging Face's `Tokenizer.encode_batch`: template, truncation, padding.

        Args:
          texts: string [batch] (or a scalar, which drops the batch axis); with
            `is_pretokenized`, words [batch, (words)] (ragged, dense or Python
            lists; one list of words [words] drops the batch axis).
          pairs: optional string [batch], the second segment of each input
            (words [batch, (words)] with `is_pretokenized`).
          add_special_tokens: apply the template's special tokens. Defaults to True.
          truncation: None (off), True or "longest_first", "only_first",
            "only_second"; counts the template's tokens toward `max_length`.
          max_length: the length to truncate (and pad, with padding="max_length") to.
          padding: None (off, ragged outputs), True or "longest" (the batch's
            longest row), or "max_length"; right side, with the pad id and type id.
          pad_to_multiple_of: round the padded length up to a multiple of this.
          is_pretokenized: the inputs are already split into words, as
            tokenizers' `is_pretokenized=True`: each word is normalized and
            split on its own (`"world!"` still gives `world`, `!`), `word_ids`
            are the input words' indices and offsets are bytes into each word.
            Defaults to False.

        Returns:
          `Encoding(ids, type_ids, attention_mask, offsets,
          special_tokens_mask, word_ids, sequence_ids)`: int64 ragged
          [batch, tokens] (dense [batch, length] when padding), offsets
          [batch, tokens, 2] byte offsets (begin, end) into the token's own
          string, (0, 0) for special and padding tokens. As in tokenizers,
          `special_tokens_mask` is 1 for the template's tokens and padding,
          `word_ids` is each token's word in its text and `sequence_ids` its
          text (0 or 1), both -1 (tokenizers' None) for special and padding tokens.

        >>> tok = BertTokenizer(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "hello", "world"], compat="hf", lower_case=True)
        >>> enc = tok.encode(["Hello", "hello world"], ["World", "world"], padding=True)
        >>> enc.ids.numpy().tolist()
        [[2, 4, 3, 5, 3, 0], [2, 4, 5, 3, 5, 3]]
        >>> enc.type_ids.numpy().tolist()
        [[0, 0, 0, 1, 1, 0], [0, 0, 0, 0, 1, 1]]
        >>> enc.word_ids.numpy().tolist(), enc.sequence_ids.numpy().tolist()
        ([[-1, 0, -1, 0, -1, -1], [-1, 0, 1, -1, 0, -1]], [[-1, 0, -1, 1, -1, -1], [-1, 0, 0, -1, 1, -1]])
        >>> enc.special_tokens_mask.numpy().tolist()
        [[1, 0, 1, 0, 1, 1], [1, 0, 0, 1, 0, 1]]
        >>> enc = tok.encode([["Hello", "world!"]], is_pretokenized=True)
        >>> enc.ids.to_list(), enc.word_ids.to_list(), enc.offsets.to_list()
        ([[2, 4, 5, 1, 3]], [[-1, 0, 1, 1, -1]], [[[0, 0], [0, 5], [0, 5], [5, 6], [0, 0]]])
        """
        if self.post_processor is None:
            raise ValueError(
                "post_processor: the vocabulary lacks [CLS] or [SEP], so there is no default template; "
                "pass post_processor=TemplateProcessing(...)"
            )
        if self.wordpiece_tokenizer.token_out_type == tf.string:
            raise ValueError("token_out_type: encode returns ids; build the tokenizer with token_out_type=tf.int64")
        truncation, padding = check_encode_options(
            self.post_processor,
            is_pair=pairs is not None,
            add_special_tokens=add_special_tokens,
            truncation=truncation,
            max_length=max_length,
            padding=padding,
            pad_to_multiple_of=pad_to_multiple_of,
        )
        as_batch = as_word_batch if is_pretokenized else as_string_batch
        texts, scalar = as_batch(texts, "texts")
        strings = texts
        if pairs is not None:
            pairs, pair_scalar = as_batch(pairs, "pairs")
            if pair_scalar != scalar:
                raise ValueError("pairs: must have the same shape as texts (both scalars or both [batch])")
            strings = tf.concat([texts, pairs], axis=0)
        pieces = self._encode_pieces(strings, is_pretokenized)  # [n, words, pieces]
        ids, begin, end, word = (merge_words(t) for t in (*pieces, _word_indices(pieces[0])))
        segments = Segment(tf.cast(ids, tf.int64), begin, end, word)
        first = second = segments
        if pairs is not None:
            size = texts.nrows() if is_pretokenized else tf.shape(texts, out_type=tf.int64)[0]
            first, second = (Segment(*(t[a:b] for t in segments)) for a, b in ((0, size), (size, 2 * size)))
        else:
            second = None
        encoding = self.post_processor.process(
            first,
            second,
            add_special_tokens=add_special_tokens,
            truncation=truncation,
            max_length=max_length,
            padding=padding,
            pad_to_multiple_of=pad_to_multiple_of,
        )
        return Encoding(*(t[0] for t in encoding)) if scalar else encoding

    def _encode_pieces(self, strings, is_pretokenized: bool) -> tuple:
        """string [n] -> (ids, begin, end) [n, words, pieces]; words [n, (words)] -> the same, each input word
        tokenized as a string of its own (offsets into it) and its pieces gathered as one word."""
        if not is_pretokenized:
            return self._flat_tokenize_with_offsets(strings)
        per_word = self._flat_tokenize_with_offsets(strings.flat_values)  # [input words, words, pieces]
        return tuple(strings.with_flat_values(merge_words(t)) for t in per_word)

    def decode(self, ids, *, skip_special_tokens: bool = True, clean_up_tokenization_spaces: bool = False) -> tf.Tensor:
        """ids int [batch, tokens] (dense or ragged) -> string [batch], like HF's `Tokenizer.decode_batch`;
        ids int [tokens] (or a Python list of int) -> a string scalar, like HF's `Tokenizer.decode`.

        The WordPiece decoder's cleanup is applied per token, as tokenizers does
        (`"l ' eure"` stays spaced); `clean_up_tokenization_spaces=True` also
        applies transformers' whole-string `clean_up_tokenization`. Ids with no
        token are skipped.

        >>> tok = BertTokenizer(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "hello", "##s", "!"], compat="hf")
        >>> tok.decode([[2, 4, 5, 6, 3, 0]]).numpy().tolist()
        [b'hellos!']
        >>> tok.decode([[2, 4, 6]], skip_special_tokens=False).numpy().tolist()
        [b'[CLS] hello!']
        >>> tok.decode([4, 5]).numpy()
        b'hellos'
        """
        ids = as_ids(ids, "ids")
        if ids.shape.rank == 1:
            return self.decode(
                ids[None],
                skip_special_tokens=skip_special_tokens,
                clean_up_tokenization_spaces=clean_up_tokenization_spaces,
            )[0]
        prefix = None if self.decoder is None else self.decoder.prefix
        cleanup = self.decoder is not None and self.decoder.cleanup
        return hf_wordpiece_decode(
            ids,
            self._decode_tokens,
            self._decode_special,
            prefix=prefix,
            cleanup=cleanup,
            skip_special_tokens=skip_special_tokens,
            clean_up_tokenization_spaces=clean_up_tokenization_spaces,
        )

    @property
    def vocab_size(self) -> int:
        return len(self.vocab)

    def tokenize_bytes(self, data, row_lengths) -> dict[str, tf.Tensor]:
        """UTF-8 bytes in, pieces out, in integer ops only: what runs where no string op does.

        Needs `core="numeric"` or `"xla"`. `data` uint8 [B] holds the strings'
        bytes end to end, `row_lengths` int32 [n] each string's byte length.
        Returns {"token_ids", "starts", "ends": int32 [pieces] (byte offsets in
        each piece's own string, `ends` exclusive), "row_lengths": int32 [n],
        pieces per string}: the pieces of `tokenize_with_offsets`, flat.

        >>> tok = BertTokenizer(["[UNK]", "hi", "##s"], core="numeric")
        >>> out = tok.tokenize_bytes(tf.constant(list(b"his hix"), tf.uint8), [4, 3])  # "his ", "hix"
        >>> out["token_ids"].numpy().tolist(), out["row_lengths"].numpy().tolist()
        ([1, 2, 0], [2, 1])
        """
        if self._numeric_core is None:
            raise ValueError(
                f"core={self.core!r}: tokenize_bytes needs the numeric core; "
                "build the tokenizer with core='numeric' or core='xla'"
            )
        data = tf.convert_to_tensor(data)
        if data.dtype not in (tf.uint8, tf.int32):
            raise TypeError(f"data: expected uint8 (or int32) bytes, got {data.dtype.name}")
        return self._numeric_core.tokenize_bytes(data, tf.convert_to_tensor(row_lengths, tf.int32))

    def tokenize(self, strings) -> tf.RaggedTensor:
        """string [...] -> [..., words, pieces] of ids (or strings, per token_out_type).

        A scalar string gives [1, words, pieces] with compat="tf_text" (as
        tensorflow_text.BertTokenizer does) and [words, pieces] with compat="hf".

        >>> BertTokenizer(["[UNK]", "hi"]).tokenize("hi hi").to_list()
        [[[1], [1]]]
        >>> BertTokenizer(["[UNK]", "hi"], compat="hf").tokenize("hi hi").to_list()
        [[1], [1]]
        """
        return self.tokenize_with_offsets(strings)[0]

    def tokenize_with_offsets(self, strings):
        """string [...] -> (pieces, begin, end), each [..., words, pieces]; int64 byte offsets.

        Scalars as in `tokenize`.
        """
        if self.compat == "tf_text":
            strings = scalar_as_batch(strings, "strings")
        return map_over_strings(strings, "strings", self._flat_tokenize_with_offsets)

    def _flat_tokenize_with_offsets(self, flat: tf.Tensor) -> tuple:
        if self._numeric_core is not None:
            ids, begin, end = self._numeric_core.tokenize_with_offsets(flat)
            return self.wordpiece_tokenizer.to_output_type(ids), begin, end
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
            return self._tokenize_shard(flat)
        # Independent copies of the graph over slices of the batch: TensorFlow
        # runs them side by side, which hides the fixed cost of each small op.
        size = tf.size(flat)
        bounds = [size * i // shards for i in range(shards + 1)]
        outputs = [self._tokenize_shard(flat[bounds[i] : bounds[i + 1]]) for i in range(shards)]
        return tuple(tf.concat(parts, axis=0) for parts in zip(*outputs))

    def _tokenize_shard(self, flat: tf.Tensor) -> tuple:
        words = self.basic_tokenizer.split(flat)
        forced = None
        if self.special_tokens:
            forced = tf.where(words.added >= 0, tf.gather(self._special_ids, tf.maximum(words.added, 0)), -1)
        pieces = self.wordpiece_tokenizer.tokenize_flat(words.text, forced, n_chars=words.begin.row_lengths())
        if self.offsets == "original":
            char_begin, char_end = words.begin, words.end
        else:
            char_begin, char_end = words.normalized_begin, words.normalized_end
        begin = gather_in_rows(char_begin, pieces.begin)
        end = gather_in_rows(char_end, pieces.end - 1)
        if self.offsets == "normalized":  # tensorflow_text's offsets, quirk included
            end = self.wordpiece_tokenizer.tf_text_unknown_ends(pieces, begin, end)
        ids = self.wordpiece_tokenizer.to_output_type(pieces.ids, pieces.text)
        nrows = tf.size(flat, out_type=tf.int64)
        splits = rows_to_splits(words.row, nrows)
        return tuple(tf.RaggedTensor.from_row_splits(t, splits, validate=False) for t in (ids, begin, end))

    def detokenize(self, token_ids) -> tf.RaggedTensor | tf.Tensor:
        """ids [..., pieces] (or [..., words, pieces]) -> words [..., words], like tensorflow_text.

        Rank-1 ids `[pieces]` give a scalar string, its words joined by spaces,
        as tensorflow_text's FastBertTokenizer returns them.
        """
        return self.wordpiece_tokenizer.detokenize(token_ids)


def _word_indices(pieces: tf.RaggedTensor) -> tf.RaggedTensor:
    """[n, words, pieces] -> int64 [n, words, pieces]: each piece's word index in its string."""
    words = pieces.values  # [all words, pieces]
    _, position = rows_and_positions(pieces.row_lengths(), out_type=tf.int64)
    return pieces.with_values(words.with_values(tf.gather(position, value_rows(words))))


def _check_choice(name: str, value, choices) -> None:
    if value not in choices:
        raise ValueError(f"{name}: expected one of {list(choices)}, got {value!r}")
