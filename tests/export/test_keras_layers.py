"""The Keras 3 layers.

Training on strings, .keras files that carry the vocabulary, exports that need no tf_wordpiece.
"""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
import tensorflow as tf

from helpers.child import run_python
from helpers.oracles import hf_oracle

keras = pytest.importorskip("keras")
if not keras.__version__.startswith("3."):
    pytest.skip("the layers need Keras 3", allow_module_level=True)

from tf_wordpiece.bert_tokenizer.tokenizer import BertTokenizer  # noqa: E402
from tf_wordpiece.keras_layers import BertInputsPacker, WordPieceTokenizer  # noqa: E402

LINES = ["Hello TensorFlow!", "Ünïcödé straße 日本語", "", "the cat sat on the mat", "a b c d e f g h i j k l m n o"]


def small_model(vocab) -> keras.Model:
    inputs = keras.Input(shape=(), dtype="string")
    ids = WordPieceTokenizer(vocabulary=vocab, lowercase=True, sequence_length=12)(inputs)
    x = keras.layers.Embedding(30522, 4)(ids)
    x = keras.layers.GlobalAveragePooling1D()(x)
    return keras.Model(inputs, keras.layers.Dense(1, activation="sigmoid")(x))


def test_tokenizer_ids_equal_bert_tokenizer(vocab_path, multilingual):
    lines = multilingual[:2000]
    for compat in ("tf_text", "hf"):
        layer = WordPieceTokenizer(vocabulary=vocab_path, lowercase=True, compat=compat)
        want = BertTokenizer(vocab_path, lower_case=True, compat=compat).tokenize(lines).merge_dims(-2, -1)
        assert layer(tf.constant(lines)).to_list() == want.to_list(), compat
    dense = WordPieceTokenizer(vocabulary=vocab_path, lowercase=True, sequence_length=4, dtype="int64")
    out = dense(tf.constant(LINES[:2]))
    assert out.dtype == tf.int64 and out.numpy().tolist()[0] == [7592, 23435, 12314, 999]
    assert dense(tf.constant("Hello")).numpy().tolist() == [7592, 0, 0, 0]  # a scalar gives one row


def test_fit_save_move_reload_and_export_without_tf_wordpiece(vocab_path, tmp_path):
    vocab = tmp_path / "vocab.txt"
    shutil.copy(vocab_path, vocab)
    model = small_model(str(vocab))
    model.compile(optimizer="adam", loss="binary_crossentropy")
    strings = np.array(LINES * 8, dtype=object)
    labels = np.array([1.0, 0.0, 0.0, 1.0, 0.0] * 8, dtype="float32")
    history = model.fit(strings, labels, epochs=2, batch_size=8, verbose=0)
    assert np.isfinite(history.history["loss"]).all()
    want = model.predict(np.array(LINES, dtype=object), verbose=0)

    saved = tmp_path / "first" / "model.keras"
    saved.parent.mkdir()
    model.save(saved)
    vocab.unlink()  # the .keras file must carry the vocabulary, not its path
    moved = tmp_path / "moved.keras"
    shutil.move(saved, moved)
    reloaded = keras.models.load_model(moved)
    np.testing.assert_allclose(reloaded.predict(np.array(LINES, dtype=object), verbose=0), want, rtol=1e-6)
    assert len(reloaded.layers[1].get_config()["vocabulary"]) == 30522

    exported = tmp_path / "exported"
    model.export(str(exported), verbose=False)
    child = """
        import json
        import tensorflow as tf
        loaded = tf.saved_model.load(sys.argv[1])
        print(json.dumps(loaded.serve(tf.constant(json.loads(sys.argv[2]))).numpy().tolist()))
        """
    # the export must need neither the package nor tensorflow_text
    served = run_python(child, exported, json.dumps(LINES), without=["tf_wordpiece", "tensorflow_text"], cwd=tmp_path)
    np.testing.assert_allclose(served, want, rtol=1e-5)


def test_packer_matches_hugging_face_and_tensorflow_text(vocab_path, multilingual):
    text = pytest.importorskip("tensorflow_text")
    firsts, seconds = multilingual[:200], multilingual[200:400]
    tokenizer = WordPieceTokenizer(vocabulary=vocab_path, lowercase=True, compat="hf", dtype="int64")
    a, b = tokenizer(tf.constant(firsts)), tokenizer(tf.constant(seconds))

    hf = BertInputsPacker(sequence_length=16, cls_id=101, sep_id=102, template="hf")([a, b])
    oracle = hf_oracle()
    oracle.enable_truncation(16, strategy="longest_first")
    oracle.enable_padding(length=16)
    encodings = oracle.encode_batch(list(zip(firsts, seconds)))
    assert hf["token_ids"].numpy().tolist() == [e.ids for e in encodings]
    assert hf["segment_ids"].numpy().tolist() == [e.type_ids for e in encodings]
    assert hf["padding_mask"].numpy().astype(int).tolist() == [e.attention_mask for e in encodings]

    tf_text = BertInputsPacker(sequence_length=16, cls_id=101, sep_id=102)([a, b])
    trimmed = text.RoundRobinTrimmer(max_seq_length=13).trim([a, b])
    ids, types = text.combine_segments(trimmed, start_of_sequence_id=101, end_of_segment_id=102)
    want_ids, _ = text.pad_model_inputs(ids, max_seq_length=16)
    want_types, want_mask = text.pad_model_inputs(types, max_seq_length=16)
    assert tf_text["token_ids"].numpy().tolist() == want_ids.numpy().tolist()
    assert tf_text["segment_ids"].numpy().tolist() == want_types.numpy().tolist()
    assert tf_text["padding_mask"].numpy().astype(int).tolist() == want_mask.numpy().tolist()
    single = BertInputsPacker(sequence_length=5, cls_id=101, sep_id=102)(a[:1])
    assert single["token_ids"].numpy().tolist()[0][0] == 101 and single["token_ids"].numpy().tolist()[0][-1] == 102


def test_packer_in_a_saved_keras_model(vocab_path, tmp_path):
    strings = keras.Input(shape=(), dtype="string")
    pair = keras.Input(shape=(), dtype="string")
    tokenizer = WordPieceTokenizer(vocabulary=vocab_path, lowercase=True)
    packed = BertInputsPacker(sequence_length=10, cls_id=101, sep_id=102)([tokenizer(strings), tokenizer(pair)])
    model = keras.Model([strings, pair], packed)
    want = model.predict([np.array(LINES, dtype=object), np.array(LINES[::-1], dtype=object)], verbose=0)
    model.save(tmp_path / "packer.keras")
    got = keras.models.load_model(tmp_path / "packer.keras").predict(
        [np.array(LINES, dtype=object), np.array(LINES[::-1], dtype=object)], verbose=0
    )
    for name in ("token_ids", "segment_ids", "padding_mask"):
        assert np.array_equal(got[name], want[name]), name


def test_string_lookup_lines_up_with_the_vocabulary(vocab_tokens):
    """keras.layers.StringLookup adds OOV (and mask) ids in front; without them its ids are the line numbers."""
    layer = WordPieceTokenizer(vocabulary=vocab_tokens, lowercase=True)
    ids = layer(tf.constant(LINES)).to_list()
    pieces = [[vocab_tokens[i] for i in row] for row in ids]
    shifted = keras.layers.StringLookup(vocabulary=vocab_tokens)(tf.ragged.constant(pieces)).to_list()
    assert shifted[0] == [i + 1 for i in ids[0]]  # the default: one OOV id first
    options = dict(vocabulary=vocab_tokens, num_oov_indices=0, mask_token=None, oov_token="\x00not a token")
    assert keras.layers.StringLookup(**options)(tf.ragged.constant(pieces)).to_list() == ids
    inverse = keras.layers.StringLookup(invert=True, **options)(tf.ragged.constant(ids, dtype=tf.int64))
    assert [[t.decode() for t in row] for row in inverse.to_list()] == pieces


def test_bad_arguments(vocab_path):
    with pytest.raises(ValueError, match="vocabulary: WordPieceTokenizer needs one"):
        WordPieceTokenizer()
    with pytest.raises(ValueError, match=r"sequence_length: expected a positive int or None, got 0"):
        WordPieceTokenizer(vocabulary=vocab_path, sequence_length=0)
    with pytest.raises(ValueError, match=r"strip_accents: False with lowercase=True needs compat='hf'"):
        WordPieceTokenizer(vocabulary=vocab_path, lowercase=True, strip_accents=False)
    with pytest.raises(ValueError, match=r"dtype: expected 'int32' or 'int64'.*'float32'"):
        WordPieceTokenizer(vocabulary=vocab_path, dtype="float32")
    layer = WordPieceTokenizer(vocabulary=vocab_path)
    assert layer.token_to_id("[CLS]") == 101 and layer.id_to_token(102) == "[SEP]" and layer.vocabulary_size() == 30522
    with pytest.raises(ValueError, match=r"token: '\[cls\]' is not in the vocabulary \(30522 tokens\)"):
        layer.token_to_id("[cls]")
    with pytest.raises(ValueError, match=r"token_id: 30522 is outside the vocabulary \[0, 30522\)"):
        layer.id_to_token(30522)
    with pytest.raises(ValueError, match=r"template: expected one of \['tf_text', 'hf'\], got 'bert'"):
        BertInputsPacker(sequence_length=8, cls_id=101, sep_id=102, template="bert")
    with pytest.raises(ValueError, match=r"sequence_length: expected an int >= 3"):
        BertInputsPacker(sequence_length=2, cls_id=101, sep_id=102)


@pytest.mark.parametrize(
    "options, error, message",
    [
        (dict(vocabulary="missing.txt"), FileNotFoundError, "vocabulary: vocab file 'missing.txt' does not exist"),
        (
            dict(vocabulary=["a", "b"]),
            ValueError,
            r"vocabulary: the vocab list \(2 tokens\) lacks \['\[UNK\]'\]; add it "
            "or pass another oov_token$",
        ),
        (dict(vocabulary=["[UNK]", "a", "a"]), ValueError, "vocabulary: the vocab list has 1 duplicate token: 'a'"),
        (
            dict(vocabulary=["[UNK]", "a"], oov_token="[X]", compat="keras_hub"),
            ValueError,
            r"vocabulary: .*lacks \['\[X\]'\]; add it or pass another oov_token$",
        ),
    ],
    ids=["missing", "no-oov", "duplicate", "keras_hub-oov"],
)
def test_vocabulary_errors_name_the_layers_arguments(tmp_path, monkeypatch, options, error, message):
    """BertTokenizer's and the vocab reader's errors say vocabulary and oov_token, the layer's names, not theirs."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(error, match=message) as raised:
        WordPieceTokenizer(**options)
    assert "vocab:" not in str(raised.value) and "unknown_token" not in str(raised.value)


@pytest.mark.parametrize(
    "layer, value, name",
    [
        ("tokenizer", [], "inputs"),
        ("tokenizer", (), "inputs"),
        ("preprocessor", [], "x"),
        ("preprocessor", ([], ["b"]), r"x\[0\]"),
    ],
)
def test_an_empty_list_is_named_as_such(layer, value, name):
    """An empty list becomes a float32 tensor in TensorFlow: the error says the list is empty, not "pass text"."""
    from tf_wordpiece.keras_preprocessor import BertTextClassifierPreprocessor

    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "b"]
    called = {
        "tokenizer": WordPieceTokenizer(vocabulary=vocab),
        "preprocessor": BertTextClassifierPreprocessor(vocab, sequence_length=4),
    }[layer]
    with pytest.raises(ValueError, match=f"{name}: the list is empty; pass at least one string") as raised:
        called(value)
    assert "float32" not in str(raised.value)
    assert called(tf.constant([], tf.string)) is not None  # the empty batch it suggests works


def test_keras_hub_arguments_and_ids_on_ascii_text(vocab_tokens, multilingual):
    """keras-hub's WordPieceTokenizer with the same arguments gives the same ids on every ASCII line of the sample.

    Elsewhere they differ by design (keras-hub strips accents, then case-folds each word after
    splitting; tensorflow_text case-folds, then splits); compat="keras_hub" gives keras-hub's ids
    everywhere (tests/export/test_keras_hub_parity.py).
    """
    keras_hub = pytest.importorskip("keras_hub")
    pytest.importorskip("tensorflow_text")  # keras-hub's tokenizer runs on it
    lines = [line for line in multilingual if line.isascii()]
    assert len(lines) > 5000
    options = dict(
        vocabulary=vocab_tokens,
        lowercase=True,
        sequence_length=32,
        oov_token="[UNK]",
        suffix_indicator="##",
        dtype="int32",
    )
    ours = WordPieceTokenizer(**options)(tf.constant(lines)).numpy()
    assert ours.shape == (len(lines), 32) and ours.any()
    for strip_accents in (True, False):  # keras-hub's default is False; ASCII has no accents
        theirs = keras_hub.tokenizers.WordPieceTokenizer(strip_accents=strip_accents, **options)(tf.constant(lines))
        assert np.array_equal(ours, np.asarray(theirs)), strip_accents
