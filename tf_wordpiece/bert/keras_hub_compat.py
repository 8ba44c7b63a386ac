"""keras-hub's `WordPieceTokenizer` ids, in core TensorFlow ops.

keras-hub (`keras_hub/src/tokenizers/word_piece_tokenizer.py`, `pretokenize`)
runs tensorflow_text ops in another order than tensorflow_text's BertTokenizer:

1. `strip_accents`: NFD of the whole string, then RE2's `\\p{Mn}` deleted;
2. `split`: tensorflow_text's BasicTokenizer split (RE2 `\\s`, `\\p{Cc}` and
   `\\p{Cf}` separate; ASCII punctuation, `\\p{P}` and, with `split_on_cjk`,
   CJK ideographs are words of their own);
3. `lowercase`: ICU's NFKC_Casefold of each word (so a no-break space or a
   fullwidth `！` folds to a space or `!` inside its word, and Hangul jamo
   left by NFD compose again);
4. FastWordpieceTokenizer on each word (100 bytes at most, else `oov_token`).

Here step 1 is the ICU NFD table, canonical ordering and the Mn table; step 2
is `BasicTokenizer` with tensorflow_text's classes; step 3 the ICU
NFKC_Casefold table (decomposed), canonical ordering and composition
(`composition.Composer`); step 4 `WordpieceTokenizer`. The tables are
tensorflow_text's and TensorFlow's RE2 data (`tf_wordpiece.unicode.tables`).
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf

from tf_wordpiece.base import Tokenizer
from tf_wordpiece.bert import normalizers
from tf_wordpiece.bert.basic_tokenizer import BasicTokenizer
from tf_wordpiece.bert.code_points import decode_strings, encode_code_points, table_lookup
from tf_wordpiece.bert.composition import Composer
from tf_wordpiece.bert.pre_tokenizers import PreTokenizer
from tf_wordpiece.bert.wordpiece import WordpieceTokenizer
from tf_wordpiece.shapes import map_over_strings, rows_to_splits
from tf_wordpiece.tf1_graphs import cache_per_graph
from tf_wordpiece.unicode import tables as ut
from tf_wordpiece.unicode.classes import CharacterClasses
from tf_wordpiece.vocab import VocabLike

# FastWordpieceTokenizer's default word limit, which keras-hub keeps.
MAX_BYTES_PER_WORD = 100


class KerasHubWordPiece(Tokenizer):
    """Strings -> WordPiece ids as keras-hub's `WordPieceTokenizer` gives them (words and pieces merged).

    Shapes: with `split`, strings [...] -> int64 [..., (words), (pieces)];
    without it, words [..., words] -> int64 [..., words, (pieces)] (each input
    is one word). keras-hub's output is this with the last two axes merged.

    Args:
      vocab: vocab.txt path or list of tokens (line n is id n).
      lowercase, strip_accents, split, split_on_cjk, suffix_indicator,
        oov_token: keras-hub's arguments, with its defaults.

    >>> tok = KerasHubWordPiece(["[UNK]", "the", "qu", "##ick", "fox", ".", "uber"], lowercase=True, strip_accents=True)
    >>> tok.tokenize(["The quick fox.", "Über"]).to_list()
    [[[1], [2, 3], [4], [5]], [[6]]]
    """

    def __init__(
        self,
        vocab: VocabLike,
        *,
        lowercase: bool = False,
        strip_accents: bool = False,
        split: bool = True,
        split_on_cjk: bool = True,
        suffix_indicator: str = "##",
        oov_token: str = "[UNK]",
    ):
        super().__init__()
        self.lowercase, self.strip_accents = bool(lowercase), bool(strip_accents)
        self.split, self.split_on_cjk = bool(split), bool(split_on_cjk)
        self._composer = Composer() if lowercase or strip_accents else None
        self._nfd = table_lookup("nfd") if strip_accents else None
        self._mn = (
            ut.CodePointLookup(ut.range_mask(ut.peer_tables()["tf_text"]["mn"]).astype(np.int32))
            if strip_accents
            else None
        )
        self._casefold = table_lookup("casefold") if lowercase else None
        self._splitter = (
            BasicTokenizer(
                normalizers.tf_text_normalizer(lower_case=False, normalization_form=None), _pre_tokenizer(split_on_cjk)
            )
            if split
            else None
        )
        self.wordpiece = WordpieceTokenizer(
            vocab, suffix_indicator=suffix_indicator, unknown_token=oov_token, max_bytes_per_word=MAX_BYTES_PER_WORD
        )

    def tokenize(self, strings) -> tf.RaggedTensor:
        """See the shapes above."""
        return map_over_strings(strings, "strings", lambda flat: (self._tokenize_flat(flat),))[0]

    def _tokenize_flat(self, strings: tf.Tensor) -> tf.RaggedTensor:
        """string [n] -> int64 [n, (words), (pieces)] with `split`, else words [n] -> int64 [n, (pieces)]."""
        if self.strip_accents:
            strings = self._strip_accents(strings)
        words = self._splitter.split(strings) if self.split else None
        text = strings if words is None else words.text
        if self.lowercase:
            text = self._fold(text)
        pieces = self.wordpiece.tokenize_flat(text).ids  # [words, (pieces)]
        if words is None:
            return pieces
        splits = rows_to_splits(words.row, tf.size(strings, out_type=tf.int64))
        return tf.RaggedTensor.from_row_splits(pieces, splits, validate=False)

    def _strip_accents(self, strings: tf.Tensor) -> tf.Tensor:
        """NFD (per code point, then canonical ordering), then every `\\p{Mn}` deleted: string [n] -> [n]."""
        code_points, rows = decode_strings(strings)
        code_points, rows = self._nfd(code_points, rows)
        code_points, rows = self._composer.marks(code_points, rows)
        keep = tf.reshape(tf.where(tf.equal(self._mn(tf.maximum(code_points, 0)), 0)), [-1])
        return encode_code_points(tf.gather(code_points, keep), tf.gather(rows, keep), tf.size(strings))

    def _fold(self, words: tf.Tensor) -> tf.Tensor:
        """ICU's NFKC_Casefold of each word: string [w] -> [w]."""
        code_points, rows = decode_strings(words)
        code_points, rows = self._casefold(code_points, rows)
        composed, first, _ = self._composer(code_points, rows)
        return encode_code_points(composed, tf.gather(rows, first), tf.size(words))


@cache_per_graph
def _pre_tokenizer(split_on_cjk: bool) -> PreTokenizer:
    """tensorflow_text's BasicTokenizer classes (keras-hub copied its patterns), CJK isolated or not."""
    tables = ut.peer_tables()["tf_text"]
    isolated = ut.range_mask(tables["punctuation"])
    if split_on_cjk:
        isolated |= ut.range_mask(tables["cjk"])
    return PreTokenizer(CharacterClasses.from_masks(whitespace=ut.range_mask(tables["whitespace"]), isolated=isolated))
