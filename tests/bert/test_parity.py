"""Parity with the peers on every line of the multilingual sample, the hard strings and invalid UTF-8.

compat="tf_text" against tensorflow_text.BertTokenizer (ids, and offsets in its
normalized-string units); compat="hf" against Hugging Face tokenizers (ids, and
its character offsets into the original string, mapped to bytes).
"""

from __future__ import annotations

import pytest
import tensorflow as tf

import tf_wordpiece as twp
from helpers.oracles import hf_oracle
from helpers.ragged import batches, rows

text = pytest.importorskip("tensorflow_text")


def _byte_offsets(s: str, char_offsets) -> list[tuple[int, int]]:
    ends = [0]
    for ch in s:
        ends.append(ends[-1] + len(ch.encode("utf-8")))
    return [(ends[a], ends[b]) for a, b in char_offsets]


def _mismatches(ours, peer, inputs) -> list:
    return [(s, o, p) for s, o, p in zip(inputs, ours, peer) if o != p]


@pytest.mark.slow
@pytest.mark.parametrize("lower_case", [True, False], ids=["uncased", "cased"])
def test_tf_text_parity(vocab_path, multilingual, hard_strings, invalid_utf8, lower_case):
    ours = twp.BertTokenizer(vocab_path, lower_case=lower_case, offsets="normalized")
    peer = text.BertTokenizer(vocab_path, lower_case=lower_case)
    inputs = [s.encode("utf-8") for s in multilingual + hard_strings] + invalid_utf8
    bad = []
    for batch in batches(inputs):
        mine = list(zip(*(rows(t) for t in ours.tokenize_with_offsets(batch))))
        theirs = list(zip(*(rows(t) for t in peer.tokenize_with_offsets(batch))))
        bad += _mismatches(mine, theirs, batch)
    assert not bad, f"{len(bad)} of {len(inputs)} differ; first: {bad[:3]}"


@pytest.mark.slow
@pytest.mark.parametrize("lower_case", [True, False], ids=["uncased", "cased"])
def test_hf_parity(vocab_path, multilingual, hard_strings, lower_case):
    ours = twp.BertTokenizer(vocab_path, compat="hf", lower_case=lower_case)
    peer = hf_oracle(lowercase=lower_case)
    inputs = multilingual + hard_strings
    bad = []
    for batch in batches(inputs):
        ids, begin, end = (rows(t) for t in ours.tokenize_with_offsets([s.encode("utf-8") for s in batch]))
        for s, i, b, e, enc in zip(batch, ids, begin, end, peer.encode_batch(batch, add_special_tokens=False)):
            mine = (i[1], list(zip(b[1], e[1])))
            theirs = (enc.ids, _byte_offsets(s, enc.offsets))
            if mine != theirs:
                bad.append((s, mine, theirs))
    assert not bad, f"{len(bad)} of {len(inputs)} differ; first: {bad[:3]}"


def test_peers_disagree_and_each_mode_follows_its_own(vocab_path, multilingual):
    """The two peers differ on a few percent of the sample; both modes are needed."""
    ours_tf = twp.BertTokenizer(vocab_path, lower_case=True)
    ours_hf = twp.BertTokenizer(vocab_path, compat="hf", lower_case=True)
    sample = multilingual[:2000]
    tf_ids = [r[1] for r in rows(ours_tf.tokenize(sample))]
    hf_ids = [r[1] for r in rows(ours_hf.tokenize(sample))]
    differ = sum(a != b for a, b in zip(tf_ids, hf_ids))
    assert 0 < differ < len(sample) // 5


@pytest.mark.parametrize(
    "options",
    [
        dict(keep_whitespace=True),
        dict(normalization_form="NFD"),
        dict(normalization_form="NFKD"),
        dict(preserve_unused_token=True, lower_case=True),
        dict(max_bytes_per_word=12, lower_case=True),
    ],
    ids=str,
)
def test_tf_text_options(vocab_path, multilingual, hard_strings, options):
    ours = twp.BertTokenizer(vocab_path, offsets="normalized", **options)
    peer = text.BertTokenizer(vocab_path, **options)
    inputs = multilingual[:3000] + hard_strings + ["[unused1] x[unused99]y [UNUSED5] [ unused3]", "a  \t b"]
    for batch in batches(inputs):
        mine = list(zip(*(rows(t) for t in ours.tokenize_with_offsets(batch))))
        theirs = list(zip(*(rows(t) for t in peer.tokenize_with_offsets(batch))))
        bad = _mismatches(mine, theirs, batch)
        assert not bad, f"{len(bad)} differ; first: {bad[:3]}"


@pytest.mark.parametrize(
    "normalizer",
    [dict(strip_accents=True), dict(strip_accents=False), dict(handle_chinese_chars=False), dict(clean_text=False)],
    ids=str,
)
def test_hf_normalizer_options(vocab_path, hard_strings, multilingual, normalizer):
    ours = twp.BertTokenizer(vocab_path, compat="hf", lower_case=True, **normalizer)
    peer = hf_oracle(lowercase=True, **normalizer)
    inputs = multilingual[:3000] + hard_strings
    for batch in batches(inputs):
        mine = [r[1] for r in rows(ours.tokenize(batch))]
        theirs = [e.ids for e in peer.encode_batch(batch, add_special_tokens=False)]
        bad = _mismatches(mine, theirs, batch)
        assert not bad, f"{len(bad)} differ; first: {bad[:3]}"


def test_detokenize_parity(vocab_path, multilingual, hard_strings):
    ours = twp.BertTokenizer(vocab_path, lower_case=True)
    peer = text.BertTokenizer(vocab_path, lower_case=True)
    inputs = multilingual[:2000] + hard_strings
    ids = peer.tokenize(inputs)
    flat = ids.merge_dims(-2, -1)
    out_of_range = tf.ragged.constant([[0, 30521, 30522, 40000]], dtype=tf.int64)
    for token_ids in (ids, flat, out_of_range):
        assert ours.detokenize(token_ids).to_list() == peer.detokenize(token_ids).to_list()


def test_wordpiece_string_output_parity(vocab_path, multilingual):
    ours = twp.WordpieceTokenizer(vocab_path, token_out_type=tf.string)
    peer = text.WordpieceTokenizer(vocab_path, token_out_type=tf.string)
    words = twp.BertTokenizer(vocab_path, lower_case=True).basic_tokenizer.tokenize(multilingual[:2000])
    for got, want in zip(ours.tokenize_with_offsets(words), peer.tokenize_with_offsets(words)):
        assert got.to_list() == want.to_list()


@pytest.mark.parametrize("compat", ["tf_text", "hf"])
def test_parallel_shards_in_a_graph_equal_eager(vocab_path, multilingual, hard_strings, compat):
    """Eager runs one shard; tf.function runs parallel_shards subgraphs. Same ids and offsets."""
    tok = twp.BertTokenizer(vocab_path, compat=compat, lower_case=True, parallel_shards=4)
    graph = tf.function(tok.tokenize_with_offsets, input_signature=[tf.TensorSpec([None], tf.string)])
    for batch in (multilingual[:1500] + hard_strings, hard_strings[:3], hard_strings[:1], []):
        batch = tf.constant(batch, tf.string)
        for got, want in zip(graph(batch), tok.tokenize_with_offsets(batch)):
            assert rows(got) == rows(want)
