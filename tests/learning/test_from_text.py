"""`count_and_learn`, the one "split, count, learn": its inputs, its checks, and a learner without TensorFlow."""

from __future__ import annotations

import subprocess
import sys

import pytest
import tensorflow as tf

import tf_wordpiece as twp
from tf_wordpiece.learning import from_text

LINES = ["Low lower lowest.", "New newer newest!", "Wide wider widest", "low new wide", "caf\u00e9 na\u00efve"] * 6


def test_the_numpy_learner_imports_and_runs_without_tensorflow():
    code = (
        "import sys\n"
        "from tf_wordpiece.learning import learner\n"
        "vocab = learner.learn({'low': 10, 'lower': 4, 'newest': 6}, 20, ['[UNK]'], lower_thresh=1)\n"
        "assert vocab[0] == '[UNK]' and 'low' in vocab, vocab\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('tensorflow', 'tensorflow_text'))\n"
        "assert not loaded, loaded[:5]\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]


def test_lines_and_datasets_learn_the_same_vocabulary():
    params = dict(
        vocab_size=40,
        reserved_tokens=["[UNK]"],
        bert_tokenizer_params={"lower_case": True},
        learn_params={"lower_thresh": 2},
    )
    from_lines = from_text.count_and_learn(LINES, **params)
    from_bytes = from_text.count_and_learn((line.encode("utf-8") for line in LINES), **params)
    from_dataset = from_text.count_and_learn(tf.data.Dataset.from_tensor_slices(LINES).batch(7), **params)
    expected = twp.bert_vocab_from_dataset(
        tf.data.Dataset.from_tensor_slices(LINES), 40, ["[UNK]"], {"lower_case": True}, {"lower_thresh": 2}
    )
    assert from_lines.vocab == from_bytes.vocab == from_dataset.vocab == expected
    assert from_lines.counts.lines == len(LINES) and from_lines.counts["low"] == 12
    assert from_lines.stats["threshold"] is not None and from_lines.counting_seconds >= 0


def test_bert_vocab_from_dataset_is_the_public_one_and_fills_stats():
    assert twp.bert_vocab_from_dataset is from_text.bert_vocab_from_dataset
    stats: dict = {}
    twp.bert_vocab_from_dataset(
        tf.data.Dataset.from_tensor_slices(LINES), 60, [], None, {"lower_thresh": 2}, stats=stats
    )
    assert {"words", "threshold", "search_steps", "search_range", "minimum_size"} <= set(stats)


def _never_read():
    raise AssertionError("the text was read before the arguments were checked")
    yield "never"


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        (dict(vocab_size=0), ValueError, "vocab_size: expected an int >= 1"),
        (dict(reserved_tokens="[UNK]"), TypeError, "reserved_tokens: expected a list of str"),
        (dict(learn_params={"lower_thresh": 0}), ValueError, "lower_thresh: expected an int >= 1 or None"),
        (dict(learn_params={"vocab_size": 3}), TypeError, r"learn_params: unknown \['vocab_size'\]"),
        (dict(bert_tokenizer_params={"lowercase": True}), TypeError, r"bert_tokenizer_params: unknown \['lowercase'\]"),
        (dict(bert_tokenizer_params={"normalization_form": "NFX"}), ValueError, "normalization_form: expected one of"),
    ],
)
def test_arguments_are_checked_before_the_text_is_read(kwargs, error, message):
    args = dict(vocab_size=30, reserved_tokens=["[UNK]"]) | kwargs
    with pytest.raises(error, match=message):
        from_text.count_and_learn(_never_read(), **args)


@pytest.mark.parametrize(
    "dataset, message",
    [
        ("one text", "dataset: expected a tf.data.Dataset of strings or an iterable of lines, got one str; put"),
        (42, r"dataset: expected a tf.data.Dataset of strings or an iterable of lines \(str or bytes\), got int"),
        (["fine", 3], "dataset: line 1 is int 3, expected str or bytes"),
        (tf.data.Dataset.range(3), "dataset: expected elements that are single tf.string tensors"),
    ],
)
def test_bad_text_is_named(dataset, message):
    with pytest.raises(TypeError, match=message):
        from_text.count_and_learn(dataset, vocab_size=30, reserved_tokens=[])


def test_strict_fails_on_a_too_small_vocab_size_and_check_counts_runs_before_learning():
    with pytest.raises(ValueError, match="vocab_size: 5 is smaller than the reserved tokens plus the alphabet"):
        from_text.count_and_learn(LINES, vocab_size=5, reserved_tokens=["[UNK]"], strict=True)
    with pytest.warns(UserWarning, match="vocab_size"):
        assert len(from_text.count_and_learn(LINES, vocab_size=5, reserved_tokens=["[UNK]"]).vocab) > 5

    def refuse(counts):
        raise ValueError(f"no: {counts.lines} lines")

    with pytest.raises(ValueError, match="no: 30 lines"):
        from_text.count_and_learn(LINES, vocab_size=30, reserved_tokens=[], check_counts=refuse)


def test_beam_checks_the_same_arguments_before_its_pipeline_runs():
    pytest.importorskip("apache_beam")
    from tf_wordpiece.learning import beam

    with pytest.raises(ValueError, match="max_input_tokens: expected an int >= 1, or None / -1 for all"):
        beam.learn_vocab(None, vocab_size=30, reserved_tokens=[], learn_params={"max_input_tokens": 0})
    with pytest.raises(TypeError, match=r"bert_tokenizer_params: unknown \['lowercase'\]"):
        beam.learn_vocab(None, vocab_size=30, reserved_tokens=[], bert_tokenizer_params={"lowercase": True})
