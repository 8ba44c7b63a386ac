"""The Keras layers on every Keras 3 backend: TensorFlow inside, the backend's arrays outside (keras-hub's rule).

The layers compute in TensorFlow whatever `keras.backend.backend()` is (string
ops exist nowhere else), as keras-hub's preprocessing layers do:

- Inside a TensorFlow graph (`tf.data`, `tf.function`, `model.export`) a call
  takes and returns TensorFlow tensors, on every backend.
- Called eagerly on another backend (JAX, PyTorch) the outermost layer returns
  that backend's arrays: dense outputs as `keras.ops.convert_to_tensor` makes
  them, ragged ones (and strings) as Python lists, since those backends have no
  ragged or string arrays (keras-hub's `convert_preprocessing_outputs` does the
  same). Inputs may be Python lists, NumPy arrays or the backend's arrays.
- On the TensorFlow backend nothing is converted: tensors and RaggedTensors out.

`TextPipeline` cuts a functional model on strings (`TextModel`) in two for the
other backends: its preprocessing layers, mapped over a `tf.data.Dataset` in
TensorFlow, and the rest, which the backend trains and runs.
"""

from __future__ import annotations

import contextlib
import functools
import threading
import weakref

import keras
import numpy as np
import tensorflow as tf

_NESTING = threading.local()  # how deep in the layers' calls this thread is (only the outermost converts)
_PIPELINES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def tensorflow_backend() -> bool:
    """Whether Keras runs on TensorFlow (then the layers' outputs stay TensorFlow's)."""
    return keras.backend.backend() == "tensorflow"


def takes_tensorflow_inputs(layer: keras.layers.Layer) -> None:
    """Lets `layer.__call__` hand strings, lists and tf tensors to `call` as they are (keras-hub's two flags).

    Keras would otherwise convert every input to the backend's arrays first,
    which fails for strings on JAX ("string arrays can only be made from NumPy
    arrays"). The layer's `call` converts them with `to_tensorflow`.
    """
    layer._convert_input_args = False
    layer._allow_non_tensor_positional_args = True


def to_tensorflow(value):
    """A tensor, RaggedTensor, NumPy array, backend array or (nested) list -> a TensorFlow tensor.

    Ragged lists give a RaggedTensor; `None` and TensorFlow values pass unchanged.

    >>> to_tensorflow([[1, 2], [3]]).to_list()
    [[1, 2], [3]]
    >>> to_tensorflow(np.array(["a", "b"], dtype=object)).numpy().tolist()
    [b'a', b'b']
    """
    if value is None or isinstance(value, (tf.Tensor, tf.RaggedTensor, tf.SparseTensor)):
        return value
    if isinstance(value, (list, tuple)):
        try:
            return tf.constant(value)
        except ValueError:  # rows of different lengths
            return tf.ragged.constant(value)
    if not isinstance(value, np.ndarray) and not tensorflow_backend() and keras.ops.is_tensor(value):
        value = keras.ops.convert_to_numpy(value)
    return tf.convert_to_tensor(value)


def to_backend(outputs):
    """TensorFlow values in a (nested) structure -> the backend's arrays; ragged and string ones -> Python lists.

    >>> out = to_backend({"ids": tf.constant([1, 2]), "rows": tf.ragged.constant([[1], []])})
    >>> keras.ops.convert_to_numpy(out["ids"]).tolist(), out["rows"]
    ([1, 2], [[1], []])
    """

    def convert(value):
        if isinstance(value, tf.RaggedTensor):
            return value.to_list()
        if isinstance(value, (tf.Tensor, np.ndarray)):
            array = value.numpy() if isinstance(value, tf.Tensor) else value
            if array.dtype.kind in "OSU":
                return array.tolist()
            return keras.ops.convert_to_tensor(array)
        return value

    return keras.tree.map_structure(convert, outputs)


def converts_outputs() -> bool:
    """Whether a layer's call here returns the backend's arrays: another backend, eager, the outermost call."""
    return not tensorflow_backend() and tf.executing_eagerly() and getattr(_NESTING, "depth", 0) == 0


def backend_outputs(call):
    """Decorates a layer's `call`: TensorFlow inside, and the backend's arrays out where `converts_outputs()`.

    The layers it calls in turn (a preprocessor's tokenizer and packer) see
    TensorFlow values and return them: only the outermost call converts.
    """

    @functools.wraps(call)
    def wrapper(self, *args, **kwargs):
        if not converts_outputs():
            return call(self, *args, **kwargs)
        with tensorflow_values():
            outputs = call(self, *args, **kwargs)
        return to_backend(outputs)

    return wrapper


@contextlib.contextmanager
def tensorflow_values():
    """Within it the layers take and return TensorFlow values on every backend (on the CPU: string ops have no
    accelerator kernels); the caller converts what comes out once, with `to_backend`."""
    _NESTING.depth = getattr(_NESTING, "depth", 0) + 1
    try:
        with tf.device("cpu"):
            yield
    finally:
        _NESTING.depth -= 1


def runs_in_tensorflow(layer) -> bool:
    """A layer that takes TensorFlow values unconverted: ours (`takes_tensorflow_inputs`), keras-hub's preprocessors."""
    return getattr(layer, "_convert_input_args", True) is False


class TextPipeline:
    """A functional model on strings cut in two for a non-TensorFlow backend.

    `preprocess` (a `keras.Function`) runs the model's preprocessing layers
    (`runs_in_tensorflow`), from the string inputs to the first values the rest
    takes, in TensorFlow: mapped over a `tf.data.Dataset` by `dataset`, or
    eagerly by `preprocess_eagerly`. `head` (a `keras.Model` on those values,
    sharing the model's layers and weights) is the rest, which the backend runs.
    """

    def __init__(self, model: keras.Model):
        boundary = _boundary(model)  # a KerasTensor, or a tuple of them (tf.data's map takes no lists)
        self._preprocess = keras.Function(model.input, boundary, name=f"{model.name}_preprocess")
        self.head = keras.Model(boundary, model.output, name=f"{model.name}_head")

    @classmethod
    def of(cls, model: keras.Model) -> "TextPipeline":
        """The model's pipeline, made once (kept outside the model, so Keras does not track it as a layer)."""
        if model not in _PIPELINES:
            _PIPELINES[model] = cls(model)
        return _PIPELINES[model]

    def preprocess(self, x):
        """Raw inputs (TensorFlow values) -> the head's inputs (TensorFlow values), eagerly or in a graph."""
        outputs = self._preprocess(x)
        return tuple(outputs) if isinstance(outputs, list) else outputs

    def preprocess_eagerly(self, x):
        """Raw inputs (strings, lists, arrays) -> the head's inputs as the backend's arrays."""
        with tensorflow_values():  # the layers hand TensorFlow values on to each other; converted once, here
            outputs = self.preprocess(keras.tree.map_structure(to_tensorflow, x))
        return to_backend(outputs)

    def dataset(self, x, y=None, sample_weight=None, *, batch_size=None, shuffle=False) -> tf.data.Dataset:
        """Batches of the head's inputs (with `y`, `sample_weight`): `x` a `tf.data.Dataset`, or arrays and lists.

        A dataset passes its batches through `preprocess` as they are; arrays
        and lists are cut into batches of `batch_size` (Keras's default 32),
        shuffled first when `shuffle` is set.
        """
        if isinstance(x, tf.data.Dataset):
            data = x
        else:
            x, y, sample_weight = (keras.tree.map_structure(to_tensorflow, v) for v in (x, y, sample_weight))
            data = tf.data.Dataset.from_tensor_slices(keras.utils.pack_x_y_sample_weight(x, y, sample_weight))
            if shuffle:
                data = data.shuffle(int(data.cardinality()), reshuffle_each_iteration=True)
            data = data.batch(batch_size or 32)
        return data.map(self._preprocess_batch, num_parallel_calls=tf.data.AUTOTUNE).prefetch(tf.data.AUTOTUNE)

    def _preprocess_batch(self, *data):
        x, y, sample_weight = keras.utils.unpack_x_y_sample_weight(data if len(data) > 1 else data[0])
        return keras.utils.pack_x_y_sample_weight(self.preprocess(x), y, sample_weight)


def is_raw(inputs) -> bool:
    """Whether `inputs` still hold text (strings, lists of them, string tensors), not the head's numeric inputs."""
    for value in keras.tree.flatten(inputs):
        if isinstance(value, (str, bytes, list, tuple)):
            return True
        dtype = getattr(value, "dtype", None)
        if dtype == tf.string or (isinstance(dtype, np.dtype) and dtype.kind in "OSU"):
            return True
    return False


def _boundary(model: keras.Model):
    """The outputs of the model's preprocessing layers that no other preprocessing layer takes, flat."""
    layers = [layer for layer in model.layers if runs_in_tensorflow(layer)]
    taken = {id(t) for layer in layers for t in keras.tree.flatten(layer.input)}
    outputs = [t for layer in layers for t in keras.tree.flatten(layer.output) if id(t) not in taken]
    if not outputs:
        raise ValueError(
            f"model: {model.name!r} has no preprocessing layer on its string inputs; on the "
            f"{keras.backend.backend()!r} backend a TextModel needs one (BertTextClassifierPreprocessor, "
            "WordPieceTokenizer, ...) to run strings in tf.data; or use the TensorFlow backend"
        )
    return outputs[0] if len(outputs) == 1 else tuple(outputs)
