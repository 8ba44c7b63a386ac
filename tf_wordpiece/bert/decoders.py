"""Decoding: ids back to words."""

from __future__ import annotations

import re
from typing import NamedTuple

import tensorflow as tf

from tf_wordpiece.shapes import as_ids, value_rows


def wordpiece_detokenize(
    token_ids, tokens: tf.Tensor, suffix_indicator: str, unknown_token: str, *, fast_wordpiece: bool = False
) -> tf.RaggedTensor:
    """tensorflow_text's WordpieceTokenizer.detokenize: ids [..., pieces] -> words [..., words].

    Pieces are joined with spaces, `" " + suffix_indicator` is removed, and the
    result is split on spaces: with an empty suffix indicator every piece
    continues the word, as in tensorflow_text's WordpieceTokenizer, except with
    `fast_wordpiece` (its FastWordpieceTokenizer keeps each piece a word). Ids
    at or past the vocabulary size become `unknown_token`; negative ids are an
    InvalidArgumentError.

    >>> vocab = tf.constant(["[UNK]", "un", "##aff", "##able", "!"])
    >>> wordpiece_detokenize(tf.ragged.constant([[1, 2, 3, 4, 9]]), vocab, "##", "[UNK]").to_list()
    [[b'unaffable', b'!', b'[UNK]']]
    """
    ids = as_ids(token_ids, "token_ids")
    if ids.shape.rank is not None and ids.shape.rank < 2:
        raise ValueError(f"token_ids: expected rank >= 2 ([..., pieces]), got shape {ids.shape}")
    table = tf.concat([tokens, [unknown_token]], axis=0)
    size = tf.cast(tf.size(tokens), ids.dtype)

    def lookup(flat_ids):
        with tf.control_dependencies(
            [tf.debugging.assert_non_negative(flat_ids, message="token_ids: ids must be >= 0")]
        ):
            return tf.gather(table, tf.minimum(flat_ids, size))

    if isinstance(ids, tf.RaggedTensor):
        pieces = tf.ragged.map_flat_values(lookup, ids)
    else:
        pieces = tf.RaggedTensor.from_tensor(lookup(ids))
    words = tf.strings.reduce_join(pieces, axis=-1, separator=" ")
    if suffix_indicator or not fast_wordpiece:
        words = tf.strings.regex_replace(words, " " + re.escape(suffix_indicator), "")
    words = tf.strings.regex_replace(words, "^ +| +$", "")
    return tf.strings.split(words, sep=" ")


# tokenizers' WordPiece decoder cleanup (decoders/wordpiece.rs), applied to each token on its own.
WORDPIECE_CLEANUP = (
    (" .", "."),
    (" ?", "?"),
    (" !", "!"),
    (" ,", ","),
    (" ' ", "'"),
    (" n't", "n't"),
    (" 'm", "'m"),
    (" do not", " don't"),
    (" 's", "'s"),
    (" 've", "'ve"),
    (" 're", "'re"),
)
# transformers' clean_up_tokenization: the same rules but "do not", on the whole decoded string.
TRANSFORMERS_CLEANUP = tuple(rule for rule in WORDPIECE_CLEANUP if rule[0] != " do not")


def hf_wordpiece_decode(
    token_ids,
    tokens: tf.Tensor,
    special: tf.Tensor,
    *,
    prefix: str | None = "##",
    cleanup: bool = True,
    skip_special_tokens: bool = True,
    clean_up_tokenization_spaces: bool = False,
) -> tf.Tensor:
    """Hugging Face `Tokenizer.decode_batch` with a WordPiece decoder: ids [batch, n] -> string [batch].

    Ids with no token (empty string in `tokens`, or out of range) are dropped,
    as are special tokens with `skip_special_tokens`. Every token after the
    first loses `prefix` if it has it, else gets a space in front; then, with
    `cleanup`, each token on its own goes through the decoder's replacements
    (so `" ' "` never fires across tokens, as in tokenizers). `prefix=None`
    means no decoder: tokens joined by spaces. `clean_up_tokenization_spaces`
    then applies transformers' `clean_up_tokenization` to the whole string.

    Args:
      token_ids: int [batch, n], dense or ragged.
      tokens: string [size], the token of each id ("" where an id has none).
      special: bool [size], the special added tokens.

    >>> tokens = tf.constant(["[CLS]", "[SEP]", "don", "'", "t", "go", "##ing", "."])
    >>> special = tf.constant([True, True, False, False, False, False, False, False])
    >>> hf_wordpiece_decode([[0, 2, 3, 4, 5, 6, 7, 1]], tokens, special).numpy().tolist()
    [b"don ' t going."]
    """
    ids = as_ids(token_ids, "ids")
    if ids.shape.rank is not None and ids.shape.rank != 2:
        raise ValueError(f"ids: expected rank 2 ([batch, tokens], dense or ragged), got shape {ids.shape}")
    if not isinstance(ids, tf.RaggedTensor):
        ids = tf.RaggedTensor.from_tensor(ids)
    flat = tf.cast(ids.flat_values, tf.int64)
    check = tf.debugging.assert_non_negative(flat, message="ids: token ids must be >= 0")
    with tf.control_dependencies([check]):
        flat = tf.identity(flat)
    size = tf.size(tokens, out_type=tf.int64)
    index = tf.minimum(flat, size)
    text = tf.gather(tf.concat([tokens, [""]], 0), index)
    keep = tf.not_equal(text, "")
    if skip_special_tokens:
        keep &= ~tf.gather(tf.concat([special, [False]], 0), index)
    pieces = tf.ragged.boolean_mask(ids.with_flat_values(text), ids.with_flat_values(keep))
    if prefix is None:
        return tf.strings.reduce_join(pieces, axis=1, separator=" ")
    values = pieces.flat_values
    # Each row's first kept token (rows left empty, the last one too, have none).
    first = tf.equal(tf.range(tf.size(values, out_type=tf.int64)), tf.gather(pieces.row_splits, value_rows(pieces)))
    if prefix:
        continues = tf.equal(tf.strings.substr(values, 0, len(prefix.encode("utf-8"))), prefix)
        stripped = tf.strings.regex_replace(values, "^" + re.escape(prefix), "", replace_global=False)
    else:
        continues, stripped = tf.ones_like(first), values  # "" is every token's prefix
    values = tf.where(first, values, tf.where(continues, stripped, tf.strings.join([" ", values])))
    if cleanup:
        values = _replace_all(values, WORDPIECE_CLEANUP)
    text = tf.strings.reduce_join(pieces.with_flat_values(values), axis=1, separator="")
    if clean_up_tokenization_spaces:
        text = _replace_all(text, TRANSFORMERS_CLEANUP)
    return text


def _replace_all(strings: tf.Tensor, rules) -> tf.Tensor:
    """str.replace for each (old, new) in turn (RE2 global replace of a literal is the same scan)."""
    for old, new in rules:
        strings = tf.strings.regex_replace(strings, re.escape(old), new.replace("\\", "\\\\"))
    return strings


class WordPieceDecoder(NamedTuple):
    """Hugging Face's WordPiece decoder settings: the continuation prefix and whether to clean up."""

    prefix: str = "##"
    cleanup: bool = True
