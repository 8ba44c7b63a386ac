"""One way to run checks in a fresh interpreter: where a module must not be importable, or a process must start clean.

Starting Python and importing TensorFlow costs 5-7 s, so a test that needs a fresh interpreter runs all of its
checks in one child and has it print one JSON line of results, which the test then asserts on.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any, Iterable


def run_python(
    code: str,
    *args: str,
    without: Iterable[str] = (),
    cwd: str | Path | None = None,
    stdin: str | None = None,
    timeout: float = 600,
) -> Any:
    """Runs `code` (dedented; its arguments in `sys.argv[1:]`) in a fresh interpreter in which the modules
    named in `without` cannot be imported (an import of one raises ImportError), and returns the JSON value of
    the last line it prints (`stdin`: what it reads on standard input, for inputs too long for argv). A child
    that fails fails the test with the end of its standard error."""
    blocked = "".join(f"sys.modules[{name!r}] = None\n" for name in without)
    program = f"import sys\n{blocked}" + textwrap.dedent(code)
    proc = subprocess.run(
        [sys.executable, "-c", program, *map(str, args)],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
    )
    assert proc.returncode == 0, f"the child interpreter failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}"
    lines = proc.stdout.strip().splitlines()
    assert lines, f"the child interpreter printed nothing; its standard error:\n{proc.stderr[-3000:]}"
    return json.loads(lines[-1])
