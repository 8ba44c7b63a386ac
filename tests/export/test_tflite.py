"""TFLite: every CustomTokenizer signature converts with BUILTINS + SELECT_TF_OPS, and runs where Flex is linked.

Conversion runs everywhere. Running needs an interpreter with the Flex delegate
(the tokenizer uses string and lookup-table ops, which are Flex ops):
TensorFlow 2.14-2.19's `tf.lite.Interpreter` has it; TensorFlow >= 2.20's and
ai-edge-litert's do not, and the test skips there. The interpreter runs in a
child process, so a crash in it fails the test instead of ending pytest.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import tensorflow as tf

from helpers.data import DATA, VOCAB
from tf_wordpiece.export.module import CustomTokenizer

pytestmark = pytest.mark.portable

RESERVED = ["[PAD]", "[UNK]", "[START]", "[END]"]
SIGNATURES = ("serving_default", "bert_pack_inputs", "bert_pack_pair_inputs")


def convert(saved_model: str, *signatures: str) -> bytes:
    """One .tflite flatbuffer holding `signatures` (one conversion: the vocabulary's table is lowered once)."""
    converter = tf.lite.TFLiteConverter.from_saved_model(saved_model, signature_keys=list(signatures))
    converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS, tf.lite.OpsSet.SELECT_TF_OPS]
    return converter.convert()


@pytest.fixture(scope="module", params=["tf_text", pytest.param("hf", marks=pytest.mark.slow)])
def converted(request, tmp_path_factory):
    """(module, {signature: .tflite path}) for a CustomTokenizer with default options.

    All three signatures convert together into one file (each path is that file): a third of the time of
    three conversions, which each lower the same vocabulary table."""
    tmp = tmp_path_factory.mktemp(f"tflite_{request.param}")
    tokens = VOCAB.read_text(encoding="utf-8").splitlines()
    tokens[tokens.index("[unused0]")], tokens[tokens.index("[unused1]")] = "[START]", "[END]"
    vocab = tmp / "vocab.txt"
    vocab.write_text("\n".join(tokens) + "\n", encoding="utf-8")
    module = CustomTokenizer(RESERVED, str(vocab), lower_case=True, seq_length=24, compat=request.param)
    tf.saved_model.save(module, str(tmp / "model"), signatures=module.signatures())
    path = tmp / "tokenizer.tflite"
    path.write_bytes(convert(str(tmp / "model"), *SIGNATURES))
    return module, {signature: path for signature in SIGNATURES}


def test_every_signature_converts(converted):
    _, paths = converted
    (path,) = set(paths.values())
    blob = path.read_bytes()
    assert blob[4:8] == b"TFL3" and len(blob) > 100_000  # a flatbuffer that holds the vocabulary
    assert sorted(tf.lite.Interpreter(model_content=blob).get_signature_list()) == sorted(SIGNATURES)


RUNNER = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    import tensorflow as tf
    paths, batches = json.loads(sys.argv[1]), json.loads(sys.argv[2])
    out = {}
    for signature, path in paths.items():
        interpreter = tf.lite.Interpreter(model_path=path)
        try:
            runner = interpreter.get_signature_runner(signature)
            results = []
            for first, second in batches:
                pair = signature == "bert_pack_pair_inputs"
                args = {"first": first, "second": second} if pair else {"strings": first}
                args = {k: np.array([s.encode("utf-8") for s in v], dtype=object) for k, v in args.items()}
                results.append({k: v.tolist() for k, v in runner(**args).items()})
        except Exception as e:  # without Flex: "Regular TensorFlow ops are not supported by this interpreter"
            if "Flex" in str(e) or "Regular TensorFlow ops" in str(e):
                print(json.dumps({"no_flex": str(e)[:300]}))
                sys.exit(0)
            raise
        out[signature] = results
    print(json.dumps(out))
    """
)


def test_runs_with_identical_outputs_where_flex_is_linked(converted, tmp_path):
    module, paths = converted
    lines = (DATA / "multilingual_dev.txt").read_text(encoding="utf-8").split("\n")[:600]
    batches = [(lines[i : i + 100], lines[i + 100 : i + 200]) for i in range(0, 400, 200)]
    # Small and odd batches: one string, an empty string, a batch whose second shard has no words.
    batches += [
        (["Hello TensorFlow!"], ["How are you?"]),
        ([""], ["x"]),
        (["a", ""], ["", "b c"]),
        (["one two three four five six seven eight nine ten " * 3], ["short"]),
    ]
    proc = subprocess.run(
        [sys.executable, "-c", RUNNER, json.dumps({k: str(v) for k, v in paths.items()}), json.dumps(batches)],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, f"exit {proc.returncode}: {proc.stderr[-3000:]}"
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    if "no_flex" in got:
        pytest.skip(f"this TensorFlow's tf.lite.Interpreter has no Flex delegate (TF >= 2.20): {got['no_flex']}")
    for signature in SIGNATURES:
        for (first, second), lite in zip(batches, got[signature]):
            if signature == "serving_default":
                want = module.serving(tf.constant(first))
            elif signature == "bert_pack_inputs":
                want = module.bert_pack_inputs(tf.constant(first))
            else:
                want = module.bert_pack_pair_inputs(tf.constant(first), tf.constant(second))
            want = {k: v.numpy().tolist() for k, v in want.items()}
            assert lite == want, f"{signature} differs on {first[:2]}"
    assert np.array(got["serving_default"][0]["token_ids"]).shape[0] == 100


class SubwordModule(tf.Module):
    """A SubwordTextEncoder's encode and decode as dense-output signatures (TFLite has no ragged outputs)."""

    def __init__(self, encoder):
        super().__init__()
        self.encoder = encoder

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
    def encode(self, strings):
        ids = self.encoder.encode(strings)
        return {"ids": ids.flat_values, "row_splits": ids.row_splits}

    @tf.function(input_signature=[tf.TensorSpec([None], tf.int64), tf.TensorSpec([None], tf.int64)])
    def decode(self, ids, row_splits):
        return {"strings": self.encoder.decode(tf.RaggedTensor.from_row_splits(ids, row_splits))}


def test_subword_text_encoder_converts(tmp_path):
    """Its decode unescapes `\\<n>;` without tf.searchsorted, whose LowerBound op TFLite cannot convert."""
    from tf_wordpiece.subword.encoder import SubwordTextEncoder

    encoder = SubwordTextEncoder.build_from_corpus(["hello world!", "a snowman, 12;"] * 3, 60, verbose=False)
    text = tf.constant(["hello world!", "a ☃ snowman, 12;"])
    want = encoder.decode(encoder.encode(text))
    assert want.numpy().tolist() == [t.encode("utf-8") for t in ["hello world!", "a ☃ snowman, 12;"]]
    module = SubwordModule(encoder)
    tf.saved_model.save(
        module, str(tmp_path / "subword"), signatures={"encode": module.encode, "decode": module.decode}
    )
    blob = convert(str(tmp_path / "subword"), "encode", "decode")
    assert blob[4:8] == b"TFL3"
    assert sorted(tf.lite.Interpreter(model_content=blob).get_signature_list()) == ["decode", "encode"]
