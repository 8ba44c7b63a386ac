"""Hugging Face `tokenizers` built from the shared tokenizer.json, and `BertTokenizer.encode` compared with it."""

from __future__ import annotations

import json

from helpers.data import TOKENIZER_JSON
from helpers.ragged import row_lists


def hf_oracle(*, lowercase: bool = True, **normalizer):
    """tokenizers.Tokenizer from the shared tokenizer.json, padding and truncation off."""
    from tokenizers import Tokenizer

    spec = json.loads(TOKENIZER_JSON.read_text(encoding="utf-8"))
    spec["normalizer"]["lowercase"] = lowercase
    spec["normalizer"].update(normalizer)
    tok = Tokenizer.from_str(json.dumps(spec))
    tok.no_padding()
    tok.no_truncation()
    return tok


def hf_with(truncation=None, max_length=None, padding=None, pad_to_multiple_of=None, spec=None):
    """The shared oracle (or one from `spec`, a tokenizer.json dict) with these truncation and padding settings."""
    import tokenizers

    peer = hf_oracle() if spec is None else tokenizers.Tokenizer.from_str(json.dumps(spec))
    peer.no_truncation()
    peer.no_padding()
    if truncation:
        peer.enable_truncation(max_length, strategy=truncation)
    if padding:
        length = max_length if padding == "max_length" else None
        peer.enable_padding(length=length, pad_to_multiple_of=pad_to_multiple_of)
    return peer


def byte_ends(s: str) -> list[int]:
    """The UTF-8 byte offset after each character of `s`, 0 first."""
    ends = [0]
    for ch in s:
        ends.append(ends[-1] + len(ch.encode("utf-8")))
    return ends


def _hf_rows(encodings, texts, pairs) -> list:
    """HF encodings -> per row (ids, type_ids, attention_mask, byte offsets, special_tokens_mask, word_ids,
    sequence_ids), None as -1."""
    out = []
    for i, e in enumerate(encodings):
        strings = (byte_ends(texts[i]), byte_ends(pairs[i]) if pairs is not None else None)
        offsets = [
            [0, 0] if s is None else [strings[s][a], strings[s][b]] for s, (a, b) in zip(e.sequence_ids, e.offsets)
        ]
        words, sequences = ([-1 if v is None else v for v in values] for values in (e.word_ids, e.sequence_ids))
        out.append((e.ids, e.type_ids, e.attention_mask, offsets, e.special_tokens_mask, words, sequences))
    return out


def _our_rows(enc) -> list:
    return list(zip(*(row_lists(t) for t in enc)))


def compare_encode(ours, peer, texts, pairs=None, **options) -> list:
    """Mismatching rows of ours.encode vs peer.encode_batch on one batch, same settings."""
    mine = _our_rows(ours.encode(texts, pairs, **options))
    inputs = texts if pairs is None else list(zip(texts, pairs))
    theirs = _hf_rows(
        peer.encode_batch(inputs, add_special_tokens=options.get("add_special_tokens", True)), texts, pairs
    )
    return [(t, m, h) for t, m, h in zip(texts, mine, theirs) if m != h]
