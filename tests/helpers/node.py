"""TF.js in Node for the tests: @tensorflow/tfjs (pure JavaScript) installed once with npm into a cache folder,
and `examples/tfjs/tokenize.mjs` run on a graph model.

The cache folder is `TF_WORDPIECE_NPM_CACHE` (default ~/.cache/tf_wordpiece/npm); docs/deployment.md says so.
"""

from __future__ import annotations

import fcntl
import json
import os
import pathlib
import shutil
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
# The version the examples pin (examples/package.json, what `npm install --prefix examples` installs).
TFJS_VERSION = json.loads((REPO / "examples/package.json").read_text(encoding="utf-8"))["dependencies"][
    "@tensorflow/tfjs"
]


def node_modules() -> pathlib.Path:
    """A folder with @tensorflow/tfjs installed (npm install, once; cached between runs); skips without node."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("node and npm are needed for the TF.js check")
    folder = pathlib.Path(os.environ.get("TF_WORDPIECE_NPM_CACHE", pathlib.Path.home() / ".cache/tf_wordpiece/npm"))
    package = folder / "node_modules/@tensorflow/tfjs/package.json"
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / ".install.lock", "a") as lock:  # pytest-xdist workers: one npm install at a time
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not package.exists() or json.loads(package.read_text())["version"] != TFJS_VERSION:
            _npm_install(folder)
    return folder


def _npm_install(folder: pathlib.Path) -> None:
    subprocess.run(
        [
            "npm",
            "install",
            "--prefix",
            str(folder),
            "--no-audit",
            "--no-fund",
            "--silent",
            f"@tensorflow/tfjs@{TFJS_VERSION}",
        ],
        check=True,
        timeout=600,
    )


def run_tokenize_mjs(modules: pathlib.Path, model_dir: pathlib.Path, strings: list[str]) -> tuple[list[dict], str]:
    """`node tokenize.mjs MODEL_DIR --json` on `strings`: one {token_ids, starts, ends} a string, and its stderr."""
    # Node resolves `import "@tensorflow/tfjs"` from the script's folder: run a copy beside node_modules.
    script = modules / f"tokenize-{os.getpid()}.mjs"
    shutil.copy(REPO / "examples/tfjs/tokenize.mjs", script)
    try:
        proc = subprocess.run(
            ["node", str(script), str(model_dir), "--json"],
            input=json.dumps(strings),
            capture_output=True,
            text=True,
            timeout=600,
        )
    finally:
        script.unlink()
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.splitlines()[-1]), proc.stderr
