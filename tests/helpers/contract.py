"""The contract every tokenizer goes through: eager, tf.function, tf.data.map, a SavedModel round trip, the
detokenize round trip where there is one, and construction inside a tf.function where that is meaningful.

- `check_every_way(fn, inputs, ...)`: the core: any function of a batch (one tensor or a tuple of tensors) to a
  tensor, a RaggedTensor or a tuple / dict of them, run eagerly, in tf.function, in tf.data (batched), and after
  tf.saved_model.save / load; all must agree with eager.
- `check_contract(tokenizer, strings, ...)`: tokenizers with `tokenize_with_offsets` (BertTokenizer,
  WordpieceTokenizer, ...): also `tokenize` on single strings in tf.data, and `detokenize` every way.
- `check_text_contract(tokenize, strings, ...)`: string -> ids functions without offsets (SubwordTextEncoder's
  encode / decode, TutorialTokenizer's tokenize / detokenize, KerasHubWordPiece.tokenize_flat, ...).
- `check_keras_contract(layer, inputs, ...)`: Keras layers: a Keras model around the layer instead of a
  tf.Module, saved as a .keras file (keras.models.load_model) and exported (model.export, then
  tf.saved_model.load, as where tf_wordpiece is not installed).
- `check_built_in_function(build, call, inputs, want)`: the object built inside a tf.function gives `want`.
- `every_way(tokenizer, words)`: tokenize and tokenize_with_offsets eagerly, in tf.function and in tf.data.
"""

from __future__ import annotations

from typing import Callable

import tensorflow as tf

from helpers.ragged import as_lists


def as_python(t):
    """A tensor or RaggedTensor as a nested Python list (or a Python scalar)."""
    return t.to_list() if isinstance(t, tf.RaggedTensor) else t.numpy().tolist()


def assert_ragged_equal(actual, expected, what: str) -> None:
    actual, expected = (as_python(t) for t in (actual, expected))
    assert actual == expected, f"{what}: {actual} != {expected}"


def _leaves(out) -> list:
    """The tensors of an output: a tensor, a RaggedTensor, or a (named) tuple, list or dict of them."""
    if isinstance(out, dict):
        return [out[k] for k in sorted(out)]
    if isinstance(out, (tuple, list)):
        return list(out)
    return [out]


def assert_outputs_equal(actual, expected, what: str) -> None:
    got, want = _leaves(actual), _leaves(expected)
    assert len(got) == len(want), f"{what}: {len(got)} outputs, expected {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        assert_ragged_equal(g, w, f"{what} (output {i})")


def _spec(t) -> tf.TypeSpec:
    """The TypeSpec of a batch like `t`, any batch size and row lengths."""
    if isinstance(t, tf.RaggedTensor):
        return tf.RaggedTensorSpec([None] * t.shape.rank, t.dtype, ragged_rank=t.ragged_rank)
    return tf.TensorSpec([None] * t.shape.rank, t.dtype)


class _Saved(tf.Module):
    """`fn` (and `inverse`) as SavedModel functions; `owner` is tracked, so its tables and variables are saved."""

    def __init__(self, owner, fn, signature, inverse=None, inverse_signature=None):
        super().__init__()
        self.owner = owner
        self.fn = tf.function(lambda *args: fn(*args), input_signature=signature)
        if inverse is not None:
            self.inverse = tf.function(lambda *args: inverse(*args), input_signature=inverse_signature)


def _saved_and_loaded(tmp_path, name: str, owner, fn, signature, inverse=None, inverse_signature=None):
    path = str(tmp_path / name)
    tf.saved_model.save(_Saved(owner, fn, signature, inverse, inverse_signature), path)
    return tf.saved_model.load(path)


def check_every_way(
    fn: Callable, inputs, tmp_path, *, owner=None, name: str = "fn", batch_size: int = 2, save: bool = True
):
    """`fn(*inputs)` eagerly, in tf.function, in tf.data (`batch_size` rows at a time) and in a reloaded
    SavedModel (`owner`, default `fn.__self__`, is saved with it); all must agree. Returns the eager output.

    `save=False` leaves out the SavedModel, for a caller that saves `fn` itself (with other functions of the
    same owner: one save and load per object, each costing seconds of tracing)."""
    inputs = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)
    eager = fn(*inputs)
    assert_outputs_equal(tf.function(fn)(*inputs), eager, f"{name}: tf.function")

    dataset = tf.data.Dataset.from_tensor_slices(inputs).batch(batch_size).map(fn)
    parts = [_leaves(out) for out in dataset]
    batched = [tf.concat(list(column), axis=0) for column in zip(*parts)] if parts else []
    assert_outputs_equal(batched, eager, f"{name}: tf.data batched")
    if not save:
        return eager

    owner = getattr(fn, "__self__", None) if owner is None else owner
    assert owner is not None, f"{name}: pass owner=, the object whose tables and variables `fn` uses"
    loaded = _saved_and_loaded(tmp_path, f"saved_{name}", owner, fn, [_spec(t) for t in inputs])
    assert_outputs_equal(loaded.fn(*inputs), eager, f"{name}: SavedModel")
    return eager


def check_built_in_function(build: Callable, call: Callable, inputs, want, what: str) -> None:
    """`call(build(), *inputs)` with `build()` run inside a tf.function (its tables and constants made in the
    graph) must give `want`: once, and again on a retrace for another batch size."""
    inputs = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)

    @tf.function
    def built_inside(*args):
        return call(build(), *args)

    assert_outputs_equal(built_inside(*inputs), want, f"{what}: built inside tf.function")
    head = tuple(t[:1] for t in inputs)
    assert_outputs_equal(built_inside(*head), [w[:1] for w in _leaves(want)], f"{what}: built inside, retraced")


def check_contract(
    tokenizer: tf.Module,
    strings: list[str],
    tmp_path,
    *,
    build: Callable | None = None,
    detokenized: list | None = None,
) -> tf.RaggedTensor:
    """Runs `tokenizer.tokenize_with_offsets` every way a user would; all must agree with eager.

    With `detokenize` (and integer ids), `detokenize(ids)` too, every way; `detokenized`, if given, is what it
    must return (as a Python list). `build`: a function making an equal tokenizer, run inside a tf.function.
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

    ids = eager[0]
    detokenize = getattr(tokenizer, "detokenize", None) if ids.dtype.is_integer else None
    if detokenize is not None:
        # Saved below, with tokenize: one SavedModel for both.
        words = check_every_way(detokenize, ids, tmp_path, name="detokenize", save=False)
        if detokenized is not None:
            assert as_python(words) == detokenized, f"detokenize: {as_python(words)} != {detokenized}"
    else:
        assert detokenized is None, "detokenized: this tokenizer has no detokenize for these ids"

    def tokenize(s):
        ids, begin, end = tokenizer.tokenize_with_offsets(s)
        return {"ids": ids, "begin": begin, "end": end}

    loaded = _saved_and_loaded(
        tmp_path, "saved_tokenizer", tokenizer, tokenize, [tf.TensorSpec([None], tf.string)], detokenize, [_spec(ids)]
    )
    out = loaded.fn(strings)
    for name, want in zip(("ids", "begin", "end"), eager):
        assert_ragged_equal(out[name], want, f"SavedModel {name}")
    if detokenize is not None:
        assert_ragged_equal(loaded.inverse(out["ids"]), detokenize(ids), "SavedModel detokenize")

    if build is not None:
        check_built_in_function(build, lambda tok, s: tok.tokenize_with_offsets(s), strings, eager, "tokenize")
    return ids


def check_text_contract(
    tokenize: Callable,
    strings: list[str],
    tmp_path,
    *,
    owner=None,
    detokenize: Callable | None = None,
    round_trip: str | list | None = None,
    build: Callable | None = None,
    build_call: Callable | None = None,
    scalar: bool = True,
):
    """Contract for `tokenize`: string [batch] -> ids (or a dict of tensors, such as BERT inputs), without offsets.

    Every way (`check_every_way`); with `scalar`, also one string at a time in tf.data (a scalar string in, one
    row out). With `detokenize` (ids -> strings [batch]), that every way too, and the round trip
    `round_trip`: "exact" (detokenize(tokenize(s)) == s, as bytes), or the list of strings it must give.
    `build`: makes an equal object inside a tf.function; `build_call(obj, strings)` (default: `tokenize`'s
    name called on it) must give what `tokenize` gives. Returns the eager ids.
    """
    batch = tf.constant(strings, tf.string)
    # With detokenize, both are saved in one SavedModel below (a save and a load cost seconds of tracing each).
    ids = check_every_way(tokenize, batch, tmp_path, owner=owner, name="tokenize", save=detokenize is None)
    if scalar:
        for i, row in enumerate(tf.data.Dataset.from_tensor_slices(batch).map(tokenize)):
            assert_ragged_equal(row, ids[i], f"tf.data element {i}")
    if detokenize is not None:
        text = check_every_way(detokenize, ids, tmp_path, name="detokenize", save=False)
        owner = getattr(tokenize, "__self__", None) if owner is None else owner
        assert owner is not None, "owner: pass the object whose tables and variables tokenize uses"
        loaded = _saved_and_loaded(tmp_path, "saved_text", owner, tokenize, [_spec(batch)], detokenize, [_spec(ids)])
        assert_outputs_equal(loaded.fn(batch), ids, "tokenize: SavedModel")
        assert_outputs_equal(loaded.inverse(ids), text, "detokenize: SavedModel")
        want = (
            [s.encode("utf-8") for s in strings]
            if round_trip == "exact"
            else [s.encode("utf-8") if isinstance(s, str) else s for s in round_trip]
        )
        assert as_python(text) == want, f"detokenize(tokenize(strings)): {as_python(text)} != {want}"
    else:
        assert round_trip is None, "round_trip: needs detokenize"
    if build is not None:
        if build_call is None:
            method = tokenize.__name__
            build_call = lambda obj, s: getattr(obj, method)(s)  # noqa: E731
        check_built_in_function(build, build_call, batch, ids, "tokenize")
    return ids


def check_keras_contract(layer, inputs, tmp_path, *, build: Callable | None = None):
    """Contract for a Keras 3 layer on one batch of `inputs` (a tensor or a list of them, the layer's call).

    The layer eagerly, in tf.function and in tf.data.map; a Keras model around it saved as a .keras file and
    loaded with keras.models.load_model (its config must rebuild it), and exported with model.export and
    loaded with tf.saved_model.load (the serving path). `build`: makes an equal layer inside a tf.function.
    Returns the eager output.
    """
    import keras

    several = isinstance(inputs, (list, tuple))
    batch = list(inputs) if several else [inputs]
    call = (lambda *args: layer(list(args))) if several else (lambda x: layer(x))
    # model.export below saves and serves the layer; a tf.Module save as well only where export cannot serve the
    # input as given (ragged inputs are served padded there).
    ragged = any(isinstance(t, tf.RaggedTensor) for t in batch)
    eager = check_every_way(call, batch, tmp_path, owner=layer, name="layer", save=ragged)

    def keras_input(t):
        return keras.Input(shape=tuple(t.shape[1:]), dtype=t.dtype.name, ragged=isinstance(t, tf.RaggedTensor))

    symbolic = [keras_input(t) for t in batch]
    model = keras.Model(symbolic if several else symbolic[0], layer(symbolic if several else symbolic[0]))
    path = tmp_path / "layer.keras"
    model.save(path)
    reloaded = keras.models.load_model(path)
    assert type(reloaded.layers[-1]) is type(layer) and reloaded.layers[-1].get_config() == layer.get_config()
    assert_outputs_equal(reloaded(batch if several else batch[0]), eager, "keras.models.load_model")

    model.export(str(tmp_path / "exported"), format="tf_saved_model", verbose=False)
    # model.export gives ragged Keras inputs dense TensorSpecs: ragged inputs are served padded (with 0).
    dense = [t.to_tensor() if isinstance(t, tf.RaggedTensor) else t for t in batch]
    served = tf.saved_model.load(str(tmp_path / "exported")).serve(dense if several else dense[0])
    assert_outputs_equal(served, eager, "model.export + tf.saved_model.load")

    if build is not None:
        check_built_in_function(
            build, lambda obj, *args: obj(list(args) if several else args[0]), batch, eager, "layer"
        )
    return eager


def every_way(tokenizer, words) -> list:
    """tokenize and tokenize_with_offsets eagerly, in tf.function and in tf.data; all must agree.

    Returns the eager (pieces, begin, end) as lists.
    """
    words = tf.constant(words, tf.string)
    eager = tokenizer.tokenize_with_offsets(words)
    assert_ragged_equal(tokenizer.tokenize(words), eager[0], "tokenize")
    graph = tf.function(tokenizer.tokenize_with_offsets)(words)
    for got, want, name in zip(graph, eager, ("pieces", "begin", "end")):
        assert_ragged_equal(got, want, f"tf.function {name}")
    assert_ragged_equal(tf.function(tokenizer.tokenize)(words), eager[0], "tf.function tokenize")
    dataset = tf.data.Dataset.from_tensor_slices(words)
    for i, (pieces, begin, end) in enumerate(dataset.map(tokenizer.tokenize_with_offsets)):
        for got, want, name in zip((pieces, begin, end), eager, ("pieces", "begin", "end")):
            assert_ragged_equal(got, want[i], f"tf.data element {i} {name}")
    batched = list(dataset.batch(2).map(tokenizer.tokenize))
    if batched:
        assert_ragged_equal(tf.concat(batched, axis=0), eager[0], "tf.data batched")
    return as_lists(eager)
