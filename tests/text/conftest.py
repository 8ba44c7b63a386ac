"""Fixtures of tests/text: real token-id batches (the multilingual sample through tensorflow_text.BertTokenizer),
and the shared sample as one batch of strings (multilingual lines, hard strings, invalid UTF-8)."""

from __future__ import annotations

import pytest
import tensorflow as tf

from helpers import data

LINES = 300  # enough for every length of row; the whole sample is not needed


@pytest.fixture(scope="session")
def word_pieces() -> tf.RaggedTensor:
    """int64 [300, (words), (pieces)]: the first 300 lines of the multilingual sample, bert-base-uncased's ids."""
    tf_text = pytest.importorskip("tensorflow_text")
    lines = [line for line in data.multilingual_lines() if line][:LINES]
    tokenizer = tf_text.BertTokenizer(str(data.VOCAB), lower_case=True, token_out_type=tf.int64)
    return tokenizer.tokenize(tf.constant(lines))


@pytest.fixture(scope="session")
def tokens(word_pieces: tf.RaggedTensor) -> tf.RaggedTensor:
    """int64 [300, (tokens)]: `word_pieces` with the words merged."""
    return word_pieces.merge_dims(1, 2)


@pytest.fixture(scope="module")
def sample(multilingual, hard_strings, invalid_utf8) -> list[bytes]:
    """The first 3,000 multilingual lines (every script, quick), the hard strings, invalid UTF-8."""
    return [s.encode("utf-8") for s in hard_strings + multilingual[:3000]] + list(invalid_utf8)
