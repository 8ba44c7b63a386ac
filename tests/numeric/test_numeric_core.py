"""BertTokenizer(core="numeric" | "xla"): the integer pipeline gives the string path's ids and byte offsets.

Checked against `core="string"` (the default path, itself tested against the
peers) in the four default configurations (compat tf_text / hf, lower_case
True / False): on the whole multilingual sample (slow), on a few hundred lines
with the hard strings and invalid UTF-8 under XLA, on fuzzed text, and on a
table of tiny vocabularies and input shapes; against the peers directly
(tensorflow_text ids, Hugging Face tokenizers ids and offsets) under XLA; the
tokenizer contract (tf.function, tf.data, SavedModel); only core ops in an
exported XLA tokenizer; and a ValueError naming every option the core does
not take.
"""

from __future__ import annotations

import functools

import pytest
import tensorflow as tf
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import tf_wordpiece as twp
from helpers.contract import check_contract
from helpers.data import VOCAB
from helpers.oracles import hf_oracle
from helpers.ragged import batches, rows
from tf_wordpiece.bert.added_tokens import AddedToken

CONFIGS = [
    pytest.param("tf_text", True, id="tf_text-uncased"),
    pytest.param("tf_text", False, id="tf_text-cased"),
    pytest.param("hf", True, id="hf-uncased"),
    pytest.param("hf", False, id="hf-cased"),
]
# Under XLA every configuration compiles its own pipeline (3-5 s each): the cased ones are in the slow set.
XLA_CONFIGS = [p if p.values[1] else pytest.param(*p.values, id=p.id, marks=pytest.mark.slow) for p in CONFIGS]
CASES = [pytest.param(True, id="uncased"), pytest.param(False, id="cased", marks=pytest.mark.slow)]
XLA_SAMPLE_LINES = 300  # one batch per configuration under XLA: one compilation each


@functools.cache
def bert(compat: str, lower_case: bool, core: str) -> twp.BertTokenizer:
    """bert-base-uncased's vocabulary, default options (built once per module: ~0.5 s each)."""
    return twp.BertTokenizer(str(VOCAB), compat=compat, lower_case=lower_case, core=core)


def per_string(tokenizer, batch) -> list[tuple]:
    """tokenize_with_offsets of a batch -> per string ((piece counts, ids), (.., begin), (.., end))."""
    return list(zip(*(rows(t) for t in tokenizer.tokenize_with_offsets(tf.constant(batch, tf.string)))))


def differences(got: list, want: list, inputs: list) -> list:
    assert len(got) == len(want) == len(inputs)
    return [(s, g, w) for s, g, w in zip(inputs, got, want) if g != w]


def as_bytes(strings) -> list[bytes]:
    return [s if isinstance(s, bytes) else s.encode("utf-8") for s in strings]


# --- the string path on real text -------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("compat, lower_case", CONFIGS)
def test_numeric_equals_string_on_the_whole_sample(compat, lower_case, multilingual, hard_strings, invalid_utf8):
    numeric, string = bert(compat, lower_case, "numeric"), bert(compat, lower_case, "string")
    inputs = as_bytes(multilingual + hard_strings) + invalid_utf8
    bad = []
    for batch in batches(inputs, 500):  # one call on all 20k lines is slower than 40 of 500
        bad += differences(per_string(numeric, batch), per_string(string, batch), batch)
    assert not bad, f"{len(bad)} of {len(inputs)} differ; first (input, numeric, string): {bad[:3]}"


@pytest.fixture(scope="module")
def xla_sample(multilingual, hard_strings, invalid_utf8) -> list[bytes]:
    return as_bytes(multilingual[:XLA_SAMPLE_LINES] + hard_strings) + invalid_utf8


@functools.cache
def xla_outputs(compat: str, lower_case: bool, sample: tuple[bytes, ...]) -> list[tuple]:
    """core="xla" on the sample, once per configuration (both the string-path and the peer tests read it)."""
    return per_string(bert(compat, lower_case, "xla"), list(sample))


@pytest.mark.parametrize("compat, lower_case", XLA_CONFIGS)
def test_xla_equals_string_on_sample_hard_strings_and_invalid_utf8(compat, lower_case, xla_sample):
    got = xla_outputs(compat, lower_case, tuple(xla_sample))
    bad = differences(got, per_string(bert(compat, lower_case, "string"), xla_sample), xla_sample)
    assert not bad, f"{len(bad)} of {len(xla_sample)} differ; first (input, xla, string): {bad[:3]}"


# --- the peers directly -----------------------------------------------------------------------------------


def _byte_offsets(s: str, char_offsets) -> tuple[list[int], list[int]]:
    """Hugging Face's character offsets into `s` -> (begins, ends) in UTF-8 bytes."""
    ends = [0]
    for ch in s:
        ends.append(ends[-1] + len(ch.encode("utf-8")))
    return [ends[a] for a, _ in char_offsets], [ends[b] for _, b in char_offsets]


@pytest.mark.parametrize("lower_case", CASES)
def test_xla_ids_equal_tensorflow_text(lower_case, xla_sample):
    """Ids only: tensorflow_text's offsets are into the normalized strings, ours into the originals."""
    text = pytest.importorskip("tensorflow_text")
    peer = text.BertTokenizer(str(VOCAB), lower_case=lower_case)
    want = [ids for _, ids in rows(peer.tokenize(tf.constant(xla_sample)))]
    got = [ids for (_, ids), _, _ in xla_outputs("tf_text", lower_case, tuple(xla_sample))]
    bad = differences(got, want, xla_sample)
    assert not bad, f"{len(bad)} of {len(xla_sample)} differ; first (input, ours, tensorflow_text): {bad[:3]}"


@pytest.mark.parametrize("lower_case", CASES)
def test_xla_ids_and_offsets_equal_hugging_face(lower_case, xla_sample):
    """Ids and byte offsets; invalid UTF-8 reaches tokenizers decoded with U+FFFD, so there ids only."""
    pytest.importorskip("tokenizers")
    texts = [s.decode("utf-8", "replace") for s in xla_sample]
    encodings = hf_oracle(lowercase=lower_case).encode_batch(texts, add_special_tokens=False)
    bad = []
    for raw, s, enc, ((_, ids), (_, begin), (_, end)) in zip(
        xla_sample, texts, encodings, xla_outputs("hf", lower_case, tuple(xla_sample))
    ):
        valid = s.encode("utf-8") == raw
        mine = (ids, begin, end) if valid else ids
        theirs = (enc.ids, *_byte_offsets(s, enc.offsets)) if valid else enc.ids
        if mine != theirs:
            bad.append((raw, mine, theirs))
    assert not bad, f"{len(bad)} of {len(xla_sample)} differ; first (input, ours, tokenizers): {bad[:3]}"


# --- fuzzed text ------------------------------------------------------------------------------------------

FRAGMENTS = [
    *"abcXYZ019",
    *".,!?;:'\"()[]{}#@&-_/\\",
    " ",
    "  ",
    "\t",
    "\n",
    "\u00a0",
    "\u3000",
    "\u200b",
    *"éÉèàçñÑøÅßİıÆ",
    "e\u0301",
    "E\u0300",
    "a\u0308\u0304",
    "\u0301",
    "\u0345",
    "\u20dd",
    *"ΑΣσςΐΰΩ",
    "ΟΔΥΣΣΕΥΣ",
    "λόγος",
    *"中文日本語한국어",
    "漢字",
    "\u4e00\u9fff",
    "\U00020000",
    "가각힣",
    "\u1100\u1161\u11a8",
    "😀",
    "👍🏽",
    "👩\u200d💻",
    "👨\u200d👩\u200d👧\u200d👦",
    "🏳\ufe0f\u200d🌈",
    "🇧🇷",
    "\x00",
    "\x01",
    "\x7f",
    "\x85",
    "\u200d",
    "\ufeff",
    "\ufffd",
    "\u00ad",
    "[CLS]",
    "[MASK]",
    "[SEP]",
    "[PAD]",
    "[UNK]",
    "[MASK",
    "MASK]",
    "[mask]",
    "##",
    "un",
    "##able",
    "ﬁ",
    "½",
    "™",
    "Ⅸ",
    "ǅ",
    "ẞ",
]
fragment = st.one_of(
    st.sampled_from(FRAGMENTS).map(str.encode),
    st.binary(min_size=1, max_size=3),  # mostly invalid UTF-8
    st.sampled_from([b"\xc3", b"\xe2\x82", b"\xf0\x9f\x98", b"\xed\xa0\x80", b"\xc0\xaf", b"\xff", b"\x80"]),
)
fuzz_batches = st.lists(st.lists(fragment, max_size=24).map(b"".join), min_size=1, max_size=8)


@pytest.mark.parametrize("compat", ["tf_text", "hf"])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batch=fuzz_batches, lower_case=st.booleans())
@example(
    batch=["ΟΔΥΣΣΕΥΣ σς. x[MASK]y [CLS][SEP] 👩\u200d💻".encode(), b"", b"caf\xc3 \xe2\x82 \xff[MASK]"], lower_case=True
)
@example(batch=[("a" * 99 + "\u0301").encode(), "é".encode() * 50, b"\xff" * 101], lower_case=False)
def test_fuzzed_numeric_equals_string(compat, batch, lower_case):
    got = per_string(bert(compat, lower_case, "numeric"), batch)
    want = per_string(bert(compat, lower_case, "string"), batch)
    bad = differences(got, want, batch)
    assert not bad, f"first (input, numeric, string): {bad[:3]}"


# --- the contract and the export ------------------------------------------------------------------------

CONTRACT_STRINGS = [
    "Hello, World!",
    "",
    "Ünïcödé straße",
    "日本語のテキスト",
    "[MASK] x[CLS]y",
    "naïve café",
    "👩\u200d💻 emoji 👍🏽",
    "e\u0301 combining",
    "tabs\tand\nnewlines",
    "a" * 120,
    "ΟΔΥΣΣΕΥΣ",
    "  spaced  out  ",
]


@pytest.mark.parametrize("core", ["numeric", pytest.param("xla", marks=pytest.mark.slow)])  # XLA: ~20 s of compiles
def test_contract(core, tmp_path):
    ids = check_contract(bert("tf_text", True, core), CONTRACT_STRINGS, tmp_path)
    assert ids.to_list() == bert("tf_text", True, "string").tokenize(CONTRACT_STRINGS).to_list()


def saved_ops(path: str) -> tuple[set[str], bool]:
    """The op types of a SavedModel's graph and functions, and whether any function must be compiled by XLA.

    The same reading of saved_model.pb as tests/export/test_no_custom_ops.py (whose check lives inside a
    child-process script, so it cannot be imported): an op that `tf.raw_ops` lacks is not a core op.
    """
    from tensorflow.core.protobuf import saved_model_pb2

    proto = saved_model_pb2.SavedModel()
    with open(f"{path}/saved_model.pb", "rb") as f:
        proto.ParseFromString(f.read())
    graph = proto.meta_graphs[0].graph_def
    functions = {f.signature.name for f in graph.library.function}
    ops = {n.op for n in graph.node} | {n.op for f in graph.library.function for n in f.node_def}
    xla = any(f.attr["_XlaMustCompile"].b for f in graph.library.function)
    return ops - functions, xla


def test_exported_xla_tokenizer_has_only_core_ops(tmp_path):
    tokenizer = bert("hf", True, "xla")

    class Exported(tf.Module):
        def __init__(self):
            super().__init__()
            self.tokenizer = tokenizer

        @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
        def tokenize(self, strings):
            return self.tokenizer.tokenize(strings).merge_dims(-2, -1)

    path = str(tmp_path / "xla_tokenizer")
    tf.saved_model.save(Exported(), path)
    ops, xla = saved_ops(path)
    assert xla, "no function of the SavedModel is marked for XLA: the numeric core was not exported"
    assert len(ops) > 20  # the check looked at a real graph
    assert sorted(op for op in ops if not hasattr(tf.raw_ops, op)) == []
    # The string path's per-character ops (seen in its own export) are gone: after decode_raw, integers only.
    assert not ops & {"UnicodeDecodeWithOffsets", "UnicodeEncode", "StringSplitV2", "Substr", "LookupTableFindV2"}
    sentences = ["Hello TensorFlow!", "Ünïcödé straße [MASK] 日本語", "", "x\x00y \u200b z"]
    want = bert("hf", True, "string").tokenize(sentences).merge_dims(-2, -1).to_list()
    assert tf.saved_model.load(path).tokenize(tf.constant(sentences)).to_list() == want


# --- options the core does not take -------------------------------------------------------------------------

UNSUPPORTED = [
    pytest.param(dict(keep_whitespace=True), "keep_whitespace", id="keep_whitespace"),
    pytest.param(dict(normalization_form="NFC"), "normalization_form", id="NFC"),
    pytest.param(dict(normalization_form="NFKC"), "normalization_form", id="NFKC"),
    pytest.param(
        dict(preserve_unused_token=True, lower_case=True), "preserve_unused_token", id="preserve_unused_token"
    ),
    pytest.param(dict(max_chars_per_token=4), "max_chars_per_token", id="max_chars_per_token"),
    pytest.param(dict(split_unknown_characters=True), "split_unknown_characters", id="split_unknown_characters"),
    pytest.param(dict(unknown_token=None), "unknown_token", id="unknown_token=None"),
    pytest.param(dict(offsets="normalized"), "offsets", id="offsets=normalized"),
    pytest.param(dict(offsets="normalized", compat="hf"), "offsets", id="hf-offsets=normalized"),
    *(
        pytest.param(
            dict(compat="hf", special_tokens=[AddedToken("[MASK]", **{flag: True})]), "special_tokens", id=flag
        )
        for flag in ("normalized", "lstrip", "rstrip", "single_word")
    ),
    pytest.param(
        dict(compat="hf", special_tokens=["[CLS]", AddedToken("[X]", id=50, normalized=True)]),
        "special_tokens",
        id="one-of-two-normalized",
    ),
]


SPECIALS_VOCAB = ["[UNK]", "[CLS]", "[SEP]", "[MASK]", "[unused1]", "a", "##a", "b", "x"]


@pytest.mark.parametrize("core", ["numeric", "xla"])
@pytest.mark.parametrize("options, name", UNSUPPORTED)
def test_unsupported_option_is_a_value_error_naming_it(options, name, core):
    twp.BertTokenizer(SPECIALS_VOCAB, **options)  # the string path takes it: the error is the core's
    with pytest.raises(ValueError, match=name):
        twp.BertTokenizer(SPECIALS_VOCAB, core=core, **options)


@pytest.mark.parametrize("specials", [["[A]", "A]x"], ["[MASK]", "MASK"], ["ab", "ba"]], ids=str)
def test_overlapping_special_tokens_are_a_value_error(specials):
    tokens = ["[UNK]", "[MASK]", "MASK", "[A]", "A]x", "ab", "ba", "a", "x"]
    twp.BertTokenizer(tokens, compat="hf", special_tokens=specials)
    with pytest.raises(ValueError, match="special_tokens"):
        twp.BertTokenizer(tokens, compat="hf", special_tokens=specials, core="numeric")


def test_non_overlapping_special_tokens_are_taken():
    """Tokens that share bytes but cannot overlap ("[A]" does not end with a start of "[B]") are taken."""
    tokens = ["[UNK]", "[A]", "[B]", "a", "b", "x"]
    batch = ["[A][B]x[B]", "[A] [ B] [a]", "[[A]]"]
    outputs = [
        twp.BertTokenizer(tokens, compat="hf", special_tokens=["[A]", "[B]"], core=core).tokenize_with_offsets(batch)
        for core in ("numeric", "string")
    ]
    for got, want in zip(*outputs):
        assert got.to_list() == want.to_list()


# --- tiny vocabularies and input shapes ---------------------------------------------------------------------

LETTERS = ["[UNK]", "a", "b", "c", "##a", "##b", "##c", "ab", "##bc", "e", "##e", "é", "##é", "x", "##x"]
LONG_TOKEN = "abcdefghij" * 30  # longer than any word below, in the trie all the same
EDGE_CASES = {
    "empty suffix indicator": (
        ["[UNK]", "a", "b", "ab", "abc", "c", "ca"],
        dict(suffix_indicator=""),
        ["abcab cab", "cca", "abcz b"],
    ),
    "token '##' itself, '#' a word of its own": (
        ["[UNK]", "a", "#", "##", "##a", "####", "###"],
        {},
        ["a## a#a ## ### ####", "#a ##a", "a#"],
    ),
    "a word that is the suffix indicator": (
        ["[UNK]", "a", "xx", "xxa", "xxxx", "axx"],
        dict(suffix_indicator="xx"),
        ["xx xxxx xxa axx", "xxxxxx", "a xx a", "axxa"],
    ),
    "suffix indicator longer than words": (
        ["[UNK]", "a", "b", "ab"],
        dict(suffix_indicator="@@@@@@"),
        ["ab ba a b", "aab"],
    ),
    "a token longer than any word": (
        ["[UNK]", LONG_TOKEN, "a", "##b", "abcdefghij", "##abcdefghij"],
        {},
        ["abcdefghijabcdefghij", "abcdefghijabcdefghijk", "ab", LONG_TOKEN[:-1]],
    ),
    "unknown words mid-sentence": (LETTERS, {}, ["a zzz b", "ab qq abc q ab", "q", "a q", "q a"]),
    "an empty token in the vocabulary": (["[UNK]", "", "a", "##", "##a"], {}, ["a aa", "", " "]),
    "empty strings among others": (LETTERS, {}, ["", "a", "", " ", "ab", ""]),
    "only empty strings": (LETTERS, {}, ["", "", ""]),
    "an empty batch": (LETTERS, {}, tf.constant([], tf.string)),
    "a scalar": (LETTERS, {}, "ab c zz"),
    "a 2-D batch": (LETTERS, {}, [["a b", "", "abc"], ["zz", "bc a", "c"]]),
    "unknown token not at id 0": (["a", "##a", "b", "[UNK]"], {}, ["a b c", "aab ba"]),
    "no piece of the vocabulary in the text": (["[UNK]", "q"], {}, ["hello world", "...", "日本"]),
}
# Word-length limits: tf_text counts UTF-8 bytes (100), hf counts characters (100).
LIMITS = {
    "tf_text": [
        "a" * 100,
        "a" * 101,
        "é" * 50,
        "é" * 50 + "a",
        "a" * 98 + "é",
        "a" * 99 + "é",
        "x " + "a" * 101 + " x",
    ],
    "hf": ["a" * 100, "a" * 101, "é" * 100, "é" * 101, "a" * 99 + "é", "x " + "é" * 101 + " x", "e\u0301" * 50],
}


@functools.cache
def tiny(tokens: tuple[str, ...], core: str, options: tuple) -> twp.BertTokenizer:
    """A tokenizer over a tiny vocabulary, built once per (vocabulary, core, options): tracing the core costs ~0.4 s."""
    return twp.BertTokenizer(list(tokens), core=core, **dict(options))


def assert_cores_agree(tokens, options, inputs) -> None:
    key = tuple(sorted(options.items()))
    outputs = [tiny(tuple(tokens), core, key).tokenize_with_offsets(inputs) for core in ("numeric", "string")]
    for name, got, want in zip(("ids", "begin", "end"), *outputs):
        got, want = (t.to_list() if isinstance(t, tf.RaggedTensor) else t.numpy().tolist() for t in (got, want))
        assert got == want, f"{name}: numeric {got} != string {want}"


@pytest.mark.parametrize("compat", ["tf_text", "hf"])
@pytest.mark.parametrize("case", list(EDGE_CASES))
def test_edge_cases(case, compat):
    tokens, options, inputs = EDGE_CASES[case]
    assert_cores_agree(tokens, dict(options, compat=compat), inputs)


@pytest.mark.parametrize("lower_case", [True, False], ids=["uncased", "cased"])
@pytest.mark.parametrize("compat", ["tf_text", "hf"])
def test_word_length_limits(compat, lower_case):
    assert_cores_agree(LETTERS, dict(compat=compat, lower_case=lower_case), LIMITS[compat])


@pytest.mark.parametrize("compat", ["tf_text", "hf"])
def test_custom_word_length_limits(compat):
    options = dict(max_bytes_per_word=5, max_input_chars_per_word=3) if compat == "hf" else dict(max_bytes_per_word=5)
    assert_cores_agree(LETTERS, dict(compat=compat, **options), ["ab abc abab ababa ababab", "éé ééé a"])


@pytest.mark.parametrize(
    "inputs",
    [tf.constant([], tf.string), "", "ab c", [["a b", ""], ["", "c"], ["ab", "x"]]],
    ids=["empty-batch", "empty-scalar", "scalar", "2-D"],
)
def test_xla_input_shapes(inputs):
    """The bucketing of batch sizes (0 strings, a scalar, a 2-D batch) under XLA; these all fit one bucket."""
    got = bert("hf", True, "xla").tokenize_with_offsets(inputs)
    want = bert("hf", True, "string").tokenize_with_offsets(inputs)
    for g, w in zip(got, want):
        assert g.to_list() == w.to_list()


def test_xla_walks_that_mostly_go_on():
    """Under XLA the walks still going after a few steps go on in an eighth of the slots, all of them when more go."""
    tokens = ["[UNK]", *("a" * n for n in range(1, 9)), *("##" + "a" * n for n in range(1, 9)), "b"]
    inputs = ["a" * 37 + " " + "a" * 5, "b a aa", "a" * 90]  # nearly every slot walks eight steps
    outputs = [tiny(tuple(tokens), core, ()).tokenize_with_offsets(inputs) for core in ("xla", "string")]
    for got, want in zip(*outputs):
        assert got.to_list() == want.to_list()
