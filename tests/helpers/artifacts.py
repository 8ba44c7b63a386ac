"""Artefacts several test files read (an exported converter, a TFLite file), built once per test run.

Under pytest-xdist each worker is its own process with its own session fixtures, so a session fixture alone
would build the artefact once per worker. `built_once` builds it in the run's shared temp folder (the parent of
the workers' own) under a file lock: the first process to ask builds it, the others wait and reuse it. Without
xdist it is simply built the first time. Callers must not change what they get: copy it first.
"""

from __future__ import annotations

import fcntl
import os
import shutil
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

import pytest


def shared_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The temp folder every process of this run sees: the base temp dir, or its parent under xdist."""
    base = tmp_path_factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    folder = root / "shared-artifacts"
    folder.mkdir(exist_ok=True)
    return folder


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def built_once(tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], None]) -> Path:
    """The path `name` in the run's shared folder, made by `build(path)` in the first process that asks.

    `build` writes `path` (a file or a folder); a build that fails leaves nothing, and the next caller tries again.
    """
    root = shared_root(tmp_path_factory)
    path, done = root / name, root / f"{name}.done"
    with _locked(root / f"{name}.lock"):
        if not done.exists():
            if path.is_dir():
                shutil.rmtree(path)
            elif path.exists():
                path.unlink()
            build(path)
            done.touch()
    return path
