"""The chunk path's gain: BertTokenizer with and without tokenizing each distinct space-separated chunk once.

    python bench/space_chunks.py [--batch 1000] [--repeats 12]

Each batch runs through every contender in turn (tensorflow_text.BertTokenizer,
then ours with the chunk path off and on, both compat modes), so that a busy
machine slows them alike; prints the best total over `repeats` passes of
each corpus and the ratio to tensorflow_text. Ids are checked equal first.
"""

from __future__ import annotations

import sys

sys.path[:] = [p for p in sys.path if not p.endswith("bench")]  # see bench/tokenize.py

import argparse
import importlib.util
import pathlib
import time

import numpy as np
import tensorflow as tf
import tensorflow_text as text
from tqdm import tqdm

import tf_wordpiece as twp

_spec = importlib.util.spec_from_file_location("bench_tokenize", pathlib.Path(__file__).with_name("tokenize.py"))
bench_tokenize = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_tokenize)


def contenders() -> dict:
    spec = [tf.TensorSpec([None], tf.string)]
    flat = lambda tok: tf.function(lambda s: tok.tokenize(s).flat_values, input_signature=spec)  # noqa: E731
    run = {"tensorflow_text.BertTokenizer": flat(text.BertTokenizer(str(bench_tokenize.VOCAB), lower_case=True))}
    for compat in ("tf_text", "hf"):
        for chunks in (False, True):
            tok = twp.BertTokenizer(str(bench_tokenize.VOCAB), lower_case=True, compat=compat)
            tok.engine._by_chunks = chunks  # private switch: the whole-string path is the fallback
            run[f"tf_wordpiece (compat={compat}, chunks {'on' if chunks else 'off'})"] = flat(tok)
    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=12)
    args = parser.parse_args()
    run = contenders()
    print("| corpus | tokenizer | seconds | vs tensorflow_text.BertTokenizer |\n|---|---|---|---|")
    for corpus, lines in bench_tokenize.corpora().items():
        batches = [[s.encode("utf-8") for s in lines[i : i + args.batch]] for i in range(0, len(lines), args.batch)]
        for batch in batches:
            for compat in ("tf_text", "hf"):
                on, off = (run[f"tf_wordpiece (compat={compat}, chunks {m})"](batch).numpy() for m in ("on", "off"))
                if not np.array_equal(on, off):
                    raise SystemExit(f"compat={compat}: the chunk path changes ids")
        best = dict.fromkeys(run, float("inf"))
        for _ in tqdm(range(args.repeats), desc=f"timing {corpus}", leave=False):
            total = dict.fromkeys(run, 0.0)
            for batch in batches:
                for name, fn in run.items():
                    start = time.perf_counter()
                    fn(batch)
                    total[name] += time.perf_counter() - start
            best = {name: min(best[name], total[name]) for name in run}
        for name, seconds in best.items():
            print(f"| {corpus} | {name} | {seconds:.3f} | {best['tensorflow_text.BertTokenizer'] / seconds:.2f}x |")
    print(f"\nbatch {args.batch}, best of {args.repeats} interleaved passes")


if __name__ == "__main__":
    main()
