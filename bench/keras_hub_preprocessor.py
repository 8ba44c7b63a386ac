"""keras-hub's BertTextClassifierPreprocessor on tf_wordpiece.text (the stand-in) against the real tensorflow_text.

    python -P bench/keras_hub_preprocessor.py [--repeats 5] [--batches 1,64,1000] [--pipeline-lines 20000]
    (-P: bench/tokenize.py must not shadow the standard library)

keras-hub binds `tensorflow_text` when it is imported, so each contender is a child process
(`--child ours`: `tf_wordpiece.install_as_tensorflow_text(force=True)` before `import keras_hub`;
`--child tensorflow_text`: the real one) that builds `BertTokenizer(vocabulary=bert-base-uncased's,
lowercase=True)` and `BertTextClassifierPreprocessor(sequence_length=128)`, then answers the
driver's commands on stdin with JSON lines. Cases, on tests/data/multilingual_dev.txt:

- `call`: the preprocessor in a `tf.function` over string [None] (keras-hub's TensorFlow path, as
  in a SavedModel or `tf.data`; an eager call of a keras-hub 0.32 layer runs its pure-Python path,
  which never touches tensorflow_text) on the first 1, 64 and 1000 lines;
- `tf.data`: `Dataset.from_tensor_slices(lines).batch(64).map(preprocessor, num_parallel_calls=AUTOTUNE)`
  drained (as keras-hub's `fit` consumes it), over the first `--pipeline-lines` lines;
- `tf.data start`: that pipeline's `next(iter(...))`, the part of the drain each epoch pays once: a new
  iterator instantiates the map function, graph optimization included, which costs with the graph's size.

First both children's token_ids / padding_mask / segment_ids are checked identical, line by line
(and the drained pipeline's); then the two take turns (ours, theirs, ...) in each pass; wall and
CPU (the child's, all threads) milliseconds per call or per drain, medians over the passes, and
tensorflow_text's time over ours (above 1: ours is faster; the issue's target is 0.5 or above).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import pathlib
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
VOCAB = ROOT / "tests" / "data" / "bert-base-uncased" / "vocab.txt"
SAMPLE = ROOT / "tests" / "data" / "multilingual_dev.txt"
CONTENDERS = ("ours", "tensorflow_text")
OUTPUTS = ("token_ids", "padding_mask", "segment_ids")


def sample_lines() -> list[str]:
    return SAMPLE.read_text(encoding="utf-8").splitlines()


# ---- the child: one contender, answering the driver's commands -------------------------------------------


def load_keras_hub(contender: str):
    """keras_hub, bound to tf_wordpiece.text (`ours`) or to the real tensorflow_text; checks which it holds."""
    os.environ["KERAS_BACKEND"] = "tensorflow"
    if contender == "ours":
        import tf_wordpiece

        assert tf_wordpiece.install_as_tensorflow_text(force=True) == "tf_wordpiece.text"
    import keras_hub
    from keras_hub.src.tokenizers import word_piece_tokenizer

    held = word_piece_tokenizer.tf_text.__name__
    want = "tf_wordpiece.text" if contender == "ours" else "tensorflow_text"
    if held != want:
        raise SystemExit(f"--child {contender}: keras_hub holds {held}, not {want}")
    if contender == "ours" and any(
        getattr(module, "__file__", None) and "site-packages/tensorflow_text" in module.__file__
        for module in list(sys.modules.values())
    ):
        raise SystemExit("--child ours: the real tensorflow_text was imported")
    return keras_hub


def child(contender: str) -> None:
    import tensorflow as tf

    keras_hub = load_keras_hub(contender)
    vocab = VOCAB.read_text(encoding="utf-8").splitlines()
    tokenizer = keras_hub.models.BertTokenizer(vocabulary=vocab, lowercase=True)
    preprocessor = keras_hub.models.BertTextClassifierPreprocessor(tokenizer=tokenizer, sequence_length=128)
    call = tf.function(preprocessor, input_signature=[tf.TensorSpec([None], tf.string)])
    lines = sample_lines()
    pipelines = {}

    def pipeline(count: int):
        if count not in pipelines:
            data = tf.data.Dataset.from_tensor_slices(lines[:count]).batch(64)
            pipelines[count] = data.map(preprocessor, num_parallel_calls=tf.data.AUTOTUNE)
        return pipelines[count]

    def row_digests(out: dict) -> dict:
        """output name -> one short digest per line (equal outputs, equal digests)."""
        return {
            name: [hashlib.sha1(row.tobytes()).hexdigest()[:16] for row in out[name].numpy().astype("int64")]
            for name in OUTPUTS
        }

    def check(count: int) -> dict:
        rows = {name: [] for name in OUTPUTS}
        for start in range(0, count, 1000):
            for name, digests in row_digests(call(tf.constant(lines[start : min(count, start + 1000)]))).items():
                rows[name] += digests
        drained = {name: [] for name in OUTPUTS}
        for batch in pipeline(count):
            for name, digests in row_digests(batch).items():
                drained[name] += digests
        return {"rows": rows, "pipeline_equals_calls": drained == rows}

    def timed(case: str, size: int) -> dict:
        if case == "call":
            x = tf.constant(lines[:size])
            calls = max(1, 64 // size)

            def work():
                for _ in range(calls):
                    call(x)["token_ids"].numpy()

        elif case == "tf.data start":
            calls, data = 1, pipeline(size)

            def work():
                next(iter(data))

        else:
            calls, data = 1, pipeline(size)

            def work():
                for _ in data:
                    pass

        wall, cpu = time.perf_counter(), time.process_time()
        work()
        return {
            "wall_ms": (time.perf_counter() - wall) * 1e3 / calls,
            "cpu_ms": (time.process_time() - cpu) * 1e3 / calls,
        }

    print(json.dumps({"ready": contender}), flush=True)
    for command in sys.stdin:
        request = json.loads(command)
        if request["do"] == "check":
            answer = check(request["lines"])
        else:
            answer = timed(request["case"], request["size"])
        print(json.dumps(answer), flush=True)


# ---- the driver ----------------------------------------------------------------------------------------------


class Child:
    """One contender's process; `ask` sends a command and returns its JSON answer."""

    def __init__(self, contender: str):
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
        env.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")  # C++ info, warnings and errors (cuInit) off
        self.process = subprocess.Popen(
            [sys.executable, "-P", __file__, "--child", contender],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        self.ready = self.read()

    def read(self) -> dict:
        for line in self.process.stdout:
            if line.startswith("{"):
                return json.loads(line)
        raise SystemExit(f"a child exited ({self.process.wait()}) before answering")

    def ask(self, **request) -> dict:
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        return self.read()

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait()


def check_equal(children: dict, count: int) -> None:
    """Both children's outputs on the first `count` lines, line by line: a SystemExit naming the first difference."""
    answers = {name: c.ask(do="check", lines=count) for name, c in children.items()}
    lines = sample_lines()
    for name, answer in answers.items():
        if not answer["pipeline_equals_calls"]:
            raise SystemExit(f"{name}: the tf.data pipeline's outputs differ from the calls'")
    ours, theirs = (answers[c]["rows"] for c in CONTENDERS)
    for output in OUTPUTS:
        for i, (a, b) in enumerate(zip(ours[output], theirs[output], strict=True)):
            if a != b:
                raise SystemExit(f"{output} differs at line {i + 1} of {SAMPLE.name}: {lines[i]!r}")
    print(f"outputs identical on {count} lines (token_ids, padding_mask, segment_ids; calls and tf.data)")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n")[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    parser.add_argument("--repeats", type=int, default=5, help="passes; each contender runs once per pass per case")
    parser.add_argument("--batches", default="1,64,1000", help="batch sizes of the `call` case")
    parser.add_argument("--pipeline-lines", type=int, default=20000, help="lines tf.data drains (20000: all)")
    parser.add_argument("--child", choices=CONTENDERS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(args.child)
    cases = [("call", int(b)) for b in args.batches.split(",")]
    cases += [("tf.data", args.pipeline_lines), ("tf.data start", args.pipeline_lines)]
    children = {name: Child(name) for name in CONTENDERS}
    try:
        check_equal(children, max(size for _, size in cases))
        print("| case | lines | ours ms wall / CPU | tensorflow_text ms wall / CPU | ratio wall / CPU |")
        print("|---|---:|---:|---:|---:|")
        for case, size in cases:
            for c in children.values():
                c.ask(do="time", case=case, size=size)  # warm up: trace, first iteration
            times = {name: [] for name in CONTENDERS}
            for _ in range(args.repeats):
                for name, c in children.items():
                    times[name].append(c.ask(do="time", case=case, size=size))
            (ow, oc), (tw, tc) = (
                (statistics.median(t["wall_ms"] for t in times[n]), statistics.median(t["cpu_ms"] for t in times[n]))
                for n in CONTENDERS
            )
            print(
                f"| {case} | {size} | {ow:.2f} / {oc:.2f} | {tw:.2f} / {tc:.2f} | {tw / ow:.2f}x / {tc / oc:.2f}x |",
                flush=True,
            )
    finally:
        for c in children.values():
            c.close()


if __name__ == "__main__":
    main()
