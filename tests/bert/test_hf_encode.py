"""encode / decode / save against Hugging Face tokenizers.

Templates, pairs, truncation, padding and tokenizer.json variants.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import tensorflow as tf

import tf_wordpiece as twp
from helpers.data import TOKENIZER_JSON, VOCAB
from helpers.oracles import compare_encode, hf_oracle, hf_with
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


# --- tokenizer.json variants ---------------------------------------------------------------------


def _spec() -> dict:
    return json.loads(TOKENIZER_JSON.read_text(encoding="utf-8"))


def _variant(name: str) -> dict:
    spec = _spec()
    if name.startswith("normalizer:"):
        key, value = name.split(":")[1].split("=")
        spec["normalizer"][key] = json.loads(value)
    elif name == "max_input_chars_per_word=5":
        spec["model"]["max_input_chars_per_word"] = 5
    elif name == "unk and prefix":
        vocab = spec["model"]["vocab"]
        renamed = {
            ("<unk>" if t == "[UNK]" else "@@" + t[2:] if t.startswith("##") else t): i for t, i in vocab.items()
        }
        spec["model"].update(vocab=renamed, unk_token="<unk>", continuing_subword_prefix="@@")
        spec["decoder"]["prefix"] = "@@"
        for token in spec["added_tokens"]:
            if token["content"] == "[UNK]":
                token["content"] = "<unk>"
    elif name == "extra added tokens":
        size = len(spec["model"]["vocab"])
        extra = [
            dict(content="<ent>", special=False, lstrip=True, rstrip=True),
            dict(content="[SPK]", special=True, single_word=True),
            dict(content="hello", special=False, lstrip=True),  # also a vocabulary word
            dict(content="<e2>", special=True, rstrip=True),
        ]
        for i, token in enumerate(extra):
            defaults = dict(id=size + i, single_word=False, lstrip=False, rstrip=False, normalized=False)
            spec["added_tokens"].append({**defaults, **token})
    return spec


VARIANTS = [
    "normalizer:lowercase=false",
    "normalizer:strip_accents=true",
    "normalizer:strip_accents=false",
    "normalizer:handle_chinese_chars=false",
    "normalizer:clean_text=false",
    "max_input_chars_per_word=5",
    "unk and prefix",
    "extra added tokens",
]
ADDED_TOKEN_TEXTS = [
    "a <ent> b",
    "a<ent>b",
    "x  <ent>  y <e2>  z",
    "[SPK] said",
    "x[SPK] y",
    "[SPK]",
    "é[SPK]",
    "_[SPK]",
    "say hello  there",
    "Hello hello",
    "<ent><ent>  <e2><e2>",
    "\u3000<ent>\u00a0x",
    "[MASK]<ent> [SEP]",
]


@pytest.mark.slow
@pytest.mark.parametrize("variant", VARIANTS)
def test_tokenizer_json_variants_load_and_match_hf(sample, tmp_path, variant):
    spec = _variant(variant)
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    tok = twp.BertTokenizer.from_tokenizer_json(path)
    peer = hf_with(spec=spec)
    texts = sample[:1500] + ADDED_TOKEN_TEXTS
    pairs = texts[1:] + texts[:1]
    bad = compare_encode(tok, peer, texts) + compare_encode(tok, peer, texts, pairs)
    ids = tok.encode(texts).ids
    decoded = [s.decode("utf-8") for s in tok.decode(ids, skip_special_tokens=True).numpy().tolist()]
    bad += [(m, h) for m, h in zip(decoded, peer.decode_batch(row_lists(ids))) if m != h]
    assert not bad, f"{len(bad)} differ; first: {bad[:2]}"
    # What we write loads in HF and gives the same ids as the original file.
    tok.save(tmp_path / "saved.json")
    reloaded = tokenizers.Tokenizer.from_file(str(tmp_path / "saved.json"))
    assert [e.ids for e in reloaded.encode_batch(texts)] == [e.ids for e in peer.encode_batch(texts)]
    again = twp.BertTokenizer.from_tokenizer_json(tmp_path / "saved.json")
    assert row_lists(again.encode(texts).ids) == row_lists(ids)


def test_save_round_trip_keeps_casing_and_accent_rules(tmp_path):
    for options in (
        dict(lower_case=False),
        dict(lower_case=True, strip_accents=False),
        dict(lower_case=False, strip_accents=True),
    ):
        tok = twp.BertTokenizer(TINY + ["é", "É", "e"], compat="hf", **options)
        tok.save(tmp_path / "t.json")
        again = twp.BertTokenizer.from_tokenizer_json(tmp_path / "t.json")
        assert again.recipe == tok.recipe
        text = ["Hello É é"]
        assert again.encode(text).ids.to_list() == tok.encode(text).ids.to_list()
        peer = tokenizers.Tokenizer.from_file(str(tmp_path / "t.json"))
        assert peer.encode(text[0]).ids == tok.encode(text).ids.to_list()[0]


def test_save_refuses_what_tokenizer_json_cannot_express(tmp_path):
    with pytest.raises(ValueError, match="compat: only compat='hf'"):
        twp.BertTokenizer(TINY).save(tmp_path / "t.json")
    with pytest.raises(ValueError, match="max_bytes_per_word"):
        twp.BertTokenizer(TINY, compat="hf", max_bytes_per_word=10).save(tmp_path / "t.json")
    assert not list(tmp_path.iterdir())  # nothing half-written


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda s: s["model"].update(type="BPE"), "model type 'BPE' is not supported"),
        (
            lambda s: s.update(normalizer={"type": "Sequence", "normalizers": [{"type": "Replace"}]}),
            "normalizer 'Sequence'",
        ),
        (lambda s: s.update(pre_tokenizer={"type": "Metaspace"}), "pre_tokenizer 'Metaspace'"),
        (lambda s: s.update(decoder={"type": "ByteLevel"}), "decoder 'ByteLevel'"),
        (lambda s: s.update(post_processor={"type": "RobertaProcessing"}), "post_processor 'RobertaProcessing'"),
    ],
)
def test_unsupported_components_are_named(tmp_path, change, message):
    spec = _spec()
    change(spec)
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        twp.BertTokenizer.from_tokenizer_json(path)


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


def test_bert_pack_inputs_with_compat_hf_match_hf(tmp_path):
    from tf_wordpiece.export.module import CustomTokenizer

    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[START]", "[END]", "hello", "world", "!"]
    path = tmp_path / "vocab.txt"
    path.write_text("\n".join(vocab) + "\n", encoding="utf-8")
    module = CustomTokenizer(
        ["[PAD]", "[UNK]", "[START]", "[END]"], str(path), seq_length=6, compat="hf", lower_case=True
    )
    peer = tokenizers.Tokenizer.from_str(tok_json(module.tokenizer))
    peer.enable_truncation(6)
    peer.enable_padding(length=6)
    a, b = ["Hello world! hello", "hello"], ["world world world", "!"]
    got = module.bert_pack_pair_inputs(tf.constant(a), tf.constant(b))
    want = peer.encode_batch(list(zip(a, b)))
    assert got["input_word_ids"].numpy().tolist() == [e.ids for e in want]
    assert got["input_type_ids"].numpy().tolist() == [e.type_ids for e in want]
    assert got["input_mask"].numpy().tolist() == [e.attention_mask for e in want]
    single = module.bert_pack_inputs(tf.constant(a))["input_word_ids"].numpy().tolist()
    assert single == [e.ids for e in peer.encode_batch(a)]
