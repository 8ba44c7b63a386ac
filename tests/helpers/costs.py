"""A pytest plugin that keeps what each test and fixture cost: `--costs-file PATH`.

Why: pytest's `--durations` prints the slowest phases and forgets them; to see where a suite's minutes go (per
file, per fixture, per child interpreter) the figures must be kept. With `--costs-file PATH` every process of the
run (the controller and each pytest-xdist worker) appends JSON lines to `PATH.<process>.jsonl`:

- `{"kind": "phase", "nodeid": ..., "when": "setup" | "call" | "teardown", "seconds": ..., "worker": ...}` per
  test phase (setup includes the fixtures the test is the first to need);
- `{"kind": "fixture", "name": ..., "scope": ..., "nodeid": ..., "seconds": ...}` per fixture set-up;
- `{"kind": "child", "nodeid": ..., "program": ...}` per child process a test starts (its program's name, so that
  interpreter starts can be counted);
- `{"kind": "memory", "nodeid": ..., "process": ..., "rss_mb": ...}` per test, the process's resident memory
  after it (to see which tests make a worker grow).

`python tools/test_costs.py PATH` sums them per file, per fixture and per test. Without the option the plugin
does nothing.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest


def pytest_addoption(parser):
    parser.addoption(
        "--costs-file",
        default=None,
        metavar="PATH",
        help="keep each test phase's, fixture's and child process's cost as JSON lines in PATH.<process>.jsonl "
        "(summed by tools/test_costs.py)",
    )


def resident_megabytes() -> int:
    """This process's resident memory now (Linux; 0 where /proc is missing)."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return 0
    return pages * os.sysconf("SC_PAGE_SIZE") // 2**20


class CostRecorder:
    def __init__(self, path: str, process: str):
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        self.out = Path(f"{path}.{process}.jsonl").open("a", encoding="utf-8")
        self.process = process
        self.current = ""  # the node id of the test running in this process
        self._popen_init = subprocess.Popen.__init__

    def write(self, **record) -> None:
        self.out.write(json.dumps(record) + "\n")
        self.out.flush()

    def watch_children(self) -> None:
        recorder, original = self, self._popen_init

        def counting_init(popen, args, *rest, **kwargs):
            argv = [args] if isinstance(args, (str, bytes, os.PathLike)) else list(args)
            program = os.path.basename(str(argv[0])) if argv else "?"
            recorder.write(kind="child", nodeid=recorder.current, program=program)
            original(popen, args, *rest, **kwargs)

        subprocess.Popen.__init__ = counting_init

    def close(self) -> None:
        subprocess.Popen.__init__ = self._popen_init
        self.out.close()

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        self.current = item.nodeid
        yield
        self.write(kind="memory", nodeid=item.nodeid, process=self.process, rss_mb=resident_megabytes())
        self.current = ""

    @pytest.hookimpl(hookwrapper=True)
    def pytest_fixture_setup(self, fixturedef, request):
        start = time.perf_counter()
        yield
        self.write(
            kind="fixture",
            name=fixturedef.argname,
            scope=fixturedef.scope,
            nodeid=self.current,
            seconds=round(time.perf_counter() - start, 4),
        )

    def pytest_runtest_logreport(self, report):
        if self.process != "main" or report.duration is None:  # the controller sees every worker's reports
            return
        worker = getattr(report, "node", None)
        self.write(
            kind="phase",
            nodeid=report.nodeid,
            when=report.when,
            seconds=round(report.duration, 4),
            outcome=report.outcome,
            worker=getattr(worker, "gateway", None) and worker.gateway.id,
        )


def pytest_configure(config):
    path = config.getoption("--costs-file", default=None)
    if not path:
        return
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    recorder = CostRecorder(path, worker or "main")
    recorder.watch_children()
    config.pluginmanager.register(recorder, "cost-recorder")
    config.add_cleanup(recorder.close)
