"""A pytest plugin: test files run costliest first, so that pytest-xdist's workers end together.

Why: `--dist loadfile` hands each worker whole files (a file's module fixtures, an export or a TFLite
conversion, are then built once), in collection order. A costly file handed out last keeps one worker busy
while the other idles; handed out first (longest processing time first), the cheap files fill the gaps.
The costs are tests/file_costs.json (seconds per file, written by `python tools/test_costs.py RUN
--write-file-costs tests/file_costs.json` from a `--costs-file` run); a file it does not list (a new one) goes
first, as if it were the costliest. Only the order of files changes: the tests of a file keep theirs.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

COSTS = Path(__file__).resolve().parents[1] / "file_costs.json"


def file_costs() -> dict[str, float]:
    try:
        return json.loads(COSTS.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def pytest_collection_modifyitems(session, config, items):
    costs = file_costs()
    if not costs:
        return
    unknown = max(costs.values()) + 1
    first_seen = {}
    for item in items:
        first_seen.setdefault(item.nodeid.split("::", 1)[0], len(first_seen))
    items.sort(
        key=lambda item: (-costs.get(item.nodeid.split("::", 1)[0], unknown), first_seen[item.nodeid.split("::", 1)[0]])
    )


GIB_PER_WORKER = 4  # a worker imports TensorFlow, Keras and the oracles and builds models: 1-4 GB as it goes


def pytest_xdist_auto_num_workers(config):
    """`-n auto`: one worker per core this process may use, but no more than memory holds at 4 GiB each."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    memory_gib = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") / 2**30
    return max(1, min(cores, int(memory_gib // GIB_PER_WORKER)))
