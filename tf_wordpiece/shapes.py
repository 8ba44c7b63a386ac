"""The rank policy, written once: every tokenizer works on a flat batch [n] of strings.

A scalar gives [...pieces] (row 0), a [batch] or higher-rank dense input gets
its shape back in front of the ragged axes, and a RaggedTensor keeps its
ragged structure (`with_flat_values`).
"""

from __future__ import annotations

from typing import Callable

import tensorflow as tf


def map_over_strings(values, name: str, fn: Callable[[tf.Tensor], tuple]) -> tuple:
    """Applies `fn` (string [n] -> tuple of RaggedTensor [n, ...]) to any shape of strings.

    A RaggedTensor may have int32 or int64 row_splits (the outputs keep its
    dtype, as tensorflow_text's do) and uniform inner dimensions (flat_values
    of any rank, kept as uniform dimensions of the outputs).

    >>> chars = lambda flat: (tf.strings.bytes_split(flat),)
    >>> rt = tf.RaggedTensor.from_row_splits(tf.constant([["ab", "c"]]), tf.constant([0, 0, 1], tf.int32))
    >>> out, = map_over_strings(rt, "strings", chars)
    >>> out.shape.as_list(), out.row_splits.dtype.name, out.to_list()
    ([2, None, 2, None], 'int32', [[], [[[b'a', b'b'], [b'c']]]])
    """
    strings = as_strings(values, name)
    if isinstance(strings, tf.RaggedTensor):
        inner = map_over_strings(strings.flat_values, name, fn)
        dtype = strings.row_splits.dtype
        return tuple(strings.with_flat_values(t.with_row_splits_dtype(dtype)) for t in inner)
    outputs = fn(tf.reshape(strings, [-1]))
    return tuple(restore_shape(t, strings) for t in outputs)


def refuse_empty_list(values, name: str) -> None:
    """A ValueError naming `name` for an empty list or tuple of strings, which TensorFlow would convert to float32
    (a string check then blames ids, not the empty list).

    >>> refuse_empty_list(["a"], "strings")
    >>> refuse_empty_list([], "strings")
    Traceback (most recent call last):
    ValueError: strings: the list is empty; pass at least one string, or tf.constant([], tf.string) for an empty batch
    """
    if isinstance(values, (list, tuple)) and not values:
        raise ValueError(
            f"{name}: the list is empty; pass at least one string, or tf.constant([], tf.string) for an empty batch"
        )


def ragged_value_as_tensor(values):
    """A `tf.compat.v1.ragged.RaggedTensorValue` (what a TF1 session returns, and tensorflow_text takes) as a
    RaggedTensor; anything else unchanged.

    >>> value = tf.compat.v1.ragged.RaggedTensorValue(tf.constant([1, 2, 3]).numpy(), tf.constant([0, 2, 3]).numpy())
    >>> ragged_value_as_tensor(value).to_list()
    [[1, 2], [3]]
    """
    if isinstance(values, tf.compat.v1.ragged.RaggedTensorValue):
        return tf.RaggedTensor.from_nested_row_splits(values.flat_values, values.nested_row_splits)
    return values


def as_strings(values, name: str):
    values = ragged_value_as_tensor(values)
    if isinstance(values, tf.RaggedTensor):
        tensor = values
    else:
        refuse_empty_list(values, name)
        try:
            tensor = tf.convert_to_tensor(values)
        except (TypeError, ValueError) as e:
            raise TypeError(
                f"{name}: expected strings (tf.string tensor or list of str/bytes), got {type(values).__name__}: {e}"
            ) from None
    if tensor.dtype != tf.string:
        raise TypeError(f"{name}: expected a tf.string tensor, got dtype {tensor.dtype.name}; pass text, not ids")
    return tensor


def scalar_as_batch(values, name: str):
    """Strings with a scalar made a batch of one (tensorflow_text's rank policy for BertTokenizer)."""
    strings = as_strings(values, name)
    if not isinstance(strings, tf.RaggedTensor) and strings.shape.rank == 0:
        return strings[None]
    return strings


def as_string_batch(values, name: str) -> tuple[tf.Tensor, bool]:
    """string [batch] or scalar -> (string [batch], whether it was a scalar)."""
    strings = as_strings(values, name)
    if isinstance(strings, tf.RaggedTensor) or strings.shape.rank not in (0, 1):
        raise ValueError(f"{name}: expected a scalar or a [batch] of strings, got shape {strings.shape}")
    if strings.shape.rank == 0:
        return strings[None], True
    return strings, False


def as_word_batch(values, name: str) -> tuple[tf.RaggedTensor, bool]:
    """words [batch, (words)] (ragged, dense or Python lists) or one example's [words] ->
    (string RaggedTensor [batch, (words)] with int64 row_splits, whether it was one example)."""
    if isinstance(values, (list, tuple)) and any(isinstance(v, (list, tuple)) for v in values):
        try:
            values = tf.ragged.constant(values, dtype=tf.string, ragged_rank=1)
        except (TypeError, ValueError) as e:
            raise TypeError(f"{name}: expected lists of words (str or bytes) with is_pretokenized=True: {e}") from None
    elif isinstance(values, (list, tuple)) and not values:
        values = tf.constant([], tf.string)
    words = as_strings(values, name)
    rank = words.shape.rank
    if rank not in (1, 2) or (isinstance(words, tf.RaggedTensor) and words.ragged_rank != 1):
        raise ValueError(
            f"{name}: with is_pretokenized=True expected words [words] or [batch, (words)], got shape "
            f"{words.shape}; pass a list of words per input"
        )
    if rank == 1:
        return tf.RaggedTensor.from_tensor(words[None]).with_row_splits_dtype(tf.int64), True
    if not isinstance(words, tf.RaggedTensor):
        words = tf.RaggedTensor.from_tensor(words)
    return words.with_row_splits_dtype(tf.int64), False


def as_ids(values, name: str):
    """Token ids as a Tensor or RaggedTensor of an integer dtype (Python lists of lists may be ragged)."""
    values = ragged_value_as_tensor(values)
    if not isinstance(values, (tf.Tensor, tf.RaggedTensor)):
        try:
            values = tf.convert_to_tensor(values, dtype_hint=tf.int64)  # [] too: int64, not float32
        except (TypeError, ValueError):
            try:
                values = tf.ragged.constant(values, dtype=tf.int64)
            except (TypeError, ValueError) as e:
                raise TypeError(
                    f"{name}: expected integer ids (a tensor or lists of int), got {type(values).__name__}: {e}"
                ) from None
    if not values.dtype.is_integer:
        raise TypeError(f"{name}: expected integer ids, got dtype {values.dtype.name}; pass ids, not text")
    return values


class PythonEntry(tf.Module):
    """A tf.function entry point that converts its argument before the call.

    Calling a `tf.function` with Python values (a str, a list) traces it again
    for every distinct value; here `convert` turns them into tensors first, so
    `encode("hello")` in a loop reuses one graph. Saved in a SavedModel as a
    callable object (its traced `specs` kept), loaded without tf_wordpiece.

    >>> entry = PythonEntry(lambda s: tf.strings.length(s), lambda v: as_strings(v, "s"),
    ...                     [tf.TensorSpec([None], tf.string)])
    >>> entry(["ab", "c"]).numpy().tolist(), entry("abc").numpy().tolist()
    ([2, 1], 3)
    """

    def __init__(self, fn: Callable, convert: Callable, specs):
        super().__init__()
        self._convert = convert
        # As an instance attribute, the function is what a SavedModel keeps as `__call__`.
        self.__call__ = tf.function(fn)
        for spec in specs:
            self.__call__.get_concrete_function(spec)

    def __call__(self, value):
        return self.__dict__["__call__"](self._convert(value))


def gather_in_rows(params: tf.RaggedTensor, indices: tf.RaggedTensor) -> tf.RaggedTensor:
    """out[i][j] = params[i][indices[i][j]] for ragged [n, ...] params and indices."""
    row_start = tf.gather(params.row_splits, value_rows(indices))
    flat = row_start + tf.cast(indices.flat_values, row_start.dtype)
    return indices.with_flat_values(tf.gather(params.flat_values, flat))


def restore_shape(flat: tf.RaggedTensor, like: tf.Tensor):
    """[n, ...] ragged with n = like's size -> [*like.shape, ...]; a scalar `like` gives row 0."""
    rank = like.shape.rank
    if rank is None:
        raise ValueError("input: the rank of the input must be known (a scalar, [batch] or higher)")
    if rank == 0:
        return flat[0]
    shape = tf.shape(like, out_type=tf.int64)
    for axis in range(rank - 1, 0, -1):
        flat = tf.RaggedTensor.from_uniform_row_length(flat, shape[axis])
    return flat


def rows_to_splits(rows: tf.Tensor, nrows: tf.Tensor) -> tf.Tensor:
    """int64 row_splits [nrows + 1] from each value's row (int64, non-decreasing).

    Same as RaggedTensor.from_value_rowids's partition: each row's count, one
    UnsortedSegmentSum, then a running sum over the rows. (Not tf.searchsorted:
    its LowerBound op is neither a TFLite builtin nor a Flex op, so a model
    using it cannot be converted to TFLite.)

    >>> rows_to_splits(tf.constant([0, 0, 2], tf.int64), tf.constant(4, tf.int64)).numpy().tolist()
    [0, 2, 2, 3, 3]
    """
    nrows = tf.cast(nrows, tf.int64)
    counts = tf.math.unsorted_segment_sum(tf.ones_like(rows, dtype=tf.int64), rows, nrows)
    return tf.concat([tf.zeros([1], tf.int64), tf.cumsum(counts)], 0)


def lower_bound(sorted_values: tf.Tensor, values: tf.Tensor, limit: tf.Tensor) -> tf.Tensor:
    """int32 index of the first element >= each value: `tf.searchsorted(sorted_values, values)`.

    Shapes: sorted_values int32 [k] (non-decreasing, in [0, limit]), values
    int32 [n] (in [0, limit]) -> int32 [n]. The number of elements below each
    value, from a count per value and a running sum (as `rows_to_splits`:
    searchsorted's LowerBound op is neither a TFLite builtin nor a Flex op).

    >>> lower_bound(tf.constant([1, 3, 3, 5]), tf.constant([0, 1, 2, 3, 4, 5]), tf.constant(5)).numpy().tolist()
    [0, 0, 1, 1, 3, 3]
    """
    below = rows_to_splits(tf.cast(sorted_values, tf.int64), limit + 1)  # below[v]: elements < v
    return tf.cast(tf.gather(below, values), tf.int32)


def value_rows(ragged: tf.RaggedTensor) -> tf.Tensor:
    """int32 [values]: the row of each value of a ragged [n, (k), ...], like `value_rowids()`.

    `value_rowids()` adds about 70 graph nodes (shape checks that Grappler
    mostly folds away, but every function instantiation, including each new
    `tf.data` iterator, pays for them first); this adds a handful.

    >>> value_rows(tf.ragged.constant([[5, 6], [], [7]])).numpy().tolist()
    [0, 0, 2]
    """
    splits = ragged.row_splits
    return rows_and_positions(splits[1:] - splits[:-1])[0]


def masked(values: tf.Tensor, mask: tf.Tensor) -> tf.Tensor:
    """values [n, ...] where bool mask [n] holds: `tf.boolean_mask` for a rank-1 mask, in 4 graph nodes
    instead of 27 (each node costs every function instantiation, as `value_rows` says).

    >>> masked(tf.constant([5, 6, 7]), tf.constant([True, False, True])).numpy().tolist()
    [5, 7]
    """
    return tf.gather(values, tf.reshape(tf.where(mask), [-1]))


def rows_of_values(row_starts: tf.Tensor, size: tf.Tensor) -> tf.Tensor:
    """int32 [size]: the row of each value, given each row's first index (non-decreasing).

    Same as RaggedTensor.value_rowids or tf.repeat(tf.range(k), counts), and
    several times cheaper (see `rows_and_positions`).

    >>> rows_of_values(tf.constant([0, 2, 2]), tf.constant(3)).numpy().tolist()
    [0, 0, 2]
    """
    starts = tf.cast(row_starts, tf.int64)
    lengths = tf.concat([starts[1:], tf.cast(tf.reshape(size, [1]), tf.int64)], 0) - starts
    return rows_and_positions(lengths)[0]


def rows_and_positions(
    lengths: tf.Tensor, *, first: tf.Tensor | None = None, out_type: tf.DType = tf.int32
) -> tuple[tf.Tensor, tf.Tensor]:
    """Row lengths [k] -> (row, position) [sum(lengths)]: each value's row and its index in the row.

    Positions count from `first[row]` (int [k], default 0; each row's last
    position must stay below 2**32). One RaggedRange counts `row << 32 | first,
    row << 32 | first + 1, ...` for each row, and the row and the position are
    that count's two halves: TensorFlow's cumsum and tf.repeat, the usual way,
    cost several times more on CPU.

    >>> [t.numpy().tolist() for t in rows_and_positions(tf.constant([2, 0, 3]))]
    [[0, 0, 2, 2, 2], [0, 1, 0, 1, 2]]
    >>> rows_and_positions(tf.constant([2, 1]), first=tf.constant([5, 9]))[1].numpy().tolist()
    [5, 6, 9]
    """
    base = tf.bitwise.left_shift(tf.range(tf.size(lengths, out_type=tf.int64)), 32)
    if first is not None:
        base = tf.bitwise.bitwise_or(base, tf.cast(first, tf.int64))
    packed = tf.ragged.range(base, base + tf.cast(lengths, tf.int64)).flat_values
    row = tf.bitwise.right_shift(packed, 32)
    position = tf.bitwise.bitwise_and(packed, 0xFFFFFFFF)
    return tf.cast(row, out_type), tf.cast(position, out_type)


def merge_words(pieces: tf.RaggedTensor) -> tf.RaggedTensor:
    """[n, (words), (pieces)] -> [n, (pieces)]: each row's pieces, words merged.

    The same as `pieces.merge_dims(-2, -1)` for ragged rank 2, without the row
    partition checks that `merge_dims` adds (about 30 graph nodes, run on
    every call, for splits that are valid by construction).

    >>> merge_words(tf.ragged.constant([[[1], [2, 3]], [], [[4]]])).to_list()
    [[1, 2, 3], [], [4]]
    """
    splits = tf.gather(pieces.values.row_splits, pieces.row_splits)
    return tf.RaggedTensor.from_row_splits(pieces.values.values, splits, validate=False)


def wrap_rows(values: tf.RaggedTensor, first, last) -> tf.RaggedTensor:
    """[n, (k)] -> [n, (k + 2)]: `first` before and `last` after each row's values.

    The same as `tf.concat([firsts, values, lasts], axis=1)` for ragged values,
    in a few flat ops instead of the ragged concat's many: each output slot
    gathers from the values followed by `first` and `last`.

    >>> wrap_rows(tf.ragged.constant([[5, 6], []], tf.int64), 1, 2).to_list()
    [[1, 5, 6, 2], [1, 2]]
    >>> wrap_rows(tf.ragged.constant([[7]], tf.int32, row_splits_dtype=tf.int32), 0, 9).to_list()
    [[0, 7, 9]]
    """
    lengths = tf.cast(values.row_lengths(), tf.int64)
    row, position = rows_and_positions(lengths + 2, out_type=tf.int64)
    size = tf.size(values.flat_values, out_type=tf.int64)
    source = tf.gather(tf.cast(values.row_starts(), tf.int64), row) + position - 1  # position 1..k: the row's values
    source = tf.where(tf.equal(position, 0), size, tf.where(position > tf.gather(lengths, row), size + 1, source))
    pool = tf.concat([values.flat_values, tf.constant([first, last], values.dtype)], 0)
    splits = values.row_splits + 2 * tf.range(tf.size(values.row_splits, out_type=values.row_splits.dtype))
    return tf.RaggedTensor.from_row_splits(tf.gather(pool, source), splits, validate=False)


def wrap_flat_rows(values: list[tf.Tensor], row_lengths: tf.Tensor, firsts: list, lasts: list) -> list[tf.Tensor]:
    """Flat rows [k] (lengths int32 [n]) -> [k + 2n]: firsts[j] before and lasts[j] after each row of values[j].

    The flat form of `wrap_rows`, in int32 scatters and sums only (for the
    bytes signatures, which TFLite's builtins and TF.js run); `firsts` and
    `lasts` hold scalars or int32 [n] (one a row).

    >>> ids, = wrap_flat_rows([tf.constant([5, 6, 7])], tf.constant([2, 0, 1]), [1], [2])
    >>> ids.numpy().tolist()
    [1, 5, 6, 2, 1, 2, 1, 7, 2]
    """
    n = tf.size(row_lengths)
    size = tf.size(values[0])
    old_start = tf.cumsum(row_lengths, exclusive=True)
    new_start = old_start + 2 * tf.range(n)
    # Each value's row: how many rows start at or before it (empty rows share a start), less one.
    starts_at = tf.scatter_nd(old_start[:, None], tf.ones_like(row_lengths), [size + 1])[:size]
    row = tf.cumsum(starts_at) - 1
    target = tf.concat([new_start, new_start + row_lengths + 1, tf.range(size) + 2 * row + 1], 0)[:, None]
    out_size = size + 2 * n

    def wrapped(flat, first, last):
        pieces = [tf.broadcast_to(first, [n]), tf.broadcast_to(last, [n]), flat]
        # One spare slot: TFLite's SCATTER_ND divides by zero on an empty output (an empty batch).
        return tf.scatter_nd(target, tf.concat([tf.cast(p, flat.dtype) for p in pieces], 0), [out_size + 1])[:out_size]

    return [wrapped(flat, first, last) for flat, first, last in zip(values, firsts, lasts)]
