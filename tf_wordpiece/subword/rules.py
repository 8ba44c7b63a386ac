"""Each compat mode's learning rules, one object a mode: `rules_for(compat)` picks it once, the learner asks it.

The two published copies of the subword learner (tensor2tensor's, tfds's)
differ in how they cut and prepare tokens, where the vocabulary starts, what
is never a candidate, how ids are counted and how the search on min_count
runs. `T2tRules` and `TfdsRules` each hold one side of that list; the package
docstring (`subword/__init__.py`) shows them side by side. The learner
(`learner.py`) holds one of them and never asks which mode it is in.

>>> t2t, tfds = rules_for("t2t"), rules_for("tfds")
>>> t2t.tokens("a_b c", ()), tfds.tokens("a_b c", ())
(['a', '_', 'b', 'c'], ['a\\\\&undscb_', 'c'])
>>> t2t.size(["a_", "b_"]), tfds.size(["a_", "b_"])  # tfds: padding, the subwords, 256 byte ids
(2, 259)
"""

from __future__ import annotations

import abc
from typing import Mapping, Sequence

from tf_wordpiece.subword.text import (
    NUM_BYTES,
    RESERVED_TOKENS,
    TFDS_UNDERSCORE,
    alphabet_of,
    check_compat,
    escape_token,
    is_mixed_alphanum,
    split_text,
    tfds_tokens,
)


class LearningRules(abc.ABC):
    """What the learner asks a compat mode (the attributes below, and one method each rule)."""

    name: str  # the `compat` value
    default_reserved: tuple[str, ...]  # reserved_tokens=None means these
    default_max_subtoken_length: int | None  # build_to_target_size's max_subtoken_length=None means this
    ids_besides_subtokens: int  # ids a vocabulary has beyond its subtokens (tfds: padding and the bytes)
    kept_whole: frozenset[str]  # strings cut out whole when tokens are segmented, learned or not
    prefer_later: bool  # the search's tie-break between two equally close sizes: the later try wins
    target_size_rule: str  # what a target_size must be, as the error says it

    @abc.abstractmethod
    def tokens(self, line: str, reserved_tokens: Sequence[str]) -> list[str]:
        """The tokens of one line of the corpus, as they are counted."""

    @abc.abstractmethod
    def check_reserved(self, reserved_tokens: Sequence[str]) -> list[str]:
        """The reserved tokens as a list, or a ValueError naming the ones this mode refuses."""

    @abc.abstractmethod
    def alphabet(self, tokens: Sequence[str], reserved: Sequence[str]) -> frozenset[str]:
        """The characters that are always subtokens (t2t's alphabet; tfds has none: bytes cover them)."""

    @abc.abstractmethod
    def prepared(self, token: str, alphabet: frozenset[str]) -> str:
        """A counted (or reserved) token as the learner segments it."""

    @abc.abstractmethod
    def first_vocab(self, alphabet: frozenset[str], reserved: Sequence[str]) -> set[str]:
        """The vocabulary that the first iteration's segmentation uses."""

    @abc.abstractmethod
    def counted_length(self, max_subtoken_length: int | None) -> int | None:
        """The longest substring counted for `max_subtoken_length` (None: no limit)."""

    @abc.abstractmethod
    def covered(self, candidate: str, alphabet: frozenset[str]) -> bool:
        """True for a string the vocabulary holds anyway, so it is never a candidate."""

    @abc.abstractmethod
    def min_count(self, min_count: int) -> int:
        """The min_count one build runs with, for the one asked for."""

    @abc.abstractmethod
    def min_count_bounds(self, token_counts: Mapping[str, int]) -> tuple[int, int]:
        """The search's default bounds on min_count (min_val, max_val)."""

    @property
    def smallest_target(self) -> int:
        """The smallest target size: one subtoken beside the ids every vocabulary has."""
        return self.ids_besides_subtokens + 1

    def size(self, subtokens: Sequence[str]) -> int:
        """The number of ids of a vocabulary of `subtokens`."""
        return len(subtokens) + self.ids_besides_subtokens


class T2tRules(LearningRules):
    """tensor2tensor's rules (`compat="t2t"`, the default)."""

    name = "t2t"
    default_reserved = RESERVED_TOKENS
    default_max_subtoken_length = None
    ids_besides_subtokens = 0
    kept_whole = frozenset()
    prefer_later = False  # ties keep the earlier try
    target_size_rule = "a positive int"

    def tokens(self, line: str, reserved_tokens: Sequence[str]) -> list[str]:
        return split_text(line)  # t2t counts raw tokens; reserved tokens are not split out

    def check_reserved(self, reserved_tokens: Sequence[str]) -> list[str]:
        reserved = list(reserved_tokens)
        if reserved[: len(RESERVED_TOKENS)] != list(RESERVED_TOKENS):
            raise ValueError(
                f"reserved_tokens: {reserved} must start with {list(RESERVED_TOKENS)} (tensor2tensor's ids 0 and 1)"
            )
        return reserved

    def alphabet(self, tokens: Sequence[str], reserved: Sequence[str]) -> frozenset[str]:
        return alphabet_of([*tokens, *reserved])

    def prepared(self, token: str, alphabet: frozenset[str]) -> str:
        return escape_token(token, alphabet)

    def first_vocab(self, alphabet: frozenset[str], reserved: Sequence[str]) -> set[str]:
        return set(alphabet)

    def counted_length(self, max_subtoken_length: int | None) -> int | None:
        # t2t counts substrings shorter than max_subtoken_length (its range stops one early).
        return max_subtoken_length - 1 if max_subtoken_length else None

    def covered(self, candidate: str, alphabet: frozenset[str]) -> bool:
        return candidate in alphabet  # the alphabet is added to every vocabulary

    def min_count(self, min_count: int) -> int:
        return max(min_count, 1)

    def min_count_bounds(self, token_counts: Mapping[str, int]) -> tuple[int, int]:
        return 1, 1000


class TfdsRules(LearningRules):
    """`tfds.deprecated.text`'s rules (`compat="tfds"`)."""

    name = "tfds"
    default_reserved = ()
    default_max_subtoken_length = 20
    ids_besides_subtokens = 1 + NUM_BYTES  # padding (id 0), then the subwords, then the byte ids
    kept_whole = frozenset({TFDS_UNDERSCORE})
    prefer_later = True  # ties keep the later try

    @property
    def target_size_rule(self) -> str:
        return f"an int >= {self.smallest_target} (padding, a subword and {NUM_BYTES} bytes, as tfds)"

    def tokens(self, line: str, reserved_tokens: Sequence[str]) -> list[str]:
        return tfds_tokens(line, reserved_tokens)

    def check_reserved(self, reserved_tokens: Sequence[str]) -> list[str]:
        reserved = list(reserved_tokens)
        bad = [t for t in reserved if t.endswith("_") or not is_mixed_alphanum(t)]
        if bad:
            raise ValueError(
                f"reserved_tokens: {bad} must mix alphanumeric and other characters and not end in '_' (like '<EOS>')"
            )
        return reserved

    def alphabet(self, tokens: Sequence[str], reserved: Sequence[str]) -> frozenset[str]:
        return frozenset()

    def prepared(self, token: str, alphabet: frozenset[str]) -> str:
        return token  # tfds_tokens already prepared it

    def first_vocab(self, alphabet: frozenset[str], reserved: Sequence[str]) -> set[str]:
        return set(reserved)

    def counted_length(self, max_subtoken_length: int | None) -> int | None:
        return max_subtoken_length

    def covered(self, candidate: str, alphabet: frozenset[str]) -> bool:
        return len(candidate.encode("utf-8", "surrogatepass")) <= 1  # a byte id covers it

    def min_count(self, min_count: int) -> int:
        return min_count

    def min_count_bounds(self, token_counts: Mapping[str, int]) -> tuple[int, int]:
        return max(min(token_counts.values()), 1), max(token_counts.values())


_RULES = {rules.name: rules for rules in (T2tRules(), TfdsRules())}


def rules_for(compat: str) -> LearningRules:
    """The rules of the mode `compat` names ("t2t" or "tfds"), else a ValueError naming the choices.

    >>> rules_for("tfds").default_max_subtoken_length
    20
    """
    return _RULES[check_compat(compat)]
