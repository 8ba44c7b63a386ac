"""The fuzzed-file oracle: valid vocab.txt and tokenizer.json files, and the vocabulary a vocab.txt must give.

Shared by tests/test_file_fuzz.py (hypothesis, bounded) and tools/fuzz_readers.py (atheris, open-ended).
"""

from __future__ import annotations

import json

from helpers.data import TOKENIZER_JSON

TOKENS = [
    "[PAD]",
    "[UNK]",
    "[CLS]",
    "[SEP]",
    "[MASK]",
    "hello",
    "world",
    "##s",
    "##ing",
    "!",
    "a",
    "##b",
    "日",
    "😀",
    "tab\there",
    "x y",
]
VALID_VOCAB = "".join(f"{t}\n" for t in TOKENS).encode("utf-8")


def looks_binary(data: bytes) -> bool:
    """What the readers refuse as "not a text file" (the documented rule, written out again): in the first 8 KiB,
    a line holding a NUL byte and anything else, or control bytes (C0 but tab, line and page breaks; a NUL alone
    on its line is a token) over 5% of the bytes."""
    head = data[:8192]
    lines = [line.removesuffix(b"\r") for line in head.split(b"\n")]
    if any(b"\x00" in line and line != b"\x00" for line in lines):
        return True
    controls = sum(byte < 0x20 and byte not in b"\t\n\r\x0b\x0c" for line in lines if line != b"\x00" for byte in line)
    return controls * 20 > len(head)


def expected_vocab(data: bytes) -> list[str] | None:
    """The vocab.txt format, written out independently: UTF-8 without BOM, "\\n" or "\\r\\n" ends each line, line n
    is id n; a valid vocabulary is non-empty, has no duplicates and has the unknown token. None if invalid."""
    if data.startswith(b"\xef\xbb\xbf"):
        return None
    try:
        lines = data.decode("utf-8").split("\n")
    except UnicodeDecodeError:
        return None
    if lines[-1] == "":
        lines.pop()
    tokens = [line.removesuffix("\r") for line in lines]
    if not tokens or len(set(tokens)) != len(tokens) or "[UNK]" not in tokens:
        return None
    return tokens


def small_tokenizer_json() -> bytes:
    """The bert-base-uncased tokenizer.json with its vocabulary cut to TOKENS (each example then loads fast)."""
    spec = json.loads(TOKENIZER_JSON.read_text(encoding="utf-8"))
    spec["model"]["vocab"] = {t: i for i, t in enumerate(TOKENS)}
    spec["added_tokens"] = [a | {"id": TOKENS.index(a["content"])} for a in spec["added_tokens"]]
    ids = {t: i for i, t in enumerate(TOKENS)}
    for name, special in spec["post_processor"]["special_tokens"].items():
        special["ids"] = [ids[t] for t in special["tokens"]]
    return json.dumps(spec, ensure_ascii=False, indent=1).encode("utf-8")


VALID_JSON = small_tokenizer_json()
