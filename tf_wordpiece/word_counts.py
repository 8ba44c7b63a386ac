"""Word counting for the learner: text -> {word: count}, split by the same basic tokenizer as BertTokenizer."""

from __future__ import annotations

import os
from typing import Sequence

import tensorflow as tf
from tqdm.auto import tqdm

from tf_wordpiece.basic_tokenizer import BasicTokenizer

BATCH_SIZE = 1024  # scalar datasets are counted in batches of this many strings


class WordCounts(dict):
    """{word: count} in order of first appearance, as tensorflow_text's Counter keeps them.

    `skipped_invalid_utf8` counts the words (occurrences) dropped because they
    are not valid UTF-8: tensorflow_text's learner fails on them; a vocabulary
    cannot hold them, and BertTokenizer makes such words unknown anyway.
    """

    skipped_invalid_utf8: int = 0
    lines: int = 0


def count_words(dataset: tf.data.Dataset, basic_tokenizer: BasicTokenizer, *, progress: bool = False) -> WordCounts:
    """Counts the words of a dataset of strings, split and normalized by `basic_tokenizer`.

    Args:
      dataset: elements are tf.string tensors of any shape (scalars are
        batched here), or RaggedTensors of strings.
      basic_tokenizer: e.g. `tf_text_basic_tokenizer(lower_case=True)`.
      progress: show a progress bar over the strings read.

    Returns:
      WordCounts: word (str) -> count (int), in order of first appearance.

    >>> from tf_wordpiece.basic_tokenizer import tf_text_basic_tokenizer
    >>> data = tf.data.Dataset.from_tensor_slices(["The cat.", "the CAT sat"])
    >>> dict(count_words(data, tf_text_basic_tokenizer(lower_case=True)))
    {'the': 2, 'cat': 2, '.': 1, 'sat': 1}
    """
    spec = dataset.element_spec
    if not isinstance(spec, (tf.TensorSpec, tf.RaggedTensorSpec)) or spec.dtype != tf.string:
        raise TypeError(f"dataset: expected elements that are single tf.string tensors, got element_spec {spec}")
    if isinstance(spec, tf.TensorSpec) and spec.shape.rank == 0:
        dataset = dataset.batch(BATCH_SIZE)

    def unique_words(strings):
        flat = strings.flat_values if isinstance(strings, tf.RaggedTensor) else tf.reshape(strings, [-1])
        words = basic_tokenizer.split(flat)
        valid = tf.cond(tf.reduce_all(_is_valid_utf8(flat)), lambda: tf.ones_like(words.row, tf.bool),
                        lambda: _is_valid_utf8(_original_text(flat, words)))
        unique, _, counts = tf.unique_with_counts(tf.boolean_mask(words.text, valid), out_idx=tf.int64)
        return unique, counts, tf.size(flat), tf.size(valid) - tf.reduce_sum(tf.cast(valid, tf.int32))

    totals: dict[bytes, int] = {}
    batches = dataset.map(unique_words, num_parallel_calls=tf.data.AUTOTUNE, deterministic=True).prefetch(2)
    result = WordCounts()
    with tqdm(desc="counting words", unit=" strings", disable=not progress, leave=False) as bar:
        for words, counts, size, invalid in batches:
            for word, count in zip(words.numpy().tolist(), counts.numpy().tolist()):
                totals[word] = totals.get(word, 0) + count
            bar.update(int(size))
            result.lines += int(size)
            result.skipped_invalid_utf8 += int(invalid)
    for word, count in totals.items():
        result[word.decode("utf-8")] = count
    return result


def _is_valid_utf8(strings: tf.Tensor) -> tf.Tensor:
    return tf.strings.unicode_transcode(strings, "UTF-8", "UTF-8", errors="replace") == strings


def _original_text(strings: tf.Tensor, words) -> tf.Tensor:
    """Each word's bytes in its original string (words from `BasicTokenizer.split(strings)`)."""
    begin = tf.gather(words.begin.flat_values, words.begin.row_starts())
    end = tf.gather(words.end.flat_values, words.end.row_limits() - 1)
    return tf.strings.substr(tf.gather(strings, words.row), begin, end - begin)


def text_line_dataset(paths: Sequence[str | os.PathLike]) -> tf.data.Dataset:
    """The lines of UTF-8 text files as a dataset of scalar strings (line ends removed).

    Checks up front that every file exists and is readable, so that a typo
    fails before any work, with the path in the message.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    if not paths:
        raise ValueError("input: no files given")
    for path in paths:
        try:
            with open(path, "rb"):
                pass
        except OSError as e:
            raise ValueError(f"input: cannot read {os.fspath(path)!r}: {e.strerror}") from None
    lines = tf.data.TextLineDataset([os.fspath(p) for p in paths])
    return lines.map(lambda line: tf.strings.regex_replace(line, "\r$", ""))
