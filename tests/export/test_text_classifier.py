"""A BERT text classifier on raw strings: keras-hub's BertBackbone behind BertTextClassifierPreprocessor.

The model is the example's (examples/classifier/classifier.py), built small: its logits must equal those of
keras-hub's own `BertTextClassifierPreprocessor` feeding the same backbone and weights; it trains on a
`tf.data` of (string, label), saves to `.keras`, and exports a SavedModel that serves raw strings where neither
tf_wordpiece, tensorflow_text nor keras-hub can be imported. keras-hub's tasks take the layer as their
preprocessor. The other runtimes (C API, TFLite, TF.js) are in test_classifier_runtimes.py and test_c_api.py.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import tensorflow as tf

from helpers.classifier import SEQUENCE_LENGTH, assert_logits_close, sensitive, small_classifier
from helpers.hard_strings import HARD_STRINGS, INVALID_UTF8

keras = pytest.importorskip("keras")
if not keras.__version__.startswith("3."):
    pytest.skip("the layers need Keras 3", allow_module_level=True)
keras_hub = pytest.importorskip("keras_hub")
pytest.importorskip("tensorflow_text")  # keras-hub's tokenizer runs on it

from tf_wordpiece.export.converter import embedded_pairs  # noqa: E402
from tf_wordpiece.keras_preprocessor import BertTextClassifierPreprocessor, TextModel  # noqa: E402


@pytest.fixture(scope="module")
def held_out(multilingual) -> list[str]:
    """Lines the model never saw: the multilingual sample's first 200, 100 English lines of the pt-en sample,
    and the hard strings (without NUL: keras-hub's TensorFlow path drops what follows one, see
    test_keras_hub_parity.py)."""
    english = [en for _, en in embedded_pairs()[-100:]]
    return multilingual[:200] + english + [s for s in HARD_STRINGS if "\x00" not in s]


@pytest.fixture(scope="module")
def model(vocab_tokens):
    """strings -> logits [batch, 3] with keras-hub's token ids (compat="keras_hub")."""
    return small_classifier(vocab_tokens, compat="keras_hub", core="string")


def hub_preprocessor(vocab_tokens, sequence_length: int = SEQUENCE_LENGTH):
    """keras-hub's own preprocessor for the same vocabulary (`BertTokenizer` lowercases; accents stay)."""
    tokenizer = keras_hub.models.BertTokenizer(vocabulary=vocab_tokens, lowercase=True)
    return keras_hub.models.BertTextClassifierPreprocessor(tokenizer, sequence_length=sequence_length)


BATCH = 2048  # predict in one batch: each new batch shape traces the whole model again (seconds)


def strings(lines) -> np.ndarray:
    return np.array(lines, dtype=object)


def test_logits_equal_keras_hubs_preprocessor_with_the_same_backbone(model, vocab_tokens, held_out):
    ours = model.predict(strings(held_out), batch_size=BATCH, verbose=0)
    inputs = hub_preprocessor(vocab_tokens)(tf.constant(held_out))
    head = model.get_layer("classifier")  # keras-hub's BertTextClassifier: backbone, dropout, logits
    theirs = head.predict(inputs, batch_size=BATCH, verbose=0)
    assert_logits_close(ours, theirs, atol=1e-5)
    packed = model.get_layer("preprocessor")(tf.constant(held_out))
    for name in ("token_ids", "segment_ids", "padding_mask"):
        assert np.array_equal(packed[name], inputs[name]), name
    assert np.asarray(inputs["padding_mask"]).all(axis=1).sum() > 10  # some lines are cut to fit


def test_a_drop_in_preprocessor_for_keras_hubs_tasks(model, vocab_tokens, held_out, tmp_path):
    """keras-hub's tasks call a preprocessor that is not a keras_hub Preprocessor on x alone (duck typing)."""
    ours = model.get_layer("preprocessor")
    backbone = model.get_layer("classifier").backbone
    task = keras_hub.models.BertTextClassifier(backbone=backbone, preprocessor=ours, num_classes=2)
    sensitive(task.get_layer("logits"))
    lines = held_out[:64]
    got = task.predict(lines, verbose=0)
    task.preprocessor = hub_preprocessor(vocab_tokens)
    assert_logits_close(got, task.predict(lines, verbose=0), atol=1e-5)

    task.preprocessor = ours
    data = tf.data.Dataset.from_tensor_slices((lines, [i % 2 for i in range(64)])).batch(16)
    history = task.fit(data, epochs=1, steps_per_epoch=2, verbose=0)
    assert np.isfinite(history.history["loss"]).all()
    task.save(tmp_path / "task.keras")
    reloaded = keras.models.load_model(tmp_path / "task.keras")
    assert isinstance(reloaded.preprocessor, BertTextClassifierPreprocessor)
    np.testing.assert_allclose(reloaded.predict(lines, verbose=0), task.predict(lines, verbose=0), rtol=1e-5)


@pytest.mark.slow  # training, a .keras round trip, an export and a fresh TensorFlow process: ~30 s of CPU
def test_fit_on_strings_save_load_and_export_without_the_package(model, held_out, tmp_path):
    held_out = held_out[::4]
    assert model.predict(["some text"], verbose=0).shape == (1, 3)  # a list of str, as keras-hub's tasks take
    trained = keras.models.clone_model(model)
    trained.set_weights(model.get_weights())
    trained.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    labels = [i % 3 for i in range(len(held_out))]
    data = tf.data.Dataset.from_tensor_slices((held_out, labels)).shuffle(512, seed=0).batch(32)
    before = [w.copy() for w in trained.get_weights()]
    history = trained.fit(data, epochs=1, steps_per_epoch=3, verbose=0)
    assert np.isfinite(history.history["loss"]).all()
    assert any(not np.array_equal(a, b) for a, b in zip(before, trained.get_weights()))
    want = trained.predict(strings(held_out), batch_size=BATCH, verbose=0)

    trained.save(tmp_path / "classifier.keras")
    reloaded = keras.models.load_model(tmp_path / "classifier.keras")
    assert isinstance(reloaded, TextModel)
    np.testing.assert_allclose(reloaded.predict(held_out, batch_size=BATCH, verbose=0), want, rtol=1e-5)

    exported = tmp_path / "exported"
    trained.export(str(exported), verbose=False)
    child = textwrap.dedent(
        """
        import json, sys
        for name in ("tf_wordpiece", "tensorflow_text", "keras_hub", "keras"):  # plain TensorFlow serves it
            sys.modules[name] = None
        import tensorflow as tf
        loaded = tf.saved_model.load(sys.argv[1])
        print(json.dumps(loaded.serve(tf.constant(json.loads(sys.stdin.read()))).numpy().tolist()))
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", child, str(exported)],
        input=json.dumps(held_out),
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert_logits_close(json.loads(proc.stdout.strip().splitlines()[-1]), want)

    loaded = tf.saved_model.load(str(exported))
    with pytest.raises((TypeError, ValueError), match="string"):  # the signature takes string [batch] only
        loaded.serve(tf.constant([1, 2]))
    with pytest.raises((TypeError, ValueError), match="string"):
        loaded.serve(tf.constant([["a"], ["b"]]))
    with pytest.raises(OSError, match="SavedModel file does not exist at"):
        tf.saved_model.load(str(tmp_path / "missing"))


def test_bad_and_odd_input(model, vocab_tokens):
    preprocessor = model.get_layer("preprocessor")
    with pytest.raises(TypeError, match=r"x: expected strings, got a int32 tensor; pass the raw text"):
        preprocessor(tf.constant([1, 2]))
    with pytest.raises(ValueError, match=r"x: expected a string or a batch of strings \[batch\], got shape \(2, 1\)"):
        preprocessor(tf.constant([["a"], ["b"]]))
    with pytest.raises(ValueError, match=r"x: expected one string tensor or two of one rank"):
        preprocessor((tf.constant("a"), tf.constant(["b"])))

    long_text = " ".join(["tokenization"] * 5000)  # 10,000 pieces: cut to sequence_length, as the packer says
    lines = ["", long_text, " ".join(["tokenization"] * 40)]
    packed = preprocessor(tf.constant(lines))["token_ids"].numpy().tolist()
    cls, sep, pad = (vocab_tokens.index(t) for t in ("[CLS]", "[SEP]", "[PAD]"))
    assert packed[0] == [cls, sep] + [pad] * (SEQUENCE_LENGTH - 2)
    assert packed[1] == packed[2] and packed[1][0] == cls and packed[1][-1] == sep and pad not in packed[1]
    logits = model.predict(strings(lines), verbose=0)
    np.testing.assert_allclose(logits[1], logits[2], rtol=1e-5)

    invalid = [b for b in INVALID_UTF8 if b"\x00" not in b]
    hub = tf.function(hub_preprocessor(vocab_tokens))(tf.constant(invalid))["token_ids"]  # its TensorFlow path:
    assert np.array_equal(preprocessor(tf.constant(invalid))["token_ids"], hub)  # its Python path takes str only
    assert np.isfinite(model.predict(tf.constant(invalid), verbose=0)).all()

    one = preprocessor("Hello world")  # an unbatched string gives unbatched inputs, as keras-hub's
    assert one["token_ids"].shape == (SEQUENCE_LENGTH,)
    listed = preprocessor(["Hello world", "x"])["token_ids"]  # a list of str is a batch, not two segments
    assert listed.shape == (2, SEQUENCE_LENGTH) and listed[0].numpy().tolist() == one["token_ids"].numpy().tolist()
    assert (
        one["token_ids"].numpy().tolist() == preprocessor(tf.constant(["Hello world"]))["token_ids"][0].numpy().tolist()
    )


def test_pairs_and_labels_as_keras_hubs_preprocessor(vocab_tokens, multilingual):
    ours = BertTextClassifierPreprocessor(vocab_tokens, sequence_length=20, lowercase=True, compat="keras_hub")
    firsts, seconds = tf.constant(multilingual[:100]), tf.constant(multilingual[100:200])
    labels = tf.range(100)
    x, y = ours((firsts, seconds), labels)  # a tf.data map over (x, y) gets (inputs, y) back
    want, want_y = hub_preprocessor(vocab_tokens, 20)(x=(firsts, seconds), y=labels)
    assert np.array_equal(y, want_y)
    for name in ("token_ids", "segment_ids", "padding_mask"):
        assert np.array_equal(x[name], want[name]), name
    assert np.asarray(x["segment_ids"]).any()
    mapped = tf.data.Dataset.from_tensor_slices((firsts, labels)).batch(10).map(ours)
    inputs, batch_labels = next(iter(mapped))
    assert inputs["token_ids"].shape == (10, 20) and batch_labels.numpy().tolist() == list(range(10))


def test_bad_arguments(vocab_tokens):
    with pytest.raises(
        ValueError, match=r"truncate: expected one of \['round_robin', 'longest_first'\], got 'waterfall'"
    ):
        BertTextClassifierPreprocessor(vocab_tokens, truncate="waterfall")
    with pytest.raises(ValueError, match=r"vocabulary: BERT's inputs need \['\[CLS\]', '\[SEP\]'\]"):
        BertTextClassifierPreprocessor(["[PAD]", "[UNK]", "a"])
    with pytest.raises(
        ValueError,
        match=r"core: expected one of \['string'\], got 'numeric' with compat='keras_hub' \(core='numeric' needs",
    ):
        BertTextClassifierPreprocessor(vocab_tokens, compat="keras_hub", core="numeric")
    with pytest.raises(ValueError, match=r"sequence_length: expected an int >= 3"):
        BertTextClassifierPreprocessor(vocab_tokens, sequence_length=2)
    layer = BertTextClassifierPreprocessor(vocab_tokens, sequence_length=16, lowercase=True, core="numeric")
    again = BertTextClassifierPreprocessor.from_config(layer.get_config())
    assert (again.sequence_length, again.tokenizer.core, again.tokenizer.vocabulary) == (16, "numeric", vocab_tokens)
    with pytest.raises(ValueError, match=r"core='string': tokenize_bytes needs the numeric core"):
        BertTextClassifierPreprocessor(vocab_tokens).pack_bytes(tf.constant([104], tf.uint8), tf.constant([1]))


@pytest.mark.slow  # trains for 3 steps, then writes and reloads four models: about a minute
def test_the_example_runs_as_written(tmp_path, capsys):
    from helpers.classifier import example

    out = tmp_path / "classifier_out"
    assert example().main(["--out", str(out), "--steps", "3"]) == 0
    printed = capsys.readouterr().out
    assert "held-out accuracy:" in printed and "SavedModel:" in printed and "TFLite:" in printed
    assert sorted(p.name for p in out.iterdir()) == ["classifier.keras", "classifier.tflite", "saved_model", "tfjs"]
    assert example().main(["--out", str(out)]) == 2  # never over an existing folder
    assert "already exists" in capsys.readouterr().err
