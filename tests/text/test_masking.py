"""Item selectors, MaskValuesChooser and mask_language_model against tensorflow_text.

Identical where tensorflow_text's result is determined (first-N, rates 0 and 1, the per-row counts and caps,
a given shuffle_fn, the chooser's draws after the same seed); elsewhere the same constraints, and the rates
within a statistical bound.
"""

from __future__ import annotations

import pytest
import tensorflow as tf

from helpers.text_ops import same
from tf_wordpiece.text import masking

tf_text = pytest.importorskip("tensorflow_text")
# tensorflow_text exports its subclasses, not the base class
TheirItemSelector = pytest.importorskip("tensorflow_text.python.ops.item_selector_ops").ItemSelector

SPECIAL = [0, 101, 102]  # [PAD], [CLS], [SEP]
SMALL = [[101, 5, 6, 7, 102], [101, 102], [], [101, 8, 9, 0, 102]]
SMALL_WORDS = [[[101], [5, 6], [7], [102]], [[101], [], [8, 9, 10], [102]], []]


def theirs(name: str):
    return TheirItemSelector if name == "ItemSelector" else getattr(tf_text, name)


def both(name: str, *args, **kwargs):
    return getattr(masking, name)(*args, **kwargs), theirs(name)(*args, **kwargs)


def reverse(x: tf.Tensor) -> tf.Tensor:
    return tf.reverse(x, [0])


@pytest.mark.parametrize("dtype", [tf.int32, tf.int64], ids=str)
def test_first_n_and_base_selectors_small_table(dtype):
    for rows, axes in ((SMALL, (1, -1)), (SMALL_WORDS, (1, -1))):
        ids = tf.ragged.constant(rows, dtype)
        for axis in axes:
            for ours, theirs in (
                both("ItemSelector", SPECIAL),
                *(both("FirstNItemSelector", n, SPECIAL) for n in (0, 2)),
                *(both("LastNItemSelector", n, SPECIAL) for n in (0, 2)),
                *(both("LastNItemSelector", n) for n in (1, 9)),
            ):
                assert same(ours.get_selection_mask(ids, axis), theirs.get_selection_mask(ids, axis)), (rows, axis)


def test_first_and_last_n_on_real_ids(tokens, word_pieces):
    for ids, axis in ((tokens, 1), (word_pieces[:60], 1), (word_pieces[:60], -1)):
        for name in ("FirstNItemSelector", "LastNItemSelector"):
            ours, theirs = both(name, 5, tf.constant(SPECIAL, tf.int64))
            assert same(ours.get_selection_mask(ids, axis), theirs.get_selection_mask(ids, axis)), (name, axis)


def test_random_selector_is_tensorflow_texts_where_determined(tokens, word_pieces):
    for ids in (tokens[:100], word_pieces[:30], tf.ragged.constant(SMALL)):
        for rate, cap in ((0.0, 10), (1.0, 10_000)):
            ours, theirs = both("RandomItemSelector", cap, rate, SPECIAL)
            assert same(ours.get_selection_mask(ids, 1), theirs.get_selection_mask(ids, 1)), (rate, cap)
    for ids in (tokens[:30], tf.ragged.constant(SMALL), tf.ragged.constant(SMALL_WORDS)):  # a given shuffle_fn
        ours, theirs = both("RandomItemSelector", 3, 0.4, SPECIAL, shuffle_fn=reverse)
        assert same(ours.get_selection_mask(ids, 1), theirs.get_selection_mask(ids, 1))


def selected_per_row(mask: tf.RaggedTensor) -> list[int]:
    return tf.reduce_sum(tf.cast(mask, tf.int32), axis=1).numpy().tolist()


def test_random_selector_counts_caps_and_unselectable_ids(tokens):
    tf.random.set_seed(7)
    for rate, cap in ((0.15, 20), (0.5, 3), (1.0, 5)):
        ours, theirs = both("RandomItemSelector", cap, rate, SPECIAL)
        mask = ours.get_selection_mask(tokens[:100], 1)
        assert selected_per_row(mask) == selected_per_row(theirs.get_selection_mask(tokens[:100], 1)), (rate, cap)
        chosen = tf.ragged.boolean_mask(tokens[:100], mask).flat_values.numpy().tolist()
        assert not set(chosen) & set(SPECIAL)


def test_random_selector_is_uniform_and_seeded(tokens):
    selector = masking.RandomItemSelector(1000, 0.5, SPECIAL)
    tf.random.set_seed(3)
    first = selector.get_selection_mask(tokens, 1)
    tf.random.set_seed(3)
    assert selector.get_selection_mask(tokens, 1).to_list() == first.to_list()
    assert selector.get_selection_mask(tokens, 1).to_list() != first.to_list()
    # In rows of n selectable tokens each is chosen with probability ceil(n / 2) / n: the chosen ones' mean
    # relative position in the row is near the middle (a biased draw, e.g. the first k, would sit near 1/4).
    lengths = tf.cast(tokens.row_lengths(), tf.float32)
    where = tf.cast(tf.ragged.range(tokens.row_lengths()), tf.float32) / tf.maximum(lengths - 1, 1)[:, None]
    middle = float(tf.reduce_mean(tf.ragged.boolean_mask(where, first).flat_values))
    assert abs(middle - 0.5) < 0.03


def test_chooser_equals_tensorflow_texts_after_the_same_seed(tokens):
    ours, theirs = both("MaskValuesChooser", 30522, 103)
    results = []
    for chooser in (ours, theirs):
        tf.random.set_seed(11)
        results.append(chooser.get_mask_values(tokens))
    assert same(results[0], results[1])
    changed = tf.reduce_mean(tf.cast(results[0].flat_values != tokens.flat_values, tf.float32))
    assert 0.85 < float(changed) < 0.95  # 80% [MASK] + 10% random (a random id rarely equals the old one)


@pytest.mark.parametrize("axis, rows", [(1, "tokens"), (1, "words")])
def test_mask_language_model_equals_tensorflow_texts_where_determined(axis, rows, tokens, word_pieces):
    ids = tokens[:100] if rows == "tokens" else word_pieces[:40]
    # tensorflow_text's RandomItemSelector draws one shuffle per row, so the chooser's draws after it differ:
    # with it, the chooser is made deterministic
    for selector, rates in (
        (both("FirstNItemSelector", 4, SPECIAL), (0.8, 0.1)),
        (
            both("RandomItemSelector", 10_000, 1.0, SPECIAL),
            (1.0, 0.0),
        ),
    ):
        results = []
        for module, item_selector in zip((masking, tf_text), selector):
            tf.random.set_seed(5)
            chooser = module.MaskValuesChooser(30522, 103, mask_token_rate=rates[0], random_token_rate=rates[1])
            results.append(module.mask_language_model(ids, item_selector, chooser, axis=axis))
        assert same(results[0], results[1]), type(selector[0]).__name__


def test_mask_language_model_random_rates(tokens):
    tf.random.set_seed(2)
    selector = masking.RandomItemSelector(20, 0.15, SPECIAL)
    chooser = masking.MaskValuesChooser(30522, 103, mask_token_rate=0.8, random_token_rate=0.1)
    masked, positions, labels = masking.mask_language_model(tokens, selector, chooser)
    theirs = tf_text.mask_language_model(
        tokens, tf_text.RandomItemSelector(20, 0.15, SPECIAL), tf_text.MaskValuesChooser(30522, 103)
    )
    assert positions.row_lengths().numpy().tolist() == theirs[1].row_lengths().numpy().tolist()
    assert same(tf.gather(tokens, positions, batch_dims=1), labels)
    new = tf.gather(masked, positions, batch_dims=1).flat_values
    share = tf.reduce_mean(tf.cast(new == 103, tf.float32))
    assert abs(float(share) - 0.8) < 0.04
    untouched = tf.ragged.boolean_mask(masked, masked != tokens).flat_values.numpy().size
    assert untouched <= int(tf.size(positions.flat_values))  # only selected positions change


def test_mask_language_model_in_tf_function_and_dataset_map(tokens):
    selector = masking.FirstNItemSelector(3, SPECIAL)
    chooser = masking.MaskValuesChooser(30522, 103, mask_token_rate=1.0, random_token_rate=0.0)
    eager = masking.mask_language_model(tokens[:40], selector, chooser)
    assert same(tf.function(lambda t: masking.mask_language_model(t, selector, chooser))(tokens[:40]), eager)
    dataset = tf.data.Dataset.from_tensor_slices(tokens[:40]).batch(16)
    parts = list(dataset.map(lambda t: masking.mask_language_model(t, selector, chooser)))
    assert [sum((p[i].to_list() for p in parts), []) for i in range(3)] == [t.to_list() for t in eager]
    random = masking.RandomItemSelector(5, 0.3, SPECIAL)
    counts = dataset.map(lambda t: tf.reduce_sum(tf.cast(random.get_selection_mask(t, 1), tf.int32), axis=1))
    assert tf.concat(list(counts), 0).numpy().tolist() == selected_per_row(random.get_selection_mask(tokens[:40], 1))


@pytest.mark.parametrize(
    "make",
    [
        lambda m: (TheirItemSelector if m is tf_text else m.ItemSelector)((0, 1)),
        lambda m: (TheirItemSelector if m is tf_text else m.ItemSelector)(tf.constant([[0, 1]])),
        lambda m: m.RandomItemSelector(3, None),
        lambda m: m.MaskValuesChooser(10, 4, mask_token_rate=None),
        lambda m: m.mask_language_model(tf.ragged.constant([[1]]), "selector", m.MaskValuesChooser(10, 4)),
        lambda m: m.mask_language_model(tf.ragged.constant([[1]]), m.FirstNItemSelector(1), "chooser"),
    ],
    ids=["tuple-ids", "rank-2-ids", "no-rate", "no-mask-rate", "not-a-selector", "not-a-chooser"],
)
def test_bad_arguments_raise_what_tensorflow_text_raises(make):
    with pytest.raises(ValueError):
        make(tf_text)
    with pytest.raises(ValueError):
        make(masking)


def test_rates_over_one_fail_at_the_call_as_in_tensorflow_text():
    ids = tf.ragged.constant([[5, 6]])
    for module in (tf_text, masking):
        with pytest.raises(tf.errors.InvalidArgumentError):
            module.MaskValuesChooser(10, 4, mask_token_rate=0.8, random_token_rate=0.5).get_mask_values(ids)


def test_an_empty_batch_as_in_tensorflow_text():
    empty = tf.ragged.constant([], tf.int64, ragged_rank=1)
    for module, selector in zip((masking, tf_text), both("RandomItemSelector", 5, 0.5, SPECIAL)):
        assert selector.get_selection_mask(empty, 1).to_list() == []
    results = [
        module.mask_language_model(empty, module.FirstNItemSelector(2), module.MaskValuesChooser(10, 4))
        for module in (masking, tf_text)
    ]
    assert same(results[0], results[1])


def test_nothing_selector_selects_nothing_as_tensorflow_texts():
    """tensorflow_text's `item_selector_ops.NothingSelector` (not a top-level name there)."""
    their_nothing = pytest.importorskip("tensorflow_text.python.ops.item_selector_ops").NothingSelector
    for ids, axis in ((tf.ragged.constant(SMALL), 1), (tf.ragged.constant(SMALL_WORDS), 1)):
        ours, theirs = masking.NothingSelector(), their_nothing()
        assert same(ours.get_selectable(ids, axis), theirs.get_selectable(ids, axis))
        assert same(ours.get_selection_mask(ids, axis), theirs.get_selection_mask(ids, axis))
    assert not tf.reduce_any(ours.get_selection_mask(tf.ragged.constant(SMALL), 1).flat_values)
