"""Added tokens with normalized=true (matched in the normalized text, after the raw-text pass) against HF tokenizers."""

from __future__ import annotations

import json

import pytest

import tf_wordpiece as twp
from helpers.contract import check_contract
from helpers.data import TOKENIZER_JSON
from helpers.oracles import compare_encode, hf_with
from helpers.ragged import row_lists
from tf_wordpiece.bert.added_tokens import AddedToken

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
    "HELLO WORLD and hello world, Hello   World",
    "héllo HELLO xhello hello_ hello2 (hello)",
    "x <ENT> y<ent>z  <Ent>  w",
    "NAÏVE naive Naïve!",
    "AB ab Ab aB",
    "a A à",
    "中文 a中 中",
    "x中文 X中 xx中",
    "İSTANBUL  istanbul\tIstanbul",
    "zz ZZ \x00zz",
    "[UNUSED7] [unused7]",
    "[MASK] Hello World[SEP]",
    "\u3000<ent>\u00a0x",
    "",
    "   ",
]


# Flags around the normalized pass: overlaps, single_word, white space other than " ", and the
# spaces HF's normalizer puts around CJK ideographs (lstrip/rstrip offsets then reach over the ideograph).
FLAG_CASES = {
    "leftmost-longest": ([("ab", {}), ("bc", {}), ("abcd", {})], ["ABC", "ABCD", "xABCDx", "BCD", "ab bc"]),
    "single_word": (
        [("ab", {"single_word": True}), ("_x", {"single_word": True})],
        ["ab ab_ _ab", "ab2 é ab", "(ab)", "AB", "a_x _x _X", "文ab文"],
    ),
    "strip white space": (
        [("a b", {"lstrip": True, "rstrip": True})],
        ["x\ta\tb\ty", "a  b", "A\u3000B\u3000", "a b a b"],
    ),
    "strip next to CJK": (
        [("abc", {"lstrip": True, "rstrip": True})],
        ["文abc", "x  ABC  文", "文 abc", "abc文", "文abc文", "ABC ABC", "文abcabc文"],
    ),
    "CJK token stripping": (
        [("中", {"lstrip": True, "rstrip": True})],
        ["a 中 b", "文中", "文 中 文", "中中", "中 中"],
    ),
    "CJK token lstrip only": ([("中", {"lstrip": True})], ["中中", "文 中", "中 中"]),
    "raw token then normalized": (
        [("[X]", {"normalized": False, "rstrip": True}), ("x", {"lstrip": True})],
        ["[X]  X", "[x] X", "X[X]x"],
    ),
}


def _spec(extra=EXTRA, **normalizer) -> dict:
    spec = json.loads(TOKENIZER_JSON.read_text(encoding="utf-8"))
    spec["normalizer"].update(normalizer)
    size = len(spec["model"]["vocab"])
    for i, (content, flags) in enumerate(extra):
        token = dict(
            id=size + i, content=content, single_word=False, lstrip=False, rstrip=False, normalized=True, special=False
        )
        spec["added_tokens"].append({**token, **flags})
    return spec


@pytest.fixture(scope="module")
def sample_slice(multilingual):
    return multilingual[:2000]


@pytest.mark.parametrize(
    "normalizer",
    [{}, {"lowercase": False}, {"strip_accents": False}, {"handle_chinese_chars": False}],
    ids=["uncased", "cased", "keep-accents", "no-cjk-spaces"],
)
def test_ids_offsets_and_decode_match_hf(tmp_path, sample_slice, normalizer):
    spec = _spec(**normalizer)
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    ours = twp.BertTokenizer.from_tokenizer_json(path)
    peer = hf_with(spec=spec)
    texts = TEXTS + sample_slice if not normalizer else TEXTS + sample_slice[:300]
    bad = compare_encode(ours, peer, texts)
    ids = ours.encode(texts).ids
    for skip in (True, False):
        decoded = [s.decode("utf-8") for s in ours.decode(ids, skip_special_tokens=skip).numpy().tolist()]
        bad += [(m, h) for m, h in zip(decoded, peer.decode_batch(row_lists(ids), skip_special_tokens=skip)) if m != h]
    assert not bad, f"{len(bad)} differ; first: {bad[:2]}"


def _load(spec, tmp_path, **overrides) -> twp.BertTokenizer:
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    return twp.BertTokenizer.from_tokenizer_json(path, **overrides)


@pytest.mark.parametrize("case", list(FLAG_CASES))
def test_flags_in_the_normalized_pass_match_hf(tmp_path, case):
    extra, texts = FLAG_CASES[case]
    spec = _spec(extra)
    bad = compare_encode(_load(spec, tmp_path), hf_with(spec=spec), texts, add_special_tokens=False)
    assert not bad, f"{len(bad)} differ; first: {bad[:2]}"


def test_constructor_takes_normalized_added_tokens():
    tok = twp.BertTokenizer(
        ["[UNK]", "[CLS]", "[SEP]", "hello", "world", "!"],
        compat="hf",
        lower_case=True,
        special_tokens=[AddedToken("Hello World", id=6, special=False, normalized=True)],
    )
    assert tok.encode(["HELLO World! hello", "hello world"], add_special_tokens=False).ids.to_list() == [[6, 5, 3], [6]]
    assert tok.decode([[6, 5]]).numpy().tolist() == [b"hello world!"]  # decoded in its normalized form, like HF


def test_save_writes_normalized_and_hf_reads_it_back(tmp_path):
    ours = _load(_spec(), tmp_path)
    saved = tmp_path / "saved.json"
    ours.save(saved)
    written = {t["content"]: t["normalized"] for t in json.loads(saved.read_text(encoding="utf-8"))["added_tokens"]}
    assert all(written[content] == flags.get("normalized", True) for content, flags in EXTRA)
    bad = compare_encode(
        twp.BertTokenizer.from_tokenizer_json(saved), tokenizers.Tokenizer.from_file(str(saved)), TEXTS
    )
    assert not bad, f"{len(bad)} differ; first: {bad[:2]}"


def test_graph_tf_data_and_saved_model_agree_with_eager(tmp_path):
    ours = _load(_spec(), tmp_path, parallel_shards=1)  # one copy of the graph: the same ops, a quicker save
    ids = check_contract(ours, TEXTS[:4] + TEXTS[6:9], tmp_path)
    assert 30522 in ids.flat_values.numpy().tolist()  # "Hello World" was found, so the second pass ran
