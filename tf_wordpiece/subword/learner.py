"""Learning tensor2tensor's invertible subword vocabulary (`SubwordTextEncoder`), in plain Python.

The vocabulary is a list of subtoken strings; id n is line n. Text is split
into tokens (runs of alphanumeric and of other characters), each token is
escaped and ends with `_`, and escaped tokens are cut into the longest
subtokens, left to right. The graph encoder is `subword_text_encoder.py`;
this module learns vocabularies and holds the pure-Python twin of the encoder
that the tests compare it with.

Two compat modes, because the two published copies of the algorithm differ:

| | `compat="t2t"` (default): tensor2tensor | `compat="tfds"`: `tfds.deprecated.text` |
|---|---|---|
| tokens | runs of Unicode category L*/N* and of the rest; one space between two alphanumeric tokens is implied | runs of `re` `\\w` (which includes `_`) and `\\W`; a token followed by exactly `" "` gets `_`, the space is dropped |
| every token ends in `_` | yes | only before a single space |
| `_`, `\\` | `\\u`, `\\\\` | `_` becomes `\\&undsc` (its byte id when not a subword); `\\` kept |
| characters outside the alphabet | `\\<code point>;` built from alphabet characters, so every id is a subtoken | UTF-8 byte ids after the subwords (1 + subwords + 256 ids) |
| vocabulary starts from | every character of the corpus plus `\\_u;0123456789` | the reserved tokens only; single-byte characters are never learned |
| reserved tokens | `<pad>` (id 0), `<EOS>` (id 1), escaped (`<pad>_`) | none by default; id 0 is padding, subword ids start at 1 |
| `max_subtoken_length=m` | substrings up to m - 1 characters are counted (its off-by-one, kept); None: no limit | up to m characters; default 20 |
| binary search on min_count | between `min_val` (1) and `max_val` (1000); ties keep the earlier try | between the least and the most frequent token count; ties keep the later try |

>>> counts = corpus_token_counts(["the cat sat", "the hat"])
>>> sorted(counts.items())
[('cat', 1), ('hat', 1), ('sat', 1), ('the', 2)]
>>> vocab = build_from_token_counts(counts, min_count=2)
>>> vocab[:4]
['<pad>_', '<EOS>_', 'at_', 'the_']
>>> encode_text("the rat", vocab)
[3, ..., 2]
>>> decode_ids(encode_text("the rat", vocab), vocab)
'the rat'
"""

from __future__ import annotations

import collections
import functools
import re
import sys
import time
import unicodedata
from typing import Iterable, Mapping, Sequence

import numpy as np

from tf_wordpiece.progress import progress_bar

PAD = "<pad>"
EOS = "<EOS>"
RESERVED_TOKENS = (PAD, EOS)
ESCAPE_CHARS = frozenset("\\_u;0123456789")
TFDS_UNDERSCORE = "\\&undsc"  # tfds's stand-in for "_" inside tokens
NUM_BYTES = 256
COMPATS = ("t2t", "tfds")
NUM_CODE_POINTS = 0x110000
_UNESCAPE = re.compile(r"\\u|\\\\|\\([0-9]+);")
UNDEFINED_CHARACTER = "\u3013"  # what t2t decodes an out-of-range `\\<n>;` to


def check_compat(compat: str) -> str:
    if compat not in COMPATS:
        raise ValueError(f"compat: expected one of {COMPATS}, got {compat!r}")
    return compat


@functools.cache
def alnum_table(compat: str) -> np.ndarray:
    """bool [0x110000]: which code points make alphanumeric tokens, per this Python's Unicode data.

    t2t: Unicode category L* or N* (U+10FFFF excluded, as t2t's table stops before it).
    tfds: what `re`'s `\\w` matches (letters, numbers and `_`).
    """
    check_compat(compat)
    chars = "".join(chr(c) if not 0xD800 <= c < 0xE000 else " " for c in range(NUM_CODE_POINTS))
    table = np.zeros(NUM_CODE_POINTS, bool)
    if compat == "tfds":
        table[[m.start() for m in re.finditer(r"\w", chars)]] = True
    else:
        table[:-1] = [unicodedata.category(c)[0] in "LN" for c in chars[:-1]]
        table[0xD800:0xE000] = False
    return table


def _is_alnum(char: str, compat: str) -> bool:
    return bool(alnum_table(compat)[ord(char)])


# --- tokens ------------------------------------------------------------------------------------


def split_text(text: str) -> list[str]:
    """tensor2tensor's tokenizer: runs of alphanumeric / other characters; a single
    space between two tokens is dropped (decode puts it back between alphanumeric ones).

    >>> split_text("Hello, world  !")
    ['Hello', ', ', 'world', '  !']
    """
    if not text:
        return []
    table = alnum_table("t2t")
    kinds = table[np.frombuffer(text.encode("utf-32-le", "surrogatepass"), np.uint32)]
    cuts = (np.flatnonzero(kinds[1:] != kinds[:-1]) + 1).tolist()
    starts = [0] + cuts
    ends = cuts + [len(text)]
    tokens = [text[a:b] for a, b in zip(starts, ends)]
    last = len(tokens) - 1
    return [t for i, t in enumerate(tokens) if t != " " or i == 0 or i == last]


def join_tokens(tokens: Sequence[str]) -> str:
    """Inverse of split_text: one space between two tokens that start alphanumeric."""
    parts = []
    for i, token in enumerate(tokens):
        if i and _is_alnum(tokens[i - 1][0], "t2t") and _is_alnum(token[0], "t2t"):
            parts.append(" ")
        parts.append(token)
    return "".join(parts)


def tfds_tokens(text: str, reserved_tokens: Sequence[str] = ()) -> list[str]:
    """tfds's tokens, prepared for encoding: `_` -> `\\&undsc`, `_` appended before a single space.

    Reserved tokens (and `\\&undsc` written in the text) are split out whole first.

    >>> tfds_tokens("Hello world, a_b")
    ['Hello_', 'world', ', ', 'a\\\\&undscb']
    """
    specials = [*reserved_tokens, TFDS_UNDERSCORE]
    pieces = re.split("(" + "|".join(re.escape(t) for t in specials) + ")", text)
    tokens = []
    for piece in pieces:
        tokens += [piece] if piece in specials else re.split(r"(\W+)", piece)
    tokens = [t for t in tokens if t]
    prepared = []
    skip = False
    for i, token in enumerate(tokens):
        if skip:
            skip = False
            continue
        following = tokens[i + 1] if i + 1 < len(tokens) else None
        if token == TFDS_UNDERSCORE:  # written in the text: two tokens, and a space after it is kept
            prepared += [token[:2], token[2:] + ("_" if following == " " else "")]
            continue
        token = token.replace("_", TFDS_UNDERSCORE)
        if following == " ":
            token += "_"
            skip = True
        prepared.append(token)
    return prepared


def is_mixed_alphanum(token: str) -> bool:
    """tfds's test for a reserved token: more than one run of `\\w` / `\\W` characters.

    >>> is_mixed_alphanum("<EOS>"), is_mixed_alphanum("abc"), is_mixed_alphanum("\\&undsc")
    (True, False, True)
    """
    return len([p for p in re.split(r"(\W+)", token) if p]) > 1


def corpus_token_counts(lines: Iterable[str], *, compat: str = "t2t", reserved_tokens: Sequence[str] = (),
                        max_corpus_chars: int | None = None) -> collections.Counter:
    """Token counts over lines of text (t2t: raw tokens; tfds: prepared tokens).

    `max_corpus_chars`: only the first this many characters of the text are
    counted (tfds's rule: the line that reaches the limit is cut there, and
    tokenized cut; None or 0 for no limit).

    >>> sorted(corpus_token_counts(["hello world", "more"], compat="tfds", max_corpus_chars=8).items())
    [('hello_', 1), ('wo', 1)]
    """
    check_compat(compat)
    if max_corpus_chars is not None and (isinstance(max_corpus_chars, bool) or not isinstance(max_corpus_chars, int)
                                         or max_corpus_chars < 0):
        raise ValueError(f"max_corpus_chars: expected a non-negative int or None, got {max_corpus_chars!r}")
    counts: collections.Counter = collections.Counter()
    used = 0
    for line in lines:
        if max_corpus_chars:
            if used >= max_corpus_chars:
                break  # tfds reads on, but every later line is cut to nothing
            line = line[: max_corpus_chars - used]
            used += len(line)
        counts.update(split_text(line) if compat == "t2t" else tfds_tokens(line, reserved_tokens))
    return counts


# --- escaping (t2t) ----------------------------------------------------------------------------


def escape_token(token: str, alphabet: set[str] | frozenset[str]) -> str:
    """`\\` -> `\\\\`, `_` -> `\\u`, a character outside the alphabet (and newline) ->
    `\\<code point>;`, then `_` to end the token.

    >>> escape_token("a_b\\né", alphabet_of(["ab"]))
    'a\\\\ub\\\\10;\\\\233;_'
    """
    token = token.replace("\\", "\\\\").replace("_", "\\u")
    return "".join(c if c in alphabet and c != "\n" else f"\\{ord(c)};" for c in token) + "_"


def unescape_token(escaped: str) -> str:
    """Inverse of escape_token (a trailing `_` is dropped); `\\<n>;` past U+10FFFF gives U+3013."""

    def replace(match: re.Match) -> str:
        if match.group(1) is None:
            return "_" if match.group(0) == "\\u" else "\\"
        try:
            return chr(int(match.group(1)))
        except (ValueError, OverflowError):
            return UNDEFINED_CHARACTER

    return _UNESCAPE.sub(replace, escaped[:-1] if escaped.endswith("_") else escaped)


def alphabet_of(strings: Iterable[str]) -> frozenset[str]:
    """Every character of `strings`, plus the characters escapes are written with."""
    return frozenset(c for s in strings for c in s) | ESCAPE_CHARS


# --- greedy longest match ------------------------------------------------------------------------


def segment(token: str, vocab: Mapping[str, int] | set[str], max_length: int) -> list[str]:
    """Longest vocabulary strings, left to right; a position no string starts becomes one character."""
    pieces = []
    start = 0
    while start < len(token):
        for end in range(min(len(token), start + max_length), start, -1):
            if token[start:end] in vocab:
                break
        else:
            end = start + 1
        pieces.append(token[start:end])
        start = end
    return pieces


def _boundaries(token: str, vocab: set[str], prefixes: set[str]) -> list[int]:
    """Where `segment(token, vocab, ...)`'s pieces start; `prefixes` holds every prefix of every
    vocabulary string, so the scan from each start stops as soon as no string can match."""
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


def encode_text(text: str, vocab: Sequence[str]) -> list[int]:
    """The pure-Python t2t encoder: text -> ids (the twin of the graph encoder)."""
    ids, alphabet, longest = _encoding_tables(tuple(vocab))
    out = []
    for token in split_text(text):
        out += [ids[s] for s in segment(escape_token(token, alphabet), ids, longest)]
    return out


@functools.lru_cache(maxsize=4)
def _encoding_tables(vocab: tuple[str, ...]) -> tuple[dict[str, int], frozenset[str], int]:
    return subtoken_ids(vocab), alphabet_of(vocab), max(len(s) for s in vocab)


def decode_ids(ids: Sequence[int], vocab: Sequence[str]) -> str:
    """The pure-Python t2t decoder; ids outside [0, len(vocab)) decode to nothing."""
    joined = "".join(vocab[i] if 0 <= i < len(vocab) else "" for i in ids)
    tokens = [unescape_token(t + "_") for t in joined.split("_") if t]
    return join_tokens([t for t in tokens if t])


def subtoken_ids(vocab: Sequence[str]) -> dict[str, int]:
    """subtoken -> id; a repeated subtoken gets its last id, empty strings none (as t2t)."""
    return {s: i for i, s in enumerate(vocab) if s}


# --- learning --------------------------------------------------------------------------------------


class _Learner:
    """One corpus, learned at several min_counts: what does not depend on min_count is done once."""

    def __init__(self, token_counts: Mapping[str, int], *, compat: str, reserved_tokens: Sequence[str],
                 max_subtoken_length: int | None, num_iterations: int):
        self.compat = check_compat(compat)
        self.reserved = list(reserved_tokens)
        self.iterations = num_iterations
        if compat == "t2t":
            self.alphabet = alphabet_of([*token_counts, *self.reserved])
            self.tokens = [(escape_token(t, self.alphabet), c) for t, c in token_counts.items()]
            self.prefix = [escape_token(t, self.alphabet) for t in self.reserved]
            # t2t counts substrings shorter than max_subtoken_length (its range stops one early).
            self.longest = max_subtoken_length - 1 if max_subtoken_length else None
            first_vocab = set(self.alphabet)
        else:
            self.alphabet = frozenset()
            self.tokens = list(token_counts.items())
            self.prefix = list(self.reserved)
            self.longest = max_subtoken_length
            first_vocab = set(self.reserved)
        self._first_counts = self._count(first_vocab)

    def _count(self, vocab: set[str]) -> dict[str, int]:
        """Counts of every substring that starts where a current subtoken starts.

        Same counts as adding each token's count to every substring from each of
        its subtoken boundaries, done faster: the (truncated) suffixes from the
        boundaries are counted first, many tokens sharing them, then each
        distinct suffix adds its count to its prefixes.
        """
        vocab = set(vocab) | ({TFDS_UNDERSCORE} if self.compat == "tfds" else set())
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
            if c >= min_count and not self._always_in_vocab(s):
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

    def _always_in_vocab(self, s: str) -> bool:
        if self.compat == "t2t":
            return s in self.alphabet
        return len(s.encode("utf-8", "surrogatepass")) <= 1  # a byte id covers it

    def build(self, min_count: int) -> list[str]:
        min_count = max(min_count, 1) if self.compat == "t2t" else min_count
        vocab: list[str] = []
        for i in range(self.iterations):
            counts = collections.defaultdict(int, self._first_counts) if i == 0 else self._count(set(vocab))
            vocab = self._select(counts, min_count)
        if self.compat == "tfds":
            vocab = [s for s in vocab if s]
        return vocab

    def size(self, vocab: list[str]) -> int:
        return len(vocab) if self.compat == "t2t" else 1 + len(vocab) + NUM_BYTES


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


def _check_reserved(reserved_tokens: Sequence[str], compat: str) -> list[str]:
    reserved = list(reserved_tokens)
    if compat == "t2t" and reserved[: len(RESERVED_TOKENS)] != list(RESERVED_TOKENS):
        raise ValueError(f"reserved_tokens: {reserved} must start with {list(RESERVED_TOKENS)} (tensor2tensor's ids 0 and 1)")
    if compat == "tfds":
        bad = [t for t in reserved if t.endswith("_") or not is_mixed_alphanum(t)]
        if bad:
            raise ValueError(f"reserved_tokens: {bad} must mix alphanumeric and other characters and not end in '_' (like '<EOS>')")
    return reserved


def _default_reserved(compat: str) -> tuple[str, ...]:
    return RESERVED_TOKENS if compat == "t2t" else ()


def build_from_token_counts(token_counts: Mapping[str, int], min_count: int, *, compat: str = "t2t",
                            num_iterations: int = 4, max_subtoken_length: int | None = None,
                            reserved_tokens: Sequence[str] | None = None) -> list[str]:
    """One vocabulary for one min_count (see the module docstring for the algorithm).

    Returns the subtoken list (t2t: id n is entry n; tfds: id n + 1, bytes after).
    """
    reserved = _check_reserved(_default_reserved(compat) if reserved_tokens is None else reserved_tokens, compat)
    _check_counts(token_counts)
    return _Learner(token_counts, compat=compat, reserved_tokens=reserved, max_subtoken_length=max_subtoken_length,
                    num_iterations=num_iterations).build(min_count)


def build_to_target_size(token_counts: Mapping[str, int], target_size: int, *, compat: str = "t2t",
                         min_val: int | None = None, max_val: int | None = None, num_iterations: int = 4,
                         max_subtoken_length: int | None = None, reserved_tokens: Sequence[str] | None = None,
                         verbose: bool = True) -> list[str]:
    """Binary search on min_count for the vocabulary whose size is closest to `target_size`.

    Sizes within 1% of the target end the search. Bounds default to t2t's 1 and
    1000, or tfds's least and greatest token count. `target_size` counts every
    id (t2t: the subtokens; tfds: padding + subwords + 256 bytes).
    """
    check_compat(compat)
    reserved = _check_reserved(_default_reserved(compat) if reserved_tokens is None else reserved_tokens, compat)
    _check_counts(token_counts)
    if compat == "tfds" and max_subtoken_length is None:
        max_subtoken_length = 20
    if max_subtoken_length is not None and (not isinstance(max_subtoken_length, int) or max_subtoken_length < 1):
        raise ValueError(f"max_subtoken_length: expected a positive int or None, got {max_subtoken_length!r}")
    if compat == "t2t":
        low, high = 1 if min_val is None else min_val, 1000 if max_val is None else max_val
    else:
        low = max(min(token_counts.values()), 1) if min_val is None else min_val
        high = max(token_counts.values()) if max_val is None else max_val
    if low > high:
        raise ValueError(f"min_val: {low} is greater than max_val {high}; pass min_val <= max_val")
    start = time.perf_counter()
    learner = _Learner(token_counts, compat=compat, reserved_tokens=reserved, max_subtoken_length=max_subtoken_length,
                       num_iterations=num_iterations)
    _check_target_size(target_size, compat)
    with progress_bar(desc=f"subwords ({compat})", unit=" builds", disable=not verbose, file=sys.stderr) as bar:

        def build(min_count: int) -> list[str]:
            vocab = learner.build(min_count)
            bar.update(1)
            bar.set_postfix(min_count=min_count, size=learner.size(vocab))
            return vocab

        vocab = _bisect(build, learner.size, target_size, low, high, prefer_later=compat == "tfds")
    if verbose:
        print(f"learned {learner.size(vocab)} ids (target {target_size}) from {len(token_counts)} distinct tokens "
              f"in {time.perf_counter() - start:.1f} s", file=sys.stderr)
    return vocab


# tfds's smallest target: padding, one subword and the byte ids (its _validate_build_arguments).
TFDS_MIN_TARGET_SIZE = 1 + 1 + NUM_BYTES


def _check_target_size(target_size, compat: str) -> None:
    """Like the peers, a target below what the vocabulary must hold (the alphabet, reserved tokens) still
    builds the closest vocabulary; tfds only refuses targets below its fixed minimum."""
    smallest = 1 if compat == "t2t" else TFDS_MIN_TARGET_SIZE
    if isinstance(target_size, bool) or not isinstance(target_size, int) or target_size < smallest:
        what = "a positive int" if compat == "t2t" else f"an int >= {smallest} (padding, a subword and 256 bytes, as tfds)"
        raise ValueError(f"target_size: expected {what}, got {target_size!r}")


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


# --- vocabulary files --------------------------------------------------------------------------------


def format_vocab(subtokens: Sequence[str], *, add_single_quotes: bool = True) -> str:
    """t2t's `store_to_file` format: one subtoken a line, in single quotes (bare with `add_single_quotes=False`).

    A bare subtoken must read back as itself: one with a newline, white space
    at either end, or the same quote at both ends (such as `'`) is a
    ValueError, where tensor2tensor would write a file that loads differently.

    >>> format_vocab(["<pad>_", "a"]), format_vocab(["<pad>_", "a"], add_single_quotes=False)
    ("'<pad>_'\\n'a'\\n", '<pad>_\\na\\n')
    """
    if add_single_quotes:
        return "".join(f"'{s}'\n" for s in subtokens)
    lossy = [s for s in subtokens if "\n" in s or _read_line(s) != s]
    if lossy:
        raise ValueError(f"add_single_quotes: False cannot store {len(lossy)} subtoken(s) such as {lossy[:5]}: bare, "
                         "they would not read back (white space at an end, wrapping quotes, a newline); "
                         "store with add_single_quotes=True")
    return "".join(f"{s}\n" for s in subtokens)


def _read_line(line: str) -> str:
    """One vocabulary line as t2t's loader reads it: stripped, then one pair of wrapping ' or " removed."""
    s = line.strip()
    if s[:1] in ("'", "\"") and s.endswith(s[0]):  # a lone quote too, as in t2t: it reads as ""
        return s[1:-1]
    return s


def parse_vocab(text: str, *, source: str) -> list[str]:
    """t2t's `load_from_file` reading: each line stripped (`str.strip()`), then one pair of wrapping ' or " removed.

    Lines end at `\\n` only (a subtoken may contain other line breaks such as `\\r`).
    Quoted (`store_to_file`'s default) and bare (`add_single_quotes=False`) lines both read.
    """
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    subtokens = [_read_line(line) for line in lines]
    if not any(subtokens):
        raise ValueError(f"vocab: the {source} has no subtokens; pass a file written by store_to_file")
    return subtokens


TFDS_HEADER = "### SubwordTextEncoder"
TFDS_METADATA = "### Metadata: "


def is_tfds_vocab(text: str) -> bool:
    """Whether a vocabulary file's text starts with tfds's header line."""
    return text.split("\n", 1)[0] == TFDS_HEADER


def format_tfds_vocab(subwords: Sequence[str]) -> str:
    """tfds's `save_to_file` format: a header, a metadata line, then one subword a line in single quotes.

    >>> format_tfds_vocab(["ab", "c_"])
    "### SubwordTextEncoder\\n### Metadata: {}\\n'ab'\\n'c_'\\n"
    """
    bad = [s for s in subwords if "\n" in s]
    if bad:
        raise ValueError(f"subwords: {bad[:3]} contain a newline, which tfds's file format cannot hold "
                         "(lines end at newlines); store them in the t2t format or learn from lines without newlines")
    lines = [TFDS_HEADER, TFDS_METADATA + "{}", *(f"'{s}'" for s in subwords)]
    return "\n".join(lines) + "\n"


def parse_tfds_vocab(text: str, *, source: str) -> list[str]:
    """tfds's `load_from_file` reading: after the header and the metadata, each line without its wrapping quotes.

    Empty subwords are dropped (tfds drops them when it builds the encoder); no
    subwords at all is valid (every character is then written as bytes).
    """
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    if not lines or lines[0] != TFDS_HEADER:
        raise ValueError(f"vocab: the {source} does not start with {TFDS_HEADER!r}; pass a file written by save_to_file")
    if len(lines) < 2 or not lines[1].startswith(TFDS_METADATA):
        raise ValueError(f"vocab: the {source} has no {TFDS_METADATA.strip()!r} line after its header; "
                         "pass a file written by tfds's save_to_file")
    unquoted = [i for i, line in enumerate(lines[2:], start=3) if len(line) < 2 or line[0] != "'" or line[-1] != "'"]
    if unquoted:
        raise ValueError(f"vocab: line {unquoted[0]} of the {source} is not a subword in single quotes: "
                         f"{lines[unquoted[0] - 1]!r}; pass a file written by save_to_file")
    return [line[1:-1] for line in lines[2:] if line[1:-1]]
