"""Tokenizing throughput on tf.data service, 1 and 2 workers, against the same pipeline run locally.

    python bench/data_service.py [--cores string,numeric] [--copies 2] [--repeats 3] [--batch-size 64]

The Transformer tutorial's pipeline (`batch(64).map(prepare_batch, AUTOTUNE)`, the converter's `.pt` and
`.en` tokenizers, ids cut to 128; examples/data_service/tokenize_on_service.py) over the embedded pt/en
sample repeated `--copies` times, with the converter `tf-wordpiece export` writes (full sample, vocab
8000) for each `--cores` choice, reloaded with `tf.saved_model.load`. Five ways to run it, passes taking
turns: in this process; on a local tf.data service cluster of one dispatcher and 1 worker, and of 2
workers (`distribute(processing_mode="distributed_epoch")`; every server its own Python process, in which
tf_wordpiece and tensorflow_text cannot be imported), each with the tutorial's source (one split per
example) and with one split per batch (`text_batches(..., split_by_batch=True)`). Every example's ids
are checked against the local pipeline's first. Prints, per way, the median of `--repeats` passes:
examples per second, wall seconds, and CPU seconds of all the processes involved (this one plus the
cluster's servers, read from /proc, so Linux only), with ratios to the local pipeline.

On one machine the workers share its cores with each other and with the client: these figures show the
service's overhead, not a cluster's speed-up, which needs workers on other machines.
"""

from __future__ import annotations

import argparse
import datetime
import os
import pathlib
import statistics
import sys
import tempfile
import time

sys.path[:] = [p for p in sys.path if not p.endswith("bench")]  # bench/tokenize.py shadows the stdlib's
ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples" / "data_service"))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import tensorflow as tf  # noqa: E402
from local_cluster import LocalCluster  # noqa: E402
from tokenize_on_service import copies_of, example_rows, on_service, sample_pairs, tokenized_batches  # noqa: E402
from tqdm import tqdm  # noqa: E402

from tf_wordpiece.export.converter import export_converter  # noqa: E402

UNIMPORTABLE = ("tf_wordpiece", "tensorflow_text")


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU seconds of this process and of `pids` so far (Linux /proc)."""
    total = time.process_time()
    for pid in pids:
        fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime
    return total


def timed_pass(dataset: tf.data.Dataset, pids: list[int]) -> tuple[int, float, float, float]:
    """(examples, wall seconds, CPU seconds of all the processes, wall seconds to the first batch) of one pass.

    The first batch waits for the iterator: on the service, a new job, the graph sent and built on the workers.
    """
    wall, cpu = time.perf_counter(), cpu_seconds(pids)
    examples, first = 0, None
    for pt, _ in dataset:
        first = first or time.perf_counter() - wall
        examples += int(tf.shape(pt)[0])
    return examples, time.perf_counter() - wall, cpu_seconds(pids) - cpu, first


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cores", default="string,numeric", help="converter cores to export and run")
    parser.add_argument("--copies", type=int, default=2, help="passes over the sample per pass (default 2)")
    parser.add_argument("--repeats", type=int, default=3, help="timed passes per way (default 3)")
    parser.add_argument("--batch-size", type=int, default=64)
    args = parser.parse_args()
    cores = args.cores.split(",")
    pairs = sample_pairs() * args.copies
    print(f"# tf.data service: {len(pairs)} pt/en pairs per pass, batch {args.batch_size}")
    print(
        f"{datetime.date.today()}, TensorFlow {tf.__version__}, {os.cpu_count()} cores, load average "
        f"{', '.join(f'{x:.1f}' for x in os.getloadavg())} at the start; command: python bench/data_service.py "
        + " ".join(sys.argv[1:])
    )
    with (
        tempfile.TemporaryDirectory() as folder,
        LocalCluster(1, unimportable=UNIMPORTABLE) as one,
        LocalCluster(2, unimportable=UNIMPORTABLE) as two,
    ):
        ways = {}
        for core in tqdm(cores, desc="exporting converters", leave=False):
            export_converter(f"{folder}/{core}", sample_pairs(), make_zip=False, core=core)
            tokenizers = tf.saved_model.load(f"{folder}/{core}")
            local = tokenized_batches(tokenizers, pairs, batch_size=args.batch_size, split_by_batch=False)
            want = example_rows(local)
            ways[(core, "local")] = (local, [])
            for split_by_batch in (False, True):
                source = tokenized_batches(tokenizers, pairs, batch_size=args.batch_size, split_by_batch=split_by_batch)
                for name, cluster in (("1 worker", one), ("2 workers", two)):
                    served = on_service(source, cluster.target, "distributed_epoch")
                    where = f"{name}, a split per {'batch' if split_by_batch else 'example'}"
                    if copies_of(example_rows(served), want) != 1:  # also the warm-up pass
                        raise SystemExit(f"core={core}, {where}: the ids differ from the local pipeline's")
                    ways[(core, where)] = (served, cluster.pids)
        passes = {way: [] for way in ways}
        for _ in tqdm(range(args.repeats), desc="passes", leave=False):
            for way, (dataset, pids) in ways.items():
                passes[way].append(timed_pass(dataset, pids))

    print(
        "\n| core | where | examples/s | wall s | CPU s (all processes) | first batch s | throughput vs local "
        "| CPU vs local |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for core in cores:
        rows = {where: runs for (way_core, where), runs in passes.items() if way_core == core}
        medians = {
            where: [runs[0][0]] + [statistics.median(run[i] for run in runs) for i in (1, 2, 3)]
            for where, runs in rows.items()
        }
        local_rate, local_cpu = medians["local"][0] / medians["local"][1], medians["local"][2]
        for where, (examples, wall, cpu, first) in medians.items():
            rate = examples / wall
            print(
                f"| {core} | {where} | {rate:,.0f} | {wall:.2f} | {cpu:.2f} | {first:.2f} | {rate / local_rate:.2f}x "
                f"| {cpu / local_cpu:.2f}x |"
            )


if __name__ == "__main__":
    main()
