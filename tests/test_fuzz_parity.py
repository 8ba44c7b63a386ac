"""Fuzzed parity: random Unicode text (all planes, marks, controls, spaces) gives the peers' ids exactly.

Bounded: TF_WORDPIECE_MAX_EXAMPLES examples of 16 strings each (default 25).
"""

from __future__ import annotations

import functools
import os

import pytest
from conftest import VOCAB, hf_oracle
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tf_wordpiece as twp

text = pytest.importorskip("tensorflow_text")
MAX_EXAMPLES = int(os.environ.get("TF_WORDPIECE_MAX_EXAMPLES", "25"))

# Mostly letters and the characters tokenizers treat specially, some of everything else.
characters = st.one_of(
    st.characters(exclude_categories=("Cs",)),
    st.characters(categories=("Mn", "Mc", "Me", "Cc", "Cf", "Zs", "Zl", "Zp", "Po", "Ps", "Pe", "Sm", "So", "Lo")),
    st.sampled_from(list("aAßİıΣσςﬁ½™ 　\t\n\x00\x85\u200b\ufeff日本語한국어[MASK]##")),
)
strings = st.lists(st.text(characters, max_size=40), min_size=1, max_size=16)
fuzz = settings(max_examples=MAX_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@functools.cache
def tokenizers(compat: str, lower_case: bool):
    ours = twp.BertTokenizer(str(VOCAB), compat=compat, lower_case=lower_case, offsets="normalized" if compat == "tf_text" else "original")
    peer = text.BertTokenizer(str(VOCAB), lower_case=lower_case) if compat == "tf_text" else hf_oracle(lowercase=lower_case)
    return ours, peer


@fuzz
@given(batch=strings, lower_case=st.booleans())
def test_fuzzed_tf_text_parity(batch, lower_case):
    ours, peer = tokenizers("tf_text", lower_case)
    for got, want in zip(ours.tokenize_with_offsets(batch), peer.tokenize_with_offsets(batch)):
        assert got.to_list() == want.to_list()


@fuzz
@given(batch=strings, lower_case=st.booleans())
def test_fuzzed_hf_parity(batch, lower_case):
    ours, peer = tokenizers("hf", lower_case)
    got = [sum(row, []) for row in ours.tokenize(batch).to_list()]
    assert got == [e.ids for e in peer.encode_batch(batch, add_special_tokens=False)]


@fuzz
@given(data=st.lists(st.binary(max_size=30), min_size=1, max_size=16))
def test_fuzzed_bytes_tf_text_parity(data):
    """Arbitrary bytes, mostly invalid UTF-8: ids and offsets as tensorflow_text's."""
    ours, peer = tokenizers("tf_text", True)
    for got, want in zip(ours.tokenize_with_offsets(data), peer.tokenize_with_offsets(data)):
        assert got.to_list() == want.to_list()
