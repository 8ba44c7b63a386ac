"""SubwordTextEncoder learning.

Targets below the alphabet plus reserved tokens, and tfds's max_corpus_chars (issue 18, option 5).
"""

from __future__ import annotations

import pytest
import tensorflow as tf

import tf_wordpiece as twp
from tf_wordpiece import subword as sl

tfds = pytest.importorskip("tensorflow_datasets")


@pytest.mark.parametrize("reserved", [None, ["<EOS>", "<mask-1>"]], ids=["no-reserved", "reserved"])
@pytest.mark.parametrize("target", [258, 262, 300])
def test_tfds_small_targets_build_as_tfds(multilingual, target, reserved):
    lines = multilingual[:150]  # about 150 distinct characters: 257 + alphabet is over every target
    peer = tfds.deprecated.text.SubwordTextEncoder.build_from_corpus(iter(lines), target, reserved_tokens=reserved)
    ours = twp.SubwordTextEncoder.build_from_corpus(
        lines, target, compat="tfds", reserved_tokens=reserved, verbose=False
    )
    assert ours.subtokens == peer.subwords
    assert int(ours.vocab_size()) == peer.vocab_size
    assert ours.encode(lines[3]).numpy().tolist() == peer.encode(lines[3])


def test_tfds_refuses_below_its_minimum(multilingual):
    with pytest.raises(ValueError, match="258"):
        tfds.deprecated.text.SubwordTextEncoder.build_from_corpus(iter(multilingual[:50]), 257)
    with pytest.raises(ValueError, match=r"target_size: expected an int >= 258"):
        twp.SubwordTextEncoder.build_from_corpus(multilingual[:50], 257, compat="tfds", verbose=False)


@pytest.mark.parametrize("target", [1, 10, 60])
def test_t2t_small_targets_build_the_alphabet(multilingual, target):
    """tensor2tensor's build_to_target_size: the bisection ends at the largest min_count, where no
    substring is frequent enough: the reserved tokens and the alphabet alone, still lossless."""
    lines = multilingual[:100]
    enc = twp.SubwordTextEncoder.build_from_corpus(lines, target, verbose=False)
    counts = sl.corpus_token_counts(lines)
    alphabet = sl.alphabet_of(counts)
    assert enc.subtokens[:2] == ["<pad>_", "<EOS>_"]
    assert set(enc.subtokens[2:]) == set(alphabet)
    assert enc.subtokens == sl.build_from_token_counts(counts, 1000)  # what t2t's bisection ends with
    ids = enc.encode(tf.constant(lines[:20]))
    assert [s.decode() for s in enc.decode(ids).numpy()] == lines[:20]


@pytest.mark.parametrize("max_chars", [None, 0, 1, 37, 500, 5000])
def test_max_corpus_chars_counts_like_tfds(multilingual, max_chars):
    from tensorflow_datasets.core.deprecated.text import subword_text_encoder as peer

    lines = multilingual[:200]
    want = peer._token_counts_from_generator(iter(lines), max_chars=max_chars, reserved_tokens=["<EOS>"])
    got = sl.corpus_token_counts(lines, compat="tfds", reserved_tokens=["<EOS>"], max_corpus_chars=max_chars)
    assert got == want


def test_max_corpus_chars_learns_like_tfds(multilingual):
    lines = multilingual[:400]
    peer = tfds.deprecated.text.SubwordTextEncoder.build_from_corpus(iter(lines), 400, max_corpus_chars=3000)
    ours = twp.SubwordTextEncoder.build_from_corpus(lines, 400, compat="tfds", max_corpus_chars=3000, verbose=False)
    assert ours.subtokens == peer.subwords
    t2t = twp.SubwordTextEncoder.build_from_corpus(lines, 400, max_corpus_chars=3000, verbose=False)
    assert (
        t2t.subtokens
        == twp.SubwordTextEncoder.build_from_corpus(_first_chars(lines, 3000), 400, verbose=False).subtokens
    )


def _first_chars(lines, n):
    out = []
    for line in lines:
        if n <= 0:
            break
        out.append(line[:n])
        n -= len(out[-1])
    return out


def test_max_corpus_chars_argument():
    with pytest.raises(ValueError, match="max_corpus_chars: expected a non-negative int or None, got -1"):
        sl.corpus_token_counts(["a"], max_corpus_chars=-1)
