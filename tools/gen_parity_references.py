"""Regenerates tests/data/parity_references.json.gz: the peers' ids on the shared sample.

The older-TensorFlow CI job (`.ci/run`, tests marked `portable`) cannot install the
oracles (tensorflow-text is built for one TensorFlow version), so it checks parity
against these ids, produced by the pinned oracles: tensorflow_text.BertTokenizer
(`compat="tf_text"`) and Hugging Face tokenizers (`compat="hf"`), bert-base-uncased,
lower_case=True, on every line of tests/data/multilingual_dev.txt and the hard
strings. `tests/test_portable.py` also checks them against the live oracles
when those are installed, so a stale file shows up in the main suite.

    python tools/gen_parity_references.py      # about a minute
"""

from __future__ import annotations

import gzip
import hashlib
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # for tests/helpers

OUT = ROOT / "tests" / "data" / "parity_references.json.gz"


def sample() -> list[str]:
    """The inputs, in order: the multilingual sample's lines, then the hard strings."""
    from helpers import hard_strings

    lines = (ROOT / "tests" / "data" / "multilingual_dev.txt").read_text(encoding="utf-8").split("\n")
    return lines + hard_strings.HARD_STRINGS


def digest(lines: list[str]) -> str:
    return hashlib.sha256("\n".join(lines).encode("utf-8", "surrogatepass")).hexdigest()


def main() -> None:
    import tensorflow as tf
    import tensorflow_text as text

    from helpers.data import VOCAB
    from helpers.oracles import hf_oracle

    lines = sample()
    peer = text.BertTokenizer(str(VOCAB), lower_case=True)
    tf_text_ids = []
    for i in range(0, len(lines), 1000):
        batch = tf.constant([s.encode("utf-8") for s in lines[i : i + 1000]])
        tf_text_ids += peer.tokenize(batch).merge_dims(-2, -1).to_list()
    hf_ids = [enc.ids for enc in hf_oracle(lowercase=True).encode_batch(lines, add_special_tokens=False)]
    references = {
        "about": "ids of the peers on tests/data/multilingual_dev.txt + hard_strings, bert-base-uncased, lower_case",
        "sample_sha256": digest(lines),
        "tf_text": tf_text_ids,
        # Hugging Face's ids only where they differ from tensorflow_text's (about 3% of the lines).
        "hf_where_different": {str(i): h for i, (h, t) in enumerate(zip(hf_ids, tf_text_ids)) if h != t},
    }
    with gzip.open(OUT, "wt", encoding="utf-8") as f:
        json.dump(references, f, separators=(",", ":"))
    print(f"{OUT}: {len(lines)} lines, {OUT.stat().st_size} bytes")


if __name__ == "__main__":
    main()
