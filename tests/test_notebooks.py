"""Every notebook in notebooks/ runs from top to bottom, and is committed without outputs.

Each one runs in a fresh kernel on this interpreter (a kernelspec written for
the test, so a user's own "python3" kernel is never picked up), importing this
checkout's tf_wordpiece, in a temporary working directory (the notebooks write
vocabularies, a SavedModel and a zip there), with matplotlib on Agg and a
per-cell timeout. A failing cell fails the test and names the cell.
"""

from __future__ import annotations

import json
import os
import pathlib
import signal

import pytest

nbformat = pytest.importorskip("nbformat", reason="the notebooks extra: pip install -e '.[notebooks]'")
nbclient = pytest.importorskip("nbclient", reason="the notebooks extra: pip install -e '.[notebooks]'")
kernelspec = pytest.importorskip("ipykernel.kernelspec", reason="the notebooks extra: pip install -e '.[notebooks]'")

ROOT = pathlib.Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
KERNEL_NAME = "tf-wordpiece-tests"
CELL_TIMEOUT_S = 300


def test_there_are_notebooks():
    names = {path.name for path in NOTEBOOKS}
    assert {"subwords_tokenizer.ipynb", "fast_wordpiece.ipynb", "vocabulary_size.ipynb"} <= names, names


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.stem)
def test_committed_without_outputs(path):
    notebook = json.loads(path.read_text(encoding="utf-8"))
    dirty = [
        index
        for index, cell in enumerate(notebook["cells"])
        if cell.get("outputs") or cell.get("execution_count") is not None
    ]
    assert not dirty, (
        f"{path.name}: cells {dirty} have outputs; clear them before committing (Kernel > Restart & Clear Output)"
    )


@pytest.fixture(scope="module")
def kernel_environment(tmp_path_factory):
    """A kernelspec for sys.executable, and the environment the kernel inherits."""
    jupyter_path = tmp_path_factory.mktemp("jupyter")
    kernelspec.write_kernel_spec(jupyter_path / "kernels" / KERNEL_NAME)
    environment = {
        "JUPYTER_PATH": str(jupyter_path),  # searched before the user's and the system's kernels
        "MPLBACKEND": "Agg",
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
        "TF_CPP_MIN_LOG_LEVEL": "2",
        "IPYTHONDIR": str(tmp_path_factory.mktemp("ipython")),  # not the user's ~/.ipython
        "TMPDIR": str(tmp_path_factory.mktemp("kernel-tmp")),  # tfds leaves a tmp*tfds folder behind
    }
    saved = {name: os.environ.get(name) for name in environment}
    os.environ.update(environment)
    yield
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.stem)
def test_notebook_runs(path, tmp_path, kernel_environment):
    notebook = nbformat.read(path, as_version=4)
    repository_files = sorted((ROOT / "notebooks").iterdir())
    client = nbclient.NotebookClient(
        notebook, kernel_name=KERNEL_NAME, timeout=CELL_TIMEOUT_S, resources={"metadata": {"path": str(tmp_path)}}
    )
    ctrl_c = signal.getsignal(signal.SIGINT)
    try:
        client.execute()
    except nbclient.exceptions.CellExecutionError as error:
        pytest.fail(f"{path.name}: a cell failed:\n{error}", pytrace=False)
    finally:
        signal.signal(signal.SIGINT, ctrl_c)  # the kernel client installs its own SIGINT handler and leaves it
    skipped = [cell for cell in notebook.cells if cell.cell_type == "code" and cell.execution_count is None]
    assert not skipped, f"{path.name}: {len(skipped)} code cells did not run"
    assert sorted((ROOT / "notebooks").iterdir()) == repository_files, f"{path.name} wrote into notebooks/"
