"""Helpers shared by the test modules (and by tools/gen_*_references.py and tools/fuzz_readers.py).

tests/conftest.py puts tests/ on sys.path, so test modules import them as `from helpers.data import VOCAB`,
`from helpers.contract import check_contract`, and so on; tests/conftest.py itself holds only fixtures.

- data: the paths of the shared test data (bert-base-uncased's vocab.txt and tokenizer.json, the sample).
- oracles: Hugging Face `tokenizers` built from the shared tokenizer.json, and `encode` compared with it.
- ragged: RaggedTensors as Python lists, fast; batches of a list.
- subword: a SubwordTextEncoder's encode / decode over many lines.
- bert_reference, subword_reference: slow, readable pure-Python twins of the BERT tokenizer (and of
  transformers' `do_basic_tokenize=False` split) and of the t2t subword encoder, which the hypothesis and
  parity tests compare the graphs with.
- contract: what every tokenizer must do eagerly, in tf.function, in tf.data, after a SavedModel round trip.
- hard_strings: the hard inputs every parity sweep runs.
- learner_cases: the learner's identity cases (tools/gen_learner_references.py caches the peer's answers).
- vocab_files: the fuzzed-file oracle (tests/test_file_fuzz.py and tools/fuzz_readers.py).
"""
