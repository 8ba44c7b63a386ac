"""Reading Hugging Face tokenizer.json files of the BERT family."""

from __future__ import annotations

import json
import os


def bert_kwargs_from_tokenizer_json(path: str | os.PathLike) -> dict:
    """tokenizer.json -> BertTokenizer keyword arguments (compat="hf").

    Supported: a BertNormalizer (or none), a BertPreTokenizer, a WordPiece model.
    Anything else is a ValueError naming the component, never a silently
    different tokenizer.
    """
    path = os.fspath(path)
    try:
        with open(path, encoding="utf-8") as f:
            spec = json.load(f)
    except FileNotFoundError:
        raise ValueError(f"path: tokenizer.json {path!r} does not exist") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ValueError(f"path: {path!r} is not a valid JSON tokenizer file: {e}") from None
    if not isinstance(spec, dict) or not isinstance(spec.get("model"), dict):
        raise ValueError(f"path: {path!r} has no 'model' object; is it a tokenizers tokenizer.json?")

    model = spec["model"]
    if model.get("type") != "WordPiece":
        raise ValueError(f"{path!r}: model type {model.get('type')!r} is not supported; only WordPiece")
    vocab = model.get("vocab")
    if not isinstance(vocab, dict) or not vocab:
        raise ValueError(f"{path!r}: model.vocab must be a non-empty token -> id object")
    ids = sorted(vocab.values())
    if ids != list(range(len(ids))):
        raise ValueError(f"{path!r}: model.vocab ids must be dense on [0, {len(ids)}), and each id used once")
    tokens = sorted(vocab, key=vocab.__getitem__)

    kwargs: dict = dict(
        vocab=tokens,
        compat="hf",
        unknown_token=model.get("unk_token", "[UNK]"),
        suffix_indicator=model.get("continuing_subword_prefix", "##"),
        max_input_chars_per_word=model.get("max_input_chars_per_word", 100),
    )
    kwargs.update(_normalizer_kwargs(spec.get("normalizer"), path))
    pre = spec.get("pre_tokenizer")
    if not isinstance(pre, dict) or pre.get("type") != "BertPreTokenizer":
        raise ValueError(f"{path!r}: pre_tokenizer {pre and pre.get('type')!r} is not supported; only BertPreTokenizer")
    added = spec.get("added_tokens") or []
    for token in added:
        flags = {k: token.get(k) for k in ("lstrip", "rstrip", "single_word", "normalized")}
        if any(flags.values()):
            raise ValueError(f"{path!r}: added token {token.get('content')!r} has flags {flags}; only plain added tokens are supported")
    kwargs["special_tokens"] = [token["content"] for token in added]
    return kwargs


def _normalizer_kwargs(normalizer, path: str) -> dict:
    if normalizer is None:
        return dict(lower_case=False, clean_text=False, handle_chinese_chars=False, strip_accents=False)
    if normalizer.get("type") != "BertNormalizer":
        raise ValueError(f"{path!r}: normalizer {normalizer.get('type')!r} is not supported; only BertNormalizer")
    return dict(
        lower_case=bool(normalizer.get("lowercase", True)),
        clean_text=bool(normalizer.get("clean_text", True)),
        handle_chinese_chars=bool(normalizer.get("handle_chinese_chars", True)),
        strip_accents=normalizer.get("strip_accents"),
    )
