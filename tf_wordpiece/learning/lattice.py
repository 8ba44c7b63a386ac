"""SuffixLattice: every substring of the learner's words, numbered exactly, and each round's counts.

The data structure behind `tf_wordpiece.learning.learner.learn`: substrings
become trie nodes (numbered level by level with NumPy, no hashing), each word
position's suffix is the counted unit, and a round's counts for a set of tokens
come from splitting every word greedily with them, as array operations.

NumPy only: this module does not import TensorFlow.

>>> lattice = SuffixLattice(["low", "lower", "newer"], np.array([10, 4, 4]), joiner="##")
>>> lattice.vocabulary(4, 2, ["[UNK]"])[7:]  # after [UNK] and the alphabet: tokens by count, then joined letters
['low', 'lower', 'newer', '##e', '##l', '##n', '##o', '##r', '##w']
"""

from __future__ import annotations

import numpy as np


def code_points(words: list[str]) -> np.ndarray:
    """int64 [total characters]: the code points of all words, concatenated.

    >>> code_points(["ab", "", "\u00e9"]).tolist()
    [97, 98, 233]
    """
    return np.frombuffer("".join(words).encode("utf-32-le", "surrogatepass"), dtype=np.uint32).astype(np.int64)


class SuffixLattice:
    """Every substring of the input words, numbered exactly, and the counts of each round.

    Substrings with the same text share a trie node (numbered level by level
    with NumPy, no hashing). A token's key is `2 * node + 1` if it carries the
    joiner, else `2 * node`. tensorflow_text counts substrings per (text,
    length), which is per key except for words that begin with the joiner
    ("##x" written in a word and the joined "x" have one text but two counts);
    `entry` below is that counted unit.

    Args:
      words: the distinct words learned from (`learner` has filtered them).
      counts: int [words], each word's count (>= 1).
      joiner: the prefix of non-initial tokens; "" for none.
      min_count: the lowest threshold `vocabulary` will be asked for; entries
        counted below it in round 0 are never candidates. Defaults to 1.
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
        alphabet, char_index = np.unique(code_points(words), return_inverse=True)
        self.alphabet = [chr(c) for c in alphabet]
        self.char_keys = np.unique(
            np.concatenate([np.arange(len(alphabet)) * 2, np.arange(len(alphabet)) * 2 + bool(joiner)])
        )
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
            unique, inverse = np.unique(
                parents * len(self.alphabet) + char_index[positions + m - 1], return_inverse=True
            )
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
        """The substrings longer than one character that can be tokens (a frequent suffix's text).

        Ordered by position, then length.
        """
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
        texts = [
            self.joiner * j + self.alphabet[n] if n < len(self.alphabet) else ""
            for n, j in zip(node.tolist(), joined.tolist())
        ]
        longer = np.flatnonzero(node >= len(self.alphabet))
        where = self._key_first[np.searchsorted(self._key_order, keys[longer])]
        for i, position, length in zip(
            longer.tolist(), self.candidate_position[where].tolist(), self.candidate_length[where].tolist()
        ):
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
