"""Word counting for the learner: text -> {word: count}, split by the same basic tokenizer as BertTokenizer."""

from __future__ import annotations

import os
import sys
from typing import Sequence

import tensorflow as tf

from tf_wordpiece.bert.basic_tokenizer import BasicTokenizer
from tf_wordpiece.bert.space_chunks import words_never_span_spaces
from tf_wordpiece.learning.params import tfds_spec
from tf_wordpiece.messages import STANDARD_INPUT, line_and_offset, not_utf8_message, shown_path
from tf_wordpiece.progress import progress_bar

BATCH_SIZE = 8192  # strings per counting batch (datasets of scalars or vectors are rebatched)


class WordCounts(dict):
    """{word: count} in order of first appearance, as tensorflow_text's Counter keeps them.

    `lines` is the number of strings read. `skipped_invalid_utf8` is the number
    of word occurrences dropped because they hold invalid UTF-8: tensorflow_text's
    learner fails on those, and BertTokenizer makes such words unknown anyway.
    """

    skipped_invalid_utf8: int = 0
    lines: int = 0


def count_words(dataset: tf.data.Dataset, basic_tokenizer: BasicTokenizer, *, progress: bool = False) -> WordCounts:
    """Counts the words of a dataset of strings, split and normalized by `basic_tokenizer`.

    Args:
      dataset: elements are tf.string tensors of any shape (scalars and
        vectors are rebatched here), or RaggedTensors of strings.
      basic_tokenizer: e.g. `TfTextRecipe(lower_case=True).basic_tokenizer()`.
      progress: show a progress bar over the strings read.

    Returns:
      WordCounts: word (str) -> count (int), in order of first appearance.

    >>> from tf_wordpiece.bert.recipes import TfTextRecipe
    >>> data = tf.data.Dataset.from_tensor_slices(["The cat.", "the CAT sat"])
    >>> dict(count_words(data, TfTextRecipe(lower_case=True).basic_tokenizer()))
    {'the': 2, 'cat': 2, '.': 1, 'sat': 1}
    """
    spec = dataset.element_spec
    if not isinstance(spec, (tf.TensorSpec, tf.RaggedTensorSpec)) or spec.dtype != tf.string:
        raise TypeError(f"dataset: expected elements that are single tf.string tensors, got element_spec {spec}")
    if isinstance(spec, tf.TensorSpec) and spec.shape.rank in (0, 1):
        # Large batches: the graph's cost per batch is high, its cost per string low.
        dataset = (dataset.unbatch() if spec.shape.rank == 1 else dataset).batch(BATCH_SIZE)

    totals: dict[bytes, int] = {}
    batches = dataset.map(
        batch_word_counter(basic_tokenizer), num_parallel_calls=tf.data.AUTOTUNE, deterministic=True
    ).prefetch(2)
    result = WordCounts()
    with progress_bar(desc="counting words", unit=" strings", disable=not progress, leave=False) as bar:
        for words, counts, size, invalid in batches:
            for word, count in zip(words.numpy().tolist(), counts.numpy().tolist()):
                totals[word] = totals.get(word, 0) + count
            bar.update(int(size))
            result.lines += int(size)
            result.skipped_invalid_utf8 += int(invalid)
    for word, count in totals.items():
        result[word.decode("utf-8")] = count
    return result


def batch_word_counter(basic_tokenizer: BasicTokenizer):
    """A graph function: strings [n] (or ragged) -> (words [u], counts [u], n, words skipped as invalid UTF-8).

    `words` are the distinct valid UTF-8 words in order of first appearance.
    """
    cut_at_spaces = words_never_span_spaces(basic_tokenizer)

    def unique_words(strings):
        flat = strings.flat_values if isinstance(strings, tf.RaggedTensor) else tf.reshape(strings, [-1])
        if cut_at_spaces:  # tokenize each distinct space-separated chunk once, weighted by its count
            chunks, _, weights = tf.unique_with_counts(tf.strings.split(flat, " ").flat_values, out_idx=tf.int64)
        else:
            chunks, weights = flat, tf.ones_like(flat, tf.int64)
        words = basic_tokenizer.split(chunks)

        def counted(valid):
            unique, index = tf.unique(tf.boolean_mask(words.text, valid), out_idx=tf.int64)
            counts = tf.math.unsorted_segment_sum(
                tf.boolean_mask(tf.gather(weights, words.row), valid), index, tf.size(unique)
            )
            skipped = tf.reduce_sum(tf.boolean_mask(tf.gather(weights, words.row), ~valid))
            return unique, counts, skipped

        everything = tf.ones_like(words.row, tf.bool)
        unique, counts, skipped = counted(everything)
        # A word of an invalid string is dropped when it holds invalid bytes (tf_text keeps them as written)
        # or U+FFFD (how other basic tokenizers read them). Checked per word only when some word is suspect.
        unique, counts, skipped = tf.cond(
            tf.reduce_any(_has_replacement_character(unique) | ~_is_valid_utf8(unique)),
            lambda: counted(
                tf.gather(_is_valid_utf8(chunks), words.row)
                | (_is_valid_utf8(words.text) & ~_has_replacement_character(words.text))
            ),
            lambda: (unique, counts, skipped),
        )
        return unique, counts, tf.size(flat), skipped

    return unique_words


def _has_replacement_character(strings: tf.Tensor) -> tf.Tensor:
    return tf.strings.regex_full_match(strings, ".*\ufffd.*")


def _is_valid_utf8(strings: tf.Tensor) -> tf.Tensor:
    return tf.equal(tf.strings.unicode_transcode(strings, "UTF-8", "UTF-8", errors="replace"), strings)


def text_line_dataset(paths: Sequence[str | os.PathLike], *, not_utf8: list[str] | None = None) -> tf.data.Dataset:
    """The lines of text files ("-" is standard input) as a dataset of string batches [<= BATCH_SIZE].

    Line ends ("\n", "\r\n") are removed; bytes are passed on as they are
    (`count_words` skips words that are not UTF-8). Every file is opened up
    front, so that a typo fails before any work, with the path in the message.
    Pipes work (files are read once, in order).

    With `not_utf8` (a list), reading stops before the first batch that holds
    a line that is not UTF-8, and `not_utf8` receives the error naming the
    file, line and byte offset (an exception raised inside tf.data would reach
    the caller wrapped in TensorFlow's own error).
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    if not paths:
        raise ValueError("input: no files given")
    for path in paths:
        if os.fspath(path) != STANDARD_INPUT:
            try:
                with open(path, "rb"):
                    pass
            except OSError as e:
                raise ValueError(f"input: cannot read '{shown_path(path)}': {e.strerror}") from None

    def batches():
        batch: list[bytes] = []
        for path in paths:
            stdin = os.fspath(path) == STANDARD_INPUT
            checked, first_line = len(batch), 1  # batch[checked:] are this file's lines from first_line on
            with open(sys.stdin.fileno(), "rb", closefd=False) if stdin else open(path, "rb") as f:
                for line in f:
                    batch.append(line.rstrip(b"\n").removesuffix(b"\r"))
                    if len(batch) == BATCH_SIZE:
                        if not _all_utf8(batch[checked:], path, first_line, not_utf8):
                            return
                        yield batch
                        first_line += len(batch) - checked
                        batch, checked = [], 0
            if not _all_utf8(batch[checked:], path, first_line, not_utf8):
                return
        if batch:
            yield batch

    return tf.data.Dataset.from_generator(batches, output_signature=tf.TensorSpec([None], tf.string))


def _all_utf8(lines: list[bytes], path, first_line: int, errors: list[str] | None) -> bool:
    """Whether every line is UTF-8 (or `errors` is None: not checked); if not, appends the first line's error."""
    if errors is None:
        return True
    joined = b"\n".join(lines)
    if joined.isascii():
        return True
    try:
        joined.decode("utf-8")
        return True
    except UnicodeDecodeError as e:
        line, offset = line_and_offset(joined, e.start)
        errors.append(invalid_utf8_message(path, first_line - 1 + line, offset, joined[e.start]))
        return False


def invalid_utf8_message(path, line: int, offset: int, byte: int) -> str:
    """`messages.not_utf8_message` for an input text file (line from 1, byte offset in the line from 0)."""
    return not_utf8_message("input", path, line=line, offset=offset, byte=byte)


def tfds_text_dataset(spec: str) -> tf.data.Dataset:
    """Scalar strings of `NAME[:SPLIT[:FEATURE]]` (e.g. `ted_hrlr_translate/pt_to_en:train:en`), local TFDS data only.

    SPLIT defaults to `train`; FEATURE may be left out when the dataset has one
    string feature (`tfds_spec` parses the spec).
    """
    name, split, feature = tfds_spec(spec)
    try:
        import tensorflow_datasets as tfds
    except ImportError:
        raise ValueError("tfds: tensorflow-datasets is not installed (pip install tensorflow-datasets)") from None
    try:
        dataset = tfds.load(name, split=split, download=False)
    except Exception as e:  # tfds raises several types for "not prepared" and "no such split"
        raise ValueError(f"tfds: {tfds_load_error(name, split, e)}") from None
    texts = sorted(key for key, spec in dataset.element_spec.items() if getattr(spec, "dtype", None) == tf.string)
    if feature is None:
        if len(texts) != 1:
            raise ValueError(
                f"tfds: {name} has {len(texts)} text features {texts}; name the one to learn from, such as "
                f"{name}:{split}:{(texts or ['text'])[-1]}"
            )
        feature = texts[0]
    if feature not in dataset.element_spec:
        raise ValueError(f"tfds: {name} has no feature {feature!r}; it has {sorted(dataset.element_spec)}")
    return dataset.map(lambda example: example[feature])


def tfds_load_error(name: str, split: str, error: Exception) -> str:
    """Why `tfds.load(name, split=split)` failed, and how a command-line user downloads the dataset.

    Only the first sentence of tfds's message is kept: the rest tells Python
    users to pass download=True, which the command line cannot.
    """
    reason = str(error).strip().split("\n")[0].split(". ")[0]
    return (
        f"cannot load {name} split {split!r} from the TFDS data dir ({reason}); download and prepare it once "
        f"with `tfds build {name}`, or set TFDS_DATA_DIR to the data dir that holds it"
    )
