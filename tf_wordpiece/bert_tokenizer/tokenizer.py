"""BertTokenizer: a recipe's basic tokenizer and WordPiece, run by an engine (string or integer ops).

`tokenize_with_offsets` is the basic tokenizer, then WordPiece, with the
offsets added once (`WordpieceTokenizer.tokenize_words`), run by the engine
that `core` names (`engines`); Hugging Face's `encode` / `decode` / `save`
come from `hugging_face.HuggingFaceMethods`.
"""

from __future__ import annotations

import dataclasses
from typing import Sequence

import tensorflow as tf

from tf_wordpiece.base import Detokenizer, TokenizerWithOffsets
from tf_wordpiece.bert.added_tokens import AddedToken, AddedTokens
from tf_wordpiece.bert.decoders import WordPieceDecoder
from tf_wordpiece.bert.post_processors import TemplateProcessing
from tf_wordpiece.bert.recipes import recipe_for
from tf_wordpiece.bert.wordpiece import OFFSET_MODES, WordpieceTokenizer
from tf_wordpiece.bert_tokenizer.engines import build_engine
from tf_wordpiece.bert_tokenizer.hugging_face import HuggingFaceMethods
from tf_wordpiece.messages import check_choice
from tf_wordpiece.numeric.core import WARM_UP_BYTES, WARM_UP_STRINGS
from tf_wordpiece.shapes import map_over_strings, scalar_as_batch
from tf_wordpiece.vocab import Vocab, VocabLike

# decoder's default, BERT's WordPiece decoder with this tokenizer's suffix indicator (None means no decoder).
_BERT_DECODER = object()


class BertTokenizer(HuggingFaceMethods, TokenizerWithOffsets, Detokenizer):
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
        tensorflow_text (invalid UTF-8 in it as its raw bytes); see
        `WordpieceTokenizer`. Defaults to `"[UNK]"`.
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
        bucket of batch sizes, 1-5 s each on first use or at `warm_up()`; then
        1.2x `"string"` at one string to 1.8x at 1000 in CPU time here, see
        docs/design.md). The numeric
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
        check_choice("offsets", offsets, OFFSET_MODES)
        if isinstance(parallel_shards, bool) or not isinstance(parallel_shards, int) or parallel_shards < 1:
            raise ValueError(f"parallel_shards: expected an int >= 1, got {parallel_shards!r}")
        self.recipe.check_unknown_token(unknown_token)
        self.compat = compat
        self.offsets = offsets
        self.vocab = Vocab(vocab, required=[unknown_token] if isinstance(unknown_token, str) else [])
        if special_tokens is None:
            special_tokens = self.recipe.default_special_tokens(lambda token: self.vocab.id_of(token) >= 0)
        self.added_tokens = self._resolve_added_tokens(special_tokens)
        self.special_tokens = [t.content for t in self.added_tokens]
        self.basic_tokenizer = self.recipe.basic_tokenizer(AddedTokens(self.added_tokens))
        self.wordpiece_tokenizer = WordpieceTokenizer(
            self.vocab,
            suffix_indicator=suffix_indicator,
            token_out_type=token_out_type,
            unknown_token=unknown_token,
            algorithm=algorithm,
            **self.recipe.wordpiece_options(),
        )
        self.engine = build_engine(
            core,
            basic_tokenizer=self.basic_tokenizer,
            wordpiece_tokenizer=self.wordpiece_tokenizer,
            added_tokens=self.added_tokens,
            offsets=offsets,
            parallel_shards=parallel_shards,
        )
        self.core = core
        self.parallel_shards = parallel_shards
        self.post_processor = post_processor if post_processor is not None else self._bert_template()
        self.decoder = WordPieceDecoder(suffix_indicator, True) if decoder is _BERT_DECODER else decoder

    def token_to_id(self, token: str) -> int | None:
        """The id of `token`: an added token's, else the vocabulary's; None if it has none (as tokenizers').

        >>> tok = BertTokenizer(["[UNK]", "hi"], special_tokens=[AddedToken("<s>", id=7)])
        >>> tok.token_to_id("hi"), tok.token_to_id("<s>"), tok.token_to_id("nope")
        (1, 7, None)
        """
        for added in self.added_tokens:
            if added.content == token:
                return added.id
        token_id = self.vocab.id_of(token)
        return None if token_id < 0 else token_id

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
        cls_id, sep_id = self.token_to_id("[CLS]"), self.token_to_id("[SEP]")
        if cls_id is None or sep_id is None:
            return None
        return TemplateProcessing.bert(cls_id=cls_id, sep_id=sep_id, pad_id=self.token_to_id("[PAD]") or 0)

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
        return self.engine.tokenize_bytes(data, row_lengths)

    def warm_up(self, *, max_bytes: int = WARM_UP_BYTES, max_strings: int = WARM_UP_STRINGS) -> list[int]:
        """With `core="xla"`, compiles now what the first batches would wait for.

        XLA compiles the core once per bucket of batch sizes (1-5 s each);
        this compiles every bucket that a batch of up to `max_bytes` bytes of
        text in up to `max_strings` strings can hit (the defaults: 64 KiB in
        1,024 strings), so that no request pays for it. Returns the bucket
        sizes compiled; [] with `core="string"` or `"numeric"`, which compile
        nothing. Exports with `core="xla"` carry the same as TF Serving's
        warm-up requests.

        >>> BertTokenizer(["[UNK]", "hi"], core="numeric").warm_up()
        []
        """
        return self.engine.warm_up(max_bytes=max_bytes, max_strings=max_strings)

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
        if self.recipe.scalar_as_batch:
            strings = scalar_as_batch(strings, "strings")
        return map_over_strings(strings, "strings", self._flat_tokenize_with_offsets)

    def _flat_tokenize_with_offsets(self, flat: tf.Tensor) -> tuple:
        """string [n] -> (tokens, begin, end) [n, words, pieces], by the engine."""
        return self.engine.tokenize_with_offsets(flat)

    def detokenize(self, token_ids) -> tf.RaggedTensor | tf.Tensor:
        """ids [..., pieces] (or [..., words, pieces]) -> words [..., words], like tensorflow_text.

        Rank-1 ids `[pieces]` give a scalar string, its words joined by spaces,
        as tensorflow_text's FastBertTokenizer returns them.
        """
        return self.wordpiece_tokenizer.detokenize(token_ids)
