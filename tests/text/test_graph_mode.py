"""tf_wordpiece.text in a TF1-style graph: built under `tf.Graph().as_default()` and run by a `tf.compat.v1.Session`,
as tensorflow_text's own tests run each case first (`test_util.run_all_in_graph_and_eager_modes`) and as
`tf.compat.v1` code calls it. Each case's outputs there equal its eager outputs on the hard strings, invalid
UTF-8 and sample lines.

What broke there before: `a == b` on tensors is Python's identity test outside TensorFlow 2's eager context
(every normalizer failed to build), cached constants of one graph were reused in the next ("must be from the
same graph"), our tables needed `tables_initializer()`, which tensorflow_text's tokenizers do not (their tests
never run it for them), and a vocabulary given as a table could not be read.
"""

from __future__ import annotations

import pathlib

import numpy as np
import tensorflow as tf

import tf_wordpiece.text as text
from tests.helpers.hard_strings import HARD_STRINGS, INVALID_UTF8

DATA = pathlib.Path(__file__).resolve().parents[1] / "data"
VOCAB = (DATA / "bert-base-uncased" / "vocab.txt").read_text(encoding="utf-8").splitlines()
SAMPLE = (DATA / "multilingual_dev.txt").read_text(encoding="utf-8").splitlines()[:40]
STRINGS = [s.encode("utf-8") for s in HARD_STRINGS + SAMPLE] + INVALID_UTF8 + [b""]


def ids():
    return tf.ragged.constant([[5, 6, 7, 8, 9], [], [10, 11]], tf.int64)


def more_ids():
    return tf.ragged.constant([[20, 21], [22, 23, 24, 25], []], tf.int64)


def vocab_table() -> tf.lookup.StaticVocabularyTable:
    initializer = tf.lookup.KeyValueTensorInitializer(VOCAB, tf.range(len(VOCAB), dtype=tf.int64))
    return tf.lookup.StaticVocabularyTable(initializer, num_oov_buckets=1)


def fast_wordpiece(x):
    tokenizer = text.FastWordpieceTokenizer(VOCAB, token_out_type=tf.int64)
    pieces, begin, end = tokenizer.tokenize_with_offsets(x)
    return pieces, begin, end, tokenizer.detokenize(pieces)


def segments(trimmer):
    return trimmer.trim([ids(), more_ids()]) + trimmer.generate_mask([ids(), more_ids()])


def masked(ids):
    selector = text.FirstNItemSelector(2, unselectable_ids=[5])
    chooser = text.MaskValuesChooser(vocab_size=100, mask_token=3, mask_token_rate=1.0, random_token_rate=0.0)
    return text.mask_language_model(ids, selector, chooser)


CASES = {  # name -> outputs from a string [n] input `x` (the id cases ignore it)
    "normalize_utf8 NFC": lambda x: text.normalize_utf8(x, "NFC"),
    "normalize_utf8 NFD": lambda x: text.normalize_utf8(x, "NFD"),
    "normalize_utf8 NFKC": lambda x: text.normalize_utf8(x, "NFKC"),
    "normalize_utf8 NFKD": lambda x: text.normalize_utf8(x, "NFKD"),
    "case_fold_utf8": text.case_fold_utf8,
    "normalize_utf8_with_offsets_map": lambda x: text.find_source_offsets(
        text.normalize_utf8_with_offsets_map(x, "NFKC")[1], tf.zeros_like(x, tf.int64)[:, None] + [0, 1, 3]
    ),
    "coerce_to_structurally_valid_utf8": text.coerce_to_structurally_valid_utf8,
    "regex_split_with_offsets": lambda x: text.regex_split_with_offsets(  # it takes valid UTF-8 only
        text.coerce_to_structurally_valid_utf8(x), r"\s|(\p{P})", r"\p{P}"
    ),
    "WhitespaceTokenizer": lambda x: text.WhitespaceTokenizer().tokenize_with_offsets(x),
    "FastWordpieceTokenizer": fast_wordpiece,
    "WordpieceTokenizer on a table": lambda x: text.WordpieceTokenizer(
        vocab_table(), token_out_type=tf.int64
    ).tokenize_with_offsets(tf.strings.split(x)),
    "BertTokenizer": lambda x: text.BertTokenizer(VOCAB, lower_case=True).tokenize_with_offsets(x),
    "BasicTokenizer NFD": lambda x: text.BasicTokenizer(normalization_form="NFD").tokenize_with_offsets(x),
    "FastBertTokenizer": lambda x: text.FastBertTokenizer(VOCAB, lower_case_nfd_strip_accents=True).tokenize(x),
    "FastBertNormalizer": lambda x: text.FastBertNormalizer(lower_case_nfd_strip_accents=True).normalize(x),
    "RoundRobinTrimmer": lambda x: segments(text.RoundRobinTrimmer(max_seq_length=4)),
    "WaterfallTrimmer": lambda x: segments(text.WaterfallTrimmer(max_seq_length=4)),
    "ShrinkLongestTrimmer": lambda x: segments(text.ShrinkLongestTrimmer(max_seq_length=4)),
    "combine_segments and pad_model_inputs": lambda x: text.pad_model_inputs(
        text.combine_segments([ids(), more_ids()], start_of_sequence_id=101, end_of_segment_id=102)[0], 8
    ),
    "concatenate_segments": lambda x: text.concatenate_segments([ids(), more_ids()]),
    "mask_language_model": lambda x: masked(ids()),
}


def run_in_a_graph(cases: dict) -> dict:
    """Each case's outputs, as NumPy values, from one TF1-style graph and session."""
    with tf.Graph().as_default() as graph:
        x = tf.compat.v1.placeholder(tf.string, [None])
        outputs = {name: tf.nest.flatten(case(x), expand_composites=True) for name, case in cases.items()}
        assert all(output.graph is graph for each in outputs.values() for output in each)
        with tf.compat.v1.Session(graph=graph) as session:  # no tables_initializer(): our tables see to it
            return session.run(outputs, {x: STRINGS})


def run_eagerly(case) -> list:
    return [t.numpy() for t in tf.nest.flatten(case(tf.constant(STRINGS)), expand_composites=True)]


def test_a_tf1_graph_gives_the_eager_outputs():
    got = run_in_a_graph(CASES)
    for name, case in CASES.items():
        expected = run_eagerly(case)
        assert len(got[name]) == len(expected), name
        for ours, eager in zip(got[name], expected):
            np.testing.assert_array_equal(ours, eager, err_msg=name)
    # A second graph: the tables cached for the first (normalizers, character classes) must not leak into it.
    again = run_in_a_graph({name: CASES[name] for name in ("normalize_utf8 NFC", "BertTokenizer")})
    for name, outputs in again.items():
        for ours, first in zip(outputs, got[name]):
            np.testing.assert_array_equal(ours, first, err_msg=name)


def test_every_table_of_a_tokenizer_is_among_the_graphs_table_initializers():
    with tf.Graph().as_default() as graph:
        text.FastWordpieceTokenizer(VOCAB).tokenize(tf.constant(["unaffable"]))
        tables = [op for op in graph.get_operations() if op.type == "HashTableV2"]
        initialized = {op.inputs[0].op for op in tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.TABLE_INITIALIZERS)}
    assert len(tables) >= 2  # the vocabulary's and the piece table
    assert set(tables) <= initialized


def test_offsets_of_constant_strings_cut_them_out_as_in_tensorflow_texts_tests():
    """On constants, graph construction evaluates what it can for static shapes: the pieces' row ids and values
    must agree, or Substr (which wants pos and len of one static shape) refuses the offsets at construction
    (tensorflow_text's regex_split test cuts the tokens out with them so)."""
    for rows, want in (
        (["hello there"], [b"hello", b" ", b"there"]),
        (["show me $100", "a b"], [b"show", b" ", b"me", b" ", b"$", b"100", b"a", b" ", b"b"]),
    ):
        with tf.Graph().as_default():
            x = tf.constant(rows)
            tokens, begin, end = text.regex_split_with_offsets(x, r"\s|\p{S}", r"\s|\p{S}")
            texts = tf.gather(x, begin.nested_value_rowids()[-1])
            cut = tf.strings.substr(texts, begin.flat_values, (end - begin).flat_values)
            with tf.compat.v1.Session() as session:
                got, pieces = session.run([cut, tokens.flat_values])
        assert got.tolist() == pieces.tolist() == want
