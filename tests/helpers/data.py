"""The shared test data: bert-base-uncased's vocab.txt and tokenizer.json, and the multilingual sample."""

from __future__ import annotations

import pathlib

DATA = pathlib.Path(__file__).resolve().parent.parent / "data"
VOCAB = DATA / "bert-base-uncased" / "vocab.txt"
TOKENIZER_JSON = DATA / "bert-base-uncased" / "tokenizer.json"
MULTILINGUAL = DATA / "multilingual_dev.txt"


def vocab_tokens() -> list[str]:
    """bert-base-uncased's tokens; line n is id n."""
    return VOCAB.read_text(encoding="utf-8").splitlines()


def multilingual_lines() -> list[str]:
    """The multilingual sample, one string a line."""
    return MULTILINGUAL.read_text(encoding="utf-8").split("\n")
