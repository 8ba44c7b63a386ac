"""Both vocabulary file formats: reading and writing (what `store_to_file` and `load_from_file` do).

- t2t (tensor2tensor's `store_to_file`): one subtoken a line, in single
  quotes, or bare with `add_single_quotes=False`; read as t2t reads it
  (each line stripped, then one pair of wrapping ' or " removed).
- tfds (`tfds.deprecated.text`'s `save_to_file`): a `### SubwordTextEncoder`
  header, a `### Metadata: ` line, then one subword a line in single quotes.
  The header tells the formats apart.

>>> text = format_tfds_vocab(["ab", "c_"])
>>> is_tfds_vocab(text), parse_tfds_vocab(text, source="example")
(True, ['ab', 'c_'])
>>> parse_vocab(format_vocab(["<pad>_", "a "]), source="example")
['<pad>_', 'a ']
"""

from __future__ import annotations

import os
import pathlib
from typing import Sequence

from tf_wordpiece.files import write_text_atomically
from tf_wordpiece.messages import shown_path, utf8_text
from tf_wordpiece.subword.text import check_compat

TFDS_HEADER = "### SubwordTextEncoder"
TFDS_METADATA = "### Metadata: "


# --- t2t ---------------------------------------------------------------------------------------


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
        raise ValueError(
            f"add_single_quotes: False cannot store {len(lossy)} subtoken(s) such as {lossy[:5]}: bare, "
            "they would not read back (white space at an end, wrapping quotes, a newline); "
            "store with add_single_quotes=True"
        )
    return "".join(f"{s}\n" for s in subtokens)


def _read_line(line: str) -> str:
    """One vocabulary line as t2t's loader reads it: stripped, then one pair of wrapping ' or " removed."""
    s = line.strip()
    if s[:1] in ("'", '"') and s.endswith(s[0]):  # a lone quote too, as in t2t: it reads as ""
        return s[1:-1]
    return s


def parse_vocab(text: str, *, source: str) -> list[str]:
    """t2t's `load_from_file` reading: each line stripped (`str.strip()`), then one pair of wrapping ' or " removed.

    Lines end at `\\n` only (a subtoken may contain other line breaks such as `\\r`).
    Quoted (`store_to_file`'s default) and bare (`add_single_quotes=False`) lines both read.

    >>> parse_vocab("'<pad>_'\\n\\"a\\"\\nb_  \\n", source="example")
    ['<pad>_', 'a', 'b_']
    """
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    subtokens = [_read_line(line) for line in lines]
    if not any(subtokens):
        raise ValueError(f"vocab: the {source} has no subtokens; pass a file written by store_to_file")
    return subtokens


# --- tfds --------------------------------------------------------------------------------------


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
        raise ValueError(
            f"subwords: {bad[:3]} contain a newline, which tfds's file format cannot hold "
            "(lines end at newlines); store them in the t2t format or learn from lines without newlines"
        )
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
        raise ValueError(
            f"vocab: the {source} does not start with {TFDS_HEADER!r}; pass a file written by save_to_file"
        )
    if len(lines) < 2 or not lines[1].startswith(TFDS_METADATA):
        raise ValueError(
            f"vocab: the {source} has no {TFDS_METADATA.strip()!r} line after its header; "
            "pass a file written by tfds's save_to_file"
        )
    unquoted = [i for i, line in enumerate(lines[2:], start=3) if len(line) < 2 or line[0] != "'" or line[-1] != "'"]
    if unquoted:
        raise ValueError(
            f"vocab: line {unquoted[0]} of the {source} is not a subword in single quotes: "
            f"{lines[unquoted[0] - 1]!r}; pass a file written by save_to_file"
        )
    return [line[1:-1] for line in lines[2:] if line[1:-1]]


# --- files -------------------------------------------------------------------------------------


def read_vocab_file(path: str | os.PathLike, compat: str | None) -> tuple[str, list[str]]:
    """(compat, subtokens) of a vocabulary file; tfds's header line means compat "tfds", else "t2t".

    `compat` None takes the file's format; a mode that disagrees with the file is a ValueError. A missing
    file is a FileNotFoundError.
    """
    path = os.fspath(path)
    try:
        data = pathlib.Path(path).read_bytes()
    except FileNotFoundError:
        raise FileNotFoundError(
            f"vocab: the vocab file '{shown_path(path)}' does not exist; pass a file written by store_to_file"
        ) from None
    except OSError as e:
        raise ValueError(
            f"vocab: cannot read the vocab file '{shown_path(path)}' ({e.strerror}); pass a file written by "
            "store_to_file"
        ) from None
    text = utf8_text(data, "vocab", path)
    found = "tfds" if is_tfds_vocab(text) else "t2t"
    if compat is not None and check_compat(compat) != found:
        raise ValueError(
            f"compat: {compat!r}, but the vocab file '{shown_path(path)}' is in {found}'s format "
            f"({'has' if found == 'tfds' else 'lacks'} the {TFDS_HEADER!r} header); pass compat={found!r} or None"
        )
    if found == "tfds":
        return found, parse_tfds_vocab(text, source=f"vocab file '{shown_path(path)}'")
    return found, parse_vocab(text, source=f"vocab file '{shown_path(path)}'")


def write_vocab_file(
    path: str | os.PathLike, subtokens: Sequence[str], *, compat: str, add_single_quotes: bool = True
) -> None:
    """Writes `subtokens` atomically in `compat`'s format (`add_single_quotes=False`: t2t only).

    An existing file is replaced only if it looks like a vocabulary file, so a
    mistyped path cannot overwrite something else.
    """
    if check_compat(compat) == "tfds":
        if not add_single_quotes:
            raise ValueError(
                "add_single_quotes: False is only for compat='t2t' (tfds's files always quote their subwords); drop it"
            )
        text = format_tfds_vocab(subtokens)
    else:
        text = format_vocab(subtokens, add_single_quotes=add_single_quotes)
    write_text_atomically(path, text, what="path", kind="subword vocabulary", looks_ours=_looks_like_a_subword_file)


def _looks_like_a_subword_file(head: bytes) -> bool:
    """Whether a file starts as `store_to_file` writes: quoted subtokens a line, after tfds's `###` header
    lines, or bare ones from t2t's reserved `<pad>_` and `<EOS>_` on (what `add_single_quotes=False` writes)."""
    if head.startswith(b"<pad>_\n<EOS>_\n"):
        return True
    lines = [line for line in head.split(b"\n")[:-1] if line and not line.startswith(b"###")]
    return all(line[:1] in (b"'", b'"') for line in lines)
