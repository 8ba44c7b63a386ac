"""The README, followed top to bottom as a new user would, in a scratch copy of the repository.

Which blocks run:
- ```bash blocks run with bash (-e: every line must succeed), with this interpreter's bin folder first on
  PATH so `tf-wordpiece` and `python` are the installed ones, and this checkout first on PYTHONPATH;
- ```python blocks run in this process with this interpreter, each in a fresh namespace (so each block
  must hold its own imports), the working directory being the scratch copy;
- untagged blocks are shown output and do not run;
- a block whose fence is preceded by a line `<!-- skip-test: why -->` does not run (installing packages,
  the full test run).
Blocks run in the README's order, so each one may use the files the ones before it wrote, and the files
they write must all be in .gitignore (anchored at the repository root).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"
INPUTS = ("tests/data", "tf_wordpiece/data", "examples")  # what the blocks read, copied into the scratch folder
SKIP_MARKER = re.compile(r"^<!--\s*skip-test\b.*-->\s*$")
FENCE = re.compile(r"^```(\S*)\s*$")
RUNNABLE = ("bash", "python")


@dataclass(frozen=True)
class Block:
    language: str
    line: int  # 1-based line of the opening fence
    code: str
    skipped: bool


def readme_blocks(text: str) -> list[Block]:
    """Every fenced block, in order; `skipped` when the line before its fence is a skip-test marker."""
    lines = text.splitlines()
    blocks, index = [], 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if not opening:
            index += 1
            continue
        end = next((j for j in range(index + 1, len(lines)) if lines[j].startswith("```")), None)
        if end is None:
            raise ValueError(f"README.md line {index + 1}: a code block is never closed")
        skipped = index > 0 and bool(SKIP_MARKER.match(lines[index - 1]))
        blocks.append(Block(opening.group(1), index + 1, "\n".join(lines[index + 1 : end]) + "\n", skipped))
        index = end + 1
    return blocks


def root_ignores() -> set[str]:
    """The .gitignore entries anchored at the repository root (`/name` or `/name/`), as names."""
    entries = (REPO / ".gitignore").read_text(encoding="utf-8").splitlines()
    return {entry.strip()[1:].rstrip("/") for entry in entries if entry.strip().startswith("/")}


def test_blocks_are_found_and_every_tag_is_known():
    blocks = readme_blocks(README.read_text(encoding="utf-8"))
    runnable = [block for block in blocks if block.language in RUNNABLE and not block.skipped]
    assert len(runnable) >= 8, f"only {len(runnable)} runnable blocks found; is the parser still right?"
    unknown = [(block.line, block.language) for block in blocks if block.language not in RUNNABLE + ("",)]
    assert not unknown, f"README blocks with a tag this test neither runs nor treats as output: {unknown}"
    assert any(block.skipped for block in blocks), "the pip install block should carry a skip-test marker"


def test_the_test_commands_name_paths_that_exist():
    """The skipped pytest blocks (the quick set, everything) name test files and folders: each must exist."""
    blocks = readme_blocks(README.read_text(encoding="utf-8"))
    commands = [block.code for block in blocks if block.skipped and "pytest" in block.code]
    assert commands, "the README's pytest commands were not found"
    named = {word for code in commands for word in code.split() if word.startswith(("tests/", "tf_wordpiece"))}
    assert named, "the pytest commands name no path; is the parser still right?"
    assert not sorted(path for path in named if not (REPO / path).exists()), "README names paths that do not exist"


def run_shell(block: Block, scratch: Path, temp: Path) -> None:
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
        timeout=300,
    )
    if result.returncode != 0:
        pytest.fail(
            f"README.md line {block.line}: the bash block failed with exit code {result.returncode}:\n"
            f"{block.code}\nstdout:\n{result.stdout[-3000:]}\nstderr:\n{result.stderr[-3000:]}"
        )


def run_python(block: Block) -> None:
    code = compile(block.code, f"README.md (block at line {block.line})", "exec")
    exec(code, {"__name__": "__readme__"})  # a fresh namespace: each block holds its own imports


def test_parser_honours_the_skip_marker_and_treats_untagged_blocks_as_output():
    text = "intro\n<!-- skip-test: installs -->\n```bash\npip install .\n```\n\n```bash\necho hi\n```\n```\nhi\n```\n"
    blocks = readme_blocks(text)
    assert [(block.language, block.line, block.skipped) for block in blocks] == [
        ("bash", 3, True),
        ("bash", 7, False),
        ("", 10, False),
    ]
    assert blocks[1].code == "echo hi\n"
    with pytest.raises(ValueError, match="line 2: a code block is never closed"):
        readme_blocks("text\n```python\nx = 1\n")


def test_a_failing_shell_line_fails_the_test(tmp_path):
    block = Block("bash", 7, "true\nfalse\necho unreachable\n", skipped=False)
    with pytest.raises(pytest.fail.Exception, match="line 7: the bash block failed with exit code 1"):
        run_shell(block, tmp_path, tmp_path)


@pytest.mark.slow  # the full export, the learner and Beam's DirectRunner: a minute or more on 2 cores
def test_readme_blocks_run_in_order(tmp_path, monkeypatch):
    scratch = tmp_path / "clone"
    for folder in INPUTS:
        shutil.copytree(REPO / folder, scratch / folder)
    temp = tmp_path / "temp"
    temp.mkdir()
    before = {path.name for path in scratch.iterdir()}
    monkeypatch.chdir(scratch)
    ran = 0
    for block in readme_blocks(README.read_text(encoding="utf-8")):
        if block.skipped or block.language not in RUNNABLE:
            continue
        if block.language == "bash":
            run_shell(block, scratch, temp)
        else:
            run_python(block)
        ran += 1
    assert ran >= 8
    made = {path.name for path in scratch.iterdir()} - before
    assert "ted_hrlr_translate_pt_en_converter" in made, "the quick start's export wrote nothing"
    unignored = sorted(made - root_ignores())
    assert not unignored, f"the README makes files .gitignore does not list (as /name at the root): {unignored}"
