"""Recognising a vocabulary this project's learner wrote, so that `--overwrite` replaces that and nothing else.

The learner (`learn`, `tf-wordpiece learn`, the Beam pipeline) writes the
reserved tokens, then the alphabet (every character of the corpus, one a line,
in code-point order), then the learned tokens, each spelled from that
alphabet (after its joiner). A shopping list, notes or another tool's token
list do not have that layout, so they are never replaced.
"""

from __future__ import annotations

from typing import Sequence

from tf_wordpiece.files import head_text


def looks_learned(head: bytes, *, joiners: Sequence[str] = ("##",)) -> bool:
    """Whether a file's first bytes read as a vocabulary the learner wrote (see the module docstring).

    `head` is the file's first bytes (a line cut at its end is ignored);
    `joiners` are the suffix indicators its later tokens may start with.

    >>> looks_learned(b"[UNK]\\na\\nb\\nl\\no\\nw\\nlow\\n##b\\n")
    True
    >>> looks_learned(b"milk\\neggs\\nbread\\n")
    False
    """
    text = head_text(head)
    if text is None:
        return False
    lines = text.split("\n")[:-1]  # the last one is cut, or empty after the final line break
    if not lines or len(set(lines)) < len(lines) or any(not t or any(c.isspace() for c in t) for t in lines):
        return False
    start, end = _alphabet_run(lines)
    if end - start < 2:
        return False
    alphabet = set(lines[start:end])
    return all(set(_unjoined(token, joiners)) <= alphabet for token in lines[end:])


def _alphabet_run(lines: list[str]) -> tuple[int, int]:
    """[start, end) of the longest run of one-character lines in increasing code-point order."""
    best, start = (0, 0), 0
    for index, token in enumerate(lines + [""]):
        in_run = len(token) == 1 and (index > start and token > lines[index - 1] or index == start)
        if not in_run:
            best = max(best, (start, index), key=lambda run: run[1] - run[0])
            start = index + 1 if len(token) != 1 else index
    return best


def _unjoined(token: str, joiners: Sequence[str]) -> str:
    for joiner in joiners:
        if joiner and token.startswith(joiner) and len(token) > len(joiner):
            return token[len(joiner) :]
    return token


LEARNED = (
    "a vocabulary tf-wordpiece learned (the reserved tokens, then one character a line in code-point order, "
    "then tokens spelled from those characters)"
)


def check_learned_output(path: str, *, overwrite: bool, joiner: str, what: str = "--out") -> None:
    """Checks, before any work, that the learner may write `path`: see `files.check_file_output`.

    With `overwrite`, an existing file is replaced only when it `looks_learned`;
    any other file is a ValueError that says why.
    """
    from tf_wordpiece.files import check_file_output

    check_file_output(
        path,
        overwrite=overwrite,
        what=what,
        kind="vocab file",
        looks_ours=lambda head: looks_learned(head, joiners=(joiner, "##")),
        ours=LEARNED,
    )
