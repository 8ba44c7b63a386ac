"""WordPiece: greedy longest-match-first splitting of words into vocabulary pieces.

Shape transformation: `[..., words] => [..., words, pieces]`. Offsets are in
bytes, relative to the start of each word.

`WordpieceTokenizer` is the interface: its options and checks, words that are
one piece (or over a limit) as a whole, the text of pieces with no vocabulary
id, offsets and output types. The matching of the other words is one of two
algorithms, with the same results: `tf_wordpiece.bert.maxmatch` (the default)
or `tf_wordpiece.bert.linmaxmatch`. With `compat="fast_wordpiece"` text is
split into words first by `pre_tokenizers.fast_wordpiece_pre_tokenizer`. What
each `compat` mode takes and does differently is its recipe's
(`tf_wordpiece.bert.wordpiece_recipes`).
"""

from __future__ import annotations

from typing import NamedTuple, Protocol

import tensorflow as tf

from tf_wordpiece.base import Detokenizer, TokenizerWithOffsets
from tf_wordpiece.bert.basic_tokenizer import OFFSET_MODES as OFFSET_MODES  # decided there, next to Words
from tf_wordpiece.bert.basic_tokenizer import Words
from tf_wordpiece.bert.decoders import wordpiece_detokenize
from tf_wordpiece.bert.linmaxmatch import LinMaxMatcher
from tf_wordpiece.bert.maxmatch import MARK, UNKNOWN_CHARACTER, WHOLE_WORD, MaxMatcher
from tf_wordpiece.bert.wordpiece_recipes import ALGORITHMS as ALGORITHMS  # the matchers, by name
from tf_wordpiece.bert.wordpiece_recipes import WORDPIECE_RECIPES, check_wordpiece_options, wordpiece_recipe
from tf_wordpiece.messages import check_choice
from tf_wordpiece.shapes import as_ids, gather_in_rows, map_over_strings, rows_to_splits, value_rows
from tf_wordpiece.vocab import Vocab, VocabLike

COMPAT_MODES = tuple(WORDPIECE_RECIPES)


class Matcher(Protocol):
    """How words that are not one piece are split: `maxmatch.MaxMatcher` or `linmaxmatch.LinMaxMatcher`."""

    def match(self, words: tf.Tensor, n_chars: tf.Tensor | None) -> tuple:
        """Greedy longest-match-first pieces of each word.

        Args:
          words: string [w], each word as UTF-8 (not empty, not a piece as a whole).
          n_chars: int32 [w], each word's number of code points (as decoded with
            errors="replace"); None: the matcher counts them.
        Returns:
          (word, begin, end, ids, failed): per piece, int32 [p] its word
          (non-decreasing: each word's pieces together, in order), its begin
          and end in code points, its int64 id (or a `maxmatch` sentinel for a
          piece with no vocabulary id); per word, bool [w], no piece matched at
          some position (the word is unknown; its pieces are not listed).
        """


class Pieces(NamedTuple):
    """Pieces of a flat batch of words, each a RaggedTensor [words, pieces].

    ids: int64 ids. begin, end: int32 character (code point) indices in the word.
    byte_begin, byte_end: int32 byte offsets in the word.
    over_byte_limit: bool [words], words over max_bytes_per_word (tensorflow_text's
      limit), replaced by the unknown token, which tensorflow_text ends at
      len(unknown_token) bytes past the word's start.
    text: string pieces, only when some piece has no vocabulary id
      (`unknown_token=None`, `split_unknown_characters`); else None.
    """

    ids: tf.RaggedTensor
    begin: tf.RaggedTensor
    end: tf.RaggedTensor
    byte_begin: tf.RaggedTensor
    byte_end: tf.RaggedTensor
    over_byte_limit: tf.Tensor
    text: tf.RaggedTensor | None = None


class WordpieceTokenizer(TokenizerWithOffsets, Detokenizer):
    """Splits words into the longest vocabulary pieces, left to right.

    Non-initial pieces carry `suffix_indicator`. A word with a position where no
    piece matches, or longer than the limit, becomes the single unknown token.
    An empty word has no piece, as in tensorflow_text (even when `""` is in the
    vocabulary).

    Args:
      vocab: vocab.txt path (line n is id n), list of tokens, or StaticHashTable.
      suffix_indicator: prefix of non-initial pieces. Defaults to `"##"`.
      max_bytes_per_word: words longer than this many UTF-8 bytes are unknown
        (tensorflow_text's rule). Defaults to `100`; None for no limit.
      max_chars_per_word: words longer than this many code points are unknown
        (Hugging Face's `max_input_chars_per_word`). Defaults to None.
      max_chars_per_token: the longest piece tried, in code points without the
        suffix indicator (tensorflow_text's option, with its results: with
        `trea` and `tread` in the vocabulary and a limit of 4, `treadness`
        gives `trea ##d ##ness`; a whole word longer than the limit is not
        looked up either). None or 0 for no limit. Defaults to None.
      token_out_type: `tf.int64` for ids or `tf.string` for piece strings.
      unknown_token: the token for unknown words; must be in the vocabulary
        unless it is a StaticVocabularyTable (whose OOV buckets give it an
        id). None: an unknown word is its own piece, as in tensorflow_text
        (id: its id in the vocabulary's table, usually an OOV bucket, see
        `Vocab.lookup`). Defaults to `"[UNK]"`.
      split_unknown_characters: where no piece matches, emit one character
        (`unknown_token`, or the character itself when that is None, with the
        suffix indicator inside a word) and go on, as tensorflow_text does,
        instead of making the whole word unknown (`algorithm="maxmatch"` only).
        Defaults to False.
      algorithm: how words are matched, with identical results: `"maxmatch"`
        (every candidate piece looked up at once, few graph ops; the fastest
        on ordinary text; see `tf_wordpiece.bert.maxmatch`) or `"linmaxmatch"`
        (a trie with failure links, time linear in the word length whatever
        the vocabulary, one loop step per character; see
        `tf_wordpiece.bert.linmaxmatch`). Defaults to `"maxmatch"`.
      compat: `"tf_text"` (tensorflow_text's WordpieceTokenizer) or
        `"fast_wordpiece"` (its FastWordpieceTokenizer, with the same ids:
        the unknown token of a word over `max_bytes_per_word` ends at the
        word's end; `unknown_token` must be in the vocabulary, and
        `split_unknown_characters`, `max_chars_per_token` and
        `max_chars_per_word` are not options there). Defaults to `"tf_text"`.
      no_pretokenization: with compat="fast_wordpiece", False (the peer's
        default) takes text, not words: each string is split on white space
        (Unicode White_Space, dropped) and punctuation (ASCII punctuation,
        Unicode P*, CJK ideographs: each a word), and the shape
        transformation is `[..., strings] => [..., strings, pieces]`, offsets
        in bytes from each string's start. True takes words, as
        compat="tf_text" does. Defaults to False.

    >>> wp = WordpieceTokenizer(["[UNK]", "un", "##aff", "##able"], token_out_type=tf.string)
    >>> wp.tokenize(tf.constant(["unaffable", "xyz", ""])).to_list()
    [[b'un', b'##aff', b'##able'], [b'[UNK]'], []]
    >>> fast = WordpieceTokenizer(["[UNK]", "un", "##aff", "##able", "!"], compat="fast_wordpiece")
    >>> fast.tokenize(["unaffable! un"]).to_list()
    [[1, 2, 3, 4, 1]]
    """

    def __init__(
        self,
        vocab: VocabLike | Vocab,
        *,
        suffix_indicator: str = "##",
        max_bytes_per_word: int | None = 100,
        max_chars_per_word: int | None = None,
        max_chars_per_token: int | None = None,
        token_out_type: tf.DType = tf.int64,
        unknown_token: str | None = "[UNK]",
        split_unknown_characters: bool = False,
        algorithm: str = "maxmatch",
        compat: str = "tf_text",
        no_pretokenization: bool = False,
    ):
        super().__init__()
        self.recipe = wordpiece_recipe(compat, no_pretokenization=no_pretokenization)
        self.recipe.check_options(
            unknown_token=unknown_token,
            split_unknown_characters=split_unknown_characters,
            max_chars_per_token=max_chars_per_token,
            max_chars_per_word=max_chars_per_word,
        )
        check_wordpiece_options(
            algorithm=algorithm,
            token_out_type=token_out_type,
            unknown_token=unknown_token,
            split_unknown_characters=split_unknown_characters,
            limits=dict(
                max_bytes_per_word=max_bytes_per_word,
                max_chars_per_word=max_chars_per_word,
                max_chars_per_token=max_chars_per_token,
            ),
        )
        required = [] if unknown_token is None else [unknown_token]
        self.vocab = vocab if isinstance(vocab, Vocab) else Vocab(vocab, required=required)
        self.recipe.check_unknown_token(self.vocab, unknown_token)
        if unknown_token is not None and self.vocab.id_of(unknown_token) < 0 and not self.vocab.has_oov_table:
            raise ValueError(
                f"unknown_token: {unknown_token!r} is not in the {self.vocab.source}; add it or pass another"
            )
        self.suffix_indicator = suffix_indicator
        self.max_bytes_per_word = max_bytes_per_word
        self.max_chars_per_word = max_chars_per_word
        self.max_chars_per_token = max_chars_per_token or None  # 0 is no limit, as in tensorflow_text
        self.token_out_type = token_out_type
        self.unknown_token = unknown_token
        self.split_unknown_characters = split_unknown_characters
        self.unknown_id = WHOLE_WORD if unknown_token is None else self.vocab.id_of(unknown_token)
        # Pieces without a vocabulary id need their text (a slower path, off by default).
        self._needs_text = unknown_token is None or split_unknown_characters or self.unknown_id < 0
        if self.unknown_id < 0 and unknown_token is not None:  # an OOV bucket's id, as tensorflow_text looks it up
            self.unknown_id = self.vocab.id_looked_up(unknown_token)
        self.algorithm = algorithm
        self.compat = compat
        self.no_pretokenization = no_pretokenization
        self._text_splitter = self.recipe.text_splitter()
        self._built_matcher: Matcher | None = None  # built on first use: a numeric-core BertTokenizer never needs it

    def _matcher(self) -> Matcher:
        """The matcher, built on first use (a method, not a property: saving a SavedModel reads every
        property of a module, which would build it in a model that never matches, such as a numeric core's)."""
        if self._built_matcher is None:
            with tf.init_scope():  # eager tables, even when first used inside a tf.function
                self._built_matcher = self._new_matcher()
        return self._built_matcher

    def _new_matcher(self) -> Matcher:
        if self.algorithm == "linmaxmatch":
            return LinMaxMatcher(
                self.vocab.tokens, suffix_indicator=self.suffix_indicator, max_piece_chars=self.max_chars_per_token
            )
        return MaxMatcher(
            self.vocab.tokens,
            token_tensor=self.vocab.token_tensor,
            suffix_indicator=self.suffix_indicator,
            max_piece_chars=self.max_chars_per_token,
            split_unknown_characters=self.split_unknown_characters,
        )

    def vocab_size(self, name: str | None = None) -> tf.Tensor:
        """int64 scalar: the number of ids, OOV buckets included, as tensorflow_text's `vocab_size()`.

        The vocabulary's tokens plus its table's OOV buckets: those of a
        `tf.lookup.StaticVocabularyTable`, none for a `StaticHashTable`, and
        one for a path or a list (tensorflow_text's table for a path).

        >>> int(WordpieceTokenizer(["[UNK]", "a", "##b"]).vocab_size())
        4
        """
        with tf.name_scope(name or "WordpieceTokenizerVocabSize"):
            return tf.constant(len(self.vocab) + self.vocab.num_oov_buckets, tf.int64)

    def tokenize(self, words) -> tf.RaggedTensor:
        """string [..., words] -> [..., words, pieces] of ids or strings."""
        return self.tokenize_with_offsets(words)[0]

    def tokenize_with_offsets(self, words):
        """string [..., words] -> (pieces, begin, end), int64 byte offsets within each word.

        Like tensorflow_text's WordpieceTokenizer, the unknown token of a word
        over `max_bytes_per_word` ends at len(unknown_token) bytes (not at the
        word's end, as for a word over `max_chars_per_word`, Hugging Face's limit).

        >>> wp = WordpieceTokenizer(["[UNK]", "a", "##b"], max_bytes_per_word=3, token_out_type=tf.string)
        >>> [t.to_list() for t in wp.tokenize_with_offsets(["ab", "abbbb"])]
        [[[b'a', b'##b'], [b'[UNK]']], [[0, 1], [0]], [[1, 2], [5]]]
        """

        def flat_tokenize(flat):
            pieces = self.tokenize_flat(flat)
            return self.to_output_type(pieces.ids, pieces.text), pieces.byte_begin, self._unknown_ends(pieces)

        if self._text_splitter is not None:
            return map_over_strings(words, "strings", self._tokenize_text)
        return map_over_strings(words, "words", flat_tokenize)

    def tokenize_words(self, words: Words, *, offsets: str = "original") -> tuple:
        """The basic tokenizer's words of n strings -> (tokens, begin, end), each [n, (words), (pieces)].

        Each piece's byte offsets are its first and last characters' offsets in
        the string: `offsets="original"` in the input string,
        `"normalized"` in the normalized string, with tensorflow_text's rule
        for words over `max_bytes_per_word` (see `tf_text_unknown_ends`).
        Matched added tokens (`words.added_id`) are one piece each.
        """
        check_choice("offsets", offsets, OFFSET_MODES)
        pieces = self.tokenize_flat(words.text, words.added_id, n_chars=words.begin.row_lengths())
        if offsets == "original":
            char_begin, char_end = words.begin, words.end
        else:
            char_begin, char_end = words.normalized_begin, words.normalized_end
        begin = gather_in_rows(char_begin, pieces.begin)
        end = gather_in_rows(char_end, pieces.end - 1)
        if offsets == "normalized":  # tensorflow_text's offsets, quirk included
            end = self.tf_text_unknown_ends(pieces, begin, end)
        tokens = self.to_output_type(pieces.ids, pieces.text)
        splits = rows_to_splits(words.row, words.num_strings)
        return tuple(tf.RaggedTensor.from_row_splits(t, splits, validate=False) for t in (tokens, begin, end))

    def _tokenize_text(self, flat: tf.Tensor) -> tuple:
        """FastWordpieceTokenizer's end-to-end mode: strings [n] -> (pieces, begin, end) [n, pieces], byte offsets."""
        words = self._text_splitter.split(flat)
        # Each word as the input's bytes (the splitter reads invalid UTF-8 as U+FFFD; the peer keeps the bytes).
        first = tf.gather(words.begin.flat_values, words.begin.row_splits[:-1])
        last = tf.gather(words.end.flat_values, words.end.row_splits[1:] - 1)
        text = tf.strings.substr(tf.gather(flat, words.row), first, last - first)
        # An unknown word's token ends at the word's end (original offsets: no tensorflow_text quirk).
        outputs = self.tokenize_words(words._replace(text=text))
        return tuple(t.merge_dims(1, 2) for t in outputs)

    def _unknown_ends(self, pieces: Pieces) -> tf.RaggedTensor:
        """Byte ends in each word, with tensorflow_text's rule for words over the byte limit."""
        if self.recipe.unknown_ends_at_word_end:
            return pieces.byte_end  # FastWordpieceTokenizer ends the unknown token at the word's end
        return self.tf_text_unknown_ends(pieces, pieces.byte_begin, pieces.byte_end)

    def tf_text_unknown_ends(self, pieces: Pieces, begin: tf.RaggedTensor, end: tf.RaggedTensor) -> tf.RaggedTensor:
        """`end` with tensorflow_text's quirk: the unknown token of a word over `max_bytes_per_word` ends
        len(unknown_token) bytes past its `begin` (not at the word's end). begin, end: int [words, pieces]."""
        if self.max_bytes_per_word is None or self.unknown_token is None:
            return end
        over = tf.gather(pieces.over_byte_limit, value_rows(end))
        unknown_length = tf.constant(len(self.unknown_token.encode("utf-8")), end.dtype)
        return end.with_flat_values(tf.where(over, begin.flat_values + unknown_length, end.flat_values))

    def to_output_type(self, ids: tf.RaggedTensor, text: tf.RaggedTensor | None = None) -> tf.RaggedTensor:
        """Piece ids -> token_out_type (`text`: the pieces' strings when `Pieces.text` has them)."""
        if self.token_out_type == tf.string:
            if text is not None:
                return text
            return tf.ragged.map_flat_values(tf.gather, self.vocab.token_tensor, ids)
        return tf.cast(ids, self.token_out_type)

    def detokenize(self, token_ids) -> tf.RaggedTensor | tf.Tensor:
        """ids [..., pieces] -> strings [..., words]: pieces joined, suffixes glued on.

        Like tensorflow_text: ids at or past the vocabulary size become the
        unknown token (`"[UNK]"` when it is None). Rank-1 ids `[pieces]` (one
        sequence) give a scalar string, its words joined by spaces, as
        tensorflow_text's FastWordpieceTokenizer returns them.

        >>> wp = WordpieceTokenizer(["[UNK]", "un", "##aff", "##able", "!"])
        >>> wp.detokenize([[1, 2, 3, 4]]).to_list(), wp.detokenize([1, 2, 3, 4]).numpy()
        ([[b'unaffable', b'!']], b'unaffable !')
        """
        ids = as_ids(token_ids, "token_ids")
        if ids.shape.rank == 0:
            raise ValueError(
                f"token_ids: expected rank >= 1 ([pieces] or [..., pieces]), got a scalar {ids!r}; pass a list of ids"
            )
        if ids.shape.rank == 1:
            words = self.detokenize(ids[None])
            return tf.strings.reduce_join(words, axis=-1, separator=" ")[0]
        return wordpiece_detokenize(
            ids,
            self.vocab.token_tensor,
            self.suffix_indicator,
            "[UNK]" if self.unknown_token is None else self.unknown_token,
            fast_wordpiece=self.recipe.fast_wordpiece_detokenize,
        )

    def tokenize_flat(
        self, words: tf.Tensor, forced_ids: tf.Tensor | None = None, n_chars: tf.Tensor | None = None
    ) -> Pieces:
        """The core: words string [n] -> Pieces.

        `forced_ids` (int64 [n], -1 for none) gives words that are one known
        piece already (matched added tokens). `n_chars` (int [n]) is each
        word's number of code points when the caller knows it (BertTokenizer
        does), which spares decoding the words when no byte offsets are asked for.
        """
        if forced_ids is None:
            unique_words, index = tf.unique(words)
            forced = None
        else:

            def keys():  # forced words are few: only these need a key of their own
                forced_at = tf.where(forced_ids >= 0)
                forced_keys = tf.strings.join([MARK, tf.strings.as_string(tf.gather_nd(forced_ids, forced_at))])
                return tf.tensor_scatter_nd_update(words, forced_at, forced_keys)

            unique_keys, index = tf.unique(tf.cond(tf.reduce_any(forced_ids >= 0), keys, lambda: words))
            first = tf.math.unsorted_segment_min(tf.range(tf.size(words)), index, tf.size(unique_keys))
            unique_words, forced = tf.gather(words, first), tf.gather(forced_ids, first)
        if n_chars is not None:  # equal words have equal counts
            n_chars = tf.math.unsorted_segment_max(tf.cast(n_chars, tf.int32), index, tf.size(unique_words))
        pieces = self._tokenize_unique(unique_words, forced, n_chars)
        if self._needs_text:
            pieces = self._resolve_unknown(unique_words, pieces)
        return Pieces(*(None if t is None else tf.gather(t, index) for t in pieces))

    def _resolve_unknown(self, words: tf.Tensor, pieces: Pieces) -> Pieces:
        """Text and ids of pieces with no vocabulary token, as tensorflow_text makes them: the
        whole word, or an unknown character (`unknown_token` or the character, after the suffix
        indicator inside a word); ids by `Vocab.lookup` (OOV buckets)."""
        ids = pieces.ids.flat_values
        begin, end = pieces.byte_begin.flat_values, pieces.byte_end.flat_values
        word = tf.gather(words, value_rows(pieces.ids))
        character = tf.strings.substr(word, begin, end - begin)
        if self.unknown_token is not None:
            character = tf.fill(tf.shape(character), self.unknown_token)
        if self.suffix_indicator:
            character = tf.where(begin > 0, tf.strings.join([self.suffix_indicator, character]), character)
        size = len(self.vocab)
        token = tf.gather(self.vocab.token_tensor, tf.clip_by_value(ids, 0, size - 1))
        if self.unknown_token is not None:
            token = tf.where(ids >= size, self.unknown_token, token)  # an OOV bucket's id for unknown_token
        text = tf.where(tf.equal(ids, WHOLE_WORD), word, tf.where(tf.equal(ids, UNKNOWN_CHARACTER), character, token))
        looked_up = tf.reshape(self.vocab.lookup(text), [-1])  # rank 1 for TFLite, as `whole` below
        ids = tf.where(ids < 0, looked_up, ids)
        return pieces._replace(ids=pieces.ids.with_flat_values(ids), text=pieces.ids.with_flat_values(text))

    def _tokenize_unique(self, words: tf.Tensor, forced: tf.Tensor | None, n_chars: tf.Tensor | None) -> Pieces:
        # Character boundaries [w, chars + 1]: decoding each word with one extra
        # character appended also yields the offset of the word's end.
        _, bounds = tf.strings.unicode_decode_with_offsets(
            tf.strings.join([words, "\x00"]), "UTF-8", errors="replace", replacement_char=0xFFFD
        )
        bounds = tf.cast(bounds, tf.int32)
        n_bytes = tf.strings.length(words)
        # The matcher counts its words' characters itself, from its own decode: where nothing else needs
        # `n_chars` (no offsets, no character limits) a graph drops this decode of every word.
        matcher_counts = n_chars is None
        if n_chars is None:
            n_chars = tf.cast(bounds.row_lengths(), tf.int32) - 1
        over_byte_limit = tf.zeros_like(n_bytes, tf.bool)
        if self.max_bytes_per_word is not None:
            over_byte_limit = n_bytes > self.max_bytes_per_word
        too_long = over_byte_limit
        if self.max_chars_per_word is not None:
            too_long |= n_chars > self.max_chars_per_word
        whole = tf.reshape(
            self.vocab.table.lookup(words), [-1]
        )  # rank 1 for TFLite (its Flex lookup's rank is unknown)
        if self.max_chars_per_token is not None:  # a longer word is never tried whole
            whole = tf.where(n_chars <= self.max_chars_per_token, whole, -1)
        if forced is not None:
            too_long &= forced < 0
            over_byte_limit &= forced < 0
            whole = tf.where(forced >= 0, forced, whole)
        single = (whole >= 0) | too_long
        single_id = tf.where((whole >= 0) & ~too_long, whole, self.unknown_id)
        # An empty word has no piece (tensorflow_text), even when "" is a token; a forced one keeps its id.
        # (A word has no bytes exactly when it has no characters.)
        not_empty = (n_bytes if matcher_counts else n_chars) > 0
        empty = ~not_empty
        if forced is not None:
            empty &= forced < 0

        todo = tf.cast(tf.reshape(tf.where(~single & not_empty), [-1]), tf.int32)
        walk_word, walk_begin, walk_end, walk_ids, failed = self._matcher().match(
            tf.gather(words, todo), None if matcher_counts else tf.gather(n_chars, todo)
        )
        as_single = tf.cast(tf.reshape(tf.where(single & ~empty), [-1]), tf.int32)
        as_single = tf.concat([as_single, tf.gather(todo, tf.reshape(tf.where(failed), [-1]))], 0)
        walk_word = tf.gather(todo, walk_word)
        ids = tf.concat([tf.gather(single_id, as_single), walk_ids], 0)
        begin = tf.concat([tf.zeros_like(as_single), walk_begin], 0)
        end = tf.concat([tf.gather(n_chars, as_single), walk_end], 0)
        row_splits, order = _pieces_in_word_order(as_single, walk_word, tf.size(words))

        def per_word(values):
            return tf.RaggedTensor.from_row_splits(tf.gather(values, order), row_splits, validate=False)

        begin, end = per_word(begin), per_word(end)
        return Pieces(
            per_word(ids), begin, end, gather_in_rows(bounds, begin), gather_in_rows(bounds, end), over_byte_limit
        )


def _pieces_in_word_order(as_single: tf.Tensor, walk_word: tf.Tensor, num_words: tf.Tensor):
    """Row splits int64 [num_words + 1] and the gather order that lists the pieces word by word.

    The pieces come as the one-piece words `as_single` (int32 word indices, any
    order) followed by the walked words' pieces, `walk_word` (non-decreasing:
    each word's pieces together, in order). Each piece's slot is its word's
    first slot plus its rank in the word; one scatter inverts that (a stable
    argsort would sort, n log n).

    >>> splits, order = _pieces_in_word_order(tf.constant([2, 0]), tf.constant([1, 1, 3]), tf.constant(4))
    >>> splits.numpy().tolist(), order.numpy().tolist()
    ([0, 1, 3, 4, 5], [1, 2, 3, 0, 4])
    """
    row_splits = rows_to_splits(tf.cast(tf.concat([as_single, walk_word], 0), tf.int64), num_words)
    walk_index = tf.range(tf.size(walk_word, out_type=tf.int64))
    walk_first = tf.math.unsorted_segment_min(walk_index, walk_word, num_words)
    slot = tf.concat(
        [tf.gather(row_splits, as_single), tf.gather(row_splits[:-1] - walk_first, walk_word) + walk_index], 0
    )
    size = tf.size(slot, out_type=tf.int64)
    # One spare slot, sliced off: TFLite's ScatterNd divides by zero on an empty output.
    order = tf.scatter_nd(slot[:, None], tf.range(size), tf.reshape(size + 1, [1]))[:-1]
    return row_splits, order
