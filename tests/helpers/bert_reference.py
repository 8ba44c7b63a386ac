"""A slow, readable, pure-Python BERT tokenizer to test the graph (`tf_wordpiece.BertTokenizer`) against.

It follows the same rules from the same Unicode tables, one character at a
time with ordinary loops, so a bug in the vectorized graph code (ragged
indexing, offsets, the longest-match walk) shows up as a difference.

>>> ref = ReferenceBertTokenizer(["[UNK]", "un", "##aff", "##able", "!"], compat="hf", lower_case=True)
>>> ref.tokenize("Unaffable!")
[[1, 2, 3], [4]]
"""

from __future__ import annotations

import bisect
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
