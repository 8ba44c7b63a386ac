"""Decoding: ids back to words."""

from __future__ import annotations

import re

import tensorflow as tf


def wordpiece_detokenize(token_ids, tokens: tf.Tensor, suffix_indicator: str, unknown_token: str) -> tf.RaggedTensor:
    """tensorflow_text's WordpieceTokenizer.detokenize: ids [..., pieces] -> words [..., words].

    Pieces are joined with spaces, `" " + suffix_indicator` is removed, and the
    result is split on spaces. Ids at or past the vocabulary size become
    `unknown_token`; negative ids are an InvalidArgumentError.

    >>> vocab = tf.constant(["[UNK]", "un", "##aff", "##able", "!"])
    >>> wordpiece_detokenize(tf.ragged.constant([[1, 2, 3, 4, 9]]), vocab, "##", "[UNK]").to_list()
    [[b'unaffable', b'!', b'[UNK]']]
    """
    ids = token_ids if isinstance(token_ids, tf.RaggedTensor) else tf.convert_to_tensor(token_ids)
    if not ids.dtype.is_integer:
        raise TypeError(f"token_ids: expected integer ids, got dtype {ids.dtype.name}")
    if ids.shape.rank is not None and ids.shape.rank < 2:
        raise ValueError(f"token_ids: expected rank >= 2 ([..., pieces]), got shape {ids.shape}")
    table = tf.concat([tokens, [unknown_token]], axis=0)
    size = tf.cast(tf.size(tokens), ids.dtype)

    def lookup(flat_ids):
        with tf.control_dependencies([tf.debugging.assert_non_negative(flat_ids, message="token_ids: ids must be >= 0")]):
            return tf.gather(table, tf.minimum(flat_ids, size))

    if isinstance(ids, tf.RaggedTensor):
        pieces = tf.ragged.map_flat_values(lookup, ids)
    else:
        pieces = tf.RaggedTensor.from_tensor(lookup(ids))
    words = tf.strings.reduce_join(pieces, axis=-1, separator=" ")
    if suffix_indicator:
        words = tf.strings.regex_replace(words, " " + re.escape(suffix_indicator), "")
    words = tf.strings.regex_replace(words, "^ +| +$", "")
    return tf.strings.split(words, sep=" ")
