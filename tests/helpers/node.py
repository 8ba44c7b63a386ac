"""Node with @tensorflow/tfjs for the TF.js tests: npm-installed once into a cache folder, reused between runs."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess

import pytest

TFJS_VERSION = "4.22.0"


def tfjs_node_modules() -> pathlib.Path:
    """A folder with @tensorflow/tfjs installed (`TF_WORDPIECE_NPM_CACHE`, default ~/.cache/tf_wordpiece/npm).

    Skips the test where node or npm is missing. A script that imports "@tensorflow/tfjs" must run from this
    folder (Node resolves packages from the script's folder): copy it there first.
    """
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("node and npm are needed for the TF.js check")
    folder = pathlib.Path(os.environ.get("TF_WORDPIECE_NPM_CACHE", pathlib.Path.home() / ".cache/tf_wordpiece/npm"))
    package = folder / "node_modules/@tensorflow/tfjs/package.json"
    if not package.exists() or json.loads(package.read_text())["version"] != TFJS_VERSION:
        folder.mkdir(parents=True, exist_ok=True)
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
    return folder
