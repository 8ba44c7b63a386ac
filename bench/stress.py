"""Load and hostile inputs: a loaded SavedModel under threads and tf.data, and huge or degenerate batches.

    python bench/stress.py                 # everything (a few minutes)
    python bench/stress.py --part load     # 8 threads and tf.data AUTOTUNE only
    python bench/stress.py --part huge     # the huge inputs only, one fresh process per case

load: the multilingual sample (batches of 1000) through a CustomTokenizer SavedModel,
reloaded with tf.saved_model.load, from 1 thread, from --threads threads at once,
and from tf.data with num_parallel_calls=AUTOTUNE; ids must equal the one-thread
ids exactly; prints MB/s and the ratio to one thread.

huge: each case runs in its own process so that its peak RSS is its own; prints
the time, the peak RSS and its growth over the process after TensorFlow and the
tokenizer are loaded. tensorflow_text.BertTokenizer runs the cases it can in
the same process, for comparison. Results are checked: the unknown token where
the word limit says, empty rows for empty strings, and a 50 MB string's ids
equal to its lines' ids.
"""

from __future__ import annotations

import sys

# bench/tokenize.py is named like the standard library's `tokenize`: keep this folder off the import path.
sys.path[:] = [p for p in sys.path if not p.endswith("bench")]

import argparse
import concurrent.futures
import json
import pathlib
import resource
import subprocess
import tempfile
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
VOCAB = ROOT / "tests" / "data" / "bert-base-uncased" / "vocab.txt"
SAMPLE = ROOT / "tests" / "data" / "multilingual_dev.txt"
UNK = 100  # [UNK] in bert-base-uncased
HUGE_CASES = ["string_5mb", "string_50mb", "empty_1m", "word_1m_chars", "word_1m_chars_hf", "mixed"]


def sample_lines() -> list[str]:
    return SAMPLE.read_text(encoding="utf-8").splitlines()


def flat(ids) -> tuple[np.ndarray, ...]:
    """A RaggedTensor's row partitions and values as NumPy arrays: exact and cheap to compare."""
    return tuple(s.numpy() for s in ids.nested_row_splits) + (ids.flat_values.numpy(),)


def same(a: tuple, b: tuple) -> bool:
    return len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b))


def tutorial_vocab(folder: pathlib.Path) -> str:
    tokens = VOCAB.read_text(encoding="utf-8").splitlines()
    tokens[tokens.index("[unused0]")], tokens[tokens.index("[unused1]")] = "[START]", "[END]"
    path = folder / "vocab.txt"
    path.write_text("\n".join(tokens) + "\n", encoding="utf-8")
    return str(path)


def load(threads: int, repeats: int) -> None:
    import tensorflow as tf

    from tf_wordpiece.export.converter import save_atomically
    from tf_wordpiece.export.module import CustomTokenizer

    lines = sample_lines()
    megabytes = sum(len(s.encode()) for s in lines) / 1e6
    batches = [tf.constant(lines[i : i + 1000]) for i in range(0, len(lines), 1000)]
    with tempfile.TemporaryDirectory() as folder:
        module = CustomTokenizer(
            ["[PAD]", "[UNK]", "[START]", "[END]"], tutorial_vocab(pathlib.Path(folder)), lower_case=True
        )
        save_atomically(module, f"{folder}/model")
        model = tf.saved_model.load(f"{folder}/model")
        want = [flat(model.tokenize(b)) for b in batches]  # warm-up and the reference

        def one_thread():
            return [flat(model.tokenize(b)) for b in batches]

        def many_threads():
            with concurrent.futures.ThreadPoolExecutor(threads) as pool:
                return list(pool.map(lambda b: flat(model.tokenize(b)), batches))

        dataset = tf.data.Dataset.from_tensor_slices(lines).batch(1000)
        dataset = dataset.map(model.tokenize, num_parallel_calls=tf.data.AUTOTUNE, deterministic=True)
        dataset = dataset.prefetch(tf.data.AUTOTUNE)  # built once: the timing is the pipeline, not its tracing

        def data_pipeline():
            return [flat(ids) for ids in dataset]

        print(f"{len(lines)} lines, {megabytes:.2f} MB, {len(batches)} batches of 1000; best of {repeats}")
        base = None
        for name, run in [
            ("1 thread", one_thread),
            (f"{threads} threads", many_threads),
            ("tf.data AUTOTUNE", data_pipeline),
        ]:
            best = float("inf")
            for _ in range(repeats):
                start = time.perf_counter()
                got = run()
                best = min(best, time.perf_counter() - start)
                if len(got) != len(want) or not all(same(g, w) for g, w in zip(got, want)):
                    raise SystemExit(f"{name}: ids differ from the one-thread ids")
            base = base or best
            print(f"| {name} | {megabytes / best:.2f} MB/s | {base / best:.2f}x | ids identical |")


def huge_case(name: str) -> dict:
    """One case, in this process: its result checked, its time and peak RSS."""
    import tensorflow as tf

    import tf_wordpiece as twp

    compat = "hf" if name.endswith("_hf") else "tf_text"
    ours = twp.BertTokenizer(str(VOCAB), lower_case=True, compat=compat)
    ours.tokenize(["warm up"])
    lines = sample_lines()
    report: dict = {"case": name, "rss_before_mb": peak_rss_mb()}
    line_ids = (
        [flat(ours.tokenize(lines[i : i + 1000]))[-1] for i in range(0, len(lines), 1000)]
        if "string" in name or name == "mixed"
        else None
    )
    if line_ids is not None:
        line_ids = np.concatenate(line_ids)
        report["rss_before_mb"] = peak_rss_mb()

    def big_string(megabytes: int) -> tuple[str, np.ndarray]:
        text = "\n".join(lines)
        copies = -(-megabytes * 1_000_000 // len(text.encode()))
        return "\n".join([text] * copies), np.tile(line_ids, copies)

    checks = []
    if name.startswith("string_"):
        text, expected = big_string(int(name.split("_")[1].removesuffix("mb")))
        inputs, report["input"] = [text], f"1 string of {len(text.encode()) / 1e6:.1f} MB"
        checks.append(lambda ids: np.array_equal(ids.flat_values.numpy(), expected))
    elif name == "empty_1m":
        inputs, report["input"] = [""] * 1_000_000, "1,000,000 empty strings"
        checks.append(lambda ids: ids.shape[0] == 1_000_000 and ids.flat_values.shape[0] == 0)
    elif name.startswith("word_1m_chars"):
        inputs, report["input"] = ["a" * 1_000_000], f"1 word of 1,000,000 characters (compat={compat})"
        checks.append(lambda ids: ids.to_list() == [[[UNK]]])
    else:
        text, expected = big_string(50)
        inputs = [text, "", "a" * 1_000_000] + [""] * 1_000_000 + lines[:1000]
        report["input"] = "[50 MB string, '', 1M-char word] + 1,000,000 empty strings + 1,000 sample lines"
        checks += [
            lambda ids: np.array_equal(ids[0].flat_values.numpy(), expected),
            lambda ids: ids[1:2].flat_values.shape[0] == 0 and ids[2].to_list() == [[UNK]],
            lambda ids: ids[3:1_000_003].flat_values.shape[0] == 0,
            lambda ids: np.array_equal(
                ids[1_000_003:].flat_values.numpy(), line_ids[: ids[1_000_003:].flat_values.shape[0]]
            ),
        ]
    strings = tf.constant(inputs)
    del inputs
    start = time.perf_counter()
    ids = ours.tokenize(strings)
    report["seconds"] = time.perf_counter() - start
    report["peak_rss_mb"] = peak_rss_mb()
    report["correct"] = all(check(ids) for check in checks)
    if name in ("empty_1m", "word_1m_chars"):  # the peer, same input, after ours (peak RSS is ours above)
        import tensorflow_text as text

        peer = text.BertTokenizer(str(VOCAB), lower_case=True)
        start = time.perf_counter()
        theirs = peer.tokenize(strings)
        report["peer_seconds"] = time.perf_counter() - start
        report["peer_equal"] = (
            theirs.to_list() == ids.to_list() if name != "empty_1m" else same(flat(theirs), flat(ids))
        )
    return report


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux reports KiB


def huge(cases: list[str]) -> None:
    print("| input | time | peak RSS (growth) | tensorflow_text | correct |")
    print("|---|---|---|---|---|")
    for name in cases:
        proc = subprocess.run([sys.executable, __file__, "--case", name], capture_output=True, text=True)
        if proc.returncode != 0:
            raise SystemExit(f"{name} failed:\n{proc.stderr[-3000:]}")
        r = json.loads(proc.stdout.strip().splitlines()[-1])
        peer = f"{r['peer_seconds']:.2f} s, ids equal: {r['peer_equal']}" if "peer_seconds" in r else "-"
        print(
            f"| {r['input']} | {r['seconds']:.2f} s | {r['peak_rss_mb'] / 1024:.2f} GB "
            f"(+{(r['peak_rss_mb'] - r['rss_before_mb']) / 1024:.2f} GB) | {peer} | {r['correct']} |",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=["load", "huge", "all"], default="all")
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--case", choices=HUGE_CASES, help=argparse.SUPPRESS)  # one huge case (internal)
    args = parser.parse_args()
    if args.case:
        print(json.dumps(huge_case(args.case)))
        return
    if args.part in ("load", "all"):
        load(args.threads, args.repeats)
    if args.part in ("huge", "all"):
        huge(HUGE_CASES)


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
