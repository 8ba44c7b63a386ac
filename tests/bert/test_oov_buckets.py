"""tensorflow_text's vocabulary tables with OOV buckets.

Also unknown_token=None and split_unknown_characters (issue 18, option 3).
"""

from __future__ import annotations

import pytest
import tensorflow as tf

import tf_wordpiece as twp
from helpers.contract import check_contract, every_way
from helpers.ragged import as_lists, batches, rows

text = pytest.importorskip("tensorflow_text")

VOCAB = ["[UNK]", "a", "##b", "un", "##aff", "##able", "x", "##ü", "aaaaaa", "!"]
WORDS = ["ab", "unaffable", "unzaff", "zzz", "", "aüb", "aaaaaa", "üx", "abc", "aaaaaaa"]


def table(vocab, buckets):
    init = tf.lookup.KeyValueTensorInitializer(vocab, tf.range(len(vocab), dtype=tf.int64))
    return tf.lookup.StaticVocabularyTable(init, num_oov_buckets=buckets)


def differences(ours, peer, inputs: list[bytes], *, batch_size: int) -> list[tuple]:
    """(input, ours, theirs) for every input whose (ids, begin, end) rows differ between the two tokenizers."""
    bad = []
    for batch in batches(inputs, batch_size):
        mine = list(zip(*(rows(t) for t in ours.tokenize_with_offsets(batch))))
        theirs = list(zip(*(rows(t) for t in peer.tokenize_with_offsets(batch))))
        bad += [(s, m, t) for s, m, t in zip(batch, mine, theirs) if m != t]
    return bad


@pytest.mark.parametrize("split", [False, True], ids=["whole", "split"])
@pytest.mark.parametrize("unknown", ["[UNK]", None, "<not-in-vocab>"])
@pytest.mark.parametrize("buckets", [1, 3])
def test_wordpiece_matches_tf_text(buckets, unknown, split):
    for out_type in (tf.int64, tf.string):
        options = dict(
            unknown_token=unknown, split_unknown_characters=split, token_out_type=out_type, max_bytes_per_word=6
        )
        ours = twp.WordpieceTokenizer(table(VOCAB, buckets), **options)
        peer = text.WordpieceTokenizer(table(VOCAB, buckets), **options)
        want = as_lists(peer.tokenize_with_offsets(WORDS))
        got = every_way(ours, WORDS) if out_type == tf.int64 else as_lists(ours.tokenize_with_offsets(WORDS))
        assert got == want


def test_unknown_word_ids_are_hashed_into_buckets():
    ours = twp.WordpieceTokenizer(table(VOCAB, 5), unknown_token=None)
    ids = ours.tokenize(["zzz", "qq"]).flat_values.numpy().tolist()
    assert ids == (tf.strings.to_hash_bucket_fast(["zzz", "qq"], 5) + len(VOCAB)).numpy().tolist()
    assert ours.detokenize([ids]).to_list() == [[b"[UNK]", b"[UNK]"]]  # as tensorflow_text: past the vocabulary


@pytest.mark.parametrize("split", [False, True], ids=["whole", "split"])
@pytest.mark.parametrize("unknown", ["[UNK]", None])
def test_bert_on_the_sample_head_and_hard_strings(vocab_path, vocab_tokens, multilingual, hard_strings, unknown, split):
    options = dict(lower_case=True, unknown_token=unknown, split_unknown_characters=split)
    peer = text.BertTokenizer(table(vocab_tokens, 3), **options)
    ours = twp.BertTokenizer(table(vocab_tokens, 3), offsets="normalized", **options)
    inputs = [s.encode("utf-8") for s in multilingual[:1000] + hard_strings]
    bad = differences(ours, peer, inputs, batch_size=500)
    assert not bad, f"{len(bad)} differ; first: {bad[:2]}"


def test_bert_vocab_file_has_one_bucket_like_tf_text(vocab_path):
    """tensorflow_text reads a vocab path into a table with one OOV bucket: an unknown word is id len(vocab)."""
    strings = ["hello qqqzzzxxx ☃"]
    peer = text.BertTokenizer(vocab_path, unknown_token=None, token_out_type=tf.int64)
    ours = twp.BertTokenizer(vocab_path, unknown_token=None)
    assert ours.tokenize(strings).to_list() == peer.tokenize(strings).to_list()


def test_bert_contract(tmp_path):
    tok = twp.BertTokenizer(table(VOCAB, 3), unknown_token=None, split_unknown_characters=True)
    ids = check_contract(tok, ["ab zzz unaffable!", "", "aüb qq"], tmp_path)
    assert ids.to_list()[0][0] == [1, 2]
    strings = twp.BertTokenizer(
        table(VOCAB, 3), unknown_token=None, split_unknown_characters=True, token_out_type=tf.string
    )
    assert strings.tokenize(["azz"]).to_list() == [[[b"a", b"##z", b"##z"]]]


def test_bad_combinations():
    with pytest.raises(ValueError, match="split_unknown_characters: True needs algorithm='maxmatch'"):
        twp.WordpieceTokenizer(VOCAB, split_unknown_characters=True, algorithm="linmaxmatch")
    with pytest.raises(ValueError, match="unknown_token: None is only for compat='tf_text'"):
        twp.BertTokenizer(VOCAB, compat="hf", unknown_token=None)
    with pytest.raises(ValueError, match="split_unknown_characters=True: only for compat='tf_text'"):
        twp.BertTokenizer(VOCAB, compat="hf", split_unknown_characters=True)
    with pytest.raises(ValueError, match="lacks"):  # a list has no buckets of the user's: the token must be there
        twp.WordpieceTokenizer(VOCAB, unknown_token="<unk>")


@pytest.mark.slow
@pytest.mark.parametrize("split", [False, True], ids=["whole", "split"])
def test_bert_whole_sample_unknown_none(vocab_tokens, multilingual, hard_strings, invalid_utf8, split):
    """Invalid UTF-8 included: an unknown word holding it is its raw bytes, hashed as tensorflow_text hashes it."""
    options = dict(lower_case=True, unknown_token=None, split_unknown_characters=split)
    peer = text.BertTokenizer(table(vocab_tokens, 3), **options)
    ours = twp.BertTokenizer(table(vocab_tokens, 3), offsets="normalized", **options)
    inputs = [s.encode("utf-8") for s in multilingual + hard_strings] + list(invalid_utf8)
    bad = differences(ours, peer, inputs, batch_size=1000)
    assert not bad, f"{len(bad)} of {len(inputs)} differ; first: {bad[:2]}"
