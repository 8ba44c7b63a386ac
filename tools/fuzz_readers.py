"""Coverage-guided fuzzing of the vocab.txt and tokenizer.json readers with atheris (`pip install atheris`).

    python tools/fuzz_readers.py vocab -max_total_time=300
    python tools/fuzz_readers.py json -max_total_time=300 [CORPUS_DIR ...]

Each input is written to a file and read; it must give a tokenizer whose vocabulary is exactly the file's
(the oracle of tests/helpers/vocab_files.py, which tests/test_file_fuzz.py also uses) or a ValueError naming
the file. Any other exception, or a different vocabulary, stops the fuzzer with the input saved as crash-*.
Without a corpus folder it starts from the valid files of tests/helpers/vocab_files.py. The test suite runs
the same checks with hypothesis, bounded.
"""

from __future__ import annotations

import json
import pathlib
import sys
import tempfile

import atheris

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]  # tf_wordpiece from here, tests/helpers

import tensorflow as tf  # noqa: E402  (not instrumented: only tf_wordpiece is)

tf.get_logger().setLevel("ERROR")
with atheris.instrument_imports(include=["tf_wordpiece"]):
    import tf_wordpiece as twp
from helpers.vocab_files import VALID_JSON, VALID_VOCAB, expected_vocab  # noqa: E402

FOLDER = pathlib.Path(tempfile.mkdtemp(prefix="fuzz-readers-"))


def check_vocab(data: bytes) -> None:
    path = FOLDER / "vocab.txt"
    path.write_bytes(data)
    want = expected_vocab(data)
    try:
        tokenizer = twp.BertTokenizer(str(path))
    except ValueError as e:
        if want is not None or str(path) not in str(e):
            raise AssertionError(f"rejected a valid vocabulary, or the message does not name the file: {e}") from None
        return
    if tokenizer.vocab.tokens != want:
        raise AssertionError(f"vocabulary {tokenizer.vocab.tokens[:10]} differs from the file's {want and want[:10]}")


def check_json(data: bytes) -> None:
    path = FOLDER / "tokenizer.json"
    path.write_bytes(data)
    try:
        tokenizer = twp.BertTokenizer.from_tokenizer_json(path)
    except ValueError as e:
        if str(path) not in str(e) and "tokenizer.json" not in str(e):
            raise AssertionError(f"the message does not name the file: {e}") from None
        return
    vocab = json.loads(data)["model"]["vocab"]
    if any(type(i) is not int for i in vocab.values()) or tokenizer.vocab.tokens != sorted(
        vocab, key=vocab.__getitem__
    ):
        raise AssertionError("accepted a vocabulary that differs from the file's")
    tokenizer.tokenize(["hello worlds!"])


def main() -> None:
    target = sys.argv.pop(1) if len(sys.argv) > 1 and sys.argv[1] in ("vocab", "json") else "vocab"
    check, seed = (check_vocab, VALID_VOCAB) if target == "vocab" else (check_json, VALID_JSON)
    if not any(not a.startswith("-") for a in sys.argv[1:]):
        corpus = FOLDER / "corpus"
        corpus.mkdir()
        (corpus / "seed").write_bytes(seed)
        sys.argv.append(str(corpus))
    atheris.Setup(sys.argv, check)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
