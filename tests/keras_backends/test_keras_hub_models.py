"""keras-hub's WordPiece models on this process's Keras backend, with `install_as_tensorflow_text()` in place.

In .ci/keras_env.sh's venv (JAX, no tensorflow_text) `import tensorflow_text` gives tf_wordpiece.text, and
keras-hub's `BertTextClassifier`, `BertMaskedLM`, `DistilBertTextClassifier` and `DistilBertMaskedLM` (tiny
backbones, random weights, bert-base-uncased's vocabulary) preprocess, fit on Python lists and on `tf.data`,
predict, and survive a `.keras` round trip on it. In the main venv the real tensorflow_text stays in use (what
`install_as_tensorflow_text()` documents), the same tests run on it, and, on the TensorFlow backend, one child
process with tensorflow_text blocked computes keras-hub's preprocessors' outputs on ours (they must equal the
real one's) and exports a classifier whose SavedModel then serves strings in a second child that can import
neither tf_wordpiece, tensorflow_text nor keras_hub.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import textwrap

import numpy as np
import pytest
import tensorflow as tf

keras = pytest.importorskip("keras")
if not keras.__version__.startswith("3."):
    pytest.skip("keras-hub needs Keras 3", allow_module_level=True)
if importlib.util.find_spec("keras_hub") is None:
    pytest.skip("keras_hub is not installed", allow_module_level=True)

from helpers import data  # noqa: E402
from helpers.child import run_python  # noqa: E402
from helpers.hard_strings import HARD_STRINGS  # noqa: E402

pytestmark = pytest.mark.keras_backends

BACKEND = keras.backend.backend()
LENGTH = 32
LINES = ["Hello TensorFlow!", "Ünïcödé straße 日本語", "", "the cat sat on the mat", "a b c d e f g h i j k l m n o"]
LABELS = [1, 0, 0, 1, 0]
BACKBONE = dict(num_layers=2, num_heads=2, hidden_dim=16, intermediate_dim=32, max_sequence_length=LENGTH)
MODELS = {  # task: (backbone, tokenizer, preprocessor) names in keras_hub.models
    "BertTextClassifier": ("BertBackbone", "BertTokenizer", "BertTextClassifierPreprocessor"),
    "BertMaskedLM": ("BertBackbone", "BertTokenizer", "BertMaskedLMPreprocessor"),
    "DistilBertTextClassifier": ("DistilBertBackbone", "DistilBertTokenizer", "DistilBertTextClassifierPreprocessor"),
    "DistilBertMaskedLM": ("DistilBertBackbone", "DistilBertTokenizer", "DistilBertMaskedLMPreprocessor"),
}

# keras-hub's preprocessors' outputs as JSON-able lists: run here (real tensorflow_text) and in a child (ours).
COMPUTE = textwrap.dedent(
    """
    def preprocessor_outputs(keras_hub, keras, tf, vocab, lines, length):
        def plain(value):
            return keras.ops.convert_to_numpy(value).tolist()

        def flat(out):
            x, *rest = out if isinstance(out, tuple) else (out,)
            got = {name: plain(value) for name, value in x.items()}
            for name, value in zip(("y", "sample_weight"), rest):
                got[name] = plain(value)
            return got

        models = keras_hub.models
        masked = dict(mask_selection_length=length, mask_token_rate=1.0, random_token_rate=0.0)
        out = {}
        for prefix in ("Bert", "DistilBert"):
            tokenizer = getattr(models, prefix + "Tokenizer")(vocabulary=vocab, lowercase=True)
            classifier = getattr(models, prefix + "TextClassifierPreprocessor")
            lm = getattr(models, prefix + "MaskedLMPreprocessor")
            out[prefix + "/one"] = flat(classifier(tokenizer=tokenizer, sequence_length=length)(lines))
            pairs = classifier(tokenizer=tokenizer, sequence_length=length, truncate="waterfall")
            out[prefix + "/pairs"] = flat(pairs(x=(tf.constant(lines), tf.constant(lines[::-1]))))
            for rate in (0.0, 1.0):
                pre = lm(tokenizer=tokenizer, sequence_length=length, mask_selection_rate=rate, **masked)
                out[f"{prefix}/masked_lm_{rate}"] = flat(pre(lines))
        return out
    """
)

OURS_AND_EXPORT = COMPUTE + textwrap.dedent(
    """
    import json, os
    os.environ["KERAS_BACKEND"] = "tensorflow"
    import tf_wordpiece
    installed = tf_wordpiece.install_as_tensorflow_text()
    import tensorflow as tf
    import keras, keras_hub
    import tensorflow_text

    vocab_path, lines_path, export_dir, length = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    vocab = [line.rstrip("\\n") for line in open(vocab_path, encoding="utf-8")]
    lines = json.load(open(lines_path, encoding="utf-8"))
    result = {"installed": installed, "module": tensorflow_text.__name__}
    result["outputs"] = preprocessor_outputs(keras_hub, keras, tf, vocab, lines, length)

    keras.utils.set_random_seed(0)
    backbone = keras_hub.models.BertBackbone(
        vocabulary_size=len(vocab), num_layers=2, num_heads=2, hidden_dim=16, intermediate_dim=32,
        max_sequence_length=length,
    )
    tokenizer = keras_hub.models.BertTokenizer(vocabulary=vocab, lowercase=True)
    preprocessor = keras_hub.models.BertTextClassifierPreprocessor(tokenizer=tokenizer, sequence_length=length)
    task = keras_hub.models.BertTextClassifier(backbone=backbone, preprocessor=preprocessor, num_classes=3)
    archive = keras.export.ExportArchive()
    archive.track(task)
    archive.add_endpoint(
        "serve",
        lambda strings: task(preprocessor(strings), training=False),
        input_signature=[tf.TensorSpec([None], tf.string)],
    )
    archive.write_out(export_dir, verbose=False)
    serving = lines[:8]
    result["serving"] = serving
    result["predicted"] = task.predict(serving, verbose=0).tolist()
    print(json.dumps(result))
    """
)

SERVE = textwrap.dedent(
    """
    import json
    import tensorflow as tf
    loaded = tf.saved_model.load(sys.argv[1])
    strings = json.loads(sys.argv[2])
    served = loaded.serve(tf.constant(strings, tf.string)).numpy().tolist()
    blocked = {}
    for name in ("tf_wordpiece", "tensorflow_text", "keras_hub"):
        try:
            __import__(name)
            blocked[name] = False
        except ImportError:
            blocked[name] = True
    print(json.dumps({"served": served, "blocked": blocked, "loaded_modules": sorted(
        name for name in sys.modules if name.split(".")[0] in ("tf_wordpiece", "tensorflow_text", "keras_hub")
        and sys.modules[name] is not None)}))
    """
)


def _real_tensorflow_text() -> bool:
    module = sys.modules.get("tensorflow_text")
    return module is not None and module.__name__ == "tensorflow_text"


@pytest.fixture(scope="module")
def hub():
    """keras_hub, imported after `install_as_tensorflow_text()` (keras-hub binds tensorflow_text at import)."""
    import tf_wordpiece

    installed = tf_wordpiece.install_as_tensorflow_text()
    import keras_hub
    import tensorflow_text
    from keras_hub.src.tokenizers import word_piece_tokenizer

    assert tensorflow_text.__name__ == installed
    if word_piece_tokenizer.tf_text is not tensorflow_text:
        pytest.fail("keras_hub was imported before install_as_tensorflow_text(): it holds no tensorflow_text")
    return keras_hub


@pytest.fixture(scope="module")
def vocab() -> list[str]:
    """bert-base-uncased's first 3000 tokens (the special ones, characters, common words) and those LINES needs:
    the models' cost is the same as with all 30522, but their backbones build in a seventh of the time."""
    tokens = data.vocab_tokens()
    return tokens[:3000] + [t for t in ("hello", "tensor", "##flow", "cat", "sat", "mat") if t not in tokens[:3000]]


def test_tensorflow_text_is_ours_where_the_real_one_is_missing(hub):
    import tensorflow_text

    import tf_wordpiece.text

    real = importlib.util.find_spec("tensorflow_text") is not None and _real_tensorflow_text()
    assert (tensorflow_text is tf_wordpiece.text) != real, tensorflow_text.__name__
    if not real:  # .ci/keras_env.sh's venv: keras-hub's modules hold ours
        from keras_hub.src.tokenizers import word_piece_tokenizer

        assert word_piece_tokenizer.tf_text is tf_wordpiece.text


def build(hub, vocab, task_name: str, **preprocessing):
    backbone_name, tokenizer_name, preprocessor_name = MODELS[task_name]
    keras.utils.set_random_seed(0)
    models = hub.models
    backbone = getattr(models, backbone_name)(vocabulary_size=len(vocab), **BACKBONE)
    tokenizer = getattr(models, tokenizer_name)(vocabulary=vocab, lowercase=True)
    preprocessor = getattr(models, preprocessor_name)(tokenizer=tokenizer, sequence_length=LENGTH, **preprocessing)
    extra = {"num_classes": 2} if task_name.endswith("Classifier") else {}
    return getattr(models, task_name)(backbone=backbone, preprocessor=preprocessor, **extra)


def numpy(value) -> np.ndarray:
    assert keras.ops.is_tensor(value) or isinstance(value, np.ndarray), type(value)
    return keras.ops.convert_to_numpy(value)


@pytest.mark.parametrize("task_name", ["BertTextClassifier", "DistilBertTextClassifier"])
def test_classifier_preprocesses_fits_predicts_and_reloads(hub, vocab, task_name, tmp_path):
    task = build(hub, vocab, task_name)
    x = task.preprocessor(LINES)
    ids = numpy(x["token_ids"])
    cls_id, sep_id, pad_id = (vocab.index(t) for t in ("[CLS]", "[SEP]", "[PAD]"))
    assert ids.shape == (len(LINES), LENGTH) and (ids[:, 0] == cls_id).all()
    assert ids[0, 1:6].tolist() == [vocab.index(t) for t in ("hello", "tensor", "##flow", "!")] + [sep_id]
    assert ids[2, :3].tolist() == [cls_id, sep_id, pad_id]  # the empty line
    assert numpy(x["padding_mask"]).tolist() == (ids != pad_id).tolist()

    task.fit(LINES * 2, LABELS * 2, batch_size=5, epochs=1, verbose=0)  # 2 steps
    data_set = tf.data.Dataset.from_tensor_slices((LINES * 2, LABELS * 2)).batch(5)
    task.fit(data_set, epochs=1, verbose=0)
    predicted = task.predict(LINES, verbose=0)
    assert predicted.shape == (len(LINES), 2) and np.isfinite(predicted).all() and np.ptp(predicted, axis=0).max() > 0

    task.save(tmp_path / "task.keras")
    reloaded = keras.models.load_model(tmp_path / "task.keras")
    np.testing.assert_allclose(reloaded.predict(LINES, verbose=0), predicted, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("task_name", ["BertMaskedLM", "DistilBertMaskedLM"])
def test_masked_lm_preprocesses_fits_predicts_and_reloads(hub, vocab, task_name, tmp_path):
    task = build(hub, vocab, task_name, mask_selection_rate=0.5, mask_selection_length=4)
    x, y, weights = task.preprocessor(LINES)
    ids, positions = numpy(x["token_ids"]), numpy(x["mask_positions"])
    mask_id = vocab.index("[MASK]")
    assert ids.shape == (len(LINES), LENGTH) and positions.shape == numpy(y).shape == (len(LINES), 4)
    chosen = numpy(weights).astype(bool)
    rows = np.nonzero(chosen)[0]
    assert chosen[2].sum() == 0 and chosen.sum() > 0  # nothing to mask in the empty line
    picked = ids[rows, positions[chosen]]
    assert (picked == mask_id).mean() > 0.3  # mostly [MASK] (keras-hub's default 0.8; 0.1 random, 0.1 kept)
    assert not np.isin(numpy(y)[chosen], [vocab.index(t) for t in ("[CLS]", "[SEP]", "[PAD]")]).any()

    task.fit(LINES * 2, batch_size=5, epochs=1, verbose=0)  # 2 steps
    task.fit(tf.data.Dataset.from_tensor_slices(LINES * 2).batch(5), epochs=1, verbose=0)
    predicted = task.predict(LINES, verbose=0)  # masks drawn afresh: shapes only
    assert predicted.shape == (len(LINES), 4, len(vocab)) and np.isfinite(predicted).all()

    before = numpy(task(x, training=False))  # one fixed masking: the reloaded model must agree on it
    task.save(tmp_path / "task.keras")
    reloaded = keras.models.load_model(tmp_path / "task.keras")
    np.testing.assert_allclose(numpy(reloaded(x, training=False)), before, rtol=1e-5, atol=1e-6)
    assert reloaded.preprocessor.mask_selection_length == 4


@pytest.fixture(scope="module")
def ours(hub, tmp_path_factory) -> dict:
    """One child, tensorflow_text blocked, ours installed: the preprocessors' outputs, and a classifier exported."""
    if BACKEND != "tensorflow":
        pytest.skip("the comparison and export() run on the TensorFlow backend")
    folder = tmp_path_factory.mktemp("ours")
    lines_path = folder / "lines.json"
    lines_path.write_text(json.dumps(comparison_lines()), encoding="utf-8")
    export_dir = folder / "exported"
    result = run_python(OURS_AND_EXPORT, str(data.VOCAB), lines_path, export_dir, LENGTH, without=["tensorflow_text"])
    result["export_dir"] = str(export_dir)
    return result


def comparison_lines() -> list[str]:
    lines = data.multilingual_lines()[:50]
    return lines + [s for s in HARD_STRINGS if len(s) < 200][:40]


def test_preprocessors_equal_the_real_tensorflow_texts(hub, ours):
    if not _real_tensorflow_text():
        pytest.skip("the real tensorflow_text is not installed here (the main venv compares)")
    assert ours["installed"] == ours["module"] == "tf_wordpiece.text"
    namespace: dict = {}
    exec(COMPUTE, namespace)
    full = data.vocab_tokens()  # as the child reads it: all of bert-base-uncased
    want = namespace["preprocessor_outputs"](hub, keras, tf, full, comparison_lines(), LENGTH)
    got = ours["outputs"]
    assert sorted(got) == sorted(want)
    for config, outputs in want.items():
        assert sorted(got[config]) == sorted(outputs), config
        for name, value in outputs.items():
            assert got[config][name] == value, (config, name)
    masked = want["Bert/masked_lm_1.0"]
    assert sum(map(sum, masked["sample_weight"])) > len(comparison_lines())  # rate 1: every word piece chosen


def test_exported_classifier_serves_strings_without_tf_wordpiece_tensorflow_text_or_keras_hub(ours):
    strings = ours["serving"]
    served = run_python(
        SERVE,
        ours["export_dir"],
        json.dumps(strings),
        without=["tf_wordpiece", "tensorflow_text", "keras_hub"],
    )
    assert served["blocked"] == {"tf_wordpiece": True, "tensorflow_text": True, "keras_hub": True}
    assert served["loaded_modules"] == []
    np.testing.assert_allclose(served["served"], ours["predicted"], rtol=1e-5, atol=1e-6)
