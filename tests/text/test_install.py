"""install_as_tensorflow_text(): in ONE child process where tensorflow_text cannot be imported (a meta-path
blocker), `import tensorflow_text` gives tf_wordpiece.text, and keras-hub's tensorflow_text users run on it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

import tf_wordpiece

CHILD = textwrap.dedent(
    """
    import importlib.abc, json, sys

    class Blocker(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name == "tensorflow_text" or name.startswith("tensorflow_text."):
                raise ImportError(f"blocked: {name}")

    sys.meta_path.insert(0, Blocker())
    import tf_wordpiece
    out = {"installed": tf_wordpiece.install_as_tensorflow_text()}
    out["again"] = tf_wordpiece.install_as_tensorflow_text()
    import tensorflow_text as tf_text
    import tf_wordpiece.text
    out["is_ours"] = tf_text is tf_wordpiece.text
    from tensorflow_text.tools.wordpiece_vocab import wordpiece_tokenizer_learner_lib as learner
    out["learner"] = learner.__name__
    from tensorflow_text.python.ops import bert_tokenizer, item_selector_ops  # as its own tests import them
    from tensorflow_text.python.ops.fast_wordpiece_tokenizer import FastWordpieceTokenizer
    out["op_modules"] = [
        bert_tokenizer is tf_wordpiece.text,
        item_selector_ops.NothingSelector is tf_wordpiece.text.NothingSelector,
        FastWordpieceTokenizer is tf_wordpiece.text.FastWordpieceTokenizer,
    ]
    try:
        import tensorflow_text.python.ops.sentencepiece_tokenizer  # noqa: F401 (not covered)
    except ImportError as error:
        out["uncovered"] = type(error).__name__
    import keras_hub
    import tensorflow as tf

    vocab = [line.rstrip("\\n") for line in open(sys.argv[1], encoding="utf-8")]
    tokenizer = keras_hub.tokenizers.WordPieceTokenizer(vocabulary=vocab, lowercase=True)
    ids = tokenizer(["Hello TensorFlow!", "Über"])
    rows = ids.to_list() if hasattr(ids, "to_list") else ids
    out["ids"] = [list(map(int, row)) for row in rows]
    text = tokenizer.detokenize(ids)
    text = text if isinstance(text, list) else text.numpy().tolist()
    out["detokenized"] = [s.decode() if isinstance(s, bytes) else s for s in text]
    learned = keras_hub.tokenizers.compute_word_piece_vocabulary(
        tf.data.Dataset.from_tensor_slices(["the cat sat", "the hat"] * 20), 40
    )
    out["learned_has_the"] = "the" in learned
    keras_hub_tokenizer = keras_hub.models.BertTokenizer(vocabulary=vocab, lowercase=True)
    pre = keras_hub.models.BertTextClassifierPreprocessor(tokenizer=keras_hub_tokenizer, sequence_length=8)
    out["preprocessor"] = pre(["Hello TensorFlow!"])["token_ids"].numpy().tolist()
    print("RESULT " + json.dumps(out))
    """
)


@pytest.fixture(scope="module")
def child(vocab_path) -> dict:
    pytest.importorskip("keras_hub")
    env = {**os.environ, "KERAS_BACKEND": "tensorflow", "TF_CPP_MIN_LOG_LEVEL": "3"}
    result = subprocess.run(
        [sys.executable, "-c", CHILD, vocab_path], capture_output=True, text=True, env=env, timeout=300
    )
    lines = [line for line in result.stdout.splitlines() if line.startswith("RESULT ")]
    assert result.returncode == 0 and lines, result.stderr[-3000:]
    return json.loads(lines[-1][len("RESULT ") :])


def test_import_tensorflow_text_gives_ours(child):
    assert child["installed"] == child["again"] == "tf_wordpiece.text"
    assert child["is_ours"] is True
    assert child["learner"] == "tf_wordpiece.text.tools.wordpiece_vocab.wordpiece_tokenizer_learner_lib"
    assert child["op_modules"] == [True, True, True]
    assert child["uncovered"] in ("ImportError", "ModuleNotFoundError")


def test_keras_hub_word_piece_tokenizer_runs_on_it(child):
    # bert-base-uncased: hello tensor ##flow ! / [UNK] (keras-hub's lowercase keeps the accent: "über" is unknown)
    assert child["ids"] == [[7592, 23435, 12314, 999], [100]]
    assert child["detokenized"] == ["hello tensorflow !", "[UNK]"]
    assert child["learned_has_the"] is True


def test_keras_hub_preprocessor(child):
    assert child["preprocessor"] == [[101, 7592, 23435, 12314, 999, 102, 0, 0]]


def test_with_the_real_one_importable_nothing_changes():
    pytest.importorskip("tensorflow_text")
    before = sys.modules.get("tensorflow_text")
    assert tf_wordpiece.install_as_tensorflow_text() == "tensorflow_text"
    assert sys.modules.get("tensorflow_text") is before
