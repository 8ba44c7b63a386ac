"""A pytest plugin: tests marked `serial` run alone, even under pytest-xdist (`-n 2`).

Why: a few tests kill a child process at a seeded moment or measure time; with another worker's test beside
them on the same two cores, their timing is not theirs. Under xdist every test holds a shared lock on one file
for the run, and a `serial` test holds it exclusively, so it starts only when the other workers' tests in
flight have ended, and theirs start again when it is done. A second lock (the turnstile) keeps a waiting
serial test from being starved by workers that take the shared lock again and again.

Without xdist the tests already run one at a time and the plugin does nothing.
"""

from __future__ import annotations

import fcntl
import os
import tempfile
from pathlib import Path

import pytest

LOCK_KEY = "tf_wordpiece_serial_lock"


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "serial(why): runs alone under pytest-xdist (no other test at the same time); say why, "
        "e.g. it kills a child process at a timed moment or measures time",
    )


class _Locks:
    def __init__(self, folder: str):
        self.main = os.open(os.path.join(folder, "tests.lock"), os.O_RDWR | os.O_CREAT, 0o600)
        self.turnstile = os.open(os.path.join(folder, "turnstile.lock"), os.O_RDWR | os.O_CREAT, 0o600)

    def hold(self, alone: bool):
        fcntl.flock(self.turnstile, fcntl.LOCK_EX)
        if alone:
            fcntl.flock(self.main, fcntl.LOCK_EX)  # keeps the turnstile until done: no new shared holder
        else:
            try:
                fcntl.flock(self.main, fcntl.LOCK_SH)
            finally:
                fcntl.flock(self.turnstile, fcntl.LOCK_UN)

    def release(self, alone: bool):
        fcntl.flock(self.main, fcntl.LOCK_UN)
        if alone:
            fcntl.flock(self.turnstile, fcntl.LOCK_UN)


class _ControllerSide:
    """On the xdist controller: make the lock folder and tell each worker where it is."""

    def __init__(self):
        self.folder = tempfile.mkdtemp(prefix="pytest-serial-")

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node):
        node.workerinput[LOCK_KEY] = self.folder

    def remove(self):
        for name in ("tests.lock", "turnstile.lock"):
            Path(self.folder, name).unlink(missing_ok=True)
        os.rmdir(self.folder)


class _WorkerSide:
    def __init__(self, folder: str):
        self.locks = _Locks(folder)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        alone = item.get_closest_marker("serial") is not None
        self.locks.hold(alone)
        try:
            yield
        finally:
            self.locks.release(alone)


@pytest.hookimpl(trylast=True)
def pytest_sessionstart(session):
    config = session.config
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None and LOCK_KEY in workerinput:
        config.pluginmanager.register(_WorkerSide(workerinput[LOCK_KEY]), "serial-worker")


def pytest_cmdline_main(config):
    if config.pluginmanager.hasplugin("xdist") and getattr(config.option, "numprocesses", None):
        if getattr(config, "workerinput", None) is None:
            controller = _ControllerSide()
            config.pluginmanager.register(controller, "serial-controller")
            config.add_cleanup(controller.remove)
