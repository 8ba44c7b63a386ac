"""SubwordTextEncoder(compat="tfds"): ids and text equal tfds.deprecated.text.SubwordTextEncoder's, in the graph."""

from __future__ import annotations

import os
import pathlib

import pytest
import tensorflow as tf
from hypothesis import given, settings
from hypothesis import strategies as st
from tensorflow.core.protobuf import saved_model_pb2

import tf_wordpiece as twp
from helpers.subword import decode_all, encode_all
from helpers.subword_reference import encode_text
from tf_wordpiece import subword as sl
from tf_wordpiece.export.converter import save_atomically

tfds = pytest.importorskip("tensorflow_datasets")
from tensorflow_datasets.core.deprecated.text import text_encoder as tfds_text_encoder  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
PT_EN = ROOT / "tf_wordpiece" / "data" / "pt_en_sample.tsv"
MAX_EXAMPLES = int(os.environ.get("TF_WORDPIECE_MAX_EXAMPLES", "60"))
Peer = tfds.deprecated.text.SubwordTextEncoder


@pytest.fixture(scope="module")
def peer(multilingual) -> Peer:
    """Learned by tfds itself on a slice with snake_case lines, so `\\&undsc` is a (reserved) subword."""
    return Peer.build_from_corpus(iter(multilingual[:1500]), 1000)


@pytest.fixture(scope="module")
def ours(peer, tmp_path_factory) -> twp.SubwordTextEncoder:
    """Read from the file tfds's save_to_file wrote."""
    prefix = tmp_path_factory.mktemp("tfds") / "vocab"
    peer.save_to_file(str(prefix))
    return twp.SubwordTextEncoder.load_from_file(f"{prefix}.subwords")


def longest_first(peer: Peer) -> Peer:
    """tfds tries its reserved tokens in Python set order (it varies with PYTHONHASHSEED); ours tries the
    longest first. Only the order changes: the same peer with its reserved tokens longest first."""
    fixed = Peer(vocab_list=peer.subwords)
    reserved = sorted(fixed._tokenizer.reserved_tokens, key=lambda t: (-len(t), t))
    fixed._tokenizer = tfds_text_encoder.Tokenizer(alphanum_only=False, reserved_tokens=reserved)
    return fixed


def test_loaded_the_peers_vocabulary(ours, peer):
    assert ours.compat == "tfds"
    assert ours.subtokens == peer.subwords
    assert ours.vocab_size().numpy() == peer.vocab_size
    assert sl.TFDS_UNDERSCORE in peer.subwords  # the hard case is in the vocabulary


@pytest.mark.parametrize("sample", ["multilingual", "english"])
def test_every_line_matches_tfds(ours, peer, multilingual, sample):
    """All 20,000 multilingual lines / the English side of the pt/en sample: ids and decoded text."""
    if sample == "multilingual":
        lines = multilingual
    else:
        lines = [row.split("\t")[1] for row in PT_EN.read_text(encoding="utf-8").splitlines()[1:]]
    ids = encode_all(ours, lines)
    assert ids == [peer.encode(s) for s in lines]
    decoded = decode_all(ours, ids)
    assert decoded == [peer.decode(i) for i in ids]
    # tfds round-trips every line but those where a space follows a literal "\&undsc" (none here).
    assert decoded == lines
    assert set("".join(lines)) - set("".join(peer.subwords)), "the sample should bring characters tfds never saw"


FRAGMENTS = [
    "_",
    "\\",
    "\\&undsc",
    "\\&",
    "undsc",
    " ",
    "  ",
    "a",
    "ab",
    "Z9",
    ",",
    ".\n",
    "é",
    "日本",
    "😀",
    "\t",
    "ǅ",
    "٣",
]
texts = st.lists(st.one_of(st.text(max_size=6), st.sampled_from(FRAGMENTS)), max_size=12).map("".join)


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(st.lists(texts, min_size=1, max_size=8))
def test_any_unicode_matches_tfds(ours, peer, strings):
    """Unseen characters, `_`, `\\`, runs of spaces, leading and trailing spaces, literal escapes."""
    fixed = longest_first(peer)
    ids = ours.encode(tf.constant(strings)).to_list()
    assert ids == [fixed.encode(s) for s in strings]
    decoded = [s.decode("utf-8") for s in ours.decode(tf.ragged.constant(ids, tf.int64)).numpy()]
    assert decoded == [fixed.decode(i) for i in ids]
    assert [d for s, d in zip(strings, decoded) if fixed.decode(fixed.encode(s)) == s] == [
        s for s in strings if fixed.decode(fixed.encode(s)) == s
    ]


any_id = st.tuples(st.booleans(), st.integers(0, 10**6))


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(st.lists(st.lists(any_id, max_size=12), min_size=1, max_size=6))
def test_any_ids_decode_as_tfds(peer, ours, picks):
    """Every id sequence tfds accepts, with runs of bytes that are not UTF-8 (U+FFFD, as Python's "replace")."""
    n = len(peer.subwords)
    ids = [[1 + n + k % 256 if byte else 1 + k % (peer.vocab_size - 1) for byte, k in row] for row in picks]
    got = [s.decode("utf-8") for s in ours.decode(tf.ragged.constant(ids, tf.int64)).numpy()]
    assert got == [peer.decode(row) for row in ids]


# --- what tfds does that is not a round trip, and where we choose --------------------------------------------


TINY = ["hello_", "wor", "ld", "\\&undsc", "x\\&", "<b>", "<b>c", "é", "q\\&undscq"]


@pytest.mark.parametrize(
    "text, note",
    [
        ("x \\&undsc y", "a space after a literal \\&undsc is kept and a `_` added: decodes with two spaces"),
        ("a_b", "`_` is `\\&undsc`, which always takes the byte id of `_`"),
        ("<b>cd <b>d", "reserved (mixed) subwords are split out of the text first, longest first"),
        ("x\\&undsc", "leftmost reserved token first: `x\\&` then `undsc`"),
        ("hello  world ", "two spaces are a token; a trailing single space too"),
        ("é_ ", "an unmatched trailing `_` is the byte id of a space"),
        ("q_q", "a subword holding `\\&undsc` after other characters matches, and decodes as written"),
    ],
)
def test_tiny_vocabulary_matches_tfds(text, note):
    ours = twp.SubwordTextEncoder(TINY, compat="tfds")
    fixed = longest_first(Peer(vocab_list=TINY))
    ids = ours.encode(tf.constant([text])).to_list()[0]
    assert ids == fixed.encode(text), note
    assert ours.decode(tf.constant([ids], tf.int64)).numpy()[0].decode("utf-8") == fixed.decode(ids), note


@pytest.mark.parametrize("text, decoded", [("x \\&undsc y", "x \\&undsc  y"), ("q_q", "q\\&undscq")])
def test_where_tfds_does_not_round_trip_we_do_the_same(text, decoded):
    ours = twp.SubwordTextEncoder(TINY, compat="tfds")
    peer = Peer(vocab_list=TINY)
    ids = ours.encode(tf.constant([text])).to_list()[0]
    assert ids == peer.encode(text)
    assert ours.decode(tf.constant([ids], tf.int64)).numpy()[0].decode() == peer.decode(ids) == decoded


def test_reserved_tokens_at_the_same_place_longest_first():
    """tfds's choice between two reserved tokens starting at the same character depends on Python's set
    order; ours is the longest. Shortest first (one of tfds's possible orders) differs."""
    ours = twp.SubwordTextEncoder(TINY, compat="tfds")
    shortest = Peer(vocab_list=TINY)
    shortest._tokenizer = tfds_text_encoder.Tokenizer(
        alphanum_only=False, reserved_tokens=["<b>", "<b>c", "\\&undsc", "x\\&"]
    )
    ids = ours.encode(tf.constant(["<b>cd"])).to_list()[0]
    assert ids == longest_first(shortest).encode("<b>cd") == [TINY.index("<b>c") + 1, len(TINY) + ord("d") + 1]
    assert shortest.encode("<b>cd") != ids


def test_padding_and_ids_tfds_rejects_decode_to_nothing(ours, peer):
    """tfds drops trailing padding and raises for other zeros and ids >= vocab_size; we drop them all."""
    hello = peer.encode("hello")
    padded = tf.constant([hello + [0, 0], [0] * (len(hello) + 2)], tf.int64)
    assert ours.decode(padded).numpy().tolist() == [b"hello", b""]
    assert peer.decode(hello + [0, 0]) == "hello"
    odd = [0, hello[0], -3, peer.vocab_size, *hello[1:]]
    assert ours.decode(tf.ragged.constant([odd], tf.int64)).numpy().tolist() == [b"hello"]
    with pytest.raises(ValueError):
        peer.decode(odd)


# --- invalid UTF-8 input (both modes) -------------------------------------------------------------------------


INVALID = [b"caf\xc3", b"\xff\xfe ab", b"a\xe2\x82 \xed\xa0\x80z", b"\xf0\x9f\x98"]


def test_invalid_utf8_is_read_as_u_fffd_in_both_modes(ours, peer):
    """Each maximal invalid sequence reads as U+FFFD, as Python's bytes.decode("utf-8", "replace")."""
    replaced = [b.decode("utf-8", "replace") for b in INVALID]
    assert ours.encode(tf.constant(INVALID)).to_list() == [peer.encode(s) for s in replaced]
    t2t = twp.SubwordTextEncoder.build_from_corpus(["the cat sat on the mat"] * 3, 40, verbose=False)
    ids = t2t.encode(tf.constant(INVALID))
    assert ids.to_list() == [encode_text(s, t2t.subtokens) for s in replaced]
    assert [s.decode("utf-8") for s in t2t.decode(ids).numpy()] == replaced


# --- export, files, errors --------------------------------------------------------------------------------------


def test_saved_model_has_only_core_ops(ours, peer, tmp_path):
    strings = ["Hello TensorFlow!", "snake_case \\&undsc and\nnewlines  ", "", "日本語 😀 \U0001d518"]
    path = tmp_path / "model"
    save_atomically(ours, str(path))
    loaded = tf.saved_model.load(str(path))
    ids = loaded.encode(tf.constant(strings))
    assert ids.to_list() == [peer.encode(s) for s in strings]
    assert loaded.decode(ids).numpy().tolist() == [peer.decode(i).encode("utf-8") for i in ids.to_list()]
    assert loaded.vocab_size().numpy() == peer.vocab_size
    proto = saved_model_pb2.SavedModel()
    proto.ParseFromString((path / "saved_model.pb").read_bytes())
    graph = proto.meta_graphs[0].graph_def
    ops = {n.op for n in graph.node} | {n.op for f in graph.library.function for n in f.node_def}
    ops -= {f.signature.name for f in graph.library.function}
    assert len(ops) > 20
    assert sorted(op for op in ops if not hasattr(tf.raw_ops, op)) == []


def test_store_to_file_is_read_by_tfds(ours, peer, tmp_path):
    ours.store_to_file(tmp_path / "again.subwords")
    text = (tmp_path / "again.subwords").read_text(encoding="utf-8")
    assert text.startswith("### SubwordTextEncoder\n### Metadata: {}\n'")
    assert Peer.load_from_file(str(tmp_path / "again")).subwords == peer.subwords
    assert twp.SubwordTextEncoder.load_from_file(tmp_path / "again.subwords").subtokens == peer.subwords


def test_build_from_corpus_in_tfds_mode_equals_tfds(multilingual):
    lines = multilingual[:300]
    ours = twp.SubwordTextEncoder.build_from_corpus(lines, 400, compat="tfds", verbose=False)
    peer = Peer.build_from_corpus(iter(lines), 400)
    assert ours.subtokens == peer.subwords
    assert ours.encode(tf.constant(lines[:50])).to_list() == [peer.encode(s) for s in lines[:50]]


def test_no_subwords_is_a_byte_encoder():
    ours = twp.SubwordTextEncoder([], compat="tfds")
    text = "a_b é"
    assert ours.encode(tf.constant([text])).to_list()[0] == Peer(vocab_list=[]).encode(text)
    assert ours.vocab_size().numpy() == 257


@pytest.mark.parametrize(
    "content, compat, match",
    [
        ("### SubwordTextEncoder\n'ab'\n", None, r"no '### Metadata:' line"),
        (
            "### SubwordTextEncoder\n### Metadata: {}\n'ab'\nab\n",
            None,
            r"line 4 .* not a subword in single quotes: 'ab'",
        ),
        ("### SubwordTextEncoder\n### Metadata: {}\n'ab'\n", "t2t", r"compat: 't2t', but .* in tfds's format"),
        ("'<pad>_'\n", "tfds", r"compat: 'tfds', but .* in t2t's format"),
    ],
)
def test_bad_tfds_vocab_files(tmp_path, content, compat, match):
    path = tmp_path / "vocab.subwords"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ValueError, match=match):
        twp.SubwordTextEncoder.load_from_file(path, compat=compat)


def test_a_subword_with_a_newline_cannot_be_stored_in_tfds_format(tmp_path):
    with pytest.raises(ValueError, match=r"contain a newline, which tfds's file format cannot hold"):
        twp.SubwordTextEncoder(["a\nb"], compat="tfds").store_to_file(tmp_path / "v.subwords")
