"""Engines (tf_wordpiece.bert_tokenizer.engines): what runs BertTokenizer.tokenize_with_offsets.

The string engine is the stages composed literally (the basic tokenizer's Words, then
`WordpieceTokenizer.tokenize_words`); which options the numeric core refuses is decided in one place,
`NumericEngine.refused`, checked here row by row. The numeric core's ids are checked in tests/numeric/.
"""

from __future__ import annotations

import pytest
import tensorflow as tf

import tf_wordpiece as twp
from tf_wordpiece.bert.added_tokens import AddedToken
from tf_wordpiece.bert_tokenizer.engines import NumericEngine, StringEngine, build_engine
from tf_wordpiece.cores import capabilities, cores_that

TINY = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "hello", "world", "!", "##s", "[unused1]", "e", "##e"]
TEXTS = ["Hello worlds!", "", "\xc9\xc9  [MASK] hello", "hello hello world"]


@pytest.mark.parametrize(
    "options",
    [
        dict(compat="tf_text", lower_case=True),
        dict(compat="tf_text", lower_case=True, offsets="normalized"),
        dict(compat="hf", lower_case=True),
        dict(compat="hf", special_tokens=[AddedToken("[MASK]", id=4, lstrip=True)]),  # not by chunks
    ],
    ids=["tf_text", "tf_text-normalized", "hf", "hf-lstrip"],
)
def test_string_engine_composes_the_stages(options):
    """tokenize_with_offsets == the basic tokenizer's Words through tokenize_words, offsets added once."""
    tok = twp.BertTokenizer(TINY, **options)
    assert isinstance(tok.engine, StringEngine) and tok.engine.core == "string" and not tok.engine.takes_bytes
    flat = tf.constant(TEXTS)
    composed = tok.wordpiece_tokenizer.tokenize_words(tok.basic_tokenizer.split(flat), offsets=tok.offsets)
    for got, want in zip(tok.engine.tokenize_with_offsets(flat), composed):
        assert got.to_list() == want.to_list()
    for got, want in zip(tok.tokenize_with_offsets(TEXTS), composed):
        assert got.to_list() == want.to_list()


@pytest.mark.parametrize(
    "options, refused",
    [
        (dict(), {}),
        (dict(lower_case=True), {}),
        (dict(compat="hf", lower_case=True), {}),
        (dict(compat="hf", special_tokens=["[MASK]", "[unused1]"]), {}),
        (dict(keep_whitespace=True), dict(keep_whitespace=True)),
        (dict(normalization_form="NFC"), dict(normalization_form="NFC/NFKC")),
        (dict(normalization_form="NFKD"), dict(normalization_form="NFD/NFKD")),  # marks put in canonical order
        (dict(preserve_unused_token=True), dict(preserve_unused_token=True)),
        (dict(max_chars_per_token=3), dict(max_chars_per_token=3)),
        (dict(split_unknown_characters=True), dict(split_unknown_characters=True)),
        (dict(unknown_token=None), dict(unknown_token="None")),
        (dict(offsets="normalized"), dict(offsets="normalized")),
        (
            dict(compat="hf", special_tokens=[AddedToken("[MASK]", id=4, rstrip=True)]),
            dict(special_tokens="tokens with normalized/lstrip/rstrip/single_word"),
        ),
        (
            dict(compat="hf", special_tokens=[AddedToken("ab", id=5), AddedToken("ba", id=6)]),
            dict(special_tokens="tokens that overlap ('ab' ends with the start of 'ba')"),
        ),
        (
            dict(keep_whitespace=True, offsets="normalized"),
            dict(keep_whitespace=True, offsets="normalized"),
        ),
    ],
    ids=lambda v: ",".join(f"{k}={v[k]}" for k in v) if isinstance(v, dict) else None,
)
def test_what_the_numeric_core_refuses(options, refused):
    tok = twp.BertTokenizer(TINY, **options)  # the string engine takes every option
    got = NumericEngine.refused(tok.basic_tokenizer, tok.wordpiece_tokenizer, tok.added_tokens, offsets=tok.offsets)
    assert got == refused


def test_a_refused_option_is_a_value_error_naming_it():
    with pytest.raises(ValueError, match=r"core='numeric': the numeric core does not take keep_whitespace=True; use"):
        twp.BertTokenizer(TINY, keep_whitespace=True, core="numeric")


def test_core_and_bytes_are_checked():
    tok = twp.BertTokenizer(TINY)
    with pytest.raises(ValueError, match=r"core: expected one of \['string', 'numeric', 'xla'\], got 'gpu'"):
        build_engine(
            "gpu",
            basic_tokenizer=tok.basic_tokenizer,
            wordpiece_tokenizer=tok.wordpiece_tokenizer,
            added_tokens=tok.added_tokens,
            offsets="original",
            parallel_shards=1,
        )
    with pytest.raises(ValueError, match="core='string': tokenize_bytes needs the numeric core"):
        tok.tokenize_bytes(tf.constant([104], tf.uint8), tf.constant([1]))


@pytest.mark.parametrize("core", ["string", "numeric", "xla"])
def test_each_engine_carries_its_cores_capabilities(core):
    """Callers ask `engine.capabilities` (tf_wordpiece.cores), not the core's name."""
    engine = twp.BertTokenizer(TINY, core=core).engine
    assert engine.capabilities == capabilities(core) and engine.core == core
    assert engine.takes_bytes == engine.capabilities.takes_bytes == (core != "string")
    assert engine.capabilities.runs_without_string_ops == (core == "numeric")
    assert cores_that(runs_without_string_ops=True) == ["numeric"] and cores_that(compiles=False) == [
        "string",
        "numeric",
    ]
