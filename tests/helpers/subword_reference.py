"""The pure-Python twin of the t2t graph encoder (`tf_wordpiece/subword/t2t.py`): text -> ids -> text, slowly.

The tests compare the graph with it, line by line (test code: the package
encodes with the graph only). Text is split into tokens (`text.split_text`), each
token is escaped against the vocabulary's alphabet, and the escaped token is
cut into the longest subtokens, left to right.

>>> vocab = ["<pad>_", "<EOS>_", "at_", "the_", *sorted(alphabet_of(["the cat"]))]
>>> ids = encode_text("the rat", vocab)
>>> ids[0], [vocab[i] for i in ids[1:]]
(3, ['\\\\', '1', '1', '4', ';', 'at_'])
>>> decode_ids(ids, vocab)
'the rat'
"""

from __future__ import annotations

import functools
from typing import Mapping, Sequence

from tf_wordpiece.subword.text import alphabet_of, escape_token, join_tokens, split_text, subtoken_ids, unescape_token


def segment(token: str, vocab: Mapping[str, int] | set[str], max_length: int) -> list[str]:
    """Longest vocabulary strings, left to right; a position no string starts becomes one character.

    >>> segment("abcab", {"ab", "abc", "b"}, 3)
    ['abc', 'ab']
    """
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


def encode_text(text: str, vocab: Sequence[str]) -> list[int]:
    """The pure-Python t2t encoder: text -> ids (vocab: subtoken n is id n, as `SubwordTextEncoder.subtokens`)."""
    ids, alphabet, longest = _encoding_tables(tuple(vocab))
    out = []
    for token in split_text(text):
        out += [ids[s] for s in segment(escape_token(token, alphabet), ids, longest)]
    return out


@functools.lru_cache(maxsize=4)
def _encoding_tables(vocab: tuple[str, ...]) -> tuple[dict[str, int], frozenset[str], int]:
    # Cached: the tests encode thousands of lines with one vocabulary, one line a call.
    return subtoken_ids(vocab), alphabet_of(vocab), max(len(s) for s in vocab)


def decode_ids(ids: Sequence[int], vocab: Sequence[str]) -> str:
    """The pure-Python t2t decoder; ids outside [0, len(vocab)) decode to nothing."""
    joined = "".join(vocab[i] if 0 <= i < len(vocab) else "" for i in ids)
    tokens = [unescape_token(t + "_") for t in joined.split("_") if t]
    return join_tokens([t for t in tokens if t])
