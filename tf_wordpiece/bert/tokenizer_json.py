"""Reading and writing Hugging Face tokenizer.json files of the BERT family."""

from __future__ import annotations

import dataclasses
import json
import os
import pathlib

from tf_wordpiece.bert.added_tokens import AddedToken
from tf_wordpiece.bert.decoders import WordPieceDecoder
from tf_wordpiece.bert.post_processors import SEQUENCES, TemplateProcessing
from tf_wordpiece.bert.recipes import HfRecipe
from tf_wordpiece.files import write_text_atomically
from tf_wordpiece.messages import quoted_path
from tf_wordpiece.vocab_text import read_tokenizer_json

_ADDED_TOKEN_FLAGS = ("special", "normalized", "lstrip", "rstrip", "single_word")


def bert_kwargs_from_tokenizer_json(path: str | os.PathLike) -> dict:
    """tokenizer.json -> BertTokenizer keyword arguments (compat="hf").

    Supported: a BertNormalizer (or none), a BertPreTokenizer, a WordPiece
    model, added tokens, a TemplateProcessing (or BertProcessing, or no)
    post-processor, a WordPiece (or no) decoder. Anything else, any field of
    the wrong JSON type, and a model without `unk_token`,
    `continuing_subword_prefix` or `max_input_chars_per_word` (tokenizers
    refuses such a file too) is a ValueError naming the file and the field,
    never a silently different tokenizer.
    """
    path = os.fspath(path)
    shown = quoted_path(path)
    spec = read_tokenizer_json(path)  # the file as a JSON object with a model, checked without TensorFlow
    fields = _Fields(path)

    model = spec["model"]
    if model.get("type") != "WordPiece":
        raise ValueError(f"{shown}: model type {model.get('type')!r} is not supported; only WordPiece")
    vocab = fields.get(model, "vocab", dict, "model")
    if not vocab:
        raise ValueError(f"{shown}: model.vocab must be a non-empty token -> id object")
    for token, token_id in vocab.items():
        fields.check(token_id, int, f"model.vocab[{token!r}]")
    ids = sorted(vocab.values())
    if ids != list(range(len(ids))):
        raise ValueError(f"{shown}: model.vocab ids must be dense on [0, {len(ids)}), and each id used once")
    tokens = sorted(vocab, key=vocab.__getitem__)

    # tokenizers refuses a WordPiece model without any of these three (no default is assumed).
    recipe = HfRecipe.from_tokenizer_json(
        _checked_normalizer(fields.get(spec, "normalizer", dict, "", None), fields),
        fields.get(model, "max_input_chars_per_word", int, "model"),
    )
    kwargs: dict = dict(
        vocab=tokens,
        compat="hf",
        unknown_token=fields.get(model, "unk_token", str, "model"),
        suffix_indicator=fields.get(model, "continuing_subword_prefix", str, "model"),
        **dataclasses.asdict(recipe),
    )
    pre = fields.get(spec, "pre_tokenizer", dict, "", None)
    if pre is None or pre.get("type") != "BertPreTokenizer":
        raise ValueError(f"{shown}: pre_tokenizer {pre and pre.get('type')!r} is not supported; only BertPreTokenizer")
    added = [_added_token(token, fields) for token in fields.get(spec, "added_tokens", list, "", None) or []]
    added = _assign_ids(added, tokens)
    kwargs["special_tokens"] = added
    ids_of = {**{t: i for i, t in enumerate(tokens)}, **{t.content: t.id for t in added}}
    padding = _padding_kwargs(fields.get(spec, "padding", dict, "", None), ids_of, fields)
    kwargs["post_processor"] = _post_processor(fields.get(spec, "post_processor", dict, "", None), padding, fields)
    kwargs["decoder"] = _decoder(fields.get(spec, "decoder", dict, "", None), fields)
    return kwargs


_REQUIRED = object()


class _Fields:
    """Typed access to a tokenizer.json's fields: a wrong type or a missing field is a ValueError naming both."""

    def __init__(self, path: str):
        self.path = path
        self.shown = quoted_path(path)

    def check(self, value, kind: type, where: str):
        # JSON true/false are not numbers here, and a number with a fraction is not an id.
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise ValueError(f"{self.shown}: {where} must be a JSON {_JSON_NAMES[kind]}, got {value!r}")
        return value

    def get(self, obj: dict, key: str, kind: type, where: str, default=_REQUIRED):
        where = f"{where}.{key}" if where else key
        if obj.get(key) is None:
            if default is _REQUIRED:
                raise ValueError(
                    f"{self.shown}: {where} is missing (or null); tokenizers requires it too: add it to the file"
                )
            return default
        return self.check(obj[key], kind, where)


_JSON_NAMES = {dict: "object", list: "array", str: "string", int: "integer", bool: "boolean"}


def _added_token(token, fields: _Fields) -> AddedToken:
    if not isinstance(token, dict) or not isinstance(token.get("content"), str) or type(token.get("id")) is not int:
        raise ValueError(f"{fields.shown}: added_tokens entry {token!r} needs a string 'content' and an int 'id'")
    flags = {k: fields.get(token, k, bool, f"added token {token['content']!r}", False) for k in _ADDED_TOKEN_FLAGS}
    return AddedToken(token["content"], id=token["id"], **flags)


def _assign_ids(added: list[AddedToken], tokens: list[str]) -> list[AddedToken]:
    """The ids tokenizers gives added tokens when it loads a file (it does not keep the file's ids).

    A token in the model's vocabulary takes that id; any other the next id past
    both the vocabulary and the added tokens so far.
    """
    vocab = {t: i for i, t in enumerate(tokens)}
    assigned: dict[str, int] = {}
    out = []
    for token in added:
        if token.content in vocab or token.content in assigned:
            new_id = vocab.get(token.content, assigned.get(token.content))
        else:
            highest = max(assigned.values(), default=-1)
            new_id = highest + 1 if highest >= len(tokens) else len(tokens)
        assigned[token.content] = new_id
        out.append(dataclasses.replace(token, id=new_id))
    return out


def _checked_normalizer(normalizer, fields: _Fields) -> dict | None:
    """The BertNormalizer object with its fields' types checked (a missing field takes tokenizers' default)."""
    if normalizer is None:
        return None
    if normalizer.get("type") != "BertNormalizer":
        raise ValueError(f"{fields.shown}: normalizer {normalizer.get('type')!r} is not supported; only BertNormalizer")
    flags = ("lowercase", "clean_text", "handle_chinese_chars", "strip_accents")
    return {
        name: fields.get(normalizer, name, bool, "normalizer", None)
        for name in flags
        if normalizer.get(name) is not None
    }


def _post_processor(spec, pad: dict, fields: _Fields) -> TemplateProcessing | None:
    shown = fields.shown
    if spec is None:
        # No post-processor: HF adds nothing; a template with no special tokens does the same.
        return TemplateProcessing([("A", 0)], [("A", 0), ("B", 0)], {}, **pad)
    kind = spec.get("type")
    if kind == "BertProcessing":
        (sep, sep_id), (cls, cls_id) = (_token_and_id(spec, name, fields) for name in ("sep", "cls"))
        return TemplateProcessing.bert(
            cls_id=cls_id, sep_id=sep_id, cls_token=cls, sep_token=sep, pad_id=pad["pad_id"], pad_token=pad["pad_token"]
        )
    if kind != "TemplateProcessing":
        raise ValueError(
            f"{shown}: post_processor {kind!r} is not supported; only TemplateProcessing or BertProcessing"
        )

    def pieces(name):
        out = []
        for i, piece in enumerate(fields.get(spec, name, list, "post_processor", [])):
            where = f"post_processor.{name}[{i}]"
            if not isinstance(piece, dict) or len(piece) != 1 or not {"Sequence", "SpecialToken"} >= piece.keys():
                raise ValueError(
                    f'{shown}: {where} must be {{"Sequence": ...}} or {{"SpecialToken": ...}}, got {piece!r}'
                )
            (body,) = piece.values()
            body = fields.check(body, dict, where)
            out.append((fields.get(body, "id", str, where), fields.get(body, "type_id", int, where, 0)))
        return out

    special = {}
    for name, entry in fields.get(spec, "special_tokens", dict, "post_processor", {}).items():
        where = f"post_processor.special_tokens[{name!r}]"
        ids = fields.get(fields.check(entry, dict, where), "ids", list, where)
        special[name] = [fields.check(i, int, f"{where}.ids[]") for i in ids]
    try:
        return TemplateProcessing(pieces("single"), pieces("pair"), special, **pad)
    except ValueError as e:
        raise ValueError(f"{shown}: post_processor: {e}") from None


def _token_and_id(spec: dict, name: str, fields: _Fields) -> tuple[str, int]:
    value = spec.get(name)
    if not isinstance(value, list) or len(value) != 2:
        raise ValueError(f"{fields.shown}: post_processor.{name} must be a [token, id] pair, got {value!r}")
    return fields.check(value[0], str, f"post_processor.{name}[0]"), fields.check(
        value[1], int, f"post_processor.{name}[1]"
    )


def _padding_kwargs(padding, ids_of: dict, fields: _Fields) -> dict:
    if padding is None:
        return dict(pad_id=max(ids_of.get("[PAD]", 0), 0), pad_type_id=0, pad_token="[PAD]")
    if padding.get("direction", "Right") != "Right":
        raise ValueError(f"{fields.shown}: padding direction {padding.get('direction')!r} is not supported; only Right")
    return dict(
        pad_id=fields.get(padding, "pad_id", int, "padding", 0),
        pad_type_id=fields.get(padding, "pad_type_id", int, "padding", 0),
        pad_token=fields.get(padding, "pad_token", str, "padding", "[PAD]"),
    )


def _decoder(spec, fields: _Fields) -> WordPieceDecoder | None:
    if spec is None:
        return None
    if spec.get("type") != "WordPiece":
        raise ValueError(f"{fields.shown}: decoder {spec.get('type')!r} is not supported; only WordPiece")
    return WordPieceDecoder(
        fields.get(spec, "prefix", str, "decoder", "##"), fields.get(spec, "cleanup", bool, "decoder", True)
    )


def tokenizer_json(tokenizer) -> dict:
    """A compat="hf" BertTokenizer as a tokenizer.json object (truncation and padding off)."""
    if not isinstance(tokenizer.recipe, HfRecipe):  # the only recipe a tokenizer.json can express
        raise ValueError(
            f"compat: only compat='hf' tokenizers can be written as tokenizer.json, got {tokenizer.compat!r}"
        )
    wordpiece, recipe = tokenizer.wordpiece_tokenizer, tokenizer.recipe
    if recipe.max_bytes_per_word is not None:
        raise ValueError(
            f"max_bytes_per_word: {recipe.max_bytes_per_word} has no tokenizer.json equivalent; "
            "use max_input_chars_per_word"
        )
    if not recipe.do_basic_tokenize:
        raise ValueError(
            "do_basic_tokenize: False has no tokenizer.json equivalent (its WhitespaceSplit splits on "
            "Unicode White_Space, not Python's str.isspace); save a tokenizer with do_basic_tokenize=True"
        )
    template = tokenizer.post_processor
    names = {i: t for i, t in enumerate(tokenizer.vocab.tokens)}
    names.update({t.id: t.content for t in tokenizer.added_tokens})

    def pieces(template_pieces):
        return [
            {"Sequence": {"id": name, "type_id": type_id}}
            if name in SEQUENCES
            else {"SpecialToken": {"id": name, "type_id": type_id}}
            for name, type_id in template_pieces
        ]

    post_processor = None
    if template is not None:
        post_processor = {
            "type": "TemplateProcessing",
            "single": pieces(template.single),
            "pair": pieces(template.pair),
            "special_tokens": {
                name: {"id": name, "ids": list(ids), "tokens": [names.get(i, name) for i in ids]}
                for name, ids in template.special_tokens.items()
            },
        }
    decoder = tokenizer.decoder
    limit = recipe.max_input_chars_per_word
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [
            {
                "id": t.id,
                "content": t.content,
                "single_word": t.single_word,
                "lstrip": t.lstrip,
                "rstrip": t.rstrip,
                "normalized": t.normalized,
                "special": t.special,
            }
            for t in sorted(tokenizer.added_tokens, key=lambda t: t.id)
        ],
        "normalizer": recipe.tokenizer_json_normalizer(),
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": post_processor,
        "decoder": None
        if decoder is None
        else {"type": "WordPiece", "prefix": decoder.prefix, "cleanup": decoder.cleanup},
        "model": {
            "type": "WordPiece",
            "unk_token": wordpiece.unknown_token,
            "continuing_subword_prefix": wordpiece.suffix_indicator,
            # No limit has no spelling in tokenizer.json; a word this long cannot occur in practice.
            "max_input_chars_per_word": (1 << 62) if limit is None else limit,
            "vocab": {t: i for i, t in enumerate(tokenizer.vocab.tokens)},
        },
    }


def write_tokenizer_json(tokenizer, path: str | os.PathLike) -> None:
    """Writes `tokenizer_json(tokenizer)` to `path`: to a temporary file beside it, then renamed into place."""
    path = pathlib.Path(path)
    if path.is_dir():
        raise ValueError(f"path: {quoted_path(path)} is a folder; pass a file path such as .../tokenizer.json")
    spec = tokenizer_json(tokenizer)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomically(
        path,
        json.dumps(spec, ensure_ascii=False, indent=2),
        what="path",
        kind="tokenizer.json",
        looks_ours=lambda head: head.lstrip().startswith(b"{"),
    )
