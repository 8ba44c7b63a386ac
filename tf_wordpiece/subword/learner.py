"""The subword learner: tensor2tensor's (or tfds's) vocabulary from a corpus, in plain Python.

Tokens are counted over the corpus (`corpus_token_counts`); then, for one
min_count, every substring that starts where a current subtoken starts is
counted, the longest candidates with a count >= min_count are taken first,
each taking its count from its prefixes, and this repeats `num_iterations`
times (`build_from_token_counts`). `build_to_target_size` searches min_count
for the vocabulary whose size is closest to a target. The two modes' rules
(how tokens are cut and escaped, where the vocabulary starts, the bounds of the
search) are the table in the package docstring (`subword/__init__.py`); each
mode's are one object (`rules.py`), chosen once from `compat`, so nothing here
asks which mode it runs.

>>> counts = corpus_token_counts(["the cat sat", "the hat"])
>>> sorted(counts.items())
[('cat', 1), ('hat', 1), ('sat', 1), ('the', 2)]
>>> vocab = build_from_token_counts(counts, min_count=2)
>>> vocab[:4]
['<pad>_', '<EOS>_', 'at_', 'the_']
>>> len(build_to_target_size(counts, 31, verbose=False))  # the closest size the search on min_count found
30
"""

from __future__ import annotations

import collections
import sys
import time
from typing import Iterable, Mapping, Sequence

import numpy as np

from tf_wordpiece.messages import counted
from tf_wordpiece.progress import progress_bar
from tf_wordpiece.subword.rules import LearningRules, rules_for

# --- token counts --------------------------------------------------------------------------------


def corpus_token_counts(
    lines: Iterable[str],
    *,
    compat: str = "t2t",
    reserved_tokens: Sequence[str] = (),
    max_corpus_chars: int | None = None,
) -> collections.Counter:
    """Token counts over lines of text (t2t: raw tokens; tfds: prepared tokens).

    `max_corpus_chars`: only the first this many characters of the text are
    counted (tfds's rule: the line that reaches the limit is cut there, and
    tokenized cut; None or 0 for no limit).

    >>> sorted(corpus_token_counts(["hello world", "more"], compat="tfds", max_corpus_chars=8).items())
    [('hello_', 1), ('wo', 1)]
    """
    rules = rules_for(compat)
    if max_corpus_chars is not None and (
        isinstance(max_corpus_chars, bool) or not isinstance(max_corpus_chars, int) or max_corpus_chars < 0
    ):
        raise ValueError(f"max_corpus_chars: expected a non-negative int or None, got {max_corpus_chars!r}")
    counts: collections.Counter = collections.Counter()
    used = 0
    for line in lines:
        if max_corpus_chars:
            if used >= max_corpus_chars:
                break  # tfds reads on, but every later line is cut to nothing
            line = line[: max_corpus_chars - used]
            used += len(line)
        counts.update(rules.tokens(line, reserved_tokens))
    return counts


# --- learning --------------------------------------------------------------------------------------


def _boundaries(token: str, vocab: set[str], prefixes: set[str]) -> list[int]:
    """Where the greedy longest-match pieces of `token` start (the tests' `subword_reference.segment`);
    `prefixes` holds every prefix of every vocabulary string, so the scan from each start stops as soon as
    no string can match.

    >>> _boundaries("abcab", {"ab", "abc", "b"}, {"a", "ab", "abc", "b"})
    [0, 3]
    """
    starts = []
    start = 0
    size = len(token)
    while start < size:
        starts.append(start)
        best = start + 1  # no match: one character
        end = start + 1
        while end <= size and token[start:end] in prefixes:
            if token[start:end] in vocab:
                best = end
            end += 1
        start = best
    return starts


class _Learner:
    """One corpus, learned at several min_counts: what does not depend on min_count is done once."""

    def __init__(
        self,
        token_counts: Mapping[str, int],
        *,
        rules: LearningRules,
        reserved_tokens: Sequence[str],
        max_subtoken_length: int | None,
        num_iterations: int,
    ):
        self.rules = rules
        self.iterations = num_iterations
        reserved = list(reserved_tokens)
        self.alphabet = rules.alphabet(list(token_counts), reserved)
        self.tokens = [(rules.prepared(t, self.alphabet), c) for t, c in token_counts.items()]
        self.prefix = [rules.prepared(t, self.alphabet) for t in reserved]
        self.longest = rules.counted_length(max_subtoken_length)
        self._first_counts = self._count(rules.first_vocab(self.alphabet, reserved))

    def _count(self, vocab: set[str]) -> dict[str, int]:
        """Counts of every substring that starts where a current subtoken starts.

        Same counts as adding each token's count to every substring from each of
        its subtoken boundaries, done faster: the (truncated) suffixes from the
        boundaries are counted first, many tokens sharing them, then each
        distinct suffix adds its count to its prefixes.
        """
        vocab = set(vocab) | self.rules.kept_whole
        prefixes = {s[:end] for s in vocab for end in range(1, len(s) + 1)}
        longest = self.longest
        suffixes: dict[str, int] = collections.defaultdict(int)
        for token, count in self.tokens:
            for start in _boundaries(token, vocab, prefixes):
                suffixes[token[start:] if longest is None else token[start : start + longest]] += count
        return prefix_counts(suffixes)

    def _select(self, counts: dict[str, int], min_count: int) -> list[str]:
        """Candidates with count >= min_count, longest first, each taking its count from its prefixes."""
        by_length = collections.defaultdict(list)
        for s, c in counts.items():
            if c >= min_count and not self.rules.covered(s, self.alphabet):
                by_length[len(s)].append(s)
        chosen = []
        for length in sorted(by_length, reverse=True):
            for s in by_length[length]:
                count = counts[s]
                if count >= min_count:
                    chosen.append((count, s))
                    for end in range(1, length):
                        counts[s[:end]] -= count
        chosen += [(counts.get(a, 0), a) for a in self.alphabet]  # t2t: the alphabet, always
        chosen.sort(reverse=True)
        return self.prefix + [s for _, s in chosen]

    def build(self, min_count: int) -> list[str]:
        min_count = self.rules.min_count(min_count)
        vocab: list[str] = []
        for i in range(self.iterations):
            counts = collections.defaultdict(int, self._first_counts) if i == 0 else self._count(set(vocab))
            vocab = self._select(counts, min_count)
        return vocab


_VECTOR_WIDTH = 64  # prefixes up to this many characters are counted with NumPy, longer ones in Python


def prefix_counts(weights: Mapping[str, int]) -> dict[str, int]:
    """{p: the sum of weights[s] over the strings s that start with p}, for every non-empty prefix p.

    Per prefix length, the prefixes are sorted and summed by NumPy (exact, no
    hashing); only prefixes longer than 64 characters, or strings with U+0000
    (NumPy drops trailing NULs), take the plain loop.

    >>> sorted(prefix_counts({"ab": 2, "ac": 1, "b": 5}).items())
    [('a', 3), ('ab', 2), ('ac', 1), ('b', 5)]
    """
    counts: dict[str, int] = collections.defaultdict(int)
    keys = [k for k in weights if k]
    if any("\x00" in k for k in keys):
        for key in keys:
            for end in range(1, len(key) + 1):
                counts[key[:end]] += weights[key]
        return counts
    if not keys:
        return counts
    lengths = np.fromiter(map(len, keys), np.int64, len(keys))
    values = np.fromiter((weights[k] for k in keys), np.float64, len(keys))
    width = int(min(lengths.max(), _VECTOR_WIDTH))
    table = np.array([k[:width] for k in keys], dtype=f"<U{width}").view(np.uint32).reshape(len(keys), width)
    for length in range(1, width + 1):
        rows = lengths >= length
        prefixes = np.ascontiguousarray(table[rows, :length]).view(f"<U{length}").ravel()
        unique, inverse = np.unique(prefixes, return_inverse=True)
        sums = np.rint(np.bincount(inverse.ravel(), weights=values[rows], minlength=len(unique))).astype(np.int64)
        counts.update(zip(unique.tolist(), sums.tolist()))
    for key in keys:
        for end in range(width + 1, len(key) + 1):
            counts[key[:end]] += weights[key]
    return counts


def _reserved(rules: LearningRules, reserved_tokens: Sequence[str] | None) -> list[str]:
    """The reserved tokens asked for (None: the mode's default), checked by the mode's rules."""
    return rules.check_reserved(rules.default_reserved if reserved_tokens is None else reserved_tokens)


def build_from_token_counts(
    token_counts: Mapping[str, int],
    min_count: int,
    *,
    compat: str = "t2t",
    num_iterations: int = 4,
    max_subtoken_length: int | None = None,
    reserved_tokens: Sequence[str] | None = None,
) -> list[str]:
    """One vocabulary for one min_count (see the module docstring for the algorithm).

    Returns the subtoken list (t2t: id n is entry n; tfds: id n + 1, bytes after).
    """
    rules = rules_for(compat)
    reserved = _reserved(rules, reserved_tokens)
    _check_counts(token_counts)
    return _Learner(
        token_counts,
        rules=rules,
        reserved_tokens=reserved,
        max_subtoken_length=max_subtoken_length,
        num_iterations=num_iterations,
    ).build(min_count)


def build_to_target_size(
    token_counts: Mapping[str, int],
    target_size: int,
    *,
    compat: str = "t2t",
    min_val: int | None = None,
    max_val: int | None = None,
    num_iterations: int = 4,
    max_subtoken_length: int | None = None,
    reserved_tokens: Sequence[str] | None = None,
    verbose: bool = True,
) -> list[str]:
    """Binary search on min_count for the vocabulary whose size is closest to `target_size`.

    Sizes within 1% of the target end the search. Bounds default to t2t's 1 and
    1000, or tfds's least and greatest token count. `target_size` counts every
    id (t2t: the subtokens; tfds: padding + subwords + 256 bytes).
    """
    rules = rules_for(compat)
    reserved = _reserved(rules, reserved_tokens)
    _check_counts(token_counts)
    if max_subtoken_length is None:
        max_subtoken_length = rules.default_max_subtoken_length
    if max_subtoken_length is not None and (not isinstance(max_subtoken_length, int) or max_subtoken_length < 1):
        raise ValueError(f"max_subtoken_length: expected a positive int or None, got {max_subtoken_length!r}")
    default_low, default_high = rules.min_count_bounds(token_counts)
    low = default_low if min_val is None else min_val
    high = default_high if max_val is None else max_val
    if low > high:
        raise ValueError(f"min_val: {low} is greater than max_val {high}; pass min_val <= max_val")
    start = time.perf_counter()
    learner = _Learner(
        token_counts,
        rules=rules,
        reserved_tokens=reserved,
        max_subtoken_length=max_subtoken_length,
        num_iterations=num_iterations,
    )
    _check_target_size(target_size, rules)
    with progress_bar(desc=f"subwords ({rules.name})", unit=" builds", disable=not verbose, file=sys.stderr) as bar:

        def build(min_count: int) -> list[str]:
            vocab = learner.build(min_count)
            bar.update(1)
            bar.set_postfix(min_count=min_count, size=rules.size(vocab))
            return vocab

        vocab = _bisect(build, rules.size, target_size, low, high, prefer_later=rules.prefer_later)
    if verbose:
        print(
            f"learned {counted(rules.size(vocab), 'id')} (target {target_size}) from "
            f"{counted(len(token_counts), 'distinct token')} "
            f"in {time.perf_counter() - start:.1f} s",
            file=sys.stderr,
        )
    return vocab


# tfds's smallest target: padding, one subword and the byte ids (its _validate_build_arguments).
TFDS_MIN_TARGET_SIZE = rules_for("tfds").smallest_target


def _check_target_size(target_size, rules: LearningRules) -> None:
    """Like the peers, a target below what the vocabulary must hold (the alphabet, reserved tokens) still
    builds the closest vocabulary; tfds only refuses targets below its fixed minimum."""
    if isinstance(target_size, bool) or not isinstance(target_size, int) or target_size < rules.smallest_target:
        raise ValueError(f"target_size: expected {rules.target_size_rule}, got {target_size!r}")


def _bisect(build, size, target: int, low: int, high: int, *, prefer_later: bool) -> list[str]:
    """t2t/tfds's recursive bisection, with each one's tie-break."""
    middle = (low + high) // 2
    vocab = build(middle)
    off = abs(size(vocab) - target)
    if off * 100 < target or low >= high or middle < 2:
        return vocab
    if size(vocab) > target:
        other = _bisect(build, size, target, middle + 1, high, prefer_later=prefer_later)
    else:
        other = _bisect(build, size, target, low, middle - 1, prefer_later=prefer_later)
    other_off = abs(size(other) - target)
    if prefer_later:
        return vocab if off < other_off else other
    return other if other_off < off else vocab


def _check_counts(token_counts: Mapping[str, int]) -> None:
    if not token_counts:
        raise ValueError("token_counts: empty; learn from a corpus with at least one non-empty line")
