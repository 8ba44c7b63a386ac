"""tensorflow_text's `BertTokenizer`, `BasicTokenizer`, `FastBertNormalizer` and `FastBertTokenizer`, composed of
tf_wordpiece's parts.

- `BasicTokenizer` is the words of that `BertTokenizer` (`TfTextRecipe.basic_tokenizer`):
  strings [...] -> [..., (words)], offsets in the normalized text.
- `BertTokenizer` is `tf_wordpiece.BertTokenizer(compat="tf_text", offsets="normalized")`:
  strings [...] -> [..., words, (pieces)].
- `FastBertNormalizer` is BERT's per-code-point normalization (`bert.normalizers`,
  controls to spaces; with `lower_case_nfd_strip_accents`, NFKC_Casefold, NFD
  and Mn removed): strings [...] -> [...], and tensorflow_text's offset map
  (int64 [..., (normalized bytes + 1)], bytes in the input).
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

from typing import NamedTuple

import tensorflow as tf

from tf_wordpiece.bert import basic_tokenizer, normalizers
from tf_wordpiece.bert.code_points import encode_code_points
from tf_wordpiece.bert.pre_tokenizers import fast_wordpiece_pre_tokenizer
from tf_wordpiece.bert.recipes import recipe_for
from tf_wordpiece.bert_tokenizer import tokenizer
from tf_wordpiece.shapes import as_strings, map_over_strings, rows_and_positions, rows_of_values
from tf_wordpiece.text.base import Detokenizer, TokenizerWithOffsets
from tf_wordpiece.text.normalizers import char_ends, encode_keeping_bytes, invalid_bytes, map_strings
from tf_wordpiece.text.wordpiece import fast_wordpiece, reject_unsupported
from tf_wordpiece.tf1_graphs import cache_per_graph
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


class BasicTokenizer(TokenizerWithOffsets):
    """tensorflow_text's `bert_tokenizer.BasicTokenizer`, BertTokenizer's first step: strings [...] -> words
    [..., (words)] (a scalar gives [1, (words)]); int64 byte offsets in the normalized strings.

    Args: tensorflow_text's, with its defaults: `lower_case` (case folding, NFD,
    accents removed), `keep_whitespace`, `normalization_form` (without
    `lower_case`; with it only None or "NFD"), `preserve_unused_token`.

    >>> BasicTokenizer(lower_case=True).tokenize(["Héllo, World!"]).to_list()
    [[b'hello', b',', b'world', b'!']]
    >>> [t.to_list() for t in BasicTokenizer().tokenize_with_offsets(["a  b"])]
    [[[b'a', b'b']], [[0, 3]], [[1, 4]]]
    """

    def __init__(
        self,
        lower_case: bool = False,
        keep_whitespace: bool = False,
        normalization_form: str | None = None,
        preserve_unused_token: bool = False,
    ):
        super().__init__()
        options = dict(
            lower_case=lower_case,
            keep_whitespace=keep_whitespace,
            normalization_form=normalization_form,
            preserve_unused_token=preserve_unused_token,
        )
        self._basic = recipe_for("tf_text", options).basic_tokenizer()

    def tokenize(self, text_input) -> tf.RaggedTensor:
        """string [...] -> words [..., (words)]."""
        return self.tokenize_with_offsets(text_input)[0]

    def tokenize_with_offsets(self, text_input) -> tuple:
        """(words, begin, end), each [..., (words)]; int64 bytes in the normalized strings."""
        return self._basic.tokenize_with_offsets(text_input, offsets="normalized")


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
        """string [...] (Tensor or RaggedTensor) -> normalized string, same shape.

        A dense input of rank 2 or more comes back as a RaggedTensor of its shape (ragged_rank = rank - 1), as
        tensorflow_text's does.

        >>> FastBertNormalizer(lower_case_nfd_strip_accents=True).normalize([["H\u00e9llo", "W"]]).to_list()
        [[b'hello', b'w']]
        """
        strings = as_strings(input, "input")
        if not isinstance(strings, tf.RaggedTensor) and (strings.shape.rank or 0) > 1:
            strings = tf.RaggedTensor.from_tensor(strings, ragged_rank=strings.shape.rank - 1)
        return map_strings(strings, self._normalize_flat)

    def normalize_with_offsets(self, input):  # noqa: A002
        """Normalized strings and, for each, the input byte offset of each normalized byte and of its end.

        Args:
          input: string Tensor of rank 1 or more, or RaggedTensor, of UTF-8
            text (a scalar works too: tensorflow_text's raises AttributeError).
        Returns:
          (normalized, offsets) as tensorflow_text's: `normalized` is a string
          Tensor [n] for a [n] input, a RaggedTensor of the input's shape for a
          ragged or higher-rank one (a dense one made ragged, as tensorflow_text
          does); `offsets` is int64 [..., (normalized bytes + 1)], ragged (its
          row splits int64, or the ragged input's dtype): `offsets[..., k]` is
          the byte in the input that normalized byte k comes from, and the last
          one is the input's length. A character that normalizes to itself maps
          byte for byte; every byte of a changed one's output (also an
          expansion, ß -> "ss") maps to its first byte; one that normalizes to
          nothing has no entry. A scalar gives a string scalar and an int64 [k].

        >>> normalizer = FastBertNormalizer(lower_case_nfd_strip_accents=True)
        >>> text, offsets = normalizer.normalize_with_offsets(["Straße", "e\u0301!"])
        >>> text.numpy().tolist(), offsets.to_list()
        ([b'strasse', b'e!'], [[0, 1, 2, 3, 4, 4, 6, 7], [0, 3, 4]])
        """
        strings = as_strings(input, "input")
        if isinstance(strings, tf.RaggedTensor):
            text, offsets = self.normalize_with_offsets(strings.flat_values)
            dtype = strings.row_splits.dtype
            return strings.with_flat_values(text), strings.with_flat_values(offsets.with_row_splits_dtype(dtype))
        rank = strings.shape.rank
        if rank is None:
            raise ValueError(
                f"input: the rank must be known, got {strings}; give the tf.function's input_signature a shape"
            )
        if rank > 1:  # tensorflow_text's way: the strings made ragged, so the text comes back ragged too
            return self.normalize_with_offsets(tf.RaggedTensor.from_tensor(strings, ragged_rank=rank - 1))
        text, offsets = self._normalize_flat_with_offsets(tf.reshape(strings, [-1]))
        if rank == 0:
            return text[0], offsets.flat_values
        return text, offsets

    def _normalize_flat(self, strings: tf.Tensor) -> tf.Tensor:
        """string [n] -> [n]: each code point replaced by the table's sequence (invalid UTF-8 bytes kept)."""
        return self._encode(strings, self._normalized(strings))

    def _normalize_flat_with_offsets(self, strings: tf.Tensor) -> tuple:
        """string [n] -> (string [n], int64 [n, (normalized bytes + 1)]): the peer's offset map, built from
        `source` (the input character of each output one) and the input characters' byte spans."""
        chars = self._normalized(strings)
        text = self._encode(strings, chars)
        byte_offsets = _output_byte_sources(strings, chars)
        normalized_lengths = _byte_lengths(text)
        return text, _with_ends(byte_offsets, normalized_lengths, _byte_lengths(strings))

    def _normalized(self, strings: tf.Tensor) -> _NormalizedChars:
        chars = tf.strings.unicode_decode_with_offsets(
            strings, "UTF-8", errors="replace", replacement_char=ut.INVALID_UTF8
        )
        code_points = chars[0].flat_values
        rows = rows_of_values(chars[0].row_splits[:-1], tf.size(code_points))
        invalid = tf.equal(code_points, ut.INVALID_UTF8)
        out, source, _ = self._normalizer.normalize(code_points, tf.where(invalid, 0, self._rows(code_points)))
        return _NormalizedChars(chars, code_points, rows, invalid, out, source)

    @staticmethod
    def _encode(strings: tf.Tensor, chars: _NormalizedChars) -> tf.Tensor:
        out_rows, n = tf.gather(chars.rows, chars.source), tf.size(strings)
        return tf.cond(
            tf.reduce_any(chars.invalid),
            lambda: encode_keeping_bytes(
                chars.out, out_rows, n, invalid_bytes(strings, chars.decoded, chars.rows, chars.invalid)
            ),
            lambda: encode_code_points(chars.out, out_rows, n),
        )


class _NormalizedChars(NamedTuple):
    """A flat batch's input characters and what the normalizer made of them.

    decoded: `unicode_decode_with_offsets`'s (code points, byte starts), ragged [n, (chars)].
    code_points, rows, invalid: [c], flat: each input character, its string, whether it is invalid UTF-8.
    out, source: [m]: the normalized code points and the input character each comes from.
    """

    decoded: tuple
    code_points: tf.Tensor
    rows: tf.Tensor
    invalid: tf.Tensor
    out: tf.Tensor
    source: tf.Tensor


def _output_byte_sources(strings: tf.Tensor, chars: _NormalizedChars) -> tf.Tensor:
    """int64 [normalized bytes of the batch]: the input byte each normalized byte maps to.

    An output character that is its input character unchanged (the only one
    it makes, the same code point; invalid UTF-8 too) keeps its bytes and maps
    them byte for byte; every byte of any other output maps to its input
    character's first byte (tensorflow_text's FastBertNormalizer).
    """
    starts = chars.decoded[1].flat_values
    ends = char_ends(strings, starts, chars.rows)
    made = tf.math.unsorted_segment_sum(tf.ones_like(chars.source), chars.source, tf.size(chars.code_points))
    unchanged = tf.equal(tf.gather(made, chars.source), 1) & (
        tf.equal(chars.out, tf.gather(chars.code_points, chars.source))
    )
    out_bytes = tf.where(unchanged, tf.gather(ends - starts, chars.source), _utf8_lengths(chars.out))
    output, within = rows_and_positions(out_bytes, out_type=tf.int64)
    first_byte = tf.gather(starts, tf.gather(chars.source, output))
    return first_byte + tf.where(tf.gather(unchanged, output), within, 0)


def _byte_lengths(strings: tf.Tensor) -> tf.Tensor:
    return tf.cast(tf.strings.length(strings), tf.int64)


def _utf8_lengths(code_points: tf.Tensor) -> tf.Tensor:
    """int64 [m]: the UTF-8 length of each (valid) code point."""
    longer = [code_points >= bound for bound in (0x80, 0x800, 0x10000)]
    return 1 + tf.add_n([tf.cast(t, tf.int64) for t in longer])


def _with_ends(byte_offsets: tf.Tensor, normalized_lengths: tf.Tensor, input_lengths: tf.Tensor) -> tf.RaggedTensor:
    """Each string's byte offsets (flat, in order; normalized_lengths [n] of them a string) and then its
    input length: int64 [n, (normalized length + 1)]."""
    row_lengths = normalized_lengths + 1
    row, position = rows_and_positions(row_lengths, out_type=tf.int64)
    byte_starts = tf.cumsum(normalized_lengths, exclusive=True)
    at_end = tf.equal(position, tf.gather(normalized_lengths, row))
    index = tf.where(at_end, tf.size(byte_offsets, out_type=tf.int64) + row, tf.gather(byte_starts, row) + position)
    values = tf.gather(tf.concat([byte_offsets, input_lengths], 0), index)
    return tf.RaggedTensor.from_row_lengths(values, row_lengths, validate=False)


class FastBertTokenizer(TokenizerWithOffsets, Detokenizer):
    """tensorflow_text's `FastBertTokenizer`: strings [...] -> pieces [..., (pieces)]; int64 byte offsets in the input.

    Args: tensorflow_text's, with its defaults: `vocab`, `suffix_indicator`,
    `max_bytes_per_word`, `token_out_type`, `unknown_token`,
    `no_pretokenization`, `support_detokenization`,
    `lower_case_nfd_strip_accents`. `fast_wordpiece_model_buffer`,
    `fast_bert_normalizer_model_buffer`: not supported (a ValueError naming them).

    Offsets are tensorflow_text's: its normalizer maps each byte of the
    normalized string back to the input (`FastBertNormalizer.normalize_with_offsets`
    returns that map: a character that normalizes to itself: byte for byte;
    one that changes: every byte of its output to its first byte; the
    normalized string's end: the input's end), and a piece's
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
        self._wordpiece = fast_wordpiece(
            vocab,
            suffix_indicator=suffix_indicator,
            max_bytes_per_word=max_bytes_per_word,
            token_out_type=token_out_type,
            unknown_token=unknown_token,
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


@cache_per_graph  # immutable tables; tokenizers with the same option share it
def _basic_splitter(lower_case: bool) -> basic_tokenizer.BasicTokenizer:
    """BERT's normalization with FastWordpieceTokenizer's split, as FastBertTokenizer runs them."""
    return basic_tokenizer.BasicTokenizer(
        normalizers.tf_text_normalizer(lower_case=lower_case, normalization_form=None),
        fast_wordpiece_pre_tokenizer(),
        character_ends="offset_map",
    )
