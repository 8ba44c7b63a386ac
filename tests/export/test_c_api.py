"""No Python needed to serve: a C program linked against the installed wheel's TensorFlow C API runs the signatures.

export/serve_saved_model.c is compiled against `tf.sysconfig.get_lib()`
(libtensorflow_cc.so.2, libtensorflow_framework.so.2 and their headers), loads
the SavedModel with TF_LoadSessionFromSavedModel (tag "serve"), runs a signature
with TF_SessionRun and prints the outputs; they must equal Python's. Skipped
where no C compiler is installed.
"""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess

import pytest
import tensorflow as tf
from tensorflow.core.protobuf import saved_model_pb2

from helpers.data import VOCAB
from tf_wordpiece.export import converter
from tf_wordpiece.export.module import CustomTokenizer

ROOT = pathlib.Path(__file__).resolve().parents[2]
SOURCE = ROOT / "export" / "serve_saved_model.c"
LINES = ["Hello TensorFlow!", "", "Ünïcödé straße 日本語", "Olá, como está? " * 3]


@pytest.fixture(scope="module")
def serve_binary(tmp_path_factory) -> str:
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler (cc or gcc) on PATH")
    lib = tf.sysconfig.get_lib()
    out = tmp_path_factory.mktemp("c_api") / "serve_saved_model"
    proc = subprocess.run(
        [
            compiler,
            str(SOURCE),
            f"-I{lib}/include",
            f"-L{lib}",
            "-l:libtensorflow_cc.so.2",
            "-l:libtensorflow_framework.so.2",
            f"-Wl,-rpath,{lib}",
            "-o",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return str(out)


def run_signature(binary: str, model_dir: str, key: str, strings: list[str | bytes], *, repeat: int = 0) -> dict:
    """Runs signature `key` from C; returns {output name: nested list} (ints, or floats for float outputs).

    With `repeat`, the signature runs that many more times and "timings" holds the C program's
    {"load_ms": float, "run_ms": [first, then each repeat]}.
    """
    proto = saved_model_pb2.SavedModel()
    proto.ParseFromString((pathlib.Path(model_dir) / "saved_model.pb").read_bytes())
    signature = proto.meta_graphs[0].signature_def[key]
    inputs = [signature.inputs[name].name for name in sorted(signature.inputs)]
    names = sorted(signature.outputs)
    outputs = [signature.outputs[name].name for name in names]
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    options = ["--repeat", str(repeat)] if repeat else []
    arguments = [model_dir, str(len(inputs)), *inputs, str(len(outputs)), *outputs, str(len(strings))]
    proc = subprocess.run(
        [binary, *options, *arguments, *strings],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = {}
    for name, line in zip(names, proc.stdout.strip().splitlines()[-len(names) :]):
        head, values = line.split(" : ") if " : " in line else (line.rstrip(" :"), "")
        rank = int(head.split()[1])
        dims = [int(d) for d in head.split()[2 : 2 + rank]]
        dtype = tf.float32 if signature.outputs[name].dtype == tf.float32.as_datatype_enum else tf.int64
        flat = [dtype.as_numpy_dtype(v) for v in values.split()]
        result[name] = tf.reshape(tf.constant(flat, dtype), dims).numpy().tolist()
    if repeat:
        timings = dict(
            line.split(" ", 1) for line in proc.stderr.splitlines() if line.startswith(("load_ms", "run_ms"))
        )
        result["timings"] = {
            "load_ms": float(timings["load_ms"]),
            "run_ms": [float(t) for t in timings["run_ms"].split()],
        }
    return result


def as_lists(outputs: dict) -> dict:
    return {name: t.numpy().tolist() for name, t in outputs.items()}


def test_custom_tokenizer_signatures_run_from_c(serve_binary, tmp_path):
    tokens = VOCAB.read_text(encoding="utf-8").splitlines()
    tokens[tokens.index("[unused0]")], tokens[tokens.index("[unused1]")] = "[START]", "[END]"
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("\n".join(tokens) + "\n", encoding="utf-8")
    module = CustomTokenizer(["[PAD]", "[UNK]", "[START]", "[END]"], str(vocab), lower_case=True, seq_length=16)
    path = str(tmp_path / "model")
    tf.saved_model.save(module, path, signatures=module.signatures())
    strings = tf.constant(LINES)
    served = run_signature(serve_binary, path, "serving_default", LINES)
    assert served == as_lists(module.serving(strings))
    assert served["token_ids"][0][:6] == [module._start, 7592, 23435, 12314, 999, module._end]
    assert run_signature(serve_binary, path, "bert_pack_inputs", LINES) == as_lists(module.bert_pack_inputs(strings))
    # Both inputs of the pair signature get the same batch from the C program.
    assert run_signature(serve_binary, path, "bert_pack_pair_inputs", LINES) == as_lists(
        module.bert_pack_pair_inputs(strings, strings)
    )


def test_converter_in_tf_serving_layout_runs_from_c(serve_binary, tmp_path, capsys):
    from tf_wordpiece.cli import main

    pairs = converter.embedded_pairs()[:300]
    corpus = tmp_path / "pairs.tsv"
    corpus.write_text("\n".join(f"{pt}\t{en}" for pt, en in pairs) + "\n", encoding="utf-8")
    out = tmp_path / "converter"
    assert (
        main(["export", "--input", str(corpus), "--out", str(out), "--vocab-size", "300", "--serving-version", "1"])
        == 0
    )
    assert "detokenized: hello tensorflow" in capsys.readouterr().out
    model_dir = out / "1"
    assert (model_dir / "saved_model.pb").is_file() and sorted(p.name for p in out.iterdir()) == ["1"]
    assert (tmp_path / "converter.zip").is_file()
    loaded = tf.saved_model.load(str(model_dir))
    assert {"serving_default", "pt_tokenize", "en_tokenize"} <= set(loaded.signatures)
    strings = tf.constant(LINES)
    for key, language in (("serving_default", loaded.pt), ("pt_tokenize", loaded.pt), ("en_tokenize", loaded.en)):
        ids = language.tokenize(strings)
        want = {"lengths": ids.row_lengths().numpy().tolist(), "token_ids": ids.to_tensor().numpy().tolist()}
        assert as_lists(loaded.signatures[key](strings=strings)) == want, key
        assert run_signature(serve_binary, str(model_dir), key, LINES) == want, key
    with pytest.raises(FileExistsError, match="already holds a SavedModel"):
        converter.export_converter(str(out), pairs, vocab_size=300, make_zip=False, serving_version=1)
    summary = converter.export_converter(str(out), pairs, vocab_size=300, make_zip=False, serving_version=2)
    assert summary["model_dir"] == str(out / "2") and sorted(p.name for p in out.iterdir()) == ["1", "2"]
    with pytest.raises(ValueError, match=r"serving_version: expected a positive int .* got 0"):
        converter.export_converter(str(tmp_path / "converter"), pairs, serving_version=0)


def test_text_classifier_serves_strings_from_c(serve_binary, vocab_tokens, multilingual, tmp_path):
    """The BERT classifier (tokenizer and model in one SavedModel, `model.export`) run from C: TF Serving's loader."""
    pytest.importorskip("keras_hub")
    from helpers.classifier import assert_logits_close, small_classifier

    model = small_classifier(vocab_tokens, compat="tf_text", core="numeric")
    lines = multilingual[:40] + ["", "Ünïcödé straße 日本語 " * 50]
    invalid = [b"caf\xe9", b"\xff\xfe x"]  # argv carries any bytes but NUL
    want = model.predict(tf.constant([s.encode("utf-8") for s in lines] + invalid), verbose=0)
    path = str(tmp_path / "classifier")
    model.export(path, verbose=False)
    served = run_signature(serve_binary, path, "serving_default", [*lines, *invalid], repeat=2)
    (name,) = [k for k in served if k != "timings"]
    assert_logits_close(served[name], want)
    assert len(served["timings"]["run_ms"]) == 3 and served["timings"]["load_ms"] > 0

    proc = subprocess.run(
        [serve_binary, str(tmp_path / "missing"), "1", "serving_default_strings:0", "1", "x:0", "1", "a"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 1 and "TF_LoadSessionFromSavedModel:" in proc.stderr and "missing" in proc.stderr
