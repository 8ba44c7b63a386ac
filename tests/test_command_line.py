"""The command line never destroys a user's files, explains every refusal in its own option names, and answers
--help without loading TensorFlow.

Each data-loss case puts a user's files beside (or at) the output, runs the command with --overwrite, and checks
that every byte survives and that the refusal came before any work.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import os
import pathlib
import re
import subprocess
import sys
import warnings
import zipfile

import pytest
import tomllib

from helpers.data import TOKENIZER_JSON, VOCAB
from tf_wordpiece import cli

REPO = pathlib.Path(__file__).parent.parent
PROSE = "A thesis, in prose.\nEvery line of it has spaces in it.\nNo vocabulary looks like this.\n"


def snapshot(folder: pathlib.Path) -> dict[str, str]:
    """Every file and folder under `folder` -> its SHA-256 (folders: "dir")."""
    return {
        str(p.relative_to(folder)): "dir" if p.is_dir() else hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
    }


@pytest.fixture
def user_folder(tmp_path, monkeypatch) -> pathlib.Path:
    """The current folder, holding a user's thesis.txt, notes.txt, a data/ folder and a pairs.tsv corpus."""
    (tmp_path / "thesis.txt").write_text(PROSE, encoding="utf-8")
    (tmp_path / "notes.txt").write_text("hello\n", encoding="utf-8")
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "x.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    (tmp_path / "pairs.tsv").write_text("olá mundo\thello world\n" * 50, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize(
    "out, message",
    [
        (".", "is the current folder or one above it"),
        ("..", "is the current folder or one above it"),
        ("notes.txt", "is a file, not a SavedModel folder"),
        ("data", "is a folder that is not a SavedModel (it holds x.csv)"),
    ],
)
def test_export_refuses_to_replace_what_it_did_not_write(user_folder, capsys, out, message):
    before = snapshot(user_folder.parent) if out == ".." else snapshot(user_folder)
    assert cli.main(["export", "--input", "pairs.tsv", "--out", out, "--overwrite"]) == 2
    err = capsys.readouterr().err
    assert message in err and err.startswith("tf-wordpiece export: --out: ")
    assert "learning vocabularies" not in err  # refused before any work
    assert (snapshot(user_folder.parent) if out == ".." else snapshot(user_folder)) == before


def test_export_refuses_a_zip_it_did_not_write(user_folder, capsys):
    with zipfile.ZipFile(user_folder / "converter.zip", "w") as archive:
        archive.writestr("photos/cat.jpg", b"\xff\xd8 not really")
    before = snapshot(user_folder)
    assert cli.main(["export", "--input", "pairs.tsv", "--out", "converter", "--overwrite"]) == 2
    assert "converter.zip exists and does not look like a zip of converter/" in capsys.readouterr().err
    assert snapshot(user_folder) == before


def test_export_refuses_a_tflite_model_it_did_not_write(user_folder, capsys):
    (user_folder / "theirs.tflite").write_bytes(b"\x1c\x00\x00\x00TFL3" + b"\x00" * 64)  # a TFLite model, not ours
    before = snapshot(user_folder)
    assert cli.main(["export", "--input", "pairs.tsv", "--out", "m", "--tflite", "theirs.tflite", "--overwrite"]) == 2
    assert "--tflite: theirs.tflite exists and does not look like a TFLite model" in capsys.readouterr().err
    assert snapshot(user_folder) == before


@pytest.mark.parametrize(
    "options, message",
    [
        (["--tflite", "notes.txt"], "--tflite: notes.txt exists and does not look like a TFLite model"),
        (["--tflite", "data"], "--tflite: data is a folder; give the path of the TFLite model to write inside it"),
        (["--tflite", "nowhere/m.tflite"], "--tflite: the folder nowhere does not exist"),
        (["--tfjs", "data"], "data is a folder that is not a TF.js model (it holds x.csv)"),
        (["--tfjs", "notes.txt"], "notes.txt is a file, not a TF.js model folder"),
        (["--tfjs", "."], "--tfjs: . is the current folder or one above it"),
        (["--tfjs", "m/js"], "m/js overlap; give each output its own path"),  # inside the SavedModel folder
        (["--tflite", "m.zip"], "and --tflite "),  # where the zip goes
        (["--tflite", "x.tflite", "--core", "string"], "--core: --tflite needs the numeric core's bytes signatures"),
        (["--tfjs", "js", "--tflite", "x.tflite", "--core", "xla"], "--core: --tflite and --tfjs need the numeric"),
    ],
)
def test_export_conversions_are_checked_before_any_work(user_folder, capsys, options, message):
    before = snapshot(user_folder)
    assert cli.main(["export", "--input", "pairs.tsv", "--out", "m", "--overwrite", *options]) == 2
    err = capsys.readouterr().err
    assert message in err and err.startswith("tf-wordpiece export: "), err
    assert "loading TensorFlow" not in err  # refused before any work
    assert snapshot(user_folder) == before


def test_export_fills_an_empty_folder_without_overwrite(user_folder, capsys):
    """An empty folder given as --out or --tfjs was made for the output: it is filled, as --help says."""
    from tf_wordpiece.export.layout import ExportLayout

    (user_folder / "model").mkdir()
    (user_folder / "js").mkdir()
    layout = ExportLayout.checked("model", tfjs="js")
    assert layout.replaces == {(user_folder / "model").resolve(), (user_folder / "js").resolve()}
    (user_folder / "js" / "mine.txt").write_text("not empty any more")
    with pytest.raises(ValueError, match="is a folder that is not a TF.js model"):
        ExportLayout.checked("model", tfjs="js", overwrite=True)
    with pytest.raises(SystemExit):
        cli.main(["export", "--help"])
    assert "an empty folder (filled without --overwrite)" in " ".join(capsys.readouterr().out.split())


@pytest.mark.slow  # a full export with the numeric core, a TFLite conversion and two TF.js models: about a minute
def test_export_fills_an_empty_folder_and_writes_tflite_and_tfjs(user_folder, capsys):
    from tf_wordpiece.export.layout import COMMAND_LINE_NAMES, ExportLayout

    (user_folder / "models").mkdir()  # an empty folder the user made for the model: filled without --overwrite
    argv = ["export", "--input", "pairs.tsv", "--out", "models", "--vocab-size", "60", "--no-zip"]
    assert cli.main(argv + ["--tflite", "tok.tflite", "--tfjs", "js"]) == 0
    out, err = capsys.readouterr()
    assert (user_folder / "models" / "saved_model.pb").is_file()
    assert sorted(p.name for p in (user_folder / "js").iterdir()) == ["en", "pt"]
    assert not [p.name for p in user_folder.iterdir() if p.name.startswith(".")]  # no hidden staging left

    # Every step leaves a line with its time, and the summary quotes the same figures.
    steps = dict(re.findall(r"^([a-zA-Z. ]+): (\d+\.\d) s$", err.replace("\r", "\n"), re.MULTILINE))
    assert {"reading pairs.tsv", "building the tokenizers", "saving models", "converting to TFLite"} <= set(steps)
    assert {"writing the TF.js models", "reloading models"} <= set(steps), err
    summary = re.search(r"built in (\d+\.\d) s, saved in (\d+\.\d) s", out)
    assert summary.groups() == (steps["building the tokenizers"], steps["saving models"]), out
    assert "tflite " + str(user_folder / "tok.tflite") in out and "tfjs " + str(user_folder / "js") in out

    # The TFLite model holds both languages' bytes signatures, in builtin ops, giving the SavedModel's ids.
    import numpy as np
    import tensorflow as tf

    texts = [t.encode() for t in ["olá mundo", "Hello world!", ""]]
    data, lengths = np.frombuffer(b"".join(texts), np.uint8), np.array([len(t) for t in texts], np.int32)
    saved = tf.saved_model.load("models").signatures
    litert = pytest.importorskip("ai_edge_litert.interpreter").Interpreter(model_path="tok.tflite")
    assert sorted(litert.get_signature_list()) == ["en_tokenize_bytes", "pt_tokenize_bytes"]
    for language in ("pt", "en"):
        want = saved[f"{language}_tokenize_bytes"](bytes=tf.constant(data), row_lengths=tf.constant(lengths))
        got = litert.get_signature_runner(f"{language}_tokenize_bytes")(bytes=data, row_lengths=lengths)
        assert {k: v.tolist() for k, v in got.items()} == {k: v.numpy().tolist() for k, v in want.items()}

    # What it wrote is what --overwrite may replace; without it, each is refused.
    for option in ({"tflite": "tok.tflite"}, {"tfjs": "js"}):  # the library's names, the command line's options
        with pytest.raises(FileExistsError, match=rf"^{next(iter(option))}: .* pass overwrite=True"):
            ExportLayout.checked("other", make_zip=False, **option)
        with pytest.raises(FileExistsError, match=rf"^--{next(iter(option))}: .* pass --overwrite"):
            ExportLayout.checked("other", make_zip=False, names=COMMAND_LINE_NAMES, **option)
    layout = ExportLayout.checked("models", make_zip=False, tflite="tok.tflite", tfjs="js", overwrite=True)
    here = user_folder.resolve()
    assert layout.replaces == {here / "models", here / "tok.tflite", here / "js"}

    # TF.js: each language's model runs in Node as examples/tfjs/tokenize.mjs runs it, without TF.js's banner.
    from helpers.node import node_modules, run_tokenize_mjs

    rows, stderr = run_tokenize_mjs(node_modules(), user_folder / "js" / "en", ["Hello world!"])
    want = saved["en_tokenize_bytes"](bytes=tf.constant(list(texts[1]), tf.uint8), row_lengths=tf.constant([12]))
    assert rows[0]["token_ids"] == want["token_ids"].numpy().tolist() and "looks like you are" not in stderr


@pytest.mark.parametrize(
    "out, overwrite, message",
    [
        (
            "data",
            True,
            "--out: data is a folder; give the path of the vocab file to write inside it, such as data/vocab.txt",
        ),
        ("thesis.txt", True, "--out: thesis.txt exists and is not a vocabulary tf-wordpiece learned"),
        ("shopping.txt", True, "--out: shopping.txt exists and is not a vocabulary tf-wordpiece learned"),
        ("notes.txt", False, "--out: notes.txt already exists; pass --overwrite to replace that vocab file"),
        ("nowhere/vocab.txt", False, "--out: the folder nowhere does not exist"),
    ],
)
def test_learn_refuses_before_counting(user_folder, capsys, out, overwrite, message):
    (user_folder / "shopping.txt").write_text("milk\neggs\nbread\n", encoding="utf-8")  # one token a line
    before = snapshot(user_folder)
    assert cli.main(["learn", "--input", "thesis.txt", "--out", out] + ["--overwrite"] * overwrite) == 2
    err = capsys.readouterr().err
    assert message in err and "counting words" not in err
    assert snapshot(user_folder) == before


def test_learn_replaces_only_a_vocabulary_it_learned(user_folder, capsys):
    args = ["learn", "--input", "pairs.tsv", "--lower-thresh", "1", "--vocab-size", "60", "--overwrite"]
    assert cli.main(args + ["--reserved", "[PAD]", "[UNK]"]) == 0  # --out: vocab.txt by default
    first = (user_folder / "vocab.txt").read_text(encoding="utf-8").split("\n")
    assert first[:2] == ["[PAD]", "[UNK]"] and "mundo" in first
    assert cli.main(args + ["--out", "vocab.txt", "--reserved", "[X]"]) == 0  # what it learned: replaced
    assert (user_folder / "vocab.txt").read_text(encoding="utf-8").split("\n")[0] == "[X]"
    # A vocabulary it did not learn, even one token a line, is refused with the reason.
    (user_folder / "vocab.txt").write_text("[PAD]\n[UNK]\nold\n", encoding="utf-8")
    assert cli.main(args + ["--out", "vocab.txt"]) == 2
    assert "vocab.txt exists and is not a vocabulary tf-wordpiece learned" in capsys.readouterr().err
    assert (user_folder / "vocab.txt").read_text(encoding="utf-8") == "[PAD]\n[UNK]\nold\n"


def test_python_writers_refuse_what_they_did_not_write(user_folder, vocab_tokens):
    import tf_wordpiece as twp
    from tf_wordpiece.vocab import write_vocab_file

    before = snapshot(user_folder)
    hf = twp.BertTokenizer.from_tokenizer_json(TOKENIZER_JSON)
    encoder = twp.SubwordTextEncoder.build_from_corpus(["a b"] * 3, 40, verbose=False)
    with pytest.raises(ValueError, match="thesis.txt exists and does not look like a tokenizer.json"):
        hf.save("thesis.txt")
    with pytest.raises(ValueError, match="thesis.txt exists and does not look like a subword vocabulary"):
        encoder.store_to_file("thesis.txt")
    with pytest.raises(ValueError, match="thesis.txt exists and does not look like a vocab file"):
        write_vocab_file("thesis.txt", vocab_tokens[:10])
    with pytest.raises(ValueError, match="data is a folder"):
        encoder.store_to_file("data")
    assert snapshot(user_folder) == before
    encoder.store_to_file("subwords.txt")
    encoder.store_to_file("subwords.txt")  # its own file: replaced
    hf.save("tokenizer.json")
    hf.save("tokenizer.json")
    assert json.loads((user_folder / "tokenizer.json").read_text(encoding="utf-8"))["model"]["type"] == "WordPiece"


def test_beam_refuses_a_missing_input_and_an_existing_output(user_folder, capsys, library_temp_files):
    from tf_wordpiece.learning import beam

    assert beam.main(["--input", "no-such-*.txt", "--out", "vocab.txt"]) == 2
    assert "--input: no files match 'no-such-*.txt'" in capsys.readouterr().err
    assert beam.main(["--input", "pairs.tsv", "--out", "notes.txt"]) == 2
    assert "--out: notes.txt already exists; pass --overwrite" in capsys.readouterr().err
    assert (user_folder / "notes.txt").read_text(encoding="utf-8") == "hello\n"


def test_beam_prints_the_summary_learn_prints(user_folder, capsys, library_temp_files):
    from tf_wordpiece.learning import beam

    args = ["--input", "pairs.tsv", "--out", "vocab.txt", "--vocab-size", "60", "--lower-thresh", "1"]
    assert beam.main(args + ["--runner=DirectRunner"]) == 0
    printed, progress = capsys.readouterr()
    size = len((user_folder / "vocab.txt").read_text(encoding="utf-8").splitlines())
    assert f"learned {size} tokens (target 60) from 50 lines of pairs.tsv, 4 distinct words" in printed
    assert re.search(r"\) after 1 search step; pipeline \d+\.\d s, learning \d+\.\d s of it -> vocab.txt\n", printed)
    # A line for each step: the pipeline's start, counting (while the splitter builds), learning, writing.
    steps = [
        "running the pipeline on DirectRunner: pairs.tsv -> vocab.txt\n",
        "counting words ...",  # standard error is not a terminal here: plain lines, no \r frames
        "counting words: 50 lines in",
        "learning from 4 distinct words\n",
        "threshold search",
        f"writing {size} tokens to vocab.txt\n",
    ]
    positions = [progress.find(step) for step in steps]
    assert -1 not in positions and positions == sorted(positions), progress


def test_ctrl_c_in_a_beam_step_leaves_nothing(user_folder, monkeypatch, library_temp_files):
    """Beam wraps a KeyboardInterrupt raised in a step in its own error; the run ends as Ctrl-C, without the
    temporary folder Beam writes --out through."""
    from tf_wordpiece.learning import beam

    def interrupted(self, batch):
        raise KeyboardInterrupt
        yield

    monkeypatch.setattr(beam._CountWords, "process", interrupted)

    def users_files() -> dict[str, str]:
        return {path: digest for path, digest in snapshot(user_folder).items() if not path.startswith("library-temp")}

    before = users_files()
    with pytest.raises(KeyboardInterrupt):
        beam.run(["--input", "pairs.tsv", "--out", "vocab.txt", "--runner=DirectRunner"])
    assert users_files() == before


# Errors that say what to do, in the command line's names.


def test_non_utf8_input_names_the_file_and_line(user_folder, capsys):
    (user_folder / "latin1.tsv").write_bytes(
        "ol\u00e1\thello\ncaf\u00e9\tcoffee\n".encode("utf-8")[:6] + "\n\u00e9\tx\n".encode("latin-1")
    )
    assert cli.main(["export", "--input", "latin1.tsv", "--out", "m"]) == 2
    assert (
        "--input: latin1.tsv is not UTF-8 text: line 2 holds the byte 0xe9 at byte offset 0" in capsys.readouterr().err
    )
    assert not (user_folder / "m").exists()


def test_learn_fails_on_one_line_that_is_not_utf8_as_export_does(user_folder, capsys):
    lines = ["good text here"] * 9000 + ["one caf\u00e9 in latin-1"] + ["more good text"] * 10  # past one batch
    (user_folder / "mixed.txt").write_bytes("\n".join(lines).encode("utf-8").replace("\u00e9".encode("utf-8"), b"\xe9"))
    assert cli.main(["learn", "--input", "notes.txt", "mixed.txt", "--out", "vocab.txt"]) == 2
    err = capsys.readouterr().err
    assert (
        "tf-wordpiece learn: --input: mixed.txt is not UTF-8 text: line 9001 holds the byte 0xe9 at byte offset 7; "
        "convert the file to UTF-8 first"
    ) in err
    assert "warning" not in err and not (user_folder / "vocab.txt").exists()


def test_export_too_small_vocab_size_is_the_error_learn_gives(user_folder, capsys):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert cli.main(["export", "--input", "pairs.tsv", "--out", "m", "--vocab-size", "10"]) == 2
    assert not caught, [str(w.message) for w in caught]
    assert "--vocab-size: 10 is smaller than the reserved tokens plus the alphabet" in capsys.readouterr().err
    assert not (user_folder / "m").exists()


def test_messages_use_option_names(user_folder, capsys):
    with pytest.raises(SystemExit):
        cli.main(["learn", "--input", "pairs.tsv", "--out", "v.txt", "--lower-thresh", "0"])
    assert "argument --lower-thresh: expected an integer >= 1, got '0'" in capsys.readouterr().err
    from tf_wordpiece.console import in_option_names

    parser = cli.build_parser()._subparsers._group_actions[0].choices["learn"]
    assert (
        in_option_names("vocab_size: 10 is too small; lower max_unique_chars", parser)
        == "--vocab-size: 10 is too small; lower --max-unique-chars"
    )
    assert in_option_names("input: no words in x", parser) == "--input: no words in x"


@pytest.mark.parametrize(
    "vocab, message",
    [
        ("thesis.txt", "does not look like a vocab file"),
        (
            str(TOKENIZER_JSON),
            "looks like a Hugging Face tokenizer.json, not a vocab.txt; load it with "
            "BertTokenizer.from_tokenizer_json (--tokenizer-json on the command line)",
        ),
    ],
)
def test_tokenize_explains_a_wrong_vocab_file(user_folder, capsys, vocab, message):
    (user_folder / "thesis.txt").write_text(PROSE * 3, encoding="utf-8")  # duplicate lines, as long texts have
    assert cli.main(["tokenize", "--vocab", vocab, "hello"]) == 2
    err = capsys.readouterr().err
    assert message in err and err.startswith("tf-wordpiece tokenize: --vocab: ")


def test_tokenize_unknown_token(tmp_path, capsys):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("<unk>\nhello\n", encoding="utf-8")
    assert cli.main(["tokenize", "--vocab", str(vocab), "hello"]) == 2
    assert "lacks ['[UNK]']" in capsys.readouterr().err
    assert cli.main(["tokenize", "--vocab", str(vocab), "--unknown-token", "<unk>", "hello", "zzz"]) == 0
    printed = capsys.readouterr().out
    assert "1  hello" in printed and "0  <unk>" in printed


def test_tokenize_reads_standard_input_and_files(user_folder, capsys, monkeypatch):
    long_text = "hello " * 50_000  # 300 kB: more than a command line may carry on some systems
    (user_folder / "long.txt").write_text(long_text + "\nworld\r\n", encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO("olá mundo\nhello\n".encode())))
    args = ["tokenize", "--vocab", str(VOCAB), "--lower-case", "first", "-", "--input", "long.txt"]
    assert cli.main(args) == 0
    out = capsys.readouterr().out
    detokenized = out.splitlines()[-1]
    assert detokenized.startswith("detokenized: ['first', 'ola mundo', 'hello', 'hello hello")
    assert detokenized.endswith("hello', 'world']") and detokenized.count("hello") == 1 + 50_000
    (user_folder / "latin1.txt").write_bytes("ol\xe1\n".encode("latin1"))
    assert cli.main(["tokenize", "--vocab", str(VOCAB), "--input", "latin1.txt"]) == 2
    assert "--input: latin1.txt is not UTF-8 text: line 1 holds the byte 0xe1" in capsys.readouterr().err


def test_progress_in_a_pipe_is_plain_lines_and_tokenize_reads_a_pipe(user_folder):
    """One child process, its standard error and input pipes: learn's progress has no \\r frames, and
    `tokenize -` tokenizes the lines piped in."""
    probe = (
        "import sys\n"
        "from tf_wordpiece import cli\n"
        "learned = cli.main(['learn', '--input', 'pairs.tsv', '--out', 'v.txt', '--reserved', '[UNK]',\n"
        "                    '--lower-thresh', '1', '--vocab-size', '60'])\n"
        "print('exit codes', learned, cli.main(['tokenize', '--vocab', 'v.txt', '-']))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe],
        input="olá mundo\nhello\n",
        capture_output=True,
        text=True,
        timeout=300,
        env=dict(os.environ, PYTHONPATH=str(REPO)),
    )
    assert "exit codes 0 0" in result.stdout, result.stdout + result.stderr
    assert "\r" not in result.stderr and "\x1b" not in result.stderr, repr(result.stderr)
    assert "counting words ..." in result.stderr.splitlines(), result.stderr
    assert "detokenized: ['olá mundo', 'hello']" in result.stdout


def test_missing_tfds_dataset_says_how_to_download_it(user_folder, capsys, library_temp_files):
    pytest.importorskip("tensorflow_datasets")
    assert cli.main(["learn", "--tfds", "ted_hrlr_translate/pt_to_en:train:en", "--out", "v.txt"]) == 2
    learn_error = capsys.readouterr().err
    assert cli.main(["export", "--tfds", "ted_hrlr_translate/pt_to_en", "--out", "m"]) == 2
    export_error = capsys.readouterr().err
    for error in (learn_error, export_error):
        assert "tfds build ted_hrlr_translate/pt_to_en" in error and "download=True" not in error.split(";")[0]


@pytest.mark.parametrize(
    "corpus, where, advice",
    [
        (
            "pairs.tsv",
            "count threshold 50 (searched within --lower-thresh 10 .. --upper-thresh 10000000 and the word counts)",
            "every word occurs at least 50 times, more than --lower-thresh 10, so a lower --lower-thresh "
            "changes nothing; give more text",
        ),
        (
            "thesis.txt",  # its most frequent word, ".", occurs 3 times: the search range 10 .. 3 is empty
            "count threshold 6 (halfway between the highest word count 3 and --lower-thresh 10: the search range is "
            "empty, so tensorflow_text's search takes the middle)",
            "the most frequent word occurs 3 times, fewer than --lower-thresh 10; give more text or lower "
            "--lower-thresh",
        ),
    ],
)
def test_learn_on_a_tiny_corpus_says_why_it_is_short(user_folder, capsys, corpus, where, advice):
    assert cli.main(["learn", "--input", corpus, "--out", "vocab.txt", "--vocab-size", "500"]) == 0
    printed = " ".join(capsys.readouterr().out.split())
    assert "(target 500)" in printed and where in printed
    assert "note: fewer tokens than the target" in printed and advice in printed
    # The summary and the note speak of one threshold, the one the tokens were kept by.
    summary = re.search(r"count threshold (\d+) \(", printed)
    note = re.search(r"occur at least (\d+) times \(the count threshold\)", printed)
    assert summary and note and summary.group(1) == note.group(1), printed


def test_counts_agree_in_number(user_folder, capsys):
    (user_folder / "one.txt").write_text("hello\n", encoding="utf-8")
    assert cli.main(["learn", "--input", "one.txt", "--out", "vocab.txt"]) == 0
    printed = capsys.readouterr().out
    assert "from 1 line of one.txt, 1 distinct word (1 learned from); count threshold 5 (halfway" in printed
    assert ") after 1 search step;" in printed
    assert "occur at least 5 times (the count threshold) in the 1 word learned from" in printed
    assert "the most frequent word occurs 1 time, fewer than --lower-thresh 10" in printed
    assert not re.search(r"\b1 (lines|distinct words|words|search steps|times|tokens)\b", printed), printed


def test_files_that_are_not_utf8_get_one_message(user_folder, capsys):
    latin1 = "[PAD]\n[UNK]\ncaf\u00e9\n".encode("latin-1")
    for name in ("vocab.txt", "corpus.txt", "corpus.tsv"):
        (user_folder / name).write_bytes(latin1)
    shape = (
        "tf-wordpiece {command}: --{option}: {name} is not UTF-8 text: line 3 holds the byte 0xe9 at byte offset 3; "
        "convert the file to UTF-8 first, e.g. iconv -f latin1 -t utf-8 {name} > {name}.utf8"
    )
    for command, option, name, argv in [
        ("tokenize", "vocab", "vocab.txt", ["--vocab", "vocab.txt", "x"]),
        ("learn", "input", "corpus.txt", ["--input", "corpus.txt", "--out", "v.txt"]),
        ("export", "input", "corpus.tsv", ["--input", "corpus.tsv", "--out", "m"]),
    ]:
        assert cli.main([command, *argv]) == 2
        err = capsys.readouterr().err  # learn's counting bar, then the error
        assert err.splitlines()[-1] == shape.format(command=command, option=option, name=name), err


@pytest.mark.skipif(sys.platform != "linux", reason="file names that are not UTF-8: Linux file systems take any bytes")
def test_file_names_that_are_not_utf8_show_their_bytes(user_folder, capsys):
    name = os.fsdecode(b"caf\xe9.txt")  # what Python hands over: 'caf\udce9.txt'
    assert cli.main(["tokenize", "--vocab", name, "x"]) == 2
    assert capsys.readouterr().err == "tf-wordpiece tokenize: --vocab: 'caf\\xe9.txt' does not exist; check the path\n"
    (user_folder / name).write_bytes(b"caf\xe9 au lait\n")
    assert cli.main(["learn", "--input", name, "--out", "v.txt"]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "tf-wordpiece learn: --input: caf\\xe9.txt is not UTF-8 text: line 1 holds the byte 0xe9 at byte offset 3; "
        "convert the file to UTF-8 first, e.g. iconv -f latin1 -t utf-8 $'caf\\xe9.txt' > $'caf\\xe9.txt.utf8'"
    )
    out = os.fsdecode(b"vocab-\xe9.txt")
    assert cli.main(["learn", "--input", "pairs.tsv", "--out", out, "--lower-thresh", "1"]) == 0
    assert capsys.readouterr().out.splitlines()[0].endswith(" -> vocab-\\xe9.txt")
    assert (user_folder / out).read_text(encoding="utf-8").startswith("[PAD]\n")
    assert cli.main(["learn", "--input", "pairs.tsv", "--out", out]) == 2
    assert "--out: vocab-\\xe9.txt already exists" in capsys.readouterr().err


def test_beam_without_beam_is_one_line(user_folder):
    # Beam made unimportable, as on the base install; the answer comes before TensorFlow loads.
    probe = (
        "import runpy, sys\n"
        "sys.modules['apache_beam'] = None\n"
        "sys.argv = ['beam', '--input', 'pairs.tsv', '--out', 'vocab.txt']\n"
        "runpy.run_module('tf_wordpiece.learning.beam', run_name='__main__', alter_sys=True)\n"
        "print('tensorflow' in sys.modules)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        timeout=60,
        env=dict(os.environ, PYTHONPATH=str(REPO)),
    )
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == (
        'python -m tf_wordpiece.learning.beam: Apache Beam is not installed; install the "beam" extra: '
        'pip install "tf-wordpiece[beam]"\n'
    )
    extras = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    assert any(requirement.startswith("apache-beam") for requirement in extras["beam"])
    assert 'pip install "tf-wordpiece[beam]"' in (REPO / "README.md").read_text(encoding="utf-8")


# A command line that feels quick.


def test_help_and_argument_errors_do_not_import_tensorflow(tmp_path):
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "empty.txt").write_bytes(b"")
    (tmp_path / "in" / "nul.txt").write_bytes(b"\x00" * 1000)
    (tmp_path / "in" / "latin1.txt").write_bytes("[UNK]\ncafé\n".encode("latin1"))
    probe = (
        "import sys\n"
        "from tf_wordpiece import cli\n"
        "for argv in (['--help'], ['learn', '--help'], ['export', '--help'], ['tokenize', 'x'], ['--version'],\n"
        "             ['tokenize', '--vocab', 'missing.txt', 'x'], ['export', '--input', 'missing.tsv'],\n"
        "             ['learn', '--input', 'missing.txt', '--out', 'v.txt'], ['tokenize', '--vocab', '.', 'x'],\n"
        "             ['tokenize', '--vocab', 'in/empty.txt', 'x'], ['tokenize', '--vocab', 'in/nul.txt', 'x'],\n"
        "             ['tokenize', '--vocab', 'in/latin1.txt', 'x'], ['tokenize', '--vocab', 'in/nul.txt'],\n"
        "             ['tokenize', '--tokenizer-json', 'in/nul.txt', 'x'],\n"
        "             ['tokenize', '--tokenizer-json', 'in/empty.txt', 'x']):\n"
        "    try:\n"
        "        cli.main(argv)\n"
        "    except SystemExit:\n"
        "        pass\n"
        "print('tensorflow' in sys.modules, 'tqdm' in sys.modules)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        timeout=60,
        env=dict(os.environ, PYTHONPATH=str(REPO)),
        cwd=tmp_path,
    )
    assert result.stdout.strip().endswith("False False"), result.stdout + result.stderr
    assert "(default: 8000)" in result.stdout and "(default: 10)" in result.stdout  # every default shown
    assert "usage: tf-wordpiece tokenize" in result.stderr  # the tokenize usage, not the top-level one
    assert "give exactly one of --vocab or --tokenizer-json" in result.stderr
    version = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    assert f"tf-wordpiece {version}\n" in result.stdout
    # Bad paths are reported before TensorFlow loads, each in its option's name.
    assert "tf-wordpiece tokenize: --vocab: 'missing.txt' does not exist; check the path" in result.stderr
    assert "tf-wordpiece export: --input: 'missing.tsv' does not exist; check the path" in result.stderr
    assert "tf-wordpiece learn: --input: 'missing.txt' does not exist; check the path" in result.stderr
    assert "tf-wordpiece tokenize: --vocab: '.' is a folder; give the path of a file" in result.stderr
    # Vocab files that cannot be vocabularies too, each saying what it is.
    assert "--vocab: the vocab file 'in/empty.txt' is empty" in result.stderr
    assert "--vocab: vocab file 'in/nul.txt' is not a text file (it holds NUL bytes" in result.stderr
    assert "most of its lines hold spaces" not in result.stderr
    assert "--vocab: in/latin1.txt is not UTF-8 text: line 2 holds the byte 0xe9" in result.stderr
    assert "--tokenizer-json: 'in/nul.txt' is not a text file (it holds NUL bytes)" in result.stderr
    assert "--tokenizer-json: 'in/empty.txt' is empty; pass a tokenizers tokenizer.json" in result.stderr
    assert "give the text to tokenize: TEXT arguments, '-' for standard input, or --input FILE" in result.stderr
    assert [path.name for path in tmp_path.iterdir()] == ["in"]


def test_top_level_help_names_the_beam_learner_and_the_out_rule(capsys):
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "python -m tf_wordpiece.learning.beam --help" in text
    assert "--out has a default in each command that writes (learn: vocab.txt" in text


@pytest.mark.parametrize("command", ["tokenize", "learn", "export"])
def test_help_shows_each_default_once(capsys, command):
    with pytest.raises(SystemExit):
        cli.main([command, "--help"])
    text = " ".join(capsys.readouterr().out.split())  # help lines rewrapped into one
    assert "(default: None)" not in text
    assert (
        "TensorFlow's own log lines are hidden, whatever TF_CPP_MIN_LOG_LEVEL says; set TF_WORDPIECE_TF_LOGS=1" in text
    )
    assert not re.search(r"\(default:[^)]*\)\s*\(default:", text), text
    # Every option and argument says what it is when left out.
    subparser = next(a for a in cli.build_parser()._actions if a.dest == "command").choices[command]
    formatter = subparser._get_formatter()
    silent = [
        action.dest
        for action in subparser._actions
        if action.dest != "help" and "default: " not in formatter._get_help_string(action)  # not "by default"
    ]
    assert not silent, f"{command} --help shows no default for {silent}"
    if command == "tokenize":
        assert text.count("(default: [UNK], or the tokenizer.json's)") == 1


@pytest.mark.parametrize(
    "argv, unknown",
    [
        (["tokenize", "--vocab", str(VOCAB), "--lowercase", "hello"], "--lowercase"),
        (["learn", "--input", "x.txt", "--out", "v.txt", "--vocabsize", "10"], "--vocabsize"),
        (["export", "--no-zipp"], "--no-zipp"),
    ],
)
def test_a_misspelt_option_shows_the_command_usage(capsys, argv, unknown):
    with pytest.raises(SystemExit) as exit:
        cli.main(argv)
    err = capsys.readouterr().err
    assert exit.value.code == 2
    assert err.startswith(f"usage: tf-wordpiece {argv[0]} ")
    assert f"tf-wordpiece {argv[0]}: error: unrecognized arguments: {unknown}" in err


def test_a_non_utf8_argument_is_a_one_line_error():
    # Real bytes on the command line: Python hands them over as surrogate escapes. Refused before TensorFlow loads.
    result = subprocess.run(
        [sys.executable, "-m", "tf_wordpiece.cli", "tokenize", "--vocab", str(VOCAB), "ok", b"caf\xe9"],
        capture_output=True,
        timeout=60,
        env=dict(os.environ, PYTHONPATH=str(REPO)),
    )
    assert result.returncode == 2 and result.stdout == b""
    assert result.stderr.decode() == (
        "tf-wordpiece tokenize: text: argument 2 b'caf\\xe9' is not valid UTF-8 (byte 0xe9 at byte offset 3); pass "
        "text in UTF-8: set a UTF-8 locale in the terminal (e.g. LANG=C.UTF-8) or convert it with iconv -f latin1 "
        "-t utf-8\n"
    )


@pytest.mark.parametrize(
    "argv, message",
    [
        (
            ["tokenize", "--vocab", str(VOCAB), "--unknown-token", "\udcff", "x"],
            "tokenize: --unknown-token: b'\\xff' is",
        ),
        (
            ["learn", "--input", "pairs.tsv", "--out", "v.txt", "--reserved", "[UNK]", "\udce9"],
            "learn: --reserved: argument 2 b'\\xe9' is",
        ),
        (["learn", "--input", "pairs.tsv", "--out", "v.txt", "--joiner", "#\udce9"], "learn: --joiner: b'#\\xe9' is"),
        (["export", "--out", "m\udce9"], "export: --out: b'm\\xe9' is"),
    ],
)
def test_non_utf8_arguments_name_the_option(user_folder, capsys, argv, message):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"tf-wordpiece {message} not valid UTF-8") and err.count("\n") == 1
    assert sorted(p.name for p in user_folder.iterdir()) == ["data", "notes.txt", "pairs.tsv", "thesis.txt"]


def test_library_errors_name_the_option(user_folder, capsys):
    (user_folder / "bad.json").write_text('{"model": {"type": "BPE"}}', encoding="utf-8")
    (user_folder / "empty.json").write_text("{}", encoding="utf-8")
    (user_folder / "three.tsv").write_text("a\tb\nc\td\te\n", encoding="utf-8")
    assert cli.main(["tokenize", "--tokenizer-json", "bad.json", "x"]) == 2
    assert capsys.readouterr().err.startswith("tf-wordpiece tokenize: --tokenizer-json: 'bad.json': model type 'BPE'")
    assert cli.main(["tokenize", "--tokenizer-json", "empty.json", "x"]) == 2
    assert capsys.readouterr().err.startswith("tf-wordpiece tokenize: --tokenizer-json: 'empty.json' has no 'model'")
    assert cli.main(["export", "--input", "three.tsv", "--out", "m"]) == 2
    err = capsys.readouterr().err  # after the progress line of reading, one line: the error
    assert err.endswith("\n") and err.count("tf-wordpiece") == 1
    assert err.splitlines()[-1].startswith(
        "tf-wordpiece export: --input: three.tsv: line 2 has 3 tab-separated fields, expected 2"
    )


def test_hiding_a_log_record_keeps_the_others(caplog):
    from tf_wordpiece.console import hide_log_records

    hidden = hide_log_records("apitools not found")
    try:
        with caplog.at_level(logging.WARNING):
            logging.warning("apitools not found, and bigquery client libraries are not available")
            logging.warning("a warning the user should see")
    finally:
        logging.getLogger().removeFilter(hidden)
    assert [r.getMessage() for r in caplog.records] == ["a warning the user should see"]
