"""For every test and doctest: the system temp dir is an empty folder that must still be empty at the end.

tempfile (and, through TMPDIR, every child process) writes there instead of /tmp, so whatever a test
leaves behind is reported instead of piling up. pytest's own tmp_path folders live elsewhere.
"""

from __future__ import annotations

import os
import pathlib
import signal
import sys
import tempfile
import warnings

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


@pytest.fixture(autouse=True)
def ctrl_c_handler_restored(request):
    """Each test starts with the Ctrl-C (SIGINT) handler the one before it found, and one that changes it is named.

    Why: a test that leaves SIGINT ignored (a command's `run()` ignores it once its work is done) makes every
    later test in that process deaf to Ctrl-C, and every child process it starts too (an ignored signal stays
    ignored across exec): tests/test_nothing_lost.py's Ctrl-C tests then fail, depending on which file ran
    before them on the same worker.
    """
    before = signal.getsignal(signal.SIGINT)
    yield
    if signal.getsignal(signal.SIGINT) is not before:
        signal.signal(signal.SIGINT, before)
        warnings.warn(f"{request.node.nodeid} left the SIGINT handler changed (restored after it)", stacklevel=1)
