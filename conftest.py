"""For every test and doctest: the system temp dir is an empty folder that must still be empty at the end.

tempfile (and, through TMPDIR, every child process) writes there instead of /tmp, so whatever a test
leaves behind is reported instead of piling up. pytest's own tmp_path folders live elsewhere.
"""

from __future__ import annotations

import os
import pathlib
import sys
import tempfile

import pytest

# tests/helpers holds the suite's plugins; tests/conftest.py adds the same folder for the test modules.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent / "tests"))
pytest_plugins = ["helpers.costs", "helpers.serial", "helpers.order", "helpers.tiers"]  # see each module

AUTOGRAPH_FILES = "__autograph_generated_file"  # TensorFlow's tf.function sources, removed when Python exits


@pytest.fixture(scope="session", autouse=True)
def system_temp_dir_left_empty(tmp_path_factory):
    folder = tmp_path_factory.mktemp("system-temp")
    saved = tempfile.tempdir, os.environ.get("TMPDIR")
    tempfile.tempdir, os.environ["TMPDIR"] = str(folder), str(folder)
    yield folder
    tempfile.tempdir = saved[0]
    if saved[1] is None:
        os.environ.pop("TMPDIR")
    else:
        os.environ["TMPDIR"] = saved[1]
    leftovers = sorted(path.name for path in folder.iterdir() if not path.name.startswith(AUTOGRAPH_FILES))
    assert not leftovers, f"the tests left {len(leftovers)} entries in the temp dir, such as {leftovers[:5]}"
