"""The normalization stage (tf_wordpiece.bert.normalizers, on tf_wordpiece.unicode.normalization's tables).

Each row: a normalizer (one of tensorflow_text's or Hugging Face's), a text, what it becomes. The same rows
check `Normalizer.apply` (Python), the graph's `Normalizer.normalize` (plus canonical composition for NFC
and NFKC) and the peer itself (tensorflow_text's ops as its BasicTokenizer runs them; tokenizers'
BertNormalizer), so the expected values are the peers' facts, not ours.
"""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

from tf_wordpiece.bert import normalizers
from tf_wordpiece.bert.composition import Composer
from tf_wordpiece.unicode import tables as ut

# name -> (peer, options)
NORMALIZERS = {
    "tf-lower": ("tf_text", dict(lower_case=True, normalization_form=None)),
    "tf-plain": ("tf_text", dict(lower_case=False, normalization_form=None)),
    "tf-NFD": ("tf_text", dict(lower_case=False, normalization_form="NFD")),
    "tf-NFKD": ("tf_text", dict(lower_case=False, normalization_form="NFKD")),
    "tf-NFC": ("tf_text", dict(lower_case=False, normalization_form="NFC")),
    "tf-NFKC": ("tf_text", dict(lower_case=False, normalization_form="NFKC")),
    "hf-uncased": ("hf", dict(clean_text=True, strip_accents=True, lowercase=True)),
    "hf-lower-keep-accents": ("hf", dict(clean_text=True, strip_accents=False, lowercase=True)),
    "hf-clean": ("hf", dict(clean_text=True, strip_accents=False, lowercase=False)),
    "hf-strip-only": ("hf", dict(clean_text=False, strip_accents=True, lowercase=False)),
    "hf-nothing": ("hf", dict(clean_text=False, strip_accents=False, lowercase=False)),
}

# (normalizer, what the row shows, text, normalized text)
ROWS = [
    # Case folding: NFKC_Casefold (tensorflow_text) against per-character lowercase (Hugging Face).
    ("tf-lower", "accents", "H\xe9llo", "hello"),
    ("tf-lower", "eszett", "STRASSE stra\xdfe", "strasse strasse"),  # case folding expands ß
    ("tf-lower", "dotted-I", "\u0130stanbul", "istanbul"),  # İ folds to i + U+0307, then the mark goes
    ("tf-lower", "final-sigma", "\u039f\u0394\u039f\u03a3 \u03a3 \u03c2", "\u03bf\u03b4\u03bf\u03c3 \u03c3 \u03c3"),
    ("tf-lower", "ligatures", "\ufb01 \ufb00", "fi ff"),
    ("tf-lower", "compatibility", "\u216b \xbd \u01c5", "xii 1\u20442 dz"),
    ("tf-lower", "hangul", "\ud55c\uad6d", "\u1112\u1161\u11ab\u1100\u116e\u11a8"),  # NFD: syllables to jamo
    ("tf-lower", "controls", "a\x00b\x07c\x7f", "a b c "),  # \p{Cc} becomes a space
    ("tf-lower", "ignorables", "x\u200by\u200dz\ufeff", "xyz"),  # NFKC_Casefold drops them before \p{Cf}
    ("tf-lower", "white-space", "a\tb\xa0c\u3000d\n", "a b c d "),
    ("tf-lower", "replacement-character", "\ufffd", "\ufffd"),
    ("tf-lower", "signs", "\u212a \u2126", "k \u03c9"),  # Kelvin and Ohm signs
    ("tf-lower", "empty", "", ""),
    ("tf-plain", "accents-kept", "H\xe9llo", "H\xe9llo"),
    ("tf-plain", "eszett-kept", "stra\xdfe", "stra\xdfe"),
    ("tf-plain", "format-to-space", "x\u200by\u200dz\ufeff", "x y z "),  # \p{Cf} becomes a space
    ("tf-plain", "white-space-kept", "a\tb\xa0c\u3000d", "a b\xa0c\u3000d"),  # only \t is \p{Cc}
    ("tf-NFD", "decomposed", "H\xe9llo \u0130", "He\u0301llo I\u0307"),
    ("tf-NFD", "hangul", "\ud55c", "\u1112\u1161\u11ab"),
    ("tf-NFD", "ligatures-kept", "\ufb01", "\ufb01"),
    ("tf-NFD", "signs", "\u212a \u2126", "K \u03a9"),  # canonical singletons
    ("tf-NFKD", "ligatures", "\ufb01 \ufb00", "fi ff"),
    ("tf-NFKD", "compatibility", "\u216b \xbd \u01c5", "XII 1\u20442 Dz\u030c"),
    ("tf-NFKD", "white-space", "a\xa0c\u3000d", "a c d"),
    ("tf-NFC", "composed", "e\u0301 \u1100\u1161\u11a8", "\xe9 \uac01"),  # across code points, Hangul too
    ("tf-NFC", "reordered", "a\u0307\u0323", "\u1ea1\u0307"),  # canonical order first, then composition
    ("tf-NFC", "signs", "\u212a \u2126", "K \u03a9"),
    ("tf-NFC", "ligatures-kept", "\ufb01\u0301", "\ufb01\u0301"),
    ("tf-NFKC", "compatibility", "\ufb01 \u216b \u01c5", "fi XII D\u017e"),
    ("tf-NFKC", "composed", "A\u030a", "\xc5"),
    ("hf-uncased", "accents", "H\xe9llo", "hello"),
    ("hf-uncased", "eszett-kept", "STRASSE stra\xdfe", "strasse stra\xdfe"),  # per-character lowercase
    ("hf-uncased", "dotted-I", "\u0130stanbul", "istanbul"),
    ("hf-uncased", "final-sigma", "\u039f\u0394\u039f\u03a3 \u03a3 \u03c2", "\u03bf\u03b4\u03bf\u03c3 \u03c3 \u03c2"),
    ("hf-uncased", "ligatures-kept", "\ufb01 \ufb00", "\ufb01 \ufb00"),
    ("hf-uncased", "compatibility-kept", "\u216b \xbd \u01c5", "\u217b \xbd \u01c6"),
    ("hf-uncased", "hangul", "\ud55c", "\u1112\u1161\u11ab"),  # strip_accents is NFD, then Mn dropped
    ("hf-uncased", "controls-deleted", "a\x00b\x07c\x7f", "abc"),
    ("hf-uncased", "format-deleted", "x\u200by\u200dz\ufeff", "xyz"),
    ("hf-uncased", "white-space", "a\tb\xa0c\u3000d\n", "a b c d "),
    ("hf-uncased", "replacement-character-deleted", "x\ufffdy", "xy"),
    ("hf-uncased", "cjk-unchanged", "\u4e2d\u6587", "\u4e2d\u6587"),  # the spaces around it are the pre-tokenizer's
    ("hf-uncased", "signs", "\u212a \u2126", "k \u03c9"),
    ("hf-lower-keep-accents", "accents", "H\xe9llo e\u0301", "h\xe9llo e\u0301"),
    ("hf-lower-keep-accents", "dotted-I", "\u0130stanbul", "i\u0307stanbul"),  # Rust's to_lowercase
    ("hf-lower-keep-accents", "hangul-kept", "\ud55c", "\ud55c"),
    ("hf-clean", "case-kept", "H\xe9llo \u0130", "H\xe9llo \u0130"),
    ("hf-clean", "controls-deleted", "a\x00b\x07c", "abc"),
    ("hf-strip-only", "accents", "H\xe9llo \u0130", "Hello I"),
    ("hf-strip-only", "controls-kept", "a\x00b\tc", "a\x00b\tc"),
    ("hf-nothing", "identity", "H\xe9llo\x00\t\ufffd\u200b \u0130", "H\xe9llo\x00\t\ufffd\u200b \u0130"),
]
ROW_IDS = [f"{name}:{what}" for name, what, _, _ in ROWS]


def normalizer(name: str) -> normalizers.Normalizer:
    peer, options = NORMALIZERS[name]
    factory = normalizers.tf_text_normalizer if peer == "tf_text" else normalizers.hf_normalizer
    return factory(**options)


def graph_normalize(norm: normalizers.Normalizer, text: str) -> str:
    """`text` through the graph's `normalize` (and `Composer` for NFC / NFKC), one string."""
    code_points = np.array([ord(c) for c in text], np.int32)
    row = norm.table.dense_rows[code_points]
    normalized, _, _ = norm.normalize(tf.constant(code_points), tf.constant(row, tf.int32))
    if norm.compose:
        normalized, _, _ = Composer()(normalized, tf.zeros_like(normalized))
    return "".join(map(chr, normalized.numpy().tolist()))


def peer_normalize(name: str, text: str) -> str:
    peer, options = NORMALIZERS[name]
    if peer == "hf":
        normalizers_ = pytest.importorskip("tokenizers.normalizers")
        return normalizers_.BertNormalizer(handle_chinese_chars=False, **options).normalize_str(text)
    tf_text = pytest.importorskip("tensorflow_text")
    # tensorflow_text.BasicTokenizer.tokenize_with_offsets, up to its split (python/ops/bert_tokenizer.py).
    strings = tf.constant([text])
    if options["lower_case"]:
        strings = tf_text.normalize_utf8(tf_text.case_fold_utf8(strings), "NFD")
        strings = tf.strings.regex_replace(strings, r"\p{Mn}", "")
    elif options["normalization_form"]:
        strings = tf_text.normalize_utf8(strings, options["normalization_form"])
    return tf.strings.regex_replace(strings, r"\p{Cc}|\p{Cf}", " ").numpy()[0].decode("utf-8")


@pytest.mark.parametrize("name, what, text, expected", ROWS, ids=ROW_IDS)
def test_apply(name, what, text, expected):
    assert normalizer(name).apply(text) == expected


@pytest.mark.parametrize("name, what, text, expected", ROWS, ids=ROW_IDS)
def test_graph_normalize_equals_apply(name, what, text, expected):
    assert graph_normalize(normalizer(name), text) == expected


@pytest.mark.parametrize("name, what, text, expected", ROWS, ids=ROW_IDS)
def test_rows_are_the_peers(name, what, text, expected):
    assert peer_normalize(name, text) == expected


# NFKC_Casefold's longest expansion (ARABIC LIGATURE SALLALLAHOU ALAYHE WASALLAM).
FDFA = "\u0635\u0644\u0649 \u0627\u0644\u0644\u0647 \u0639\u0644\u064a\u0647 \u0648\u0633\u0644\u0645"


@pytest.mark.parametrize(
    "name, code_points, normalized, source",
    [
        ("tf-lower", "ab", "ab", [0, 1]),  # one to one: the source is the identity
        ("tf-lower", "\xdfa", "ssa", [0, 0, 1]),  # an expansion: both s come from ß
        ("hf-uncased", "a\x00b", "ab", [0, 2]),  # a deletion
        ("tf-lower", "\ufdfa", FDFA, [0] * 18),  # U+FDFA: 18 code points from one
        ("tf-lower", [-1, ord("A"), -3], [-1, ord("a"), -3], [0, 1, 2]),  # added-token markers stay
    ],
    ids=["identity", "expansion", "deletion", "long-expansion", "markers"],
)
def test_normalize_source_and_one_to_one(name, code_points, normalized, source):
    norm = normalizer(name)
    cps = [ord(c) for c in code_points] if isinstance(code_points, str) else code_points
    rows = [0 if cp < 0 else int(norm.table.dense_rows[cp]) for cp in cps]
    got, got_source, one_to_one = norm.normalize(tf.constant(cps, tf.int32), tf.constant(rows, tf.int32))
    want = [ord(c) for c in normalized] if isinstance(normalized, str) else normalized
    assert got.numpy().tolist() == want
    assert got_source.numpy().tolist() == source
    assert bool(one_to_one) == (source == list(range(len(cps))))


def test_normalize_in_a_graph_equals_eager():
    norm = normalizer("tf-lower")
    cps = [ord(c) for c in "Stra\xdfe \u0130 \ufb01"]
    rows = tf.constant(norm.table.dense_rows[np.array(cps)], tf.int32)
    eager = norm.normalize(tf.constant(cps, tf.int32), rows)
    spec = [tf.TensorSpec([None], tf.int32)] * 2
    graph = tf.function(norm.normalize, input_signature=spec)(tf.constant(cps, tf.int32), rows)
    assert [t.numpy().tolist() for t in graph] == [t.numpy().tolist() for t in eager]


@pytest.mark.parametrize("name", list(NORMALIZERS))
def test_invalid_utf8_marker_passes_unchanged(name):
    """The basic tokenizer reads invalid UTF-8 as `ut.INVALID_UTF8` (a lone surrogate): no table touches it."""
    assert normalizer(name).table.dense_rows[ut.INVALID_UTF8] == 0


@pytest.mark.parametrize(
    "name, deleted", [("tf-lower", False), ("tf-plain", False), ("hf-uncased", True), ("hf-nothing", False)]
)
def test_replacement_character_is_deleted_by_hf_clean_text_only(name, deleted):
    """compat="hf" reads invalid UTF-8 as U+FFFD, which its clean_text deletes (tokenizers' rule)."""
    assert normalizer(name).apply("a\ufffdb") == ("ab" if deleted else "a\ufffdb")


@pytest.mark.parametrize("name", list(NORMALIZERS))
def test_compose_only_for_nfc_and_nfkc(name):
    assert normalizer(name).compose == (name in ("tf-NFC", "tf-NFKC"))


def test_normalizers_with_the_same_options_are_shared():
    assert normalizer("tf-lower") is normalizer("tf-lower")
    assert normalizer("hf-uncased") is normalizer("hf-uncased")
    assert normalizer("hf-uncased") is not normalizer("hf-clean")
