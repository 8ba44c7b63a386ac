"""Serving readiness of the numeric core: batches over the size limit in parts, warm-up, TF Serving's warm-up file.

- A batch of more than `MAX_BATCH_BYTES` bytes (the limit is lowered here) is
  cut at string ends and after spaces into parts that each go through the core:
  same ids and offsets as the string path, and a clear error for a run of more
  bytes than a part holds with no space in it.
- `NumericCore.warm_up` compiles the buckets (XLA) a batch can hit.
- A SavedModel with a `core="xla"` tokenizer, saved with `save_atomically`,
  holds `assets.extra/tf_serving_warmup_requests`: a TFRecord of PredictionLog
  protos, checked here with protobuf's own parser (message classes built from a
  descriptor written from tensorflow_serving's .proto files), one request per
  bucket that the reloaded model answers.
"""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

import tf_wordpiece as twp
from helpers.ragged import rows
from tf_wordpiece.export.converter import save_atomically
from tf_wordpiece.export.module import CustomTokenizer
from tf_wordpiece.numeric import core as numeric_core
from tf_wordpiece.numeric import serving

TOKENS = ["[PAD]", "[UNK]", "[START]", "[END]", "[MASK]", "a", "b", "ab", "##a", "##b", "é", "##é", "x", "!"]
PART_BYTES = 24  # the lowered limit: every batch below is cut into several parts


def per_string(tokenizer, batch) -> list[tuple]:
    return list(zip(*(rows(t) for t in tokenizer.tokenize_with_offsets(tf.constant(batch, tf.string)))))


@pytest.mark.parametrize("core", ["numeric", pytest.param("xla", marks=pytest.mark.slow)])
@pytest.mark.parametrize("compat", ["tf_text", "hf"])
def test_a_batch_over_the_limit_is_tokenized_in_parts(core, compat, monkeypatch):
    monkeypatch.setattr(numeric_core, "MAX_BATCH_BYTES", PART_BYTES)
    batch = [
        "ab ab a b",
        "",
        "x " * 40,  # longer than a part: cut after its spaces
        "abab   ba  éé a!",
        "",
        "",
        "ab" * 10 + " " + "ba" * 10,
        "[MASK] a[MASK] ab",
        "a b\n" * 9,
    ]
    batch = [s.encode() for s in batch] + [b"\xff\xfe ab \xc3", b"ab" * 11 + b" \xe2\x82"]
    assert sum(map(len, batch)) > 4 * PART_BYTES
    options = dict(compat=compat, lower_case=True, special_tokens=["[MASK]"] if compat == "hf" else None)
    numeric = twp.BertTokenizer(TOKENS, core=core, **options)
    string = twp.BertTokenizer(TOKENS, **options)
    assert per_string(numeric, batch) == per_string(string, batch)
    for single in ([batch[2]], [batch[6]], [b""], []):  # one string in several parts; nothing to cut
        assert per_string(numeric, single) == per_string(string, single)


def test_a_run_without_spaces_longer_than_a_part_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(numeric_core, "MAX_BATCH_BYTES", PART_BYTES)
    numeric = twp.BertTokenizer(TOKENS, core="numeric")
    with pytest.raises(tf.errors.InvalidArgumentError, match=f"strings: more than {PART_BYTES} bytes without a space"):
        numeric.tokenize(["a b", "ab" * PART_BYTES])


@pytest.mark.slow  # compiles four buckets: ~10 s
def test_warm_up_compiles_each_bucket_a_batch_can_hit():
    tokenizer = twp.BertTokenizer(TOKENS, core="xla")
    assert tokenizer.warm_up(max_bytes=300, max_strings=8) == [64, 128, 256, 512]
    assert twp.BertTokenizer(TOKENS, core="numeric").warm_up() == []  # nothing to compile
    assert twp.BertTokenizer(TOKENS).warm_up() == []
    batch = ["ab ba", "", "x" * 200]
    assert per_string(tokenizer, batch) == per_string(twp.BertTokenizer(TOKENS), batch)


def prediction_log_class():
    """PredictionLog as protobuf builds it from a descriptor (tensorflow_serving/apis field numbers and types)."""
    pool = descriptor_pool.DescriptorPool()
    tensor = descriptor_pb2.FileDescriptorProto()
    tf.make_tensor_proto(0).DESCRIPTOR.file.CopyToProto(tensor)
    for dependency in tf.make_tensor_proto(0).DESCRIPTOR.file.dependencies:
        proto = descriptor_pb2.FileDescriptorProto()
        dependency.CopyToProto(proto)
        for nested in dependency.dependencies:
            nested_proto = descriptor_pb2.FileDescriptorProto()
            nested.CopyToProto(nested_proto)
            pool.Add(nested_proto)
        pool.Add(proto)
    pool.Add(tensor)
    apis = descriptor_pb2.FileDescriptorProto(
        name="serving_apis.proto", package="tensorflow.serving", dependency=[tensor.name], syntax="proto3"
    )
    field = descriptor_pb2.FieldDescriptorProto
    optional, repeated = field.LABEL_OPTIONAL, field.LABEL_REPEATED

    def message(name, *fields, map_entry=False):
        proto = apis.message_type.add(name=name)
        proto.options.map_entry = map_entry
        for number, field_name, kind, type_name, label in fields:
            proto.field.add(name=field_name, number=number, type=kind, type_name=type_name, label=label)

    message(
        "ModelSpec",
        (1, "name", field.TYPE_STRING, None, optional),
        (3, "signature_name", field.TYPE_STRING, None, optional),
    )
    message(
        "InputsEntry",
        (1, "key", field.TYPE_STRING, None, optional),
        (2, "value", field.TYPE_MESSAGE, ".tensorflow.TensorProto", optional),
        map_entry=True,
    )
    message(
        "PredictRequest",
        (1, "model_spec", field.TYPE_MESSAGE, ".tensorflow.serving.ModelSpec", optional),
        (2, "inputs", field.TYPE_MESSAGE, ".tensorflow.serving.InputsEntry", repeated),
    )
    message("PredictLog", (1, "request", field.TYPE_MESSAGE, ".tensorflow.serving.PredictRequest", optional))
    message("PredictionLog", (6, "predict_log", field.TYPE_MESSAGE, ".tensorflow.serving.PredictLog", optional))
    pool.Add(apis)
    descriptor = pool.FindMessageTypeByName("tensorflow.serving.PredictionLog")
    if hasattr(message_factory, "GetMessageClass"):  # protobuf >= 4.22
        return message_factory.GetMessageClass(descriptor)
    return message_factory.MessageFactory(pool).GetPrototype(descriptor)


@pytest.mark.slow  # compiles the buckets of the warm-up requests: ~30 s
def test_an_xla_export_holds_tf_servings_warm_up_requests(tmp_path):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("\n".join(TOKENS) + "\n", encoding="utf-8")
    module = CustomTokenizer(TOKENS[:4], str(vocab), core="xla")
    save_atomically(module, str(tmp_path / "model"), signatures=module.signatures())
    path = tmp_path / "model" / serving.WARMUP_FILE
    records = [r.numpy() for r in tf.data.TFRecordDataset(str(path))]
    buckets = len(numeric_core.warm_up_batches())
    parsed = [prediction_log_class().FromString(record) for record in records]
    signatures = [log.predict_log.request.model_spec.signature_name for log in parsed]
    assert signatures == ["bert_pack_inputs"] * buckets + ["serving_default"] * buckets  # one string input each
    requests = serving.read_warmup_requests(tmp_path / "model")
    for log, (signature, inputs) in zip(parsed, requests):
        entry = {key: tf.make_ndarray(value) for key, value in log.predict_log.request.inputs.items()}
        assert signature == log.predict_log.request.model_spec.signature_name
        assert entry.keys() == inputs.keys() and all(np.array_equal(entry[k], inputs[k]) for k in entry)
    loaded = tf.saved_model.load(str(tmp_path / "model"))
    for signature, inputs in requests:  # what TF Serving runs when it loads the model
        out = loaded.signatures[signature](**{k: tf.constant(v) for k, v in inputs.items()})
        assert all(np.all(np.isfinite(v.numpy())) for v in out.values())


def test_a_string_core_export_has_no_warm_up_file(tmp_path):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("\n".join(TOKENS) + "\n", encoding="utf-8")
    module = CustomTokenizer(TOKENS[:4], str(vocab))
    save_atomically(module, str(tmp_path / "model"), signatures=module.signatures())
    assert not (tmp_path / "model" / "assets.extra").exists()


@pytest.mark.slow  # learns two vocabularies, saves an XLA converter, reloads it and compiles one bucket
def test_the_export_command_with_core_xla_writes_the_warm_up_requests(tmp_path, capsys):
    """`tf-wordpiece export --core xla` saves through the one save path: its model has the warm-up file too."""
    from tf_wordpiece.cli import main
    from tf_wordpiece.export.converter import embedded_pairs

    corpus = tmp_path / "pairs.tsv"
    corpus.write_text("".join(f"{pt}\t{en}\n" for pt, en in embedded_pairs()[:200]), encoding="utf-8")
    out = tmp_path / "converter"
    assert main(["export", "--input", str(corpus), "--out", str(out), "--vocab-size", "300", "--core", "xla"]) == 0
    assert "saving converter:" in capsys.readouterr().err  # the save's progress line
    signatures = [signature for signature, _ in serving.read_warmup_requests(out)]
    buckets = len(numeric_core.warm_up_batches())
    assert sorted(set(signatures)) == ["en_tokenize", "pt_tokenize", "serving_default"]
    assert all(signatures.count(name) == buckets for name in set(signatures))


def test_save_errors_name_the_librarys_parameter(tmp_path):
    """Python callers read `out_dir: ...` (the command line writes `--out`, tests/export/test_module.py)."""
    mine = tmp_path / "notes"
    mine.mkdir()
    (mine / "todo.txt").write_text("keep me")
    with pytest.raises(ValueError, match=r"^out_dir: .* is a folder that is not a SavedModel"):
        save_atomically(tf.Module(), str(mine), overwrite=True)
    saved = save_atomically(tf.Module(), tmp_path / "model")
    with pytest.raises(FileExistsError, match=r"^out_dir: .* already holds a SavedModel"):
        save_atomically(tf.Module(), saved)
