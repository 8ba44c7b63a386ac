"""TF.js in Node: our numeric core's graph model against @huggingface/tokenizers (pure JavaScript), same tokenizer.json.

    python bench/tfjs.py [--corpus english|multilingual] [--repeats 5]

Builds `BertTokenizer.from_tokenizer_json(bert-base-uncased, core="numeric")`'s
`tokenize_bytes` as a TF.js graph model (`tf_wordpiece.export.tfjs`), installs
@tensorflow/tfjs and @huggingface/tokenizers once into the npm cache folder
(`TF_WORDPIECE_NPM_CACHE`, default ~/.cache/tf_wordpiece/npm, as
tests/export/test_bytes_runtimes.py does; never in the repository), and runs
bench/tfjs.mjs there: ids checked equal on every call first, then ms per call
for one line a call and for batches of 64 (medians of interleaved passes,
wall time in one Node process, CPU backend), and ours / theirs.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

sys.path[:] = [p for p in sys.path if not p.endswith("bench")]  # bench/tokenize.py shadows the stdlib's

import tensorflow as tf  # noqa: E402

import tf_wordpiece as twp  # noqa: E402
from tf_wordpiece.export.tfjs import save_tfjs_graph_model  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]
TOKENIZER_JSON = ROOT / "tests" / "data" / "bert-base-uncased" / "tokenizer.json"
PACKAGES = {"@tensorflow/tfjs": "4.22.0", "@huggingface/tokenizers": "0.2.0"}
TARGETS_MS = {"one line": 5.0, "batch of 64": 10.0}  # issue 34


def corpus(name: str) -> list[str]:
    """Held-out lines: the multilingual sample, or the English side of the pt/en sample."""
    if name == "multilingual":
        return (ROOT / "tests" / "data" / "multilingual_dev.txt").read_text(encoding="utf-8").splitlines()
    pairs = (ROOT / "tf_wordpiece" / "data" / "pt_en_sample.tsv").read_text(encoding="utf-8").splitlines()[1:]
    return [line.split("\t")[1] for line in pairs if "\t" in line]


def npm_folder() -> pathlib.Path:
    """The npm cache folder with both packages at their pinned versions (npm install, once)."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        raise SystemExit("node and npm are needed for the TF.js benchmark")
    folder = pathlib.Path(os.environ.get("TF_WORDPIECE_NPM_CACHE", pathlib.Path.home() / ".cache/tf_wordpiece/npm"))
    missing = []
    for package, version in PACKAGES.items():
        manifest = folder / "node_modules" / package / "package.json"
        if not manifest.exists() or json.loads(manifest.read_text())["version"] != version:
            missing.append(f"{package}@{version}")
    if missing:
        folder.mkdir(parents=True, exist_ok=True)
        command = ["npm", "install", "--prefix", str(folder), "--no-audit", "--no-fund", "--silent", *missing]
        subprocess.run(command, check=True, timeout=600)
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", choices=["english", "multilingual"], default="english")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    tokenizer = twp.BertTokenizer.from_tokenizer_json(TOKENIZER_JSON, core="numeric")
    lines = [line for line in corpus(args.corpus) if line.strip()][:512]
    folder = npm_folder()
    script = folder / f"bench-tfjs-{os.getpid()}.mjs"  # Node resolves packages from the script's folder
    with tempfile.TemporaryDirectory() as tmp:
        spec = {"bytes": tf.TensorSpec([None], tf.uint8, name="bytes"), "row_lengths": tf.TensorSpec([None], tf.int32)}
        save_tfjs_graph_model(lambda bytes, row_lengths: tokenizer.tokenize_bytes(bytes, row_lengths), spec, tmp + "/m")
        (pathlib.Path(tmp) / "lines.json").write_text(json.dumps(lines), encoding="utf-8")
        shutil.copy(ROOT / "bench" / "tfjs.mjs", script)
        try:
            command = ["node", str(script), tmp + "/m", str(TOKENIZER_JSON), tmp + "/lines.json", str(args.repeats)]
            proc = subprocess.run(command, capture_output=True, text=True, timeout=3600)
        finally:
            script.unlink()
    if proc.returncode != 0:
        raise SystemExit(proc.stderr[-3000:])
    result = json.loads(proc.stdout.splitlines()[-1])
    node = subprocess.check_output(["node", "--version"], text=True).strip()
    runner = "execute" if result["sync"] else "executeAsync"
    print(
        f"TF.js {result['tfjs']} ({result['backend']} backend, Node {node}); our graph: {result['nodes']} nodes, "
        f"{runner}; {args.corpus} lines, ids checked equal on {result['calls_one']} single lines and "
        f"{result['calls_batch']} batches of 64\n"
    )
    print("| call | tf_wordpiece (ms) | @huggingface/tokenizers (ms) | theirs / ours | target | met |")
    print("|---|---|---|---|---|---|")
    for label, key in (("one line", "one"), ("batch of 64", "batch")):
        mine, theirs = result[f"ours_{key}"], result[f"hf_{key}"]
        target = TARGETS_MS[label]
        met = "yes" if mine <= target else f"no ({mine / target:.1f}x over)"
        print(f"| {label} | {mine:.2f} | {theirs:.3f} | {theirs / mine:.3f}x | <= {target:g} ms | {met} |")


if __name__ == "__main__":
    main()
