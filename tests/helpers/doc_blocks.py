"""Running the code blocks of a Markdown page (the README, docs/*.md) as a new user would.

Which blocks run:
- ```bash blocks run with bash (-e: every line must succeed), with this interpreter's bin folder first on
  PATH so `tf-wordpiece` and `python` are the installed ones, and this checkout first on PYTHONPATH;
- ```python blocks run in this process with this interpreter, each in a fresh namespace (so each block
  must hold its own imports), the working directory being the scratch copy;
- ```js / ```javascript blocks and untagged blocks are shown (code for other runtimes, output) and do not run;
- a block whose fence is preceded by a line `<!-- skip-test: why -->` does not run (installing packages,
  the full test run, a benchmark); the marker must say why;
- a block whose fence is preceded by a line `<!-- test-needs: node npm -->` runs only where those programs
  are on PATH (the Node examples), with a warning naming them where they are not.
Blocks run in the page's order in one scratch copy of the repository's inputs, so each may use the files
the ones before it wrote, and the files they write must all be in .gitignore (anchored at the root).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
# What the blocks read, copied into the scratch folder.
INPUTS = ("tests/data", "tf_wordpiece/data", "examples", "export")
SKIP_MARKER = re.compile(r"^<!--\s*skip-test\b(?P<why>.*)-->\s*$")
NEEDS_MARKER = re.compile(r"^<!--\s*test-needs:(?P<programs>[^>]*)-->\s*$")
FENCE = re.compile(r"^```(\S*)\s*$")
RUNNABLE = ("bash", "python")
SHOWN = ("", "js", "javascript", "text", "c")  # shown, never run


@dataclass(frozen=True)
class Block:
    language: str
    line: int  # 1-based line of the opening fence
    code: str
    skipped: bool
    why: str = ""  # the skip marker's reason
    needs: tuple[str, ...] = ()  # programs it runs, from a test-needs marker

    def missing(self) -> list[str]:
        """The programs it needs that are not on PATH."""
        return [program for program in self.needs if shutil.which(program) is None]


def blocks(text: str, page: str = "README.md") -> list[Block]:
    """Every fenced block of `page`, in order; `skipped` when the line before its fence is a skip-test marker."""
    lines = text.splitlines()
    found, index = [], 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if not opening:
            index += 1
            continue
        end = next((j for j in range(index + 1, len(lines)) if lines[j].startswith("```")), None)
        if end is None:
            raise ValueError(f"{page} line {index + 1}: a code block is never closed")
        marker = SKIP_MARKER.match(lines[index - 1]) if index > 0 else None
        why = marker.group("why").strip(" :") if marker else ""
        needs = NEEDS_MARKER.match(lines[index - 1]) if index > 0 else None
        programs = tuple(needs.group("programs").split()) if needs else ()
        code = "\n".join(lines[index + 1 : end]) + "\n"
        found.append(Block(opening.group(1), index + 1, code, marker is not None, why, programs))
        index = end + 1
    return found


def root_ignores() -> set[str]:
    """The .gitignore entries anchored at the repository root (`/name` or `/name/`), as names."""
    entries = (REPO / ".gitignore").read_text(encoding="utf-8").splitlines()
    return {entry.strip()[1:].rstrip("/") for entry in entries if entry.strip().startswith("/")}


def run_shell(block: Block, scratch: Path, temp: Path, page: str = "README.md") -> None:
    env = dict(os.environ)
    env["TMPDIR"] = str(temp)  # Beam's DirectRunner leaves its caches in the temp dir; keep them in tmp_path
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    result = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", block.code],
        cwd=scratch,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if result.returncode != 0:
        pytest.fail(
            f"{page} line {block.line}: the bash block failed with exit code {result.returncode}:\n"
            f"{block.code}\nstdout:\n{result.stdout[-3000:]}\nstderr:\n{result.stderr[-3000:]}"
        )


def run_python(block: Block, page: str = "README.md") -> None:
    code = compile(block.code, f"{page} (block at line {block.line})", "exec")
    exec(code, {"__name__": "__doc_block__"})  # a fresh namespace: each block holds its own imports


def run_page(page: Path, tmp_path: Path, monkeypatch) -> tuple[int, set[str]]:
    """Runs `page`'s blocks in order in a fresh scratch copy; returns how many ran and the names they made
    at the copy's root (each already checked to be in .gitignore)."""
    scratch = tmp_path / "clone"
    for folder in INPUTS:  # without a node_modules a developer installed (hundreds of MB; the blocks install it)
        shutil.copytree(REPO / folder, scratch / folder, ignore=shutil.ignore_patterns("node_modules"))
    temp = tmp_path / "temp"
    temp.mkdir()
    before = {path.name for path in scratch.iterdir()}
    monkeypatch.chdir(scratch)
    name = str(page.relative_to(REPO))
    ran = 0
    for block in blocks(page.read_text(encoding="utf-8"), name):
        if block.skipped or block.language not in RUNNABLE:
            continue
        if block.missing():
            warnings.warn(
                f"{name} line {block.line}: not run, {' and '.join(block.missing())} not on PATH", stacklevel=1
            )
            continue
        if block.language == "bash":
            run_shell(block, scratch, temp, name)
        else:
            run_python(block, name)
        ran += 1
    made = {path.name for path in scratch.iterdir()} - before
    unignored = sorted(made - root_ignores())
    assert not unignored, f"{name} makes files .gitignore does not list (as /name at the root): {unignored}"
    return ran, made
