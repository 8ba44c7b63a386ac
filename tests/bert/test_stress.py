"""Load and hostile inputs, short: a reloaded SavedModel from 8 threads and tf.data gives the one-thread ids;
degenerate batches give the rules' answer. The figures (the whole sample, 50 MB strings, peak memory) come
from bench/stress.py.
"""

from __future__ import annotations

import concurrent.futures

import numpy as np
import pytest
import tensorflow as tf

import tf_wordpiece as twp
from helpers.data import VOCAB
from tf_wordpiece.export.converter import save_atomically
from tf_wordpiece.export.module import CustomTokenizer

UNK = 100  # [UNK] in bert-base-uncased


def flat(ids: tf.RaggedTensor) -> list[np.ndarray]:
    return [s.numpy() for s in ids.nested_row_splits] + [ids.flat_values.numpy()]


def assert_same(got: list[np.ndarray], want: list[np.ndarray]) -> None:
    assert len(got) == len(want) and all(np.array_equal(g, w) for g, w in zip(got, want))


@pytest.fixture(scope="module")
def reloaded(tmp_path_factory):
    folder = tmp_path_factory.mktemp("stress")
    tokens = VOCAB.read_text(encoding="utf-8").splitlines()
    tokens[tokens.index("[unused0]")], tokens[tokens.index("[unused1]")] = "[START]", "[END]"
    (folder / "vocab.txt").write_text("\n".join(tokens) + "\n", encoding="utf-8")
    # One shard (the default) keeps the save short; bench/stress.py runs the whole sample.
    module = CustomTokenizer(
        ["[PAD]", "[UNK]", "[START]", "[END]"], str(folder / "vocab.txt"), lower_case=True, parallel_shards=1
    )
    save_atomically(module, str(folder / "model"))
    return tf.saved_model.load(str(folder / "model"))


def test_eight_threads_and_tf_data_give_the_one_thread_ids(reloaded, multilingual):
    lines = multilingual[:2000]
    batches = [tf.constant(lines[i : i + 100]) for i in range(0, len(lines), 100)]
    want = [flat(reloaded.tokenize(b)) for b in batches]
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        # Every batch twice, so that threads overlap on the same model for the whole run.
        got = list(pool.map(lambda b: flat(reloaded.tokenize(b)), batches + batches))
    for g, w in zip(got, want + want):
        assert_same(g, w)
    dataset = (
        tf.data.Dataset.from_tensor_slices(lines).batch(100).map(reloaded.tokenize, num_parallel_calls=tf.data.AUTOTUNE)
    )
    for g, w in zip(dataset, want, strict=True):
        assert_same(flat(g), w)


@pytest.mark.parametrize("compat", ["tf_text", "hf"])
def test_a_word_of_a_million_characters_is_unknown(compat):
    tokenizer = twp.BertTokenizer(str(VOCAB), lower_case=True, compat=compat)
    ids = tokenizer.tokenize(["a" * 1_000_000, "ж" * 99, "a" * 100 + " ok"])
    million, accented, at_limit = ids.to_list()
    assert million == [[UNK]]
    assert (accented == [[UNK]]) == (compat == "tf_text")  # 99 characters but 198 bytes: only the byte limit hits
    assert at_limit[0] != [UNK] and at_limit[1] == [tokenizer.vocab.id_of("ok")]


def test_a_hundred_thousand_empty_strings_and_a_mixed_batch():
    tokenizer = twp.BertTokenizer(str(VOCAB), lower_case=True)
    empty = tokenizer.tokenize([""] * 100_000)
    assert empty.shape[0] == 100_000 and empty.flat_values.shape[0] == 0
    mixed = tokenizer.tokenize(["hello world", "", "a" * 1_000_000, *[""] * 1000, "the end"]).to_list()
    hello, world, the, end = (tokenizer.vocab.id_of(w) for w in ("hello", "world", "the", "end"))
    assert mixed[0] == [[hello], [world]] and mixed[1] == [] and mixed[2] == [[UNK]]
    assert mixed[3:-1] == [[]] * 1000 and mixed[-1] == [[the], [end]]
