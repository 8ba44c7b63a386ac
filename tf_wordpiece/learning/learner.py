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
the greedy splitting of all words runs as array operations.

NumPy only: this module does not import TensorFlow. Splitting text into words
and counting them (TensorFlow) is `tf_wordpiece.learning.from_text`.
"""

from __future__ import annotations

import warnings
from typing import Iterable, Mapping, Sequence

import numpy as np

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
    params = LearnParams(upper_thresh, lower_thresh, num_iterations, max_input_tokens, max_token_length,
                         max_unique_chars, slack_ratio, include_joiner_token, joiner)
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
    vocab = _search_threshold(lattice, lower, upper, vocab_size, list(reserved_tokens), params, progress=progress, stats=stats)
    stats["minimum_size"] = len(lattice.vocabulary(stats["threshold"], 0, list(reserved_tokens)))
    if stats["minimum_size"] > vocab_size:
        warnings.warn(too_small_message(stats, vocab_size), stacklevel=2)
    elif len(vocab) > vocab_size:
        warnings.warn(f"vocab_size: the threshold search ended at {stats['threshold']} with {len(vocab)} tokens, more "
                      f"than vocab_size={vocab_size} (as tensorflow_text's does); widen lower_thresh..upper_thresh "
                      "or raise slack_ratio", stacklevel=2)
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
    ValueError: vocab_size: 3 is smaller than the reserved tokens plus the alphabet (with its joined copies), which alone are 11 tokens; raise vocab_size or lower max_unique_chars
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
    return (f"vocab_size: {vocab_size} is smaller than the reserved tokens plus the alphabet (with its joined "
            f"copies), which alone are {stats['minimum_size']} tokens; raise vocab_size or lower max_unique_chars")


def _check_params(params: LearnParams, vocab_size, reserved_tokens) -> None:
    if not isinstance(vocab_size, (int, np.integer)) or vocab_size < 1:
        raise ValueError(f"vocab_size: expected an int >= 1, got {vocab_size!r}")
    if isinstance(reserved_tokens, (str, bytes)) or not all(isinstance(t, str) for t in reserved_tokens):
        raise TypeError(f"reserved_tokens: expected a list of str, got {reserved_tokens!r}")
    for name in ("upper_thresh", "lower_thresh"):
        value = getattr(params, name)
        if value is not None and (not isinstance(value, (int, np.integer)) or value < 1):
            raise ValueError(f"{name}: expected an int >= 1 or None, got {value!r}; a threshold below 1 keeps every substring")
    for name in ("num_iterations", "max_token_length", "max_unique_chars"):
        value = getattr(params, name)
        if not isinstance(value, (int, np.integer)) or value < (0 if name == "num_iterations" else 1):
            raise ValueError(f"{name}: expected a positive int, got {value!r}")
    if params.max_input_tokens is not None and params.max_input_tokens != -1 and params.max_input_tokens < 1:
        raise ValueError(f"max_input_tokens: expected an int >= 1, or None / -1 for all, got {params.max_input_tokens!r}")
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
    chars = _code_points(words)
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


def _code_points(words: list[str]) -> np.ndarray:
    return np.frombuffer("".join(words).encode("utf-32-le", "surrogatepass"), dtype=np.uint32).astype(np.int64)


def _search_threshold(lattice: "SuffixLattice", lower: int, upper: int, vocab_size: int,
                      reserved: list[str], params: LearnParams, *, progress: bool, stats: dict) -> list[str]:
    """tensorflow_text's binary search on the count threshold, as a loop."""
    slack = max(params.slack_ratio * vocab_size, 0)
    bar = progress_bar(desc="threshold search", unit="step", disable=not progress, leave=False)
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


class SuffixLattice:
    """Every substring of the input words, numbered exactly, and the counts of each round.

    Substrings with the same text share a trie node (numbered level by level
    with NumPy, no hashing). A token's key is `2 * node + 1` if it carries the
    joiner, else `2 * node`. tensorflow_text counts substrings per (text,
    length), which is per key except for words that begin with the joiner
    ("##x" written in a word and the joined "x" have one text but two counts);
    `entry` below is that counted unit.
    """

    def __init__(self, words: list[str], counts: np.ndarray, *, joiner: str, min_count: int = 1):
        self.joiner = joiner
        self.min_count = min_count
        self.words = words
        self.word_counts = counts.astype(np.float64)  # bincount weights; exact below 2**53
        self.word_length = np.array([len(w) for w in words], dtype=np.int64)
        self.word_start = np.concatenate([[0], np.cumsum(self.word_length)])
        self.word_of = np.repeat(np.arange(len(words)), self.word_length)
        self.remaining = self.word_start[1:][self.word_of] - np.arange(len(self.word_of))
        self.initial = self.remaining == self.word_length[self.word_of]
        alphabet, char_index = np.unique(_code_points(words), return_inverse=True)
        self.alphabet = [chr(c) for c in alphabet]
        self.char_keys = np.unique(np.concatenate([np.arange(len(alphabet)) * 2, np.arange(len(alphabet)) * 2 + bool(joiner)]))
        positions, lengths, nodes = self._substrings(char_index)
        raw_keys = nodes * 2 + (~self.initial[positions] if joiner else 0)
        keys = self._merge_texts_starting_with_joiner(positions, lengths, nodes, raw_keys)
        self._number_suffix_entries(positions, lengths, raw_keys, keys)
        self.round0_counts = self._entry_counts(np.ones(len(self.word_of), bool))
        # Later rounds count a subset of round 0's occurrences, so an entry
        # below min_count in round 0 never becomes a token.
        self._number_candidates(positions, lengths, keys, self.entry_key[self.round0_counts >= min_count])

    def _substrings(self, char_index: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(start position, length, trie node) of every substring of every word."""
        levels = [(np.arange(len(char_index)), char_index.astype(np.int64))]
        next_node = len(self.alphabet)
        while True:
            positions, nodes = levels[-1]
            m = len(levels) + 1
            longer = self.remaining[positions] >= m
            if not longer.any():
                break
            positions, parents = positions[longer], nodes[longer]
            unique, inverse = np.unique(parents * len(self.alphabet) + char_index[positions + m - 1], return_inverse=True)
            levels.append((positions, next_node + inverse.reshape(-1)))
            next_node += len(unique)
        lengths = [np.full(len(p), m + 1) for m, (p, _) in enumerate(levels)]
        return (np.concatenate([p for p, _ in levels]), np.concatenate(lengths), np.concatenate([n for _, n in levels]))

    def _merge_texts_starting_with_joiner(self, positions, lengths, nodes, keys) -> np.ndarray:
        """An initial substring "##x" has the text of the joined token of "x": give it that key."""
        size = len(self.joiner)
        starts = self.word_start[:-1][[bool(size) and w.startswith(self.joiner) for w in self.words]]
        affected = np.flatnonzero(np.isin(positions, starts) & (lengths > size))
        if not affected.size:
            return keys
        shifted = np.isin(positions, starts + size)
        node_at = {(int(p), int(m)): int(n) for p, m, n in zip(positions[shifted], lengths[shifted], nodes[shifted])}
        keys = keys.copy()
        for i in affected:
            keys[i] = node_at[(int(positions[i]) + size, int(lengths[i]) - size)] * 2 + 1
        return keys

    def _number_suffix_entries(self, positions, lengths, raw_keys, keys) -> None:
        """Each position's suffix (the word's rest from there) and the entry it is counted in."""
        suffix = self.remaining[positions] == lengths
        at = positions[suffix]
        suffix_raw_key = np.empty(len(self.word_of), np.int64)
        suffix_raw_key[at] = raw_keys[suffix]
        _, first, self.entry_of_position = np.unique(suffix_raw_key, return_index=True, return_inverse=True)
        suffix_key = np.empty(len(self.word_of), np.int64)
        suffix_key[at] = keys[suffix]
        self.entry_key = suffix_key[first]
        self.entry_length = self.remaining[first]

    def _number_candidates(self, positions, lengths, keys, token_keys) -> None:
        """The substrings longer than one character that can be tokens (a frequent suffix's text), by position then length."""
        can_be_token = (lengths > 1) & np.isin(keys, token_keys)
        order = np.lexsort((lengths[can_be_token], positions[can_be_token]))
        self.candidate_position = positions[can_be_token][order]
        self.candidate_length = lengths[can_be_token][order]
        self.candidate_key = keys[can_be_token][order]
        self.num_keys = int(max(keys.max(), self.char_keys.max())) + 1
        self._key_order, self._key_first = np.unique(self.candidate_key, return_index=True)

    def _entry_counts(self, counted: np.ndarray) -> np.ndarray:
        """Each entry's count after the prefix subtraction: the counts of the words it ends, from counted positions."""
        weights = self.word_counts[self.word_of[counted]]
        return np.bincount(self.entry_of_position[counted], weights=weights, minlength=len(self.entry_key))

    def _split_points(self, token_keys: np.ndarray) -> np.ndarray:
        """Marks the positions where greedy longest-match splitting with these tokens starts a piece.

        The alphabet is always among the tokens, so every word splits (at
        worst into characters) and a piece is never shorter than 1.
        """
        in_vocab = np.zeros(self.num_keys, bool)
        in_vocab[token_keys] = True
        ok = in_vocab[self.candidate_key]
        positions, lengths = self.candidate_position[ok], self.candidate_length[ok]
        longest = _run_starts(positions[::-1])[::-1]  # the last candidate of a position: they are sorted by length
        step = np.ones(len(self.word_of), np.int64)
        step[positions[longest]] = lengths[longest]
        counted = np.zeros(len(self.word_of), bool)
        nonempty = self.word_length > 0
        at, end = self.word_start[:-1][nonempty], self.word_start[1:][nonempty]
        while at.size:
            counted[at] = True
            at = at + step[at]
            alive = at < end
            at, end = at[alive], end[alive]
        return counted

    def _tokens(self, counts: np.ndarray, thresh: int) -> tuple[np.ndarray, np.ndarray]:
        """(keys, counts) of the entries counted >= thresh, plus the alphabet with count 1 if missing.

        Where two entries share a text, the shorter one's count wins, as the
        peer's shortest-last overwrite gives.
        """
        passing = np.flatnonzero(counts >= thresh)
        order = passing[np.lexsort((self.entry_length[passing], self.entry_key[passing]))]
        keys = self.entry_key[order]
        first = _run_starts(keys)
        keys, token_counts = keys[first], counts[order][first]
        missing = np.setdiff1d(self.char_keys, keys)
        return np.concatenate([keys, missing]), np.concatenate([token_counts, np.ones(len(missing))])

    def vocabulary(self, thresh: int, num_iterations: int, reserved: list[str]) -> list[str]:
        """The vocabulary for one count threshold (tensorflow_text's learn_with_thresh)."""
        if thresh < self.min_count:
            raise ValueError(f"thresh: {thresh} is below the min_count={self.min_count} this lattice was built for")
        keys, counts = self.char_keys, np.ones(len(self.char_keys))  # without rounds: the alphabet
        for round_ in range(num_iterations):
            entry_counts = self.round0_counts if round_ == 0 else self._entry_counts(self._split_points(keys))
            keys, counts = self._tokens(entry_counts, thresh)
        by_count = sorted(zip((-counts).tolist(), self._texts(keys)))
        ordered = list(reserved) + sorted(self.alphabet) + [text for _, text in by_count]
        return list(dict.fromkeys(ordered))

    def _texts(self, keys: np.ndarray) -> list[str]:
        """The token text of each key: a character, or a substring of a word where the key occurs."""
        node, joined = np.divmod(keys, 2)
        texts = [self.joiner * j + self.alphabet[n] if n < len(self.alphabet) else "" for n, j in zip(node.tolist(), joined.tolist())]
        longer = np.flatnonzero(node >= len(self.alphabet))
        where = self._key_first[np.searchsorted(self._key_order, keys[longer])]
        for i, position, length in zip(longer.tolist(), self.candidate_position[where].tolist(), self.candidate_length[where].tolist()):
            word = self.word_of[position]
            offset = position - self.word_start[word]
            # The occurrence's own position decides the prefix: an initial "##x" has its joiner in the text.
            prefix = self.joiner if self.joiner and not self.initial[position] else ""
            texts[i] = prefix + self.words[word][offset : offset + length]
        return texts


def _run_starts(values: np.ndarray) -> np.ndarray:
    """Marks the first of each run of equal values."""
    starts = np.ones(values.size, bool)
    starts[1:] = values[1:] != values[:-1]
    return starts

