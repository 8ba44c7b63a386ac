"""Where a test run's time went: per file, per fixture, per test, and the child processes each file starts.

    python -m pytest --costs-file costs/run            # writes costs/run.<process>.jsonl (tests/helpers/costs.py)
    python tools/test_costs.py costs/run               # the tables, as Markdown
    python tools/test_costs.py pytest.log              # or a log of `pytest --durations=0` (no fixtures there)

Phases are summed per test file (setup + call + teardown; a session fixture's cost lands on the first test that
needs it, so its file pays for it), fixtures per name and scope (each set-up counted: a module fixture built
in two workers counts twice), child processes per file by program name (python, tf-wordpiece, bash, node, ...).
"""

from __future__ import annotations

import argparse
import collections
import glob
import json
import re
import sys
from pathlib import Path

DURATION_LINE = re.compile(r"^(?P<seconds>[0-9.]+)s (?P<when>setup|call|teardown)\s+(?P<nodeid>\S.*)$")


def read_records(source: str) -> list[dict]:
    """The JSON records of `source.*.jsonl`, or phase records parsed from a pytest log's durations list."""
    files = sorted(glob.glob(f"{source}.*.jsonl"))
    if files:
        return [json.loads(line) for name in files for line in Path(name).read_text(encoding="utf-8").splitlines()]
    if not Path(source).is_file():
        sys.exit(f"test_costs: no {source}.*.jsonl and no file {source}: pass the --costs-file PATH or a pytest log")
    records = []
    for line in Path(source).read_text(encoding="utf-8", errors="replace").splitlines():
        match = DURATION_LINE.match(line.strip())
        if match:
            records.append({"kind": "phase", "seconds": float(match["seconds"]), **match.groupdict()})
    return records


def test_file(nodeid: str) -> str:
    return nodeid.split("::", 1)[0] or "(between tests)"


def summarise(records: list[dict], top: int) -> str:
    phases = [r for r in records if r["kind"] == "phase"]
    per_file, tests_per_file, per_test = collections.Counter(), collections.Counter(), collections.Counter()
    for r in phases:
        per_file[test_file(r["nodeid"])] += float(r["seconds"])
        per_test[r["nodeid"]] += float(r["seconds"])
    for nodeid in per_test:
        tests_per_file[test_file(nodeid)] += 1
    children = collections.defaultdict(collections.Counter)
    for r in records:
        if r["kind"] == "child":
            children[test_file(r["nodeid"])][r["program"]] += 1
    fixtures, fixture_counts = collections.Counter(), collections.Counter()
    for r in records:
        if r["kind"] == "fixture":
            fixtures[(r["name"], r["scope"])] += float(r["seconds"])
            fixture_counts[(r["name"], r["scope"])] += 1

    peak = collections.Counter()
    growth = collections.Counter()  # per file: how much the worker's memory grew while its tests ran
    last_rss = {}
    for r in records:
        if r["kind"] == "memory":
            peak[r["process"]] = max(peak[r["process"]], r["rss_mb"])
            before = last_rss.get(r["process"], r["rss_mb"])
            growth[test_file(r["nodeid"])] += r["rss_mb"] - before
            last_rss[r["process"]] = r["rss_mb"]

    total = sum(per_file.values())
    lines = [f"{len(per_test)} tests, {total / 60:.1f} min of test time (all workers added up)"]
    if peak:
        lines.append("peak resident memory per process: " + ", ".join(f"{p} {mb} MB" for p, mb in sorted(peak.items())))
        grew = ", ".join(f"{name} +{mb} MB" for name, mb in growth.most_common(5) if mb > 0)
        lines.append(f"files the memory grew most in: {grew or '-'}")
    lines.append("")
    lines += ["| file | tests | seconds | share | child processes |", "|---|---:|---:|---:|---|"]
    for name, seconds in per_file.most_common(top):
        kids = ", ".join(f"{program} {n}" for program, n in children[name].most_common()) or "-"
        lines.append(f"| {name} | {tests_per_file[name]} | {seconds:.0f} | {seconds / total:.0%} | {kids} |")
    if fixtures:
        lines += ["", "| fixture | scope | set-ups | seconds |", "|---|---|---:|---:|"]
        for (name, scope), seconds in fixtures.most_common(top):
            lines.append(f"| {name} | {scope} | {fixture_counts[(name, scope)]} | {seconds:.0f} |")
    lines += ["", "| test | seconds |", "|---|---:|"]
    lines += [f"| {nodeid} | {seconds:.0f} |" for nodeid, seconds in per_test.most_common(top)]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", help="the --costs-file PATH of a run, or a pytest log with --durations=0")
    parser.add_argument("--top", type=int, default=20, help="rows per table (default: 20)")
    parser.add_argument(
        "--write-file-costs",
        metavar="JSON",
        help="also write the seconds per test file there (tests/file_costs.json orders the files, costliest first)",
    )
    args = parser.parse_args(argv)
    records = read_records(args.source)
    print(summarise(records, args.top))
    if args.write_file_costs:
        write_file_costs(records, Path(args.write_file_costs))


def write_file_costs(records: list[dict], path: Path) -> None:
    per_file = collections.Counter()
    for r in records:
        if r["kind"] == "phase":
            per_file[test_file(r["nodeid"])] += float(r["seconds"])
    costs = {name: round(seconds, 1) for name, seconds in sorted(per_file.items())}
    path.write_text(json.dumps(costs, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {path}: {len(costs)} files")


if __name__ == "__main__":
    main()
