"""Vocabulary learning: ours against tensorflow_text's bert_vocab_from_dataset, same corpus, same run.

    python bench/learn.py [--input FILE ...] [--lines 75000] [--vocab-size 8000]

Each learner runs in its own process (so each peak RSS is its own) on the same
lines: by default the English side of the embedded pt/en sample, repeated up to
--lines (75,000, the size tensorflow_text's ~55 s figure was quoted for). Ours
also runs on the corpus once, unrepeated, to show that its memory follows the
number of distinct words, not the number of lines. The two vocabularies must be
identical; the bench fails otherwise.
"""

from __future__ import annotations

import sys

# bench/tokenize.py shadows the standard library's `tokenize`; keep this folder off the path.
sys.path[:] = [p for p in sys.path if not p.endswith("bench")]

import argparse  # noqa: E402
import json  # noqa: E402
import pathlib  # noqa: E402
import resource  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402

from tqdm import tqdm  # noqa: E402

RESERVED = ["[PAD]", "[UNK]", "[START]", "[END]"]


def corpus_lines(paths: list[str], lines: int | None) -> list[str]:
    if paths:
        text = [line for path in paths for line in pathlib.Path(path).read_text(encoding="utf-8").splitlines()]
    else:
        from tf_wordpiece.converter import embedded_pairs

        text = [en for _, en in embedded_pairs()]
    if lines:
        text = (text * (lines // len(text) + 1))[:lines]
    return text


def worker(which: str, corpus: str, vocab_size: int, out: str) -> None:
    """Runs one learner on the corpus file; prints its timings and peak RSS as JSON."""
    import tensorflow as tf

    lines = pathlib.Path(corpus).read_text(encoding="utf-8").split("\n")
    dataset = tf.data.Dataset.from_tensor_slices(lines).batch(1000)
    params = dict(lower_case=True)
    start = time.perf_counter()
    if which == "ours":
        from tf_wordpiece.basic_tokenizer import tf_text_basic_tokenizer
        from tf_wordpiece.learner import learn
        from tf_wordpiece.word_counts import count_words

        counts = count_words(dataset, tf_text_basic_tokenizer(**params))
        counted = time.perf_counter()
        vocab = learn(counts, vocab_size, RESERVED)
        figures = dict(count_s=counted - start, learn_s=time.perf_counter() - counted, distinct_words=len(counts))
    else:
        from tensorflow_text.tools.wordpiece_vocab import bert_vocab_from_dataset as peer

        vocab = peer.bert_vocab_from_dataset(dataset, vocab_size, RESERVED, params, {})
        figures = {}
    figures.update(total_s=time.perf_counter() - start, vocab_size=len(vocab),
                   peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    pathlib.Path(out).write_text("\n".join(vocab), encoding="utf-8")
    print(json.dumps(figures))


def run_worker(which: str, corpus: pathlib.Path, vocab_size: int, work: pathlib.Path) -> tuple[dict, list[str]]:
    out = work / f"{which}_{corpus.stem}.txt"
    result = subprocess.run([sys.executable, __file__, "--worker", which, "--corpus", str(corpus), "--vocab-size",
                             str(vocab_size), "--out", str(out)], capture_output=True, text=True, check=True)
    return json.loads(result.stdout.strip().splitlines()[-1]), out.read_text(encoding="utf-8").split("\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--input", nargs="*", default=[], help="UTF-8 text files (default: the embedded English lines)")
    parser.add_argument("--lines", type=int, default=75_000, help="repeat or cut the corpus to this many lines (0: as is)")
    parser.add_argument("--vocab-size", type=int, default=8000)
    parser.add_argument("--worker", choices=["ours", "peer"], help=argparse.SUPPRESS)
    parser.add_argument("--corpus", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.corpus, args.vocab_size, args.out)
        return 0

    with tempfile.TemporaryDirectory() as tmp:
        work = pathlib.Path(tmp)
        once, full = work / "once.txt", work / "full.txt"
        once_lines = corpus_lines(args.input, None)
        once.write_text("\n".join(once_lines), encoding="utf-8")
        lines = corpus_lines(args.input, args.lines or None)
        full.write_text("\n".join(lines), encoding="utf-8")
        megabytes = full.stat().st_size / 1e6
        print(f"corpus: {len(lines)} lines, {megabytes:.1f} MB; vocab_size {args.vocab_size}, lower_case=True")
        runs = [("ours", once), ("ours", full), ("peer", full)]
        results = {}
        for which, corpus in tqdm(runs, desc="learners", unit="run"):
            results[which, corpus.stem] = run_worker(which, corpus, args.vocab_size, work)

    ours, our_vocab = results["ours", "full"]
    peer, peer_vocab = results["peer", "full"]
    small, _ = results["ours", "once"]
    if our_vocab != peer_vocab:
        print("FAIL: the vocabularies differ", file=sys.stderr)
        return 1
    print("| learner | lines | distinct words | count s | learn s | total s | peak RSS MB |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    print(f"| tf_wordpiece | {len(lines)} | {ours['distinct_words']} | {ours['count_s']:.1f} | {ours['learn_s']:.1f} "
          f"| {ours['total_s']:.1f} | {ours['peak_rss_mb']:.0f} |")
    print(f"| tf_wordpiece, corpus once | {len(once_lines)} | {small['distinct_words']} | "
          f"{small['count_s']:.1f} | {small['learn_s']:.1f} | {small['total_s']:.1f} | {small['peak_rss_mb']:.0f} |")
    print(f"| tensorflow_text | {len(lines)} | | | | {peer['total_s']:.1f} | {peer['peak_rss_mb']:.0f} |")
    print(f"identical vocabularies ({ours['vocab_size']} tokens); tf_wordpiece is {peer['total_s'] / ours['total_s']:.1f}x "
          f"faster end to end ({peer['total_s'] / ours['learn_s']:.0f}x on learning alone)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
