"""Tokenization throughput: tf_wordpiece against tensorflow_text and Hugging Face, same batches, one process.

    python bench/tokenize.py [--batch 1000] [--repeats 5]

Prints MB/s of UTF-8 input for each tokenizer on the multilingual sample and
on English text, and each one's ratio to tensorflow_text.BertTokenizer. Ids
are checked equal to the peer of each compat mode before timing (and, for the
WordPiece algorithms, linmaxmatch = maxmatch = tensorflow_text.FastBertTokenizer),
then our best row is set against issue 5's bar. Then the model-input row:
`encode` with the BERT template, truncation to 128 and padding to the batch's
longest, against HF `encode_batch` with the same settings.
"""

from __future__ import annotations

import sys

# This file is named like the standard library's `tokenize`; keep its folder off
# the import path so that `import inspect` (which imports tokenize) gets the real one.
sys.path[:] = [p for p in sys.path if not p.endswith("bench")]

import argparse
import pathlib
import statistics
import time

import numpy as np
import tensorflow as tf
import tensorflow_text as text
from tokenizers import Tokenizer
from tqdm import tqdm

import tf_wordpiece as twp

ROOT = pathlib.Path(__file__).resolve().parents[1]
VOCAB = ROOT / "tests" / "data" / "bert-base-uncased" / "vocab.txt"
TOKENIZER_JSON = ROOT / "tests" / "data" / "bert-base-uncased" / "tokenizer.json"


def corpora() -> dict[str, list[str]]:
    multilingual = (ROOT / "tests" / "data" / "multilingual_dev.txt").read_text(encoding="utf-8").splitlines()
    pairs = (ROOT / "tf_wordpiece" / "data" / "pt_en_sample.tsv").read_text(encoding="utf-8").splitlines()[1:]
    english = [line.split("\t")[1] for line in pairs if "\t" in line]
    return {"multilingual": multilingual, "english": english}


def hf_tokenizer() -> Tokenizer:
    hf = Tokenizer.from_file(str(TOKENIZER_JSON))
    hf.no_padding()
    hf.no_truncation()
    return hf


def contenders() -> dict:
    ours_tf = twp.BertTokenizer(str(VOCAB), lower_case=True, compat="tf_text")
    ours_hf = twp.BertTokenizer(str(VOCAB), lower_case=True, compat="hf")
    peer = text.BertTokenizer(str(VOCAB), lower_case=True)
    fast = text.FastBertTokenizer(VOCAB.read_text(encoding="utf-8").splitlines(), lower_case_nfd_strip_accents=True)
    hf = hf_tokenizer()
    spec = [tf.TensorSpec([None], tf.string)]
    flat = lambda tok: tf.function(lambda s: tok.tokenize(s).flat_values, input_signature=spec)  # noqa: E731
    return {
        "tf_wordpiece (compat=tf_text)": flat(ours_tf),
        "tf_wordpiece (compat=hf)": flat(ours_hf),
        "tensorflow_text.BertTokenizer": flat(peer),
        "tensorflow_text.FastBertTokenizer": flat(fast),
        "HF tokenizers encode_batch": lambda batch: [e.ids for e in hf.encode_batch(batch, add_special_tokens=False)],
    }


def encoders() -> dict:
    """encode with template, truncation to 128 and padding, ours and HF's."""
    ours = twp.BertTokenizer.from_tokenizer_json(TOKENIZER_JSON)
    options = dict(truncation="longest_first", max_length=128, padding="longest")
    encode = tf.function(lambda s: ours.encode(s, **options).ids, input_signature=[tf.TensorSpec([None], tf.string)])
    hf = hf_tokenizer()
    hf.enable_truncation(128)
    hf.enable_padding()
    return {
        "tf_wordpiece encode (template, truncate 128, pad)": encode,
        "HF tokenizers encode_batch (template, truncate 128, pad)": lambda batch: [
            e.ids for e in hf.encode_batch(batch)
        ],
    }


def check_encode_parity(run: dict, batches: list[list[str]]) -> None:
    ours, peer = run.values()
    for batch in batches:
        if ours([s.encode("utf-8") for s in batch]).numpy().tolist() != peer(batch):
            raise SystemExit("encode ids differ from HF tokenizers encode_batch")


# LinMaxMatch rows beside the default (maxmatch), and Fast WordPiece's bar (issue 5).
ALGORITHM_ROWS = {
    f"tf_wordpiece (compat={compat}, linmaxmatch)": dict(compat=compat, algorithm="linmaxmatch")
    for compat in ("tf_text", "hf")
}
BAR = {
    "tensorflow_text.FastBertTokenizer": 1.0,
    "tensorflow_text.BertTokenizer": 5.0,
    "HF tokenizers encode_batch": 5.0,
}


def algorithm_contenders() -> dict:
    spec = [tf.TensorSpec([None], tf.string)]
    return {
        name: tf.function(
            lambda s, tok=twp.BertTokenizer(str(VOCAB), lower_case=True, **kwargs): tok.tokenize(s).flat_values,
            input_signature=spec,
        )
        for name, kwargs in ALGORITHM_ROWS.items()
    }


def check_algorithm_parity(run: dict, batches: list[list[str]]) -> None:
    """The LinMaxMatch rows and FastBertTokenizer give the default rows' ids."""
    for batch in batches:
        encoded = [s.encode("utf-8") for s in batch]
        for compat in ("tf_text", "hf"):
            default = run[f"tf_wordpiece (compat={compat})"](encoded).numpy()
            if not np.array_equal(run[f"tf_wordpiece (compat={compat}, linmaxmatch)"](encoded).numpy(), default):
                raise SystemExit(f"compat={compat}: linmaxmatch and maxmatch ids differ")
        fast = run["tensorflow_text.FastBertTokenizer"](encoded).numpy()
        if not np.array_equal(fast, run["tf_wordpiece (compat=tf_text)"](encoded).numpy()):
            raise SystemExit("tensorflow_text.FastBertTokenizer ids differ from compat=tf_text")


def print_bar(rows: list) -> None:
    print("\n| corpus | ours (best row) | vs | ratio | bar |\n|---|---|---|---|---|")
    for corpus in dict.fromkeys(c for c, _, _ in rows):
        speeds = {n: s for c, n, s in rows if c == corpus}
        best = max(s for n, s in speeds.items() if n.startswith("tf_wordpiece (compat="))
        for peer, bar in BAR.items():
            ratio = best / speeds[peer]
            print(
                f"| {corpus} | {best:.2f} MB/s | {peer} | {ratio:.2f}x "
                f"| >= {bar:.1f}x {'met' if ratio >= bar else 'NOT met'} |"
            )


def check_parity(run: dict, batches: list[list[str]]) -> None:
    for batch in batches:
        encoded = [s.encode("utf-8") for s in batch]
        ours = run["tf_wordpiece (compat=tf_text)"](encoded).numpy()
        peer = run["tensorflow_text.BertTokenizer"](encoded).numpy()
        if not np.array_equal(ours, peer):
            raise SystemExit("compat=tf_text ids differ from tensorflow_text.BertTokenizer")
        ours = run["tf_wordpiece (compat=hf)"](encoded).numpy().tolist()
        peer = [i for ids in run["HF tokenizers encode_batch"](batch) for i in ids]
        if ours != peer:
            raise SystemExit("compat=hf ids differ from HF tokenizers")


def measure(run: dict, batches: list[list[str]], *, repeats: int, desc: str) -> dict[str, float]:
    """Each contender's median seconds over `repeats` passes over all batches.

    Contenders take turns within each pass, so that a machine that slows down
    for a while slows them alike. TensorFlow contenders get each batch as a
    string tensor, as in a tf.data pipeline, so that converting a Python list
    is not timed; Hugging Face gets Python strings, its own input.
    """
    tensors = [tf.constant([s.encode("utf-8") for s in b]) for b in batches]
    inputs = {name: batches if name.startswith("HF") else tensors for name in run}
    for name, fn in run.items():
        fn(inputs[name][0])  # trace / warm up
    seconds = {name: [] for name in run}
    for _ in tqdm(range(repeats), desc=desc, leave=False):
        for name, fn in run.items():
            start = time.perf_counter()
            for batch in inputs[name]:
                fn(batch)
            seconds[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) for name, values in seconds.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    run = contenders()
    encode_run = encoders()
    run.update(algorithm_contenders())
    rows = []
    encode_rows = []
    for corpus, lines in corpora().items():
        batches = [lines[i : i + args.batch] for i in range(0, len(lines), args.batch)]
        megabytes = sum(len(s.encode("utf-8")) for s in lines) / 1e6
        check_parity(run, batches)
        check_encode_parity(encode_run, batches)
        check_algorithm_parity(run, batches)
        for name, seconds in measure(run, batches, repeats=args.repeats, desc=f"timing {corpus}").items():
            rows.append((corpus, name, megabytes / seconds))
        for name, seconds in measure(encode_run, batches, repeats=args.repeats, desc=f"timing encode {corpus}").items():
            encode_rows.append((corpus, name, megabytes / seconds))
    print(
        f"\nbatch {args.batch}, median of {args.repeats} interleaved passes, "
        f"{tf.config.threading.get_inter_op_parallelism_threads() or 'default'} inter-op threads"
    )
    print("| corpus | tokenizer | MB/s | vs tensorflow_text.BertTokenizer |\n|---|---|---|---|")
    for corpus, name, speed in rows:
        baseline = next(s for c, n, s in rows if c == corpus and n == "tensorflow_text.BertTokenizer")
        print(f"| {corpus} | {name} | {speed:.2f} | {speed / baseline:.2f}x |")
    print("\n| corpus | encode | MB/s | vs HF encode_batch |\n|---|---|---|---|")
    for corpus, name, speed in encode_rows:
        baseline = next(s for c, n, s in encode_rows if c == corpus and n.startswith("HF"))
        print(f"| {corpus} | {name} | {speed:.2f} | {speed / baseline:.2f}x |")
    print_bar(rows)


if __name__ == "__main__":
    main()
