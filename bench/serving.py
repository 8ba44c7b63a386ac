"""Serving readiness of the numeric core: first-request latency with and without warm-up, and peak memory.

    python bench/serving.py [--part latency|memory|all] [--cores string,numeric,xla] [--mb 50] [--strings 1000000]

`latency`: a converter-like `CustomTokenizer` (bert-base-uncased) with
`core="xla"` is exported with `save_atomically` (which writes TF Serving's
warm-up requests), then each of two fresh processes loads it: one answers a
batch of 64 held-out lines right away (the first request compiles its bucket),
the other first runs the warm-up requests, as TF Serving does at load, then
answers the same batch. Printed: load, warm-up and first-request seconds,
and a later request for comparison. In Python, `NumericCore.warm_up()` does
the same for a tokenizer built in the process.

`memory`: peak resident memory (`/usr/bin/time -v`, one fresh process each) of
`BertTokenizer.tokenize` on one string of `--mb` MB (held-out lines joined
with spaces) and on `--strings` short strings (held-out lines), for each core,
against the same process that builds the tokenizer and the input but does not
tokenize. The numeric core tokenizes batches over `MAX_BATCH_BYTES` in parts.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import re
import subprocess
import sys
import tempfile
import time

sys.path[:] = [p for p in sys.path if not p.endswith("bench")]  # bench/tokenize.py shadows the stdlib's

ROOT = pathlib.Path(__file__).resolve().parents[1]
VOCAB = ROOT / "tests" / "data" / "bert-base-uncased" / "vocab.txt"
RESERVED = ["[PAD]", "[UNK]", "[START]", "[END]"]


def held_out() -> list[str]:
    return (ROOT / "tests" / "data" / "multilingual_dev.txt").read_text(encoding="utf-8").splitlines()


def child_latency(model: str, warm: bool) -> None:
    import tensorflow as tf

    from tf_wordpiece.numeric.serving import read_warmup_requests

    batch = tf.constant(held_out()[:64])
    start = time.perf_counter()
    loaded = tf.saved_model.load(model)
    serve = loaded.signatures["serving_default"]
    figures = {"load_s": time.perf_counter() - start}
    if warm:
        start = time.perf_counter()
        for signature, inputs in read_warmup_requests(model):
            loaded.signatures[signature](**{k: tf.constant(v) for k, v in inputs.items()})
        figures["warm_up_s"] = time.perf_counter() - start
    for label in ("first_request_s", "second_request_s"):
        start = time.perf_counter()
        serve(strings=batch)["token_ids"].numpy()
        figures[label] = time.perf_counter() - start
    print(json.dumps(figures))


def child_memory(core: str, kind: str, megabytes: int, strings: int, tokenize: bool) -> None:
    import tensorflow as tf

    import tf_wordpiece as twp

    lines = held_out()
    if kind == "long":
        text = " ".join(lines)
        inputs = [(text * (megabytes * 2**20 // len(text.encode()) + 1)).encode()[: megabytes * 2**20]]
    else:
        inputs = [line.encode() for line in (lines * (strings // len(lines) + 1))[:strings]]
    tokenizer = twp.BertTokenizer(str(VOCAB), lower_case=True, core=core)
    batch = tf.constant(inputs)
    start = time.perf_counter()
    pieces = int(tf.size(tokenizer.tokenize(batch).flat_values)) if tokenize else 0
    print(json.dumps({"seconds": time.perf_counter() - start, "pieces": pieces, "bytes": sum(map(len, inputs))}))


def run_child(args: list[str], *, timed: bool = False, timeout: int = 3600) -> tuple[dict, float | None]:
    command = [sys.executable, __file__, "--child", *args]
    if timed:
        command = ["/usr/bin/time", "-v", *command]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr)
    if proc.returncode != 0:
        return {"error": proc.stderr.strip().splitlines()[-1][:200]}, float(rss.group(1)) / 1024 if rss else None
    return json.loads(proc.stdout.strip().splitlines()[-1]), float(rss.group(1)) / 1024 if rss else None


def print_latency() -> None:
    import tensorflow as tf  # noqa: F401

    from tf_wordpiece.export.converter import save_atomically
    from tf_wordpiece.export.module import CustomTokenizer
    from tf_wordpiece.vocab import write_vocab_file

    with tempfile.TemporaryDirectory() as folder:
        tokens = VOCAB.read_text(encoding="utf-8").splitlines()
        tokens[tokens.index("[unused0]")], tokens[tokens.index("[unused1]")] = "[START]", "[END]"
        write_vocab_file(f"{folder}/vocab.txt", tokens)
        module = CustomTokenizer(RESERVED, f"{folder}/vocab.txt", lower_case=True, core="xla")
        start = time.perf_counter()
        save_atomically(module, f"{folder}/model", signatures=module.signatures())
        print(f"export with warm-up requests: {time.perf_counter() - start:.1f} s")
        cold, _ = run_child(["latency", f"{folder}/model", "cold"])
        warm, _ = run_child(["latency", f"{folder}/model", "warm"])
    print("\n| process | load (s) | warm-up at load (s) | first request (s) | second request (s) |")
    print("|---|---|---|---|---|")
    for label, figures in (("no warm-up", cold), ("warm-up requests at load", warm)):
        if "error" in figures:
            print(f"| {label} | error: {figures['error']} |")
            continue
        warm_up = f"{figures['warm_up_s']:.2f}" if "warm_up_s" in figures else "-"
        print(
            f"| {label} | {figures['load_s']:.2f} | {warm_up} | {figures['first_request_s']:.3f} | "
            f"{figures['second_request_s']:.4f} |"
        )


def print_memory(cores: list[str], megabytes: int, strings: int) -> None:
    print("\n| input | core | peak RSS (MB) | of which tokenizing (MB) | seconds | pieces |")
    print("|---|---|---|---|---|---|")
    for kind, label in (("long", f"one string of {megabytes} MB"), ("short", f"{strings:,} short strings")):
        for core in cores:
            common = [core, kind, str(megabytes), str(strings)]
            _, base = run_child(["memory", *common, "no"], timed=True)
            figures, peak = run_child(["memory", *common, "yes"], timed=True)
            if "error" in figures:
                print(f"| {label} | {core} | {peak or 0:.0f} | - | error: {figures['error']} | - |", flush=True)
                continue
            print(
                f"| {label} | {core} | {peak:.0f} | {peak - base:.0f} | {figures['seconds']:.1f} | "
                f"{figures['pieces']:,} |",
                flush=True,
            )


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        kind, *rest = sys.argv[2:]
        if kind == "latency":
            child_latency(rest[0], rest[1] == "warm")
        else:
            child_memory(rest[0], rest[1], int(rest[2]), int(rest[3]), rest[4] == "yes")
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=["latency", "memory", "all"], default="all")
    parser.add_argument("--cores", default="string,numeric,xla")
    parser.add_argument("--mb", type=int, default=50)
    parser.add_argument("--strings", type=int, default=1_000_000)
    args = parser.parse_args()
    if args.part in ("latency", "all"):
        print_latency()
    if args.part in ("memory", "all"):
        print_memory(args.cores.split(","), args.mb, args.strings)


if __name__ == "__main__":
    main()
