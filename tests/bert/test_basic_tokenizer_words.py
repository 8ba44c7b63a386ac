"""BasicTokenizer words where added tokens match: the token's text, never the internal marker (issue 18, fault 6)."""

from __future__ import annotations

import pytest

import tf_wordpiece as twp
from helpers.contract import check_contract
from helpers.oracles import hf_oracle
from tf_wordpiece.bert.added_tokens import AddedToken

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "hello", "world", "x", "!", "hello world", "ｘ"]
NORMALIZED = AddedToken("Hello World", id=len(VOCAB), normalized=True)


@pytest.mark.parametrize(
    "special_tokens, text, words",
    [
        (None, "[UNK] x [MASK]!", ["[UNK]", "x", "[MASK]", "!"]),
        (None, "x[MASK][MASK]", ["x", "[MASK]", "[MASK]"]),
        (None, "\ufffd [MASK]", ["[MASK]"]),  # a real U+FFFD is deleted (HF), the token stays
        (["[MASK]", NORMALIZED], "HELLO world [MASK]", ["hello world", "[MASK]"]),  # normalized form
        (["[UNK]"], "[unk] [UNK]", ["[", "unk", "]", "[UNK]"]),
    ],
    ids=repr,
)
def test_added_token_words_are_their_text(special_tokens, text, words):
    tok = twp.BertTokenizer(VOCAB, compat="hf", lower_case=True, special_tokens=special_tokens)
    got, begin, end = tok.basic_tokenizer.tokenize_with_offsets([text])
    assert [w.decode() for w in got.to_list()[0]] == words
    # Offsets are unchanged: they still point at the token as written.
    raw = text.encode()
    spans = [raw[b:e] for b, e in zip(begin.to_list()[0], end.to_list()[0])]
    assert [s.decode().lower() for s in spans] == [w.lower() for w in words]


def test_added_token_words_match_hf_tokens():
    tok = twp.BertTokenizer(VOCAB, compat="hf", lower_case=True)
    text = "Hello [MASK] [UNK]x[SEP]"
    words = tok.basic_tokenizer.tokenize([text]).to_list()[0]
    specials = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}
    hf_tokens = hf_oracle().encode(text, add_special_tokens=False).tokens
    assert [w.decode() for w in words if w.decode() in specials] == [t for t in hf_tokens if t in specials]


def test_added_token_words_contract(tmp_path):
    tok = twp.BertTokenizer(VOCAB, compat="hf", lower_case=True)
    words = check_contract(tok.basic_tokenizer, ["a [MASK]!", "", "[UNK][SEP] x"], tmp_path)
    assert words.to_list() == [[b"a", b"[MASK]", b"!"], [], [b"[UNK]", b"[SEP]", b"x"]]
