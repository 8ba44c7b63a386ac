"""TF Serving warm-up requests for SavedModels whose tokenizers run the numeric core compiled by XLA.

XLA compiles the core once per bucket of batch sizes, on the first batch of
each: 1-4 s that the first request of each size would wait. TF Serving runs
the requests in a SavedModel's `assets.extra/tf_serving_warmup_requests` when
it loads the model (`--enable_model_warmup`, on by default), so a file with
one request per bucket moves every compilation to load time.

The file is a TFRecord of `tensorflow.serving.PredictionLog` protos.
TensorFlow does not ship TF Serving's protos, so the few messages needed are
encoded here by hand (field numbers from tensorflow_serving/apis:
PredictionLog.predict_log = 6, PredictLog.request = 1, PredictRequest.model_spec
= 1 and .inputs = 2, ModelSpec.signature_name = 3); `read_warmup_requests`
decodes them back.
"""

from __future__ import annotations

import os
import pathlib
from typing import Iterable

import numpy as np
import tensorflow as tf
from tensorflow.core.framework import tensor_pb2, types_pb2
from tensorflow.core.protobuf import saved_model_pb2

from tf_wordpiece.numeric.core import WARM_UP_BYTES, WARM_UP_STRINGS, NumericCore, warm_up_batches

WARMUP_FILE = pathlib.PurePosixPath("assets.extra") / "tf_serving_warmup_requests"
_LENGTH_DELIMITED = 2


def add_warmup_requests(
    saved_model_dir: str | os.PathLike,
    module: tf.Module,
    *,
    max_bytes: int = WARM_UP_BYTES,
    max_strings: int = WARM_UP_STRINGS,
) -> pathlib.Path | None:
    """Gives a saved `module` whose tokenizers use `core="xla"` its TF Serving warm-up file.

    One request per bucket of `warm_up_batches` (batches of up to `max_bytes`
    bytes in up to `max_strings` strings) for every signature that takes one
    string tensor (read from saved_model.pb), so each compiled bucket of each
    tokenizer is ready when TF Serving has loaded the model. Returns the
    file's path, or None (nothing written) when no tokenizer of `module` is
    compiled by XLA.
    """
    if not any(isinstance(m, NumericCore) and m.jit_compile for m in (module, *module.submodules)):
        return None
    proto = saved_model_pb2.SavedModel.FromString((pathlib.Path(saved_model_dir) / "saved_model.pb").read_bytes())
    signatures = proto.meta_graphs[0].signature_def
    batches = warm_up_batches(max_bytes=max_bytes, max_strings=max_strings)
    requests = []
    for name in sorted(signatures):
        inputs = signatures[name].inputs
        if len(inputs) == 1 and next(iter(inputs.values())).dtype == types_pb2.DT_STRING:
            key = next(iter(inputs))
            requests += [(name, {key: np.array(batch, dtype=object)}) for batch in batches]
    return write_warmup_requests(saved_model_dir, requests)


def write_warmup_requests(saved_model_dir: str | os.PathLike, requests: Iterable[tuple[str, dict]]) -> pathlib.Path:
    """Writes (signature name, {input name: array}) requests as the SavedModel's warm-up file; returns its path.

    Write it into a SavedModel folder before it is served (inside an atomic
    save's staging folder, as `export.saving.save_model` does).
    """
    path = pathlib.Path(saved_model_dir) / WARMUP_FILE
    path.parent.mkdir(exist_ok=True)
    with tf.io.TFRecordWriter(str(path)) as writer:
        for signature, inputs in requests:
            writer.write(encode_prediction_log(signature, inputs))
    return path


def encode_prediction_log(signature: str, inputs: dict) -> bytes:
    """A PredictionLog holding a PredictRequest for `signature` with these inputs.

    >>> log = encode_prediction_log("serving_default", {"strings": np.array([b"hi"], dtype=object)})
    >>> decode_prediction_log(log)[0], decode_prediction_log(log)[1]["strings"].tolist()
    ('serving_default', [b'hi'])
    """
    model_spec = _field(3, signature.encode("utf-8"))
    request = _field(1, model_spec)
    for name, value in inputs.items():
        entry = _field(1, name.encode("utf-8")) + _field(2, tf.make_tensor_proto(value).SerializeToString())
        request += _field(2, entry)
    return _field(6, _field(1, request))


def read_warmup_requests(saved_model_dir: str | os.PathLike) -> list[tuple[str, dict[str, np.ndarray]]]:
    """The (signature name, {input name: array}) requests of a SavedModel's warm-up file."""
    path = pathlib.Path(saved_model_dir) / WARMUP_FILE
    return [decode_prediction_log(record.numpy()) for record in tf.data.TFRecordDataset(str(path))]


def decode_prediction_log(log: bytes) -> tuple[str, dict[str, np.ndarray]]:
    """The inverse of `encode_prediction_log`; ValueError for anything else."""
    request = _only(_fields(_only(_fields(log), 6, "PredictionLog.predict_log")), 1, "PredictLog.request")
    fields = _fields(request)
    spec = _fields(_only(fields, 1, "PredictRequest.model_spec"))
    signature = _only(spec, 3, "ModelSpec.signature_name").decode("utf-8")
    inputs = {}
    for entry in fields.get(2, []):
        entry = _fields(entry)
        tensor = tensor_pb2.TensorProto.FromString(_only(entry, 2, "inputs.value"))
        inputs[_only(entry, 1, "inputs.key").decode("utf-8")] = tf.make_ndarray(tensor)
    return signature, inputs


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        value, low = divmod(value, 128)
        out.append(low | (128 if value else 0))
        if not value:
            return bytes(out)


def _field(number: int, payload: bytes) -> bytes:
    """A length-delimited field (message, string or bytes)."""
    return _varint(number * 8 + _LENGTH_DELIMITED) + _varint(len(payload)) + payload


def _fields(message: bytes) -> dict[int, list[bytes]]:
    """The length-delimited fields of a message, by number (other wire types are a ValueError: none is written)."""
    fields: dict[int, list[bytes]] = {}
    at = 0
    while at < len(message):
        key, at = _read_varint(message, at)
        if key % 8 != _LENGTH_DELIMITED:
            raise ValueError(f"warm-up request: field {key // 8} has wire type {key % 8}, expected a message")
        length, at = _read_varint(message, at)
        if at + length > len(message):
            raise ValueError("warm-up request: a field runs past the end of its message")
        fields.setdefault(key // 8, []).append(message[at : at + length])
        at += length
    return fields


def _read_varint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if at >= len(data):
            raise ValueError("warm-up request: a varint runs past the end of its message")
        byte = data[at]
        value += (byte % 128) << shift
        at, shift = at + 1, shift + 7
        if byte < 128:
            return value, at


def _only(fields: dict[int, list[bytes]], number: int, name: str) -> bytes:
    values = fields.get(number, [])
    if len(values) != 1:
        raise ValueError(f"warm-up request: expected one {name} (field {number}), got {len(values)}")
    return values[0]
