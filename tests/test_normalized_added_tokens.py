"""Added tokens with normalized=true (matched in the normalized text, after the raw-text pass) against HF tokenizers."""

from __future__ import annotations

import json

import pytest
from conftest import TOKENIZER_JSON
from test_hf_encode import _compare, _hf_with, _rows

import tf_wordpiece as twp
from tf_wordpiece.added_tokens import AddedToken

tokenizers = pytest.importorskip("tokenizers")

# content, flags; normalized=True unless said otherwise. Ids follow tokenizers' load rule.
EXTRA = [
    ("Hello World", {}),  # uppercase and a space: matches "hello world" in any casing
    ("Héllo", {"single_word": True}),  # accent and capital normalized away; also a vocabulary word ("hello")
    ("<Ent>", {"lstrip": True, "rstrip": True}),
    ("naïve", {"special": True}),  # special + normalized
    ("ab", {"normalized": False}),  # raw pass first: "ab" wins over "a" where written as is
    ("a", {}),  # a vocabulary word
    ("中", {"single_word": True}),  # CJK: HF's normalizer spaces it, so it is never inside a word
    ("x中", {}),
    ("İstanbul", {"rstrip": True}),  # lowercase expands İ, strip_accents drops the dot
    ("\x00ZZ", {}),  # clean_text deletes the control character
    ("[unused7]", {"special": True}),  # normalized special token already in the vocabulary
]
TEXTS = [
    "HELLO WORLD and hello world, Hello   World", "héllo HELLO xhello hello_ hello2 (hello)", "x <ENT> y<ent>z  <Ent>  w",
    "NAÏVE naive Naïve!", "AB ab Ab aB", "a A à", "中文 a中 中", "x中文 X中 xx中", "İSTANBUL  istanbul\tIstanbul",
    "zz ZZ \x00zz", "[UNUSED7] [unused7]", "[MASK] Hello World[SEP]", "\u3000<ent>\u00a0x", "", "   ",
]


def _spec(extra=EXTRA, **normalizer) -> dict:
    spec = json.loads(TOKENIZER_JSON.read_text(encoding="utf-8"))
    spec["normalizer"].update(normalizer)
    size = len(spec["model"]["vocab"])
    for i, (content, flags) in enumerate(extra):
        token = dict(id=size + i, content=content, single_word=False, lstrip=False, rstrip=False, normalized=True,
                     special=False)
        spec["added_tokens"].append({**token, **flags})
    return spec


@pytest.fixture(scope="module")
def sample_slice(multilingual):
    return multilingual[:2000]


@pytest.mark.parametrize("normalizer", [{}, {"lowercase": False}, {"strip_accents": False}, {"handle_chinese_chars": False}],
                         ids=["uncased", "cased", "keep-accents", "no-cjk-spaces"])
def test_ids_offsets_and_decode_match_hf(tmp_path, sample_slice, normalizer):
    spec = _spec(**normalizer)
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    ours = twp.BertTokenizer.from_tokenizer_json(path)
    peer = _hf_with(spec=spec)
    texts = TEXTS + sample_slice if not normalizer else TEXTS + sample_slice[:300]
    bad = _compare(ours, peer, texts)
    ids = ours.encode(texts).ids
    for skip in (True, False):
        decoded = [s.decode("utf-8") for s in ours.decode(ids, skip_special_tokens=skip).numpy().tolist()]
        bad += [(m, h) for m, h in zip(decoded, peer.decode_batch(_rows(ids), skip_special_tokens=skip)) if m != h]
    assert not bad, f"{len(bad)} differ; first: {bad[:2]}"

