"""How messages word counts, show paths and report text that is not UTF-8: one wording for every error and summary.

Nothing here imports TensorFlow or the rest of the package, so every layer may use it.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import sys
from typing import Iterator

STANDARD_INPUT = "-"  # the path that means standard input on the command line


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """`count` and `noun`, in the singular for 1 and in the plural otherwise (`noun` + "s" unless given).

    >>> counted(1, "line"), counted(3, "search step"), counted(0, "time"), counted(1, "distinct word")
    ('1 line', '3 search steps', '0 times', '1 distinct word')
    """
    return f"{count} {noun if count == 1 else plural or noun + 's'}"


def check_choice(name: str, value, choices, *, others: str = "", note: str = "") -> None:
    """A ValueError naming the argument `name`, its choices and `value` when `value` is not one of `choices`.

    The one wording of "expected one of" for every option that takes one of a
    few names: `others` lists further accepted values in words (", True or
    None"), `note` says more after the value (" (keras-hub's 'waterfall' is
    not offered)").

    >>> check_choice("offsets", "original", ("original", "normalized"))
    >>> check_choice("offsets", "chars", ("original", "normalized"))
    Traceback (most recent call last):
    ValueError: offsets: expected one of ['original', 'normalized'], got 'chars'
    """
    if value not in list(choices):
        raise ValueError(f"{name}: expected one of {list(choices)}{others}, got {value!r}{note}")


def in_names(message: str, names: dict[str, str]) -> str:
    """`message` in another API's argument names: its leading `name:` and each name with an underscore, by `names`.

    A layer that hands its arguments on under other names (keras' `vocabulary`
    and `oov_token` become `BertTokenizer`'s `vocab` and `unknown_token`) words
    the errors it passes on in its own names; the command line its options.

    >>> in_names("vocab: the list lacks ['[X]']; pass another unknown_token", {"vocab": "vocabulary",
    ...     "unknown_token": "oov_token"})
    "vocabulary: the list lacks ['[X]']; pass another oov_token"
    """

    def rename(match: re.Match) -> str:
        return names.get(match.group(0), match.group(0))

    message = re.sub(r"^(\w+)(?=:)", rename, message)  # "vocab: ..." -> "vocabulary: ..."
    return re.sub(r"(?<![\w-])[a-z]+(?:_[a-z]+)+\b", rename, message)  # names with underscores, anywhere


@contextlib.contextmanager
def errors_in_names(names: dict[str, str]) -> Iterator[None]:
    """Re-raises a ValueError, TypeError or FileNotFoundError from the block with its message `in_names(names)`.

    For a class that hands its arguments on under other names: the errors of
    what it calls name its own arguments. Subclasses (UnicodeDecodeError,
    JSONDecodeError: their constructors take more) pass unchanged.

    >>> with errors_in_names({"vocab": "vocabulary"}):
    ...     raise FileNotFoundError("vocab: 'v.txt' does not exist")
    Traceback (most recent call last):
    FileNotFoundError: vocabulary: 'v.txt' does not exist
    """
    try:
        yield
    except (ValueError, TypeError, FileNotFoundError) as e:
        message = in_names(str(e), names)
        if type(e) not in (ValueError, TypeError, FileNotFoundError) or message == str(e):
            raise
        raise type(e)(message) from None


def shown_path(path: str | bytes | os.PathLike) -> str:
    """A file name as the user typed it, for messages: bytes that are not UTF-8 are shown as `\\xe9` escapes.

    Python hands a file name that is not UTF-8 over as lone surrogates
    ('caf\\udce9.txt', "surrogateescape"), which a terminal cannot print;
    here they become the bytes they stand for. "-" is standard input.

    >>> shown_path("caf\\udce9.txt"), shown_path(b"caf\\xe9.txt"), shown_path("café/vocab.txt"), shown_path("-")
    ('caf\\\\xe9.txt', 'caf\\\\xe9.txt', 'café/vocab.txt', 'standard input')
    """
    if os.fspath(path) in (STANDARD_INPUT, STANDARD_INPUT.encode()):
        return "standard input"
    return os.fsencode(path).decode(sys.getfilesystemencoding(), "backslashreplace")


def quoted_path(path: str | bytes | os.PathLike) -> str:
    """`shown_path` between single quotes, as error messages name a file.

    >>> print(quoted_path("caf\\udce9.json"))
    'caf\\xe9.json'
    """
    return f"'{shown_path(path)}'"


def line_and_offset(data: bytes, position: int) -> tuple[int, int]:
    """The line (from 1) and the byte offset in that line (from 0) of byte `position` of `data`.

    >>> line_and_offset(b"ab\\ncd\\nef", 7)
    (3, 1)
    """
    return data.count(b"\n", 0, position) + 1, position - (data.rfind(b"\n", 0, position) + 1)


def utf8_text(data: bytes, argument: str, path: str | bytes | os.PathLike) -> str:
    """`data` decoded as UTF-8; bytes that are not: a ValueError `not_utf8_message` words (line, byte, the fix).

    >>> utf8_text(b"caf\\xc3\\xa9", "vocab", "v.txt")
    'café'
    >>> utf8_text(b"ok\\ncaf\\xe9", "vocab", "v.txt")
    Traceback (most recent call last):
    ValueError: vocab: v.txt is not UTF-8 text: line 2 holds the byte 0xe9 at byte offset 3; convert the file ...
    """
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line, offset = line_and_offset(data, e.start)
        raise ValueError(not_utf8_message(argument, path, line=line, offset=offset, byte=data[e.start])) from None


def not_utf8_message(argument: str, path: str | bytes | os.PathLike, *, line: int, offset: int, byte: int) -> str:
    """The error for a text file that is not UTF-8: the file, the line (from 1), the byte, its offset (from 0), the fix.

    `argument` names what the file was given as ("vocab", "input"; the
    command line writes its option names instead). `line_and_offset` finds
    `line` and `offset` from a UnicodeDecodeError's `start`.

    >>> message = not_utf8_message("vocab", "caf\\udce9.txt", line=2, offset=0, byte=0xE9)
    >>> print(message.replace("; ", ";\\n"))
    vocab: caf\\xe9.txt is not UTF-8 text: line 2 holds the byte 0xe9 at byte offset 0;
    convert the file to UTF-8 first, e.g. iconv -f latin1 -t utf-8 $'caf\\xe9.txt' > $'caf\\xe9.txt.utf8'
    """
    where = f"{shown_path(path)} is not UTF-8 text: line {line} holds the byte 0x{byte:02x} at byte offset {offset}"
    if os.fspath(path) in (STANDARD_INPUT, STANDARD_INPUT.encode()):
        return f"{argument}: {where}; convert it to UTF-8 first, e.g. iconv -f latin1 -t utf-8"
    raw = os.fsencode(path)
    command = f"iconv -f latin1 -t utf-8 {_shell_word(raw)} > {_shell_word(raw + b'.utf8')}"
    return f"{argument}: {where}; convert the file to UTF-8 first, e.g. {command}"


def _shell_word(raw: bytes) -> str:
    """A file name as a shell word: quoted if needed, and in bash's $'...' form if it is not UTF-8."""
    try:
        return shlex.quote(raw.decode("utf-8"))
    except UnicodeDecodeError:
        escaped = "".join(chr(b) if 32 <= b < 127 and b not in b"\\'" else f"\\x{b:02x}" for b in raw)
        return f"$'{escaped}'"
