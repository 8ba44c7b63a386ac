"""Regenerates tests/data/learner_references.json.gz: tensorflow_text's vocabularies for the learner tests.

tensorflow_text's learner takes minutes on these corpora, too slow for every
test run, so its output is cached here; `tests/test_learner.py` also checks a
small case live against it, so a changed peer still shows up.

    python tools/gen_learner_references.py      # about 5 minutes
"""

from __future__ import annotations

import gzip
import json
import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # for tests/helpers

from helpers.learner_cases import CASES, corpus  # noqa: E402

OUT = ROOT / "tests" / "data" / "learner_references.json.gz"


def main() -> None:
    import tensorflow as tf
    from tensorflow_text.tools.wordpiece_vocab import bert_vocab_from_dataset as peer

    references = {}
    for case in CASES:
        start = time.perf_counter()
        dataset = tf.data.Dataset.from_tensor_slices(corpus(case["corpus"])).batch(1000)
        vocab = peer.bert_vocab_from_dataset(
            dataset, case["vocab_size"], case["reserved_tokens"], case["bert_tokenizer_params"], case["learn_params"]
        )
        references[case["name"]] = vocab
        print(f"{case['name']}: {len(vocab)} tokens in {time.perf_counter() - start:.1f} s", flush=True)
    with gzip.open(OUT, "wt", encoding="utf-8") as f:
        json.dump(references, f, ensure_ascii=False, indent=0)
    print(f"wrote {OUT} ({OUT.stat().st_size / 1e3:.0f} kB)")


if __name__ == "__main__":
    main()
