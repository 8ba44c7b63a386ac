"""The BERT classifier where no string op runs: UTF-8 bytes in, logits out, tokenizer and BERT in one file.

The example's classifier (examples/classifier/classifier.py, built small, numeric core) gives TensorFlow's
logits from bytes (`pack_bytes` equals the string path's inputs exactly), then in each runtime:
- TFLite: converted with `TFLITE_BUILTINS` alone (no Flex, no custom ops) and run in ai-edge-litert;
- TF.js: one graph model run by examples/classifier/classify.mjs in Node with @tensorflow/tfjs.
The SavedModel through the C API is test_c_api.py's `test_text_classifier_serves_strings_from_c`.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import subprocess

import numpy as np
import pytest
import tensorflow as tf

from helpers.classifier import assert_logits_close, small_classifier
from helpers.hard_strings import HARD_STRINGS, INVALID_UTF8
from helpers.node import node_modules

keras = pytest.importorskip("keras")
if not keras.__version__.startswith("3."):
    pytest.skip("the layers need Keras 3", allow_module_level=True)
pytest.importorskip("keras_hub")  # the example's backbone is keras-hub's

from tf_wordpiece.export import keras_model  # noqa: E402
from tf_wordpiece.export.frozen import frozen_function  # noqa: E402

REPO = pathlib.Path(__file__).resolve().parents[2]
BATCH = 64


@pytest.fixture(scope="module")
def model(vocab_tokens):
    return small_classifier(vocab_tokens, compat="tf_text", core="numeric")


@pytest.fixture(scope="module")
def lines(multilingual) -> list[bytes]:
    """Sample lines, hard strings, an empty and an over-long line, and invalid UTF-8 (last)."""
    texts = multilingual[:256] + HARD_STRINGS[::8] + ["", " ", "Ünïcödé straße 日本語 " * 400]
    return [t.encode("utf-8") for t in texts] + [b for b in INVALID_UTF8 if b"\x00" not in b]


@pytest.fixture(scope="module")
def want(model, lines) -> np.ndarray:
    """TensorFlow's logits: the Keras model on the strings."""
    return model.predict(tf.constant(lines), batch_size=len(lines), verbose=0)


def batches(items: list, size: int = BATCH) -> list[list]:
    return [items[i : i + size] for i in range(0, len(items), size)]


def flat(batch: list[bytes]) -> tuple[np.ndarray, np.ndarray]:
    return np.frombuffer(b"".join(batch), np.uint8), np.array([len(s) for s in batch], np.int32)


def test_pack_bytes_gives_the_string_paths_inputs(model, multilingual, lines):
    preprocessor = model.get_layer("preprocessor")
    every = [t.encode("utf-8") for t in multilingual[:2000] + HARD_STRINGS] + lines
    data, lengths = flat(every)
    got = preprocessor.pack_bytes(tf.constant(data), tf.constant(lengths))
    want = preprocessor(tf.constant(every))
    for name in ("token_ids", "segment_ids", "padding_mask"):
        assert got[name].dtype == want[name].dtype and np.array_equal(got[name], want[name]), name
    assert np.asarray(want["padding_mask"]).all(axis=1).sum() > 100  # many rows are cut to fit


def test_tflite_with_builtin_ops_only(model, lines, want, tmp_path):
    litert = pytest.importorskip("ai_edge_litert.interpreter")
    path = tmp_path / "classifier.tflite"
    size = keras_model.save_tflite(model, path)  # TFLITE_BUILTINS only: a Flex or custom op fails the conversion
    assert path.stat().st_size == size and path.read_bytes()[4:8] == b"TFL3"
    runner = litert.Interpreter(model_path=str(path)).get_signature_runner()
    assert sorted(runner.get_input_details()) == ["bytes", "row_lengths"]
    got = np.concatenate([runner(**dict(zip(("bytes", "row_lengths"), flat(b))))["logits"] for b in batches(lines)])
    assert_logits_close(got, want)
    one = runner(bytes=np.zeros([0], np.uint8), row_lengths=np.zeros([1], np.int32))["logits"]  # one empty string
    np.testing.assert_allclose(one[0], want[lines.index(b"")], rtol=1e-4, atol=1e-4)
    with pytest.raises(ValueError, match="UINT8"):  # bytes, not strings or ints
        runner(bytes=np.array([1, 2], np.int64), row_lengths=np.array([2], np.int32))

    with pytest.raises(FileExistsError, match="already exists; pass overwrite=True"):
        keras_model.save_tflite(model, path)
    mine = tmp_path / "mine.tflite"
    mine.write_text("not a model")
    with pytest.raises(ValueError, match="does not look like a TFLite model"):
        keras_model.save_tflite(model, mine, overwrite=True)
    assert mine.read_text() == "not a model" and sorted(p.name for p in tmp_path.iterdir()) == [
        "classifier.tflite",
        "mine.tflite",
    ]


def test_tfjs_in_node(model, lines, want, tmp_path):
    modules = node_modules()
    signature = keras_model.save_tfjs(model, tmp_path / "tfjs")
    assert sorted(signature["inputs"]) == ["bytes", "row_lengths"] and list(signature["outputs"]) == ["logits"]
    topology = json.loads((tmp_path / "tfjs" / "model.json").read_text())["modelTopology"]
    graph_ops = {node["op"] for node in topology["node"]} | {
        node["op"]
        for function in topology.get("library", {}).get("function", [])
        for node in function.get("nodeDef", [])
    }
    assert not graph_ops - tfjs_ops(modules), "ops TF.js lacks"  # TF.js would fail on them at load
    valid = [i for i, line in enumerate(lines) if line == line.decode("utf-8", "replace").encode("utf-8")]
    strings = [lines[i].decode("utf-8") for i in valid]  # TextEncoder makes nothing but valid UTF-8
    script = modules / f"classify-{os.getpid()}.mjs"  # Node resolves @tensorflow/tfjs from the script's folder
    shutil.copy(REPO / "examples/classifier/classify.mjs", script)
    try:
        got = []
        for batch in batches(strings, 128):
            proc = subprocess.run(
                ["node", str(script), str(tmp_path / "tfjs"), "--json"],
                input=json.dumps(batch),
                capture_output=True,
                text=True,
                timeout=600,
            )
            assert proc.returncode == 0, proc.stderr[-3000:]
            got += json.loads(proc.stdout.splitlines()[-1])["logits"]
        missing = subprocess.run(
            ["node", str(script), str(tmp_path / "missing"), "x"], capture_output=True, text=True, timeout=600
        )
    finally:
        script.unlink()
    assert_logits_close(got, want[valid])
    assert missing.returncode == 2 and "MODEL_DIR: no model.json in" in missing.stderr


def tfjs_ops(node_modules: pathlib.Path) -> set[str]:
    """The TensorFlow ops @tensorflow/tfjs's graph executor runs (its converter's op list)."""
    op_lists = node_modules / "node_modules/@tensorflow/tfjs-converter/dist/operations/op_list"
    return {op for path in op_lists.glob("*.js") for op in re.findall(r"'tfOpName': '(\w+)'", path.read_text())}


def test_the_bytes_path_needs_the_numeric_core_and_one_preprocessor(vocab_tokens, tmp_path):
    string_core = small_classifier(vocab_tokens, compat="tf_text", core="string")
    with pytest.raises(ValueError, match=r"model: its preprocessor has core='string'; the bytes path needs"):
        keras_model.bytes_function(string_core)
    plain = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(2)])
    with pytest.raises(ValueError, match=r"model: expected a functional model with one string input going into one"):
        keras_model.save_tflite(plain, tmp_path / "plain.tflite")
    assert not any(tmp_path.iterdir())


def test_frozen_functions_hold_constants_only():
    table = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(["a"], [1]), default_value=0)
    with pytest.raises(ValueError, match=r"fn: captures .*, a resource used by \['LookupTableFindV2'\]"):
        frozen_function(lambda s: {"ids": table.lookup(s)}, {"s": tf.TensorSpec([None], tf.string)})
    embeddings = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    gather = frozen_function(lambda i: {"rows": tf.gather(embeddings, i)}, {"i": tf.TensorSpec([None], tf.int32)})
    assert gather(tf.constant([1, 0]))["rows"].numpy().tolist() == [[3.0, 4.0], [1.0, 2.0]]
    embeddings.assign([[0.0, 0.0], [0.0, 0.0]])  # frozen: the values at tracing time
    assert gather(tf.constant([1]))["rows"].numpy().tolist() == [[3.0, 4.0]] and not gather.captured_inputs
