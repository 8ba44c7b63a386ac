"""Vocabulary learning: ours against tensorflow_text's bert_vocab_from_dataset, same corpus, same run.

    python bench/learn.py                              # all embedded text: 50,446 lines, ~54,000 distinct words
    python bench/learn.py --corpus english --lines 75000   # the English side, repeated to 75,000 lines
    python bench/learn.py --input my_corpus.txt ...

Each learner runs in its own process (so each peak RSS is its own) on the same
lines. Ours also runs on the corpus repeated --repeat times, to show that its
memory follows the number of distinct words, not the number of lines. The two
vocabularies must be identical; the bench fails otherwise.
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


def corpus_lines(paths: list[str], corpus: str, lines: int) -> list[str]:
    if paths:
        text = [line for path in paths for line in pathlib.Path(path).read_text(encoding="utf-8").splitlines()]
    else:
        from tf_wordpiece.export.converter import embedded_pairs

        pairs = embedded_pairs()
        text = [en for _, en in pairs]
        if corpus == "mixed":
            multilingual = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data" / "multilingual_dev.txt"
            text += [pt for pt, _ in pairs] + multilingual.read_text(encoding="utf-8").split("\n")
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
        from tf_wordpiece.bert.recipes import TfTextRecipe
        from tf_wordpiece.learning.learner import learn
        from tf_wordpiece.learning.word_counts import count_words

        counts = count_words(dataset, TfTextRecipe(**params).basic_tokenizer())
        counted = time.perf_counter()
        vocab = learn(counts, vocab_size, RESERVED)
        figures = dict(count_s=counted - start, learn_s=time.perf_counter() - counted, distinct_words=len(counts))
    else:
        # The body of tensorflow_text's bert_vocab_from_dataset, timed in its two steps.
        from tensorflow_text.python.ops.bert_tokenizer import BasicTokenizer
        from tensorflow_text.tools.wordpiece_vocab import wordpiece_tokenizer_learner_lib as peer

        counts = peer.count_words(dataset.map(BasicTokenizer(**params).tokenize))
        counted = time.perf_counter()
        vocab = peer.learn(counts, vocab_size, RESERVED)
        figures = dict(count_s=counted - start, learn_s=time.perf_counter() - counted, distinct_words=len(counts))
    figures.update(
        total_s=time.perf_counter() - start,
        vocab_size=len(vocab),
        peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    )
    pathlib.Path(out).write_text("\n".join(vocab), encoding="utf-8")
    print(json.dumps(figures))


def run_worker(which: str, corpus: pathlib.Path, vocab_size: int, work: pathlib.Path) -> tuple[dict, list[str]]:
    out = work / f"{which}_{corpus.stem}.txt"
    result = subprocess.run(
        [
            sys.executable,
            __file__,
            "--worker",
            which,
            "--corpus-file",
            str(corpus),
            "--vocab-size",
            str(vocab_size),
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(result.stdout.strip().splitlines()[-1]), out.read_text(encoding="utf-8").split("\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--input", nargs="*", default=[], help="UTF-8 text files instead of the embedded text")
    parser.add_argument(
        "--corpus",
        choices=["mixed", "english"],
        default="mixed",
        help="embedded text: English, Portuguese and the multilingual sample (mixed), or English only",
    )
    parser.add_argument("--lines", type=int, default=0, help="repeat or cut the corpus to this many lines (0: as is)")
    parser.add_argument("--repeat", type=int, default=3, help="ours also runs on the corpus repeated this many times")
    parser.add_argument("--vocab-size", type=int, default=8000)
    parser.add_argument("--worker", choices=["ours", "peer"], help=argparse.SUPPRESS)
    parser.add_argument("--corpus-file", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.corpus_file, args.vocab_size, args.out)
        return 0

    with tempfile.TemporaryDirectory() as tmp:
        work = pathlib.Path(tmp)
        corpus, repeated = work / "corpus.txt", work / "repeated.txt"
        lines = corpus_lines(args.input, args.corpus, args.lines)
        corpus.write_text("\n".join(lines), encoding="utf-8")
        repeated.write_text("\n".join(lines * args.repeat), encoding="utf-8")
        print(
            f"corpus: {len(lines)} lines, {corpus.stat().st_size / 1e6:.1f} MB; vocab_size {args.vocab_size}, "
            "lower_case=True"
        )
        runs = [("ours", corpus), ("ours", repeated), ("peer", corpus)]
        results = {}
        for which, path in tqdm(runs, desc="learners", unit="run"):
            results[which, path.stem] = run_worker(which, path, args.vocab_size, work)

    ours, our_vocab = results["ours", "corpus"]
    big, _ = results["ours", "repeated"]
    peer, peer_vocab = results["peer", "corpus"]
    if our_vocab != peer_vocab:
        print("FAIL: the vocabularies differ", file=sys.stderr)
        return 1
    print("| learner | lines | distinct words | count s | learn s | total s | peak RSS MB |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    rows = [
        ("tf_wordpiece", ours, len(lines)),
        (f"tf_wordpiece, corpus x{args.repeat}", big, len(lines) * args.repeat),
        ("tensorflow_text", peer, len(lines)),
    ]
    for name, figures, count in rows:
        print(
            f"| {name} | {count} | {figures['distinct_words']} | {figures['count_s']:.1f} | {figures['learn_s']:.1f} "
            f"| {figures['total_s']:.1f} | {figures['peak_rss_mb']:.0f} |"
        )
    print(
        f"identical vocabularies ({ours['vocab_size']} tokens); "
        f"tf_wordpiece is {peer['total_s'] / ours['total_s']:.1f}x faster end to end: "
        f"{peer['count_s'] / ours['count_s']:.1f}x counting, {peer['learn_s'] / ours['learn_s']:.0f}x learning"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
