"""WordPieceTokenizer(compat="keras_hub") against keras-hub 0.32's WordPieceTokenizer, both of its paths.

keras-hub runs a pure-Python path on eager calls (Python's `regex` and
`unicodedata`) and a TensorFlow path (tensorflow_text ops) in `tf.function`,
`tf.data` and `model.export`; `_allow_python_workflow=False` forces the latter.
Both are checked on the whole multilingual sample and on hard strings.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import tensorflow as tf

from helpers.child import run_python
from helpers.hard_strings import HARD_STRINGS as SHARED_HARD_STRINGS
from helpers.hard_strings import INVALID_UTF8

keras = pytest.importorskip("keras")
if not keras.__version__.startswith("3."):
    pytest.skip("the layers need Keras 3", allow_module_level=True)
keras_hub = pytest.importorskip("keras_hub")
pytest.importorskip("tensorflow_text")  # keras-hub's TensorFlow path runs on it

from tf_wordpiece.keras_layers import BertInputsPacker, WordPieceTokenizer  # noqa: E402

# The keras-hub options checked on the whole sample: (lowercase, strip_accents), keras-hub's default last.
CASES = [(True, True), (True, False), (False, True), (False, False)]
# A NUL byte ends the string for tensorflow_text's regex_split, so keras-hub's TensorFlow path drops what
# follows it; its Python path and this layer keep it (docs/deployment.md).
DROPPED_AFTER_NUL = ["a\x00b c", "x \x00y", "\x00tail"]
HARD_STRINGS = [
    "e\u0301 a\u0323\u0307 x\u0345\u0301 \u03b1\u0345\u0301",
    "ß Straße STRASSE İstanbul ıi",
    "ΣΊΣΥΦΟΣ ὈΔΥΣΣΕΎΣ ς σ",
    "ﬁnance ﬀ ﬃ ½ ① ㎏ ™",
    "ＦＵＬＬ ｗｉｄｔｈ！ ｶﾀｶﾅ",
    "한국어 가각 \u1100\u1161\u11a8 \u3131\u314f",
    "𠀀𠀁 中文字 豈 丽",
    "👨\u200d👩\u200d👧 👍🏽 🏳️\u200d🌈 #️⃣",
    "a\x01b\x1fc\u200bd\u00ade\u2060f\ufeffg",
    "a\u00a0b\u2003c\u3000d\u2028e\u0085f\u180eg\u200ah",
    "…… a…b ‥ ¿¡",
    "ǅ ǆ Ǆ ᾳ ᾼ ῼ",
    "\u0130i\u0307 Å Ω K",
    "a\U0001d16d\U0001d165 x\u1b44\u0b01\u302e",
    "\u3164 \u034f \ufe0f \u115f",
    "",
    " ",
    "\t\n",
    "a" * 120,
    "é" * 60,
    "ẞ ǰ ΐ ﬆ",
    'TensorFlow\'s "quotes" — dashes – and · dots',
    "[CLS] [MASK] ##a # ##",
    *SHARED_HARD_STRINGS,
]
NUL_STRINGS = DROPPED_AFTER_NUL + [s for s in HARD_STRINGS if "\x00" in s]
HARD_STRINGS = [s for s in HARD_STRINGS if "\x00" not in s]


def keras_hub_ids(lines, python_path: bool, **options) -> list:
    """keras-hub's ids, int lists per line, on its Python or its TensorFlow path."""
    layer = keras_hub.tokenizers.WordPieceTokenizer(_allow_python_workflow=python_path, **options)
    return as_lists(layer(lines if python_path else tf.constant(lines)))


def as_lists(out) -> list:
    """keras-hub's output (RaggedTensor, tensor, array or list of rows) as int lists."""
    if hasattr(out, "to_list"):
        return out.to_list()
    return np.asarray(out).tolist() if hasattr(out, "shape") else [np.asarray(row).tolist() for row in out]


def ours(lines, **options) -> list:
    out = WordPieceTokenizer(compat="keras_hub", **options)(tf.constant(lines))
    return out.to_list() if isinstance(out, tf.RaggedTensor) else out.numpy().tolist()


@pytest.mark.parametrize("lowercase,strip_accents", CASES)
def test_every_line_of_the_sample(vocab_tokens, multilingual, lowercase, strip_accents):
    options = dict(vocabulary=vocab_tokens, lowercase=lowercase, strip_accents=strip_accents)
    got = ours(multilingual, **options)
    assert len(got) == len(multilingual) > 20000 and sum(map(len, got)) > 200000
    for python_path in (True, False):
        want = keras_hub_ids(multilingual, python_path, **options)
        differ = [line for line, a, b in zip(multilingual, got, want) if a != b]
        assert not differ, (python_path, len(differ), differ[:3])


@pytest.mark.parametrize("lowercase,strip_accents", CASES)
def test_hard_strings(vocab_tokens, lowercase, strip_accents):
    options = dict(vocabulary=vocab_tokens, lowercase=lowercase, strip_accents=strip_accents)
    got = ours(HARD_STRINGS, **options)
    for python_path in (True, False):
        want = keras_hub_ids(HARD_STRINGS, python_path, **options)
        assert [s for s, a, b in zip(HARD_STRINGS, got, want) if a != b] == [], python_path
    assert ours(NUL_STRINGS, **options) == keras_hub_ids(NUL_STRINGS, True, **options)


@pytest.mark.xfail(
    strict=True,
    reason="keras-hub's TensorFlow path drops what follows a NUL byte (tensorflow_text's "
    "regex_split); its Python path and this layer keep it",
)
@pytest.mark.parametrize("line", DROPPED_AFTER_NUL)
def test_nul_byte_against_keras_hubs_tensorflow_path(vocab_tokens, line):
    options = dict(vocabulary=vocab_tokens, lowercase=True)
    assert ours([line], **options) == keras_hub_ids([line], False, **options)


def test_options(vocab_tokens, multilingual):
    """split_on_cjk, suffix_indicator, oov_token, sequence_length, dtype, a scalar, and split=False on words."""
    lines = multilingual[::20] + HARD_STRINGS
    at_vocab = [t.replace("##", "@@", 1) if t.startswith("##") else t for t in vocab_tokens]
    at_vocab[100] = "<unk>"
    for options in (
        dict(split_on_cjk=False, lowercase=True),
        dict(vocabulary=at_vocab, suffix_indicator="@@", oov_token="<unk>", strip_accents=True),
        dict(sequence_length=16, dtype="int64", lowercase=True),
    ):
        options = {"vocabulary": vocab_tokens, **options}
        for python_path in (True, False):
            assert ours(lines, **options) == keras_hub_ids(lines, python_path, **options), (options, python_path)
    layer = WordPieceTokenizer(vocabulary=vocab_tokens, compat="keras_hub", sequence_length=4, lowercase=True)
    assert (
        layer(tf.constant("Héllo wörld")).numpy().tolist()
        == keras_hub_ids(["Héllo wörld"], True, vocabulary=vocab_tokens, sequence_length=4, lowercase=True)[0]
    )

    words = tf.ragged.constant([["Héllo", "wörld!", "", "##ing", "#", "a b"], [], ["ÅB", "ﬁ"]])
    for options in (dict(lowercase=True), dict(strip_accents=True)):
        layer = WordPieceTokenizer(vocabulary=vocab_tokens, compat="keras_hub", split=False, **options)
        want = as_lists(
            keras_hub.tokenizers.WordPieceTokenizer(
                vocabulary=vocab_tokens, split=False, _allow_python_workflow=False, **options
            )(words)
        )
        assert layer(words).to_list() == want and len(want[0]) > 3, options
        assert layer(words.to_tensor()).to_list() == want, options  # dense words, "" padded
        one_row = layer(tf.ragged.constant([["Héllo", "wörld!"]])).to_list()[0]  # rank-1 words: one row
        assert layer(tf.constant(["Héllo", "wörld!"])).numpy().tolist() == one_row and one_row


@pytest.mark.parametrize("lowercase,strip_accents", CASES)
def test_invalid_utf8_against_keras_hubs_tensorflow_path(vocab_tokens, lowercase, strip_accents):
    """keras-hub's Python path takes str only; its TensorFlow path takes bytes."""
    options = dict(vocabulary=vocab_tokens, lowercase=lowercase, strip_accents=strip_accents)
    lines = [b for b in INVALID_UTF8 if b"\x00" not in b]
    got = WordPieceTokenizer(compat="keras_hub", **options)(tf.constant(lines)).to_list()
    want = keras_hub_ids(lines, False, **options)
    assert [s for s, a, b in zip(lines, got, want) if a != b] == []


def test_bad_arguments(vocab_tokens):
    with pytest.raises(ValueError, match=r"split, split_on_cjk: keras-hub's options .* need compat='keras_hub'"):
        WordPieceTokenizer(vocabulary=vocab_tokens, split=False)
    with pytest.raises(ValueError, match=r"special_tokens: not offered with compat='keras_hub'"):
        WordPieceTokenizer(vocabulary=vocab_tokens, compat="keras_hub", special_tokens=["[MASK]"])
    with pytest.raises(ValueError, match=r"compat: expected one of \['tf_text', 'hf', 'keras_hub'\], got 'keras'"):
        WordPieceTokenizer(vocabulary=vocab_tokens, compat="keras")
    config = WordPieceTokenizer(vocabulary=vocab_tokens, compat="keras_hub", split_on_cjk=False).get_config()
    again = WordPieceTokenizer.from_config(config)
    assert again.compat == "keras_hub" and again.split_on_cjk is False and again.split is True


def test_bert_preprocessor_exported_without_tf_wordpiece(vocab_tokens, multilingual, tmp_path):
    """keras-hub's BertTextClassifierPreprocessor rebuilt on the layers: same outputs, and its export loads bare."""
    firsts, seconds = multilingual[:150] + HARD_STRINGS[:40], multilingual[150:300] + HARD_STRINGS[:40][::-1]
    tokenizer = WordPieceTokenizer(vocabulary=vocab_tokens, lowercase=True, compat="keras_hub")
    a, b = keras.Input(shape=(), dtype="string"), keras.Input(shape=(), dtype="string")
    packer = BertInputsPacker(
        sequence_length=24,
        cls_id=tokenizer.token_to_id("[CLS]"),
        sep_id=tokenizer.token_to_id("[SEP]"),
        pad_id=tokenizer.token_to_id("[PAD]"),
    )
    model = keras.Model([a, b], packer([tokenizer(a), tokenizer(b)]))

    hub = keras_hub.models.BertTextClassifierPreprocessor(
        keras_hub.models.BertTokenizer(vocabulary=vocab_tokens, lowercase=True), sequence_length=24
    )
    want = hub(x=(tf.constant(firsts), tf.constant(seconds)))  # hub((a, b)) would read b as labels
    want = want[0] if isinstance(want, tuple) else want  # (x,) without labels
    exported = tmp_path / "preprocessor"
    model.export(str(exported), verbose=False)
    child = """
        import json
        import tensorflow as tf
        loaded = tf.saved_model.load(sys.argv[1])
        firsts, seconds = json.loads(sys.stdin.read())
        out = loaded.serve([tf.constant(firsts), tf.constant(seconds)])
        print(json.dumps({k: v.numpy().astype(int).tolist() for k, v in out.items()}))
        """
    # the export needs neither the package nor tensorflow_text
    got = run_python(
        child, exported, stdin=json.dumps([firsts, seconds]), without=["tf_wordpiece", "tensorflow_text"], cwd=tmp_path
    )
    for name in ("token_ids", "segment_ids", "padding_mask"):
        assert got[name] == np.asarray(want[name]).astype(int).tolist(), name
    assert np.asarray(want["segment_ids"]).any()
