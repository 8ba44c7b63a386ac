"""A Keras text model, raw strings in, taken where no string op runs: UTF-8 bytes in, TFLite builtins and TF.js.

The model is a functional Keras model whose string input goes straight into a
`BertTextClassifierPreprocessor(core="numeric")` (a classifier: `strings ->
preprocessor -> backbone -> logits`). `bytes_function` gives the same model
with the preprocessor's `pack_bytes` in front; `save_tflite` and `save_tfjs`
freeze it (the weights become constants) and write one file or one folder
holding tokenizer and model together:

- TFLite: converted with `supported_ops=[TFLITE_BUILTINS]` alone, so any
  interpreter runs it (ai-edge-litert, Android, iOS, C++; no Flex delegate);
- TF.js: a graph model (model.json + weights) for @tensorflow/tfjs, written
  by `tf_wordpiece.export.tfjs` (`examples/classifier/classify.mjs` runs it).

Both take {"bytes": the strings' UTF-8 bytes end to end, uint8 [B] (int32 in
TF.js), "row_lengths": int32 [n]} and give the model's outputs for the n
strings ({"logits": float32 [n, classes]} for a single-output model).
"""

from __future__ import annotations

import os
from typing import Callable

import keras
import tensorflow as tf

from tf_wordpiece.cores import capabilities, cores_that
from tf_wordpiece.export.frozen import frozen_function
from tf_wordpiece.export.module import BYTES, ROW_LENGTHS
from tf_wordpiece.export.tfjs import save_tfjs_graph_model
from tf_wordpiece.files import check_file_output, write_bytes_atomically
from tf_wordpiece.keras_preprocessor import BertTextClassifierPreprocessor

BYTES_SIGNATURE = {"data": BYTES, "row_lengths": ROW_LENGTHS}
INPUT_NAMES = ("token_ids", "segment_ids", "padding_mask")  # what the preprocessor gives
TFLITE_MAGIC = b"TFL3"  # bytes 4-8 of every TFLite flatbuffer


def bytes_function(model: keras.Model, *, output_key: str = "logits") -> Callable:
    """`model` on UTF-8 bytes: fn(data uint8 [B], row_lengths int32 [n]) -> {output_key: the model's output}.

    A model with a dict of outputs keeps its keys. Inference mode (dropout off).
    A ValueError when the model's input is not a `BertTextClassifierPreprocessor`
    built with core="numeric".
    """
    preprocessor, rest = _split_at_preprocessor(model)

    def fn(data, row_lengths):
        inputs = preprocessor.pack_bytes(data, row_lengths)
        outputs = rest([inputs[name] for name in INPUT_NAMES], training=False)
        return dict(outputs) if isinstance(outputs, dict) else {output_key: outputs}

    return fn


def save_tflite(model: keras.Model, path: str | os.PathLike, *, overwrite: bool = False) -> int:
    """Writes `bytes_function(model)` as one `.tflite` (builtin ops only); returns its size in bytes.

    Run it with `Interpreter(model_path=path).get_signature_runner()(bytes=uint8 [B],
    row_lengths=int32 [n])["logits"]`. The file is written aside, then renamed into place;
    an existing file is replaced only with `overwrite` and only when it is a TFLite model.
    """
    path = check_file_output(
        path, overwrite=overwrite, what="path", kind="TFLite model", looks_ours=lambda head: head[4:8] == TFLITE_MAGIC
    )
    replace = path.exists()
    frozen = frozen_function(bytes_function(model), BYTES_SIGNATURE)
    converter = tf.lite.TFLiteConverter.from_concrete_functions([frozen], tf.Module())  # it holds no state
    converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS]  # no Flex, no custom ops
    blob = converter.convert()
    write_bytes_atomically(path, blob, replace=replace)
    return len(blob)


def save_tfjs(model: keras.Model, out_dir: str | os.PathLike, *, overwrite: bool = False) -> dict:
    """Writes `bytes_function(model)` as a TF.js graph model in `out_dir` (see `save_tfjs_graph_model`).

    Returns the model.json's signature (the input and output tensor names).
    """
    return save_tfjs_graph_model(bytes_function(model), BYTES_SIGNATURE, out_dir, overwrite=overwrite)


def _split_at_preprocessor(model: keras.Model) -> tuple[BertTextClassifierPreprocessor, keras.Model]:
    """The preprocessor that takes the model's string input, and the model from its outputs on."""
    found = [layer for layer in model.layers if isinstance(layer, BertTextClassifierPreprocessor)]
    if len(model.inputs or []) != 1 or len(found) != 1:
        raise ValueError(
            f"model: expected a functional model with one string input going into one "
            f"BertTextClassifierPreprocessor, got {len(model.inputs or [])} inputs and {len(found)} preprocessors"
        )
    preprocessor = found[0]
    if not capabilities(preprocessor.tokenizer.core).runs_without_string_ops:
        portable = cores_that(runs_without_string_ops=True)[0]
        raise ValueError(
            f"model: its preprocessor has core={preprocessor.tokenizer.core!r}; the bytes path needs "
            f"core={portable!r} (same ids): build it with BertTextClassifierPreprocessor(..., core={portable!r})"
        )
    # The model from the preprocessor's outputs on, taking them as a list in INPUT_NAMES' order (a functional
    # model keys a dict of intermediate tensors by tensor name, not by the dict's keys). `output` holds the
    # first call's outputs flat, in keras.tree's order (dict keys sorted): packed again by name.
    outputs = keras.tree.pack_sequence_as(dict.fromkeys(INPUT_NAMES), keras.tree.flatten(preprocessor.output))
    rest = keras.Model(
        [outputs[name] for name in INPUT_NAMES], model.outputs[0] if len(model.outputs) == 1 else model.output
    )
    return preprocessor, rest
