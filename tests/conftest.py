"""Shared fixtures: the bert-base-uncased vocabulary, the multilingual sample, the hard strings."""

from __future__ import annotations

import json
import pathlib
import sys
import tempfile

import numpy as np
import pytest
import tensorflow as tf

DATA = pathlib.Path(__file__).parent / "data"
VOCAB = DATA / "bert-base-uncased" / "vocab.txt"
TOKENIZER_JSON = DATA / "bert-base-uncased" / "tokenizer.json"

sys.path.insert(0, str(pathlib.Path(__file__).parent))  # for hard_strings and contract


@pytest.fixture
def library_temp_files(tmp_path, monkeypatch) -> None:
    """Apache Beam and tfds leave folders in the system temp dir: point it at this test's tmp_path instead."""
    folder = tmp_path / "library-temp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    monkeypatch.setenv("TMPDIR", str(folder))


@pytest.fixture(scope="session")
def vocab_path() -> str:
    return str(VOCAB)


@pytest.fixture(scope="session")
def vocab_tokens() -> list[str]:
    return VOCAB.read_text(encoding="utf-8").splitlines()


@pytest.fixture(scope="session")
def multilingual() -> list[str]:
    return (DATA / "multilingual_dev.txt").read_text(encoding="utf-8").split("\n")


@pytest.fixture(scope="session")
def hard_strings() -> list[str]:
    import hard_strings

    return hard_strings.HARD_STRINGS


@pytest.fixture(scope="session")
def invalid_utf8() -> list[bytes]:
    import hard_strings

    return hard_strings.INVALID_UTF8


def hf_oracle(*, lowercase: bool = True, **normalizer):
    """tokenizers.Tokenizer from the shared tokenizer.json, padding and truncation off."""
    from tokenizers import Tokenizer

    spec = json.loads(TOKENIZER_JSON.read_text(encoding="utf-8"))
    spec["normalizer"]["lowercase"] = lowercase
    spec["normalizer"].update(normalizer)
    tok = Tokenizer.from_str(json.dumps(spec))
    tok.no_padding()
    tok.no_truncation()
    return tok


def rows(rt: tf.RaggedTensor) -> list:
    """A [batch, words, pieces] RaggedTensor -> per batch row (piece counts per word, flat values).

    Much faster than to_list() on large batches, and just as exact.
    """
    outer = rt.row_splits.numpy()
    inner = rt.values.row_splits.numpy()
    values = rt.flat_values.numpy()
    out = []
    for i in range(len(outer) - 1):
        a, b = outer[i], outer[i + 1]
        out.append((np.diff(inner[a : b + 1]).tolist(), values[inner[a] : inner[b]].tolist()))
    return out


def batches(items: list, size: int = 1000):
    for i in range(0, len(items), size):
        yield items[i : i + size]


def encode_all(enc, lines: list[str], batch: int = 2000) -> list[list[int]]:
    """A SubwordTextEncoder's ids for many lines, in batches."""
    out = []
    for i in range(0, len(lines), batch):
        out += enc.encode(tf.constant(lines[i : i + batch])).to_list()
    return out


def decode_all(enc, ids: list[list[int]], batch: int = 2000) -> list[str]:
    """A SubwordTextEncoder's text for many id lists, in batches."""
    out = []
    for i in range(0, len(ids), batch):
        out += [s.decode("utf-8") for s in enc.decode(tf.ragged.constant(ids[i : i + batch], tf.int64)).numpy()]
    return out
