"""tf_wordpiece.text against tensorflow_text: normalize_utf8, case_fold_utf8, regex_split and the tokenizers.

Batches of 1, 64 and 1000 lines of tests/data/multilingual_dev.txt (those without non-ASCII white
space); each function's outputs are checked equal first; then the two run in turns (ours, theirs, ...),
each in a tf.function (as in tf.data), and the median of each is taken.
ratio = tensorflow_text's time / ours (above 1: ours is faster).

usage: python -P bench/text_tokenizers.py [--repeats 7] [--only NAME ...]
(-P: bench/tokenize.py must not shadow the stdlib; --only: the functions whose name holds one of these)
"""

from __future__ import annotations

import argparse
import pathlib
import re
import statistics
import time

import numpy as np
import tensorflow as tf
import tensorflow_text as tf_text

import tf_wordpiece.text as ours

ROOT = pathlib.Path(__file__).resolve().parents[1]
NON_ASCII_WHITE_SPACE = re.compile("[\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]")
KERAS_HUB_SPLIT = (r"\s|\p{Cc}|\p{Cf}|[!-/]|[:-@]|[\[-`]|[{-~]|\p{P}", r"[!-/]|[:-@]|[\[-`]|[{-~]|\p{P}")


def cases(vocab: list[str]) -> dict:
    """name -> (ours, theirs): callables of a string batch."""
    pairs = {
        "normalize_utf8 NFKC": lambda m: lambda x: m.normalize_utf8(x, "NFKC"),
        "normalize_utf8 NFD": lambda m: lambda x: m.normalize_utf8(x, "NFD"),
        "case_fold_utf8": lambda m: m.case_fold_utf8,
        "regex_split (keras-hub)": lambda m: lambda x: m.regex_split(x, *KERAS_HUB_SPLIT),
        "WhitespaceTokenizer": lambda m: m.WhitespaceTokenizer().tokenize,
        "FastWordpieceTokenizer": lambda m: m.FastWordpieceTokenizer(vocab).tokenize,
        "FastBertTokenizer": lambda m: m.FastBertTokenizer(vocab, lower_case_nfd_strip_accents=True).tokenize,
        "BertTokenizer": lambda m: m.BertTokenizer(table, lower_case=True).tokenize,
    }
    import tf_wordpiece

    table = tf_wordpiece.Vocab(vocab).table
    return {name: (graph(make(ours)), graph(make(tf_text))) for name, make in pairs.items()}


def graph(fn):
    """`fn` in a tf.function over string [None], as tf.data and keras-hub's layers run it (no eager op overhead)."""
    return tf.function(fn, input_signature=[tf.TensorSpec([None], tf.string)])


def flat(t):
    return t.flat_values.numpy() if isinstance(t, tf.RaggedTensor) else t.numpy()


def timed(fn, x) -> float:
    start = time.perf_counter()
    out = fn(x)
    flat(out)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument(
        "--only", nargs="+", metavar="NAME", help="time only the functions whose name holds one of these"
    )
    args = parser.parse_args()
    lines = (ROOT / "tests/data/multilingual_dev.txt").read_text(encoding="utf-8").splitlines()
    # tensorflow_text's WhitespaceTokenizer cuts a token short before non-ASCII white space (tests/text): not timed.
    lines = [line for line in lines if not NON_ASCII_WHITE_SPACE.search(line)]
    vocab = (ROOT / "tests/data/bert-base-uncased/vocab.txt").read_text(encoding="utf-8").splitlines()
    print("| function | batch | ours (ms) | tensorflow_text (ms) | ratio |")
    print("|---|---:|---:|---:|---:|")
    for name, (mine, theirs) in cases(vocab).items():
        if args.only and not any(part in name for part in args.only):
            continue
        for size in (1, 64, 1000):
            x = tf.constant(lines[:size])
            if not np.array_equal(flat(mine(x)), flat(theirs(x))):
                raise SystemExit(f"{name} at batch {size}: outputs differ")
            times = {"ours": [], "theirs": []}
            for _ in range(args.repeats):
                times["ours"].append(timed(mine, x))
                times["theirs"].append(timed(theirs, x))
            a, b = statistics.median(times["ours"]) * 1e3, statistics.median(times["theirs"]) * 1e3
            print(f"| {name} | {size} | {a:.2f} | {b:.2f} | {b / a:.2f} |", flush=True)


if __name__ == "__main__":
    main()
