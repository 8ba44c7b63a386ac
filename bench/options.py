"""BertTokenizer's speed options side by side: parallel_shards and algorithm, against tensorflow_text.

    python bench/options.py [--passes 10] [--compat tf_text|hf] [--shards 1 2 3 4]

Every pass runs each contender once over all batches (1000 lines, as string
tensors) of the English and multilingual samples, contenders in turn, so that
a busy machine slows them alike; prints each one's median pass time and the
ratio of tensorflow_text.BertTokenizer's median to it. Ids are checked equal first.
"""

from __future__ import annotations

import sys

sys.path[:] = [p for p in sys.path if not p.endswith("bench")]  # see bench/tokenize.py

import argparse
import importlib.util
import pathlib
import statistics
import time

import numpy as np
import tensorflow as tf
import tensorflow_text as text
from tqdm import tqdm

import tf_wordpiece as twp

_spec = importlib.util.spec_from_file_location("bench_tokenize", pathlib.Path(__file__).with_name("tokenize.py"))
bench_tokenize = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_tokenize)


def contenders(compat: str, shards: list[int]) -> dict:
    spec = [tf.TensorSpec([None], tf.string)]
    flat = lambda tok: tf.function(lambda s: tok.tokenize(s).flat_values, input_signature=spec)  # noqa: E731
    run = {"tensorflow_text.BertTokenizer": flat(text.BertTokenizer(str(bench_tokenize.VOCAB), lower_case=True))}
    for algorithm in ("maxmatch", "linmaxmatch"):
        for n in shards:
            tok = twp.BertTokenizer(
                str(bench_tokenize.VOCAB), lower_case=True, compat=compat, algorithm=algorithm, parallel_shards=n
            )
            run[f"tf_wordpiece ({algorithm}, parallel_shards={n})"] = flat(tok)
    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passes", type=int, default=10)
    parser.add_argument("--compat", choices=["tf_text", "hf"], default="tf_text")
    parser.add_argument("--shards", type=int, nargs="+", default=[1, 2, 4])
    args = parser.parse_args()
    run = contenders(args.compat, args.shards)
    print(f"| corpus | tokenizer (compat={args.compat}) | median ms per batch | vs tensorflow_text.BertTokenizer |")
    print("|---|---|---|---|")
    for corpus, lines in bench_tokenize.corpora().items():
        batches = [tf.constant([s.encode("utf-8") for s in lines[i : i + 1000]]) for i in range(0, len(lines), 1000)]
        ours = [name for name in run if name.startswith("tf_wordpiece")]
        for batch in batches:
            first, *others = (run[name](batch).numpy() for name in ours)
            if not all(np.array_equal(first, ids) for ids in others):
                raise SystemExit("the options change ids")
        seconds = {name: [] for name in run}
        for _ in tqdm(range(args.passes), desc=f"timing {corpus}", leave=False):
            for name, fn in run.items():
                start = time.perf_counter()
                for batch in batches:
                    fn(batch)
                seconds[name].append(time.perf_counter() - start)
        median = {name: statistics.median(values) for name, values in seconds.items()}
        for name, value in median.items():
            ratio = median["tensorflow_text.BertTokenizer"] / value
            print(f"| {corpus} | {name} | {value / len(batches) * 1e3:.2f} | {ratio:.2f}x |")
    print(f"\nmedians of {args.passes} interleaved passes, batch 1000")


if __name__ == "__main__":
    main()
