"""The contract every tokenizer goes through: eager, tf.function, tf.data.map and a SavedModel round trip."""

from __future__ import annotations

import tensorflow as tf


def assert_ragged_equal(actual, expected, what: str) -> None:
    actual, expected = (t.to_list() if isinstance(t, tf.RaggedTensor) else t.numpy().tolist() for t in (actual, expected))
    assert actual == expected, f"{what}: {actual} != {expected}"


def check_contract(tokenizer: tf.Module, strings: list[str], tmp_path) -> tf.RaggedTensor:
    """Runs `tokenizer.tokenize_with_offsets` every way a user would; all must agree with eager.

    Returns the eager token ids ([batch, words, pieces]).
    """
    strings = tf.constant(strings, tf.string)
    eager = tokenizer.tokenize_with_offsets(strings)

    graph = tf.function(tokenizer.tokenize_with_offsets)(strings)
    for got, want, name in zip(graph, eager, ("ids", "begin", "end")):
        assert_ragged_equal(got, want, f"tf.function {name}")

    # tf.data, one string at a time (scalar input) and in batches. A scalar gives
    # one row without the batch axis, or (tensorflow_text's BertTokenizer) a batch of one.
    per_element = list(tf.data.Dataset.from_tensor_slices(strings).map(tokenizer.tokenize))
    for i, ids in enumerate(per_element):
        want = eager[0][i : i + 1] if ids.shape.rank == eager[0].shape.rank else eager[0][i]
        assert_ragged_equal(ids, want, f"tf.data element {i}")
    batched = tf.data.Dataset.from_tensor_slices(strings).batch(3).map(tokenizer.tokenize)
    assert_ragged_equal(tf.concat(list(batched), axis=0), eager[0], "tf.data batched")

    class Wrapper(tf.Module):
        def __init__(self):
            super().__init__()
            self.tokenizer = tokenizer

        @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
        def tokenize(self, s):
            ids, begin, end = self.tokenizer.tokenize_with_offsets(s)
            return {"ids": ids, "begin": begin, "end": end}

    path = str(tmp_path / "saved_tokenizer")
    tf.saved_model.save(Wrapper(), path)
    loaded = tf.saved_model.load(path).tokenize(strings)
    for name, want in zip(("ids", "begin", "end"), eager):
        assert_ragged_equal(loaded[name], want, f"SavedModel {name}")
    return eager[0]
