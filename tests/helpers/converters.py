"""The converter `tf-wordpiece export` writes, exported once per test run and core (the export takes seconds)."""

from __future__ import annotations

import pathlib
from importlib import resources

import pytest

from helpers.artifacts import built_once

PAIRS = 3000  # the sample's first pairs: a smaller vocabulary, learned and saved faster than the whole sample's
VOCAB_SIZE = 2000


def sample_pairs() -> list[tuple[str, str]]:
    """The embedded pt/en sample, (pt, en) pairs in the file's order."""
    text = (resources.files("tf_wordpiece") / "data" / "pt_en_sample.tsv").read_text(encoding="utf-8")
    return [tuple(line.split("\t")) for line in text.splitlines()[1:] if line.strip()]


def exported_converter(tmp_path_factory: pytest.TempPathFactory, core: str = "string") -> pathlib.Path:
    """The folder of a converter SavedModel (pt and en tokenizers) with `core`, shared by the tests that need one.

    Callers must not change the folder; copy it first.
    """

    def export(folder: pathlib.Path) -> None:
        from tf_wordpiece.export.converter import export_converter

        export_converter(str(folder), sample_pairs()[:PAIRS], vocab_size=VOCAB_SIZE, make_zip=False, core=core)

    return built_once(tmp_path_factory, f"converter-{core}", export)
