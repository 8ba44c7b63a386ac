"""Item selection and masked-LM masking: tensorflow_text's `item_selector_ops` and `masking_ops` in core ops.

An *item* is an entry at `axis` of a RaggedTensor of ids: a token of `[batch, (tokens)]` at `axis=1`, a whole
word of `[batch, (words), (pieces)]` at `axis=1`. Selection masks are bool RaggedTensors shaped like the ids up
to `axis` (`ids.shape[:axis + 1]`); an item is selectable when none of its ids is unselectable, and an empty
item (a word with no pieces) reads as selected, as in tensorflow_text.

Selection runs on all rows at once: the rank of each item among its row's selectable items is one cumulative
sum, and `RandomItemSelector` draws one uniform key per item and keeps each row's lowest keys (one sort of the
whole batch instead of tensorflow_text's `map_fn` of one shuffle per row). It draws its numbers from
TensorFlow's global seed, as tensorflow_text does, so `tf.random.set_seed` makes it reproducible; which items
it picks differs from tensorflow_text's (a different draw), their counts and constraints do not.
"""

from __future__ import annotations

from typing import Callable, Sequence

import tensorflow as tf


def as_ragged(ids: tf.Tensor | tf.RaggedTensor, *, name: str = "input_ids") -> tf.RaggedTensor:
    """`ids` as a RaggedTensor of rank >= 2 (a dense [batch, n, ...] tensor becomes ragged).

    >>> as_ragged(tf.constant([[1, 2]])).to_list()
    [[1, 2]]
    """
    if not isinstance(ids, tf.RaggedTensor):
        ids = tf.convert_to_tensor(ids)
        if ids.shape.rank is not None and ids.shape.rank < 2:
            raise ValueError(
                f"{name}: expected a [batch, (items), ...] RaggedTensor of rank >= 2, got shape {ids.shape}"
            )
        ids = tf.RaggedTensor.from_tensor(ids)
    return ids


def positive_axis(axis: int, ids: tf.RaggedTensor) -> int:
    """`axis` counted from the front, between 1 (the batch's items) and `ids`' last ragged dimension.

    >>> positive_axis(-1, tf.ragged.constant([[[1]]]))
    2
    """
    rank = ids.ragged_rank + 1
    positive = axis + rank if isinstance(axis, int) and axis < 0 else axis
    if isinstance(axis, bool) or not isinstance(axis, int) or not 1 <= positive < rank:
        raise ValueError(
            f"axis: expected an int in [1, {rank - 1}] or [{-rank + 1}, -1] for ids of rank {rank}, got {axis!r}"
        )
    return positive


def compose_splits(nested_splits: Sequence[tf.Tensor]) -> tf.Tensor:
    """Row splits that go through several ragged levels at once: outer rows -> the innermost level's values.

    >>> compose_splits([tf.constant([0, 2, 3]), tf.constant([0, 1, 4, 6])]).numpy().tolist()
    [0, 4, 6]
    """
    splits = nested_splits[0]
    for inner in nested_splits[1:]:
        splits = tf.gather(inner, splits)
    return splits


def item_splits(ids: tf.RaggedTensor, axis: int) -> tf.Tensor:
    """Row splits from each batch row to its items at (positive) `axis`, int [batch + 1].

    >>> item_splits(tf.ragged.constant([[[1], [2, 3]], [[4]]]), 2).numpy().tolist()
    [0, 3, 4]
    """
    return compose_splits(ids.nested_row_splits[:axis])


def item_counts(ids: tf.RaggedTensor, axis: int) -> tf.Tensor:
    """How many items at (positive) `axis` each batch row has, int64 [batch].

    >>> item_counts(tf.ragged.constant([[[1], [2, 3]], [[4]]]), 1).numpy().tolist()
    [2, 1]
    """
    splits = tf.cast(item_splits(ids, axis), tf.int64)
    return splits[1:] - splits[:-1]


def _all_within(flags: tf.Tensor, splits: tf.Tensor) -> tf.Tensor:
    """For each group `flags[splits[i]:splits[i + 1]]`: are they all True (True for an empty group), bool."""
    false_so_far = tf.pad(tf.cumsum(tf.cast(~flags, tf.int64)), [[1, 0]])
    return tf.equal(tf.gather(false_so_far, splits[1:]) - tf.gather(false_so_far, splits[:-1]), 0)


def _item_mask(ids: tf.RaggedTensor, axis: int, flags: tf.Tensor) -> tf.RaggedTensor:
    """Per-item flags (flat over the items at `axis`) as a bool RaggedTensor shaped `ids.shape[:axis + 1]`."""
    return tf.RaggedTensor.from_nested_row_splits(flags, ids.nested_row_splits[:axis], validate=False)


def _empty_items(ids: tf.RaggedTensor, axis: int) -> tf.Tensor | None:
    """bool [items at `axis`]: items with no ids (tensorflow_text reads them as selected); None at the last axis."""
    if axis == ids.ragged_rank:
        return None
    below = tf.cast(compose_splits(ids.nested_row_splits[axis:]), tf.int64)
    return tf.equal(below[1:], below[:-1])


def within_rows(splits: tf.Tensor) -> tf.Tensor:
    """Each value's index within its row, int64 [splits[-1]] (one RaggedRange op).

    >>> within_rows(tf.constant([0, 2, 2, 3], tf.int64)).numpy().tolist()
    [0, 1, 0]
    """
    splits = tf.cast(splits, tf.int64)
    return tf.ragged.range(splits[1:] - splits[:-1]).flat_values


def spread(per_row: tf.Tensor, splits: tf.Tensor, within: tf.Tensor) -> tf.Tensor:
    """`per_row[row of each value]`, int64 [splits[-1]], given `within = within_rows(splits)`.

    A RaggedRange from `per_row` counts up by the index within the row, so subtracting that index leaves the
    row's value: cheaper than `tf.repeat` (a dense [rows, longest row] mask) or a binary search per value.

    >>> splits = tf.constant([0, 2, 2, 3], tf.int64)
    >>> spread(tf.constant([7, 8, 9], tf.int64), splits, within_rows(splits)).numpy().tolist()
    [7, 7, 9]
    """
    splits = tf.cast(splits, tf.int64)
    per_row = tf.cast(per_row, tf.int64)
    return tf.ragged.range(per_row, per_row + splits[1:] - splits[:-1]).flat_values - within


def row_ids(splits: tf.Tensor) -> tf.Tensor:
    """The row of each value of a ragged level, int64 [splits[-1]].

    >>> row_ids(tf.constant([0, 2, 2, 3], tf.int64)).numpy().tolist()
    [0, 0, 2]
    """
    splits = tf.cast(splits, tf.int64)
    return spread(tf.range(tf.size(splits, out_type=tf.int64) - 1), splits, within_rows(splits))


class ItemSelector:
    """Selects items of a RaggedTensor of ids; this base selects every item whose ids are all selectable.

    Args:
      unselectable_ids: a list, or 1-D Tensor, of ids never selected (e.g. `[CLS]`, `[SEP]`, `[PAD]`).
        Defaults to none.

    `get_selectable(ids, axis)` and `get_selection_mask(ids, axis)` take ids of rank >= 2 (`[batch, (items)]`
    or `[batch, (words), (pieces)]`) and return a bool RaggedTensor shaped `ids.shape[:axis + 1]`.

    >>> ItemSelector([0, 101]).get_selection_mask(tf.ragged.constant([[101, 7, 0], [8]]), axis=1).to_list()
    [[False, True, False], [True]]
    """

    def __init__(self, unselectable_ids: list[int] | tf.Tensor | None = None):
        if unselectable_ids is None:
            unselectable_ids = []
        if isinstance(unselectable_ids, tf.Tensor):
            if unselectable_ids.shape.rank not in (1, None):
                raise ValueError(
                    f"unselectable_ids: expected a 1-D Tensor, got rank {unselectable_ids.shape.rank} "
                    f"(shape {unselectable_ids.shape}); pass a list or tf.reshape(ids, [-1])"
                )
        elif not isinstance(unselectable_ids, list):
            raise ValueError(
                f"unselectable_ids: expected a list or a 1-D Tensor of ids, got {unselectable_ids!r}; "
                "pass list(...) of the ids"
            )
        self._unselectable_ids = unselectable_ids

    @property
    def unselectable_ids(self) -> list[int] | tf.Tensor:
        """The ids that are never selected."""
        return self._unselectable_ids

    def _selectable_values(self, values: tf.Tensor) -> tf.Tensor:
        """bool, like `values`: True where the id is not one of `unselectable_ids`."""
        if isinstance(self._unselectable_ids, list) and not self._unselectable_ids:
            return tf.ones_like(values, tf.bool)
        excluded = tf.cast(tf.reshape(self._unselectable_ids, [-1]), values.dtype)
        return ~tf.reduce_any(tf.equal(values[:, None], excluded[None, :]), axis=1)

    def _selectable_items(self, ids: tf.RaggedTensor, axis: int) -> tf.Tensor:
        """bool [items at `axis`]: the items none of whose ids is unselectable."""
        flags = self._selectable_values(ids.flat_values)
        if axis == ids.ragged_rank:
            return flags
        return _all_within(flags, compose_splits(ids.nested_row_splits[axis:]))

    def get_selectable(self, input_ids: tf.RaggedTensor, axis: int) -> tf.RaggedTensor:
        """The items that may be chosen: bool RaggedTensor shaped `input_ids.shape[:axis + 1]`.

        >>> ItemSelector([0]).get_selectable(tf.ragged.constant([[[5, 0], [6]]]), axis=1).to_list()
        [[False, True]]
        """
        ids = as_ragged(input_ids)
        axis = positive_axis(axis, ids)
        return _item_mask(ids, axis, self._selectable_items(ids, axis))

    def get_selection_mask(self, input_ids: tf.RaggedTensor, axis: int = 1) -> tf.RaggedTensor:
        """The items selected: bool RaggedTensor shaped `input_ids.shape[:axis + 1]` (here: every selectable one).

        >>> ItemSelector().get_selection_mask(tf.ragged.constant([[3, 4]])).to_list()
        [[True, True]]
        """
        return self.get_selectable(input_ids, axis)


def first_n_items(
    ids: tf.RaggedTensor, axis: int, selectable: tf.Tensor | None, count: int | tf.Tensor, *, last: bool = False
) -> tf.Tensor:
    """bool [items at `axis`]: the first (`last`: the last) `count` (scalar or per row) selectable items (None:
    all) of each batch row.

    >>> ids = tf.ragged.constant([[1, 2, 3], [4, 5]])
    >>> first_n_items(ids, 1, tf.constant([False, True, True, True, True]), [1, 5]).numpy().tolist()
    [False, True, False, True, True]
    >>> first_n_items(ids, 1, tf.constant([True, True, False, True, True]), 1, last=True).numpy().tolist()
    [False, True, False, False, True]
    """
    splits = tf.cast(item_splits(ids, axis), tf.int64)
    count = tf.cast(count, tf.int64)
    if selectable is None:  # all of them
        lengths = splits[1:] - splits[:-1]
        count = tf.maximum(tf.minimum(count, lengths), 0)
        if last:  # not the first length - count
            chosen = ~first_of_rows(tf.cast(lengths, tf.int32), tf.cast(lengths - count, tf.int32))
        else:
            chosen = first_of_rows(tf.cast(lengths, tf.int32), tf.cast(count, tf.int32))
    else:
        within = within_rows(splits)
        count = tf.broadcast_to(tf.reshape(count, [-1]), [ids.nrows(out_type=tf.int64)])
        selected_before = tf.pad(tf.cumsum(tf.cast(selectable, tf.int64)), [[1, 0]])  # [items + 1]
        item = tf.range(splits[-1])
        if last:  # rank among the selectable items after it in its row
            row_end = spread(splits[1:], splits, within)
            rank = tf.gather(selected_before, row_end) - tf.gather(selected_before, item + 1)
        else:  # among those before it
            rank = tf.gather(selected_before, item) - tf.gather(selected_before, item - within)
        chosen = selectable & (rank < spread(count, splits, within))
    empty = _empty_items(ids, axis)
    return chosen if empty is None else chosen | empty


def first_of_rows(lengths: tf.Tensor, keep: tf.Tensor) -> tf.Tensor:
    """bool [sum(lengths)]: True for the first `keep` items of each row (int32 [rows] both, `keep` <= `lengths`).

    One RaggedRange from -keep counts each row's items up: the first `keep` of them are the negative ones
    (in int32: TF's int64 `<` is far slower).

    >>> first_of_rows(tf.constant([3, 2]), tf.constant([1, 2])).numpy().tolist()
    [True, False, False, True, True]
    """
    return tf.raw_ops.RaggedRange(starts=-keep, limits=lengths - keep, deltas=1, Tsplits=tf.int32).rt_dense_values < 0


class _NItemSelector(ItemSelector):
    """Selects `num_to_select` selectable items of each batch row, the first ones or (`_LAST`) the last ones."""

    _LAST = False

    def __init__(self, num_to_select: int | tf.Tensor, unselectable_ids: list[int] | tf.Tensor | None = None):
        super().__init__(unselectable_ids)
        self._num_to_select = num_to_select

    def get_selectable(self, input_ids: tf.RaggedTensor, axis: int) -> tf.RaggedTensor:
        """bool RaggedTensor shaped `input_ids.shape[:axis + 1]`: each row's `num_to_select` selectable items.

        >>> FirstNItemSelector(1, [9]).get_selectable(tf.ragged.constant([[9, 4, 5]]), axis=1).to_list()
        [[False, True, False]]
        >>> LastNItemSelector(1, [9]).get_selectable(tf.ragged.constant([[4, 5, 9]]), axis=1).to_list()
        [[False, True, False]]
        """
        ids = as_ragged(input_ids)
        axis = positive_axis(axis, ids)
        selectable = self._selectable_items(ids, axis)
        return _item_mask(ids, axis, first_n_items(ids, axis, selectable, self._num_to_select, last=self._LAST))


class FirstNItemSelector(_NItemSelector):
    """Selects the first `num_to_select` selectable items of each batch row.

    Args:
      num_to_select: an int, or an int Tensor of one count per batch row.
      unselectable_ids: ids never selected (and not counted). Defaults to none.

    >>> FirstNItemSelector(2).get_selection_mask(tf.ragged.constant([[1, 2, 3], [5]]), axis=1).to_list()
    [[True, True, False], [True]]
    """


class LastNItemSelector(_NItemSelector):
    """Selects the last `num_to_select` selectable items of each batch row.

    Args:
      num_to_select: an int, or an int Tensor of one count per batch row.
      unselectable_ids: ids never selected (and not counted). Defaults to none.

    >>> LastNItemSelector(2).get_selection_mask(tf.ragged.constant([[1, 2, 3], [5]]), axis=1).to_list()
    [[False, True, True], [True]]
    """

    _LAST = True


class NothingSelector(ItemSelector):
    """Selects nothing (tensorflow_text's `item_selector_ops.NothingSelector`): all False, but for an item of no
    ids above the last axis, which tensorflow_text reads as selectable (all of its none are).

    >>> NothingSelector().get_selection_mask(tf.ragged.constant([[[1, 2], [3]], [[4], []]]), axis=1).to_list()
    [[False, False], [False, True]]
    """

    def __init__(self):
        super().__init__([])

    def _selectable_items(self, ids: tf.RaggedTensor, axis: int) -> tf.Tensor:
        empty = _empty_items(ids, axis)
        return tf.zeros([item_splits(ids, axis)[-1]], tf.bool) if empty is None else empty


def _selection_counts(selectable: tf.Tensor, splits: tf.Tensor, rate: float, cap: int) -> tf.Tensor:
    """int64 [batch]: min(ceil(selectable items * rate), cap), in float32 as tensorflow_text rounds it."""
    selected_before = tf.pad(tf.cumsum(tf.cast(selectable, tf.int64)), [[1, 0]])
    available = tf.gather(selected_before, splits[1:]) - tf.gather(selected_before, splits[:-1])
    wanted = tf.math.ceil(tf.cast(available, tf.float32) * tf.cast(rate, tf.float32))
    return tf.cast(tf.minimum(wanted, tf.cast(cap, tf.float32)), tf.int64)


class RandomItemSelector(ItemSelector):
    """Selects `ceil(selection_rate * selectable items)` of each row at random, at most `max_selections_per_batch`.

    Args:
      max_selections_per_batch: the most items selected in one batch row.
      selection_rate: the share of each row's selectable items to select (rounded up).
      unselectable_ids: ids never selected. Defaults to none.
      shuffle_fn: a function that shuffles a 1-D Tensor; given, each row is shuffled by it as tensorflow_text
        does (one call per row); left out, all rows are drawn at once from `tf.random` (the global seed).

    >>> _ = tf.random.set_seed(1)
    >>> selector = RandomItemSelector(max_selections_per_batch=2, selection_rate=1.0, unselectable_ids=[101])
    >>> [sum(row) for row in selector.get_selection_mask(tf.ragged.constant([[101, 5, 6, 7], [101, 8]]), 1).to_list()]
    [2, 1]
    """

    def __init__(
        self,
        max_selections_per_batch: int,
        selection_rate: float,
        unselectable_ids: list[int] | tf.Tensor | None = None,
        shuffle_fn: Callable[[tf.Tensor], tf.Tensor] | None = None,
    ):
        if selection_rate is None:
            raise ValueError("selection_rate: expected a float in [0, 1], got None")
        self._max_selections_per_batch = max_selections_per_batch
        self._selection_rate = selection_rate
        self._shuffle_fn = shuffle_fn
        super().__init__(unselectable_ids)

    @property
    def shuffle_fn(self) -> Callable[[tf.Tensor], tf.Tensor]:
        """The shuffle used per row (`tf.random.shuffle` unless one was given)."""
        return tf.random.shuffle if self._shuffle_fn is None else self._shuffle_fn

    @property
    def max_selections_per_batch(self) -> int:
        """The most items selected in one batch row."""
        return self._max_selections_per_batch

    @property
    def selection_rate(self) -> float:
        """The share of selectable items selected."""
        return self._selection_rate

    def get_selection_mask(self, input_ids: tf.RaggedTensor, axis: int) -> tf.RaggedTensor:
        """bool RaggedTensor shaped `input_ids.shape[:axis + 1]`: each row's randomly chosen selectable items.

        >>> mask = RandomItemSelector(3, 0.0).get_selection_mask(tf.ragged.constant([[1, 2]]), axis=1)
        >>> mask.to_list()
        [[False, False]]
        """
        ids = as_ragged(input_ids)
        axis = positive_axis(axis, ids)
        selectable = self._selectable_items(ids, axis)
        splits = tf.cast(item_splits(ids, axis), tf.int64)
        row = row_ids(splits)
        count = _selection_counts(selectable, splits, self._selection_rate, self._max_selections_per_batch)
        if self._shuffle_fn is None:
            chosen = self._draw(selectable, row, splits, count)
        else:
            chosen = self._shuffle_rows(ids, axis, selectable, row, count)
        empty = _empty_items(ids, axis)
        return _item_mask(ids, axis, chosen if empty is None else chosen | empty)

    @staticmethod
    def _draw(selectable: tf.Tensor, row: tf.Tensor, splits: tf.Tensor, count: tf.Tensor) -> tf.Tensor:
        """bool [items]: in each row, the `count` selectable items with the lowest uniform keys."""
        key = tf.where(selectable, tf.random.uniform(tf.shape(selectable)), 2.0)  # unselectable ones sort last
        order = tf.argsort(tf.cast(row, tf.float64) * 4.0 + tf.cast(key, tf.float64), stable=True)
        position = tf.math.invert_permutation(order)  # where each item landed in the sorted batch
        rank = tf.cast(position, tf.int64) - tf.gather(splits, row)  # the rows stay in order: row r starts there
        return selectable & (rank < tf.gather(count, row))

    def _shuffle_rows(
        self, ids: tf.RaggedTensor, axis: int, selectable: tf.Tensor, row: tf.Tensor, count: tf.Tensor
    ) -> tf.Tensor:
        """bool [items]: each row's selectable items through `shuffle_fn`, the first `count` of them kept."""
        index = tf.range(tf.size(selectable, out_type=tf.int64))
        candidates = tf.RaggedTensor.from_value_rowids(
            tf.boolean_mask(index, selectable), tf.boolean_mask(row, selectable), nrows=tf.size(count, tf.int64)
        )
        by_position = axis == ids.ragged_rank  # tensorflow_text shuffles token positions, or word numbers

        def pick(args: tuple[tf.Tensor, tf.Tensor]) -> tf.Tensor:
            positions, n = args
            if by_position:
                return self._shuffle_fn(positions)[:n]
            return tf.gather(positions, self._shuffle_fn(tf.range(tf.size(positions, out_type=tf.int64)))[:n])

        picked = tf.map_fn(
            pick, (candidates, count), fn_output_signature=tf.RaggedTensorSpec([None], tf.int64, ragged_rank=0)
        )
        hits = tf.scatter_nd(
            picked.flat_values[:, None], tf.ones_like(picked.flat_values), tf.shape(index, out_type=tf.int64)
        )
        return hits > 0


class MaskValuesChooser:
    """What a selected id becomes: `mask_token` (at `mask_token_rate`), a random id (at `random_token_rate`),
    or itself (the rest), as in BERT's masked-LM recipe.

    Args:
      vocab_size: random ids are drawn from [0, vocab_size).
      mask_token: the id of `[MASK]`.
      mask_token_rate: the share replaced by `mask_token`. Defaults to 0.8.
      random_token_rate: the share replaced by a random id. Defaults to 0.1.
        `mask_token_rate + random_token_rate` must be <= 1.

    >>> MaskValuesChooser(30, 4, mask_token_rate=1.0, random_token_rate=0.0).get_mask_values(
    ...     tf.ragged.constant([[7, 8], [9]])).to_list()
    [[4, 4], [4]]
    """

    def __init__(self, vocab_size: int, mask_token: int, mask_token_rate: float = 0.8, random_token_rate: float = 0.1):
        if mask_token_rate is None:
            raise ValueError("mask_token_rate: expected a float in [0, 1], got None")
        if random_token_rate is None:
            raise ValueError("random_token_rate: expected a float in [0, 1], got None")
        self._vocab_size = vocab_size
        self._mask_token = mask_token
        self._mask_token_rate = mask_token_rate
        self._random_token_rate = random_token_rate

    @property
    def mask_token(self) -> int:
        """The id of `[MASK]`."""
        return self._mask_token

    @property
    def random_token_rate(self) -> float:
        """The share of selected ids replaced by a random id."""
        return self._random_token_rate

    @property
    def vocab_size(self) -> int:
        """Random ids are below this."""
        return self._vocab_size

    def get_mask_values(self, masked_lm_ids: tf.RaggedTensor) -> tf.RaggedTensor:
        """The new value of each selected id: a RaggedTensor shaped and typed like `masked_lm_ids` (int32/int64).

        Draws one uniform u per id: u < mask_token_rate gives `mask_token`, mask_token_rate < u <
        mask_token_rate + random_token_rate a random id, otherwise the id stays (the same draws, in the same
        order, as tensorflow_text, so after the same `tf.random.set_seed` eager calls agree with it).

        >>> MaskValuesChooser(30, 4, 0.0, 0.0).get_mask_values(tf.ragged.constant([[7]])).to_list()
        [[7]]
        """
        with tf.control_dependencies([_rates_fit(self._mask_token_rate, self._random_token_rate)]):
            ids = as_ragged(masked_lm_ids, name="masked_lm_ids")
            values, shape = ids.flat_values, tf.shape(ids.flat_values)  # one Shape op for both draws
            draw = tf.random.uniform(shape, 0, 1, dtype=tf.float32)
            mask_rate = tf.cast(self._mask_token_rate, tf.float32)
            values = _select(draw < mask_rate, tf.fill(shape, tf.cast(self._mask_token, values.dtype)), values)
            random_ids = tf.random.uniform(shape, maxval=tf.cast(self._vocab_size, tf.float32))
            inject = (draw > mask_rate) & (draw < mask_rate + tf.cast(self._random_token_rate, tf.float32))
            return ids.with_flat_values(_select(inject, tf.cast(random_ids, values.dtype), values))


def _select(condition: tf.Tensor, x: tf.Tensor, y: tf.Tensor) -> tf.Tensor:
    """`tf.where` of three tensors of one shape as the Select op: tf.where's SelectV2 takes its broadcasting
    path even then, 3 to 6 times the time per value (measured on 1,300 ids: 3.5 us against 0.5 to 0.9)."""
    return tf.raw_ops.Select(condition=condition, x=x, y=y)


def _rates_fit(mask_token_rate: float | tf.Tensor, random_token_rate: float | tf.Tensor) -> tf.Operation | None:
    """An Assert that the rates sum to at most 1, failing at the call as tensorflow_text's does.

    Its message is one string: float data would put the Assert in a tf.cond, a function call on every run of
    the graph (a third of `get_mask_values`' own time at 64 rows). Rates given as numbers add up in Python, as
    tensorflow_text adds them.
    """
    message = "mask_token_rate + random_token_rate must be <= 1"
    if isinstance(mask_token_rate, (int, float)) and isinstance(random_token_rate, (int, float)):
        fits = mask_token_rate + random_token_rate <= 1
        return tf.debugging.Assert(fits, [f"{message}; got {mask_token_rate} and {random_token_rate}"])
    fits = tf.cast(mask_token_rate, tf.float32) + tf.cast(random_token_rate, tf.float32) <= 1
    return tf.debugging.Assert(fits, [message])


def mask_language_model(
    input_ids: tf.RaggedTensor,
    item_selector: ItemSelector,
    mask_values_chooser: MaskValuesChooser,
    axis: int = 1,
) -> tuple[tf.RaggedTensor, tf.RaggedTensor, tf.RaggedTensor]:
    """BERT's masked-LM input: select items with `item_selector`, replace their ids via `mask_values_chooser`.

    Args:
      input_ids: int32/int64 RaggedTensor [batch, (tokens)] or [batch, (words), (pieces)] (rank >= 2).
      item_selector: an `ItemSelector`; at `axis=1` of [batch, (words), (pieces)] whole words are selected.
      mask_values_chooser: a `MaskValuesChooser`.
      axis: the axis whose items are selected as wholes. Defaults to 1.

    Returns:
      `(masked_input_ids, masked_positions, masked_ids)`: the ids with ragged dimensions merged into
      [batch, (tokens)], same dtype, selected ids replaced; int64 [batch, (selected)] positions of the selected
      ids within each row (ascending); the original ids at those positions (the labels).

    >>> ids = tf.ragged.constant([[101, 7, 8, 102], [101, 9, 102]])
    >>> selector = FirstNItemSelector(1, unselectable_ids=[101, 102])
    >>> chooser = MaskValuesChooser(30, 4, mask_token_rate=1.0, random_token_rate=0.0)
    >>> [t.to_list() for t in mask_language_model(ids, selector, chooser)]
    [[[101, 4, 8, 102], [101, 4, 102]], [[1], [1]], [[7], [9]]]
    """
    if not isinstance(item_selector, ItemSelector):
        raise ValueError(f"item_selector: expected an ItemSelector (e.g. RandomItemSelector), got {item_selector!r}")
    if not isinstance(mask_values_chooser, MaskValuesChooser):
        raise ValueError(f"mask_values_chooser: expected a MaskValuesChooser, got {mask_values_chooser!r}")
    ids = as_ragged(input_ids)
    chosen = item_selector.get_selection_mask(ids, axis)
    tokens = ids.merge_dims(1, -1) if ids.ragged_rank > 1 else ids
    token_chosen = _token_flags(chosen, ids)
    row = row_ids(tokens.row_splits)
    where = tf.where(token_chosen)[:, 0]
    position = within_rows(tokens.row_splits)
    rows_chosen, nrows = tf.gather(row, where), tokens.nrows()
    masked_positions = tf.RaggedTensor.from_value_rowids(tf.gather(position, where), rows_chosen, nrows, validate=False)
    masked_ids = masked_positions.with_flat_values(tf.gather(tokens.values, where))
    new_values = mask_values_chooser.get_mask_values(masked_ids).flat_values
    updated = tf.tensor_scatter_nd_update(tokens.values, where[:, None], tf.cast(new_values, tokens.dtype))
    return tokens.with_values(updated), masked_positions, masked_ids


def _token_flags(chosen: tf.RaggedTensor, ids: tf.RaggedTensor) -> tf.Tensor:
    """A selection mask over items (shaped `ids.shape[:axis + 1]`) spread to each id below them, bool [ids]."""
    depth = chosen.ragged_rank
    if depth == ids.ragged_rank:
        return chosen.flat_values
    below = compose_splits(ids.nested_row_splits[depth:])
    return tf.gather(chosen.flat_values, row_ids(below))
