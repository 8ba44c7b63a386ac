"""A BERT classifier's preprocessor as one Keras 3 layer: raw strings in, BERT's inputs out.

keras-hub's `BertTextClassifierPreprocessor` (its `BertTokenizer`, then a
`MultiSegmentPacker`) rebuilt on `WordPieceTokenizer` and `BertInputsPacker`,
with keras-hub's arguments and outputs, in core TensorFlow ops: a functional
model `strings -> preprocessor -> backbone -> logits` trains on strings,
saves to `.keras` and exports (`model.export`) to a SavedModel that needs
neither tf_wordpiece, tensorflow_text nor keras-hub. keras-hub's tasks take it
as their `preprocessor` (they call any preprocessor that is not keras-hub's own
on `x` alone): `keras_hub.models.BertTextClassifier(backbone=...,
preprocessor=BertTextClassifierPreprocessor(...), num_classes=2)`. `TextModel` is
a functional model on strings whose `predict` also takes a Python list of str.

With `core="numeric"`, `pack_bytes` gives the same inputs from UTF-8 bytes in
integer ops only, for TFLite (builtins only) and TF.js
(`tf_wordpiece.export.keras_model`). Not imported by `import tf_wordpiece`:
`from tf_wordpiece.keras_preprocessor import BertTextClassifierPreprocessor, TextModel`.
"""

from __future__ import annotations

import keras
import numpy as np
import tensorflow as tf

from tf_wordpiece.bert.recipes import RECIPES
from tf_wordpiece.keras_backends import TextPipeline, backend_outputs, is_raw, tensorflow_backend, to_tensorflow
from tf_wordpiece.keras_layers import BertInputsPacker, WordPieceTokenizer
from tf_wordpiece.messages import check_choice
from tf_wordpiece.shapes import refuse_empty_list

# keras-hub's `truncate` names are the recipes' trimmings ("round_robin": tensorflow_text's RoundRobinTrimmer,
# which keras-hub runs; "longest_first": Hugging Face's) -> BertInputsPacker's template, the recipe's compat.
TRUNCATIONS = {recipe.trimming: compat for compat, recipe in RECIPES.items()}
SPECIAL_TOKENS = ("[CLS]", "[SEP]", "[PAD]")


@keras.saving.register_keras_serializable(package="tf_wordpiece")
class BertTextClassifierPreprocessor(keras.layers.Layer):
    """Strings (one or two segments) -> {"token_ids", "segment_ids", "padding_mask"} [batch, sequence_length].

    Shapes: x string [batch] (a tensor, array or list of str), or a tuple of
    two string [batch] tensors (pairs),
    -> int32 `token_ids` and `segment_ids` and bool `padding_mask`, each
    [batch, sequence_length] (keras-hub's names); a scalar string gives
    [sequence_length]. `[CLS] a [SEP] (b [SEP])`, cut to fit as `truncate`
    says, padded with `[PAD]`. Called as `preprocessor(x, y, sample_weight)`
    (a `tf.data` map over labelled data) it returns `(inputs, y, sample_weight)`,
    as keras-hub's does. On any Keras backend it computes in TensorFlow: inside
    `tf.data` it returns tf tensors, and called eagerly on JAX or PyTorch that
    backend's arrays (`tf_wordpiece.keras_backends`).

    Args:
      vocabulary: a vocab.txt path (read now; the layer keeps the tokens) or a
        list of tokens; it must hold `[CLS]`, `[SEP]` and `[PAD]`.
      sequence_length: the length of the packed inputs. Defaults to 512.
      lowercase, strip_accents, compat: `WordPieceTokenizer`'s. compat="keras_hub"
        gives keras-hub's ids (its `BertTokenizer`); "tf_text" (the default)
        tensorflow_text's, which the numeric core gives too. Defaults to False,
        None, "tf_text".
      core: "string", or "numeric" for `pack_bytes` (same ids; needs compat
        "tf_text" or "hf"). Defaults to "string".
      truncate: "round_robin" (keras-hub's default: tensorflow_text's
        RoundRobinTrimmer) or "longest_first" (Hugging Face's). One segment
        keeps its first `sequence_length - 2` tokens either way. Defaults to
        "round_robin".

    >>> vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "the", "quick", "fox", "."]
    >>> preprocessor = BertTextClassifierPreprocessor(vocabulary=vocab, sequence_length=6, lowercase=True)
    >>> out = preprocessor(tf.constant(["The quick fox.", "the"]))
    >>> out["token_ids"].numpy().tolist()  # cut to fit: [CLS] and [SEP] always stay
    [[2, 4, 5, 6, 7, 3], [2, 4, 3, 0, 0, 0]]
    >>> out["padding_mask"].numpy().tolist()[1], out["segment_ids"].numpy().tolist()[1]
    ([True, True, True, False, False, False], [0, 0, 0, 0, 0, 0])
    >>> pair = preprocessor((tf.constant(["the quick fox"]), tf.constant(["fox ."])))
    >>> pair["token_ids"].numpy().tolist(), pair["segment_ids"].numpy().tolist()
    ([[2, 4, 5, 3, 6, 3]], [[0, 0, 0, 0, 1, 1]])
    """

    def __init__(
        self,
        vocabulary=None,
        *,
        sequence_length: int = 512,
        lowercase: bool = False,
        strip_accents: bool | None = None,
        compat: str = "tf_text",
        core: str = "string",
        truncate: str = "round_robin",
        **kwargs,
    ):
        check_choice("truncate", truncate, TRUNCATIONS, note=" (keras-hub's 'waterfall' is not offered)")
        kwargs.pop("trainable", None)  # saved by get_config; the layer has no weights
        kwargs.pop("dtype", None)  # the outputs are int32 and bool
        super().__init__(trainable=False, dtype="int32", **kwargs)
        # Python strings, lists of them and arrays reach `call` as they are (`_string_tensor` converts them),
        # as in keras-hub's preprocessing layers, which set the same two Keras flags.
        self._convert_input_args = False
        self._allow_non_tensor_positional_args = True
        self.tokenizer = WordPieceTokenizer(
            vocabulary, lowercase=lowercase, strip_accents=strip_accents, compat=compat, core=core
        )
        missing = [t for t in SPECIAL_TOKENS if t not in self.tokenizer.vocabulary]
        if missing:
            raise ValueError(f"vocabulary: BERT's inputs need {missing} in the vocabulary; add them, as BERT's have")
        self.cls_id, self.sep_id, self.pad_id = (self.tokenizer.token_to_id(t) for t in SPECIAL_TOKENS)
        self.packer = BertInputsPacker(
            sequence_length=sequence_length,
            cls_id=self.cls_id,
            sep_id=self.sep_id,
            pad_id=self.pad_id,
            template=TRUNCATIONS[truncate],
        )
        self.sequence_length, self.truncate = sequence_length, truncate

    def build(self, input_shape=None):
        self.built = True  # no weights; the tokenizer's tables are built with it

    @backend_outputs
    def call(self, x, y=None, sample_weight=None):
        # A tuple holds segments (keras-hub's rule); anything else, a list of str included, is one.
        named = [(s, f"x[{i}]") for i, s in enumerate(x)] if isinstance(x, tuple) else [(x, "x")]
        segments = [_string_tensor(value, name) for value, name in named]
        if not 1 <= len(segments) <= 2 or len({s.shape.rank for s in segments}) != 1:
            ranks = [s.shape.rank for s in segments]
            raise ValueError(f"x: expected one string tensor or two of one rank, got {len(segments)} of ranks {ranks}")
        one = segments[0].shape.rank == 0
        inputs = self.packer([self.tokenizer(s[None] if one else s) for s in segments])
        if one:
            inputs = {name: value[0] for name, value in inputs.items()}
        y, sample_weight = to_tensorflow(y), to_tensorflow(sample_weight)  # lists too, as keras-hub's converts them
        return keras.utils.pack_x_y_sample_weight(inputs, y, sample_weight)

    def pack_bytes(self, data, row_lengths) -> dict[str, tf.Tensor]:
        """One segment's inputs from UTF-8 bytes, in integer ops only (TFLite builtins, TF.js): needs core="numeric".

        `data` uint8 (or int32) [B] holds n strings' bytes end to end,
        `row_lengths` int32 [n] each string's length in bytes. Returns what
        `call` gives for those n strings: int32 `token_ids`, `segment_ids` and
        bool `padding_mask`, each [n, sequence_length].

        >>> vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "hi", "##s"]
        >>> preprocessor = BertTextClassifierPreprocessor(vocabulary=vocab, sequence_length=4, core="numeric")
        >>> out = preprocessor.pack_bytes(tf.constant(list(b"his hi"), tf.uint8), tf.constant([4, 0, 2]))
        >>> out["token_ids"].numpy().tolist()
        [[2, 4, 5, 3], [2, 3, 0, 0], [2, 4, 3, 0]]
        """
        out = self.tokenizer.tokenize_bytes(data, row_lengths)
        return self.packer.pack_flat(out["token_ids"], out["row_lengths"])

    def compute_output_spec(self, x, y=None, sample_weight=None):
        first = x[0] if isinstance(x, tuple) else x
        shape = (self.sequence_length,) if len(first.shape) == 0 else (first.shape[0], self.sequence_length)
        inputs = {
            "token_ids": keras.KerasTensor(shape, dtype="int32"),
            "segment_ids": keras.KerasTensor(shape, dtype="int32"),
            "padding_mask": keras.KerasTensor(shape, dtype="bool"),
        }
        return keras.utils.pack_x_y_sample_weight(inputs, y, sample_weight)

    def vocabulary_size(self) -> int:
        return self.tokenizer.vocabulary_size()

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(
            vocabulary=self.tokenizer.vocabulary,
            sequence_length=self.sequence_length,
            lowercase=self.tokenizer.lowercase,
            strip_accents=self.tokenizer.strip_accents,
            compat=self.tokenizer.compat,
            core=self.tokenizer.core,
            truncate=self.truncate,
        )
        return config


@keras.saving.register_keras_serializable(package="tf_wordpiece")
class TextModel(keras.Model):
    """A functional model on raw strings whose `fit`, `evaluate` and `predict` also take a list of str.

    Plain Keras reads a Python list as one input per element ("Unrecognized data
    type"); here a list or tuple of str (or bytes) is a batch of strings, as in
    keras-hub's tasks: `model.predict(["some text"])`. Built like any functional
    model, `TextModel(inputs, outputs)`; `.keras` files and `model.export`
    work as for `keras.Model`. Arrays, tensors and `tf.data` pass through.
    On another Keras backend (JAX, PyTorch; `.keras` files work, `export` is
    TensorFlow's) `fit`, `evaluate` and `predict` map the model's preprocessing
    layers over a `tf.data.Dataset` in TensorFlow and run the rest on the
    backend (`keras_backends.TextPipeline`); lists of labels are arrays too.

    >>> strings = keras.Input(shape=(), dtype="string")
    >>> lengths = keras.layers.Lambda(lambda s: tf.strings.length(s), output_shape=())(strings)
    >>> TextModel(strings, lengths).predict(["some text", ""], verbose=0).tolist()
    [9, 0]
    """

    def fit(self, x=None, y=None, *args, **kwargs):
        if not tensorflow_backend():
            x, y, kwargs = _dataset_arguments(self, x, y, kwargs, shuffle=kwargs.pop("shuffle", True))
            kwargs["shuffle"] = False  # done in the dataset (Keras would warn that it cannot shuffle one)
            if isinstance(kwargs.get("validation_data"), (tuple, list)):
                kwargs["validation_data"] = TextPipeline.of(self).dataset(*kwargs["validation_data"])
        return super().fit(_batch_of_strings(x), _labels(y), *args, **kwargs)

    def evaluate(self, x=None, y=None, *args, **kwargs):
        if not tensorflow_backend():
            x, y, kwargs = _dataset_arguments(self, x, y, kwargs, shuffle=False)
        return super().evaluate(_batch_of_strings(x), _labels(y), *args, **kwargs)

    def predict(self, x, *args, **kwargs):
        if not tensorflow_backend():
            x, _, kwargs = _dataset_arguments(self, x, None, kwargs, shuffle=False)
        return super().predict(_batch_of_strings(x), *args, **kwargs)

    @property
    def input_spec(self):
        # Another backend: the trainer calls the model on the head's inputs (preprocessed in tf.data), not strings.
        return super().input_spec if tensorflow_backend() else None

    @input_spec.setter
    def input_spec(self, value):
        super(TextModel, type(self)).input_spec.fset(self, value)

    def call(self, inputs, training=None, mask=None, **kwargs):
        if tensorflow_backend():
            return super().call(inputs, training=training, mask=mask, **kwargs)
        # Another backend: strings go through the preprocessing layers in TensorFlow, the rest runs on the
        # backend (`fit`, `evaluate` and `predict` map the preprocessing over a tf.data.Dataset first).
        pipeline = TextPipeline.of(self)
        if is_raw(inputs):
            inputs = pipeline.preprocess_eagerly(_batch_of_strings(inputs))
        return pipeline.head(inputs, training=training)


def _dataset_arguments(model: TextModel, x, y, kwargs: dict, *, shuffle: bool):
    """`x`, `y`, `kwargs` for Keras on a non-TensorFlow backend: x a tf.data.Dataset of the head's inputs."""
    kwargs = dict(kwargs)
    data = TextPipeline.of(model).dataset(
        _batch_of_strings(x),
        y,
        kwargs.pop("sample_weight", None),
        batch_size=None if isinstance(x, tf.data.Dataset) else kwargs.pop("batch_size", None),
        shuffle=shuffle,
    )
    return data, None, kwargs


def _batch_of_strings(x):
    """A list or tuple of str or bytes as an object array [batch]; anything else as it is."""
    if isinstance(x, (list, tuple)) and x and all(isinstance(item, (str, bytes)) for item in x):
        return np.array(x, dtype=object)
    return x


def _labels(y):
    """A list or tuple of labels as an array (Keras reads a list as one input per element); anything else as it is."""
    return np.asarray(y) if isinstance(y, (list, tuple)) else y


def _string_tensor(value, name: str) -> tf.Tensor:
    """`value` as a string tensor of rank 0 or 1; a TypeError or ValueError naming `name` otherwise."""
    if isinstance(value, tf.RaggedTensor):
        raise ValueError(f"{name}: expected a string or a batch of strings [batch], got a RaggedTensor; pass a tensor")
    if not tf.is_tensor(value):
        refuse_empty_list(value, name)
        try:
            value = tf.convert_to_tensor(value)
        except (TypeError, ValueError) as e:
            raise TypeError(f"{name}: expected strings (a str, or a list or array of them), got {value!r:.80}") from e
    if value.dtype != tf.string:
        raise TypeError(f"{name}: expected strings, got a {value.dtype.name} tensor; pass the raw text")
    if value.shape.rank is None or value.shape.rank > 1:
        raise ValueError(
            f"{name}: expected a string or a batch of strings [batch], got shape {value.shape}; "
            "flatten it first (tf.reshape(x, [-1]))"
        )
    return value
