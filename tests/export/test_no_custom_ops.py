"""What we export needs nothing but core TensorFlow.

Proved in a fresh process where tensorflow_text cannot be imported.
"""

from __future__ import annotations

import json
import textwrap

import pytest

import tf_wordpiece as twp
from helpers.child import run_python

pytestmark = pytest.mark.portable  # also run on the oldest supported TensorFlow by .ci/run

SENTENCES = ["Hello TensorFlow!", "Ünïcödé straße [MASK] 日本語", "", "x\x00y \u200b z"]

# Runs in a fresh interpreter where tensorflow_text cannot be imported (helpers.child.run_python).
CHILD = textwrap.dedent(
    """
    import json
    import tensorflow as tf
    from tensorflow.core.protobuf import saved_model_pb2
    import tf_wordpiece as twp

    vocab, out_dir, sentences = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    results = {}
    for compat in ("tf_text", "hf"):
        tok = twp.BertTokenizer(vocab, compat=compat, lower_case=True)

        class Exported(tf.Module):
            def __init__(self):
                super().__init__()
                self.tokenizer = tok

            @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
            def tokenize(self, strings):
                return self.tokenizer.tokenize(strings).merge_dims(-2, -1)

        path = f"{out_dir}/{compat}"
        tf.saved_model.save(Exported(), path)
        loaded = tf.saved_model.load(path)
        proto = saved_model_pb2.SavedModel()
        proto.ParseFromString(open(f"{path}/saved_model.pb", "rb").read())
        graph = proto.meta_graphs[0].graph_def
        ops = {n.op for n in graph.node} | {n.op for f in graph.library.function for n in f.node_def}
        functions = {f.signature.name for f in graph.library.function}
        results[compat] = {
            "ids": loaded.tokenize(tf.constant(sentences)).to_list(),
            "not_core": sorted(op for op in ops - functions if not hasattr(tf.raw_ops, op)),
            "num_op_types": len(ops - functions),
        }
    results["tensorflow_text_loaded"] = sys.modules.get("tensorflow_text") is not None
    print(json.dumps(results))
    """
)


def test_saved_model_has_only_core_ops_and_loads_without_tensorflow_text(vocab_path, tmp_path):
    results = run_python(CHILD, vocab_path, tmp_path, json.dumps(SENTENCES), without=["tensorflow_text"])
    assert results["tensorflow_text_loaded"] is False
    for compat in ("tf_text", "hf"):
        assert results[compat]["not_core"] == [], f"{compat}: non-core ops {results[compat]['not_core']}"
        assert results[compat]["num_op_types"] > 20  # the check looked at a real graph
        eager = twp.BertTokenizer(vocab_path, compat=compat, lower_case=True).tokenize(SENTENCES)
        assert results[compat]["ids"] == eager.merge_dims(-2, -1).to_list()


def test_package_does_not_import_tensorflow_text():
    """The tokenize path never imports tensorflow_text, even where it is installed."""
    code = (
        "import json, tf_wordpiece as twp\n"
        "twp.BertTokenizer(['[UNK]', 'a'], lower_case=True).tokenize(['a'])\n"
        "twp.BertTokenizer(['[UNK]', 'a'], compat='hf').tokenize(['a'])\n"
        "print(json.dumps(['tensorflow_text' in sys.modules, 'tokenizers' in sys.modules]))\n"
    )
    assert run_python(code, timeout=300) == [False, False]
