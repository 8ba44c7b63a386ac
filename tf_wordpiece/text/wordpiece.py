"""tensorflow_text's `WordpieceTokenizer` and `FastWordpieceTokenizer`, composed of `tf_wordpiece.bert.wordpiece`.

Shapes and offsets are the peer's: words [..., words] -> [..., words,
(pieces)] (`WordpieceTokenizer`, and `FastWordpieceTokenizer` with
`no_pretokenization=True`); text [...] -> [..., (pieces)] (`FastWordpieceTokenizer`
by default). Offsets are int64 bytes (in each word, or in each string).

>>> fast = FastWordpieceTokenizer(["[UNK]", "they", "##'", "##re", "great", "##est"], token_out_type=tf.string)
>>> fast.tokenize(["they're greatest"]).to_list()
[[b'they', b'[UNK]', b'[UNK]', b'great', b'##est']]
"""

from __future__ import annotations

import tensorflow as tf

from tf_wordpiece.bert import wordpiece
from tf_wordpiece.text.base import Detokenizer, TokenizerWithOffsets


def reject_unsupported(**given) -> None:
    """A ValueError naming each tensorflow_text argument given that tf_wordpiece.text does not take."""
    for name, value in given.items():
        if value is not None:
            raise ValueError(
                f"{name}={value!r}: tf_wordpiece.text builds its tokenizers from the vocabulary and takes no "
                f"{name}; pass the vocabulary and options instead (or use tensorflow_text for {name})"
            )


def fast_wordpiece(
    vocab,
    *,
    suffix_indicator: str,
    max_bytes_per_word: int,
    token_out_type: tf.DType,
    unknown_token: str,
    no_pretokenization: bool,
) -> wordpiece.WordpieceTokenizer:
    """The WordPiece step of tensorflow_text's `FastWordpieceTokenizer` (and so of its `FastBertTokenizer`).

    One place that says which of the repository's WordPiece settings the fast tokenizers are: the
    `fast_wordpiece` compatibility (its built-in pre-tokenizer, its handling of long and unknown words).
    Shapes: as `tf_wordpiece.bert.wordpiece.WordpieceTokenizer`'s.

    >>> fast_wordpiece(["[UNK]", "un", "##able"], suffix_indicator="##", max_bytes_per_word=100,
    ...                token_out_type=tf.int64, unknown_token="[UNK]", no_pretokenization=True
    ... ).tokenize([["unable"]]).to_list()
    [[[1, 2]]]
    """
    return wordpiece.WordpieceTokenizer(
        vocab,
        suffix_indicator=suffix_indicator,
        max_bytes_per_word=max_bytes_per_word,
        token_out_type=token_out_type,
        unknown_token=unknown_token,
        compat="fast_wordpiece",
        no_pretokenization=no_pretokenization,
    )


class WordpieceTokenizer(TokenizerWithOffsets, Detokenizer):
    """tensorflow_text's `WordpieceTokenizer`: words [..., words] -> pieces [..., words, (pieces)].

    Args:
      vocab_lookup_table: a vocab.txt path, a list of tokens, or a
        `tf.lookup.StaticHashTable` / `StaticVocabularyTable`.
      suffix_indicator, max_bytes_per_word, max_chars_per_token,
        token_out_type, unknown_token, split_unknown_characters: as in
        tensorflow_text, with its defaults (`"##"`, `100`, None, `tf.int64`,
        `"[UNK]"`, False).

    Offsets are int64 bytes from each word's start.

    >>> wp = WordpieceTokenizer(["[UNK]", "un", "##aff", "##able"], token_out_type=tf.string)
    >>> wp.tokenize(["unaffable", "xyz"]).to_list()
    [[b'un', b'##aff', b'##able'], [b'[UNK]']]
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
    ):
        super().__init__()
        self._wordpiece = wordpiece.WordpieceTokenizer(
            vocab_lookup_table,
            suffix_indicator=suffix_indicator,
            max_bytes_per_word=max_bytes_per_word,
            max_chars_per_token=max_chars_per_token,
            token_out_type=token_out_type,
            unknown_token=unknown_token,
            split_unknown_characters=split_unknown_characters,
        )

    def vocab_size(self, name: str | None = None) -> tf.Tensor:
        """int64 scalar: the vocabulary's size."""
        return self._wordpiece.vocab_size(name)

    def tokenize(self, input) -> tf.RaggedTensor:  # noqa: A002 (the peer's name)
        """words [..., words] -> [..., words, (pieces)] of ids or strings (`token_out_type`)."""
        return self._wordpiece.tokenize(input)

    def tokenize_with_offsets(self, input) -> tuple:  # noqa: A002
        """words [..., words] -> (pieces, begin, end), each [..., words, (pieces)]; int64 bytes in each word."""
        return self._wordpiece.tokenize_with_offsets(input)

    def detokenize(self, token_ids):
        """ids [..., words, (pieces)] -> words [..., words] (each word's pieces joined, suffixes glued)."""
        return self._wordpiece.detokenize(token_ids)


class FastWordpieceTokenizer(TokenizerWithOffsets, Detokenizer):
    """tensorflow_text's `FastWordpieceTokenizer` (LinMaxMatch), built from the vocabulary in core ops.

    Args:
      vocab: the list of tokens (or a vocab.txt path).
      suffix_indicator, max_bytes_per_word, token_out_type, unknown_token,
        no_pretokenization: as in tensorflow_text, with its defaults. With
        `no_pretokenization=False` strings [...] -> [..., (pieces)], split on
        white space and punctuation first; with True words [..., words] ->
        [..., words, (pieces)].
      support_detokenization: accepted for compatibility; `detokenize` works either way.
      model_buffer: not supported (a ValueError naming it): pass `vocab`.

    >>> fast = FastWordpieceTokenizer(["[UNK]", "un", "##aff", "##able"], no_pretokenization=True)
    >>> ids = fast.tokenize(["unaffable"])
    >>> ids.to_list(), fast.detokenize(ids).numpy().tolist()
    ([[1, 2, 3]], [b'unaffable'])
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
        model_buffer=None,
    ):
        super().__init__()
        reject_unsupported(model_buffer=model_buffer)
        if vocab is None:
            raise ValueError("vocab: None; pass the list of tokens (tf_wordpiece.text takes no model_buffer)")
        self.support_detokenization = bool(support_detokenization)
        self._wordpiece = fast_wordpiece(
            vocab,
            suffix_indicator=suffix_indicator,
            max_bytes_per_word=max_bytes_per_word,
            token_out_type=token_out_type,
            unknown_token=unknown_token,
            no_pretokenization=no_pretokenization,
        )

    def tokenize(self, input) -> tf.RaggedTensor:  # noqa: A002 (the peer's name)
        """text [...] -> [..., (pieces)] (words [..., words] -> [..., words, (pieces)] with no_pretokenization)."""
        return self._wordpiece.tokenize(input)

    def tokenize_with_offsets(self, input) -> tuple:  # noqa: A002
        """(pieces, begin, end), shaped as `tokenize`'s result; int64 byte offsets."""
        return self._wordpiece.tokenize_with_offsets(input)

    def detokenize(self, input):  # noqa: A002
        """ids [..., (pieces)] -> strings [...]: each row's words joined by spaces (a scalar for rank 1)."""
        words = self._wordpiece.detokenize(input)
        if isinstance(words, tf.RaggedTensor):
            return tf.strings.reduce_join(words, axis=-1, separator=" ")
        return words
