"""Per-call cost where users run a tokenizer: batch 1 to 4096, and the Transformer tutorial's tf.data pipeline.

    python bench/latency.py [--repeats 5] [--batches 1,16,64,256,1000,4096] [--part calls|pipeline]
                            [--cores string,xla] [--baseline SAVEDMODEL ...] [--ways both|batch]

`calls`: one `tf.function` call per batch of held-out multilingual lines
(bert-base-uncased, lower_case), `tokenize(...).merge_dims(-2, -1)`: tf_wordpiece
(default settings, and each `--cores` choice: `xla` is the numeric core compiled
by XLA, `numeric` the same without XLA), tensorflow_text's BertTokenizer and
FastBertTokenizer, and Hugging Face `encode_batch`; ids are checked equal first.
The numeric core's first call per batch-size bucket compiles: its first pass
over each size is printed apart (seconds), the medians come after it. Wall and CPU (process)
milliseconds per call, medians of interleaved passes, and our ratio to each
TensorFlow peer in CPU time: with every core busy (a tf.data pipeline on
AUTOTUNE, a loaded server) CPU time is what a call costs.

`pipeline`: the subword tutorial's pt/en converter, exported with
`tf-wordpiece export`'s module and reloaded with `tf.saved_model.load`, in the
Transformer tutorial's `prepare_batch` (`.batch(64).map(prepare_batch, AUTOTUNE)`,
trim to 128, `.to_tensor()`), and in a per-example `map` before `padded_batch`,
against the tutorial's own converter built on `tensorflow_text.BertTokenizer`
with the same vocab files. Seconds for one pass over the sample, wall and CPU,
in two parts: `iter()` (building the iterator instantiates the map function,
once per epoch) and the batches. Then the reloaded `en.tokenize` per batch of
64 (and of 1) from a Python loop and inside `tf.data`, once its iterator is built.
`--baseline` adds converters already exported (e.g. by `tf-wordpiece export` at
an older commit), loaded in the same process and timed interleaved with the rest.
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import sys
import tempfile
import time
from typing import Sequence

sys.path[:] = [p for p in sys.path if not p.endswith("bench")]  # bench/tokenize.py shadows the stdlib's

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
import tensorflow_text as text  # noqa: E402
from tokenizers import Tokenizer  # noqa: E402
from tqdm import tqdm  # noqa: E402

import tf_wordpiece as twp  # noqa: E402
from tf_wordpiece.export import converter  # noqa: E402
from tf_wordpiece.vocab import write_vocab_file  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]
VOCAB = ROOT / "tests" / "data" / "bert-base-uncased" / "vocab.txt"
TOKENIZER_JSON = ROOT / "tests" / "data" / "bert-base-uncased" / "tokenizer.json"
MAX_TOKENS = 128


def clocked(work) -> tuple[float, float]:
    """(wall, CPU) seconds of `work()`; CPU is this process's, all threads."""
    wall, cpu = time.perf_counter(), time.process_time()
    work()
    return time.perf_counter() - wall, time.process_time() - cpu


SPEC = [tf.TensorSpec([None], tf.string)]


def merged(tok):
    return tf.function(lambda s: tok.tokenize(s).merge_dims(-2, -1).flat_values, input_signature=SPEC)


HF_MODE = merged(twp.BertTokenizer(str(VOCAB), lower_case=True, compat="hf"))  # checks HF's ids, not timed


def call_contenders(cores: list[str]) -> dict:
    fast = text.FastBertTokenizer(VOCAB.read_text(encoding="utf-8").splitlines(), lower_case_nfd_strip_accents=True)
    hf = Tokenizer.from_file(str(TOKENIZER_JSON))
    hf.no_padding()
    hf.no_truncation()
    ours = {
        f"tf_wordpiece core={core}": merged(twp.BertTokenizer(str(VOCAB), lower_case=True, core=core)) for core in cores
    }
    return {
        **ours,
        "text.BertTokenizer": merged(text.BertTokenizer(str(VOCAB), lower_case=True)),
        "text.FastBertTokenizer": tf.function(lambda s: fast.tokenize(s).flat_values, input_signature=SPEC),
        "HF encode_batch": lambda batch: [e.ids for e in hf.encode_batch(batch, add_special_tokens=False)],
    }


def per_call(run: dict, lines: list[str], batch: int, *, repeats: int) -> dict[str, tuple[float, float]]:
    """Median (wall, CPU) milliseconds per call over `repeats` interleaved passes of a few calls each."""
    batches = [lines[i : i + batch] for i in range(0, min(len(lines), max(batch * 4, 256)), batch)][:64]
    tensors = [tf.constant(b) for b in batches]
    first_pass = {}
    ours = {}
    for name in run:
        if name.startswith("tf_wordpiece"):  # the first pass compiles the numeric core's buckets
            first_pass[name] = clocked(
                lambda: ours.setdefault(name, np.concatenate([run[name](t).numpy() for t in tensors]))
            )[0]
    reference = next(iter(ours.values()))
    for name in ("text.BertTokenizer", "text.FastBertTokenizer"):
        if not np.array_equal(reference, np.concatenate([run[name](t).numpy() for t in tensors])):
            raise SystemExit(f"batch {batch}: ids differ from {name}")
    for name, ids in ours.items():
        if not np.array_equal(reference, ids):
            raise SystemExit(f"batch {batch}: {name}'s ids differ")
    ours_hf = np.concatenate([HF_MODE(t).numpy() for t in tensors])  # HF's peer is compat="hf"
    if ours_hf.tolist() != [i for b in batches for ids in run["HF encode_batch"](b) for i in ids]:
        raise SystemExit(f"batch {batch}: ids differ from HF encode_batch")
    samples = {name: [] for name in run}
    for _ in range(repeats):
        for name, fn in run.items():
            inputs = batches if name.startswith("HF") else tensors
            wall, cpu = clocked(lambda: [fn(x) for x in inputs])
            samples[name].append((wall * 1e3 / len(inputs), cpu * 1e3 / len(inputs)))
    medians = {
        name: (statistics.median(w for w, _ in s), statistics.median(c for _, c in s)) for name, s in samples.items()
    }
    return medians, first_pass


def print_calls(lines: list[str], batch_sizes: list[int], repeats: int, cores: list[str]) -> None:
    run = call_contenders(cores)
    ours = [name for name in run if name.startswith("tf_wordpiece")]
    string = "tf_wordpiece core=string" if "tf_wordpiece core=string" in run else None
    others = [name for name in ours if name != string] if string else []
    print("\n## Per call (ms, wall / CPU; median of interleaved passes)\n")
    print(
        f"| batch | {' | '.join(run)} | "
        + " | ".join(f"{name.split()[-1]}: CPU vs Bert | CPU vs FastBert | wall vs FastBert" for name in ours)
        + "".join(f" | {name.split()[-1]}: CPU vs core=string" for name in others)
        + " | first pass (s) |"
    )
    print("|---|" + "---|" * (len(run) + 3 * len(ours) + len(others) + 1))
    for batch in tqdm(batch_sizes, desc="batch sizes", leave=False):
        ms, first_pass = per_call(run, lines, batch, repeats=repeats)
        cells = " | ".join(f"{w:.2f} / {c:.2f}" for w, c in ms.values())
        bert, fast = ms["text.BertTokenizer"], ms["text.FastBertTokenizer"]
        ratios = " | ".join(
            f"{bert[1] / ms[n][1]:.2f}x | {fast[1] / ms[n][1]:.2f}x | {fast[0] / ms[n][0]:.2f}x" for n in ours
        )
        ratios += "".join(f" | {ms[string][1] / ms[n][1]:.2f}x" for n in others)
        compiled = ", ".join(f"{n.split()[-1]} {first_pass[n]:.1f}" for n in ours)
        print(f"| {batch} | {cells} | {ratios} | {compiled} |", flush=True)


class TutorialConverterTokenizer(tf.Module):
    """The subword tutorial's CustomTokenizer, on tensorflow_text.BertTokenizer (the peer of the pipeline part)."""

    def __init__(self, vocab_path: str):
        super().__init__()
        self.tokenizer = text.BertTokenizer(vocab_path, lower_case=True)
        vocab = pathlib.Path(vocab_path).read_text(encoding="utf-8").splitlines()
        self.start, self.end = vocab.index("[START]"), vocab.index("[END]")

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
    def tokenize(self, strings):
        ids = self.tokenizer.tokenize(strings).merge_dims(-2, -1)
        count = ids.bounding_shape()[0]
        starts = tf.fill([count, 1], tf.constant(self.start, tf.int64))
        ends = tf.fill([count, 1], tf.constant(self.end, tf.int64))
        return tf.concat([starts, ids, ends], axis=1)


def pipelines(pt_en, pairs: list[tuple[str, str]], *, ways: str = "both") -> dict:
    """The tutorial's two ways to feed a Transformer: batch then tokenize, or tokenize each example then batch."""

    def prepare_batch(pt, en):
        return pt_en.pt.tokenize(pt)[:, :MAX_TOKENS].to_tensor(), pt_en.en.tokenize(en)[:, :MAX_TOKENS].to_tensor()

    def prepare_one(pt, en):
        return pt_en.pt.tokenize(pt[None])[0][:MAX_TOKENS], pt_en.en.tokenize(en[None])[0][:MAX_TOKENS]

    source = tf.data.Dataset.from_tensor_slices(([pt for pt, _ in pairs], [en for _, en in pairs])).cache()
    for _ in source:
        pass
    batched = {"batch(64).map(prepare_batch, AUTOTUNE)": source.batch(64).map(prepare_batch, tf.data.AUTOTUNE)}
    if ways == "batch":
        return batched
    return batched | {
        "map(prepare_one, AUTOTUNE).padded_batch(64)": source.map(prepare_one, tf.data.AUTOTUNE).padded_batch(64)
    }


def timed_pass(dataset) -> tuple[tuple[float, float], tuple[float, float]]:
    """One pass: ((wall, CPU) seconds of `iter()`, (wall, CPU) seconds of the batches after it).

    `iter()` instantiates the map function (every epoch in Keras `fit` does);
    the batches after it are what a long epoch costs.
    """
    iterators = []
    start = clocked(lambda: iterators.append(iter(dataset)))
    batches = clocked(lambda: [None for _ in iterators.pop()])
    return start, batches


def print_pipeline(repeats: int, cores: list[str], baselines: Sequence[str] = (), *, ways: str = "both") -> None:
    pairs = converter.embedded_pairs()
    with tempfile.TemporaryDirectory() as folder:
        paths = {}
        for index, language in enumerate(("pt", "en")):
            paths[language] = f"{folder}/{language}_vocab.txt"
            write_vocab_file(paths[language], converter.learn_vocab([p[index] for p in pairs], vocab_size=8000))
        peer = tf.Module()
        peer.pt, peer.en = TutorialConverterTokenizer(paths["pt"]), TutorialConverterTokenizer(paths["en"])
        sample = tf.constant([en for _, en in pairs[:256]])
        loaded = {}
        for core in cores:
            module = converter.Converter(paths["pt"], paths["en"], lower_case=True, core=core)
            converter.save_atomically(module, f"{folder}/ours_{core}")
            loaded[f"core={core}"] = tf.saved_model.load(f"{folder}/ours_{core}")
            if loaded[f"core={core}"].en.tokenize(sample).to_list() != peer.en.tokenize(sample).to_list():
                raise SystemExit(f"pipeline: the exported converter's ids (core={core}) differ from the tutorial's")
        for path in baselines:  # a converter exported elsewhere: its own vocabulary, so no ids check here
            loaded[f"saved {pathlib.Path(path).name}"] = tf.saved_model.load(path)
        ours = list(loaded)
        runs = {name: pipelines(loaded[name], pairs, ways=ways) for name in ours}
        runs["tensorflow_text"] = pipelines(peer, pairs, ways=ways)
        passes = {(who, how): [] for who, by_way in runs.items() for how in by_way}
        for _ in tqdm(range(repeats), desc="pipeline passes", leave=False):
            for who, how in passes:
                passes[(who, how)].append(timed_pass(runs[who][how]))
        loop_vs_map = {name: loop_and_map(loaded[name], pairs, repeats) for name in ours}

    def median(who, how, part, clock):
        return statistics.median(p[part][clock] for p in passes[(who, how)])

    print(f"\n## The tutorial's pipeline ({len(pairs)} pt/en pairs; s per pass, wall / CPU; median of {repeats})\n")
    print(
        "tf_wordpiece's converter exported and reloaded with each core, against the tutorial's converter on "
        "tensorflow_text. `iter()` builds the iterator (it instantiates the map function; Keras `fit` does it every "
        "epoch); the batches are the rest of the pass, what a long epoch costs. Ratios: tensorflow_text's time / "
        "ours (above 1: ours is faster).\n"
    )
    print(
        "| pipeline | part | tensorflow_text converter | "
        + " | ".join(f"{who} | wall ratio | CPU ratio" for who in runs if who != "tensorflow_text")
        + " |"
    )
    print("|---|---|---|" + "---|---|---|" * len(ours))
    for how in runs["tensorflow_text"]:
        for part, label in ((1, "batches"), (0, "`iter()`")):
            p = (median("tensorflow_text", how, part, 0), median("tensorflow_text", how, part, 1))
            cells = []
            for name in ours:
                o = (median(name, how, part, 0), median(name, how, part, 1))
                cells.append(f"{o[0]:.2f} / {o[1]:.2f} | {p[0] / o[0]:.2f}x | {p[1] / o[1]:.2f}x")
            print(f"| `{how}` | {label} | {p[0]:.2f} / {p[1]:.2f} | " + " | ".join(cells) + " |")
    for name, figures in loop_vs_map.items():
        print(
            f"\nThe reloaded `en.tokenize` ({name}) on batches of 64, ms per batch (wall / CPU): "
            + "; ".join(f"{where} {w:.2f} / {c:.2f}" for where, (w, c) in figures.items())
        )


def loop_and_map(module, pairs, repeats: int) -> dict[str, tuple[float, float]]:
    """The same function per batch from a Python loop (batches of 64, and of 1: the per-call cost) and inside
    `tf.data` (an iterator built beforehand)."""
    english = [en for _, en in pairs]
    batches = [tf.constant(english[i : i + 64]) for i in range(0, len(english), 64)]
    singles = [tf.constant(english[i : i + 1]) for i in range(0, len(english), 64)]
    dataset = tf.data.Dataset.from_tensor_slices(english).batch(64).map(module.en.tokenize)
    samples = {"Python loop": [], "Python loop, batch 1": [], "tf.data map": []}
    for _ in range(repeats):
        samples["Python loop"].append(clocked(lambda: [module.en.tokenize(x) for x in batches]))
        samples["Python loop, batch 1"].append(clocked(lambda: [module.en.tokenize(x) for x in singles]))
        samples["tf.data map"].append(timed_pass(dataset)[1])
    return {
        where: tuple(statistics.median(s[i] for s in runs) * 1e3 / len(batches) for i in (0, 1))
        for where, runs in samples.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--batches", default="1,16,64,256,1000,4096")
    parser.add_argument("--part", choices=["calls", "pipeline", "all"], default="all")
    parser.add_argument("--cores", default="string,xla", help="BertTokenizer cores to time (string, numeric, xla)")
    parser.add_argument(
        "--baseline",
        action="append",
        default=[],
        metavar="SAVEDMODEL",
        help="pipeline: also time this exported converter (e.g. from an older commit), interleaved",
    )
    parser.add_argument(
        "--ways",
        choices=["both", "batch"],
        default="both",
        help="pipeline: both of the tutorial's ways, or only batch(64).map(prepare_batch) (the per-example map "
        "takes minutes a pass)",
    )
    args = parser.parse_args()
    lines = (ROOT / "tests" / "data" / "multilingual_dev.txt").read_text(encoding="utf-8").splitlines()
    print(
        f"{tf.config.threading.get_inter_op_parallelism_threads() or 'default'} inter-op threads; "
        "ratios above 1 mean tf_wordpiece is faster"
    )
    if args.part in ("calls", "all"):
        print_calls(lines, [int(b) for b in args.batches.split(",")], args.repeats, args.cores.split(","))
    if args.part in ("pipeline", "all"):
        print_pipeline(args.repeats, args.cores.split(","), args.baseline, ways=args.ways)


if __name__ == "__main__":
    main()
