"""The basic tokenizer: strings -> words (decode, added tokens, normalize, pre-tokenize)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import tensorflow as tf

from tf_wordpiece.base import TokenizerWithOffsets
from tf_wordpiece.bert.added_tokens import AddedTokens
from tf_wordpiece.bert.composition import Composer, MarkOrder
from tf_wordpiece.bert.normalizers import Normalizer
from tf_wordpiece.bert.pre_tokenizers import PreTokenizer
from tf_wordpiece.messages import check_choice
from tf_wordpiece.shapes import map_over_strings, rows_and_positions, rows_of_values, rows_to_splits, scalar_as_batch
from tf_wordpiece.tf1_graphs import cache_per_graph
from tf_wordpiece.unicode import tables as ut
from tf_wordpiece.unicode.classes import ISOLATED
from tf_wordpiece.unicode.utf8 import ahead, behind

# tensorflow_text's `preserve_unused_token` pattern (python/ops/bert_tokenizer.py).
_UNUSED_TOKEN_BODY = r"unused\d+"
INVALID_UTF8_MODES = ("keep", "replace")  # tensorflow_text keeps invalid UTF-8 bytes; Hugging Face reads U+FFFD
# Where a character ends in the original string: where its source character ends (Hugging Face, BertTokenizer), or
# where the normalized character after it comes from (tensorflow_text's FastBertNormalizer offset map).
CHARACTER_ENDS = ("source", "offset_map")
# What offsets count: bytes of the original strings, or of the normalized ones (tensorflow_text's BertTokenizer).
OFFSET_MODES = ("original", "normalized")


class Words(NamedTuple):
    """The words of a flat batch of strings: what the basic tokenizer hands to WordPiece.

    text: string [w], UTF-8 of each normalized word (a matched added token's
      word is its content, normalized for a `normalized=True` one).
    row: int64 [w], the string each word comes from.
    num_strings: int64 scalar, the number of strings n (some may have no word).
    begin, end: int64 RaggedTensor [w, chars], byte offsets of each character
      in the original string (`end` is exclusive; where it is, `BasicTokenizer`'s
      `character_ends` says).
    normalized_begin, normalized_end: the same in the normalized string.
    added_id: int64 [w], the id of the matched added token, -1 for other words;
      None when the tokenizer has no added tokens (then WordPiece builds no
      graph for them: fewer ops on every call).
    """

    text: tf.Tensor
    row: tf.Tensor
    num_strings: tf.Tensor
    begin: tf.RaggedTensor
    end: tf.RaggedTensor
    normalized_begin: tf.RaggedTensor
    normalized_end: tf.RaggedTensor
    added_id: tf.Tensor | None


class _Chars(NamedTuple):
    """A flat batch's characters after normalization, each [m]: code points (an added token's marker is
    negative), classes, rows, byte begin and end in the original strings and in the normalized ones."""

    normalized: tf.Tensor
    classes: tf.Tensor
    rows: tf.Tensor
    begin: tf.Tensor
    end: tf.Tensor
    normalized_begin: tf.Tensor
    normalized_end: tf.Tensor


class BasicTokenizer(TokenizerWithOffsets):
    """Splits strings into normalized words.

    Shape transformation: `[...] => [..., words]`. Offsets are byte offsets
    into the original strings.

    Invalid UTF-8: each maximal invalid subsequence is one character. With
    `invalid_utf8="keep"` (tensorflow_text) it stays in its word, takes its own
    byte length in the normalized string and makes the word unknown; with
    `"replace"` it is read as U+FFFD, as Python's `errors="replace"` reads it
    (Hugging Face's BertNormalizer then deletes it).

    Args:
      normalizer: the per-code-point normalization.
      pre_tokenizer: the word splitter.
      added_tokens: tokens matched as written before normalization, or (those
        with `normalized=True`) in their normalized form after it.
      preserve_unused_token: keep `[unused<digits>]` whole (tensorflow_text).
      invalid_utf8: `"keep"` or `"replace"`, see above. Defaults to `"keep"`.
      scalar_as_batch: a scalar string gives [1, words] (tensorflow_text's
        BasicTokenizer) instead of [words]. Defaults to `False` (`True` in
        `TfTextRecipe(...).basic_tokenizer()`, which `BertTokenizer(compat="tf_text")` uses).
      character_ends: where each character (and so each word and piece) ends
        in the original string. `"source"` (the default): where the
        character it comes from ends. `"offset_map"`: tensorflow_text's
        FastBertNormalizer offset map read at the character's end in the
        normalized string, which is where the next normalized character comes
        from (the first byte of its source character), or the string's length
        after the last. So an end goes past the characters that normalize to
        nothing after it, and a character that is not the last of its source's
        expansion (ß -> "ss", ﬃ -> "ffi", … -> "...", a Hangul syllable ->
        its jamo) ends where its source begins.

    Build one with `BertTokenizer(...).basic_tokenizer`, or directly:

    >>> from tf_wordpiece.bert import normalizers, pre_tokenizers
    >>> basic = BasicTokenizer(normalizers.tf_text_normalizer(lower_case=True, normalization_form=None),
    ...                        pre_tokenizers.tf_text_pre_tokenizer())
    >>> basic.tokenize(["Héllo, World!"]).to_list()
    [[b'hello', b',', b'world', b'!']]
    """

    def __init__(
        self,
        normalizer: Normalizer,
        pre_tokenizer: PreTokenizer,
        *,
        added_tokens: AddedTokens | None = None,
        preserve_unused_token: bool = False,
        invalid_utf8: str = "keep",
        scalar_as_batch: bool = False,
        character_ends: str = "source",
    ):
        super().__init__()
        self.scalar_as_batch = scalar_as_batch
        check_choice("invalid_utf8", invalid_utf8, INVALID_UTF8_MODES)
        self.invalid_utf8 = invalid_utf8
        check_choice("character_ends", character_ends, CHARACTER_ENDS)
        self.character_ends = character_ends
        self.normalizer = normalizer
        self.pre_tokenizer = pre_tokenizer
        self.added_tokens = added_tokens or AddedTokens([])
        self.preserve_unused_token = preserve_unused_token
        self._fused = _fused_lookup(normalizer, pre_tokenizer)
        self._composer = Composer() if normalizer.compose else None
        self._mark_order = MarkOrder() if normalizer.table.reorders else None
        self._normalized_patterns = self.added_tokens.normalized_patterns(normalizer.apply)
        # The word each added token gives: its content, or for normalized=True ones the normalized content.
        normalized = dict(self._normalized_patterns)
        with tf.init_scope():
            self._added_text = tf.constant(
                [normalized.get(i, t.content) for i, t in enumerate(self.added_tokens.flags)] or [""], tf.string
            )
            ids = [-1 if t.id is None else t.id for t in self.added_tokens.flags]
            self._added_ids = tf.constant(ids or [-1], tf.int64)
        # HF's normalizer puts spaces around CJK ideographs ("spaced"): its normalized-pass flags see them.
        flags = [self.added_tokens.flags[i] for i, _ in self._normalized_patterns]
        self._spaced = None
        if pre_tokenizer.spaced is not None and any(t.single_word or t.lstrip or t.rstrip for t in flags):
            self._spaced = ut.CodePointLookup(pre_tokenizer.spaced)

    def hf_normalized(self, text: str) -> str:
        """`text` as Hugging Face's normalizer writes it (in Python): normalized, CJK ideographs between spaces.

        >>> BertTokenizer = __import__("tf_wordpiece").BertTokenizer
        >>> BertTokenizer(["[UNK]"], compat="hf", lower_case=True).basic_tokenizer.hf_normalized("Ünï中")
        'uni 中 '
        """
        spaced = self.pre_tokenizer.spaced
        text = self.normalizer.apply(text)
        return text if spaced is None else "".join(f" {ch} " if spaced[ord(ch)] else ch for ch in text)

    def tokenize(self, strings) -> tf.RaggedTensor:
        """string [...] -> string [..., words]; an added token's word is its text
        (normalized, for a `normalized=True` one).

        >>> BertTokenizer = __import__("tf_wordpiece").BertTokenizer
        >>> basic = BertTokenizer(["[UNK]", "[MASK]"], compat="hf", lower_case=True).basic_tokenizer
        >>> basic.tokenize(["A [MASK]!"]).to_list()
        [[b'a', b'[MASK]', b'!']]
        """
        return self.tokenize_with_offsets(strings)[0]

    def tokenize_with_offsets(self, strings, *, offsets: str = "original"):
        """string [...] -> (words, begin, end), each [..., words]; int64 byte offsets into the original
        strings, or with `offsets="normalized"` into the normalized ones (tensorflow_text's BasicTokenizer).

        >>> from tf_wordpiece.bert import normalizers, pre_tokenizers
        >>> basic = BasicTokenizer(normalizers.tf_text_normalizer(lower_case=True, normalization_form=None),
        ...                        pre_tokenizers.tf_text_pre_tokenizer())
        >>> [t.to_list() for t in basic.tokenize_with_offsets(["Straße x"], offsets="normalized")]
        [[[b'strasse', b'x']], [[0, 8]], [[7, 9]]]
        """
        check_choice("offsets", offsets, OFFSET_MODES)
        if self.scalar_as_batch:
            strings = scalar_as_batch(strings, "strings")
        return map_over_strings(strings, "strings", lambda flat: self._flat_tokenize_with_offsets(flat, offsets))

    def _flat_tokenize_with_offsets(self, flat: tf.Tensor, offsets: str) -> tuple:
        words = self.split(flat)
        if offsets == "original":
            begin, end = words.begin, words.end
        else:
            begin, end = words.normalized_begin, words.normalized_end
        first = tf.gather(begin.flat_values, begin.row_starts())
        last = tf.gather(end.flat_values, end.row_limits() - 1)
        splits = rows_to_splits(words.row, words.num_strings)
        return tuple(tf.RaggedTensor.from_row_splits(t, splits, validate=False) for t in (words.text, first, last))

    def split(self, strings: tf.Tensor) -> Words:
        """string [n] -> Words, with each character's offsets: what `WordpieceTokenizer.tokenize_words` takes.

        Three steps: the code points with their byte offsets (`_code_points`),
        normalized and classified (`_normalized`), grouped into words (`_words`).
        """
        code_points, rows, begin, end = self._code_points(strings)
        chars = self._normalized(code_points, rows, begin, end)
        return self._words(strings, chars)

    def _code_points(self, strings: tf.Tensor) -> tuple:
        """string [n] -> (code points, rows, begin, end) [m]: invalid UTF-8 read as `invalid_utf8` says,
        raw-text added tokens one (negative) code point each; byte offsets into the strings."""
        chars, starts = tf.strings.unicode_decode_with_offsets(
            strings, "UTF-8", errors="replace", replacement_char=ut.INVALID_UTF8
        )
        code_points = chars.flat_values
        if self.invalid_utf8 == "replace":
            code_points = tf.where(tf.equal(code_points, ut.INVALID_UTF8), ut.REPLACEMENT_CHARACTER, code_points)
        rows = rows_of_values(chars.row_splits[:-1], tf.size(code_points))
        begin = starts.flat_values
        end = _next_begins(strings, rows, begin)

        if self.added_tokens.raw:
            code_points, rows, begin, end = self._mark_raw_added_tokens(code_points, rows, begin, end)
        return code_points, rows, begin, end

    def _normalized(self, code_points, rows, begin, end) -> _Chars:
        """The normalizer's code points, their classes, rows and offsets (original and normalized bytes)."""
        # One lookup gives each code point's normalization row and, where it
        # maps to one code point, that code point's class.
        packed = self._fused(tf.maximum(code_points, 0) if self.added_tokens.raw else code_points)
        row, single_class = tf.bitwise.right_shift(packed, 2), tf.bitwise.bitwise_and(packed, 3)
        if self.added_tokens.raw:
            row = tf.where(code_points < 0, 0, row)
            single_class = tf.where(code_points < 0, ISOLATED, single_class)
        normalized, source, one_to_one = self.normalizer.normalize(code_points, row)
        classes = tf.cond(one_to_one, lambda: single_class, lambda: self.pre_tokenizer.classes_of(normalized))

        def by_source(values):  # one cond each, so that unused ones are pruned
            return tf.cond(one_to_one, lambda: values, lambda: tf.gather(values, source))

        rows, begin, end = by_source(rows), by_source(begin), by_source(end)
        if self._mark_order is not None:  # NFD / NFKD: marks in canonical order across code points
            normalized, rows, classes, begin, end = self._mark_order(normalized, rows, classes, begin, end)
        if self._composer is not None:  # NFC / NFKC: compose across code points
            normalized, rows, begin, end = self._compose(normalized, rows, begin, end)
            classes = self.pre_tokenizer.classes_of(normalized)
        normalized_begin, normalized_end = _normalized_offsets(normalized, rows, end - begin)
        if self._normalized_patterns:
            normalized, classes, rows, begin, end, normalized_begin, normalized_end = self._match_normalized(
                normalized, classes, rows, begin, end, normalized_begin, normalized_end
            )
        return _Chars(normalized, classes, rows, begin, end, normalized_begin, normalized_end)

    def _words(self, strings: tf.Tensor, chars: _Chars) -> Words:
        """The pre-tokenizer's words of the characters, their text (added tokens by index) and offsets."""
        normalized, classes, rows, begin, end, normalized_begin, normalized_end = chars
        spans = self.pre_tokenizer.split(classes, rows)
        row_splits = spans.row_splits
        if self.preserve_unused_token:
            row_splits = self._merge_unused_tokens(normalized, spans, normalized_begin, normalized_end, rows)

        def per_word(values):
            return tf.RaggedTensor.from_row_splits(tf.gather(values, spans.kept), row_splits, validate=False)

        word_chars = per_word(normalized)
        first = tf.gather(spans.kept, word_chars.row_starts())
        char_begin, char_end = per_word(begin), per_word(end)
        text = _encode(word_chars)
        if self.invalid_utf8 == "keep":  # tensorflow_text keeps invalid UTF-8 as its bytes, which no piece matches
            text = tf.cond(
                tf.reduce_any(tf.equal(word_chars.flat_values, ut.INVALID_UTF8)),
                lambda: _encode_keeping_invalid_bytes(word_chars, text, strings, per_word(rows), char_begin, char_end),
                lambda: text,
            )
        added_id = None
        if self.added_tokens:
            first_code_point = tf.gather(normalized, first)
            added = tf.where(first_code_point < 0, -1 - first_code_point, -1)  # the added token's index: its marker
            index = tf.maximum(added, 0)
            text = tf.where(added >= 0, tf.gather(self._added_text, index), text)
            added_id = tf.where(added >= 0, tf.gather(self._added_ids, index), tf.constant(-1, tf.int64))
        if self.character_ends == "offset_map":  # all normalized characters are here (spaces too): the next's begin
            char_end = per_word(_next_begins(strings, rows, begin))
        return Words(
            text=text,
            row=tf.cast(tf.gather(rows, first), tf.int64),
            num_strings=tf.size(strings, out_type=tf.int64),
            begin=char_begin,
            end=char_end,
            normalized_begin=per_word(normalized_begin),
            normalized_end=per_word(normalized_end),
            added_id=added_id,
        )

    def _compose(self, normalized, rows, begin, end):
        """Canonical composition; a composed character spans the bytes of all its constituents."""
        composed, first, owner = self._composer(normalized, rows)
        size = tf.size(composed)
        begin = tf.math.unsorted_segment_min(begin, owner, size)
        end = tf.math.unsorted_segment_max(end, owner, size)
        return composed, tf.gather(rows, first), begin, end

    def _mark_raw_added_tokens(self, code_points, rows, begin, end):
        """Each match of a raw-text added token becomes one code point, -1 - the token's index, spanning its bytes."""

        def mark():
            matches = self.added_tokens.match(code_points, rows)
            keep = tf.reshape(tf.where(~matches.covered), [-1])
            marked = tf.where(matches.token >= 0, -1 - matches.token, code_points)
            return tuple(tf.gather(t, keep) for t in (marked, rows, begin, tf.gather(end, matches.last)))

        # Most batches do not even hold the first character of an added token: then nothing moves.
        could_start = tf.reduce_any(self.added_tokens.first_characters(code_points))
        return tf.cond(could_start, mark, lambda: (code_points, rows, begin, end))

    def _match_normalized(self, normalized, classes, rows, begin, end, normalized_begin, normalized_end):
        """Hugging Face's second added-token pass: each match becomes one marker code point (a word)."""
        spaced = None if self._spaced is None else self._spaced(tf.maximum(normalized, 0)) > 0
        matches = self.added_tokens.match(normalized, rows, self._normalized_patterns, non_word=spaced)
        matched = matches.token >= 0
        if spaced is not None:
            begin, end = self._take_cjk_spaces(matches, spaced, rows, begin, end)
        normalized = tf.where(matched, -1 - matches.token, normalized)
        classes = tf.where(matched, ISOLATED, classes)
        if spaced is None:
            end = tf.gather(end, matches.last)
        normalized_end = tf.gather(normalized_end, matches.last)
        keep = tf.reshape(tf.where(~matches.covered), [-1])
        return tuple(
            tf.gather(t, keep) for t in (normalized, classes, rows, begin, end, normalized_begin, normalized_end)
        )

    def _take_cjk_spaces(self, matches, spaced, rows, begin, end):
        """Offsets of HF's lstrip / rstrip matches that take the space its normalizer put beside a CJK ideograph.

        That space maps to the ideograph, so the match's offsets reach over it
        (the ideograph stays a word of its own). A previous match keeps the
        spaces it took, as in HF.
        """
        n = tf.size(rows)
        position = tf.range(n)
        token = tf.maximum(matches.token, 0)
        matched = matches.token >= 0

        def flag(name):
            return matched & tf.gather(tf.constant([getattr(t, name) for t in self.added_tokens.flags]), token)

        def free_spaced(at):  # `at` is in the string, a CJK ideograph outside the matches before it
            inside = (at >= 0) & (at < n)
            at = tf.clip_by_value(at, 0, tf.maximum(n - 1, 0))
            same_row = tf.equal(tf.gather(rows, at), rows)
            return inside & same_row & tf.gather(spaced, at), at

        before, previous = free_spaced(position - 1)
        before &= (tf.gather(matches.token, previous) < 0) & ~tf.gather(matches.covered, previous)
        after, following = free_spaced(matches.last + 1)
        begin = tf.where(flag("lstrip") & before, tf.gather(begin, previous), begin)
        last_end = tf.gather(end, matches.last)
        end = tf.where(flag("rstrip") & after, tf.gather(end, following), last_end)
        return begin, end

    def _merge_unused_tokens(self, normalized, spans, normalized_begin, normalized_end, rows):
        """Joins the words `[`, `unused<digits>`, `]` when they touch (tensorflow_text's rule).

        Returns the new word row_splits over `spans.kept`.
        """
        chars = tf.RaggedTensor.from_row_splits(tf.gather(normalized, spans.kept), spans.row_splits, validate=False)
        text = _encode(chars)
        first = tf.gather(spans.kept, chars.row_starts())
        last = tf.gather(spans.kept, chars.row_limits() - 1)
        word_row = tf.gather(rows, first)
        word_begin, word_end = tf.gather(normalized_begin, first), tf.gather(normalized_end, last)

        def touches(k):  # word i+k-1 ends where word i+k begins, in the same string
            return tf.equal(ahead(word_row, k, -1), ahead(word_row, k - 1, -2)) & (
                tf.equal(ahead(word_begin, k, -1), ahead(word_end, k - 1, -2))
            )

        starts = (
            tf.equal(text, "[")
            & tf.strings.regex_full_match(ahead(text, 1, ""), _UNUSED_TOKEN_BODY)
            & tf.equal(ahead(text, 2, ""), "]")
            & touches(1)
            & touches(2)
        )
        continues = behind(starts, 1, False) | behind(starts, 2, False)
        return tf.concat([tf.boolean_mask(spans.row_splits[:-1], ~continues), spans.row_splits[-1:]], 0)


@cache_per_graph  # per (normalizer, pre-tokenizer) pair, which are shared themselves
def _fused_lookup(normalizer: Normalizer, pre_tokenizer: PreTokenizer) -> ut.CodePointLookup:
    """Code point -> normalization row * 4 + the class of its output when that is one code point."""
    single = np.array([out[0] if len(out) == 1 else 0 for out in normalizer.table.row_outputs], np.int64)
    rows = normalizer.table.dense_rows
    output = np.where(rows == 0, np.arange(ut.NUM_CODE_POINTS), single[rows])
    return ut.CodePointLookup(rows.astype(np.int64) * 4 + pre_tokenizer.classes.dense[output])


def _next_begins(strings: tf.Tensor, rows: tf.Tensor, begin: tf.Tensor) -> tf.Tensor:
    """Each character's next one's begin in its string, the string's length after its last (int64 [m]).

    strings: string [n]. rows: int [m], non-decreasing, each character's string. begin: int64 [m].

    >>> _next_begins(tf.constant(["ab", "xyz"]), tf.constant([0, 0, 1]), tf.constant([0, 1, 2], tf.int64)).numpy()
    array([1, 2, 3])
    """
    is_last = tf.not_equal(rows, tf.concat([rows[1:], [-1]], 0))
    lengths = tf.gather(tf.cast(tf.strings.length(strings), tf.int64), rows)
    return tf.where(is_last, lengths, tf.concat([begin[1:], [0]], 0))


def _encode(chars: tf.RaggedTensor) -> tf.Tensor:
    """Code points [w, chars] -> UTF-8 [w]; added-token markers and invalid bytes become U+FFFD."""
    printable = (chars.flat_values >= 0) & tf.not_equal(chars.flat_values, ut.INVALID_UTF8)
    values = tf.where(printable, chars.flat_values, ut.REPLACEMENT_CHARACTER)
    return tf.strings.unicode_encode(chars.with_flat_values(values), "UTF-8")


def _encode_keeping_invalid_bytes(chars, text, strings, char_row, char_begin, char_end) -> tf.Tensor:
    """Code points [w, chars] -> UTF-8 [w], each invalid UTF-8 character written as the bytes it was.

    `char_row`, `char_begin`, `char_end` ([w, chars]) say where each character
    comes from in `strings`. A word whose bytes would decode to other
    characters (normalization deleted what stood between two invalid
    sequences, which then join) keeps its `text` (U+FFFD for them), so that
    WordPiece sees the characters counted here.
    """
    # Flat raw ops, no ragged wrappers: this branch is in every graph (dead unless a batch holds invalid
    # UTF-8), and each node of it costs every call a little; ragged ones also add Asserts (a stateful If).
    values = chars.flat_values
    invalid = tf.equal(values, ut.INVALID_UTF8)
    valid = tf.where((values >= 0) & ~invalid, values, ut.REPLACEMENT_CHARACTER)
    one_each = tf.raw_ops.UnicodeEncode(
        input_values=valid, input_splits=tf.range(tf.size(values, out_type=tf.int64) + 1), output_encoding="UTF-8"
    )
    source = tf.gather(strings, tf.cast(char_row.flat_values, tf.int64))
    raw = tf.strings.substr(source, char_begin.flat_values, char_end.flat_values - char_begin.flat_values)
    pieces = tf.where(invalid, raw, one_each)
    lengths = chars.row_splits[1:] - chars.row_splits[:-1]
    kept = tf.strings.unsorted_segment_join(pieces, rows_and_positions(lengths)[0], tf.size(text))
    splits = tf.raw_ops.UnicodeDecode(input=kept, input_encoding="UTF-8", errors="replace").row_splits
    return tf.where(tf.equal(splits[1:] - splits[:-1], lengths), kept, text)


def _normalized_offsets(
    normalized: tf.Tensor, rows: tf.Tensor, source_length: tf.Tensor
) -> tuple[tf.Tensor, tf.Tensor]:
    """Byte offsets of each normalized code point within its normalized string (int64).

    Invalid UTF-8 and added tokens matched in the raw text (negative markers)
    keep their own length (`source_length`, the bytes they came from).
    """
    length = tf.cast(ut.utf8_length(tf.maximum(normalized, 0)), tf.int64)
    length = tf.where(tf.equal(normalized, ut.INVALID_UTF8) | (normalized < 0), source_length, length)
    total = tf.cumsum(length, exclusive=True)
    num_rows = tf.reduce_max(tf.concat([rows, [-1]], 0)) + 1
    row_base = tf.math.unsorted_segment_min(total, rows, num_rows)
    begin = total - tf.gather(row_base, rows)
    return begin, begin + length
