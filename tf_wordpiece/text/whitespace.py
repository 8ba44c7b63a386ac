"""tensorflow_text's `WhitespaceTokenizer`: strings split on Unicode White_Space (ICU's u_isUWhiteSpace).

Composed of `tf_wordpiece.bert.basic_tokenizer.BasicTokenizer` with no
normalization and white space as the only separator.

>>> WhitespaceTokenizer().tokenize(["hello\\u3000world  !", ""]).to_list()
[[b'hello', b'world', b'!'], []]
"""

from __future__ import annotations

import functools

import numpy as np
import tensorflow as tf

from tf_wordpiece.bert import normalizers
from tf_wordpiece.bert.basic_tokenizer import BasicTokenizer
from tf_wordpiece.bert.pre_tokenizers import PreTokenizer
from tf_wordpiece.shapes import map_over_strings
from tf_wordpiece.text.base import TokenizerWithOffsets
from tf_wordpiece.tf1_graphs import cache_per_graph
from tf_wordpiece.unicode import tables as ut
from tf_wordpiece.unicode.classes import CharacterClasses


class WhitespaceTokenizer(TokenizerWithOffsets):
    """Strings [...] -> tokens [..., (tokens)], split on white space (dropped); offsets int64 bytes.

    >>> tokens, begin, end = WhitespaceTokenizer().tokenize_with_offsets("a  bc")
    >>> tokens.numpy().tolist(), begin.numpy().tolist(), end.numpy().tolist()
    ([b'a', b'bc'], [0, 3], [1, 5])
    """

    def __init__(self):
        super().__init__()

    def tokenize(self, input) -> tf.RaggedTensor:  # noqa: A002 (the peer's name)
        """string [...] -> [..., (tokens)].

        Without offsets, one `tf.strings.split` (on ASCII white space) gives the tokens once the other
        White_Space characters are spaces: several times faster than the code-point path the offsets need.
        """
        return map_over_strings(input, "input", self._flat_tokens)[0]

    def _flat_tokens(self, flat: tf.Tensor) -> tuple:
        return (tf.strings.split(tf.strings.regex_replace(flat, _non_ascii_white_space(), " ")),)

    def tokenize_with_offsets(self, input) -> tuple:  # noqa: A002
        """string [...] -> (tokens, begin, end), each [..., (tokens)]; int64 byte offsets, `end` exclusive."""
        return map_over_strings(input, "input", self._flat)

    def _flat(self, flat: tf.Tensor) -> tuple:
        words = _splitter().split(flat)  # at call time: the tables of the graph it runs in (one built eagerly
        # may run in a TF1-style graph, as tensorflow_text's tests make it in setUp)
        begin = tf.gather(words.begin.flat_values, words.begin.row_splits[:-1])
        end = tf.gather(words.end.flat_values, words.end.row_splits[1:] - 1)
        text = tf.strings.substr(tf.gather(flat, words.row), begin, end - begin)  # the input's bytes
        return tuple(
            tf.RaggedTensor.from_value_rowids(t, words.row, nrows=words.num_strings) for t in (text, begin, end)
        )


@cache_per_graph  # immutable; every WhitespaceTokenizer shares it
def _splitter() -> BasicTokenizer:
    white_space = _white_space()
    classes = CharacterClasses.from_masks(whitespace=white_space, isolated=np.zeros(ut.NUM_CODE_POINTS, bool))
    identity = normalizers.hf_normalizer(clean_text=False, strip_accents=False, lowercase=False)
    return BasicTokenizer(identity, PreTokenizer(classes))


def _white_space() -> np.ndarray:
    """bool [NUM_CODE_POINTS]: Unicode White_Space (tf.strings.split's ASCII six, and 19 others)."""
    return ut.range_mask(ut.peer_tables()["hf"]["whitespace"])


@functools.cache
def _non_ascii_white_space() -> str:
    """An RE2 class of White_Space beyond ASCII."""
    white_space = _white_space()
    white_space[:0x80] = False
    return ut.regex_class(white_space)
