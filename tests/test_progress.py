"""Progress written to a file or a pipe (tf_wordpiece.progress.PlainLines): whole lines, counts in agreement.

Every unit the package passes (learn's " strings" and " steps", export's " languages", the Beam steps' " lines",
the subword learner's " builds") is checked in the singular and the plural; no TensorFlow is loaded.
"""

from __future__ import annotations

import io
import pathlib
import re

import pytest

from tf_wordpiece.progress import PlainLines, progress_bar

REPO = pathlib.Path(__file__).parent.parent


@pytest.mark.parametrize(
    "unit, updates, total, last_line",
    [
        (" steps", 1, None, "search: 1 step in"),
        (" steps", 7, None, "search: 7 steps in"),
        (" strings", 1, None, "search: 1 string in"),
        (" lines", 3000, None, "search: 3000 lines in"),
        (" languages", 2, 2, "search: 100% (2/2 languages) in"),
        (" languages", 1, 1, "search: 100% (1/1 language) in"),
        (" builds", 1, None, "search: 1 build in"),
        ("it", 1, None, "search: 1 it in"),  # tqdm's default unit, left as it is
        ("it", 2, None, "search: 2 it in"),
    ],
)
def test_plain_lines_agree_in_number(unit, updates, total, last_line):
    log = io.StringIO()
    with PlainLines(desc="search", unit=unit, total=total, stream=log) as bar:
        bar.update(updates)
    lines = log.getvalue().splitlines()
    assert lines[0] == "search ..." and lines[-1].startswith(last_line), lines
    assert "\r" not in log.getvalue()


def test_learn_and_export_pass_plural_units():
    """The units given to progress_bar are plural nouns (or tqdm's "it"), which PlainLines puts in the singular."""
    sources = "".join(path.read_text(encoding="utf-8") for path in (REPO / "tf_wordpiece").rglob("*.py"))
    units = set(re.findall(r'unit="([^"]*)"', sources)) - {"UTF8_CHAR"}  # tf.strings' unit, not a bar's
    assert units >= {" steps", " strings", " languages", " builds"}, units
    assert all(u.startswith(" ") and u.endswith("s") for u in units), units


def test_a_bar_to_a_pipe_is_plain_lines():
    assert isinstance(progress_bar(desc="counting", unit=" lines", file=io.StringIO()), PlainLines)
