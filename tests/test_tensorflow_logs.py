"""The commands' standard error carries their own lines only, whatever TF_CPP_MIN_LOG_LEVEL says, unless the user
asks for TensorFlow's (TF_WORDPIECE_TF_LOGS=1); the README's tip for Python users does what it says.

Each case starts a fresh interpreter: TensorFlow prints these lines once per process, while it loads.
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import re
import subprocess
import sys

import pytest

from helpers.data import VOCAB
from tf_wordpiece.console import TF_LOGS

REPO = pathlib.Path(__file__).parent.parent
# absl's warning before its first line, then its lines: "I0000 00:00:1796522625.140212    6344 port.cc:153] ..."
TF_LINE = re.compile(
    r"^(WARNING: All log messages before absl::InitializeLog|[IWEF]\d{4} [\d:.]+ +\d+ [\w.]+:\d+\])", re.MULTILINE
)


def run(argv: list[str], cwd: pathlib.Path, level: str | None, **env: str) -> subprocess.CompletedProcess:
    """`python argv...` with TF_CPP_MIN_LOG_LEVEL unset or set to `level`, and no TensorFlow settings but `env`."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(("TF_CPP_", "TF_ENABLE_ONEDNN", TF_LOGS))}
    base |= {"PYTHONPATH": str(REPO)} | env | ({"TF_CPP_MIN_LOG_LEVEL": level} if level is not None else {})
    return subprocess.run(
        [sys.executable, *argv], capture_output=True, text=True, timeout=180, env=base, cwd=cwd, check=False
    )


@pytest.mark.parametrize("level", [None, "2", pytest.param("3", marks=pytest.mark.slow)])
def test_tokenize_prints_no_tensorflow_line(tmp_path, level):
    result = run(["-m", "tf_wordpiece.cli", "tokenize", "--vocab", str(VOCAB), "hello!"], tmp_path, level)
    assert result.returncode == 0 and "hello" in result.stdout
    assert result.stderr == ""


def test_learn_shows_its_own_lines_only(tmp_path):
    (tmp_path / "text.txt").write_text("hello world\n" * 20, encoding="utf-8")
    argv = ["-m", "tf_wordpiece.cli", "learn", "--input", "text.txt", "--out", "vocab.txt", "--lower-thresh", "1"]
    result = run(argv, tmp_path, "2")
    assert result.returncode == 0 and "learned" in result.stdout
    assert result.stderr.startswith("loading TensorFlow\n")  # a line while it loads, then the progress bars
    assert "counting words" in result.stderr and not TF_LINE.search(result.stderr), result.stderr


@pytest.mark.slow
def test_export_error_is_the_only_line(tmp_path):
    # A real error of ours, raised once TensorFlow is loaded, still prints: alone.
    (tmp_path / "three.tsv").write_text("a\tb\nc\td\te\n", encoding="utf-8")
    result = run(["-m", "tf_wordpiece.cli", "export", "--input", "three.tsv", "--out", "m"], tmp_path, "3")
    assert result.returncode == 2
    assert result.stderr.startswith("loading TensorFlow\n") and not TF_LINE.search(result.stderr), result.stderr
    assert result.stderr.count("tf-wordpiece") == 1 and result.stderr.splitlines()[-1] == (  # after export's
        "tf-wordpiece export: --input: three.tsv: line 2 has 3 tab-separated fields, expected 2 (pt<TAB>en)"
    )  # progress lines (loading, reading), the error


def test_beam_module_starts_quietly(tmp_path):
    pytest.importorskip("apache_beam")
    argv = ["-m", "tf_wordpiece.learning.beam", "--input", "none-*.txt", "--out", "v.txt"]
    result = run(argv, tmp_path, "2")
    assert result.returncode == 2  # Beam and TensorFlow loaded: the pipeline would have started next
    assert result.stderr == (
        "loading TensorFlow and Apache Beam\n"
        "python -m tf_wordpiece.learning.beam: --input: no files match 'none-*.txt'; check the path or the glob\n"
    )


def test_tensorflow_lines_on_request(tmp_path):
    result = run(
        ["-m", "tf_wordpiece.cli", "tokenize", "--vocab", str(VOCAB), "hello!"], tmp_path, "0", **{TF_LOGS: "1"}
    )
    assert result.returncode == 0 and "hello" in result.stdout
    assert TF_LINE.search(result.stderr), result.stderr


def test_readme_tip_quiets_tensorflow_in_python(tmp_path):
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    tips = [block for block in re.findall(r"```python\n(.*?)```", readme, re.DOTALL) if "os.dup2" in block]
    assert len(tips) == 1, "the README's tip for quieting TensorFlow in Python is gone"
    result = run(["-c", tips[0] + "print((tf.constant(1) + 1).numpy())"], tmp_path, "2")
    assert result.returncode == 0 and result.stdout == "2\n"
    assert result.stderr == ""


def test_what_is_held_back_shows_when_the_block_fails(capfd):
    from tf_wordpiece.console import _stderr_held_back

    with _stderr_held_back():
        os.write(2, b"noise while loading\n")
    with pytest.raises(ImportError), _stderr_held_back():
        os.write(2, b"why the import failed\n")
        raise ImportError("a broken install")
    assert capfd.readouterr().err == "why the import failed\n"


@pytest.mark.parametrize(
    "wanted, fails, shown",
    [
        ("", False, ""),  # the examples' TFLite interpreter: its XNNPACK INFO line hidden
        ("0", False, ""),
        ("1", False, "INFO: Created TensorFlow Lite XNNPACK delegate for CPU.\n"),  # asked for: shown
        ("", True, "INFO: Created TensorFlow Lite XNNPACK delegate for CPU.\n"),  # the block failed: shown
    ],
)
def test_runtime_lines_hidden_unless_wanted_or_failing(capfd, monkeypatch, wanted, fails, shown):
    from tf_wordpiece.console import runtime_lines_hidden

    monkeypatch.setenv(TF_LOGS, wanted)
    with pytest.raises(RuntimeError) if fails else contextlib.nullcontext(), runtime_lines_hidden():
        os.write(2, b"INFO: Created TensorFlow Lite XNNPACK delegate for CPU.\n")  # as native code writes it
        if fails:
            raise RuntimeError("the model did not load")
    assert capfd.readouterr().err == shown


@pytest.mark.parametrize(
    "argv",
    [
        ["examples/classifier/classifier.py", "--help"],
        ["examples/data_service/tokenize_on_service.py", "--help"],
        ["examples/translate/train_translator.py", "--help"],
        [
            "-c",
            "import sys; sys.path.insert(0, 'examples/data_service'); import tf_data_server; "
            "tf = tf_data_server.import_tensorflow_quietly(); print(tf.constant(1).numpy())",
        ],
    ],
    ids=["classifier", "tokenize_on_service", "train_translator", "tf_data_server"],
)
@pytest.mark.slow  # four fresh interpreters that load TensorFlow (and keras-hub): two minutes on 2 cores
def test_examples_hide_tensorflow_lines_as_the_command_line_does(argv):
    """Each example imports TensorFlow as the commands do: no absl, oneDNN or cuInit line reads like its error."""
    result = run(argv, REPO, None)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip(), "the example printed nothing"
    assert not TF_LINE.search(result.stderr) and "oneDNN" not in result.stderr, result.stderr
    if "--help" in argv:  # as the command line's: every option says what happens when it is left out
        options = result.stdout.split("\noptions:\n", 1)[1]
        entries = [" ".join(e.split()) for e in re.split(r"\n(?=  -)", options) if not e.lstrip().startswith("-h,")]
        silent = [e for e in entries if "default: " not in e and not e.endswith("(required)")]
        assert entries and not silent, silent
