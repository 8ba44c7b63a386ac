"""Decoders (tf_wordpiece.bert.decoders): ids back to words (tensorflow_text's detokenize) and to text (Hugging
Face's WordPiece decoder), called directly and checked against the peers; then BertTokenizer.decode of rows
that decode to nothing, the last one included (issue 18, fault 8), against tokenizers.
"""

from __future__ import annotations

import pytest
import tensorflow as tf

import tf_wordpiece as twp
from helpers.data import TOKENIZER_JSON
from helpers.oracles import hf_oracle
from tf_wordpiece.bert.decoders import hf_wordpiece_decode, wordpiece_detokenize

# (what the row shows, tokens, ids, suffix indicator, unknown token, words)
DETOKENIZE_ROWS = [
    (
        "joined",
        ["[UNK]", "un", "##aff", "##able", "!"],
        [[1, 2, 3, 4, 9]],
        "##",
        "[UNK]",
        [[b"unaffable", b"!", b"[UNK]"]],
    ),
    ("leading-suffix-piece", ["[UNK]", "un", "##aff"], [[2, 1, 2]], "##", "[UNK]", [[b"##aff", b"unaff"]]),
    ("other-suffix", ["[UNK]", "x", "@@y"], [[1, 2, 1], []], "@@", "[UNK]", [[b"xy", b"x"], [b""]]),  # a row of ""
    ("empty-suffix", ["[UNK]", "ab", "c"], [[1, 2]], "", "[UNK]", [[b"abc"]]),  # every piece continues the word
    ("other-unknown", ["<unk>", "a"], [[1, 5]], "##", "<unk>", [[b"a", b"<unk>"]]),
    ("rank-3", ["[UNK]", "un", "##aff", "!"], [[[1, 2], [3]], [[1]]], "##", "[UNK]", [[[b"unaff"], [b"!"]], [[b"un"]]]),
]


@pytest.mark.parametrize(
    "what, tokens, ids, suffix, unknown, words",
    [pytest.param(*r, id=r[0]) for r in DETOKENIZE_ROWS],
)
def test_wordpiece_detokenize(what, tokens, ids, suffix, unknown, words):
    got = wordpiece_detokenize(tf.ragged.constant(ids, tf.int64), tf.constant(tokens), suffix, unknown)
    assert got.to_list() == words


@pytest.mark.parametrize(
    "what, tokens, ids, suffix, unknown, words", DETOKENIZE_ROWS, ids=[r[0] for r in DETOKENIZE_ROWS]
)
def test_wordpiece_detokenize_rows_are_tensorflow_texts(what, tokens, ids, suffix, unknown, words):
    tf_text = pytest.importorskip("tensorflow_text")
    table = tf.lookup.StaticVocabularyTable(
        tf.lookup.KeyValueTensorInitializer(tokens, tf.range(len(tokens), dtype=tf.int64)), 1
    )
    peer = tf_text.WordpieceTokenizer(table, suffix_indicator=suffix, unknown_token=unknown)
    assert peer.detokenize(tf.ragged.constant(ids, tf.int64)).to_list() == words


def test_fast_wordpiece_keeps_each_piece_a_word_with_an_empty_suffix():
    """tensorflow_text's FastWordpieceTokenizer, unlike its WordpieceTokenizer ("empty-suffix" above), splits them."""
    tokens = ["[UNK]", "ab", "c"]
    ids = tf.ragged.constant([[1, 2], [1]], tf.int64)
    words = wordpiece_detokenize(ids, tf.constant(tokens), "", "[UNK]", fast_wordpiece=True)
    assert words.to_list() == [[b"ab", b"c"], [b"ab"]]
    tf_text = pytest.importorskip("tensorflow_text")
    peer = tf_text.FastWordpieceTokenizer(tokens, suffix_indicator="", support_detokenization=True)
    assert peer.detokenize(ids).numpy().tolist() == [b" ".join(row) for row in words.to_list()]


def test_wordpiece_detokenize_takes_dense_ids_and_refuses_rank_1_and_negative_ids():
    tokens = tf.constant(["[UNK]", "un", "##aff"])
    assert wordpiece_detokenize(tf.constant([[1, 2], [2, 2]]), tokens, "##", "[UNK]").to_list() == [
        [b"unaff"],
        [b"##affaff"],  # " ##" is removed wherever it is
    ]
    with pytest.raises(ValueError, match=r"token_ids: expected rank >= 2 \(\[\.\.\., pieces\]\)"):
        wordpiece_detokenize(tf.constant([1, 2]), tokens, "##", "[UNK]")
    with pytest.raises(tf.errors.InvalidArgumentError, match="token_ids: ids must be >= 0"):
        wordpiece_detokenize(tf.constant([[1, -1]]), tokens, "##", "[UNK]")


# Hugging Face's decoder: ids -> one string a row.
HF_TOKENS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "don", "'", "t", "go", "##ing", ".", "##s", "", "hello", "!"]
HF_SPECIAL = [True, True, True, True] + [False] * 10

# (what the row shows, ids, options, text)
DECODE_ROWS = [
    ("prefix-joins", [[2, 7, 8, 9, 3]], {}, ["going."]),
    ("per-token-cleanup", [[4, 5, 6, 12, 5, 10, 13]], {}, ["don ' t hello 's!"]),  # never across tokens
    ("keep-special", [[2, 12, 3, 0]], dict(skip_special_tokens=False), ["[CLS] hello [SEP] [PAD]"]),
    ("no-cleanup", [[12, 13, 9]], dict(cleanup=False), ["hello ! ."]),
    ("no-decoder", [[7, 8, 13]], dict(prefix=None), ["go ##ing !"]),
    ("empty-prefix", [[7, 8]], dict(prefix=""), ["go##ing"]),
    ("first-token-keeps-its-prefix", [[8, 7]], {}, ["##ing go"]),
    ("ids-without-tokens-dropped", [[12, 11, 99, 13]], {}, ["hello!"]),  # "" and out of range
    ("empty-rows", [[], [2, 3], [12], [0, 0]], {}, ["", "", "hello", ""]),
    ("whole-string-cleanup", [[4, 5, 6, 12, 5, 10, 9]], dict(clean_up_tokenization_spaces=True), ["don't hello's."]),
]


@pytest.mark.parametrize("what, ids, options, text", DECODE_ROWS, ids=[r[0] for r in DECODE_ROWS])
def test_hf_wordpiece_decode(what, ids, options, text):
    got = hf_wordpiece_decode(
        tf.ragged.constant(ids, tf.int64), tf.constant(HF_TOKENS), tf.constant(HF_SPECIAL), **options
    )
    assert [s.decode("utf-8") for s in got.numpy().tolist()] == text


@pytest.mark.parametrize(
    "what, ids, options, text",
    [r for r in DECODE_ROWS if "clean_up_tokenization_spaces" not in r[2]],  # transformers' option: not in tokenizers
    ids=[r[0] for r in DECODE_ROWS if "clean_up_tokenization_spaces" not in r[2]],
)
def test_hf_decode_rows_are_tokenizers(what, ids, options, text):
    tokenizers = pytest.importorskip("tokenizers")
    prefix, cleanup = options.get("prefix", "##"), options.get("cleanup", True)
    skip = options.get("skip_special_tokens", True)
    for row, want in zip(ids, text):
        kept = [HF_TOKENS[i] for i in row if i < len(HF_TOKENS) and HF_TOKENS[i] and not (skip and HF_SPECIAL[i])]
        if prefix is None:  # a tokenizer without a decoder joins its tokens with spaces
            assert " ".join(kept) == want
        else:
            assert tokenizers.decoders.WordPiece(prefix=prefix, cleanup=cleanup).decode(kept) == want


def test_hf_wordpiece_decode_takes_dense_ids_in_a_graph():
    decode = tf.function(lambda ids: hf_wordpiece_decode(ids, tf.constant(HF_TOKENS), tf.constant(HF_SPECIAL)))
    assert decode(tf.constant([[2, 7, 8, 3], [12, 0, 0, 0]])).numpy().tolist() == [b"going", b"hello"]


@pytest.mark.parametrize(
    "ids, error, message",
    [
        (tf.constant([1, 2]), ValueError, r"ids: expected rank 2 \(\[batch, tokens\], dense or ragged\)"),
        (tf.constant([[1, -2]]), tf.errors.InvalidArgumentError, "ids: token ids must be >= 0"),
    ],
    ids=["rank-1", "negative"],
)
def test_hf_wordpiece_decode_bad_ids(ids, error, message):
    with pytest.raises(error, match=message):
        hf_wordpiece_decode(ids, tf.constant(HF_TOKENS), tf.constant(HF_SPECIAL))


# --- BertTokenizer.decode of rows that decode to nothing, the last one included (issue 18, fault 8) --------

BATCHES = [
    [""],
    ["hello", ""],
    ["", "hello"],
    ["", "", ""],
    ["[UNK]"],
    ["hello", "[UNK] [PAD]"],
    ["hello", "", "world", "[MASK]"],
]


@pytest.fixture(scope="module")
def tok():
    return twp.BertTokenizer.from_tokenizer_json(TOKENIZER_JSON)


@pytest.mark.parametrize("skip", [True, False], ids=["skip-special", "keep-special"])
@pytest.mark.parametrize("texts", BATCHES, ids=repr)
def test_decode_matches_tokenizers(tok, texts, skip):
    oracle = hf_oracle()
    ids = tok.encode(texts).ids
    want = oracle.decode_batch([e.ids for e in oracle.encode_batch(texts)], skip_special_tokens=skip)
    assert ids.to_list() == [e.ids for e in oracle.encode_batch(texts)]
    got = [s.decode() for s in tok.decode(ids, skip_special_tokens=skip).numpy()]
    assert got == want
    graph = tf.function(lambda i: tok.decode(i, skip_special_tokens=skip))(ids)
    assert [s.decode() for s in graph.numpy()] == want


def test_decode_in_tf_data(tok):
    ids = tok.encode(["hello", "", "[UNK]"]).ids
    dataset = tf.data.Dataset.from_tensors(ids).map(tok.decode)
    assert [list(map(bytes.decode, t.numpy())) for t in dataset] == [["hello", "", ""]]


def test_decode_saved_model(tok, tmp_path):
    module = tf.Module()
    module.tok = tok
    module.decode = tf.function(tok.decode, input_signature=[tf.RaggedTensorSpec([None, None], tf.int64)])
    tf.saved_model.save(module, str(tmp_path / "m"))
    loaded = tf.saved_model.load(str(tmp_path / "m"))
    ids = tok.encode(["hello", "", "[UNK]"]).ids
    assert loaded.decode(ids).numpy().tolist() == [b"hello", b"", b""]


def test_decode_of_all_empty_dense_rows(tok):
    assert tok.decode(tf.zeros([2, 0], tf.int64)).numpy().tolist() == [b"", b""]
    assert tok.decode(tf.constant([[0, 0], [101, 102]])).numpy().tolist() == [b"", b""]
