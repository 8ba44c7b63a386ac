"""`tf-wordpiece learn` and the Beam pipeline.

The in-process learner's vocabulary, clear errors, nothing half-written.
"""

from __future__ import annotations

import pathlib

import pytest
import tensorflow as tf

import tf_wordpiece as twp
from helpers.learner_cases import corpus
from tf_wordpiece import cli

LINES = 3000


@pytest.fixture(scope="module")
def english(tmp_path_factory) -> tuple[str, list[str]]:
    """A text file of English lines (with a CRLF line and a blank one) and the vocabulary learned from its lines."""
    lines = corpus("en")[:LINES] + ["Windows line\r", ""]
    path = tmp_path_factory.mktemp("corpus") / "en.txt"
    path.write_bytes("\n".join(lines).encode("utf-8"))
    dataset = tf.data.Dataset.from_tensor_slices([line.removesuffix("\r") for line in lines]).batch(512)
    expected = twp.bert_vocab_from_dataset(dataset, 900, ["[PAD]", "[UNK]", "[START]", "[END]"], {"lower_case": True})
    return str(path), expected


def learn(*args: str) -> int:
    return cli.main(["learn", *args])


def test_learn_writes_the_vocabulary_and_a_summary(english, tmp_path, capsys):
    path, expected = english
    out = tmp_path / "vocab.txt"
    assert learn("--input", path, "--vocab-size", "900", "--lower-case", "--out", str(out)) == 0
    assert out.read_text(encoding="utf-8").splitlines() == expected
    summary = capsys.readouterr().out
    assert f"learned {len(expected)} tokens (target 900) from {LINES + 1} lines" in summary
    assert list(tmp_path.iterdir()) == [out]  # no temporary file left behind


def test_learned_vocabulary_covers_its_corpus(english):
    _, vocab = english
    tokenizer = twp.BertTokenizer(vocab, lower_case=True)
    ids = tokenizer.tokenize(corpus("en")[:LINES]).flat_values.numpy()
    assert (ids != vocab.index("[UNK]")).all()  # every character is in the alphabet, so no word is unknown


def test_beam_pipeline_gives_the_same_vocabulary(english, tmp_path, library_temp_files):
    from tf_wordpiece.learning import beam

    path, expected = english
    out = tmp_path / "vocab.txt"
    beam.run(["--input", path, "--vocab-size", "900", "--lower-case", "--out", str(out), "--runner=DirectRunner"])
    assert out.read_text(encoding="utf-8").splitlines() == expected


def test_options_reach_the_learner(english, tmp_path):
    path, _ = english
    out = tmp_path / "vocab.txt"
    assert (
        learn(
            "--input",
            path,
            "--vocab-size",
            "300",
            "--reserved",
            "<unk>",
            "--joiner",
            "@@",
            "--max-token-length",
            "5",
            "--out",
            str(out),
        )
        == 0
    )
    vocab = out.read_text(encoding="utf-8").splitlines()
    assert vocab[0] == "<unk>" and any(t.startswith("@@") for t in vocab) and not any(t.startswith("##") for t in vocab)
    assert max(len(t.removeprefix("@@")) for t in vocab[1:]) <= 5
    assert any(t != t.lower() for t in vocab)  # no --lower-case: cased tokens


@pytest.mark.parametrize(
    "setup, args, message",
    [
        ("empty", ["--input", "{empty}"], "no words"),
        ("", ["--input", "{missing}"], "missing.txt' does not exist; check the path"),
        (
            "",
            ["--input", "{corpus}", "--vocab-size", "10"],
            "--vocab-size: 10 is smaller than the reserved tokens plus the alphabet",
        ),
        ("", ["--tfds", "no_such_dataset:train:text"], "tfds: cannot load"),
        ("", ["--tfds", "ted_hrlr_translate/pt_to_en::en"], "--tfds: expected NAME[:SPLIT[:FEATURE]]"),
        ("existing", ["--input", "{corpus}"], "already exists; pass --overwrite"),
    ],
)
def test_bad_input_is_a_clear_error_and_writes_nothing(english, tmp_path, capsys, setup, args, message):
    out = tmp_path / "vocab.txt"
    empty = tmp_path / "empty.txt"
    empty.write_text("\n \n", encoding="utf-8")
    if setup == "existing":
        out.write_text("keep me\n", encoding="utf-8")
    paths = dict(empty=str(empty), missing=str(tmp_path / "missing.txt"), corpus=english[0])
    assert learn(*[a.format(**paths) for a in args], "--out", str(out)) == 2
    assert message in capsys.readouterr().err
    if setup == "existing":
        assert out.read_text(encoding="utf-8") == "keep me\n"
    else:
        assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        {"empty.txt", out.name} & {p.name for p in tmp_path.iterdir()}
    )


def test_tfds_source(tmp_path, capsys, library_temp_files):
    """--tfds reads NAME:SPLIT:FEATURE from the TFDS data dir (here tfds's offline mock of the tutorial's dataset)."""
    import tensorflow_datasets as tfds

    from tf_wordpiece.export import converter

    out = tmp_path / "vocab.txt"
    with tfds.testing.mock_data(num_examples=200):
        assert (
            learn(
                "--tfds",
                "ted_hrlr_translate/pt_to_en:train:en",
                "--vocab-size",
                "400",
                "--lower-thresh",
                "2",
                "--out",
                str(out),
            )
            == 0
        )
        english = tfds.load("ted_hrlr_translate/pt_to_en", split="train", download=False).map(lambda x: x["en"])
        expected = twp.bert_vocab_from_dataset(
            english, 400, ["[PAD]", "[UNK]", "[START]", "[END]"], {}, {"lower_thresh": 2}
        )
        pairs = converter.tfds_pairs("ted_hrlr_translate/pt_to_en")
        # Without FEATURE, a dataset of two text features says which there are.
        capsys.readouterr()
        assert learn("--tfds", "ted_hrlr_translate/pt_to_en", "--out", str(tmp_path / "other.txt")) == 2
        assert "has 2 text features ['en', 'pt']; name the one to learn from" in capsys.readouterr().err
        validation = converter.tfds_pairs("ted_hrlr_translate/pt_to_en", "validation")
    assert out.read_text(encoding="utf-8").splitlines() == expected
    assert len(pairs) == 200 and all(isinstance(pt, str) and isinstance(en, str) for pt, en in pairs)
    assert len(validation) == 200 and not (tmp_path / "other.txt").exists()


def test_tfds_takes_one_form_in_learn_and_export(tmp_path, capsys, monkeypatch):
    """NAME[:SPLIT[:FEATURE]] in both: export, which learns both languages, refuses a FEATURE before any work."""
    from tf_wordpiece import cli

    monkeypatch.chdir(tmp_path)
    assert cli.main(["export", "--tfds", "ted_hrlr_translate/pt_to_en:train:en", "--out", "m"]) == 2
    err = capsys.readouterr().err
    assert "--tfds: export learns both languages" in err and "pass ted_hrlr_translate/pt_to_en:train" in err
    assert "loading TensorFlow" not in err and list(tmp_path.iterdir()) == []


def test_tfds_pairs_not_utf8_is_an_error_naming_the_example(monkeypatch):
    """A TFDS example that is not UTF-8 is a ValueError naming `name`, the example and the byte, not a traceback
    (the command line says --tfds there)."""
    import tensorflow_datasets as tfds

    from tf_wordpiece.export import converter

    monkeypatch.setattr(tfds, "load", lambda *args, **kwargs: None)
    monkeypatch.setattr(tfds, "as_numpy", lambda dataset: [(b"ok", b"fine"), (b"caf\xe9", b"coffee")])
    with pytest.raises(ValueError, match=r"^name: ted_hrlr_translate/pt_to_en:train example 1 is not UTF-8 .*0xe9"):
        converter.tfds_pairs("ted_hrlr_translate/pt_to_en")


@pytest.mark.parametrize(
    "counts, size, threshold, where",
    [
        (
            {"ab": 40, "cd": 30, "ef": 20, "gh": 12, "ij": 11},
            23,
            25,
            "searched within --lower-thresh 10 .. --upper-thresh 10000000 and the word counts",
        ),
        # At the lowest threshold searched the vocabulary is still short: the search's last step goes one below.
        (
            {"ab": 11, "cd": 10},
            100,
            9,
            "one below --lower-thresh 10, the lowest threshold searched: the vocabulary was still short of the "
            "target there",
        ),
        # No word reaches --lower-thresh: the range 10 .. 3 is empty and the search takes its middle.
        ({"ab": 3, "cd": 2}, 100, 6, "halfway between the highest word count 3 and --lower-thresh 10"),
    ],
)
def test_summary_says_where_the_threshold_search_ended(counts, size, threshold, where):
    from types import SimpleNamespace

    from tf_wordpiece.learning.params import threshold_summary

    stats: dict = {}
    twp.learn(counts, size, ["[UNK]"], stats=stats)
    assert stats["threshold"] == threshold
    summary = threshold_summary(stats, SimpleNamespace(lower_thresh=10, upper_thresh=10_000_000))
    assert summary.startswith(f"count threshold {threshold} ({where}")


@pytest.mark.parametrize(
    "files, pairs",
    [
        ([b"PT\ten\nol\xc3\xa1\thello\npt\ten\n"], [("olá", "hello"), ("pt", "en")]),  # a later pt<TAB>en: a pair
        ([b"ol\xc3\xa1\thello\n"], [("olá", "hello")]),
        ([b"\xef\xbb\xbfpt\ten\r\nol\xc3\xa1\thello\r\n"], [("olá", "hello")]),  # a spreadsheet's BOM and CRLF
        ([b"\xef\xbb\xbfol\xc3\xa1\thello\n"], [("olá", "hello")]),  # the BOM is not part of the first pair
        ([b"pt\ten\na\tb\n", b" pt \t EN \nc\td\n"], [("a", "b"), ("c", "d")]),  # each file's header
    ],
    ids=["header", "no-header", "bom-crlf-header", "bom-no-header", "two-files"],
)
def test_a_tsv_header_line_is_not_a_pair(tmp_path, files, pairs):
    """export --input: a first line `pt<TAB>en` names the columns (as the embedded sample's does): skipped."""
    from tf_wordpiece.export import converter

    paths = []
    for index, data in enumerate(files):
        paths.append(str(tmp_path / f"{index}.tsv"))
        pathlib.Path(paths[-1]).write_bytes(data)
    assert converter.tsv_file_pairs(paths) == pairs


def test_the_embedded_sample_has_its_header_skipped():
    from tf_wordpiece.export import converter

    embedded = converter.embedded_pairs()
    assert embedded[0] != ("pt", "en") and len(embedded) == 15223
