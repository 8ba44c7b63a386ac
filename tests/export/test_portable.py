"""What the older-TensorFlow CI job checks (marker `portable`): parity, a SavedModel round trip, a light import.

These tests need only TensorFlow, NumPy and pytest: the oracles (tensorflow-text,
tokenizers) are pinned to the newest TensorFlow, so parity is checked against
their ids stored in tests/data/parity_references.json.gz (tools/gen_parity_references.py),
and against the live oracles where they are installed, so the file cannot go stale.
"""

from __future__ import annotations

import gzip
import json
import pathlib
import subprocess
import sys
import textwrap

import pytest
import tensorflow as tf

import tf_wordpiece as twp
from helpers.child import run_python
from helpers.data import DATA, VOCAB
from tf_wordpiece.export.module import CustomTokenizer

pytestmark = pytest.mark.portable

ROOT = pathlib.Path(__file__).resolve().parents[2]
RESERVED = ["[PAD]", "[UNK]", "[START]", "[END]"]


def _references() -> dict:
    with gzip.open(DATA / "parity_references.json.gz", "rt", encoding="utf-8") as f:
        return json.load(f)


def _sample() -> list[str]:
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        from gen_parity_references import digest, sample
    finally:
        sys.path.remove(str(ROOT / "tools"))
    lines = sample()
    return lines, digest(lines)


def _expected(refs: dict, compat: str) -> list[list[int]]:
    if compat == "tf_text":
        return refs["tf_text"]
    different = {int(i): ids for i, ids in refs["hf_where_different"].items()}
    return [different.get(i, ids) for i, ids in enumerate(refs["tf_text"])]


@pytest.fixture(scope="module")
def references():
    lines, sha = _sample()
    refs = _references()
    assert refs["sample_sha256"] == sha, "the sample changed: run python tools/gen_parity_references.py"
    return lines, refs


@pytest.mark.parametrize("compat", ["tf_text", "hf"])
def test_parity_on_the_sample_against_stored_peer_ids(references, compat):
    lines, refs = references
    expected = _expected(refs, compat)
    tok = twp.BertTokenizer(str(VOCAB), lower_case=True, compat=compat)
    tokenize = tf.function(
        lambda s: tok.tokenize(s).merge_dims(-2, -1), input_signature=[tf.TensorSpec([None], tf.string)]
    )
    ours = []
    for i in range(0, len(lines), 1000):
        ours += tokenize(tf.constant([s.encode("utf-8") for s in lines[i : i + 1000]])).to_list()
    bad = [(lines[i], o, e) for i, (o, e) in enumerate(zip(ours, expected)) if o != e]
    assert len(ours) == len(expected) == 20941
    assert not bad, f"{len(bad)} of {len(lines)} lines differ from the stored {compat} ids; first: {bad[:2]}"


def test_stored_peer_ids_match_the_live_oracles(references):
    """Where the oracles are installed (the main suite), the stored ids must still be theirs."""
    text = pytest.importorskip("tensorflow_text")
    pytest.importorskip("tokenizers")
    from helpers.oracles import hf_oracle

    lines, refs = references
    picked = list(range(0, len(lines), 7))  # every 7th line: a seventh of the cost, every kind of line
    batch = [lines[i] for i in picked]
    live_tf_text = (
        text.BertTokenizer(str(VOCAB), lower_case=True)
        .tokenize(tf.constant([s.encode("utf-8") for s in batch]))
        .merge_dims(-2, -1)
        .to_list()
    )
    live_hf = [enc.ids for enc in hf_oracle(lowercase=True).encode_batch(batch, add_special_tokens=False)]
    assert live_tf_text == [_expected(refs, "tf_text")[i] for i in picked]
    assert live_hf == [_expected(refs, "hf")[i] for i in picked]


CHILD = textwrap.dedent(
    """
    import json
    import tensorflow as tf
    m = tf.saved_model.load(sys.argv[1])
    lines = json.loads(sys.argv[2])
    ids = m.tokenize(tf.constant(lines))
    serve = m.signatures["serving_default"](strings=tf.constant(lines))
    pair = m.signatures["bert_pack_pair_inputs"](first=tf.constant(lines), second=tf.constant(lines[::-1]))
    print(json.dumps({
        "ids": ids.to_list(),
        "detok": [s.decode() for s in m.detokenize(ids).numpy()],
        "serving": {k: v.numpy().tolist() for k, v in serve.items()},
        "pair": {k: v.numpy().tolist() for k, v in pair.items()},
        "size": int(m.get_vocab_size()),
        "lookup_int32": [t.decode() for t in m.lookup(tf.constant([[1, 7592]], tf.int32)).numpy()[0]],
        "lookup_ragged_int32": [
            [t.decode() for t in row] for row in m.lookup(tf.ragged.constant([[2], []], tf.int32)).to_list()
        ],
    }))
    """
)


@pytest.mark.parametrize("compat", ["tf_text", "hf"])
def test_saved_model_round_trip_in_a_fresh_process(tmp_path, compat):
    tokens = VOCAB.read_text(encoding="utf-8").splitlines()
    tokens[tokens.index("[unused0]")], tokens[tokens.index("[unused1]")] = "[START]", "[END]"
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("\n".join(tokens) + "\n", encoding="utf-8")
    module = CustomTokenizer(RESERVED, str(vocab), lower_case=True, seq_length=16, compat=compat)
    path = tmp_path / "model"
    tf.saved_model.save(module, str(path), signatures=module.signatures())
    lines = ["Hello TensorFlow!", "", "Ünïcödé straße 日本語 [MASK]", "a " * 20]
    # the exported model must need neither the package nor tensorflow_text
    got = run_python(CHILD, path, json.dumps(lines), without=["tf_wordpiece", "tensorflow_text"], cwd=tmp_path)
    strings = tf.constant(lines)
    assert got["ids"] == module.tokenize(strings).to_list()
    assert got["detok"] == [s.decode() for s in module.detokenize(module.tokenize(strings)).numpy()]
    assert got["serving"] == {k: v.numpy().tolist() for k, v in module.serving(strings).items()}
    want_pair = module.bert_pack_pair_inputs(strings, tf.constant(lines[::-1]))
    assert got["pair"] == {k: v.numpy().tolist() for k, v in want_pair.items()}
    assert got["size"] == 30522
    assert got["lookup_int32"] == ["[START]", "hello"] and got["lookup_ragged_int32"] == [["[END]"], []]
    assert module.tokenize_nd("Hello").numpy().tolist() == got["ids"][0][:1] + [7592] + got["ids"][0][-1:]
    grid = module.tokenize_nd(tf.constant([lines[:2], lines[2:]]))
    assert grid.shape[:2] == [2, 2] and grid.to_list() == [got["ids"][:2], got["ids"][2:]]
    assert got["serving"]["lengths"][0] == 6 and got["pair"]["input_word_ids"][0][0] == 101


def test_import_is_light():
    """`import tf_wordpiece` loads neither tqdm, nor its Keras layers, nor the oracles."""
    names = ("tqdm", "tf_wordpiece.keras_layers", "tensorflow_text", "tokenizers")
    code = f"import sys, tf_wordpiece\nprint(sorted(m for m in {names!r} if m in sys.modules))"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip().splitlines()[-1] == "[]"
