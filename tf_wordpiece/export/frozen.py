"""Frozen graphs: a traced function with every captured tensor and variable turned into a constant.

What runtimes without variables need: TF.js graph models (`tfjs.py`) and TFLite
conversion of a model whose weights are Keras 3 variables (the converter keeps
those as resource variables, which a builtins-only interpreter reads
uninitialized). Only reads are rewritten: `ReadVariableOp` becomes `Identity`
of the value and `ResourceGather` becomes `GatherV2`; any other use of a
variable or table (a lookup table, an assignment, a variable passed into a
function call) is a ValueError naming it.
"""

from __future__ import annotations

from typing import Callable

import tensorflow as tf

# How each op that reads a variable becomes an op on the variable's value.
_READS = ("ReadVariableOp", "ResourceGather")


def frozen_graph_def(concrete) -> tf.compat.v1.GraphDef:
    """The concrete function's graph with each captured tensor and variable as a Const node.

    Shapes and names are the function's own: its input placeholders stay, and
    its outputs keep their tensor names.

    >>> weight = tf.Variable([[2.0]])
    >>> concrete = tf.function(lambda x: tf.matmul(x, weight)).get_concrete_function(tf.TensorSpec([None, 1]))
    >>> sorted({node.op for node in frozen_graph_def(concrete).node})
    ['Const', 'Identity', 'MatMul', 'NoOp', 'Placeholder']
    """
    graph_def = concrete.graph.as_graph_def()
    captured = concrete.captured_inputs
    placeholders = concrete.inputs[len(concrete.inputs) - len(captured) :]
    values = {}
    for placeholder, value in zip(placeholders, captured):
        name = placeholder.op.name
        if value.dtype == tf.resource:
            value = _read_variable(graph_def, name, value)
        values[name] = value.numpy()
    for node in graph_def.node:
        if node.name in values:
            value = values[node.name]
            node.op = "Const"
            node.ClearField("attr")
            node.attr["dtype"].type = tf.as_dtype(value.dtype).as_datatype_enum
            node.attr["value"].tensor.CopyFrom(tf.make_tensor_proto(value))
    return graph_def


def frozen_function(fn: Callable, input_signature: dict[str, tf.TensorSpec]):
    """`fn` (named tensors in, a dict of tensors out) traced, frozen and wrapped again as a concrete function.

    The result captures nothing, so `tf.lite.TFLiteConverter.from_concrete_functions([f])`
    puts the weights in the flatbuffer as constants. Its inputs keep their
    names (`input_signature`'s keys) and its outputs are `fn`'s dict.

    >>> weight = tf.Variable([3.0])
    >>> f = frozen_function(lambda x: {"y": x * weight}, {"x": tf.TensorSpec([None])})
    >>> f(tf.constant([1.0, 2.0]))["y"].numpy().tolist(), f.captured_inputs
    ([3.0, 6.0], [])
    """
    concrete = tf.function(fn, autograph=False).get_concrete_function(**input_signature)
    graph_def = frozen_graph_def(concrete)
    inputs = [t.name for t in concrete.inputs[: len(input_signature)]]
    outputs = tf.nest.map_structure(lambda t: t.name, concrete.structured_outputs)
    wrapped = tf.compat.v1.wrap_function(lambda: tf.graph_util.import_graph_def(graph_def, name=""), [])
    tensor = wrapped.graph.get_tensor_by_name
    return wrapped.prune(feeds=[tensor(name) for name in inputs], fetches=tf.nest.map_structure(tensor, outputs))


def _read_variable(graph_def, placeholder: str, handle) -> tf.Tensor:
    """The value behind a captured resource that the graph only reads; its readers become ops on the value."""
    readers = [node for node in graph_def.node if any(_source(i) == placeholder for i in node.input)]
    others = sorted({node.op for node in readers} - set(_READS))
    if others or not readers:
        raise ValueError(
            f"fn: captures {placeholder}, a resource used by {others or 'nothing'}; only variables that the "
            f"graph reads ({', '.join(_READS)}) can be frozen, not lookup tables or assignments"
        )
    value = tf.raw_ops.ReadVariableOp(resource=handle, dtype=tf.as_dtype(readers[0].attr["dtype"].type))
    for node in readers:
        dtype = node.attr["dtype"].type
        if node.op == "ReadVariableOp":
            node.op = "Identity"
            node.ClearField("attr")
            node.attr["T"].type = dtype
        else:  # ResourceGather(resource, indices) -> GatherV2(value, indices, axis=0)
            batch_dims, index_type = node.attr["batch_dims"].i, node.attr["Tindices"].type
            axis = graph_def.node.add(name=node.name + "/axis", op="Const")
            axis.attr["dtype"].type = tf.int32.as_datatype_enum
            axis.attr["value"].tensor.CopyFrom(tf.make_tensor_proto(batch_dims, tf.int32))
            node.op = "GatherV2"
            node.ClearField("attr")
            node.attr["Tparams"].type, node.attr["Tindices"].type = dtype, index_type
            node.attr["Taxis"].type = tf.int32.as_datatype_enum
            node.attr["batch_dims"].i = batch_dims
            node.input.insert(2, axis.name)
    return value


def _source(reference: str) -> str:
    """The node a graph input reference ("node", "node:1" or "^node") comes from."""
    return reference.lstrip("^").split(":")[0]
