"""The vocabulary learner gives tensorflow_text's vocabulary, token for token, in the same order."""

from __future__ import annotations

import gzip
import json
import random
import warnings

import pytest
import tensorflow as tf
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tensorflow_text.tools.wordpiece_vocab import bert_vocab_from_dataset as peer_bert_vocab
from tensorflow_text.tools.wordpiece_vocab import wordpiece_tokenizer_learner_lib as peer_learner

import tf_wordpiece as twp
from helpers.data import DATA
from helpers.learner_cases import CASES, RESERVED, corpus
from tf_wordpiece.bert.recipes import TfTextRecipe
from tf_wordpiece.learning.word_counts import count_words


def assert_same_vocab(ours: list[str], theirs: list[str]) -> None:
    if ours != theirs:
        first = next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b), min(len(ours), len(theirs)))
        raise AssertionError(
            f"sizes {len(ours)} vs {len(theirs)}; first difference at {first}: "
            f"ours {ours[first : first + 5]} vs tensorflow_text {theirs[first : first + 5]}"
        )


@pytest.fixture(scope="module")
def references() -> dict[str, list[str]]:
    with gzip.open(DATA / "learner_references.json.gz", "rt", encoding="utf-8") as f:
        return json.load(f)


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_identical_to_tf_text_on_the_samples(case, references):
    dataset = tf.data.Dataset.from_tensor_slices(corpus(case["corpus"])).batch(1000)
    ours = twp.bert_vocab_from_dataset(
        dataset, case["vocab_size"], case["reserved_tokens"], case["bert_tokenizer_params"], case["learn_params"]
    )
    assert_same_vocab(ours, references[case["name"]])


def test_identical_to_tf_text_live():
    """The cached references could go stale with a new tensorflow_text: one case is computed live."""
    dataset = tf.data.Dataset.from_tensor_slices(corpus("en")[:1500]).batch(500)
    args = (dataset, 1200, RESERVED, {"lower_case": True}, {"lower_thresh": 3})
    assert_same_vocab(twp.bert_vocab_from_dataset(*args), peer_bert_vocab.bert_vocab_from_dataset(*args))


@pytest.mark.parametrize("params", [{"lower_case": True}, {}, {"keep_whitespace": True, "preserve_unused_token": True}])
def test_word_counts_identical_to_tf_text(multilingual, params):
    """Same words, same counts and the same order of first appearance (it decides ties at max_input_tokens)."""
    from tensorflow_text.python.ops.bert_tokenizer import BasicTokenizer  # what bert_vocab_from_dataset uses

    dataset = tf.data.Dataset.from_tensor_slices(multilingual[:5000]).batch(1000)
    ours = count_words(dataset, TfTextRecipe(**params).basic_tokenizer())
    theirs = peer_learner.count_words(dataset.map(BasicTokenizer(**params).tokenize))
    assert list(ours.items()) == list(theirs.items())


@pytest.mark.parametrize("params", [{"lower_case": True}, {"preserve_unused_token": True}])
def test_word_counts_identical_to_tf_text_on_hostile_text(hard_strings, params):
    """Spaces next to combining marks, no-break spaces, controls, CJK, [unusedN], repeated chunks."""
    from tensorflow_text.python.ops.bert_tokenizer import BasicTokenizer

    rng = random.Random(4)
    pieces = [
        " ",
        "  ",
        "\u0301",
        "\u00a0",
        "\t",
        "\u3000",
        "\u200b",
        "a",
        "É",
        "ß",
        "İ",
        "中",
        "[unused1]",
        "[",
        "]",
        "!",
        "x\u0308",
        "\U0001f44d",
        "\u00ad",
        "ﬁ",
        "Σ",
        "\r\n",
        "word",
    ] + [s for s in hard_strings if s.isprintable()][:50]
    lines = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 12))) for _ in range(3000)] + hard_strings
    dataset = tf.data.Dataset.from_tensor_slices(lines).batch(700)
    ours = count_words(dataset, TfTextRecipe(**params).basic_tokenizer())
    theirs = peer_learner.count_words(dataset.map(BasicTokenizer(**params).tokenize))
    assert list(ours.items()) == list(theirs.items())


# Small alphabets with "#" and "@" so that words collide with joined tokens.
_words = st.text(alphabet=st.sampled_from("ab#@cé"), max_size=7)
_params = st.fixed_dictionaries(
    {
        "vocab_size": st.integers(1, 40),
        "upper_thresh": st.sampled_from([None, 3, 10_000_000]),
        "lower_thresh": st.sampled_from([None, 1, 2, 10]),
        "num_iterations": st.integers(0, 4),
        "max_input_tokens": st.sampled_from([-1, 2, 8]),
        "max_token_length": st.integers(1, 8),
        "max_unique_chars": st.integers(1, 7),
        "slack_ratio": st.sampled_from([0.0, 0.05, 0.5]),
        "include_joiner_token": st.booleans(),
        "joiner": st.sampled_from(["##", "#", "", "@@"]),
    }
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    word_counts=st.lists(st.tuples(_words, st.integers(1, 30)), min_size=1, max_size=25),
    reserved=st.lists(st.sampled_from(["[UNK]", "a", "##a", "ab", ""]), max_size=3),
    params=_params,
)
def test_identical_to_tf_text_on_random_word_counts(word_counts, reserved, params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # small vocab sizes: "more tokens than vocab_size" is expected
        ours = twp.learn(word_counts, reserved_tokens=reserved, **params)
    assert_same_vocab(ours, peer_learner.learn(word_counts, reserved_tokens=reserved, **params))


@pytest.mark.parametrize("vocab_size, message", [(20, "alone are 21 tokens"), (24, None)])
def test_an_oversized_result_warns(vocab_size, message):
    counts = {"lower": 5, "lowest": 7, "newer": 6, "newest": 9, "wide": 3}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        vocab = twp.learn(counts, vocab_size, ["[UNK]"], lower_thresh=1)
    if message:
        assert len(vocab) > vocab_size and message in str(caught[0].message)
    else:
        assert len(vocab) <= vocab_size and not caught


def test_dict_and_pairs_give_the_same_vocabulary():
    counts = {"lower": 5, "lowest": 7, "newer": 6, "newest": 9, "wide": 3}
    assert twp.learn(counts, 30, ["[UNK]"], lower_thresh=1) == twp.learn(
        list(counts.items()), 30, ["[UNK]"], lower_thresh=1
    )


def test_max_input_tokens_none_means_all():
    counts = {"lower": 5, "lowest": 7, "newer": 6, "newest": 9, "wide": 3}
    assert twp.learn(counts, 25, [], lower_thresh=1, max_input_tokens=None) == twp.learn(
        counts, 25, [], lower_thresh=1, max_input_tokens=-1
    )


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        (dict(word_counts={}), ValueError, "word_counts: empty"),
        (dict(word_counts={"a": 0}), ValueError, "counts must be >= 1"),
        (dict(word_counts={"a": 1.5}), TypeError, "expected (str, int) pairs"),
        (dict(word_counts={b"a": 1}), TypeError, "expected (str, int) pairs"),
        (dict(vocab_size=0), ValueError, "vocab_size"),
        (dict(reserved_tokens="[UNK]"), TypeError, "reserved_tokens"),
        (dict(lower_thresh=0), ValueError, "lower_thresh"),
        (dict(upper_thresh=-5), ValueError, "upper_thresh"),
        (dict(max_token_length=0), ValueError, "max_token_length"),
        (dict(max_input_tokens=0), ValueError, "max_input_tokens"),
    ],
)
def test_bad_arguments_are_named(kwargs, error, message):
    args = dict(word_counts={"hello": 3}, vocab_size=10, reserved_tokens=["[UNK]"]) | kwargs
    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)")):
        twp.learn(**args)


def test_bad_dataset_and_params_are_named():
    strings = tf.data.Dataset.from_tensor_slices(["a b"])
    with pytest.raises(TypeError, match="dataset"):
        twp.bert_vocab_from_dataset(tf.data.Dataset.range(3), 10, [])
    with pytest.raises(TypeError, match="dataset"):
        twp.bert_vocab_from_dataset(tf.data.Dataset.from_tensor_slices({"text": ["a"]}), 10, [])
    with pytest.raises(TypeError, match="bert_tokenizer_params: unknown \\['lowercase'\\]"):
        twp.bert_vocab_from_dataset(strings, 10, [], {"lowercase": True})
    with pytest.raises(TypeError, match="learn_params: unknown \\['vocab_size'\\]"):
        twp.bert_vocab_from_dataset(strings, 10, [], {}, {"vocab_size": 3})
    with pytest.raises(ValueError, match="normalization_form"):
        twp.bert_vocab_from_dataset(strings, 10, [], {"normalization_form": "NFX"})
    with pytest.raises(ValueError, match="empty"):
        twp.bert_vocab_from_dataset(tf.data.Dataset.from_tensor_slices(["", "  "]), 10, [])


def test_invalid_utf8_words_are_skipped_and_counted():
    dataset = tf.data.Dataset.from_tensor_slices([b"ok \xff\xfe bad", b"ok caf\xc3"])
    counts = count_words(dataset, TfTextRecipe().basic_tokenizer())
    assert dict(counts) == {"ok": 2, "bad": 1}
    assert counts.skipped_invalid_utf8 == 2
    assert counts.lines == 2


def test_any_shape_of_strings_counts_the_same():
    lines = ["The cat sat.", "the dog", "", "a cat"]
    tokenizer = TfTextRecipe(lower_case=True).basic_tokenizer()
    scalars = count_words(tf.data.Dataset.from_tensor_slices(lines), tokenizer)
    matrix = count_words(tf.data.Dataset.from_tensors(tf.reshape(lines, [2, 2])), tokenizer)
    ragged = count_words(tf.data.Dataset.from_tensors(tf.ragged.constant([lines[:1], lines[1:]])), tokenizer)
    assert list(scalars.items()) == list(matrix.items()) == list(ragged.items())
    assert scalars == {"the": 2, "cat": 2, "sat": 1, ".": 1, "dog": 1, "a": 1}
