"""The Transformer tutorial's translator (examples/translate/) on the converter that `tf-wordpiece export` writes.

A tiny model is trained for a few steps (seconds) and exported; then (a) the exported translator loads and
translates in a fresh process in which neither tensorflow_text nor tf_wordpiece can be imported, and (b)
for the same weights, the same model fed by the tutorial's own tokenizers on `tensorflow_text.BertTokenizer`
(same vocab files) gets the same encoder ids and gives the same output tokens and text.
"""

from __future__ import annotations

import json
import pathlib
import sys
import textwrap

import numpy as np
import pytest
import tensorflow as tf

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "examples" / "translate"))

import nmt_model  # noqa: E402
import nmt_translator  # noqa: E402
import train_translator  # noqa: E402

from helpers.child import run_python  # noqa: E402
from helpers.converters import exported_converter  # noqa: E402

MAX_LENGTH = 8  # tokens generated per translation: enough to compare outputs, cheap to run
SENTENCES = [
    "este é um problema que temos que resolver.",
    "os meus vizinhos ouviram sobre esta ideia.",
    "Falha ao criar túnel: Ünïcödé, 日本語 e [MASK]!",
    "",  # [START] [END] only
    "palavra " * 3000,  # 3000 words: cut to MAX_TOKENS ids (the positional encoding stops at 2048)
]
INVALID_UTF8 = [b"caf\xe9 au lait", b"\xff\xfe ok \xc3"]  # tensorflow_text keeps them in their word: [UNK]
INPUTS = [s.encode() for s in SENTENCES] + INVALID_UTF8


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A converter exported from part of the sample, and a tiny Transformer trained on it for a few steps."""
    folder = tmp_path_factory.mktemp("translator")
    pairs = train_translator.sample_pairs()
    tokenizers = tf.saved_model.load(str(exported_converter(tmp_path_factory)))
    tf.keras.utils.set_random_seed(0)
    transformer = train_translator.build_transformer(tokenizers, num_layers=1, d_model=32, num_heads=2, dff=64)
    batches = train_translator.make_batches(pairs[:320], tokenizers, batch_size=32)
    history = train_translator.train(transformer, batches, epochs=3, steps_per_epoch=5, warmup_steps=20)
    translator = nmt_translator.ExportTranslator(
        nmt_translator.Translator(tokenizers, transformer), max_length=MAX_LENGTH
    )
    saved = nmt_translator.save_translator(translator, folder / "translator")
    return tokenizers, transformer, history.history["loss"], saved


def test_training_lowers_the_loss(trained):
    losses = trained[2]
    assert len(losses) == 3 and all(np.isfinite(losses))
    assert losses[-1] < losses[0], f"the loss did not go down in 15 steps: {losses}"


def test_the_pipeline_gives_the_tutorials_shapes(trained):
    tokenizers = trained[0]
    (pt, en_in), en_out = next(iter(train_translator.make_batches([("olá mundo", "hello world")], tokenizers)))
    start, end = tokenizers.en.tokenize(tf.constant([""]))[0].numpy().tolist()
    assert pt.dtype == en_in.dtype == en_out.dtype == tf.int64
    assert en_in.numpy()[0, 0] == start and en_out.numpy()[0, -1] == end  # [START] in, [END] out
    assert en_in.numpy()[0, 1:].tolist() == en_out.numpy()[0, :-1].tolist()  # shifted by one


def test_the_model_ignores_padding_and_is_causal():
    """Keras 3's MultiHeadAttention drops masks from its inputs: the decoder must still mask the source padding."""
    tf.keras.utils.set_random_seed(1)
    model = nmt_model.Transformer(
        num_layers=2, d_model=16, num_heads=2, dff=32, input_vocab_size=50, target_vocab_size=40
    )
    source, padded_source = tf.constant([[2, 5, 6, 3]]), tf.constant([[2, 5, 6, 3, 0, 0]])
    target = tf.constant([[2, 7, 8]])
    logits = model((source, target)).numpy()
    np.testing.assert_allclose(model((padded_source, target)).numpy(), logits, atol=1e-5)
    np.testing.assert_allclose(model((source, tf.constant([[2, 7, 8, 0]]))).numpy()[:, :3], logits, atol=1e-5)
    later_changed = model((source, tf.constant([[2, 9, 9]]))).numpy()
    np.testing.assert_allclose(later_changed[:, 0], logits[:, 0], atol=1e-5)  # position 0 sees only [START]
    assert not np.allclose(later_changed[:, 1:], logits[:, 1:])  # the check can fail


# Runs in a fresh interpreter: neither tf_wordpiece nor tensorflow_text can be imported there (run_python's without).
CHILD = textwrap.dedent(
    """
    import json
    import tensorflow as tf

    translator = tf.saved_model.load(sys.argv[1])
    sentences = [s.encode() for s in json.loads(sys.argv[2])] + [bytes.fromhex(h) for h in json.loads(sys.argv[3])]
    errors = {}
    for name, bad in (("int", tf.constant(3)), ("rank 1", tf.constant(["a", "b"]))):
        try:
            translator(bad)
            errors[name] = None
        except (TypeError, ValueError) as e:
            errors[name] = f"{type(e).__name__}: {e}"
    print(json.dumps({
        "texts": [translator(tf.constant(s)).numpy().decode("utf-8", "replace") for s in sentences],
        "errors": errors,
        "imported": [m for m in ("tf_wordpiece", "tensorflow_text") if sys.modules.get(m) is not None],
        "signatures": {
            name: [sorted(f.structured_input_signature[1]), sorted(f.structured_outputs)]
            for name, f in translator.signatures.items()
        },
        "served": translator.signatures["serving_default"](sentence=tf.constant(sentences[0]))["output_0"]
        .numpy().decode("utf-8", "replace"),
    }))
    """
)


def reference_outputs(tokenizers, transformer, sentences: list[bytes]) -> list[tuple]:
    """(encoder ids, output tokens, text) per sentence, from the Translator on these tokenizers, traced once."""
    translator = nmt_translator.Translator(tokenizers, transformer)

    @tf.function(input_signature=[tf.TensorSpec([], tf.string)])
    def translate(sentence):
        text, tokens, _ = translator(sentence, max_length=MAX_LENGTH)
        return text, tokens

    rows = []
    for sentence in sentences:
        ids = tokenizers.pt.tokenize(tf.constant([sentence]))[:, : nmt_translator.MAX_TOKENS]
        text, tokens = translate(tf.constant(sentence))
        rows.append((ids.to_list()[0], tokens.numpy().tolist(), text.numpy()))
    return rows


@pytest.fixture(scope="module")
def ours(trained) -> list[tuple]:
    """The outputs on INPUTS of the Translator on the exported converter (before its own export)."""
    tokenizers, transformer, _, _ = trained
    return reference_outputs(tokenizers, transformer, INPUTS)


@pytest.fixture(scope="module")
def theirs(trained) -> list[tuple]:
    """The same, with the same weights, fed by the tutorial's converter on tensorflow_text (same vocab files)."""
    pytest.importorskip("tensorflow_text")
    from helpers.tutorial_tokenizer import TutorialTextConverter

    tokenizers, transformer, _, _ = trained
    oracle = TutorialTextConverter(
        tokenizers.pt.get_vocab_path().numpy().decode(), tokenizers.en.get_vocab_path().numpy().decode()
    )
    return reference_outputs(oracle, transformer, INPUTS)


def test_the_exported_translator_runs_without_tensorflow_text_or_tf_wordpiece(trained, ours):
    saved = trained[3]
    invalid = json.dumps([b.hex() for b in INVALID_UTF8])
    got = run_python(CHILD, saved, json.dumps(SENTENCES), invalid, without=["tf_wordpiece", "tensorflow_text"])
    assert got["imported"] == []
    assert got["texts"] == [text.decode("utf-8", "replace") for _, _, text in ours]
    assert got["signatures"] == {"serving_default": [["sentence"], ["output_0"]]}  # what TF Serving calls
    assert got["served"] == got["texts"][0]
    assert got["errors"]["int"].startswith(("TypeError", "ValueError")) and "TensorSpec" in got["errors"]["int"]
    assert got["errors"]["rank 1"].startswith(("TypeError", "ValueError")) and "shape=()" in got["errors"]["rank 1"]


def assert_same_outputs(ours: list[tuple], theirs: list[tuple], indices) -> None:
    for index in indices:
        (our_ids, our_tokens, our_text), (ids, tokens, text) = ours[index], theirs[index]
        assert our_ids == ids, f"encoder ids differ for {INPUTS[index][:60]!r}"
        assert our_tokens == tokens and our_text == text, f"outputs differ for {INPUTS[index][:60]!r}"


def test_the_same_weights_fed_by_tensorflow_text_give_the_same_output(trained, ours, theirs):
    assert_same_outputs(ours, theirs, range(len(SENTENCES)))
    assert len(ours[4][0]) == nmt_translator.MAX_TOKENS  # the long sentence was cut, not refused
    assert ours[3][0] == trained[0].pt.tokenize(tf.constant([""])).to_list()[0]  # "": [START] [END]
    assert all(tokens[0] == b"[START]" and 1 < len(tokens) <= MAX_LENGTH + 1 for _, tokens, _ in ours)


def test_invalid_utf8_fed_by_tensorflow_text_gives_the_same_output(ours, theirs):
    assert_same_outputs(ours, theirs, range(len(SENTENCES), len(INPUTS)))


def test_save_translator_never_replaces_a_folder_it_did_not_write(tmp_path, monkeypatch):
    module = tf.Module()
    module.v = tf.Variable(1.0)
    mine = tmp_path / "notes"
    mine.mkdir()
    (mine / "todo.txt").write_text("keep me")
    with pytest.raises(ValueError, match="is a folder that is not a SavedModel"):
        nmt_translator.save_translator(module, mine, overwrite=True)
    assert (mine / "todo.txt").read_text() == "keep me"
    saved = nmt_translator.save_translator(module, tmp_path / "model")
    with pytest.raises(FileExistsError, match="pass overwrite=True|--overwrite"):
        nmt_translator.save_translator(module, saved)
    module.v.assign(2.0)
    nmt_translator.save_translator(module, saved, overwrite=True)
    assert float(tf.saved_model.load(str(saved)).v) == 2.0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model", "notes"]  # no staging folder left
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match="current folder"):
        nmt_translator.save_translator(module, ".", overwrite=True)


def test_a_missing_saved_model_folder_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="missing does not exist"):
        nmt_translator.load_translator(tmp_path / "missing")
    with pytest.raises(FileNotFoundError, match="holds no saved_model.pb"):
        nmt_translator.load_translator(tmp_path)
    with pytest.raises(SystemExit, match="--converter: .*missing does not exist; write one with `tf-wordpiece export"):
        train_translator.load_converter(str(tmp_path / "missing"))
