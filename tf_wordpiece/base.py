"""The interfaces every tokenizer implements, as tensorflow_text's do.

`Tokenizer`, `TokenizerWithOffsets` and `Detokenizer`.

They are `tf.Module`s (so tables and constants are tracked into SavedModels)
with abstract methods; code that takes "a tokenizer" can rely on these and
nothing else.

>>> import tf_wordpiece as twp
>>> tok = twp.BertTokenizer(["[UNK]", "hi"])
>>> isinstance(tok, twp.TokenizerWithOffsets), isinstance(tok, twp.Detokenizer)
(True, True)
"""

from __future__ import annotations

import abc

import tensorflow as tf


class Tokenizer(tf.Module, metaclass=abc.ABCMeta):
    """Strings in, tokens out."""

    @abc.abstractmethod
    def tokenize(self, strings):
        """string [...] -> tokens [..., tokens] (ragged; a tokenizer may split in stages, e.g. [..., words, pieces])."""


class TokenizerWithOffsets(Tokenizer):
    """A `Tokenizer` that also says where each token comes from."""

    @abc.abstractmethod
    def tokenize_with_offsets(self, strings):
        """string [...] -> (tokens, begin, end), each shaped as `tokenize`'s result; offsets in bytes."""

    def tokenize(self, strings):
        return self.tokenize_with_offsets(strings)[0]


class Detokenizer(tf.Module, metaclass=abc.ABCMeta):
    """Token ids back to text."""

    @abc.abstractmethod
    def detokenize(self, token_ids):
        """ids [..., tokens] -> strings (each tokenizer documents the exact shape)."""
