"""Hugging Face's side of `BertTokenizer`: tokenizer.json in and out, `encode` and `decode`.

`HuggingFaceMethods` is mixed into `BertTokenizer`: model inputs with
templates, pairs, truncation and padding (`encode`, like tokenizers'
`encode_batch`), `decode` (like `decode_batch`), `save` (a tokenizer.json that
`tokenizers.Tokenizer.from_file` loads) and the constructors
`from_tokenizer_json` and `from_vocab`. It uses the tokenizer's parts (vocab,
added tokens, post_processor, decoder) and its
`_flat_tokenize_with_offsets`, and builds the decode tables on first use.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, TypeVar

import tensorflow as tf

from tf_wordpiece.bert.decoders import hf_wordpiece_decode
from tf_wordpiece.bert.post_processors import Encoding, Segment, check_encode_options
from tf_wordpiece.bert.tokenizer_json import bert_kwargs_from_tokenizer_json, write_tokenizer_json
from tf_wordpiece.messages import quoted_path
from tf_wordpiece.shapes import as_ids, as_string_batch, as_word_batch, merge_words, rows_and_positions, value_rows

if TYPE_CHECKING:  # the host's parts, for the declarations only
    from tf_wordpiece.bert.added_tokens import AddedToken
    from tf_wordpiece.bert.basic_tokenizer import BasicTokenizer
    from tf_wordpiece.bert.decoders import WordPieceDecoder
    from tf_wordpiece.bert.post_processors import TemplateProcessing
    from tf_wordpiece.bert.recipes import HfRecipe, TfTextRecipe
    from tf_wordpiece.bert.wordpiece import WordpieceTokenizer
    from tf_wordpiece.vocab import Vocab

_Tokenizer = TypeVar("_Tokenizer", bound="HuggingFaceMethods")


class HuggingFaceMethods:
    """Hugging Face tokenizers' API on a `BertTokenizer` (see the module docstring).

    A mixin: its host class provides the attributes declared below (set in
    its `__init__`) and `_flat_tokenize_with_offsets`; `BertTokenizer` is the host.
    """

    # What the host provides.
    compat: str
    recipe: TfTextRecipe | HfRecipe
    vocab: Vocab
    added_tokens: list[AddedToken]
    basic_tokenizer: BasicTokenizer
    wordpiece_tokenizer: WordpieceTokenizer
    post_processor: TemplateProcessing | None
    decoder: WordPieceDecoder | None

    def _flat_tokenize_with_offsets(self, flat: tf.Tensor) -> tuple:
        """The host's tokenization: string [n] -> (tokens, begin, end), each [n, words, pieces]."""
        raise NotImplementedError(f"{type(self).__name__}: a HuggingFaceMethods host defines this method")

    @classmethod
    def from_tokenizer_json(cls: type[_Tokenizer], path: str | os.PathLike, **overrides) -> _Tokenizer:
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
            raise ValueError(f"{quoted_path(path)}: {e}") from None

    @classmethod
    def from_vocab(cls: type[_Tokenizer], path: str | os.PathLike, *, lower_case: bool = True, **options) -> _Tokenizer:
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

        >>> from tf_wordpiece import BertTokenizer
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

        >>> from tf_wordpiece import BertTokenizer
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
        tokens, special = self._decode_tables()
        return hf_wordpiece_decode(
            ids,
            tokens,
            special,
            prefix=prefix,
            cleanup=cleanup,
            skip_special_tokens=skip_special_tokens,
            clean_up_tokenization_spaces=clean_up_tokenization_spaces,
        )

    def _decode_tables(self) -> tuple[tf.Tensor, tf.Tensor]:
        """Each id's token (added tokens first, "" for ids with none) and whether it is special.

        Built on the first `decode`, so that a model that never decodes holds no copy of the vocabulary for it.
        """
        if getattr(self, "_decode_table", None) is None:
            size = max([len(self.vocab)] + [t.id + 1 for t in self.added_tokens])
            tokens = self.vocab.tokens + [""] * (size - len(self.vocab))
            special = [False] * size
            specials = {t.content for t in self.added_tokens if t.special}
            for t in self.added_tokens:
                # Like tokenizers: a normalized=True token decodes to its normalized form,
                # special if that is a special's content.
                text = self.basic_tokenizer.hf_normalized(t.content) if t.normalized else t.content
                tokens[t.id], special[t.id] = text, text in specials
            with tf.init_scope():  # eager constants, even on a first call inside a tf.function
                self._decode_table = (tf.constant(tokens, tf.string), tf.constant(special, tf.bool))
        return self._decode_table


def _word_indices(pieces: tf.RaggedTensor) -> tf.RaggedTensor:
    """[n, words, pieces] -> int64 [n, words, pieces]: each piece's word index in its string."""
    words = pieces.values  # [all words, pieces]
    _, position = rows_and_positions(pieces.row_lengths(), out_type=tf.int64)
    return pieces.with_values(words.with_values(tf.gather(position, value_rows(words))))
