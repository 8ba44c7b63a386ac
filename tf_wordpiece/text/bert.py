"""tensorflow_text's `BertTokenizer`, `FastBertNormalizer` and `FastBertTokenizer`, composed of tf_wordpiece's parts.

- `BertTokenizer` is `tf_wordpiece.BertTokenizer(compat="tf_text", offsets="normalized")`:
  strings [...] -> [..., words, (pieces)].
- `FastBertNormalizer` is BERT's per-code-point normalization (`bert.normalizers`,
  controls to spaces; with `lower_case_nfd_strip_accents`, NFKC_Casefold, NFD
  and Mn removed): strings [...] -> [...].
- `FastBertTokenizer` is that normalization, FastWordpieceTokenizer's split
  (white space, punctuation, CJK ideographs) and its WordPiece:
  strings [...] -> [..., (pieces)], int64 byte offsets in the original strings,
  where tensorflow_text's normalizer offset map puts them (see the class).

>>> vocab = ["[UNK]", "hello", "world", "!", "##s"]
>>> BertTokenizer(vocab, lower_case=True).tokenize(["Hello worlds!"]).to_list()
[[[1], [2, 4], [3]]]
>>> FastBertTokenizer(vocab, lower_case_nfd_strip_accents=True).tokenize(["Hello worlds!"]).to_list()
[[1, 2, 4, 3]]
"""

from __future__ import annotations

import functools

import tensorflow as tf

from tf_wordpiece.bert import normalizers
from tf_wordpiece.bert.basic_tokenizer import BasicTokenizer
from tf_wordpiece.bert.code_points import encode_code_points
from tf_wordpiece.bert.pre_tokenizers import fast_wordpiece_pre_tokenizer
from tf_wordpiece.bert.wordpiece import WordpieceTokenizer
from tf_wordpiece.bert_tokenizer import tokenizer
from tf_wordpiece.shapes import map_over_strings, rows_of_values
from tf_wordpiece.text.base import Detokenizer, TokenizerWithOffsets
from tf_wordpiece.text.normalizers import encode_keeping_bytes, invalid_bytes, map_strings
from tf_wordpiece.text.wordpiece import reject_unsupported
from tf_wordpiece.unicode import tables as ut


class BertTokenizer(TokenizerWithOffsets, Detokenizer):
    """tensorflow_text's `BertTokenizer`: strings [...] -> [..., words, (pieces)]; offsets in the normalized text.

    Args: tensorflow_text's, with its defaults: `vocab_lookup_table` (vocab.txt
    path, list of tokens or lookup table), `suffix_indicator`,
    `max_bytes_per_word`, `max_chars_per_token`, `token_out_type`,
    `unknown_token`, `split_unknown_characters`, `lower_case`,
    `keep_whitespace`, `normalization_form`, `preserve_unused_token`.
    `basic_tokenizer_class` other than None: a ValueError (not supported).

    >>> tok = BertTokenizer(["[UNK]", "hi", "##s"], token_out_type=tf.string)
    >>> tok.tokenize("his hi").to_list()
    [[[b'hi', b'##s'], [b'hi']]]
    """

    def __init__(
        self,
        vocab_lookup_table,
        suffix_indicator: str = "##",
        max_bytes_per_word: int = 100,
        max_chars_per_token: int | None = None,
        token_out_type: tf.DType = tf.int64,
        unknown_token: str | None = "[UNK]",
        split_unknown_characters: bool = False,
        lower_case: bool = False,
        keep_whitespace: bool = False,
        normalization_form: str | None = None,
        preserve_unused_token: bool = False,
        basic_tokenizer_class=None,
    ):
        super().__init__()
        reject_unsupported(basic_tokenizer_class=basic_tokenizer_class)
        self._tokenizer = tokenizer.BertTokenizer(
            vocab_lookup_table,
            compat="tf_text",
            offsets="normalized",
            token_out_type=token_out_type,
            unknown_token=unknown_token,
            suffix_indicator=suffix_indicator,
            lower_case=lower_case,
            keep_whitespace=keep_whitespace,
            normalization_form=normalization_form,
            preserve_unused_token=preserve_unused_token,
            split_unknown_characters=split_unknown_characters,
            max_chars_per_token=max_chars_per_token,
            max_bytes_per_word=max_bytes_per_word,
        )

    def tokenize(self, text_input) -> tf.RaggedTensor:
        """string [...] -> [..., words, (pieces)] (a scalar gives [1, words, (pieces)])."""
        return self._tokenizer.tokenize(text_input)

    def tokenize_with_offsets(self, text_input) -> tuple:
        """(pieces, begin, end), each [..., words, (pieces)]; int64 bytes in the normalized string."""
        return self._tokenizer.tokenize_with_offsets(text_input)

    def detokenize(self, token_ids):
        """ids [..., (pieces)] or [..., words, (pieces)] -> words [..., (words)]."""
        return self._tokenizer.detokenize(token_ids)


class FastBertNormalizer(tf.Module):
    """tensorflow_text's `FastBertNormalizer`: strings [...] -> normalized strings [...].

    Args:
      lower_case_nfd_strip_accents: NFKC_Casefold, NFD, accents removed. Defaults to False.
      model_buffer: not supported (a ValueError naming it).

    >>> FastBertNormalizer(lower_case_nfd_strip_accents=True).normalize(["Héllo\\tW"]).numpy().tolist()
    [b'hello w']
    """

    def __init__(self, lower_case_nfd_strip_accents: bool = False, model_buffer=None):
        super().__init__()
        reject_unsupported(model_buffer=model_buffer)
        self.lower_case_nfd_strip_accents = bool(lower_case_nfd_strip_accents)
        self._normalizer = normalizers.tf_text_normalizer(
            lower_case=self.lower_case_nfd_strip_accents, normalization_form=None
        )
        self._rows = ut.CodePointLookup(self._normalizer.table.dense_rows)

    def normalize(self, input):  # noqa: A002 (the peer's name)
        """string [...] (Tensor or RaggedTensor) -> normalized string, same shape."""
        return map_strings(input, self._normalize_flat)

    def normalize_with_offsets(self, input):  # noqa: A002
        """Not supported: a ValueError (use `FastBertTokenizer.tokenize_with_offsets` for offsets in the input)."""
        raise ValueError(
            "FastBertNormalizer.normalize_with_offsets: not supported by tf_wordpiece.text (its offset map is "
            "not exact here yet); use normalize(), or FastBertTokenizer.tokenize_with_offsets for token offsets"
        )

    def _normalize_flat(self, strings: tf.Tensor) -> tf.Tensor:
        """string [n] -> [n]: each code point replaced by the table's sequence (invalid UTF-8 bytes kept)."""
        chars = tf.strings.unicode_decode_with_offsets(
            strings, "UTF-8", errors="replace", replacement_char=ut.INVALID_UTF8
        )
        code_points = chars[0].flat_values
        rows = rows_of_values(chars[0].row_splits[:-1], tf.size(code_points))
        invalid = code_points == ut.INVALID_UTF8
        out, source, _ = self._normalizer.normalize(code_points, tf.where(invalid, 0, self._rows(code_points)))
        out_rows, n = tf.gather(rows, source), tf.size(strings)
        return tf.cond(
            tf.reduce_any(invalid),
            lambda: encode_keeping_bytes(out, out_rows, n, invalid_bytes(strings, chars, rows, invalid)),
            lambda: encode_code_points(out, out_rows, n),
        )


class FastBertTokenizer(TokenizerWithOffsets, Detokenizer):
    """tensorflow_text's `FastBertTokenizer`: strings [...] -> pieces [..., (pieces)]; int64 byte offsets in the input.

    Args: tensorflow_text's, with its defaults: `vocab`, `suffix_indicator`,
    `max_bytes_per_word`, `token_out_type`, `unknown_token`,
    `no_pretokenization`, `support_detokenization`,
    `lower_case_nfd_strip_accents`. `fast_wordpiece_model_buffer`,
    `fast_bert_normalizer_model_buffer`: not supported (a ValueError naming them).

    Offsets are tensorflow_text's: its normalizer maps each byte of the
    normalized string back to the input (a character that normalizes to
    itself: byte for byte; one that changes: every byte of its output to its
    first byte; the normalized string's end: the input's end), and a piece's
    begin and end are that map read at the piece's begin and end in the
    normalized string. So a piece ends where the normalized character after it
    comes from: past the characters that normalize to nothing after it
    (U+0301 with `lower_case_nfd_strip_accents`), and, when it ends inside a
    character's expansion (ß -> "ss", ﬃ -> "ffi", … -> "...", a Hangul
    syllable -> its jamo), where that character begins. The splitter's
    `character_ends="offset_map"` gives each character that end.

    >>> tok = FastBertTokenizer(["[UNK]", "hi", "##s", "!"], token_out_type=tf.string)
    >>> [t.to_list() for t in tok.tokenize_with_offsets(["his!"])]
    [[[b'hi', b'##s', b'!']], [[0, 2, 3]], [[2, 3, 4]]]
    >>> tok = FastBertTokenizer(["[UNK]", "st", "##ras", "##se"], token_out_type=tf.string,
    ...                         lower_case_nfd_strip_accents=True)
    >>> [t.to_list() for t in tok.tokenize_with_offsets(["Straße"])]  # ##ras ends inside ß's "ss": where ß begins
    [[[b'st', b'##ras', b'##se']], [[0, 2, 4]], [[2, 4, 7]]]
    """

    def __init__(
        self,
        vocab=None,
        suffix_indicator: str = "##",
        max_bytes_per_word: int = 100,
        token_out_type: tf.DType = tf.int64,
        unknown_token: str = "[UNK]",
        no_pretokenization: bool = False,
        support_detokenization: bool = False,
        fast_wordpiece_model_buffer=None,
        lower_case_nfd_strip_accents: bool = False,
        fast_bert_normalizer_model_buffer=None,
    ):
        super().__init__()
        reject_unsupported(
            fast_wordpiece_model_buffer=fast_wordpiece_model_buffer,
            fast_bert_normalizer_model_buffer=fast_bert_normalizer_model_buffer,
        )
        if no_pretokenization:
            raise ValueError(
                "no_pretokenization=True: not supported by tf_wordpiece.text's FastBertTokenizer; normalize with "
                "FastBertNormalizer and tokenize with FastWordpieceTokenizer(no_pretokenization=True)"
            )
        self.support_detokenization = bool(support_detokenization)
        self._splitter = _basic_splitter(bool(lower_case_nfd_strip_accents))
        self._wordpiece = WordpieceTokenizer(
            vocab,
            suffix_indicator=suffix_indicator,
            max_bytes_per_word=max_bytes_per_word,
            token_out_type=token_out_type,
            unknown_token=unknown_token,
            compat="fast_wordpiece",
            no_pretokenization=True,
        )

    def tokenize(self, text_input) -> tf.RaggedTensor:
        """string [...] -> [..., (pieces)] of ids or strings."""
        return self.tokenize_with_offsets(text_input)[0]

    def tokenize_with_offsets(self, text_input) -> tuple:
        """(pieces, begin, end), each [..., (pieces)]; int64 bytes in the input strings."""
        return map_over_strings(text_input, "text_input", self._flat)

    def _flat(self, flat: tf.Tensor) -> tuple:
        tokens, begin, end = self._wordpiece.tokenize_words(self._splitter.split(flat), offsets="original")
        return tuple(t.merge_dims(1, 2) for t in (tokens, begin, end))

    def detokenize(self, token_ids):
        """ids [..., (pieces)] -> strings [...], each row's words joined by spaces."""
        words = self._wordpiece.detokenize(token_ids)
        if isinstance(words, tf.RaggedTensor):
            return tf.strings.reduce_join(words, axis=-1, separator=" ")
        return words


@functools.cache  # immutable tables; tokenizers with the same option share it
def _basic_splitter(lower_case: bool) -> BasicTokenizer:
    """BERT's normalization with FastWordpieceTokenizer's split, as FastBertTokenizer runs them."""
    return BasicTokenizer(
        normalizers.tf_text_normalizer(lower_case=lower_case, normalization_form=None),
        fast_wordpiece_pre_tokenizer(),
        character_ends="offset_map",
    )
