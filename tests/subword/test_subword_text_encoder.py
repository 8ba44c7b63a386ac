"""SubwordTextEncoder (tensor2tensor's invertible subwords): round trips, the Python twin, the tfds peer, bad input."""

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
from helpers.subword_reference import decode_ids, encode_text
from tf_wordpiece import subword as sl
from tf_wordpiece.export.converter import save_atomically

ROOT = pathlib.Path(__file__).resolve().parents[2]
PT_EN = ROOT / "tf_wordpiece" / "data" / "pt_en_sample.tsv"
MAX_EXAMPLES = int(os.environ.get("TF_WORDPIECE_MAX_EXAMPLES", "60"))


@pytest.fixture(scope="module")
def learned(multilingual) -> twp.SubwordTextEncoder:
    """Learned on a slice: the rest of the samples brings characters it never saw."""
    return twp.SubwordTextEncoder.build_from_corpus(multilingual[:1500], 2000, verbose=False)


def test_every_line_of_both_samples_round_trips_and_matches_the_python_twin(learned, multilingual):
    pt_en = PT_EN.read_text(encoding="utf-8").split("\n")
    unseen = set("".join(pt_en)) - learned.alphabet
    assert unseen, "the pt/en sample should bring characters the vocabulary never saw"
    for lines in (multilingual, pt_en):
        ids = encode_all(learned, lines)
        assert decode_all(learned, ids) == lines
        assert ids == [encode_text(line, learned.subtokens) for line in lines]


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(st.lists(st.text(max_size=40), min_size=1, max_size=8))
def test_any_unicode_round_trips(learned, strings):
    ids = learned.encode(tf.constant(strings))
    assert [s.decode("utf-8") for s in learned.decode(ids).numpy()] == strings
    assert ids.to_list() == [encode_text(s, learned.subtokens) for s in strings]
    assert all(decode_ids(encode_text(s, learned.subtokens), learned.subtokens) == s for s in strings)


@pytest.mark.parametrize(
    "text, tokens",
    [
        ("", []),
        ("a b", ["a", "b"]),  # the space between two alphanumeric tokens is implied
        ("a  b", ["a", "  ", "b"]),
        (" a ", [" ", "a", " "]),  # first and last single spaces are kept
        ("x, y", ["x", ", ", "y"]),
        ("٣ apples", ["٣", "apples"]),  # Nd is alphanumeric
    ],
)
def test_t2t_tokens(text, tokens):
    assert sl.split_text(text) == tokens
    assert sl.join_tokens(tokens) == text


@pytest.mark.parametrize(
    "token, escaped",
    [
        ("ab", "ab_"),
        ("a_b", "a\\ub_"),
        ("a\\b", "a\\\\b_"),
        ("a\nb", "a\\10;b_"),  # newline is always escaped
        ("aé", "a\\233;_"),  # outside the alphabet
        ("\\u", "\\\\u_"),
        ("😀", "\\128512;_"),
    ],
)
def test_escapes(token, escaped):
    alphabet = sl.alphabet_of(["ab\n"])
    assert sl.escape_token(token, alphabet) == escaped
    assert sl.unescape_token(escaped) == token


def test_graph_unescape_edge_cases(learned):
    """Hand-made ids: stray backslashes and numbers past U+10FFFF decode as tensor2tensor's regex does."""
    ids = {s: i for i, s in enumerate(learned.subtokens)}
    for escaped in ["\\9999999;_", "\\;_", "\\12_", "\\\\u_", "\\0065;_", "\\1114111;\\1114112;_"]:
        token_ids = [ids[c] for c in escaped]
        got = learned.decode(tf.constant([token_ids], tf.int64)).numpy()[0].decode("utf-8")
        assert got == decode_ids(token_ids, learned.subtokens), escaped
    out_of_range = tf.constant([[ids["a"], -1, len(learned.subtokens), ids["b"]]], tf.int64)
    assert learned.decode(out_of_range).numpy().tolist() == [b"ab"]  # unknown ids decode to nothing, as in t2t


def test_store_and_load_round_trip(learned, tmp_path):
    path = tmp_path / "vocab.subwords"
    learned.store_to_file(path)
    lines = path.read_text(encoding="utf-8").split("\n")
    assert lines[0] == "'<pad>_'" and lines[1] == "'<EOS>_'" and lines[-1] == ""
    loaded = twp.SubwordTextEncoder.load_from_file(path)
    assert loaded.subtokens == learned.subtokens
    assert loaded.vocab_size().numpy() == len(learned.subtokens)
    assert list(tmp_path.iterdir()) == [path]  # written aside, then renamed: no leftovers


def test_reads_tensor2tensor_variants(tmp_path):
    """Double quotes or none, trailing whitespace stripped, as tensor2tensor's load_from_file."""
    path = tmp_path / "vocab"
    alphabet = sorted(sl.alphabet_of(["<pad>_<EOS>_ab"]))
    path.write_text('"<pad>_"\n<EOS>_  \n' + "".join(f"'{c}'\n" for c in alphabet) + "ab_\n", encoding="utf-8")
    enc = twp.SubwordTextEncoder(path)
    assert enc.subtokens[:2] == ["<pad>_", "<EOS>_"] and enc.subtokens[-1] == "ab_"
    assert enc.encode(tf.constant(["ab"])).to_list() == [[len(enc.subtokens) - 1]]


def test_saved_model_has_only_core_ops(learned, tmp_path):
    strings = ["Hello TensorFlow!", "snake_case \\ and\nnewlines", "", "日本語 😀"]
    path = tmp_path / "model"
    save_atomically(learned, str(path))
    loaded = tf.saved_model.load(str(path))
    ids = loaded.encode(tf.constant(strings))
    assert ids.to_list() == learned.encode(tf.constant(strings)).to_list()
    assert loaded.decode(ids).numpy().tolist() == [s.encode("utf-8") for s in strings]
    assert loaded.vocab_size().numpy() == len(learned.subtokens)
    proto = saved_model_pb2.SavedModel()
    proto.ParseFromString((path / "saved_model.pb").read_bytes())
    graph = proto.meta_graphs[0].graph_def
    ops = {n.op for n in graph.node} | {n.op for f in graph.library.function for n in f.node_def}
    ops -= {f.signature.name for f in graph.library.function}
    assert len(ops) > 20  # the check looked at a real graph
    assert sorted(op for op in ops if not hasattr(tf.raw_ops, op)) == []


def test_encoder_does_not_import_tensorflow_text():
    source = (ROOT / "tf_wordpiece" / "subword" / "encoder.py").read_text() + (
        ROOT / "tf_wordpiece" / "subword" / "learner.py"
    ).read_text()
    assert "tensorflow_text" not in source and "tensorflow_datasets" not in source


# --- the peer: tfds.deprecated.text.SubwordTextEncoder ------------------------------------------------


@pytest.fixture(scope="module")
def tfds_text():
    tfds = pytest.importorskip("tensorflow_datasets")
    return tfds.deprecated.text


@pytest.fixture(scope="module")
def tfds_peer(tfds_text, multilingual):
    """A vocabulary learned by tfds itself, on lines that include snake_case (so `\\&undsc` is a subword)."""
    return tfds_text.SubwordTextEncoder.build_from_corpus(iter(multilingual[:1000]), 600)


def test_tfds_compat_learns_the_same_subwords_as_tfds(tfds_peer, multilingual):
    ours = sl.build_to_target_size(
        sl.corpus_token_counts(multilingual[:1000], compat="tfds"), 600, compat="tfds", verbose=False
    )
    assert ours == tfds_peer.subwords
    assert 1 + len(ours) + sl.NUM_BYTES == tfds_peer.vocab_size


@pytest.mark.parametrize("text", ["Hello world, a_b", "x \\&undsc y", "a  b", "<EOS> z", "tab\there"])
def test_tfds_tokens_are_tfds_token_counts(tfds_text, text):
    from tensorflow_datasets.core.deprecated.text import subword_text_encoder as peer

    expected = peer._token_counts_from_generator([text], max_chars=None, reserved_tokens=["<EOS>"])
    assert sl.corpus_token_counts([text], compat="tfds", reserved_tokens=["<EOS>"]) == expected


def test_intended_difference_unseen_characters(tfds_text, learned):
    """t2t writes an unseen character as `\\<code point>;` subtokens; tfds as UTF-8 byte ids after its subwords."""
    text = "\U0001d518"  # 𝔘
    assert text not in learned.alphabet
    ours = learned.encode(tf.constant([text])).to_list()[0]
    assert "".join(learned.subtokens[i] for i in ours) == "\\120088;_"
    peer = tfds_text.SubwordTextEncoder(vocab_list=["ab"])
    assert peer.encode(text) == [1 + 1 + b for b in text.encode("utf-8")]  # padding, one subword, then bytes
    assert peer.decode(peer.encode(text)) == learned.decode(tf.constant([ours], tf.int64)).numpy()[0].decode() == text


def test_intended_difference_underscore_and_spaces(tfds_text):
    """t2t: every token ends in `_`, `_` is `\\u`; tfds: `_` only before a single space, `_` is `\\&undsc`."""
    assert [sl.escape_token(t, sl.alphabet_of(["ab"])) for t in sl.split_text("a_b b")] == ["a_", "\\u_", "b_", "b_"]
    assert sl.tfds_tokens("a_b b") == ["a\\&undscb_", "b"]
    peer = tfds_text.SubwordTextEncoder(vocab_list=["a", "b"])
    assert peer.encode("a_b") == [1, 1 + 2 + ord("_"), 2]  # `_` falls back to its byte id


def test_intended_difference_max_subtoken_length(multilingual):
    """t2t counts substrings shorter than max_subtoken_length (its off-by-one); tfds up to it."""
    counts = sl.corpus_token_counts(multilingual[:300])
    t2t = sl.build_from_token_counts(counts, 3, max_subtoken_length=4)
    assert max(len(s) for s in t2t[2:]) == 3
    tfds_counts = sl.corpus_token_counts(multilingual[:300], compat="tfds")
    assert max(len(s) for s in sl.build_from_token_counts(tfds_counts, 3, compat="tfds", max_subtoken_length=4)) == 4


# --- bad input -----------------------------------------------------------------------------------------


def test_target_size_below_the_minimum(multilingual):
    """Below the alphabet still builds (tests/test_subword_small_targets.py); tfds's fixed minimum, 258, does not."""
    counts = sl.corpus_token_counts(multilingual[:200])
    with pytest.raises(ValueError, match=r"target_size: expected a positive int, got 0"):
        sl.build_to_target_size(counts, 0, verbose=False)
    with pytest.raises(ValueError, match=r"target_size: expected an int >= 258 .* got 257"):
        sl.build_to_target_size(
            sl.corpus_token_counts(multilingual[:200], compat="tfds"), 257, compat="tfds", verbose=False
        )


@pytest.mark.parametrize(
    "write, error, match",
    [
        (None, FileNotFoundError, r"vocab: the vocab file '.*vocab' does not exist; pass a file written by"),
        ("folder", ValueError, r"cannot read the vocab file .*Is a directory"),
        (
            b"'<pad>_'\n'\xff'\n",
            ValueError,
            r"vocab is not UTF-8 text: line 2 holds the byte 0xff at byte offset 1; convert",
        ),
        (b"\n\n", ValueError, r"has no subtokens"),
        ("'<pad>_'\n'<EOS>_'\n'ab_'\n".encode(), ValueError, r"malformed: .* not subtokens on their own"),
    ],
)
def test_bad_vocab_files(tmp_path, write, error, match):
    path = tmp_path / "vocab"
    if write == "folder":
        path.mkdir()
    elif write is not None:
        path.write_bytes(write)
    with pytest.raises(error, match=match):
        twp.SubwordTextEncoder.load_from_file(path)


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: twp.SubwordTextEncoder([]), ValueError, "subtokens: empty"),
        (lambda: twp.SubwordTextEncoder(b"vocab"), TypeError, "subtokens: expected a list"),
        (lambda: twp.SubwordTextEncoder(["a", 3]), TypeError, "every subtoken must be a str"),
        (lambda: sl.build_to_target_size({}, 100), ValueError, "token_counts: empty"),
        (lambda: sl.build_to_target_size({"a": 1}, 100, reserved_tokens=["<EOS>"]), ValueError, "must start with"),
        (
            lambda: sl.build_to_target_size({"a": 1}, 300, compat="tfds", reserved_tokens=["EOS"]),
            ValueError,
            "must mix",
        ),
        (lambda: sl.corpus_token_counts(["a"], compat="t2t2"), ValueError, "compat: expected one of"),
        (lambda: sl.build_to_target_size({"a": 1}, 100, min_val=5, max_val=2), ValueError, "min_val: 5 is greater"),
    ],
)
def test_bad_arguments(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_encode_rejects_ids_and_decode_rejects_strings(learned):
    with pytest.raises(TypeError, match="strings: expected a tf.string tensor"):
        learned.encode(tf.constant([1, 2]))
    with pytest.raises(TypeError, match="ids: expected integer ids"):
        learned.decode(tf.constant([["a"]]))


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(
    st.dictionaries(
        st.one_of(st.text(max_size=8), st.text(alphabet="ab\x00", min_size=60, max_size=70)),
        st.integers(1, 10**6),
        max_size=20,
    )
)
def test_prefix_counts_equal_the_plain_loop(weights):
    """The NumPy prefix counting (exact per length; U+0000 and prefixes past 64 characters in Python)."""
    expected: dict[str, int] = {}
    for key, weight in weights.items():
        for end in range(1, len(key) + 1):
            expected[key[:end]] = expected.get(key[:end], 0) + weight
    assert dict(sl.prefix_counts(weights)) == expected
    no_nul = {k.replace("\x00", "c"): w for k, w in weights.items()}
    assert sum(sl.prefix_counts(no_nul).values()) == sum(len(k) * w for k, w in no_nul.items())


# --- scalars and Python lists at encode / decode (issue 18, fault 9) ------------------------------------------

SCALAR_LINES = ["hello world", "the world is a hello", "hello, world!"] * 4


@pytest.fixture(scope="module", params=["t2t", "tfds"])
def encoder(request):
    target = 60 if request.param == "t2t" else 300  # tfds: at least padding and the 256 bytes
    return twp.SubwordTextEncoder.build_from_corpus(SCALAR_LINES, target, compat=request.param, verbose=False)


@pytest.mark.parametrize("line", ["hello world", "", "hello, worlds! \u00e9_x"])
def test_subword_scalar_encode_is_a_list_of_ids(encoder, line):
    ids = encoder.encode(line)
    assert ids.shape.rank == 1 and ids.dtype == tf.int64
    assert ids.numpy().tolist() == encoder.encode(tf.constant([line])).to_list()[0]
    assert encoder.encode([line]).to_list() == [ids.numpy().tolist()]  # a Python list is a batch
    assert encoder.decode(ids).numpy().decode() == line  # 1-D ids -> a scalar string
    assert encoder.decode(ids.numpy().tolist()).numpy().decode() == line  # a Python list of int too
    assert encoder.decode([ids.numpy().tolist()]).numpy().tolist() == [line.encode()]


def test_subword_scalar_matches_tfds():
    tfds = pytest.importorskip("tensorflow_datasets")
    ours = twp.SubwordTextEncoder.build_from_corpus(SCALAR_LINES, 300, compat="tfds", verbose=False)
    peer = tfds.deprecated.text.SubwordTextEncoder(vocab_list=ours.subtokens)
    for line in ["hello world", "hello, worlds!", "zz_top"]:
        assert ours.encode(line).numpy().tolist() == peer.encode(line)
        assert ours.decode(peer.encode(line)).numpy().decode() == peer.decode(peer.encode(line))


def test_subword_python_inputs_do_not_retrace(encoder):
    encode_fn = encoder.encode.__dict__["__call__"]
    decode_fn = encoder.decode.__dict__["__call__"]
    encoder.encode("warm up")
    encoder.encode(["warm", "up"])
    encoder.decode([1, 2])
    traces = encode_fn.experimental_get_tracing_count(), decode_fn.experimental_get_tracing_count()
    for line in ["a", "bb", "hello there", "x y z"]:
        encoder.decode(encoder.encode(line).numpy().tolist())
        encoder.decode(encoder.encode([line, line + "!", ""]))
    assert (encode_fn.experimental_get_tracing_count(), decode_fn.experimental_get_tracing_count()) == traces


def test_subword_scalars_in_graphs_and_saved_model(encoder, tmp_path):
    want = [encoder.encode(line).numpy().tolist() for line in SCALAR_LINES[:3]]
    graph = tf.function(lambda s: encoder.encode(s))
    assert [graph(tf.constant(line)).numpy().tolist() for line in SCALAR_LINES[:3]] == want
    dataset = tf.data.Dataset.from_tensor_slices(SCALAR_LINES[:3]).map(encoder.encode)
    assert [t.numpy().tolist() for t in dataset] == want
    decoded = tf.data.Dataset.from_tensor_slices(SCALAR_LINES[:3]).map(lambda s: encoder.decode(encoder.encode(s)))
    assert [t.numpy().decode() for t in decoded] == SCALAR_LINES[:3]
    tf.saved_model.save(encoder, str(tmp_path / "enc"))
    loaded = tf.saved_model.load(str(tmp_path / "enc"))
    assert [loaded.encode(tf.constant(line)).numpy().tolist() for line in SCALAR_LINES[:3]] == want
    assert loaded.decode(tf.constant(want[0], tf.int64)).numpy().decode() == SCALAR_LINES[0]
    assert loaded.encode(tf.constant(SCALAR_LINES[:3])).to_list() == want


def test_subword_bad_ranks(encoder):
    with pytest.raises(ValueError, match=r"strings: expected a string or a \[batch\] vector"):
        encoder.encode([["a"]])
    with pytest.raises(ValueError, match=r"ids: expected int \[ids\] or \[batch, ids\]"):
        encoder.decode(tf.zeros([1, 1, 1], tf.int64))
    with pytest.raises(TypeError, match="ids: expected integer ids"):
        encoder.decode(["a"])
