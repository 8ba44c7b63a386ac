"""Shared fixtures: the bert-base-uncased vocabulary, the multilingual sample, the hard strings.

Shared code (paths, oracles, the tokenizer contract) is in tests/helpers, imported as `helpers.<module>`.
"""

from __future__ import annotations

import pathlib
import sys
import tempfile

import pytest

# tests/ has no __init__.py, and under --import-mode=importlib (.ci/run's job 2) pytest puts no test folder
# on sys.path: this line is what makes `from helpers.data import VOCAB` work in every test module, either mode.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from helpers import data  # noqa: E402
from helpers import hard_strings as strings


@pytest.fixture
def library_temp_files(tmp_path, monkeypatch) -> None:
    """Apache Beam and tfds leave folders in the system temp dir: point it at this test's tmp_path instead."""
    folder = tmp_path / "library-temp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    monkeypatch.setenv("TMPDIR", str(folder))


@pytest.fixture(scope="session")
def vocab_path() -> str:
    return str(data.VOCAB)


@pytest.fixture(scope="session")
def vocab_tokens() -> list[str]:
    return data.vocab_tokens()


@pytest.fixture(scope="session")
def multilingual() -> list[str]:
    return data.multilingual_lines()


@pytest.fixture(scope="session")
def hard_strings() -> list[str]:
    return strings.HARD_STRINGS


@pytest.fixture(scope="session")
def invalid_utf8() -> list[bytes]:
    return strings.INVALID_UTF8
