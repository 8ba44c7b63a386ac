"""The Hugging Face side of BertTokenizer (tf_wordpiece.bert_tokenizer.hugging_face): encode / decode against
tokenizers: templates, pairs, truncation, padding, decode, is_pretokenized=True, tf.data and SavedModel.

The stages have their own files: tests/bert/test_post_processors.py (templates, truncation, padding, the
Encoding's fields), test_decoders.py, test_tokenizer_json.py (reading and writing tokenizer.json).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import tensorflow as tf

import tf_wordpiece as twp
from helpers.contract import assert_ragged_equal
from helpers.data import TOKENIZER_JSON, VOCAB
from helpers.oracles import byte_ends, compare_encode, hf_oracle, hf_with
from helpers.ragged import batches, row_lists

tokenizers = pytest.importorskip("tokenizers")

TINY = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "hello", "world", "!", ".", "'", "s", "t", "don", "##s", "a"]


@pytest.fixture(scope="module")
def ours():
    return twp.BertTokenizer.from_tokenizer_json(TOKENIZER_JSON)


@pytest.fixture(scope="module")
def sample(multilingual, hard_strings):
    return multilingual + hard_strings


@pytest.mark.slow
@pytest.mark.parametrize("paired", [False, True], ids=["single", "pair"])
def test_template_ids_types_offsets_and_decode_on_the_whole_sample(ours, sample, paired):
    peer = hf_oracle()
    bad, bad_decode = [], []
    for texts in batches(sample):
        pairs = texts[1:] + texts[:1] if paired else None  # consecutive lines
        bad += compare_encode(ours, peer, texts, pairs)
        if not paired:
            ids = ours.encode(texts).ids
            for skip in (True, False):
                mine = [s.decode("utf-8") for s in ours.decode(ids, skip_special_tokens=skip).numpy().tolist()]
                theirs = peer.decode_batch(row_lists(ids), skip_special_tokens=skip)
                bad_decode += [(m, h) for m, h in zip(mine, theirs) if m != h]
    assert not bad, f"{len(bad)} of {len(sample)} differ; first: {bad[:2]}"
    assert not bad_decode, f"decode: {len(bad_decode)} differ; first: {bad_decode[:3]}"


@pytest.mark.slow
@pytest.mark.parametrize("max_length", [8, 16, 128])
@pytest.mark.parametrize("truncation", ["longest_first", "only_first", "only_second"])
def test_truncation_and_padding_match_hf(ours, sample, truncation, max_length):
    texts = sample[:1000] + sample[-500:]
    pairs = texts[1:] + texts[:1]
    paddings = [(None, None), ("longest", None), ("max_length", None), ("longest", 8)]
    if truncation != "longest_first":
        paddings = [("max_length", None)]
    bad = []
    for padding, multiple in paddings:
        peer = hf_with(truncation, max_length, padding, multiple)
        options = dict(truncation=truncation, max_length=max_length, padding=padding, pad_to_multiple_of=multiple)
        for single in (True, False):
            if single and truncation == "only_second":
                continue  # needs a pair wherever it cuts; tested below
            a, b = (texts, None) if single else (texts, pairs)
            ok = [i for i in range(len(a)) if _hf_accepts(peer, a[i], None if b is None else b[i])]
            if len(ok) < len(a):  # HF refuses the whole batch: so do we
                with pytest.raises(tf.errors.InvalidArgumentError, match="Truncation error"):
                    ours.encode(a, b, **options)
            a = [a[i] for i in ok]
            b = None if b is None else [b[i] for i in ok]
            assert len(a) >= 300  # the comparison still covers many rows
            bad += compare_encode(ours, peer, a, b, **options)
    assert not bad, f"{len(bad)} differ; first: {bad[:2]}"


def _hf_accepts(peer, text, pair) -> bool:
    try:
        peer.encode(text, pair)
        return True
    except Exception:  # HF's truncation errors are plain Exceptions
        return False


@pytest.mark.parametrize(
    "truncation, texts, pairs",
    [
        ("only_first", ["a"], ["hello world hello world hello world"]),
        ("only_second", ["hello world hello world hello world"], ["a"]),
        ("only_second", ["hello world hello world hello world"], None),
    ],
)
def test_truncation_that_cannot_fit_is_an_error_like_hf(truncation, texts, pairs):
    tok = twp.BertTokenizer(TINY, compat="hf", lower_case=True)
    peer = hf_with(truncation, 6, spec=json.loads(tok_json(tok)))
    with pytest.raises(Exception, match="Truncation error"):
        peer.encode_batch(texts if pairs is None else list(zip(texts, pairs)))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Truncation error"):
        tok.encode(texts, pairs, truncation=truncation, max_length=6)


def tok_json(tok) -> str:
    from tf_wordpiece.bert.tokenizer_json import tokenizer_json

    return json.dumps(tokenizer_json(tok))


def test_max_length_below_the_template_is_a_value_error():
    """HF's usize subtraction wraps around there and nothing is truncated; we refuse it."""
    tok = twp.BertTokenizer(TINY, compat="hf", lower_case=True)
    peer = hf_with("longest_first", 2, spec=json.loads(tok_json(tok)))
    assert len(peer.encode("hello world", "hello world").ids) == 7  # not truncated to 2
    with pytest.raises(ValueError, match="max_length: 2 is less than the 3 special tokens"):
        tok.encode(["hello world"], ["hello world"], truncation=True, max_length=2)
    # Without special tokens the full max_length counts.
    enc = tok.encode(["hello world"], ["hello world"], add_special_tokens=False, truncation=True, max_length=2)
    assert enc.ids.to_list() == [[5, 5]]


def test_padding_to_max_length_needs_rows_that_fit():
    tok = twp.BertTokenizer(TINY, compat="hf", lower_case=True)
    with pytest.raises(tf.errors.InvalidArgumentError, match="more than max_length=4"):
        tok.encode(["hello world hello"], padding="max_length", max_length=4)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(truncation="only_third", max_length=8), "truncation: expected one of"),
        (dict(truncation=True), "max_length: truncation='longest_first' needs max_length"),
        (dict(padding="max_length"), "max_length: padding='max_length' needs max_length"),
        (dict(padding="left"), "padding: expected one of"),
        (dict(pad_to_multiple_of=8), "pad_to_multiple_of: 8 needs padding"),
        (dict(truncation=True, max_length=-1), "max_length: expected a non-negative int"),
    ],
)
def test_bad_encode_options(kwargs, message):
    tok = twp.BertTokenizer(TINY, compat="hf", lower_case=True)
    with pytest.raises(ValueError, match=message):
        tok.encode(["hello"], **kwargs)


def test_mask_in_text_is_one_id_and_tf_text_mode_splits_it():
    hf_mode = twp.BertTokenizer(TINY, compat="hf", lower_case=True)
    assert hf_mode.encode(["hello [MASK]!"]).ids.to_list() == [[2, 5, 4, 7, 3]]
    tf_mode = twp.BertTokenizer(TINY + ["[", "]", "mask"], lower_case=True)
    assert tf_mode.encode(["[MASK]"]).ids.to_list() == [[2, 15, 17, 16, 3]]
    opt_in = twp.BertTokenizer(TINY, lower_case=True, special_tokens=["[MASK]"])
    assert opt_in.encode(["[MASK]"]).ids.to_list() == [[2, 4, 3]]


def test_decode_cleanup_per_token_and_whole_string():
    """tokenizers cleans each token alone (" ' " never fires); transformers' option cleans the string."""
    tok = twp.BertTokenizer(TINY, compat="hf", lower_case=True)
    ids = [[2, 12, 9, 11, 5, 9, 10, 8, 3]]  # [CLS] don ' t hello ' s . [SEP]
    peer = tokenizers.Tokenizer.from_str(tok_json(tok))
    assert tok.decode(ids).numpy()[0].decode() == peer.decode(ids[0]) == "don ' t hello ' s."
    whole = tok.decode(ids, clean_up_tokenization_spaces=True).numpy()[0].decode()
    assert whole == _transformers_clean_up(peer.decode(ids[0])) == "don't hello's."


def _transformers_clean_up(text: str) -> str:
    for old, new in (
        (" .", "."),
        (" ?", "?"),
        (" !", "!"),
        (" ,", ","),
        (" ' ", "'"),
        (" n't", "n't"),
        (" 'm", "'m"),
        (" 's", "'s"),
        (" 've", "'ve"),
        (" 're", "'re"),
    ):
        text = text.replace(old, new)
    return text


def test_decode_skips_ids_without_tokens_and_takes_dense_input(ours):
    peer = hf_oracle()
    ids = [[101, 7592, 99999, 2088, 102, 0, 0]]
    for skip in (True, False):
        got = ours.decode(tf.constant(ids), skip_special_tokens=skip).numpy()[0].decode()
        assert got == peer.decode_batch(ids, skip_special_tokens=skip)[0]


@pytest.mark.slow
def test_from_vocab_equals_from_tokenizer_json(ours, sample):
    from_vocab = twp.BertTokenizer.from_vocab(VOCAB)
    for texts in batches(sample):
        assert row_lists(from_vocab.encode(texts).ids) == row_lists(ours.encode(texts).ids)


# --- the contract: tf.data and a reloaded SavedModel ---------------------------------------------


def test_encode_and_decode_in_tf_data_and_a_saved_model(ours, tmp_path):
    texts = ["Hello [MASK] world!", "", "Ünïcode 日本語 l'eure, don't", "a b c d e f g h i j k l"]
    pairs = texts[::-1]
    options = dict(truncation="longest_first", max_length=8, padding="max_length")
    eager = ours.encode(texts, pairs, **options)
    ragged = ours.encode(texts)

    ds = tf.data.Dataset.from_tensor_slices((texts, pairs)).batch(2).map(lambda a, b: ours.encode(a, b, **options))
    got = [np.concatenate([getattr(e, f).numpy() for e in ds]) for f in eager._fields]
    for name, g, w in zip(eager._fields, got, eager):
        assert g.tolist() == w.numpy().tolist(), name
    per_element = list(tf.data.Dataset.from_tensor_slices(texts).map(lambda s: ours.encode(s).ids))
    assert [t.numpy().tolist() for t in per_element] == ragged.ids.to_list()

    class Wrapper(tf.Module):
        def __init__(self):
            super().__init__()
            self.tokenizer = ours

        @tf.function(input_signature=[tf.TensorSpec([None], tf.string), tf.TensorSpec([None], tf.string)])
        def encode(self, a, b):
            return self.tokenizer.encode(a, b, **options)._asdict()

        @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
        def encode_ragged(self, a):
            return self.tokenizer.encode(a)._asdict()

        @tf.function(input_signature=[tf.RaggedTensorSpec([None, None], tf.int64)])
        def decode(self, ids):
            return self.tokenizer.decode(ids)

    tf.saved_model.save(Wrapper(), str(tmp_path / "model"))
    loaded = tf.saved_model.load(str(tmp_path / "model"))
    out = loaded.encode(tf.constant(texts), tf.constant(pairs))
    for name, want in zip(eager._fields, eager):
        assert out[name].numpy().tolist() == want.numpy().tolist(), name
    out = loaded.encode_ragged(tf.constant(texts))
    for name, want in zip(ragged._fields, ragged):
        assert out[name].to_list() == want.to_list(), name
    assert loaded.decode(ragged.ids).numpy().tolist() == ours.decode(ragged.ids).numpy().tolist()


# --- encode(..., is_pretokenized=True) against tokenizers' is_pretokenized=True (issue 18, option 2) ---------


def hf_rows(encodings, words, pair_words) -> list:
    """Per row: ids, type_ids, byte offsets into each word, special_tokens_mask, word_ids, sequence_ids."""
    out = []
    for i, e in enumerate(encodings):
        texts = (words[i], pair_words[i] if pair_words is not None else None)
        offsets = []
        for s, w, (a, b) in zip(e.sequence_ids, e.word_ids, e.offsets):
            ends = [0] if s is None else byte_ends(texts[s][w])
            offsets.append([0, 0] if s is None else [ends[a], ends[b]])
        none = lambda values: [-1 if v is None else v for v in values]  # noqa: E731
        out.append((e.ids, e.type_ids, offsets, e.special_tokens_mask, none(e.word_ids), none(e.sequence_ids)))
    return out


def our_rows(enc) -> list:
    fields = (enc.ids, enc.type_ids, enc.offsets, enc.special_tokens_mask, enc.word_ids, enc.sequence_ids)
    return list(zip(*(t.to_list() if isinstance(t, tf.RaggedTensor) else t.numpy().tolist() for t in fields)))


def compare_pretokenized(ours, peer, words, pair_words=None, **options) -> list:
    inputs = words if pair_words is None else list(zip(words, pair_words))
    want = hf_rows(peer.encode_batch(inputs, is_pretokenized=True), words, pair_words)
    got = our_rows(ours.encode(words, pair_words, is_pretokenized=True, **options))
    return [(w, g, h) for w, g, h in zip(words, got, want) if g != h]


WORDS = [
    ["Hello", "world!"],
    ["Héllo wörld", "", "[MASK]", "x[MASK]"],
    [],
    ["日本", "語"],
    ["\x00", "a\u0301b"],
    ["don't", "[UNK]", "   ", "ab" * 80],
]


def test_pretokenized_tiny_batches_match_tokenizers(ours):
    peer = hf_oracle()
    assert not compare_pretokenized(ours, peer, WORDS)
    assert not compare_pretokenized(ours, peer, WORDS, WORDS[::-1])


def test_pretokenized_one_example_drops_the_batch_axis(ours):
    enc = ours.encode(["Hello", "world!"], is_pretokenized=True)
    e = hf_oracle().encode(["Hello", "world!"], is_pretokenized=True)
    assert enc.ids.numpy().tolist() == e.ids
    assert enc.word_ids.numpy().tolist() == [-1, 0, 1, 1, -1]


def test_pretokenized_inputs_of_every_kind(ours):
    want = ours.encode([["a", "b"], ["c"]], is_pretokenized=True).ids.to_list()
    ragged = tf.ragged.constant([["a", "b"], ["c"]])
    assert ours.encode(ragged, is_pretokenized=True).ids.to_list() == want
    assert ours.encode(ragged.with_row_splits_dtype(tf.int32), is_pretokenized=True).ids.to_list() == want
    dense = ours.encode(tf.constant([["a", "b"], ["c", "d"]]), is_pretokenized=True).ids.to_list()
    assert dense == ours.encode([["a", "b"], ["c", "d"]], is_pretokenized=True).ids.to_list()
    with pytest.raises(ValueError, match=r"texts: with is_pretokenized=True expected words"):
        ours.encode(tf.constant([[["a"]]]), is_pretokenized=True)
    with pytest.raises(ValueError, match="pairs: must have the same shape"):
        ours.encode([["a"]], ["b"], is_pretokenized=True)


def test_pretokenized_truncation_and_padding(ours):
    peer = hf_oracle()
    peer.enable_truncation(6)
    peer.enable_padding()
    assert not compare_pretokenized(
        ours, peer, WORDS, WORDS[::-1], truncation="longest_first", max_length=6, padding="longest"
    )


def test_pretokenized_every_way(ours, tmp_path):
    words = tf.ragged.constant(WORDS[:4], dtype=tf.string)
    eager = ours.encode(words, is_pretokenized=True, padding="longest")

    def encode(w):
        enc = ours.encode(w, is_pretokenized=True, padding="longest")
        return {"ids": enc.ids, "word_ids": enc.word_ids, "offsets": enc.offsets}

    spec = tf.RaggedTensorSpec([None, None], tf.string, ragged_rank=1, row_splits_dtype=tf.int64)
    graph = tf.function(encode, input_signature=[spec])(words)
    dataset = next(iter(tf.data.Dataset.from_tensors(words).map(encode)))
    module = tf.Module()
    module.tok = ours
    module.encode = tf.function(encode, input_signature=[spec])
    tf.saved_model.save(module, str(tmp_path / "m"))
    loaded = tf.saved_model.load(str(tmp_path / "m")).encode(words)
    for name in ("ids", "word_ids", "offsets"):
        for way, got in (("tf.function", graph), ("tf.data", dataset), ("SavedModel", loaded)):
            assert_ragged_equal(got[name], getattr(eager, name), f"{way} {name}")


@pytest.mark.parametrize("split", ["spaces", "chars"])
def test_pretokenized_hard_strings_and_sample_head(ours, multilingual, hard_strings, split):
    peer = hf_oracle()
    lines = multilingual[:300] + hard_strings
    cut = str.split if split == "spaces" else (lambda s: list(s[:40]))
    bad = []
    for batch in batches([cut(line) for line in lines], 500):
        bad += compare_pretokenized(ours, peer, batch)
    assert not bad, f"{len(bad)} differ; first: {bad[:2]}"


@pytest.mark.slow
def test_pretokenized_whole_sample(ours, multilingual, hard_strings):
    peer = hf_oracle()
    words = [line.split(" ") for line in multilingual + hard_strings]
    bad = []
    for batch in batches(words, 1000):
        bad += compare_pretokenized(ours, peer, batch, batch[1:] + batch[:1])
    assert not bad, f"{len(bad)} of {len(words)} differ; first: {bad[:2]}"
