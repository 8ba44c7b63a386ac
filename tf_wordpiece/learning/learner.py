"""The vocabulary learner: BERT's top-down WordPiece algorithm, from word counts.

`learn` returns, token for token and in the same order, what
`tensorflow_text.tools.wordpiece_vocab.wordpiece_tokenizer_learner_lib.learn`
returns for the same arguments. The algorithm (TensorFlow's subword tutorial):

1. Drop reserved words and words longer than `max_token_length`; keep the
   `max_unique_chars` most frequent characters and drop words using others;
   keep the `max_input_tokens` most frequent words.
2. For a count threshold t, run `num_iterations` rounds. Round 0 counts every
   substring of every word; later rounds split each word greedily (longest
   match first) with the previous round's tokens and count only substrings that
   start at a split point. Non-initial substrings carry the `joiner` ("##").
   From the longest substrings down, a substring's count is subtracted from
   all its prefixes, and substrings still counted >= t become tokens.
3. Binary-search t until the vocabulary (reserved tokens, the alphabet, the
   tokens by count) is at most `vocab_size` and within `slack_ratio` of it.

Why this is fast: every occurrence of a substring that does not reach the end
of its word is also an occurrence of its one-character-longer extension, so
after the prefix subtraction a substring's count is exactly the count of the
words in which it runs from a split point to the end of the word. So each
round only needs the suffixes at the split points, and round 0 (every
position is a split point) is the same for every threshold. Substrings are
numbered exactly (a trie built level by level with NumPy, no hashing), and
the greedy splitting of all words runs as array operations: that data
structure is `tf_wordpiece.learning.lattice.SuffixLattice`; this module holds
the checks, the input words and the threshold search around it.

NumPy only: this module does not import TensorFlow. Splitting text into words
and counting them (TensorFlow) is `tf_wordpiece.learning.from_text`.
"""

from __future__ import annotations

import warnings
from typing import Iterable, Mapping, Sequence

import numpy as np

from tf_wordpiece.learning.lattice import SuffixLattice, code_points
from tf_wordpiece.learning.params import LearnParams, checked_param_names
from tf_wordpiece.progress import progress_bar


def learn(
    word_counts: Mapping[str, int] | Iterable[tuple[str, int]],
    vocab_size: int,
    reserved_tokens: Sequence[str],
    upper_thresh: int | None = 10_000_000,
    lower_thresh: int | None = 10,
    num_iterations: int = 4,
    max_input_tokens: int | None = 5_000_000,
    max_token_length: int = 50,
    max_unique_chars: int = 1000,
    slack_ratio: float = 0.05,
    include_joiner_token: bool = True,
    joiner: str = "##",
    *,
    progress: bool = False,
    stats: dict | None = None,
) -> list[str]:
    """Learns a WordPiece vocabulary from word counts, exactly as tensorflow_text does.

    Args:
      word_counts: `{word: count}` or `(word, count)` pairs; counts are ints >= 1.
        Order matters only when `max_input_tokens` cuts between equal counts
        (earlier words win), as in tensorflow_text.
      vocab_size: the target size; the result is at most this (unless the
        reserved tokens and the alphabet alone are more).
      reserved_tokens: tokens placed first, in this order.
      upper_thresh, lower_thresh: bounds of the count-threshold search, >= 1
        (None: the largest / smallest word count).
      num_iterations: rounds of splitting and counting per threshold.
      max_input_tokens: keep this many most frequent words (None or -1: all).
      max_token_length: longer words (in code points) are not learned from.
      max_unique_chars: the alphabet is this many most frequent characters.
      slack_ratio: sizes from `vocab_size * (1 - slack_ratio)` up are accepted.
      include_joiner_token: write non-initial tokens with `joiner`.
      joiner: the suffix indicator, usually "##".
      progress: show a progress bar over the threshold search.
      stats: if given, filled with `words` (distinct words learned from),
        `threshold` (the count threshold chosen), `search_steps`,
        `search_range` (the thresholds searched: the bounds clipped to the
        word counts, as tensorflow_text clips them; the threshold can end one
        below the lower, or between them if the upper is below the lower) and
        `minimum_size` (the reserved tokens and the alphabet).

    Returns:
      The vocabulary, a list of strings: line n of vocab.txt is id n. It can
      be longer than `vocab_size` (if the reserved tokens and the alphabet
      are, or the search range ran out, as in tensorflow_text): that warns.

    >>> counts = {"low": 10, "lower": 4, "lowest": 5, "new": 8, "newer": 4, "newest": 6}
    >>> vocab = learn(counts, 22, ["[UNK]"], lower_thresh=1)
    >>> vocab[9:13]  # after [UNK] and the alphabet: the learned tokens, most frequent first
    ['##est', 'low', '##er', 'new']
    >>> vocab[13:]  # then the alphabet with the joiner
    ['##e', '##l', '##n', '##o', '##r', '##s', '##t', '##w']
    """
    params = LearnParams(
        upper_thresh,
        lower_thresh,
        num_iterations,
        max_input_tokens,
        max_token_length,
        max_unique_chars,
        slack_ratio,
        include_joiner_token,
        joiner,
    )
    _check_params(params, vocab_size, reserved_tokens)
    pairs = _checked_word_counts(word_counts)
    lower, upper = _search_bounds([count for _, count in pairs], upper_thresh, lower_thresh)
    words, counts = _input_words(pairs, reserved_tokens, params)
    stats = {} if stats is None else stats
    stats.update(words=len(words), threshold=None, search_steps=0, search_range=(lower, upper))
    if not any(words):  # no characters left to learn from: tensorflow_text returns the reserved tokens
        return list(dict.fromkeys(reserved_tokens))
    # The search never tries a threshold below this one (it ends one below `lower` at worst).
    lowest_threshold = max(1, min(lower - 1, (lower + upper) // 2))
    lattice = SuffixLattice(words, counts, joiner=joiner if include_joiner_token else "", min_count=lowest_threshold)
    vocab = _search_threshold(
        lattice, lower, upper, vocab_size, list(reserved_tokens), params, progress=progress, stats=stats
    )
    stats["minimum_size"] = len(lattice.vocabulary(stats["threshold"], 0, list(reserved_tokens)))
    if stats["minimum_size"] > vocab_size:
        warnings.warn(too_small_message(stats, vocab_size), stacklevel=2)
    elif len(vocab) > vocab_size:
        warnings.warn(
            f"vocab_size: the threshold search ended at {stats['threshold']} with {len(vocab)} tokens, more "
            f"than vocab_size={vocab_size} (as tensorflow_text's does); widen lower_thresh..upper_thresh "
            "or raise slack_ratio",
            stacklevel=2,
        )
    return vocab


def learn_with_stats(
    word_counts: Mapping[str, int] | Iterable[tuple[str, int]],
    *,
    vocab_size: int,
    reserved_tokens: Sequence[str],
    learn_params: Mapping | None = None,
    strict: bool = False,
    progress: bool = False,
) -> tuple[list[str], dict]:
    """`learn(word_counts, vocab_size, reserved_tokens, **learn_params)`; returns the vocabulary and `learn`'s stats.

    `learn_params` keys are checked first (a TypeError names unknown ones).
    With `strict` (the commands), a `vocab_size` below the reserved tokens plus
    the alphabet is a ValueError instead of a warning, and a result above the
    target (tensorflow_text's too) is returned without a warning, for the
    command to explain (`params.size_notes`).

    >>> vocab, stats = learn_with_stats({"low": 5, "lower": 2}, vocab_size=3, reserved_tokens=["[UNK]"], strict=True)
    Traceback (most recent call last):
    ValueError: vocab_size: 3 is smaller than the reserved tokens plus the alphabet ... raise vocab_size or lower ...
    """
    _, learn_params = checked_param_names(None, learn_params)
    stats: dict = {}
    if not strict:
        return learn(word_counts, vocab_size, reserved_tokens, **learn_params, progress=progress, stats=stats), stats
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        vocab = learn(word_counts, vocab_size, reserved_tokens, **learn_params, progress=progress, stats=stats)
    too_small = too_small_message(stats, vocab_size)
    if too_small:
        raise ValueError(too_small)
    return vocab, stats


def check_learn_params(vocab_size: int, reserved_tokens: Sequence[str], learn_params: Mapping | None = None) -> None:
    """The checks `learn` makes of its arguments, before any counting: a TypeError or ValueError naming the argument.

    >>> check_learn_params(8000, ["[UNK]"], {"lower_thresh": 0})
    Traceback (most recent call last):
    ValueError: lower_thresh: expected an int >= 1 or None, got 0; a threshold below 1 keeps every substring
    """
    _, learn_params = checked_param_names(None, learn_params)
    _check_params(LearnParams(**learn_params), vocab_size, reserved_tokens)


def too_small_message(stats: dict, vocab_size: int) -> str | None:
    """Why `vocab_size` cannot be met (the reserved tokens and the alphabet alone exceed it), or None.

    `stats` is what `learn` filled.
    """
    if stats.get("minimum_size", 0) <= vocab_size:
        return None
    return (
        f"vocab_size: {vocab_size} is smaller than the reserved tokens plus the alphabet (with its joined "
        f"copies), which alone are {stats['minimum_size']} tokens; raise vocab_size or lower max_unique_chars"
    )


def _check_params(params: LearnParams, vocab_size, reserved_tokens) -> None:
    if not isinstance(vocab_size, (int, np.integer)) or vocab_size < 1:
        raise ValueError(f"vocab_size: expected an int >= 1, got {vocab_size!r}")
    if isinstance(reserved_tokens, (str, bytes)) or not all(isinstance(t, str) for t in reserved_tokens):
        raise TypeError(f"reserved_tokens: expected a list of str, got {reserved_tokens!r}")
    for name in ("upper_thresh", "lower_thresh"):
        value = getattr(params, name)
        if value is not None and (not isinstance(value, (int, np.integer)) or value < 1):
            raise ValueError(
                f"{name}: expected an int >= 1 or None, got {value!r}; a threshold below 1 keeps every substring"
            )
    for name in ("num_iterations", "max_token_length", "max_unique_chars"):
        value = getattr(params, name)
        if not isinstance(value, (int, np.integer)) or value < (0 if name == "num_iterations" else 1):
            raise ValueError(f"{name}: expected a positive int, got {value!r}")
    if params.max_input_tokens is not None and params.max_input_tokens != -1 and params.max_input_tokens < 1:
        raise ValueError(
            f"max_input_tokens: expected an int >= 1, or None / -1 for all, got {params.max_input_tokens!r}"
        )
    if not isinstance(params.joiner, str):
        raise TypeError(f"joiner: expected a str, got {params.joiner!r}")


def _checked_word_counts(word_counts) -> list[tuple[str, int]]:
    pairs = list(word_counts.items() if isinstance(word_counts, Mapping) else word_counts)
    if not pairs:
        raise ValueError("word_counts: empty; there is nothing to learn from (is the corpus empty?)")
    for pair in pairs:
        if len(pair) != 2 or not isinstance(pair[0], str) or not isinstance(pair[1], (int, np.integer)):
            raise TypeError(f"word_counts: expected (str, int) pairs, got {pair!r}")
        if pair[1] < 1:
            raise ValueError(f"word_counts: counts must be >= 1, got {pair!r}")
    return pairs


def _search_bounds(counts: list[int], upper_thresh, lower_thresh) -> tuple[int, int]:
    """The threshold search range, clipped to the word counts (as tensorflow_text does)."""
    upper = max(counts) if upper_thresh is None else min(max(counts), upper_thresh)
    lower = min(counts) if lower_thresh is None else max(min(counts), lower_thresh)
    return int(lower), int(upper)


def _input_words(pairs, reserved_tokens, params: LearnParams) -> tuple[list[str], np.ndarray]:
    """The words learned from: short enough, not reserved, in the alphabet, the most frequent."""
    reserved = set(reserved_tokens)
    kept = [(w, c) for w, c in pairs if len(w) <= params.max_token_length and w not in reserved]
    words = [w for w, _ in kept]
    counts = np.array([c for _, c in kept], dtype=np.int64)
    chars = code_points(words)
    owner = np.repeat(np.arange(len(words)), [len(w) for w in words])
    alphabet, char_index = np.unique(chars, return_inverse=True)
    char_counts = np.bincount(char_index, weights=counts[owner], minlength=len(alphabet))
    # Most frequent first, then by code point (np.unique sorted them, a stable sort keeps that).
    allowed = np.zeros(len(alphabet), bool)
    allowed[np.argsort(-char_counts, kind="stable")[: params.max_unique_chars]] = True
    bad_chars = np.bincount(owner, weights=~allowed[char_index], minlength=len(words))
    order = np.argsort(-counts, kind="stable")
    order = order[bad_chars[order] == 0]
    if params.max_input_tokens not in (None, -1):
        order = order[: params.max_input_tokens]
    return [words[i] for i in order], counts[order]


def _search_threshold(
    lattice: SuffixLattice,
    lower: int,
    upper: int,
    vocab_size: int,
    reserved: list[str],
    params: LearnParams,
    *,
    progress: bool,
    stats: dict,
) -> list[str]:
    """tensorflow_text's binary search on the count threshold, as a loop."""
    slack = max(params.slack_ratio * vocab_size, 0)
    bar = progress_bar(desc="threshold search", unit=" steps", disable=not progress, leave=False)
    with bar:
        while True:
            thresh = (upper + lower) // 2
            vocab = lattice.vocabulary(thresh, params.num_iterations, reserved)
            stats.update(threshold=thresh, search_steps=stats["search_steps"] + 1)
            bar.update()
            bar.set_postfix(thresh=thresh, size=len(vocab))
            if (len(vocab) <= vocab_size and vocab_size - len(vocab) <= slack) or lower >= upper or thresh <= 1:
                return vocab
            if len(vocab) > vocab_size:
                lower = thresh + 1
            else:
                upper = thresh - 1
