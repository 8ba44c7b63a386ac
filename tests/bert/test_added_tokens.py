"""Added tokens (tf_wordpiece.bert.added_tokens): found before pre-tokenization, leftmost-longest, with flags.

Rows on `AddedTokens.match` directly, each checked against tokenizers' own matcher (a WordLevel model with
the same added tokens: the ids of its encoding show where they matched); then tokens with normalized=true
(matched in the normalized text, after the raw-text pass) through BertTokenizer against tokenizers.
"""

from __future__ import annotations

import json

import pytest
import tensorflow as tf

import tf_wordpiece as twp
from helpers.contract import check_contract
from helpers.data import TOKENIZER_JSON
from helpers.oracles import compare_encode, hf_with
from helpers.ragged import row_lists
from tf_wordpiece.bert.added_tokens import AddedToken, AddedTokens
from tf_wordpiece.bert.normalizers import hf_normalizer

# (tokens, text, matches as (start, stop) in code points and the token's content)
MATCH_ROWS = {
    "leftmost-longest": (["ab", "abc", "bcd"], "abcd", [(0, 3, "abc")]),
    "no-overlap": (["ab", "abc", "bcd"], "xbcd abab", [(1, 4, "bcd"), (5, 7, "ab"), (7, 9, "ab")]),
    "back-to-back": (["[MASK]"], "a[MASK]b[MASK][MASK]", [(1, 7, "[MASK]"), (8, 14, "[MASK]"), (14, 20, "[MASK]")]),
    "holds-a-space": (["a b"], "xa b a  b", [(1, 4, "a b")]),
    "cjk": (["\u65e5\u672c"], "\u65e5\u672c\u8a9e\u65e5\u672c", [(0, 2, "\u65e5\u672c"), (3, 5, "\u65e5\u672c")]),
    "case-matters": (["[MASK]"], "[mask] [MASK]", [(7, 13, "[MASK]")]),
    "single_word": ([AddedToken("ab", single_word=True)], "ab ab_ xab (ab) \xe9 ab2", [(0, 2, "ab"), (12, 14, "ab")]),
    "lstrip-rstrip": (
        [AddedToken("[M]", lstrip=True, rstrip=True)],
        "a  [M]  b\t[M]\u3000x",
        [(1, 8, "[M]"), (9, 14, "[M]")],
    ),
    "lstrip": ([AddedToken("[M]", lstrip=True)], "x [M] [M]", [(1, 5, "[M]"), (5, 9, "[M]")]),
    "rstrip-keeps-its-space": (
        [AddedToken("[M]", rstrip=True), AddedToken("[N]", lstrip=True)],
        "[M]  [N]",
        [(0, 5, "[M]"), (5, 8, "[N]")],
    ),
    "empty-text": (["ab", "cd"], "", []),
}


def our_matches(tokens, text: str) -> list[tuple[int, int, str]]:
    added = AddedTokens(tokens)
    cps = tf.constant([ord(c) for c in text], tf.int32)
    matches = added.match(cps, tf.zeros_like(cps))
    token, last, covered = (t.numpy().tolist() for t in (matches.token, matches.last, matches.covered))
    assert [i for i, c in enumerate(covered) if c] == [
        i for i, t in enumerate(token) if t >= 0 for i in range(i + 1, last[i] + 1)
    ]
    return [(i, last[i] + 1, added.flags[t].content) for i, t in enumerate(token) if t >= 0]


def peer_matches(tokens, text: str) -> list[tuple[int, int, str]]:
    tokenizers = pytest.importorskip("tokenizers")
    peer = tokenizers.Tokenizer(tokenizers.models.WordLevel({"[UNK]": 0}, unk_token="[UNK]"))
    flags = [t if isinstance(t, AddedToken) else AddedToken(t) for t in tokens]
    peer.add_tokens(
        [
            tokenizers.AddedToken(
                t.content, single_word=t.single_word, lstrip=t.lstrip, rstrip=t.rstrip, normalized=False
            )
            for t in flags
        ]
    )
    encoding = peer.encode(text, add_special_tokens=False)
    return [(a, b, peer.id_to_token(i)) for i, (a, b) in zip(encoding.ids, encoding.offsets) if i != 0]


@pytest.mark.parametrize("tokens, text, matches", MATCH_ROWS.values(), ids=list(MATCH_ROWS))
def test_match(tokens, text, matches):
    assert our_matches(tokens, text) == matches


@pytest.mark.parametrize("tokens, text, matches", MATCH_ROWS.values(), ids=list(MATCH_ROWS))
def test_match_rows_are_tokenizers(tokens, text, matches):
    assert peer_matches(tokens, text) == matches


def test_matches_never_cross_strings_or_markers():
    added = AddedTokens(["[MASK]", "ab"])
    text = "x[MA" + "SK]ab"
    cps = tf.constant([ord(c) for c in text], tf.int32)
    rows = tf.constant([0, 0, 0, 0, 1, 1, 1, 1, 1], tf.int32)
    assert added.match(cps, rows).token.numpy().tolist() == [-1] * 7 + [1, -1]
    marked = tf.constant([ord("a"), -1, ord("a"), ord("b")], tf.int32)  # a negative code point never matches
    assert added.match(marked, tf.zeros([4], tf.int32)).token.numpy().tolist() == [-1, -1, 1, -1]


def test_match_in_a_graph_equals_eager():
    added = AddedTokens(["ab", AddedToken("[M]", lstrip=True, single_word=True)])
    cps = tf.constant([ord(c) for c in "ab [M] x[M] ab"], tf.int32)
    rows = tf.zeros_like(cps)
    eager = added.match(cps, rows)
    graph = tf.function(added.match)(cps, rows)
    assert [t.numpy().tolist() for t in graph] == [t.numpy().tolist() for t in eager]


def test_raw_and_normalized_patterns():
    tokens = [
        "[MASK]",
        AddedToken("Hello World", normalized=True),
        AddedToken("\x00", normalized=True),  # normalizes to nothing: never matches, as in tokenizers
        AddedToken("[X]", normalized=False, rstrip=True),
    ]
    added = AddedTokens(tokens)
    assert added.raw == [(0, "[MASK]"), (3, "[X]")]
    normalize = hf_normalizer(clean_text=True, strip_accents=True, lowercase=True).apply
    assert added.normalized_patterns(normalize) == [(1, "hello world")]
    first = added.first_characters(tf.constant([ord(c) for c in "a[H["], tf.int32))
    assert first.numpy().tolist() == [False, True, False, True]
    assert bool(added) and not AddedTokens([])


def test_an_empty_token_is_a_value_error():
    with pytest.raises(ValueError, match="special_tokens: an added token must not be empty"):
        AddedTokens(["[MASK]", ""])


def test_added_token_defaults_are_tokenizers():
    token = AddedToken("[MASK]")
    assert (token.id, token.special, token.normalized, token.lstrip, token.rstrip, token.single_word) == (
        None,
        True,
        False,
        False,
        False,
        False,
    )


# --- normalized=true: matched in the normalized text, against tokenizers -----------------------------------

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
    pytest.importorskip("tokenizers")
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
    pytest.importorskip("tokenizers")
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
    tokenizers = pytest.importorskip("tokenizers")
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
    pytest.importorskip("tokenizers")
    ours = _load(_spec(), tmp_path, parallel_shards=1)  # one copy of the graph: the same ops, a quicker save
    ids = check_contract(ours, TEXTS[:4] + TEXTS[6:9], tmp_path)
    assert 30522 in ids.flat_values.numpy().tolist()  # "Hello World" was found, so the second pass ran
