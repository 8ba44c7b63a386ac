"""The bytes signature (`tokenize_bytes`, numeric core) where no string op runs: TFLite builtins, TF.js, XLA.

Each runtime gets the whole multilingual sample plus the hard strings and
invalid UTF-8, and must give the ids, byte offsets and row lengths of the
SavedModel's own `tokenize_bytes`, whose ids are checked against `tokenize`
(the string signature) first:
- TFLite: converted with `TFLITE_BUILTINS` only (no Flex, no custom ops) and
  run in `ai-edge-litert`, whose interpreter has no Flex delegate;
- TF.js: the graph model of `save_tfjs`, run by `examples/tfjs/tokenize.mjs`
  in Node with @tensorflow/tfjs (pure JavaScript) from npm, installed once
  into a cache folder (`helpers.node`);
- XLA: every stage of the XLA core compiles (what a GPU or TPU would run).
"""

from __future__ import annotations

import pathlib

import numpy as np
import pytest
import tensorflow as tf

from helpers import node
from helpers.data import DATA, VOCAB
from helpers.hard_strings import HARD_STRINGS
from tf_wordpiece.export.module import CustomTokenizer
from tf_wordpiece.numeric.batch import padded, separate

RESERVED = ["[PAD]", "[UNK]", "[START]", "[END]"]
BATCH = 2000  # lines per call


@pytest.fixture(scope="module")
def vocab_file(tmp_path_factory) -> pathlib.Path:
    tokens = VOCAB.read_text(encoding="utf-8").splitlines()
    tokens[tokens.index("[unused0]")], tokens[tokens.index("[unused1]")] = "[START]", "[END]"
    path = tmp_path_factory.mktemp("vocab") / "vocab.txt"
    path.write_text("\n".join(tokens) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def module(vocab_file) -> CustomTokenizer:
    return CustomTokenizer(RESERVED, str(vocab_file), lower_case=True, core="numeric")


@pytest.fixture(scope="module")
def lines() -> list[bytes]:
    sample = (DATA / "multilingual_dev.txt").read_text(encoding="utf-8").split("\n")
    invalid = [b"caf\xe9", b"\xff\xfe x", b"a\xc3", b"\xed\xa0\x80 \xf4\x90\x80\x80", b""]
    return [s.encode("utf-8") for s in sample + HARD_STRINGS + ["", " ", "a" * 500]] + invalid


def batches(items: list, size: int = BATCH):
    return [items[i : i + size] for i in range(0, len(items), size)]


def flat(batch: list[bytes]) -> tuple[np.ndarray, np.ndarray]:
    return np.frombuffer(b"".join(batch), np.uint8), np.array([len(s) for s in batch], np.int32)


def per_row(out: dict) -> list[tuple]:
    """{"token_ids", "starts", "ends": [k], "row_lengths": [n]} -> one (ids, starts, ends) a row."""
    splits = np.concatenate([[0], np.cumsum(np.asarray(out["row_lengths"]))]).tolist()
    columns = [np.asarray(out[k]).tolist() for k in ("token_ids", "starts", "ends")]
    return [tuple(column[a:b] for column in columns) for a, b in zip(splits, splits[1:])]


@pytest.fixture(scope="module")
def expected(module, lines) -> list[tuple]:
    """The in-process `tokenize_bytes`, per row, once checked against the string signature's ids."""
    rows = []
    for batch in batches(lines):
        data, lengths = flat(batch)
        got = per_row({k: v.numpy() for k, v in module.tokenize_bytes(tf.constant(data), tf.constant(lengths)).items()})
        want = module.tokenize(tf.constant(batch)).to_list()
        assert [ids for ids, _, _ in got] == want
        rows += got
    return rows


def test_offsets_are_the_string_paths(module, lines, expected):
    """Pieces' offsets as BertTokenizer.tokenize_with_offsets gives them; [START] at 0 and [END] at the length."""
    batch = lines[:BATCH]
    _, begin, end = module.tokenizer.tokenize_with_offsets(tf.constant(batch))
    for line, (_, starts, ends), b, e in zip(
        batch, expected, begin.merge_dims(1, 2).to_list(), end.merge_dims(1, 2).to_list()
    ):
        assert (starts, ends) == ([0, *b, len(line)], [0, *e, len(line)]), line


@pytest.fixture(scope="module")
def saved(module, tmp_path_factory) -> pathlib.Path:
    path = tmp_path_factory.mktemp("bytes") / "model"
    tf.saved_model.save(module, str(path), signatures=module.signatures())
    return path


def test_the_reloaded_signature_gives_the_same(saved, lines, expected):
    signature = tf.saved_model.load(str(saved)).signatures["tokenize_bytes"]
    data, lengths = flat(lines[:BATCH])
    out = signature(bytes=tf.constant(data), row_lengths=tf.constant(lengths))
    assert per_row({k: v.numpy() for k, v in out.items()}) == expected[:BATCH]


def test_tflite_with_builtin_ops_only(saved, lines, expected, tmp_path):
    litert = pytest.importorskip("ai_edge_litert.interpreter")
    converter = tf.lite.TFLiteConverter.from_saved_model(str(saved), signature_keys=["tokenize_bytes"])
    converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS]  # no SELECT_TF_OPS, no custom ops
    blob = converter.convert()
    print(f"tokenize_bytes.tflite: {len(blob) / 1e6:.1f} MB")
    runner = litert.Interpreter(model_content=blob).get_signature_runner("tokenize_bytes")
    rows = []
    for batch in batches(lines):
        data, lengths = flat(batch)
        rows += per_row(runner(bytes=data, row_lengths=lengths))
    assert rows == expected
    # No bytes at all (an empty string): the scatters must not see an empty output (TFLite divides by zero).
    empty = runner(bytes=np.zeros([0], np.uint8), row_lengths=np.zeros([1], np.int32))
    assert per_row(empty) == [expected[lines.index(b"")]] and len(expected[lines.index(b"")][0]) == 2


@pytest.fixture(scope="module")
def node_modules() -> pathlib.Path:
    return node.node_modules()


def test_tfjs_in_node(module, node_modules, lines, expected, tmp_path):
    module.save_tfjs(tmp_path / "tfjs")
    assert sorted(p.name for p in (tmp_path / "tfjs").iterdir()) == ["group1-shard1of1.bin", "model.json"]
    rows = []
    for batch in batches(lines):
        strings = [line.decode("utf-8", "replace") for line in batch]
        out, stderr = node.run_tokenize_mjs(node_modules, tmp_path / "tfjs", strings)
        assert "looks like you are running TensorFlow.js in Node.js" not in stderr  # the example silences it
        rows += [(r["token_ids"], r["starts"], r["ends"]) for r in out]
    valid = [i for i, line in enumerate(lines) if line == line.decode("utf-8", "replace").encode("utf-8")]
    assert [rows[i] for i in valid] == [expected[i] for i in valid]  # TextEncoder cannot make invalid UTF-8


def test_save_tfjs_needs_the_numeric_core(vocab_file, tmp_path):
    module = CustomTokenizer(RESERVED, str(vocab_file), lower_case=True)
    with pytest.raises(ValueError, match="core='string'.*needs core='numeric'"):
        module.save_tfjs(tmp_path / "tfjs")
    assert not hasattr(module, "tokenize_bytes") and "tokenize_bytes" not in module.signatures()


def test_save_tfjs_never_replaces_a_users_folder(module, tmp_path):
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "notes.txt").write_text("keep me")
    with pytest.raises(ValueError, match="out_dir: .* is a folder that is not a TF.js model"):
        module.save_tfjs(folder, overwrite=True)
    assert [p.name for p in folder.iterdir()] == ["notes.txt"]
    module.save_tfjs(tmp_path / "tfjs")
    with pytest.raises(FileExistsError, match="already holds a TF.js model; pass overwrite=True"):
        module.save_tfjs(tmp_path / "tfjs")
    module.save_tfjs(tmp_path / "tfjs", overwrite=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine", "tfjs"]  # no hidden staging folder left


def test_every_stage_of_the_xla_core_compiles(vocab_file):
    """What an accelerator runs: XLA compiles the whole pipeline, both stages in one function."""
    module = CustomTokenizer(RESERVED, str(vocab_file), lower_case=True, core="xla")
    core = module.tokenizer.engine.numeric_core
    separated = padded(separate(tf.constant(list(b"Hello, TensorFlow!"), tf.int32), tf.constant([18])), 64)
    assert "HloModule" in core._compiled_stages(1).experimental_get_compiler_ir(*separated)(stage="hlo")
