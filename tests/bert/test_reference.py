"""The graph tokenizer against the slow pure-Python reference: random vocabularies and text (hypothesis)."""

from __future__ import annotations

import functools
import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tf_wordpiece as twp
from helpers.bert_reference import ReferenceBertTokenizer

MAX_EXAMPLES = int(os.environ.get("TF_WORDPIECE_MAX_EXAMPLES", "60"))
ALPHABET = "abcé É.,!日 \t\u0301ßİ"

pieces = st.text(alphabet="abcé日", min_size=1, max_size=4)
vocabularies = st.lists(st.one_of(pieces, pieces.map(lambda p: "##" + p)), min_size=1, max_size=30, unique=True)
texts = st.lists(st.text(alphabet=ALPHABET, max_size=25), min_size=1, max_size=4)


@settings(max_examples=MAX_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(vocab=vocabularies, batch=texts, compat=st.sampled_from(["tf_text", "hf"]), lower_case=st.booleans())
def test_graph_equals_reference(vocab, batch, compat, lower_case):
    tokens = ["[UNK]", *[t for t in vocab if t != "[UNK]"]]
    graph = twp.BertTokenizer(tokens, compat=compat, lower_case=lower_case, special_tokens=[])
    reference = ReferenceBertTokenizer(tokens, compat=compat, lower_case=lower_case)
    assert graph.tokenize(batch).to_list() == [reference.tokenize(s) for s in batch]


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(batch=texts)
def test_offsets_cover_the_text_of_each_piece(batch):
    """Original-string offsets slice out exactly the characters each word came from."""
    tok = twp.BertTokenizer(["[UNK]", "a", "##b", "é", "##c"], compat="hf")
    _, begin, end = tok.tokenize_with_offsets(batch)
    for s, b_row, e_row in zip(batch, begin.to_list(), end.to_list()):
        raw = s.encode("utf-8")
        for b_word, e_word in zip(b_row, e_row):
            assert b_word == sorted(b_word) and all(b < e for b, e in zip(b_word, e_word))
            assert raw[b_word[0] : e_word[-1]].decode("utf-8").strip() != ""


def test_reference_on_hard_strings(vocab_tokens, hard_strings):
    for compat in ("tf_text", "hf"):
        graph = twp.BertTokenizer(vocab_tokens, compat=compat, lower_case=True)
        reference = ReferenceBertTokenizer(
            vocab_tokens, compat=compat, lower_case=True, special_tokens=graph.special_tokens
        )
        got = graph.tokenize(hard_strings).to_list()
        want = [reference.tokenize(s) for s in hard_strings]
        bad = [(s, g, w) for s, g, w in zip(hard_strings, got, want) if g != w]
        assert not bad, f"{compat}: {len(bad)} differ; first: {bad[:2]}"


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(batch=st.lists(st.text(alphabet="abcd[x] A", max_size=20), min_size=1, max_size=4))
def test_added_tokens_leftmost_longest(batch):
    """Overlapping added tokens resolve leftmost-longest, as Hugging Face's matcher does."""
    graph, reference = _added_token_tokenizers()
    assert graph.tokenize(batch).to_list() == [reference.tokenize(s) for s in batch]


@functools.cache
def _added_token_tokenizers():
    tokens = ["[UNK]", "ab", "abc", "bcd", "[x]", "a", "b", "c", "d", "##a", "##b", "##c", "##d", "[", "]", "x"]
    specials = ["ab", "abc", "bcd", "[x]"]
    return (
        twp.BertTokenizer(tokens, compat="hf", lower_case=True, special_tokens=specials),
        ReferenceBertTokenizer(tokens, compat="hf", lower_case=True, special_tokens=specials),
    )
