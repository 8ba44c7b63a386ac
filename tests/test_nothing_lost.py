"""Nothing lost: interrupted exports and vocabulary learning never leave a partial file or model at the
destination and never damage an existing one; saving and reloading keeps every token.

The kill tests start `tf-wordpiece learn` / `tf-wordpiece export` in a subprocess and send SIGINT or SIGKILL at
random (seeded) times. After SIGINT nothing else is left; after SIGKILL a hidden `.NAME.*` temporary sibling may be.
"""

from __future__ import annotations

import hashlib
import os
import pathlib
import random
import signal
import subprocess
import sys
import time
from typing import NamedTuple

import pytest
import tensorflow as tf

import tf_wordpiece as twp
from helpers.learner_cases import corpus
from tf_wordpiece import console, files
from tf_wordpiece.export import converter
from tf_wordpiece.export.layout import ExportLayout
from tf_wordpiece.export.module import CustomTokenizer
from tf_wordpiece.vocab import read_vocab_file, write_vocab_file

REPO = pathlib.Path(__file__).parent.parent
# Under pytest-xdist these run alone (tests/helpers/serial.py): another worker's test on the same two cores
# would move the moment the signal lands and the time the child takes to end, which they assert on.
KILLED_AT_A_TIMED_MOMENT = pytest.mark.serial("sends a signal at a timed moment and asserts how fast the child ends")


@pytest.fixture(autouse=True)
def ctrl_c_as_a_shell_delivers_it():
    """Python's own SIGINT handler here and so in each child started here, whatever ran before in this process.

    An ignored SIGINT is inherited across exec: a child started while it is ignored never sees Ctrl-C (it runs
    to the end and exits 0), which these tests would misread as the command's fault.
    """
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


# Tokens that line-based and JSON formats could lose: spaces, tabs, a leading ##, non-BMP characters,
# empty-looking Unicode (zero-width space, BOM, no-break space, a combining mark alone, the empty string).
ODD_TOKENS = [
    "[PAD]",
    "[UNK]",
    "[START]",
    "[END]",
    "[CLS]",
    "[SEP]",
    "hello",
    "##lo",
    "##",
    "####",
    "x y",
    " ",
    "  lead",
    "trail ",
    "\t",
    "a\tb",
    "a\rb",
    "😀",
    "##😀",
    "𝔘𝔫𝔦",
    "\U0010fffd",
    "\u200b",
    "##\u200b",
    "\ufeff",
    "\u00a0",
    "\u0301",
    "\u3000",
    "\x00",
    "",
]


def seeded(*case) -> random.Random:
    """The kill time's random source: fixed per test case, so a failure reproduces."""
    return random.Random(repr(case))


def tree(path: pathlib.Path) -> dict[str, str]:
    """Every file under `path` (or the file itself) -> its SHA-256."""
    found = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
    return {str(p.relative_to(path.parent)): hashlib.sha256(p.read_bytes()).hexdigest() for p in found}


class Interrupted(NamedTuple):
    code: int  # the exit code (negative: killed by that signal)
    stderr: str
    seconds_after_signal: float | None  # None: the command finished before the signal


def run_and_interrupt(
    args: list[str], cwd: pathlib.Path, how: signal.Signals, *, after: float, ready: str = ""
) -> Interrupted:
    """Runs `python -m tf_wordpiece.cli ARGS`; `after` seconds past the first `ready` line on stderr, sends `how`."""
    log = cwd / f"stderr-{how.name}.log"
    env = dict(os.environ, PYTHONPATH=str(REPO), TF_CPP_MIN_LOG_LEVEL="2")
    with open(log, "wb") as stderr:
        child = subprocess.Popen(
            [sys.executable, "-m", "tf_wordpiece.cli", *args],
            cwd=cwd,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
    try:
        deadline = time.monotonic() + 300
        while ready and ready.encode() not in log.read_bytes() and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        sent = None
        try:
            child.wait(timeout=after)
        except subprocess.TimeoutExpired:
            child.send_signal(how)
            sent = time.monotonic()
        code = child.wait(timeout=300)
        return Interrupted(
            code, log.read_text(encoding="utf-8", errors="replace"), None if sent is None else time.monotonic() - sent
        )
    finally:
        if child.poll() is None:
            child.kill()
        log.unlink()


def assert_ended_cleanly_by_ctrl_c(run: Interrupted) -> None:
    """Exit 130 within a few seconds, one line saying what was kept, and no traceback."""
    assert run.code == 130, run.stderr[-2000:]
    assert run.seconds_after_signal < 15, run.seconds_after_signal
    assert "interrupted; " in run.stderr and "Traceback" not in run.stderr, run.stderr[-2000:]


def hidden(folder: pathlib.Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


@pytest.fixture(scope="module")
def learn_corpus(tmp_path_factory) -> pathlib.Path:
    """About 60,000 English lines: counting them takes several seconds, so Ctrl-C lands in the tf.data pipeline."""
    path = tmp_path_factory.mktemp("corpus") / "en.txt"
    lines = corpus("en")[:3000]
    path.write_text("".join(f"{line} {copy}\n" for copy in range(20) for line in lines), encoding="utf-8")
    return path


@pytest.mark.slow
@KILLED_AT_A_TIMED_MOMENT
@pytest.mark.parametrize(
    "how, existing",
    [(signal.SIGINT, True), (signal.SIGKILL, True), (signal.SIGKILL, False)],
    ids=["SIGINT-over-old", "SIGKILL-over-old", "SIGKILL-new"],
)
def test_interrupted_learn_leaves_the_old_vocabulary_or_the_new_one(learn_corpus, tmp_path, how, existing):
    out = tmp_path / "vocab.txt"
    old = "[PAD]\n[UNK]\nd\nl\no\nold\n##d\n"  # a vocabulary as the learner writes it (what --overwrite replaces)
    if existing:
        out.write_text(old, encoding="utf-8")
    args = [
        "learn",
        "--input",
        str(learn_corpus),
        "--out",
        out.name,
        "--vocab-size",
        "900",
        "--lower-case",
        "--overwrite",
    ]
    run = run_and_interrupt(args, tmp_path, how, after=seeded(how, existing).uniform(0.0, 8.0), ready="counting")
    if out.exists() and out.read_text(encoding="utf-8") != old:  # the run finished first: the whole new vocabulary
        assert run.code == 0 or run.code == -how
        vocab = read_vocab_file(out)
        assert vocab[:4] == ["[PAD]", "[UNK]", "[START]", "[END]"] and len(vocab) > 500
    else:
        assert run.code != 0
        assert out.exists() == existing
    leftovers = hidden(tmp_path)
    if how == signal.SIGINT:
        assert leftovers == []
        if run.seconds_after_signal is not None:
            assert_ended_cleanly_by_ctrl_c(run)
    else:
        assert all(name.startswith(".vocab.txt.") and name.endswith(".tmp") for name in leftovers), leftovers


@pytest.mark.slow
@KILLED_AT_A_TIMED_MOMENT
@pytest.mark.parametrize("after", [0.5, 2.0, 4.0, 7.0])
def test_ctrl_c_ends_learn_at_once_at_any_point(learn_corpus, tmp_path, after):
    """Ctrl-C while the words are counted (a tf.data pipeline, which could hang at exit) or while learning."""
    args = ["learn", "--input", str(learn_corpus), "--out", "vocab.txt", "--vocab-size", "900", "--lower-case"]
    run = run_and_interrupt(args, tmp_path, signal.SIGINT, after=after, ready="counting")
    if (tmp_path / "vocab.txt").exists():  # finished first; a signal landing while Python exits is ignored
        assert run.code == 0 and len(read_vocab_file(tmp_path / "vocab.txt")) > 500
        return
    assert_ended_cleanly_by_ctrl_c(run)
    assert "interrupted; nothing written" in run.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == []


@pytest.fixture(scope="module")
def pairs_file(tmp_path_factory) -> pathlib.Path:
    path = tmp_path_factory.mktemp("pairs") / "pairs.tsv"
    path.write_text("".join(f"{pt}\t{en}\n" for pt, en in converter.embedded_pairs()[:400]), encoding="utf-8")
    return path


class Tiny(tf.Module):
    @tf.function(input_signature=[])
    def answer(self):
        return tf.constant(42)


@pytest.mark.slow
@KILLED_AT_A_TIMED_MOMENT
@pytest.mark.parametrize(
    "how, existing", [(signal.SIGINT, False), (signal.SIGKILL, True)], ids=["SIGINT-new", "SIGKILL-over-old"]
)
def test_interrupted_export_leaves_the_old_model_or_none(pairs_file, tmp_path, how, existing):
    out = tmp_path / "converter"
    if existing:
        converter.save_atomically(Tiny(), str(out))
    before = tree(out) if existing else None
    args = ["export", "--input", str(pairs_file), "--out", out.name, "--vocab-size", "400", "--overwrite"]
    # Saving takes most of the run: interrupt it at a random point after the vocabularies are learned.
    run = run_and_interrupt(
        args, tmp_path, how, after=seeded(how, existing).uniform(0.0, 20.0), ready="learning vocabularies: 100%"
    )
    code = run.code
    # The zip is written after the model is in place: where it exists, the export finished and the signal (if
    # any) landed while Python was exiting (a SIGKILL then still reads -9). Either way: the complete new model.
    if code == 0 or (tmp_path / "converter.zip").exists():
        assert tf.saved_model.load(str(out)).en.tokenize(tf.constant(["Hello"])).shape[0] == 1
        return
    if how == signal.SIGINT and run.seconds_after_signal is not None:
        assert_ended_cleanly_by_ctrl_c(run)
    if existing:
        assert tree(out) == before
        assert int(tf.saved_model.load(str(out)).answer()) == 42
    else:
        assert not out.exists()
    if how == signal.SIGINT:
        assert hidden(tmp_path) == []
    else:
        assert all(name.startswith(".converter.") for name in hidden(tmp_path))


@pytest.mark.slow
@KILLED_AT_A_TIMED_MOMENT
@pytest.mark.parametrize(
    "ready, after",
    [("", 2.0), ("learning vocabularies", 1.0), ("saving", 1.0)],
    ids=["importing", "learning", "saving"],
)
def test_ctrl_c_ends_export_at_once_at_any_point(pairs_file, tmp_path, ready, after):
    args = ["export", "--input", str(pairs_file), "--out", "converter", "--vocab-size", "400"]
    run = run_and_interrupt(args, tmp_path, signal.SIGINT, after=after, ready=ready)
    assert_ended_cleanly_by_ctrl_c(run)
    assert "interrupted; nothing written" in run.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_ctrl_c_inside_a_native_modules_initialization_stays_ctrl_c():
    """pybind11 turns a KeyboardInterrupt raised while a module initializes (a Ctrl-C while TensorFlow loads)
    into `ImportError: initialization failed`: TensorFlow's import still ends as an interrupt, also where that
    ImportError is caught on the way. An ImportError without a Ctrl-C stays one, and Python's handler is back
    afterwards."""

    def native_init(ctrl_c: bool):
        try:
            if ctrl_c:
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(5)  # the handler raises during the sleep
        except KeyboardInterrupt:
            pass
        raise ImportError("initialization failed")  # what pybind11 makes of it

    with pytest.raises(KeyboardInterrupt) as caught, console.ctrl_c_stays_ctrl_c():
        native_init(ctrl_c=True)
    assert isinstance(caught.value.__cause__, ImportError)
    with pytest.raises(ImportError), console.ctrl_c_stays_ctrl_c():
        native_init(ctrl_c=False)
    with pytest.raises(KeyboardInterrupt), console.ctrl_c_stays_ctrl_c():
        try:
            native_init(ctrl_c=True)
        except ImportError:
            pass  # an optional module, as TensorFlow imports some: the Ctrl-C must not be lost with it
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_ctrl_c_that_tracing_turns_into_another_error_ends_the_command_as_ctrl_c(monkeypatch, capsys):
    """A Ctrl-C while autograph converts a function came out as `AssertionError: Concurrent access?` (its stack
    mapper's exit check fails as the interrupt unwinds through it): the CI flake of
    test_ctrl_c_ends_export_at_once_at_any_point[saving]. `run_command` ends such a run as interrupted, also with
    TensorFlow's import guard nested inside; an error with no Ctrl-C behind it stays that error."""
    exits = []
    monkeypatch.setattr(console.os, "_exit", lambda code: exits.append(code))

    def tracing(ctrl_c: bool) -> int:
        with console.ctrl_c_stays_ctrl_c():  # TensorFlow's import, guarded inside the command's guard
            pass
        try:
            if ctrl_c:
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(5)
        finally:
            raise AssertionError("Concurrent access?")  # what the stack mapper's __exit__ raises instead

    console.run_command("tf-wordpiece export", lambda: tracing(ctrl_c=True), kept=[])
    assert exits == [console.INTERRUPTED]
    assert "interrupted; nothing written" in capsys.readouterr().err
    with pytest.raises(AssertionError, match="Concurrent access"):
        console.run_command("tf-wordpiece export", lambda: tracing(ctrl_c=False), kept=[])
    assert exits == [console.INTERRUPTED]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_nested_ctrl_c_guard_still_ends_its_block_at_once():
    """The command's guard around TensorFlow's: a Ctrl-C swallowed inside the inner block (an optional module
    imported under `except ImportError`) ends the inner block, not only the command much later."""
    after_inner = []
    with pytest.raises(KeyboardInterrupt), console.ctrl_c_stays_ctrl_c():
        with console.ctrl_c_stays_ctrl_c():
            try:
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(5)
            except KeyboardInterrupt:
                pass
        after_inner.append("went on")
    assert after_inner == []
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_ctrl_c_while_writing_a_vocabulary_keeps_the_old_one(tmp_path, monkeypatch):
    out = tmp_path / "vocab.txt"
    write_vocab_file(out, ["[UNK]", "old"])

    def interrupted(fd):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "fsync", interrupted)  # Ctrl-C with the new file written but not yet renamed
    with pytest.raises(KeyboardInterrupt):
        write_vocab_file(out, ["[UNK]", "new"])
    assert read_vocab_file(out) == ["[UNK]", "old"] and hidden(tmp_path) == []


def test_ctrl_c_during_the_swap_is_held_until_the_new_model_is_in_place(tmp_path, monkeypatch):
    out = tmp_path / "model"
    converter.save_atomically(Tiny(), str(out))
    rename = pathlib.Path.rename

    def rename_after_ctrl_c(self, target):
        os.kill(os.getpid(), signal.SIGINT)  # arrives between the two renames of the swap
        return rename(self, target)

    monkeypatch.setattr(pathlib.Path, "rename", rename_after_ctrl_c)
    replacement = Tiny()
    replacement.marker = tf.Variable(7)
    with pytest.raises(KeyboardInterrupt):
        converter.save_atomically(replacement, str(out), overwrite=True)
    monkeypatch.undo()
    assert int(tf.saved_model.load(str(out)).marker.numpy()) == 7 and hidden(tmp_path) == []


def test_ctrl_c_while_saving_a_model_keeps_the_old_one(tmp_path, monkeypatch):
    out = tmp_path / "model"
    converter.save_atomically(Tiny(), str(out))
    before = tree(out)
    save = tf.saved_model.save

    def save_then_ctrl_c(*args, **kwargs):
        save(*args, **kwargs)
        raise KeyboardInterrupt

    monkeypatch.setattr(tf.saved_model, "save", save_then_ctrl_c)
    with pytest.raises(KeyboardInterrupt):
        converter.save_atomically(Tiny(), str(out), overwrite=True)
    assert tree(out) == before and hidden(tmp_path) == []


def test_what_appears_at_an_output_while_the_work_runs_is_kept(tmp_path):
    """A writer told that nothing was there to replace (the check before the work) keeps what a user put there since."""
    folder, data, archive = tmp_path / "model", tmp_path / "tok.tflite", tmp_path / "model.zip"

    def users_folder_appears(staged: pathlib.Path) -> None:
        staged.mkdir()
        folder.mkdir()
        (folder / "mine.txt").write_text("keep me")

    with pytest.raises(FileExistsError, match="appeared while tf-wordpiece was writing it"):
        files.write_folder_atomically(folder, users_folder_appears, replace=False)
    assert [p.name for p in folder.iterdir()] == ["mine.txt"] and hidden(tmp_path) == []
    data.write_bytes(b"the user's")
    with pytest.raises(FileExistsError):
        files.write_bytes_atomically(data, b"ours", replace=False)
    archive.write_bytes(b"the user's")
    with pytest.raises(FileExistsError):
        files.zip_atomically(folder, archive, replace=False)
    assert data.read_bytes() == archive.read_bytes() == b"the user's" and hidden(tmp_path) == []


def test_ctrl_c_while_writing_the_conversions_keeps_the_old_ones(tmp_path, monkeypatch):
    kept: list[str] = []
    layout = ExportLayout.checked(
        tmp_path / "model", make_zip=False, tflite=tmp_path / "tok.tflite", tfjs=tmp_path / "js", written=kept
    )

    def tfjs_model(folder: pathlib.Path, language: str) -> None:  # what save_tfjs writes
        folder.mkdir()
        (folder / "model.json").write_text(f'{{"convertedBy": "tf_wordpiece", "language": "{language}"}}')
        (folder / "group1-shard1of1.bin").write_bytes(b"\0")

    layout.write_tfjs(tfjs_model)
    layout.write_tflite(b"\x1c\0\0\0TFL3 old pt_tokenize_bytes en_tokenize_bytes")
    assert kept == [str(tmp_path / "js"), str(tmp_path / "tok.tflite")]  # what the command line reports if stopped
    before = {**tree(tmp_path / "js"), **tree(tmp_path / "tok.tflite")}
    layout = ExportLayout.checked(
        tmp_path / "model", make_zip=False, tflite=tmp_path / "tok.tflite", tfjs=tmp_path / "js", overwrite=True
    )

    def interrupted_after_pt(folder: pathlib.Path, language: str) -> None:
        if language == "en":
            raise KeyboardInterrupt
        tfjs_model(folder, language)

    with pytest.raises(KeyboardInterrupt):
        layout.write_tfjs(interrupted_after_pt)

    def interrupted(fd):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "fsync", interrupted)  # Ctrl-C with the new file written but not yet renamed
    with pytest.raises(KeyboardInterrupt):
        layout.write_tflite(b"new")
    assert {**tree(tmp_path / "js"), **tree(tmp_path / "tok.tflite")} == before and hidden(tmp_path) == []


def test_interrupts_deferred_outside_the_main_thread_does_nothing():
    import threading

    ran = []
    thread = threading.Thread(target=lambda: ran.append(files.interrupts_deferred().__enter__() is None))
    thread.start()
    thread.join()
    assert ran == [True]


def test_vocab_txt_round_trip_keeps_every_token(tmp_path):
    path = tmp_path / "vocab.txt"
    write_vocab_file(path, ODD_TOKENS)
    assert read_vocab_file(path) == ODD_TOKENS
    assert twp.BertTokenizer(str(path)).vocab.tokens == ODD_TOKENS


@pytest.mark.parametrize(
    "tokens, message",
    [
        (["[UNK]", "a\nb"], "line break"),
        (["[UNK]", "ends\r"], "line break"),
        (["\ufeff", "[UNK]"], "byte order"),
    ],
)
def test_tokens_a_vocab_txt_cannot_hold_are_a_clear_error(tmp_path, tokens, message):
    path = tmp_path / "vocab.txt"
    with pytest.raises(ValueError, match=message):
        write_vocab_file(path, tokens)
    assert not path.exists() and hidden(tmp_path) == []


def test_tokenizer_json_round_trip_keeps_every_token(tmp_path):
    tokens = ODD_TOKENS + ["a\nb", "ends\r"]  # JSON holds line breaks too
    ours = twp.BertTokenizer(tokens, compat="hf", lower_case=True)
    path = tmp_path / "tokenizer.json"
    ours.save(path)
    reloaded = twp.BertTokenizer.from_tokenizer_json(path)
    assert reloaded.vocab.tokens == tokens
    from tokenizers import Tokenizer

    assert Tokenizer.from_file(str(path)).get_vocab() == {t: i for i, t in enumerate(tokens)}
    sample = ["hello ##lo 😀 𝔘𝔫𝔦 \u0301 x y", "hellolo\u200b"]
    assert reloaded.tokenize(sample).to_list() == ours.tokenize(sample).to_list()


def test_saved_tokenizer_json_is_a_normal_file_and_ctrl_c_keeps_the_old_one(tmp_path, monkeypatch):
    path = tmp_path / "tokenizer.json"
    twp.BertTokenizer(["[UNK]", "old"], compat="hf").save(path)
    umask = os.umask(0)
    os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask  # not the private mode of a temporary file
    before = path.read_bytes()

    def interrupted(fd):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        twp.BertTokenizer(["[UNK]", "new"], compat="hf").save(path)
    assert path.read_bytes() == before and hidden(tmp_path) == []


@pytest.mark.parametrize("given", ["file", "list"])
def test_saved_model_keeps_every_token(tmp_path, given):
    vocab = tmp_path / "vocab.txt"
    reserved = ["[PAD]", "[UNK]", "[START]", "[END]"]
    if given == "file":
        write_vocab_file(vocab, ODD_TOKENS)
        module = CustomTokenizer(reserved, str(vocab), parallel_shards=1)
    else:  # the asset is written from the list (as the converter's are), the tokens are never read back
        module = CustomTokenizer(reserved, ODD_TOKENS, vocab_file=vocab, parallel_shards=1)
    out = tmp_path / "model"
    converter.save_atomically(module, str(out))
    loaded = tf.saved_model.load(str(out))
    every_id = tf.range(len(ODD_TOKENS), dtype=tf.int64)[None]
    assert [t.decode("utf-8") for t in loaded.lookup(every_id).numpy()[0]] == ODD_TOKENS
    assert read_vocab_file(loaded.get_vocab_path().numpy().decode()) == ODD_TOKENS  # the asset file
    sample = tf.constant(["hello hellolo 😀 𝔘𝔫𝔦 \u0301 x y", "\u200b"])
    assert loaded.tokenize(sample).to_list() == module.tokenize(sample).to_list()
