"""LinMaxMatch (tf_wordpiece.bert.linmaxmatch): the same pieces as greedy longest match, in linear time."""

from __future__ import annotations

import os

import numpy as np
import pytest
import tensorflow as tf
from hypothesis import given, settings
from hypothesis import strategies as st

import tf_wordpiece as twp
from helpers.bert_reference import ReferenceBertTokenizer
from helpers.contract import check_contract
from helpers.ragged import batches, rows
from tf_wordpiece.bert.linmaxmatch import INITIAL_ROOT, LinMaxMatchTrie
from tf_wordpiece.bert.wordpiece import WordpieceTokenizer

MAX_EXAMPLES = int(os.environ.get("TF_WORDPIECE_MAX_EXAMPLES", "40"))
PAPER_VOCAB = ["[UNK]", "a", "abcd", "##b", "##bc", "##z"]


@pytest.mark.parametrize(
    "vocab, suffix, word, expected",
    [
        # Song et al. 2021, Figure 1.
        (PAPER_VOCAB, "##", "abcz", ["a", "##bc", "##z"]),
        (PAPER_VOCAB, "##", "abcd", ["abcd"]),
        (PAPER_VOCAB, "##", "abc", ["a", "##bc"]),
        (PAPER_VOCAB, "##", "abz", ["a", "##b", "##z"]),
        (PAPER_VOCAB, "##", "abcb", ["a", "##bc", "##b"]),
        (PAPER_VOCAB, "##", "abcx", ["[UNK]"]),
        (PAPER_VOCAB, "##", "z", ["[UNK]"]),  # only a suffix piece matches
        (PAPER_VOCAB, "##", "##bc", ["##bc"]),  # a suffix piece taken whole as an initial piece
        (PAPER_VOCAB, "##", "#b", ["[UNK]"]),
        (["[UNK]", "#", "##", "###", "##a"], "##", "##a", ["##a"]),
        (["[UNK]", "#", "##", "###", "##a"], "##", "####", ["###", "###"]),  # "#" after the first piece is "###"
        (["[UNK]", "x", "@@x", "xy", "@@yz"], "@@", "xyz", ["[UNK]"]),  # greedy "xy" strands "z"
        (["[UNK]", "x", "@@x", "xy", "@@yz"], "@@", "xxyz", ["x", "@@x", "@@yz"]),
        (["[UNK]", "ab", "a", "b", "abc"], "", "abab", ["ab", "ab"]),  # empty suffix indicator
        (["[UNK]", "ab", "a", "b", "abc"], "", "abcab", ["abc", "ab"]),
        (["[UNK]", "ab", "a", "c"], "", "abd", ["[UNK]"]),
        (["[UNK]", "中", "##文", "中文字"], "##", "中文", ["中", "##文"]),
        # maxmatch's table of the longest piece from a character: past its dense part (U+10000 on), one bound.
        (["[UNK]", "a", "😀😀", "##😀", "##a"], "##", "😀😀😀a", ["😀😀", "##😀", "##a"]),
        (["[UNK]", "ab", "##é", "😀", "##😀"], "##", "abé😀", ["ab", "##é", "##😀"]),  # dense only up to "a"
    ],
)
def test_table(vocab, suffix, word, expected):
    for algorithm in ("linmaxmatch", "maxmatch"):
        wp = WordpieceTokenizer(vocab, suffix_indicator=suffix, token_out_type=tf.string, algorithm=algorithm)
        got = [t.decode() for t in wp.tokenize(tf.constant([word]))[0].numpy()]
        assert got == expected, algorithm


def _node(trie: LinMaxMatchTrie, root: int, path: str) -> int:
    edges = dict(zip(trie.edge_keys.tolist(), trie.edge_children.tolist()))
    node = root
    for ch in path:
        node = edges[(node << 21) | ord(ch)]
    return node


def _pops(trie: LinMaxMatchTrie, node: int) -> list[int]:
    start = trie.pop_start[node]
    return trie.pop_ids[start : start + trie.pop_count[node]].tolist()


@pytest.mark.parametrize(
    "path, link_root, link_path, pops",
    [
        # The paper's worked example: f(v) and F(v) by its definition.
        ("a", "suffix", "", [1]),  # a token pops itself, back to the suffix root
        ("ab", "suffix", "b", [1]),  # "ab" = a + ##b...
        ("abc", "suffix", "bc", [1]),  # "abc" = a + ##bc...
        ("abcd", "suffix", "", [2]),
    ],
)
def test_paper_failure_links_and_pops(path, link_root, link_path, pops):
    trie = LinMaxMatchTrie(PAPER_VOCAB, "##")
    node = _node(trie, INITIAL_ROOT, path)
    assert trie.fail_link[node] == _node(trie, trie.suffix_root, link_path)
    assert _pops(trie, node) == pops


def test_suffix_nodes_and_dead_ends():
    trie = LinMaxMatchTrie(PAPER_VOCAB, "##")
    # "##b" in the suffix trie: "b" is a token; "b" -> "c" is "##bc".
    assert _pops(trie, _node(trie, trie.suffix_root, "b")) == [3]
    # The initial trie's "#" path is not a token and has nowhere to fall back to.
    assert trie.fail_link[_node(trie, INITIAL_ROOT, "#")] == -1
    assert trie.fail_link[INITIAL_ROOT] == trie.fail_link[trie.suffix_root] == -1


@st.composite
def vocab_and_words(draw):
    suffix = draw(st.sampled_from(["##", "@@", ""]))
    alphabet = st.sampled_from(list("abc") + ["é", "中", suffix[:1] or "#"])
    piece = st.text(alphabet, min_size=1, max_size=4)
    initial = draw(st.lists(piece, max_size=8))
    non_initial = [suffix + p for p in draw(st.lists(piece, max_size=8))]
    tokens = list(dict.fromkeys(["[UNK]"] + draw(st.permutations(initial + non_initial))))
    words = draw(st.lists(st.text(alphabet, min_size=1, max_size=12), min_size=1, max_size=6))
    max_bytes = draw(st.sampled_from([None, 100, 8]))
    return tokens, suffix, words, max_bytes


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(vocab_and_words())
def test_same_ids_as_max_match(case):
    tokens, suffix, words, max_bytes = case
    reference = ReferenceBertTokenizer(tokens, suffix_indicator=suffix)
    reference.max_bytes = max_bytes
    expected = [reference.wordpiece(w) for w in words]
    lin = WordpieceTokenizer(tokens, suffix_indicator=suffix, max_bytes_per_word=max_bytes, algorithm="linmaxmatch")
    got = lin.tokenize_with_offsets(tf.constant(words))
    assert got[0].to_list() == expected
    max_match = WordpieceTokenizer(tokens, suffix_indicator=suffix, max_bytes_per_word=max_bytes, algorithm="maxmatch")
    for mine, theirs in zip(got, max_match.tokenize_with_offsets(tf.constant(words))):
        assert mine.to_list() == theirs.to_list()


@pytest.mark.parametrize("compat", ["tf_text", "hf"])
def test_bert_base_uncased_same_as_max_match(compat, vocab_path, multilingual, hard_strings, invalid_utf8):
    """Every line of the multilingual sample and every hard string: ids and offsets."""
    run = {
        algorithm: tf.function(
            twp.BertTokenizer(vocab_path, lower_case=True, compat=compat, algorithm=algorithm).tokenize_with_offsets,
            input_signature=[tf.TensorSpec([None], tf.string)],
        )
        for algorithm in ("linmaxmatch", "maxmatch")
    }
    strings = [s.encode("utf-8") for s in multilingual + hard_strings] + list(invalid_utf8)
    for batch in batches(strings):
        lin, max_match = (run[a](tf.constant(batch)) for a in ("linmaxmatch", "maxmatch"))
        assert rows(lin[0]) == rows(max_match[0])
        for mine, theirs in zip(lin[1:], max_match[1:]):
            np.testing.assert_array_equal(mine.flat_values.numpy(), theirs.flat_values.numpy())


def test_contract(tmp_path):
    tok = twp.BertTokenizer(
        ["[UNK]", "un", "##aff", "##able", "!", "a", "##b"], lower_case=True, algorithm="linmaxmatch"
    )
    ids = check_contract(tok, ["Unaffable!", "", "ab abab unab", "x y"], tmp_path)
    assert ids.to_list() == [[[1, 2, 3], [4]], [], [[5, 6], [0], [0]], [[0], [0]]]


def test_bad_algorithm():
    with pytest.raises(ValueError, match="algorithm: expected one of .*'maxmatch'.* got 'fast'"):
        WordpieceTokenizer(["[UNK]"], algorithm="fast")


def test_algorithm_reaches_every_way_to_build_a_tokenizer(tmp_path):
    """The exported module and tokenizer.json tokenizers take `algorithm` and keep their ids."""
    from helpers.data import TOKENIZER_JSON

    vocab = tmp_path / "vocab.txt"
    vocab.write_text(
        "\n".join(["[PAD]", "[UNK]", "[START]", "[END]", "un", "##aff", "##able", "!"]) + "\n", encoding="utf-8"
    )
    text = tf.constant(["Unaffable jumbo tokenization, naïvely 中文!", ""])
    modules = {
        a: twp.CustomTokenizer(["[PAD]", "[UNK]", "[START]", "[END]"], str(vocab), lower_case=True, algorithm=a)
        for a in ("linmaxmatch", "maxmatch")
    }
    from_json = {
        a: twp.BertTokenizer.from_tokenizer_json(TOKENIZER_JSON, algorithm=a) for a in ("linmaxmatch", "maxmatch")
    }
    for algorithm in ("linmaxmatch", "maxmatch"):
        assert modules[algorithm].tokenizer.wordpiece_tokenizer.algorithm == algorithm
        assert from_json[algorithm].wordpiece_tokenizer.algorithm == algorithm
    lin, max_match = (modules[a].tokenize(text).to_list() for a in ("linmaxmatch", "maxmatch"))
    assert lin == max_match and lin[0][:4] == [2, 4, 5, 6]
    lin, max_match = (from_json[a].encode(text).ids.to_list() for a in ("linmaxmatch", "maxmatch"))
    assert lin == max_match and len(lin[0]) > 8
