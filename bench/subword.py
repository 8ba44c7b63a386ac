"""SubwordTextEncoder: learning time and encode throughput against tfds.deprecated.text.SubwordTextEncoder, one process.

    python bench/subword.py [--lines 5000] [--target 4000] [--batch 1000]

Learns on the first --lines lines of the multilingual sample (ours in
tensor2tensor's mode and in tfds's, and tfds's own learner, whose subwords ours
must equal in tfds mode), then encodes the whole sample with each (our graph in
t2t mode, our graph in tfds mode on tfds's subwords, whose ids must equal
tfds's encode) and prints seconds, MB/s of UTF-8 input and ratios to tfds.
"""

from __future__ import annotations

import sys

# bench/tokenize.py shadows the standard library's `tokenize`: keep this folder off the path.
sys.path[:] = [p for p in sys.path if not p.endswith("bench")]

import argparse
import pathlib
import time

import tensorflow as tf
import tensorflow_datasets as tfds

import tf_wordpiece as twp
from tf_wordpiece.subword import learner as sl

ROOT = pathlib.Path(__file__).resolve().parents[1]


def timed(fn):
    start = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=5000)
    parser.add_argument("--target", type=int, default=4000)
    parser.add_argument("--batch", type=int, default=1000)
    args = parser.parse_args()
    lines = (ROOT / "tests" / "data" / "multilingual_dev.txt").read_text(encoding="utf-8").split("\n")
    corpus = lines[: args.lines]
    megabytes = sum(len(s.encode("utf-8")) for s in lines) / 1e6

    peer, peer_learn = timed(
        lambda: tfds.deprecated.text.SubwordTextEncoder.build_from_corpus(iter(corpus), args.target)
    )
    tfds_mode, tfds_mode_learn = timed(
        lambda: sl.build_to_target_size(sl.corpus_token_counts(corpus, compat="tfds"), args.target, compat="tfds")
    )
    if tfds_mode != peer.subwords:
        raise SystemExit("compat='tfds' subwords differ from tfds's")
    ours, ours_learn = timed(lambda: twp.SubwordTextEncoder.build_from_corpus(corpus, args.target))

    batches = [lines[i : i + args.batch] for i in range(0, len(lines), args.batch)]
    ours.encode(tf.constant(batches[0]))  # warm up
    ids, ours_encode = timed(lambda: [ours.encode(tf.constant(b)) for b in batches])
    if [s.decode("utf-8") for i in ids for s in ours.decode(i).numpy()] != lines:
        raise SystemExit("decode(encode(s)) != s")
    peer_ids, peer_encode = timed(lambda: [peer.encode(s) for s in lines])

    graph = twp.SubwordTextEncoder(peer.subwords, compat="tfds")
    graph.encode(tf.constant(batches[0]))  # warm up
    tfds_ids, graph_encode = timed(lambda: [graph.encode(tf.constant(b)) for b in batches])
    if [row for i in tfds_ids for row in i.to_list()] != peer_ids:
        raise SystemExit("compat='tfds' ids differ from tfds's encode")

    print(
        f"\nlearning on {len(corpus)} lines, target {args.target}; "
        f"encoding {len(lines)} lines ({megabytes:.2f} MB), batch {args.batch}"
    )
    print("| step | tf_wordpiece | tfds.deprecated.text | vs tfds |\n|---|---|---|---|")
    print(
        f"| learn, t2t mode (vocab {len(ours.subtokens)}) | {ours_learn:.1f} s "
        f"| {peer_learn:.1f} s (vocab {peer.vocab_size}) | {peer_learn / ours_learn:.2f}x |"
    )
    print(
        f"| learn, tfds mode (same subwords) | {tfds_mode_learn:.1f} s | {peer_learn:.1f} s "
        f"| {peer_learn / tfds_mode_learn:.2f}x |"
    )
    print(
        f"| encode, t2t mode, MB/s | {megabytes / ours_encode:.2f} | {megabytes / peer_encode:.2f} "
        f"| {peer_encode / ours_encode:.2f}x |"
    )
    print(
        f"| encode, tfds mode (same ids), MB/s | {megabytes / graph_encode:.2f} | {megabytes / peer_encode:.2f} "
        f"| {peer_encode / graph_encode:.2f}x |"
    )


if __name__ == "__main__":
    main()
