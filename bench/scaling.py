"""LinMaxMatch's linear time, and its cost in precompute and SavedModel size.

    python bench/scaling.py [--lengths 10 100 1000 10000] [--max-match-up-to 1000]

1. Time per word for single words "aaa...a" of 10 to 10,000 characters, with
   a vocabulary built to make MaxMatch quadratic ("a", "##a" and a piece of
   10,001 characters "aaa...ab" that never matches, so every position is a
   candidate start for every longer substring). Prints the time of each
   algorithm per word and per character, and the fitted exponent k of
   time ~ length^k over the longer words (1 = linear, 2 = quadratic).
2. For bert-base-uncased: the precompute time (trie, failure links and pops)
   and the extra SavedModel size of `algorithm="linmaxmatch"` over "maxmatch".
"""

from __future__ import annotations

import sys

# bench/tokenize.py shadows the standard library's `tokenize`: keep this folder off the import path.
sys.path[:] = [p for p in sys.path if not p.endswith("bench")]

import argparse
import pathlib
import tempfile
import time

import numpy as np
import tensorflow as tf
from tqdm import tqdm

from tf_wordpiece.bert.linmaxmatch import LinMaxMatchTrie
from tf_wordpiece.bert.wordpiece import WordpieceTokenizer
from tf_wordpiece.vocab import read_vocab_file

ROOT = pathlib.Path(__file__).resolve().parents[1]
VOCAB = ROOT / "tests" / "data" / "bert-base-uncased" / "vocab.txt"
SPEC = [tf.TensorSpec([None], tf.string)]


def adversarial_vocab(longest: int) -> list[str]:
    trap = "a" * longest + "b"
    return ["[UNK]", "a", "##a", trap, "##" + trap]


def seconds_per_word(tokenize, length: int, repeats: int) -> float:
    word = tf.constant(["a" * length])
    tokenize(word)  # warm up (and check it runs)
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        tokenize(word)
        best = min(best, time.perf_counter() - start)
    return best


def fitted_exponent(lengths: list[int], seconds: list[float]) -> float:
    """k in seconds ~ length^k, on the longer half of the lengths (the fixed cost of a call hides the short ones)."""
    half = len(lengths) // 2
    return float(np.polyfit(np.log(lengths[half:]), np.log(seconds[half:]), 1)[0])


def scaling(lengths: list[int], max_match_up_to: int, repeats: int) -> None:
    vocab = adversarial_vocab(max(lengths))
    times: dict[str, list[float]] = {}
    for algorithm in ("linmaxmatch", "maxmatch"):
        wp = WordpieceTokenizer(vocab, max_bytes_per_word=None, algorithm=algorithm)
        tokenize = tf.function(lambda s, wp=wp: wp.tokenize(s).flat_values, input_signature=SPEC)
        todo = [n for n in lengths if algorithm == "linmaxmatch" or n <= max_match_up_to]
        expected = {n: [1] + [2] * (n - 1) for n in todo}
        for n in todo:
            if tokenize(tf.constant(["a" * n])).numpy().tolist() != expected[n]:
                raise SystemExit(f"{algorithm}: wrong pieces for a word of {n} characters")
        times[algorithm] = [seconds_per_word(tokenize, n, repeats) for n in tqdm(todo, desc=algorithm, leave=False)]
    print("| characters | linmaxmatch ms | µs per char | maxmatch ms | µs per char |\n|---|---|---|---|---|")
    for i, n in enumerate(lengths):
        lin = times["linmaxmatch"][i]
        row = f"| {n} | {lin * 1e3:.2f} | {lin / n * 1e6:.2f} |"
        if i < len(times["maxmatch"]):
            row += f" {times['maxmatch'][i] * 1e3:.2f} | {times['maxmatch'][i] / n * 1e6:.2f} |"
        else:
            row += " (skipped) | |"
        print(row)
    lin_k = fitted_exponent(lengths, times["linmaxmatch"])
    max_k = fitted_exponent(lengths[: len(times["maxmatch"])], times["maxmatch"])
    slope = np.polyfit(lengths, times["linmaxmatch"], 1)[0]
    print(f"\nfitted exponent (time ~ length^k): linmaxmatch k = {lin_k:.2f}, maxmatch k = {max_k:.2f}")
    print(f"linmaxmatch linear fit: {slope * 1e6:.2f} µs per character")


def directory_size(path: str) -> int:
    return sum(f.stat().st_size for f in pathlib.Path(path).rglob("*") if f.is_file())


def saved_model_size(wp: WordpieceTokenizer) -> int:
    module = tf.Module()
    module.wp = wp
    module.tokenize = tf.function(lambda s: wp.tokenize(s).flat_values, input_signature=SPEC)
    with tempfile.TemporaryDirectory() as tmp:
        tf.saved_model.save(module, tmp)
        return directory_size(tmp)


def costs() -> None:
    tokens = read_vocab_file(VOCAB)
    start = time.perf_counter()
    trie = LinMaxMatchTrie(tokens, "##")
    precompute = time.perf_counter() - start
    sizes = {a: saved_model_size(WordpieceTokenizer(tokens, algorithm=a)) for a in ("maxmatch", "linmaxmatch")}
    print(f"\nbert-base-uncased ({len(tokens)} tokens): trie of {trie.num_nodes} nodes, {len(trie.pop_ids)} pops")
    print(f"precompute (trie, failure links and pops): {precompute:.2f} s")
    print(
        f"SavedModel of WordpieceTokenizer: maxmatch {sizes['maxmatch'] / 1e6:.2f} MB, "
        f"linmaxmatch {sizes['linmaxmatch'] / 1e6:.2f} MB, "
        f"extra {(sizes['linmaxmatch'] - sizes['maxmatch']) / 1e6:+.2f} MB"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", type=int, nargs="+", default=[10, 30, 100, 300, 1000, 3000, 10000])
    parser.add_argument("--max-match-up-to", type=int, default=1000, help="longest word for MaxMatch (it is quadratic)")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    scaling(sorted(args.lengths), args.max_match_up_to, args.repeats)
    costs()


if __name__ == "__main__":
    main()
