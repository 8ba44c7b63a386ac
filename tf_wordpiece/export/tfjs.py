"""The bytes signature as a TensorFlow.js graph model (model.json + weights), written without `tensorflowjs`.

The numeric core's bytes path is integer ops that TF.js has (gathers, scatters,
cumsum, a `StatelessWhile`), so the graph model is the frozen graph itself: the
GraphDef as JSON, and every constant moved into one weights file, as the
`tensorflowjs_converter` lays it out. TF.js has no int64 and no uint8: integer
constants and inputs are int32.

In Node (`npm install @tensorflow/tfjs`), `examples/tfjs/tokenize.mjs` shows the call:

    const model = await tf.loadGraphModel(tf.io.fileSystem("model.json"));  // or a URL in a browser
    const out = await model.executeAsync({bytes: tf.tensor1d(utf8, "int32"), row_lengths: ...});
"""

from __future__ import annotations

import json
import os
import pathlib
from typing import Callable

import numpy as np
import tensorflow as tf
from google.protobuf import json_format

from tf_wordpiece.export.frozen import frozen_graph_def
from tf_wordpiece.export.layout import TFJS_FILES, TFJS_WRITER, is_tfjs_model
from tf_wordpiece.files import check_output_folder, write_folder_atomically

WEIGHTS_FILE = TFJS_FILES[1]
_DTYPES = {tf.int32: "int32", tf.int64: "int32", tf.bool: "bool", tf.float32: "float32", tf.uint8: "int32"}


def save_tfjs_graph_model(
    fn: Callable, input_signature: dict[str, tf.TensorSpec], out_dir: str | os.PathLike, *, overwrite: bool = False
) -> dict:
    """Writes `fn` (a Python function of named tensors, returning a dict) as a TF.js graph model in `out_dir`.

    `out_dir` gets `model.json` and `group1-shard1of1.bin`, written in a hidden
    sibling folder and renamed into place. An existing `out_dir` is replaced
    only with `overwrite` (else FileExistsError) and only when it holds such a
    model written here and nothing else (else ValueError); an empty folder is
    filled. Returns the model.json's "signature" (input and output names as
    TF.js executes them).

    Captured tensors and variables that the graph only reads (a Keras model's
    weights) become constants in the weights file. Raises ValueError when the
    graph holds another stateful capture (a lookup table, an assignment).
    """
    out = check_output_folder(out_dir, overwrite=overwrite, what="out_dir", kind="TF.js model", is_ours=is_tfjs_model)
    replace = out.exists()
    concrete = tf.function(fn, autograph=False).get_concrete_function(**input_signature)
    graph_def = frozen_graph_def(concrete)  # variables too: a Keras model's weights become weights here
    weights = _move_constants_to_weights(graph_def)
    outputs = tf.nest.flatten(concrete.structured_outputs, expand_composites=True)
    keys = sorted(concrete.structured_outputs)  # tf.nest flattens a dict in sorted key order
    signature = {
        "inputs": {
            spec.name or key: {"name": placeholder.name, "dtype": _enum_name(tf.int32)}  # TF.js: int32
            for (key, spec), placeholder in zip(input_signature.items(), concrete.inputs)
        },
        "outputs": {key: {"name": out.name, "dtype": _enum_name(out.dtype)} for key, out in zip(keys, outputs)},
    }
    model = {
        "format": "graph-model",
        "generatedBy": tf.__version__,
        "convertedBy": TFJS_WRITER,  # how `layout.is_tfjs_model` recognises what it may replace
        "modelTopology": json_format.MessageToDict(graph_def),
        "signature": signature,
        "weightsManifest": [{"paths": [WEIGHTS_FILE], "weights": [entry for entry, _ in weights]}],
    }

    def write(folder: pathlib.Path) -> None:
        folder.mkdir()
        (folder / WEIGHTS_FILE).write_bytes(b"".join(data for _, data in weights))
        (folder / "model.json").write_text(json.dumps(model), encoding="utf-8")

    write_folder_atomically(out, write, replace=replace)
    return signature


def _move_constants_to_weights(graph_def) -> list[tuple[dict, bytes]]:
    """Takes every Const's value out of the graph (and its functions) into (manifest entry, bytes) pairs.

    TF.js looks a Const up by node name in one map for the graph and all its
    functions, so the constants of function bodies get names unique across them.
    """
    weights = []

    def take(node, name: str):
        value = tf.make_ndarray(node.attr["value"].tensor)
        dtype = tf.as_dtype(node.attr["dtype"].type)
        if dtype not in _DTYPES:
            raise ValueError(f"fn: constant {name} has dtype {dtype.name}, which TF.js does not take")
        if dtype in (tf.int64, tf.uint8):
            if value.size and (value.min() < -(2**31) or value.max() >= 2**31):
                raise ValueError(f"fn: constant {name} does not fit TF.js's int32")
            value = value.astype(np.int32)
            node.attr["dtype"].type = tf.int32.as_datatype_enum
        data = value.astype({"int32": "<i4", "float32": "<f4", "bool": "u1"}[_DTYPES[dtype]]).tobytes()
        weights.append(({"name": name, "shape": list(value.shape), "dtype": _DTYPES[dtype]}, data))
        node.attr["value"].tensor.Clear()
        node.attr["value"].tensor.dtype = node.attr["dtype"].type

    for node in graph_def.node:
        if node.op == "Const":
            take(node, node.name)
    for function in graph_def.library.function:
        prefix = function.signature.name + "/"
        renamed = {node.name: prefix + node.name for node in function.node_def if node.op == "Const"}
        for node in function.node_def:
            if node.name in renamed:
                node.name = renamed[node.name]
                take(node, node.name)
            node.input[:] = [_renamed_input(name, renamed) for name in node.input]
        for key, value in list(function.ret.items()):
            function.ret[key] = _renamed_input(value, renamed)
    return weights


def _renamed_input(reference: str, renamed: dict[str, str]) -> str:
    """A function body's input reference ("node:output:0" or "^node") after renaming nodes."""
    control = reference.startswith("^")
    node, sep, rest = reference.lstrip("^").partition(":")
    node = renamed.get(node, node)
    return ("^" if control else "") + node + sep + rest


def _enum_name(dtype: tf.DType) -> str:
    """The dtype as a GraphDef's JSON names it (DT_INT32)."""
    return "DT_" + dtype.name.upper()
