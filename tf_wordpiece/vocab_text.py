"""Reading vocab.txt and tokenizer.json as text, without TensorFlow: the command line checks them before the import.

Every problem a file can have on its own (missing, a folder, empty, binary,
not UTF-8, a byte order mark, a tokenizer.json given as vocab.txt, text that
is not a JSON object with a model) is found here; `vocab.Vocab` checks the
tokens themselves (duplicates, required tokens), `bert.tokenizer_json` the
tokenizer.json's fields.
"""

from __future__ import annotations

import json
import os

from tf_wordpiece.files import looks_like_text_lines
from tf_wordpiece.messages import quoted_path, shown_path, utf8_text

_SAMPLE = 8192  # the bytes looked at to tell a binary file from text
_TEXT_CONTROLS = frozenset(b"\t\n\r\x0b\x0c")


def read_vocab_lines(path: str | os.PathLike) -> list[str]:
    """The tokens of vocab.txt: UTF-8 without BOM, one token a line (line n is id n; `\\n` or `\\r\\n` ends a line).

    Returns a list of str, one per line. A missing path is a FileNotFoundError;
    a folder, an empty file, a binary file, text that is not UTF-8 and a
    tokenizer.json are ValueErrors that say what the file is and what to pass.

    >>> import pathlib, tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     _ = (pathlib.Path(folder) / "vocab.txt").write_bytes(b"[UNK]\\nhello\\r\\n##s\\n")
    ...     _ = (pathlib.Path(folder) / "model.bin").write_bytes(bytes(range(256)))
    ...     print(read_vocab_lines(pathlib.Path(folder) / "vocab.txt"))
    ...     read_vocab_lines(pathlib.Path(folder) / "model.bin")
    Traceback (most recent call last):
    ValueError: vocab: vocab file '...model.bin' is not a text file (it holds NUL bytes, ...); pass the vocab.txt ...
    >>> read_vocab_lines("no/such/vocab.txt")
    Traceback (most recent call last):
    FileNotFoundError: vocab: vocab file 'no/such/vocab.txt' does not exist; pass the path of a vocab.txt
    """
    data = _read(os.fspath(path))
    shown = f"vocab file '{shown_path(path)}'"
    if not data:
        raise ValueError(f"vocab: the {shown} is empty; a vocabulary needs at least the unknown token")
    binary = _binary(data)
    if binary:
        raise ValueError(
            f"vocab: {shown} is not a text file (it holds {binary}, as models and archives do); pass the vocab.txt "
            "that lists the tokens, one a line"
        )
    if data.startswith(b"\xef\xbb\xbf"):  # peers would keep it as part of the first token: a silently renamed token
        raise ValueError(f"vocab: {shown} starts with a UTF-8 byte order mark; re-save it as UTF-8 without BOM")
    text = utf8_text(data, "vocab", path)
    if data.lstrip().startswith(b"{") and b'"model"' in data:
        raise ValueError(
            f"vocab: '{shown_path(path)}' looks like a Hugging Face tokenizer.json, not a vocab.txt; load it with "
            "BertTokenizer.from_tokenizer_json (--tokenizer-json on the command line)"
        )
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the final newline ends the last token, it does not start a new one
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def read_tokenizer_json(path: str | os.PathLike) -> dict:
    """A Hugging Face tokenizer.json's top-level object, with its `model` object; errors name `path`.

    A missing file is a FileNotFoundError; a folder, an empty or binary file,
    text that is not UTF-8 or not JSON (a vocab.txt, say) and JSON without a
    `model` object are ValueErrors.

    >>> read_tokenizer_json("no/such/tokenizer.json")
    Traceback (most recent call last):
    FileNotFoundError: path: tokenizer.json 'no/such/tokenizer.json' does not exist
    """
    path = os.fspath(path)
    shown = quoted_path(path)
    if os.path.isdir(path):
        raise ValueError(f"path: {shown} is a folder; pass the path of the tokenizer.json inside it")
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise FileNotFoundError(f"path: tokenizer.json {shown} does not exist") from None
    if not data.strip():
        raise ValueError(f"path: {shown} is empty; pass a tokenizers tokenizer.json (tokenizer.save(path))")
    binary = _binary(data)
    if binary:
        raise ValueError(f"path: {shown} is not a text file (it holds {binary}); pass a tokenizers tokenizer.json")
    text = utf8_text(data, "path", path)
    try:
        spec = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as e:
        if looks_like_text_lines(data[:_SAMPLE]):
            raise ValueError(
                f"path: {shown} is not JSON but reads like a vocab.txt (one token a line); BertTokenizer(path) "
                "and tokenize --vocab read those"
            ) from None
        raise ValueError(f"path: {shown} is not a valid JSON tokenizer file: {e}") from None
    if not isinstance(spec, dict) or not isinstance(spec.get("model"), dict):
        raise ValueError(f"path: {shown} has no 'model' object; is it a tokenizers tokenizer.json?")
    return spec


def _read(path: str) -> bytes:
    if os.path.isdir(path):
        raise ValueError(f"vocab: '{shown_path(path)}' is a folder; pass the path of a vocab.txt inside it")
    if not os.path.exists(path):
        raise FileNotFoundError(f"vocab: vocab file '{shown_path(path)}' does not exist; pass the path of a vocab.txt")
    with open(path, "rb") as f:
        return f.read()


def _binary(data: bytes) -> str | None:
    """What makes `data` binary, or None: a NUL byte beside other bytes on a line, or many control bytes.

    A NUL alone on its line is a token (some vocabularies list it), so it is text.
    """
    sample = data[:_SAMPLE]
    lines = sample.split(b"\n")
    if any(b"\x00" in line and line.rstrip(b"\r") != b"\x00" for line in lines):
        return "NUL bytes"
    tokens = [line for line in lines if line.rstrip(b"\r") != b"\x00"]  # a NUL token is not a control byte here
    controls = sum(1 for line in tokens for byte in line if byte < 0x20 and byte not in _TEXT_CONTROLS)
    if controls * 20 > len(sample):  # over 5%: text has next to none
        return "control bytes"
    return None
