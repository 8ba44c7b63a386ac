"""Converter numbers: export time, SavedModel size, load time, and the loaded model's throughput.

    python bench/export.py [--out /tmp/converter_bench]

Exports the pt/en converter from the embedded corpus (vocabularies learned with
tf_wordpiece's learner), reloads it, and times
`reloaded.en.tokenize` against tensorflow_text.BertTokenizer built from the same
vocabulary, on the same batches of 1000 English lines, ids checked equal.
"""

from __future__ import annotations

import sys

# bench/tokenize.py shadows the standard library's `tokenize`; keep this folder off the path.
sys.path[:] = [p for p in sys.path if not p.endswith("bench")]

import argparse  # noqa: E402
import pathlib  # noqa: E402
import shutil  # noqa: E402
import time  # noqa: E402

import tensorflow as tf  # noqa: E402
import tensorflow_text as text  # noqa: E402

from tf_wordpiece.export import converter  # noqa: E402


def best_seconds(fn, batches, repeats=3) -> float:
    fn(batches[0])
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for batch in batches:
            fn(batch)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="/tmp/tf_wordpiece_converter_bench")
    args = parser.parse_args()
    out = pathlib.Path(args.out)
    shutil.rmtree(out, ignore_errors=True)
    pairs = converter.embedded_pairs()
    summary = converter.export_converter(str(out), pairs, overwrite=True, make_zip=False)

    start = time.perf_counter()
    reloaded = tf.saved_model.load(str(out))
    load_seconds = time.perf_counter() - start

    english = [en for _, en in pairs]
    batches = [tf.constant(english[i : i + 1000]) for i in range(0, len(english), 1000)]
    vocab = reloaded.en.get_vocab_path().numpy().decode()
    peer = text.BertTokenizer(vocab, lower_case=True)
    peer_fn = tf.function(
        lambda s: peer.tokenize(s).merge_dims(-2, -1), input_signature=[tf.TensorSpec([None], tf.string)]
    )
    for batch in batches:
        ours, theirs = reloaded.en.tokenize(batch), peer_fn(batch)
        if ours[:, 1:-1].to_list() != theirs.to_list():
            sys.exit("the loaded model's ids differ from tensorflow_text.BertTokenizer")
    megabytes = sum(len(s.encode("utf-8")) for s in english) / 1e6
    ours_speed = megabytes / best_seconds(reloaded.en.tokenize, batches)
    peer_speed = megabytes / best_seconds(peer_fn, batches)
    print("| measure | value |\n|---|---|")
    print(f"| corpus | embedded pt/en sample, {summary['pairs']} pairs |")
    print(f"| vocabularies (pt / en) | {summary['pt_vocab_size']} / {summary['en_vocab_size']} tokens |")
    print(f"| learning both vocabularies (tf_wordpiece learner) | {summary['learn_seconds']:.1f} s |")
    print(f"| building and saving the SavedModel | {summary['export_seconds']:.1f} s |")
    print(f"| SavedModel size | {summary['size_bytes'] / 1e6:.1f} MB |")
    print(f"| tf.saved_model.load | {load_seconds:.1f} s |")
    print(f"| loaded en.tokenize, batch 1000 | {ours_speed:.2f} MB/s |")
    print(f"| tensorflow_text.BertTokenizer, same vocab and batches | {peer_speed:.2f} MB/s |")
    print(f"| ratio | {ours_speed / peer_speed:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
