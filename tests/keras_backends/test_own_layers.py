"""The project's Keras layers on whatever Keras backend this process runs (`keras.backend.backend()`).

Eagerly they return the backend's arrays (ragged ids: Python lists on backends without ragged arrays), equal
to the ids that tf_wordpiece's BertTokenizer computes in TensorFlow ops; inside `tf.data` they run as
TensorFlow; a `TextModel` fits and predicts on Python lists and on `tf.data`, and survives a `.keras` round
trip. The main environment runs these on TensorFlow; .ci/keras_env.sh makes a JAX one without tensorflow_text
(`KERAS_BACKEND=jax python -m pytest -m keras_backends tests/keras_backends`).
"""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

keras = pytest.importorskip("keras")
if not keras.__version__.startswith("3."):
    pytest.skip("the layers need Keras 3", allow_module_level=True)

from tf_wordpiece import BertTokenizer  # noqa: E402
from tf_wordpiece.keras_layers import BertInputsPacker, WordPieceTokenizer  # noqa: E402
from tf_wordpiece.keras_preprocessor import BertTextClassifierPreprocessor, TextModel  # noqa: E402

pytestmark = pytest.mark.keras_backends

BACKEND = keras.backend.backend()
LINES = ["Hello TensorFlow!", "Ünïcödé straße 日本語", "", "the cat sat on the mat", "a b c d e f g h i j k l m n o"]
SECOND = ["a question?", "", "an answer with more words than the first has", "x", "日本語 text"]
LENGTH = 8


@pytest.fixture(scope="module")
def reference(vocab_tokens) -> BertTokenizer:
    """The ids in TensorFlow ops directly: what every backend's layers must give."""
    return BertTokenizer(vocab_tokens, lower_case=True)


@pytest.fixture(scope="module")
def preprocessor(vocab_tokens) -> BertTextClassifierPreprocessor:
    return BertTextClassifierPreprocessor(vocab_tokens, sequence_length=LENGTH, lowercase=True)


def reference_ids(reference, lines) -> list[list[int]]:
    return reference.tokenize(tf.constant(lines)).merge_dims(-2, -1).to_list()


def packed(cls_id, sep_id, pad_id, ids, length=LENGTH) -> list[list[int]]:
    """One segment packed by hand: [CLS] ids [SEP], cut and padded to `length`."""
    rows = [[cls_id, *row[: length - 2], sep_id] for row in ids]
    return [row + [pad_id] * (length - len(row)) for row in rows]


def backend_array(value) -> np.ndarray:
    """`value` as NumPy, after checking it is this backend's array (a tf.Tensor only on TensorFlow)."""
    assert keras.ops.is_tensor(value), type(value)
    assert isinstance(value, tf.Tensor) == (BACKEND == "tensorflow"), (BACKEND, type(value))
    return keras.ops.convert_to_numpy(value)


def ragged_list(value) -> list:
    """A ragged output: a tf.RaggedTensor on TensorFlow, Python lists on backends without ragged arrays."""
    if BACKEND == "tensorflow":
        assert isinstance(value, tf.RaggedTensor), type(value)
        return value.to_list()
    assert isinstance(value, list), type(value)
    return value


def test_tokenizer_eagerly_gives_the_backends_arrays_with_tensorflows_ids(vocab_tokens, reference):
    want = reference_ids(reference, LINES)
    layer = WordPieceTokenizer(vocabulary=vocab_tokens, lowercase=True)
    assert ragged_list(layer(LINES)) == want  # a Python list of str
    assert ragged_list(layer(np.array(LINES, dtype=object))) == want
    assert ragged_list(layer(tf.constant(LINES))) == want
    dense = WordPieceTokenizer(vocabulary=vocab_tokens, lowercase=True, sequence_length=LENGTH)
    got = backend_array(dense(LINES))
    assert got.dtype == np.int32 and got.tolist() == [(row + [0] * LENGTH)[:LENGTH] for row in want]
    assert backend_array(dense(LINES[0])).tolist() == got[0].tolist()  # a scalar gives one row


def test_packer_takes_the_tokenizers_eager_output(vocab_tokens, reference):
    tokenizer = WordPieceTokenizer(vocabulary=vocab_tokens, lowercase=True)
    cls_id, sep_id, pad_id = (tokenizer.token_to_id(t) for t in ("[CLS]", "[SEP]", "[PAD]"))
    packer = BertInputsPacker(sequence_length=LENGTH, cls_id=cls_id, sep_id=sep_id, pad_id=pad_id)
    out = packer(tokenizer(LINES))
    assert backend_array(out["token_ids"]).tolist() == packed(cls_id, sep_id, pad_id, reference_ids(reference, LINES))
    assert backend_array(out["padding_mask"]).dtype == bool
    # Two segments: the same as the layer gives on tf tensors inside a tf.function (TensorFlow on any backend).
    pair = packer([tokenizer(LINES), tokenizer(SECOND)])
    graph = tf.function(lambda a, b: packer([tokenizer(a), tokenizer(b)]))(tf.constant(LINES), tf.constant(SECOND))
    for name in ("token_ids", "segment_ids", "padding_mask"):
        assert isinstance(graph[name], tf.Tensor)
        assert np.array_equal(backend_array(pair[name]), graph[name].numpy()), name
    assert backend_array(pair["segment_ids"]).max() == 1


def test_preprocessor_eagerly_and_inside_tf_data(preprocessor, reference):
    ids = packed(preprocessor.cls_id, preprocessor.sep_id, preprocessor.pad_id, reference_ids(reference, LINES))
    for x in (LINES, np.array(LINES, dtype=object), tf.constant(LINES)):
        out = preprocessor(x)
        assert backend_array(out["token_ids"]).tolist() == ids
        assert backend_array(out["padding_mask"]).tolist() == [[t != preprocessor.pad_id for t in row] for row in ids]
    assert backend_array(preprocessor(LINES[0])["token_ids"]).tolist() == ids[0]  # a scalar string
    data = tf.data.Dataset.from_tensor_slices((LINES, SECOND)).batch(len(LINES))
    (element,) = data.map(lambda a, b: preprocessor((a, b))).take(1)  # pairs, as TensorFlow
    assert all(isinstance(v, tf.Tensor) for v in element.values())
    eager = preprocessor((LINES, SECOND))
    for name, value in element.items():
        assert np.array_equal(backend_array(eager[name]), value.numpy()), name
    labelled = tf.data.Dataset.from_tensor_slices((LINES, [0, 1, 0, 1, 0])).batch(5).map(preprocessor)
    x, y = next(iter(labelled))
    assert x["token_ids"].numpy().tolist() == ids and y.numpy().tolist() == [0, 1, 0, 1, 0]
    x, y = preprocessor(LINES, [0, 1, 0, 1, 0])  # eagerly, labels too come back as the backend's arrays
    assert backend_array(x["token_ids"]).tolist() == ids and backend_array(y).tolist() == [0, 1, 0, 1, 0]


@pytest.fixture(scope="module")
def model(preprocessor) -> TextModel:
    """strings -> preprocessor -> embedding, masked mean, dense: 2 logits."""
    keras.utils.set_random_seed(0)
    strings = keras.Input(shape=(), dtype="string")
    x = preprocessor(strings)
    embedded = keras.layers.Embedding(preprocessor.vocabulary_size(), 8)(x["token_ids"])
    pooled = keras.layers.GlobalAveragePooling1D()(embedded, mask=x["padding_mask"])
    model = TextModel(strings, keras.layers.Dense(2)(pooled))
    model.compile(optimizer=keras.optimizers.Adam(0.05), loss=keras.losses.SparseCategoricalCrossentropy(True))
    return model


def test_text_model_fits_and_predicts_on_lists_and_tf_data(model, tmp_path):
    lines, labels = LINES * 4, [1, 0, 0, 1, 0] * 4
    before = model.evaluate(lines, labels, verbose=0)
    model.fit(lines, labels, epochs=3, batch_size=8, verbose=0)
    data = tf.data.Dataset.from_tensor_slices((lines, labels)).batch(8)
    history = model.fit(data, epochs=3, shuffle=False, verbose=0)
    assert history.history["loss"][-1] < before  # the weights that learn are the model's own
    from_list = model.predict(LINES, verbose=0)
    from_data = model.predict(tf.data.Dataset.from_tensor_slices(LINES).batch(2), verbose=0)
    np.testing.assert_allclose(from_data, from_list, rtol=1e-5, atol=1e-6)
    assert from_list.shape == (len(LINES), 2) and np.ptp(from_list, axis=0).max() > 1e-3
    np.testing.assert_allclose(backend_array(model(np.array(LINES, dtype=object))), from_list, rtol=1e-5, atol=1e-6)

    model.save(tmp_path / "model.keras")
    reloaded = keras.models.load_model(tmp_path / "model.keras")
    assert isinstance(reloaded, TextModel)
    np.testing.assert_allclose(reloaded.predict(LINES, verbose=0), from_list, rtol=1e-5, atol=1e-6)


def test_text_model_on_a_tokenizer_and_packer_chain(vocab_tokens):
    """The preprocessing is cut after the last layer that runs in TensorFlow (the packer), not the tokenizer."""
    tokenizer = WordPieceTokenizer(vocabulary=vocab_tokens, lowercase=True)
    cls_id, sep_id = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
    strings = keras.Input(shape=(), dtype="string")
    inputs = BertInputsPacker(sequence_length=LENGTH, cls_id=cls_id, sep_id=sep_id)(tokenizer(strings))
    embedded = keras.layers.Embedding(len(vocab_tokens), 4)(inputs["token_ids"])
    model = TextModel(strings, keras.layers.Dense(3)(keras.layers.Flatten()(embedded)))
    predicted = model.predict(LINES, verbose=0)  # preprocessing mapped over tf.data
    eager = backend_array(model(np.array(LINES, dtype=object)))  # preprocessing run eagerly
    np.testing.assert_allclose(eager, predicted, rtol=1e-5, atol=1e-6)
    assert predicted.shape == (len(LINES), 3) and np.ptp(predicted, axis=0).max() > 1e-4


def test_keras_hubs_classifier_takes_the_preprocessor(preprocessor, tmp_path):
    """keras-hub's task maps a preprocessor that is not its own over tf.data on every backend: ours runs there."""
    import tf_wordpiece

    tf_wordpiece.install_as_tensorflow_text()  # before keras_hub's first import (test_keras_hub_models needs it)
    keras_hub = pytest.importorskip("keras_hub")
    keras.utils.set_random_seed(0)
    backbone = keras_hub.models.BertBackbone(
        vocabulary_size=preprocessor.vocabulary_size(),
        num_layers=1,
        num_heads=2,
        hidden_dim=8,
        intermediate_dim=16,
        max_sequence_length=LENGTH,
    )
    task = keras_hub.models.BertTextClassifier(backbone=backbone, preprocessor=preprocessor, num_classes=2)
    labels = [1, 0, 0, 1, 0]
    task.fit(LINES, labels, batch_size=5, epochs=1, verbose=0)
    predicted = task.predict(LINES, verbose=0)
    assert predicted.shape == (len(LINES), 2) and np.isfinite(predicted).all()
    task.save(tmp_path / "task.keras")
    reloaded = keras.models.load_model(tmp_path / "task.keras", compile=False)
    np.testing.assert_allclose(reloaded.predict(LINES, verbose=0), predicted, rtol=1e-5, atol=1e-6)
