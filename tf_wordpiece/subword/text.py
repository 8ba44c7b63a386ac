"""Text to subtoken strings, in plain Python: tokens, escapes, the alphabet (the floor of `subword/`).

Both compat modes' tokenizers live here: tensor2tensor's (`split_text` /
`join_tokens`, runs of Unicode L*/N* and of the rest) and tfds's
(`tfds_tokens`, runs of `re`'s `\\w` and `\\W`, prepared for encoding), with
t2t's escaping (`escape_token` / `unescape_token`) and its alphabet. The
learner, the pure-Python encoder and the graph classes all build on these;
this module imports nothing from `subword/`.

>>> tokens = split_text("snake_case x")
>>> tokens
['snake', '_', 'case', 'x']
>>> [escape_token(t, alphabet_of(tokens)) for t in tokens]
['snake_', '\\\\u_', 'case_', 'x_']
>>> join_tokens([unescape_token(t) for t in ['snake_', '\\\\u_', 'case_', 'x_']])
'snake_case x'
"""

from __future__ import annotations

import functools
import re
import unicodedata
from typing import Iterable, Sequence

import numpy as np

from tf_wordpiece.messages import check_choice

PAD = "<pad>"
EOS = "<EOS>"
RESERVED_TOKENS = (PAD, EOS)
ESCAPE_CHARS = frozenset("\\_u;0123456789")
TFDS_UNDERSCORE = "\\&undsc"  # tfds's stand-in for "_" inside tokens
NUM_BYTES = 256  # tfds's byte ids after its subwords
COMPATS = ("t2t", "tfds")
NUM_CODE_POINTS = 0x110000
_UNESCAPE = re.compile(r"\\u|\\\\|\\([0-9]+);")
UNDEFINED_CHARACTER = "\u3013"  # what t2t decodes an out-of-range `\\<n>;` to


def check_compat(compat: str) -> str:
    """`compat` itself when it names a mode ("t2t" or "tfds"), else a ValueError naming the choices.

    >>> check_compat("tfds")
    'tfds'
    """
    check_choice("compat", compat, COMPATS)
    return compat


@functools.cache
def alnum_table() -> np.ndarray:
    """bool [0x110000]: which code points make t2t's alphanumeric tokens, per this Python's Unicode data.

    Unicode category L* or N*; U+10FFFF is excluded, as t2t's table stops before it.
    (tfds's `\\w` table configures only its graph class: `tfds.py`.)

    >>> table = alnum_table()
    >>> table.shape, bool(table[ord("٣")]), bool(table[ord("_")])
    ((1114112,), True, False)
    """
    # A space stands in for each surrogate: never alphanumeric (and no valid UTF-8 text holds one).
    chars = "".join(chr(c) if not 0xD800 <= c < 0xE000 else " " for c in range(NUM_CODE_POINTS - 1))
    table = np.zeros(NUM_CODE_POINTS, bool)
    table[:-1] = [unicodedata.category(c)[0] in "LN" for c in chars]
    table[0xD800:0xE000] = False
    return table


def _is_alnum(char: str) -> bool:
    return bool(alnum_table()[ord(char)])


# --- tokens ------------------------------------------------------------------------------------


def split_text(text: str) -> list[str]:
    """tensor2tensor's tokenizer: runs of alphanumeric / other characters; a single
    space between two tokens is dropped (decode puts it back between alphanumeric ones).

    >>> split_text("Hello, world  !")
    ['Hello', ', ', 'world', '  !']
    """
    if not text:
        return []
    table = alnum_table()
    kinds = table[np.frombuffer(text.encode("utf-32-le", "surrogatepass"), np.uint32)]
    cuts = (np.flatnonzero(kinds[1:] != kinds[:-1]) + 1).tolist()
    starts = [0] + cuts
    ends = cuts + [len(text)]
    tokens = [text[a:b] for a, b in zip(starts, ends)]
    last = len(tokens) - 1
    return [t for i, t in enumerate(tokens) if t != " " or i == 0 or i == last]


def join_tokens(tokens: Sequence[str]) -> str:
    """Inverse of split_text: one space between two tokens that start alphanumeric.

    >>> join_tokens(["Hello", ", ", "world", "  !"])
    'Hello, world  !'
    """
    parts = []
    for i, token in enumerate(tokens):
        if i and _is_alnum(tokens[i - 1][0]) and _is_alnum(token[0]):
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
    """Inverse of escape_token (a trailing `_` is dropped); `\\<n>;` past U+10FFFF gives U+3013.

    >>> unescape_token("a\\\\ub\\\\10;\\\\233;_"), unescape_token("\\\\9999999;")
    ('a_b\\né', '〓')
    """

    def replace(match: re.Match) -> str:
        if match.group(1) is None:
            return "_" if match.group(0) == "\\u" else "\\"
        try:
            return chr(int(match.group(1)))
        except (ValueError, OverflowError):
            return UNDEFINED_CHARACTER

    return _UNESCAPE.sub(replace, escaped[:-1] if escaped.endswith("_") else escaped)


def alphabet_of(strings: Iterable[str]) -> frozenset[str]:
    """Every character of `strings`, plus the characters escapes are written with.

    >>> sorted(alphabet_of(["ab"]) - ESCAPE_CHARS)
    ['a', 'b']
    """
    return frozenset(c for s in strings for c in s) | ESCAPE_CHARS


def subtoken_ids(vocab: Sequence[str]) -> dict[str, int]:
    """subtoken -> id; a repeated subtoken gets its last id, empty strings none (as t2t).

    >>> subtoken_ids(["a", "", "b", "a"])
    {'a': 3, 'b': 2}
    """
    return {s: i for i, s in enumerate(vocab) if s}
