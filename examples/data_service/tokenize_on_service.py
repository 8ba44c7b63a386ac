"""Tokenizes the pt/en sample on a tf.data service cluster with the exported converter, and checks the ids.

    python examples/data_service/tokenize_on_service.py --converter ted_hrlr_translate_pt_en_converter
        [--dispatcher grpc://HOST:5050 | --workers 2] [--mode distributed_epoch|parallel_epochs]

The Transformer tutorial's tokenizing pipeline (`batch(64)`, then `map(prepare_batch)` with the
converter's `.pt` and `.en` tokenizers, ids cut to 128) runs on the service's workers through
`dataset.apply(tf.data.experimental.service.distribute(...))`, and every example's ids are checked
against the same pipeline run here. Without `--dispatcher`, a local cluster is started first: a
dispatcher and `--workers` workers, each a Python process in which tf_wordpiece and tensorflow_text
cannot be imported. The converter's graph, vocabulary tables included, travels to the workers.
"""

from __future__ import annotations

import argparse
import collections
import pathlib
import sys
import time
from importlib import resources

from tf_wordpiece.console import DefaultsOnceHelpFormatter, import_tensorflow_quietly
from tf_wordpiece.messages import check_choice, counted

# TensorFlow's log lines hidden as the command line hides them (TF_WORDPIECE_TF_LOGS=1 shows them); the workers
# (tf_data_server.py, where tf_wordpiece cannot be imported) hide theirs the same way.
tf = import_tensorflow_quietly()

from local_cluster import LocalCluster  # noqa: E402

MAX_TOKENS = 128
MODES = ("distributed_epoch", "parallel_epochs")


def sample_pairs() -> list[tuple[str, str]]:
    """The embedded corpus of `tf-wordpiece export`: (pt, en) pairs."""
    text = (resources.files("tf_wordpiece") / "data" / "pt_en_sample.tsv").read_text(encoding="utf-8")
    return [tuple(line.split("\t")) for line in text.splitlines()[1:] if line.strip()]


def text_batches(pairs: list[tuple[str, str]], *, batch_size: int = 64, split_by_batch: bool = True):
    """(pt, en) string batches [batch_size] (the last one shorter), in order.

    With `split_by_batch=False` this is the tutorial's source, `from_tensor_slices(...).batch(batch_size)`.
    With `split_by_batch=True` (the default) the source is `Dataset.range(number of batches)`, each batch
    gathered from the strings: the same batches, but in `distributed_epoch` mode the dispatcher then hands
    the workers one split per batch instead of one per example (a round trip each), which cut the
    service's CPU time 3x to 4x for the string core (docs/benchmarks.md). A source read from files is split
    by file, which is coarse too.
    """
    pt = tf.constant([pt for pt, _ in pairs])
    en = tf.constant([en for _, en in pairs])
    if not split_by_batch:
        return tf.data.Dataset.from_tensor_slices((pt, en)).batch(batch_size)
    count = tf.size(pt, out_type=tf.int64)

    def batch(index):
        rows = tf.range(index * batch_size, tf.minimum((index + 1) * batch_size, count))
        return tf.gather(pt, rows), tf.gather(en, rows)

    return tf.data.Dataset.range((len(pairs) + batch_size - 1) // batch_size).map(batch)


def tokenized_batches(tokenizers, pairs: list[tuple[str, str]], *, batch_size: int = 64, split_by_batch: bool = True):
    """The tutorial's pipeline: (pt ids, en ids) int64 [batch, longest], 0-padded, each cut to MAX_TOKENS.

    `tokenizers` is the converter: `.pt.tokenize` and `.en.tokenize` (strings [batch] -> ragged ids).
    """

    def prepare_batch(pt, en):
        pt = tokenizers.pt.tokenize(pt)[:, :MAX_TOKENS].to_tensor()
        en = tokenizers.en.tokenize(en)[:, :MAX_TOKENS].to_tensor()
        return pt, en

    source = text_batches(pairs, batch_size=batch_size, split_by_batch=split_by_batch)
    return source.map(prepare_batch, tf.data.AUTOTUNE)


def on_service(dataset: tf.data.Dataset, target: str, mode: str = "distributed_epoch") -> tf.data.Dataset:
    """`dataset`, run by the workers of the dispatcher at `target` (`grpc://HOST:PORT`).

    `distributed_epoch`: the workers share one pass over the source, each example once, in no fixed
    order. `parallel_epochs`: each worker runs the whole pipeline, so each example comes once per worker.
    """
    check_choice("mode", mode, MODES)
    return dataset.apply(tf.data.experimental.service.distribute(processing_mode=mode, service=target))


def example_rows(batches) -> collections.Counter:
    """Each example's ids with the batch's padding removed, counted: batches from any split compare equal."""
    rows = collections.Counter()
    for batch in batches:
        columns = [column.numpy() if hasattr(column, "numpy") else column for column in batch]
        for example in zip(*columns):
            rows[tuple(tuple(int(i) for i in ids if i != 0) for ids in example)] += 1  # 0 is [PAD]
    return rows


def copies_of(served: collections.Counter, local: collections.Counter) -> int:
    """k when `served` holds each example of `local` exactly k times as often (k workers in parallel_epochs), else 0."""
    k = sum(served.values()) // max(1, sum(local.values()))
    return k if k and served == collections.Counter({row: count * k for row, count in local.items()}) else 0


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=DefaultsOnceHelpFormatter)
    parser.add_argument("--converter", required=True, help="the SavedModel folder `tf-wordpiece export` wrote")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--dispatcher", help="an existing cluster's dispatcher, grpc://HOST:PORT")
    where.add_argument("--workers", type=int, default=2, help="workers of the local cluster to start")
    parser.add_argument(
        "--mode",
        choices=MODES,
        default="distributed_epoch",
        help="distributed_epoch: the workers share one pass over the sample; parallel_epochs: each makes a whole pass",
    )
    parser.add_argument(
        "--split-by-example",
        action="store_true",
        help="the tutorial's source (one split per example) instead of one split per batch",
    )
    return parser.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    if not (pathlib.Path(args.converter) / "saved_model.pb").is_file():
        raise SystemExit(f"--converter: {args.converter} holds no SavedModel; write one with `tf-wordpiece export`")
    tokenizers = tf.saved_model.load(args.converter)
    pairs = sample_pairs()
    local = tokenized_batches(tokenizers, pairs, split_by_batch=not args.split_by_example)
    cluster = None if args.dispatcher else LocalCluster(args.workers, unimportable=("tf_wordpiece", "tensorflow_text"))
    try:
        target = args.dispatcher or cluster.start().target
        start = time.perf_counter()
        served = example_rows(on_service(local, target, args.mode))
        seconds = time.perf_counter() - start
    finally:
        if cluster is not None:
            cluster.stop()
    copies = copies_of(served, example_rows(local))
    where = args.dispatcher or f"a local cluster of {counted(args.workers, 'worker')} (TensorFlow only)"
    print(f"{sum(served.values())} examples tokenized on {where} ({args.mode}) in {seconds:.1f} s")
    if copies == 0 or (args.mode == "distributed_epoch" and copies != 1):
        print("ids differ from the local pipeline's")
        return 1
    print("ids equal to the local pipeline's" + (f" ({copies} copies, one per worker)" if copies > 1 else ""))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:  # Ctrl-C: the local cluster was stopped on the way out
        print("interrupted", file=sys.stderr)
        sys.exit(130)
