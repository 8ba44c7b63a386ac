"""Decisions the code makes in one place only, checked on the source (no TensorFlow loaded).

A SavedModel is written by `tf_wordpiece.export.saving` alone (atomic, a progress line, TF Serving's warm-up
requests for core="xla"); a core is asked for its capabilities (`tf_wordpiece.cores`), not tested by name, except
where the engine for a core is built; a compat mode is a recipe, not a string compared in the code; every "expected
one of" error is `messages.check_choice`'s wording. A new copy anywhere else in the package, the examples or the
repository's export/ scripts fails here with its file and line.
"""

from __future__ import annotations

import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
SOURCES = sorted(
    path
    for folder in ("tf_wordpiece", "examples", "export")
    for path in (ROOT / folder).rglob("*.py")
    # tf_wordpiece/text/ is tensorflow_text's API (its own option checks, worded as tensorflow_text's)
    if not path.relative_to(ROOT).as_posix().startswith("tf_wordpiece/text/")
)


def _hits(pattern: str) -> list[str]:
    """`file:line` of each line of the sources matching `pattern` (comments and docstring lines included)."""
    found = []
    for path in SOURCES:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(pattern, line):
                found.append(f"{path.relative_to(ROOT).as_posix()}:{number}")
    return found


@pytest.mark.parametrize(
    "pattern, allowed",
    [
        # the one SavedModel writer
        (r"\btf\.saved_model\.save\(", {"tf_wordpiece/export/saving.py"}),
        # cores by name: only where the engine for a core is built (engines.build_engine, NumericEngine's jit flag)
        (r"\bcore\s*[!=]=\s*[\"']|\bcore\s+(not\s+)?in\s+\(", {"tf_wordpiece/bert_tokenizer/engines.py"}),
        # BERT compat modes are recipes (subword's compat == "tfds" picks a file format and rules of its own)
        (r"\bcompat\s*[!=]=\s*[\"'](tf_text|hf|fast_wordpiece|keras_hub)[\"']", set()),
        # one wording of "expected one of"
        (r"f[\"'][^\"']*expected one of", {"tf_wordpiece/messages.py"}),
    ],
    ids=["saved-model-writer", "core-names", "compat-names", "expected-one-of"],
)
def test_decided_in_one_place(pattern, allowed):
    assert len(SOURCES) > 50 and ROOT / "tf_wordpiece/export/saving.py" in SOURCES, "the sources were not found"
    stray = [hit for hit in _hits(pattern) if hit.split(":")[0] not in allowed]
    assert not stray, f"{pattern!r} outside {sorted(allowed)}: {stray}"
