"""The BERT text classifier (tokenizer + model in one file) in each runtime: sizes, load times, per-call latency.

    python bench/classifier.py [--repeats 20] [--batches 1,32] [--layers 2] [--hidden 32] [--heads 2]
                               [--intermediate 64] [--sequence-length 64]

Builds the example's classifier (examples/classifier/classifier.py: keras-hub's BertBackbone, random
weights, behind BertTextClassifierPreprocessor with bert-base-uncased's vocabulary, lowercased, numeric
core), writes it for every runtime into a temporary folder, checks that each runtime's outputs equal
TensorFlow's on the batches it times, then prints for each runtime the size of what it loads, the load time,
the first call and the median per-call latency (`--repeats` calls) for each batch size. Twice: for the whole
classifier (strings or bytes in, logits out), and for its tokenizer alone (the preprocessor's `token_ids`,
`segment_ids` and `padding_mask`, exported the same ways), to show where the time goes.
- TensorFlow: the `model.export()` SavedModel, `tf.saved_model.load` then `serve(strings)`, in this process;
- C API: export/serve_saved_model.c (compiled here with cc, as tests/export/test_c_api.py does) on the same
  SavedModel with `--repeat`: TF_LoadSessionFromSavedModel, then TF_SessionRun; a fresh process per batch size;
- TFLite: the builtins-only `.tflite` in ai-edge-litert (`Interpreter(model_path)`, its default XNNPACK
  delegate), UTF-8 bytes in;
- TF.js: the graph model in Node with @tensorflow/tfjs 4.22 (pure JavaScript, its "cpu" backend), run by
  examples/classifier/classify.mjs --bench; needs the npm cache the TF.js tests install
  (TF_WORDPIECE_NPM_CACHE, default ~/.cache/tf_wordpiece/npm).
Batches are held-out lines of tests/data/multilingual_dev.txt (from line 10,000), the first N of them.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import pathlib
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path[:] = [p for p in sys.path if not p.endswith("bench")]  # bench/tokenize.py shadows the stdlib's

import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.core.protobuf import saved_model_pb2  # noqa: E402

from tf_wordpiece.export import keras_model  # noqa: E402
from tf_wordpiece.export.frozen import frozen_function  # noqa: E402
from tf_wordpiece.export.tfjs import save_tfjs_graph_model  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples" / "classifier"))
from classifier import VOCAB, build_classifier  # noqa: E402

SAMPLE = ROOT / "tests" / "data" / "multilingual_dev.txt"
C_SOURCE = ROOT / "export" / "serve_saved_model.c"
NODE_SCRIPT = ROOT / "examples" / "classifier" / "classify.mjs"
NPM_CACHE = pathlib.Path(os.environ.get("TF_WORDPIECE_NPM_CACHE", pathlib.Path.home() / ".cache/tf_wordpiece/npm"))
Outputs = dict  # {output name: array [batch, ...]}


def size_of(path: pathlib.Path) -> int:
    return path.stat().st_size if path.is_file() else sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def flat(batch: list[str]) -> dict[str, np.ndarray]:
    encoded = [s.encode("utf-8") for s in batch]
    lengths = np.array([len(e) for e in encoded], np.int32)
    return {"bytes": np.frombuffer(b"".join(encoded), np.uint8), "row_lengths": lengths}


def named(outputs) -> Outputs:
    """A runtime's outputs as {name: array}; a single output is the classifier's logits."""
    if isinstance(outputs, dict):
        return {name: np.asarray(value) for name, value in outputs.items()}
    return {"logits": np.asarray(outputs)}


def check(got: Outputs, want: Outputs) -> None:
    """Logits to float tolerance, ids and masks exactly."""
    for name, value in want.items():
        if value.dtype.kind == "f":
            np.testing.assert_allclose(got[name], value, rtol=1e-4, atol=1e-4, err_msg=name)
        else:
            np.testing.assert_array_equal(np.asarray(got[name]).astype(value.dtype), value, err_msg=name)


def timed(call, repeats: int):
    """(first call ms, median ms of `repeats` more, the first call's result)."""
    start = time.perf_counter()
    result = call()
    first = (time.perf_counter() - start) * 1e3
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1e3)
    return first, statistics.median(times), result


def tensorflow_figures(saved: pathlib.Path, batches: dict, repeats: int, want: dict) -> dict:
    start = time.perf_counter()
    loaded = tf.saved_model.load(str(saved))
    figures = {"load_ms": (time.perf_counter() - start) * 1e3, "first_ms": {}, "median_ms": {}}
    for size, batch in batches.items():
        first, median, out = timed(lambda: tf.nest.map_structure(np.asarray, loaded.serve(tf.constant(batch))), repeats)
        check(named(out), want[size])
        figures["first_ms"][size], figures["median_ms"][size] = first, median
    return figures


def compile_c_runner(tmp: pathlib.Path) -> pathlib.Path | None:
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        return None
    lib, binary = tf.sysconfig.get_lib(), tmp / "serve_saved_model"
    subprocess.run(
        [compiler, str(C_SOURCE), f"-I{lib}/include", f"-L{lib}", "-l:libtensorflow_cc.so.2",
         "-l:libtensorflow_framework.so.2", f"-Wl,-rpath,{lib}", "-o", str(binary)],
        check=True,
    )  # fmt: skip
    return binary


def c_api_figures(binary, saved: pathlib.Path, batches: dict, repeats: int, want: dict) -> dict | str:
    if binary is None:
        return "skipped: no C compiler (cc or gcc)"
    proto = saved_model_pb2.SavedModel()
    proto.ParseFromString((saved / "saved_model.pb").read_bytes())
    signature = proto.meta_graphs[0].signature_def["serving_default"]
    (input_name,) = [t.name for t in signature.inputs.values()]
    keys = sorted(signature.outputs)
    figures = {"load_ms": [], "first_ms": {}, "median_ms": {}}
    for size, batch in batches.items():
        outputs = [signature.outputs[k].name for k in keys]
        command = [str(binary), "--repeat", str(repeats), str(saved), "1", input_name, str(len(keys)), *outputs]
        proc = subprocess.run(
            [*command, str(len(batch)), *batch],
            capture_output=True,
            text=True,
            check=True,
            env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2"),
        )
        got = {}
        for key, line in zip(keys, proc.stdout.strip().splitlines()[-len(keys) :]):
            head, _, values = line.partition(" : ")
            rank = int(head.split()[1])
            shape = [int(d) for d in head.split()[2 : 2 + rank]]
            got[key] = np.reshape(np.array(values.split(), np.float64), shape)
        check(got if len(keys) > 1 else {"logits": got[keys[0]]}, want[size])
        timings = dict(
            line.split(" ", 1) for line in proc.stderr.splitlines() if line.startswith(("load_ms", "run_ms"))
        )
        runs = [float(t) for t in timings["run_ms"].split()]
        figures["load_ms"].append(float(timings["load_ms"]))
        figures["first_ms"][size], figures["median_ms"][size] = runs[0], statistics.median(runs[1:])
    figures["load_ms"] = statistics.median(figures["load_ms"])
    return figures


def tflite_figures(path: pathlib.Path, batches: dict, repeats: int, want: dict) -> dict | str:
    try:
        from ai_edge_litert.interpreter import Interpreter
    except ImportError:
        return "skipped: ai-edge-litert is not installed"
    start = time.perf_counter()
    runner = Interpreter(model_path=str(path)).get_signature_runner()
    figures = {"load_ms": (time.perf_counter() - start) * 1e3, "first_ms": {}, "median_ms": {}}
    for size, batch in batches.items():
        inputs = flat(batch)
        first, median, out = timed(lambda: runner(**inputs), repeats)
        check(named(out), want[size])
        figures["first_ms"][size], figures["median_ms"][size] = first, median
    return figures


def node(command: list[str], stdin: str) -> str:
    """Node's stdout; its stderr in the error when it fails."""
    proc = subprocess.run(command, input=stdin, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed: {proc.stderr[-3000:]}")
    return proc.stdout


def tfjs_figures(folder: pathlib.Path, batches: dict, repeats: int, want: dict) -> dict | str:
    if shutil.which("node") is None or not (NPM_CACHE / "node_modules/@tensorflow/tfjs").is_dir():
        return f"skipped: needs node and @tensorflow/tfjs in {NPM_CACHE} (the TF.js tests install it)"
    script = NPM_CACHE / f"classify-bench-{os.getpid()}.mjs"  # Node resolves @tensorflow/tfjs from the script's folder
    shutil.copy(NODE_SCRIPT, script)
    sizes = list(batches)
    try:
        bench = node(
            ["node", str(script), str(folder), "--bench", str(repeats)], json.dumps([batches[s] for s in sizes])
        )
        for size in sizes:
            out = node(["node", str(script), str(folder), "--json"], json.dumps(batches[size]))
            check(named(json.loads(out.splitlines()[-1])), want[size])
    finally:
        script.unlink()
    out = json.loads(bench.splitlines()[-1])
    return {
        "load_ms": out["load_ms"],
        "first_ms": dict(zip(sizes, out["first_call_ms"])),
        "median_ms": dict(zip(sizes, out["median_ms"])),
        "backend": out["backend"],
    }


def write_tokenizer_alone(model: keras.Model, tmp: pathlib.Path) -> keras.Model:
    """The classifier's preprocessor as a model of its own, written like the classifier; returns that model."""
    preprocessor = model.get_layer("preprocessor")
    strings = keras.Input(shape=(), dtype="string")
    alone = keras.Model(strings, preprocessor(strings))
    alone.export(str(tmp / "saved_model"), verbose=False)

    def fn(data, row_lengths):
        return preprocessor.pack_bytes(data, row_lengths)

    converter = tf.lite.TFLiteConverter.from_concrete_functions(
        [frozen_function(fn, keras_model.BYTES_SIGNATURE)], tf.Module()
    )
    converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS]
    (tmp / "model.tflite").write_bytes(converter.convert())
    save_tfjs_graph_model(fn, keras_model.BYTES_SIGNATURE, tmp / "tfjs")
    return alone


def measure(model, batches: dict, repeats: int, tmp: pathlib.Path, binary) -> dict:
    """{runtime: (size in bytes, figures or why skipped)} for a model written in `tmp` (saved_model, tflite, tfjs)."""
    want = {size: named(model.predict(tf.constant(batch), verbose=0)) for size, batch in batches.items()}
    saved, tflite, tfjs = tmp / "saved_model", tmp / "model.tflite", tmp / "tfjs"
    return {
        "TensorFlow (SavedModel, Python)": (size_of(saved), tensorflow_figures(saved, batches, repeats, want)),
        "C API (same SavedModel)": (size_of(saved), c_api_figures(binary, saved, batches, repeats, want)),
        "TFLite (builtins only, ai-edge-litert)": (size_of(tflite), tflite_figures(tflite, batches, repeats, want)),
        "TF.js (Node, @tensorflow/tfjs)": (size_of(tfjs), tfjs_figures(tfjs, batches, repeats, want)),
    }


def print_table(title: str, results: dict, batches: dict) -> None:
    print(f"\n{title}")
    head = f"{'runtime':40} {'size MB':>8} {'load ms':>8}"
    for size in batches:
        head += f" {f'first@{size}':>10} {f'ms@{size}':>9}"
    print(head)
    for name, (size, figures) in results.items():
        if isinstance(figures, str):
            print(f"{name:40} {figures}")
            continue
        row = f"{name:40} {size / 1e6:8.1f} {figures['load_ms']:8.0f}"
        for batch in batches:
            row += f" {figures['first_ms'][batch]:10.1f} {figures['median_ms'][batch]:9.2f}"
        print(row + (f"  (backend {figures['backend']})" if "backend" in figures else ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--batches", default="1,32")
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--hidden", type=int, default=32)
    parser.add_argument("--heads", type=int, default=2)
    parser.add_argument("--intermediate", type=int, default=64)
    parser.add_argument("--sequence-length", type=int, default=64)
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    lines = [line for line in SAMPLE.read_text(encoding="utf-8").split("\n")[10000:] if line]
    batches = {int(n): lines[: int(n)] for n in args.batches.split(",")}

    model = build_classifier(
        VOCAB.read_text(encoding="utf-8").splitlines(),
        sequence_length=args.sequence_length,
        num_layers=args.layers,
        hidden_dim=args.hidden,
        num_heads=args.heads,
        intermediate_dim=args.intermediate,
    )
    with tempfile.TemporaryDirectory() as folder:
        tmp = pathlib.Path(folder)
        binary = compile_c_runner(tmp)
        whole, alone = tmp / "classifier", tmp / "tokenizer"
        whole.mkdir()
        alone.mkdir()
        model.save(tmp / "classifier.keras")
        model.export(str(whole / "saved_model"), verbose=False)
        keras_model.save_tflite(model, whole / "model.tflite")
        keras_model.save_tfjs(model, whole / "tfjs")
        tokenizer = write_tokenizer_alone(model, alone)
        results = {
            "tokenizer + BERT (strings or UTF-8 bytes in, logits out)": (model, whole),
            "tokenizer alone (token_ids, segment_ids, padding_mask out)": (tokenizer, alone),
        }
        results = {title: measure(m, batches, args.repeats, path, binary) for title, (m, path) in results.items()}
        keras_size = size_of(tmp / "classifier.keras")

    print(
        f"# bench/classifier.py, {datetime.date.today()}, {platform.node()}: {os.cpu_count()} CPU cores, shared "
        f"(load average {load_before:.1f} at the start, {os.getloadavg()[0]:.1f} at the end)"
    )
    config = f"{args.layers} layers, hidden {args.hidden}, {args.heads} heads, intermediate {args.intermediate}"
    print(
        f"# TensorFlow {tf.__version__}, Keras {keras.__version__}; model: {config}, sequence length "
        f"{args.sequence_length}, vocabulary 30,522; {model.count_params():,} weights; .keras {keras_size / 1e6:.1f} MB"
    )
    print(f"# outputs equal TensorFlow's on every timed batch (logits rtol 1e-4, ids exact); medians of {args.repeats}")
    for title, table in results.items():
        print_table(title, table, batches)


if __name__ == "__main__":
    main()
