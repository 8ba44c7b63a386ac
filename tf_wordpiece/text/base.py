"""tensorflow_text's base classes: `Splitter`, `SplitterWithOffsets`, `Tokenizer`, `TokenizerWithOffsets`,
`Detokenizer`.

As there, a `Tokenizer` is a `Splitter` whose `split` is `tokenize`. They
extend `tf_wordpiece.base`'s (so `tf_wordpiece.text`'s tokenizers are
`tf_wordpiece.TokenizerWithOffsets` too); `Detokenizer` is that one.

>>> class Chars(Tokenizer):
...     def tokenize(self, input):
...         return tf.strings.unicode_split(input, "UTF-8")
>>> Chars().split(["ab"]).to_list()
[[b'a', b'b']]
"""

from __future__ import annotations

import abc

import tensorflow as tf

from tf_wordpiece import base
from tf_wordpiece.base import Detokenizer

__all__ = ["Detokenizer", "Splitter", "SplitterWithOffsets", "Tokenizer", "TokenizerWithOffsets"]


class Splitter(tf.Module, metaclass=abc.ABCMeta):
    """Splits each string into pieces: string [...] -> [..., pieces]."""

    @abc.abstractmethod
    def split(self, input):  # noqa: A002 (the peer's name)
        """string [...] -> pieces [..., (pieces)]."""


class SplitterWithOffsets(Splitter):
    """A `Splitter` that also gives each piece's byte offsets."""

    @abc.abstractmethod
    def split_with_offsets(self, input):  # noqa: A002
        """string [...] -> (pieces, begin, end), each [..., (pieces)]; offsets in bytes, `end` exclusive."""


class Tokenizer(base.Tokenizer, Splitter):
    """A tokenizer: `split` is `tokenize`."""

    def split(self, input):  # noqa: A002
        return self.tokenize(input)


class TokenizerWithOffsets(Tokenizer, base.TokenizerWithOffsets, SplitterWithOffsets):
    """A tokenizer with offsets: `split_with_offsets` is `tokenize_with_offsets`."""

    def split_with_offsets(self, input):  # noqa: A002
        return self.tokenize_with_offsets(input)
