"""tokenizer.json (tf_wordpiece.bert.tokenizer_json): files read into BertTokenizer(compat="hf") and written from
it, against tokenizers: the variants of the BERT file, fields tokenizers requires, what cannot be read or written."""

from __future__ import annotations

import json
import pathlib

import pytest

import tf_wordpiece as twp
from helpers.data import TOKENIZER_JSON
from helpers.oracles import compare_encode, hf_with
from helpers.ragged import row_lists
from tf_wordpiece.bert.tokenizer_json import bert_kwargs_from_tokenizer_json, tokenizer_json

tokenizers = pytest.importorskip("tokenizers")

TINY = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "hello", "world", "!", ".", "'", "s", "t", "don", "##s", "a"]


@pytest.fixture(scope="module")
def sample(multilingual, hard_strings):
    return multilingual + hard_strings


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


# --- fields tokenizers requires: a file without them is refused, naming the file and the field (issue 18, fault 7)


@pytest.mark.parametrize("how", ["missing", "null"])
@pytest.mark.parametrize("field", ["unk_token", "continuing_subword_prefix", "max_input_chars_per_word"])
def test_wordpiece_model_field_is_required(field, how, tmp_path):
    spec = json.loads(TOKENIZER_JSON.read_text(encoding="utf-8"))
    if how == "missing":
        del spec["model"][field]
    else:
        spec["model"][field] = None
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    with pytest.raises(Exception):  # the oracle refuses it too
        tokenizers.Tokenizer.from_file(str(path))
    with pytest.raises(ValueError, match=rf"tokenizer\.json'.*model\.{field} is missing") as info:
        twp.BertTokenizer.from_tokenizer_json(path)
    assert str(path) in str(info.value) and "add it" in str(info.value)


# --- reading: what each part of the file becomes, and the errors that name the field -------------------------


def _write(tmp_path, spec) -> str:
    path = tmp_path / "tokenizer.json"
    path.write_text(spec if isinstance(spec, str) else json.dumps(spec), encoding="utf-8")
    return str(path)


def test_what_the_bert_file_reads_into():
    kwargs = bert_kwargs_from_tokenizer_json(TOKENIZER_JSON)
    assert kwargs["compat"] == "hf" and kwargs["unknown_token"] == "[UNK]" and kwargs["suffix_indicator"] == "##"
    assert (kwargs["lower_case"], kwargs["strip_accents"], kwargs["max_input_chars_per_word"]) == (True, None, 100)
    assert [(t.content, t.id, t.special) for t in kwargs["special_tokens"]] == [
        ("[PAD]", 0, True),
        ("[UNK]", 100, True),
        ("[CLS]", 101, True),
        ("[SEP]", 102, True),
        ("[MASK]", 103, True),
    ]
    template = kwargs["post_processor"]
    assert template.special_tokens == {"[CLS]": (101,), "[SEP]": (102,)}
    assert (template.pad_id, template.pad_token) == (0, "[PAD]")
    assert tuple(kwargs["decoder"]) == ("##", True)


@pytest.mark.parametrize(
    "added, ids",
    [
        ([("[MASK]", 7)], [103]),  # in the vocabulary: its vocabulary id, whatever the file says
        ([("<a>", 5), ("<b>", 0)], [30522, 30523]),  # not in it: the next ids past the vocabulary, in order
        ([("<a>", 9), ("hello", 1), ("<a>", 3)], [30522, 7592, 30522]),  # a repeat keeps its first id
    ],
    ids=["in-vocabulary", "new", "repeated"],
)
def test_added_token_ids_are_the_ones_tokenizers_assigns(tmp_path, added, ids):
    spec = json.loads(TOKENIZER_JSON.read_text(encoding="utf-8"))
    spec["added_tokens"] = [
        dict(id=i, content=c, single_word=False, lstrip=False, rstrip=False, normalized=False, special=True)
        for c, i in added
    ]
    path = _write(tmp_path, spec)
    assert [t.id for t in bert_kwargs_from_tokenizer_json(path)["special_tokens"]] == ids
    peer = tokenizers.Tokenizer.from_file(path)
    assert [peer.token_to_id(c) for c, _ in added] == ids


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda s: s["model"]["vocab"].update({"hello": "7592"}), r"model\.vocab\['hello'\] must be a JSON integer"),
        (lambda s: s["model"]["vocab"].update({"zzz": 40000}), "model.vocab ids must be dense"),
        (lambda s: s["model"].update(vocab={}), "model.vocab must be a non-empty token -> id object"),
        (lambda s: s["normalizer"].update(lowercase="yes"), "normalizer.lowercase must be a JSON boolean"),
        (lambda s: s.update(pre_tokenizer=None), "pre_tokenizer None is not supported; only BertPreTokenizer"),
        (lambda s: s["added_tokens"].append({"content": 3}), "added_tokens entry .* needs a string 'content'"),
        (lambda s: s["added_tokens"][0].update(lstrip=1), r"added token '\[PAD\]'.lstrip must be a JSON boolean"),
        (lambda s: s.update(padding={"direction": "Left"}), "padding direction 'Left' is not supported"),
        (lambda s: s["post_processor"].update(single=[{"Sequence": {"id": "B"}}]), r"post_processor: single:"),
        (lambda s: s["post_processor"].update(single=[{"Other": {}}]), r"post_processor.single\[0\] must be"),
        (lambda s: s["decoder"].update(cleanup="no"), "decoder.cleanup must be a JSON boolean"),
    ],
    ids=[
        "vocab-id-type",
        "vocab-ids-dense",
        "vocab-empty",
        "normalizer-flag",
        "no-pre-tokenizer",
        "added-token-content",
        "added-token-flag",
        "padding-direction",
        "template-sequence",
        "template-piece",
        "decoder-flag",
    ],
)
def test_bad_fields_are_named(tmp_path, change, message):
    spec = json.loads(TOKENIZER_JSON.read_text(encoding="utf-8"))
    change(spec)
    path = _write(tmp_path, spec)
    with pytest.raises(ValueError, match=message) as info:
        bert_kwargs_from_tokenizer_json(path)
    assert path in str(info.value)


@pytest.mark.parametrize(
    "content, message",
    [
        (None, "tokenizer.json .* does not exist"),
        ("{not json", "is not a valid JSON tokenizer file"),
        ("[1, 2]", "has no 'model' object; is it a tokenizers tokenizer.json"),
        (b"", r"is empty; pass a tokenizers tokenizer.json"),
        (b"\x00" * 100, r"is not a text file \(it holds NUL bytes\)"),
        (b"[PAD]\n[UNK]\nhello\n", r"is not JSON but reads like a vocab.txt \(one token a line\); BertTokenizer"),
        (b"hello\n##s\n", r"is not JSON but reads like a vocab.txt"),
        ("caf\u00e9\n".encode("latin-1"), r"is not UTF-8 text: line 1 holds the byte 0xe9 at byte offset 3"),
        ("folder", r"is a folder; pass the path of the tokenizer.json inside it"),
    ],
    ids=["missing", "not-json", "no-model", "empty", "binary", "vocab-txt-pad", "vocab-txt", "latin-1", "folder"],
)
def test_files_that_are_not_tokenizer_json(tmp_path, content, message):
    """Each is found by vocab_text.read_tokenizer_json, which the command line runs before TensorFlow loads."""
    path = tmp_path / "tokenizer.json"
    if content == "folder":
        path.mkdir()
    elif isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path = pathlib.Path(_write(tmp_path, content))
    with pytest.raises(FileNotFoundError if content is None else ValueError, match=f"^path: .*{message}"):
        twp.BertTokenizer.from_tokenizer_json(str(path))


def test_no_normalizer_post_processor_or_decoder(tmp_path):
    """tokenizers then normalizes nothing, adds no special token and joins tokens with spaces: so do we."""
    spec = json.loads(TOKENIZER_JSON.read_text(encoding="utf-8"))
    spec.update(normalizer=None, post_processor=None, decoder=None)
    path = _write(tmp_path, spec)
    ours, peer = twp.BertTokenizer.from_tokenizer_json(path), hf_with(spec=spec)  # the file's padding off
    texts = ["Hello World!", "naïve 日本 [MASK]", ""]
    assert not compare_encode(ours, peer, texts)
    ids = ours.encode(texts).ids
    decoded = [s.decode("utf-8") for s in ours.decode(ids).numpy().tolist()]
    assert decoded == peer.decode_batch(row_lists(ids))


# --- writing ---------------------------------------------------------------------------------------------------


def test_written_file_is_what_tokenizers_writes_for_the_same_settings():
    """The BERT file read and written back: the same object, but for the fields we leave at tokenizers' defaults."""
    original = json.loads(TOKENIZER_JSON.read_text(encoding="utf-8"))
    written = tokenizer_json(twp.BertTokenizer.from_tokenizer_json(TOKENIZER_JSON))
    for key in ("added_tokens", "normalizer", "pre_tokenizer", "decoder"):
        assert written[key] == original[key], key
    assert written["model"]["vocab"] == original["model"]["vocab"]
    assert {k: written["model"][k] for k in ("unk_token", "continuing_subword_prefix", "max_input_chars_per_word")} == {
        k: original["model"][k] for k in ("unk_token", "continuing_subword_prefix", "max_input_chars_per_word")
    }


def test_save_into_a_folder_is_refused(tmp_path):
    with pytest.raises(ValueError, match="path: .* is a folder; pass a file path"):
        twp.BertTokenizer(TINY, compat="hf").save(tmp_path)
