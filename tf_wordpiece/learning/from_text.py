"""Learning from text: split it into words, count them, learn. TensorFlow counts, the NumPy learner learns.

`count_and_learn` is the one assembly of these steps: `bert_vocab_from_dataset`,
`tf-wordpiece learn` and `tf-wordpiece export` call it, and the Beam pipeline
(`tf_wordpiece.learning.beam`) shares its parts (`word_splitter`, the
parameter checks and `learner.learn_with_stats`) while it counts on its workers.
"""

from __future__ import annotations

import collections.abc
import time
from typing import Callable, Iterable, Mapping, NamedTuple, Sequence

import tensorflow as tf

from tf_wordpiece.bert.basic_tokenizer import BasicTokenizer
from tf_wordpiece.bert.recipes import TfTextRecipe
from tf_wordpiece.learning.learner import check_learn_params, learn_with_stats
from tf_wordpiece.learning.params import checked_param_names
from tf_wordpiece.learning.word_counts import WordCounts, count_words


class LearnedVocab(NamedTuple):
    """What `count_and_learn` returns."""

    vocab: list[str]  # line n of vocab.txt is id n
    counts: WordCounts  # {word: count}, with `lines` read and `skipped_invalid_utf8` words
    stats: dict  # what `learn` fills: words learned from, the threshold chosen, ...
    counting_seconds: float
    learning_seconds: float


def word_splitter(bert_tokenizer_params: Mapping | None = None) -> BasicTokenizer:
    """How the learner splits text into words: the basic tokenizer of `BertTokenizer(compat="tf_text", **params)`.

    An unknown key is a TypeError, an unsupported value a ValueError, both naming it.

    >>> word_splitter({"lower_case": True}).tokenize(["Héllo, World"]).to_list()
    [[b'hello', b',', b'world']]
    """
    tokenizer_params, _ = checked_param_names(bert_tokenizer_params, None)
    return TfTextRecipe(**tokenizer_params).basic_tokenizer()


def count_and_learn(
    dataset: tf.data.Dataset | Iterable[str | bytes],
    *,
    vocab_size: int,
    reserved_tokens: Sequence[str],
    bert_tokenizer_params: Mapping | None = None,
    learn_params: Mapping | None = None,
    strict: bool = False,
    check_counts: Callable[[WordCounts], None] | None = None,
    progress: bool = False,
) -> LearnedVocab:
    """Splits text into words with BERT's basic tokenizer, counts them and learns a WordPiece vocabulary.

    Every argument is checked before any text is read (a TypeError or
    ValueError naming it); then the words are counted (`word_counts.count_words`)
    and `learn(counts, vocab_size, reserved_tokens, **learn_params)` runs.

    Args:
      dataset: a tf.data.Dataset whose elements are tf.string tensors of any
        shape (or ragged), or the lines themselves (an iterable of str or bytes).
      vocab_size: the target (maximum) vocabulary size.
      reserved_tokens: tokens placed first, e.g. ["[PAD]", "[UNK]", "[START]", "[END]"].
      bert_tokenizer_params: `lower_case`, `keep_whitespace`, `normalization_form`,
        `preserve_unused_token` (use the same for the BertTokenizer of this vocabulary).
      learn_params: the other arguments of `learn` (`lower_thresh`, `joiner`, ...).
      strict: as the commands learn: a `vocab_size` below the reserved tokens
        plus the alphabet is a ValueError, and `learn` warns of nothing
        (the command explains the size itself).
      check_counts: called with the word counts before learning; raise to stop
        (e.g. on words skipped as invalid UTF-8).
      progress: progress bars for counting and for the threshold search.

    Returns:
      LearnedVocab: the vocabulary, the word counts, `learn`'s stats and the
      seconds spent counting and learning.

    >>> lines = ["Low lower lowest.", "New newer newest!", "Wide wider widest", "low new wide"] * 5
    >>> learned = count_and_learn(lines, vocab_size=30, reserved_tokens=["[UNK]"],
    ...                           bert_tokenizer_params={"lower_case": True}, learn_params={"lower_thresh": 1})
    >>> learned.vocab[13:18]  # after [UNK] and the alphabet: the learned tokens, most frequent first
    ['##er', '##est', 'low', 'new', 'wide']
    >>> learned.counts.lines, learned.counts["low"], learned.stats["threshold"]
    (20, 10, 7)
    >>> count_and_learn(lines, vocab_size=30, reserved_tokens=["[UNK]"], learn_params={"lowerthresh": 1})
    Traceback (most recent call last):
    TypeError: learn_params: unknown ['lowerthresh']; expected some of [...]
    """
    tokenizer_params, learning = checked_param_names(bert_tokenizer_params, learn_params)
    splitter = TfTextRecipe(**tokenizer_params).basic_tokenizer()
    check_learn_params(vocab_size, reserved_tokens, learning)
    dataset = _as_dataset(dataset)
    start = time.perf_counter()
    counts = count_words(dataset, splitter, progress=progress)
    counted = time.perf_counter()
    if check_counts is not None:
        check_counts(counts)
    vocab, stats = learn_with_stats(
        counts,
        vocab_size=vocab_size,
        reserved_tokens=reserved_tokens,
        learn_params=learning,
        strict=strict,
        progress=progress,
    )
    return LearnedVocab(vocab, counts, stats, counted - start, time.perf_counter() - counted)


def bert_vocab_from_dataset(
    dataset: tf.data.Dataset,
    vocab_size: int,
    reserved_tokens: Sequence[str],
    bert_tokenizer_params: dict | None = None,
    learn_params: dict | None = None,
    *,
    progress: bool = False,
    stats: dict | None = None,
) -> list[str]:
    """Learns a vocabulary from a dataset of text, as `tensorflow_text`'s `bert_vocab_from_dataset` does.

    The text is split into words by the basic tokenizer of
    `BertTokenizer(compat="tf_text", **bert_tokenizer_params)`, the words are
    counted and `learn(counts, vocab_size, reserved_tokens, **learn_params)`
    runs (`count_and_learn`). Use the same `bert_tokenizer_params` for the BertTokenizer.

    Args:
      dataset: elements are tf.string tensors of any shape.
      vocab_size: the target (maximum) vocabulary size.
      reserved_tokens: tokens placed first, e.g. ["[PAD]", "[UNK]", "[START]", "[END]"].
      bert_tokenizer_params: `lower_case`, `keep_whitespace`, `normalization_form`,
        `preserve_unused_token`.
      learn_params: other arguments of `learn`.
      progress: progress bars for counting and for the threshold search.
      stats: if given, filled as `learn` fills it.

    Returns:
      The vocabulary, a list of strings (line n of vocab.txt is id n).

    >>> lines = ["Low lower lowest.", "New newer newest!", "Wide wider widest", "low new wide"] * 5
    >>> vocab = bert_vocab_from_dataset(tf.data.Dataset.from_tensor_slices(lines), 30, ["[UNK]"],
    ...                                 {"lower_case": True}, {"lower_thresh": 1})
    >>> vocab[13:18]  # after [UNK] and the alphabet: the learned tokens, most frequent first
    ['##er', '##est', 'low', 'new', 'wide']
    """
    learned = count_and_learn(
        dataset,
        vocab_size=vocab_size,
        reserved_tokens=reserved_tokens,
        bert_tokenizer_params=bert_tokenizer_params,
        learn_params=learn_params,
        progress=progress,
    )
    if stats is not None:
        stats.update(learned.stats)
    return learned.vocab


def _as_dataset(dataset) -> tf.data.Dataset:
    """A dataset as it is; lines (str or bytes) as a dataset of scalar strings."""
    if isinstance(dataset, tf.data.Dataset):
        return dataset
    if isinstance(dataset, (str, bytes)):
        raise TypeError(
            f"dataset: expected a tf.data.Dataset of strings or an iterable of lines, got one "
            f"{type(dataset).__name__}; put a single text in a list"
        )
    if not isinstance(dataset, collections.abc.Iterable):
        raise TypeError(
            f"dataset: expected a tf.data.Dataset of strings or an iterable of lines (str or bytes), "
            f"got {type(dataset).__name__}"
        )
    lines = list(dataset)
    for index, line in enumerate(lines):
        if not isinstance(line, (str, bytes)):
            raise TypeError(f"dataset: line {index} is {type(line).__name__} {line!r:.60}, expected str or bytes")
    return tf.data.Dataset.from_tensor_slices(tf.constant(lines, tf.string))
