"""TFLite: our numeric core (builtin ops only, ai-edge-litert) against tensorflow_text's FastBertTokenizer kernels.

    python bench/tflite.py [--corpus multilingual|english] [--repeats 7]

Ours: `BertTokenizer(bert-base-uncased, lower_case=True, core="numeric")`'s
`tokenize_bytes`, converted with `TFLITE_BUILTINS` only and run in
ai-edge-litert (no Flex delegate, no custom op). Theirs: tensorflow_text's
`FastBertTokenizer` (`lower_case_nfd_strip_accents=True`, same vocabulary),
converted with its custom ops and run in `tf.lite`'s `InterpreterWithCustomOps`
with `tensorflow_text.tflite_registrar.SELECT_TFTEXT_OPS` registered: the
fastest TFLite tokenizer there is, and one that needs tensorflow_text's
kernels linked into the app. Ids are checked equal on every call first; then
ms per call (wall, one thread each, medians of interleaved passes) at batch 1
and 64, and theirs / ours (issue 34's target: >= 0.2x at batch 64).
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import sys
import time

sys.path[:] = [p for p in sys.path if not p.endswith("bench")]  # bench/tokenize.py shadows the stdlib's

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
import tensorflow_text as text  # noqa: E402
from ai_edge_litert.interpreter import Interpreter  # noqa: E402
from tensorflow.lite.python.interpreter import InterpreterWithCustomOps  # noqa: E402  (tf.lite's, public in docs)

import tf_wordpiece as twp  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]
VOCAB = ROOT / "tests" / "data" / "bert-base-uncased" / "vocab.txt"
BATCHES = (1, 64)
TARGET = 0.2  # issue 34: >= 0.2x tensorflow_text's kernels at batch 64


def corpus(name: str) -> list[str]:
    if name == "multilingual":
        return (ROOT / "tests" / "data" / "multilingual_dev.txt").read_text(encoding="utf-8").splitlines()
    pairs = (ROOT / "tf_wordpiece" / "data" / "pt_en_sample.tsv").read_text(encoding="utf-8").splitlines()[1:]
    return [line.split("\t")[1] for line in pairs if "\t" in line]


def convert(module: tf.Module, function, *, custom_ops: bool) -> bytes:
    converter = tf.lite.TFLiteConverter.from_concrete_functions([function.get_concrete_function()], module)
    converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS]  # no SELECT_TF_OPS (Flex) for either
    converter.allow_custom_ops = custom_ops
    return converter.convert()


def ours() -> tuple[bytes, callable]:
    tokenizer = twp.BertTokenizer(str(VOCAB), lower_case=True, core="numeric")
    module = tf.Module()
    module.tokenizer = tokenizer
    spec = [tf.TensorSpec([None], tf.uint8, name="bytes"), tf.TensorSpec([None], tf.int32, name="row_lengths")]
    fn = tf.function(lambda data, row_lengths: tokenizer.tokenize_bytes(data, row_lengths), input_signature=spec)
    blob = convert(module, fn, custom_ops=False)
    runner = Interpreter(model_content=blob).get_signature_runner()

    def run(batch: list[bytes]) -> np.ndarray:
        data = np.frombuffer(b"".join(batch), np.uint8)
        return runner(bytes=data, row_lengths=np.array([len(s) for s in batch], np.int32))["token_ids"]

    return blob, run


def theirs() -> tuple[bytes, callable]:
    fast = text.FastBertTokenizer(VOCAB.read_text(encoding="utf-8").splitlines(), lower_case_nfd_strip_accents=True)
    module = tf.Module()
    module.fast = fast
    fn = tf.function(
        lambda strings: {"token_ids": fast.tokenize(strings).flat_values},
        input_signature=[tf.TensorSpec([None], tf.string, name="strings")],
    )
    blob = convert(module, fn, custom_ops=True)
    interpreter = InterpreterWithCustomOps(
        model_content=blob, custom_op_registerers=text.tflite_registrar.SELECT_TFTEXT_OPS
    )
    runner = interpreter.get_signature_runner()

    def run(batch: list[bytes]) -> np.ndarray:
        return runner(strings=np.array(batch, dtype=object))["token_ids"]

    return blob, run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", choices=["multilingual", "english"], default="multilingual")
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    lines = [line.encode("utf-8") for line in corpus(args.corpus)]
    contenders = {"tf_wordpiece (builtins, ai-edge-litert)": ours(), "tensorflow_text FastBertTokenizer": theirs()}
    print(
        f"TFLite, {args.corpus} lines; model sizes: "
        + ", ".join(f"{name} {len(blob) / 1e6:.1f} MB" for name, (blob, _) in contenders.items())
        + "\n"
    )
    print("| batch | " + " | ".join(f"{name} (ms)" for name in contenders) + " | theirs / ours | target |")
    print("|---|" + "---|" * (len(contenders) + 2))
    for batch_size in BATCHES:
        calls = [lines[i : i + batch_size] for i in range(0, 64 * batch_size, batch_size)][: max(8, 64 // batch_size)]
        runs = {name: run for name, (_, run) in contenders.items()}
        outputs = {name: [run(call).tolist() for call in calls] for name, run in runs.items()}
        first, second = outputs.values()
        if first != second:
            bad = next(i for i, (a, b) in enumerate(zip(first, second)) if a != b)
            raise SystemExit(f"batch {batch_size}: ids differ on call {bad}: {calls[bad][:2]}")
        samples = {name: [] for name in runs}
        for _ in range(args.repeats):
            for name, run in runs.items():
                start = time.perf_counter()
                for call in calls:
                    run(call)
                samples[name].append((time.perf_counter() - start) * 1e3 / len(calls))
        ms = {name: statistics.median(s) for name, s in samples.items()}
        mine, peer = ms.values()
        met = (
            ""
            if batch_size != 64
            else (" (met)" if peer / mine >= TARGET else f" (missed: {TARGET / (peer / mine):.1f}x short)")
        )
        print(f"| {batch_size} | {mine:.3f} | {peer:.3f} | {peer / mine:.3f}x | >= {TARGET}x{met} |", flush=True)


if __name__ == "__main__":
    main()
