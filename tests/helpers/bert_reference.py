"""A slow, readable, pure-Python BERT tokenizer to test the graph (`tf_wordpiece.BertTokenizer`) against.

It follows the same rules from the same Unicode tables, one character at a
time with ordinary loops, so a bug in the vectorized graph code (ragged
indexing, offsets, the longest-match walk) shows up as a difference.

>>> ref = ReferenceBertTokenizer(["[UNK]", "un", "##aff", "##able", "!"], compat="hf", lower_case=True)
>>> ref.tokenize("Unaffable!")
[[1, 2, 3], [4]]

`transformers_tokenize` is the twin of transformers' BertTokenizer with `do_basic_tokenize=False`.
"""

from __future__ import annotations

import bisect
import re
from typing import Sequence

from tf_wordpiece.unicode import tables as ut


class ReferenceBertTokenizer:
    """Pure-Python twin of `BertTokenizer` (compat "tf_text" or "hf", ids only)."""

    def __init__(
        self,
        tokens: Sequence[str],
        *,
        compat: str = "tf_text",
        lower_case: bool = False,
        suffix_indicator: str = "##",
        unknown_token: str = "[UNK]",
        special_tokens: Sequence[str] = (),
    ):
        self.ids = {t: i for i, t in enumerate(tokens)}
        self.compat = compat
        self.suffix = suffix_indicator
        self.unknown_id = self.ids[unknown_token]
        self.special_tokens = sorted(special_tokens, key=len, reverse=True)
        tables = ut.peer_tables()[compat]
        if compat == "tf_text":
            self.mapping = ut.code_point_map(tables["lower"]) if lower_case else {}
            self.control = _members(tables["control"])
            self.whitespace = _members(tables["whitespace"])
            self.isolated = _members(tables["punctuation"]) | _members(tables["cjk"])
            self.max_bytes, self.max_chars = 100, None
        else:
            self.strip = ut.code_point_map(tables["strip_accents"]) if lower_case else {}
            self.lower = ut.code_point_map(tables["lower"]) if lower_case else {}
            self.deleted = _members(tables["deleted"])
            self.to_space = _members(tables["to_space"])
            self.whitespace = _members(tables["whitespace"])
            self.isolated = _members(tables["punctuation"]) | _members(tables["chinese"])
            self.max_bytes, self.max_chars = None, 100

    def normalize_char(self, c: str) -> str:
        cp = ord(c)
        if self.compat == "tf_text":
            out = "".join(chr(x) for x in self.mapping.get(cp, (cp,)))
            return "".join(" " if ord(ch) in self.control else ch for ch in out)
        if cp in self.deleted:
            return ""
        if cp in self.to_space:
            return " "
        stripped = [chr(x) for x in self.strip.get(cp, (cp,))]
        return "".join(chr(x) for ch in stripped for x in self.lower.get(ord(ch), (ord(ch),)))

    def words(self, text: str) -> list[str | int]:
        """Words of `text`; a matched special token is given as its id."""
        words: list[str | int] = []
        current = ""
        i = 0
        while i < len(text):
            special = next((s for s in self.special_tokens if text.startswith(s, i)), None)
            if special:
                words += [current] if current else []
                words.append(self.ids[special])
                current, i = "", i + len(special)
                continue
            for ch in self.normalize_char(text[i]):
                if ord(ch) in self.whitespace:
                    words += [current] if current else []
                    current = ""
                elif ord(ch) in self.isolated:
                    words += [current, ch] if current else [ch]
                    current = ""
                else:
                    current += ch
            i += 1
        return words + ([current] if current else [])

    def wordpiece(self, word: str) -> list[int]:
        """Greedy longest match first; the whole word is unknown if any position fails."""
        too_long = (self.max_bytes is not None and len(word.encode("utf-8")) > self.max_bytes) or (
            self.max_chars is not None and len(word) > self.max_chars
        )
        if too_long:
            return [self.unknown_id]
        pieces, start = [], 0
        while start < len(word):
            for end in range(len(word), start, -1):
                piece = (self.suffix if start else "") + word[start:end]
                if piece in self.ids:
                    pieces.append(self.ids[piece])
                    start = end
                    break
            else:
                return [self.unknown_id]
        return pieces

    def tokenize(self, text: str) -> list[list[int]]:
        return [[w] if isinstance(w, int) else self.wordpiece(w) for w in self.words(text)]


class _Members:
    """Membership in inclusive [[first, last], ...] code point runs (binary search)."""

    def __init__(self, ranges: list[list[int]]):
        self.ranges = sorted(ranges)
        self.firsts = [first for first, _ in self.ranges]

    def __contains__(self, cp: int) -> bool:
        i = bisect.bisect_right(self.firsts, cp) - 1
        return i >= 0 and cp <= self.ranges[i][1]

    def __or__(self, other: "_Members") -> "_Members":
        return _Members(self.ranges + other.ranges)


_members = _Members


BERT_SPECIALS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")


def transformers_tokenize(text: str, vocab: dict[str, int], specials=BERT_SPECIALS) -> list[tuple[str, int, int]]:
    """(piece, char begin, char end), as transformers' BertTokenizer(do_basic_tokenize=False).tokenize splits.

    transformers (not installed) then splits the text on its special tokens, splits each
    other part with `str.split()` and runs WordPiece (greedy longest match, `##`, words over
    100 characters unknown) on each word: no cleaning, no lowercasing, no punctuation split.

    >>> transformers_tokenize("[CLS]ab c,", {"[CLS]": 0, "ab": 1, "c": 2, "##,": 3})
    [('[CLS]', 0, 5), ('ab', 5, 7), ('c', 8, 9), ('##,', 9, 10)]
    """
    out, position = [], 0
    for i, part in enumerate(re.split("(" + "|".join(map(re.escape, specials)) + ")", text)):
        if i % 2:  # a special token, never split
            out.append((part, position, position + len(part)))
        else:
            starts = [k for k, ch in enumerate(part) if not ch.isspace() and (k == 0 or part[k - 1].isspace())]
            words = [(k, k + len(word)) for k, word in zip(starts, part.split())]  # str.split(), with positions
            for begin, end in words:
                out += [(p, position + b, position + e) for p, b, e in _wordpiece(part[begin:end], vocab, begin)]
        position += len(part)
    return out


def _wordpiece(word: str, vocab: dict[str, int], at: int) -> list[tuple[str, int, int]]:
    if len(word) > 100:
        return [("[UNK]", at, at + len(word))]
    pieces, start = [], 0
    while start < len(word):
        end = len(word)
        while end > start and ("##" if start else "") + word[start:end] not in vocab:
            end -= 1
        if end == start:
            return [("[UNK]", at, at + len(word))]
        pieces.append((("##" if start else "") + word[start:end], at + start, at + end))
        start = end
    return pieces
