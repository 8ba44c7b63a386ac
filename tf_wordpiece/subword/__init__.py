"""tensor2tensor's invertible SubwordTextEncoder: the learner, the graph encoder, tfds's variant.

The public class is `tf_wordpiece.SubwordTextEncoder` (`encoder.py`). The
modules, one job each, lowest first (each imports only those above it in
this list, never one below):

- `text.py`: text to subtoken strings in plain Python: both modes' tokens,
  t2t's escaping, the alphabet, subtoken ids.
- `reference.py`: the pure-Python twin of the t2t graph encoder (tests only).
- `learner.py`: learning a vocabulary (token counts, min_count iterations,
  the search for a target size).
- `formats.py`: both vocabulary file formats, read and written.
- `graph.py`: the greedy longest match in core TF ops, shared by both modes.
- `t2t.py` (`T2tGraph`) and `tfds.py` (`TfdsGraph`): each mode's encoding
  and decoding in core TF ops, with the tables that configure it.
- `encoder.py`: `SubwordTextEncoder`, which picks the mode's graph class once.

Two compat modes, because the two published copies of the algorithm differ:

| | `compat="t2t"` (default): tensor2tensor | `compat="tfds"`: `tfds.deprecated.text` |
|---|---|---|
| tokens | runs of Unicode category L*/N* and of the rest; one space between two alphanumeric tokens is implied | runs of `re` `\\w` (which includes `_`) and `\\W`; a token followed by exactly `" "` gets `_`, the space is dropped |
| every token ends in `_` | yes | only before a single space |
| `_`, `\\` | `\\u`, `\\\\` | `_` becomes `\\&undsc` (its byte id when not a subword); `\\` kept |
| characters outside the alphabet | `\\<code point>;` built from alphabet characters, so every id is a subtoken | UTF-8 byte ids after the subwords (1 + subwords + 256 ids) |
| vocabulary starts from | every character of the corpus plus `\\_u;0123456789` | the reserved tokens only; single-byte characters are never learned |
| reserved tokens | `<pad>` (id 0), `<EOS>` (id 1), escaped (`<pad>_`) | none by default; id 0 is padding, subword ids start at 1 |
| `max_subtoken_length=m` | substrings up to m - 1 characters are counted (its off-by-one, kept); None: no limit | up to m characters; default 20 |
| binary search on min_count | between `min_val` (1) and `max_val` (1000); ties keep the earlier try | between the least and the most frequent token count; ties keep the later try |

The package also offers the plain-Python functions of `text`, `reference`,
`learner` and `formats` by name (`tf_wordpiece.subword.encode_text`, ...),
each module imported on first use, so importing one module never loads the
others and nothing here loads TensorFlow.

>>> import tf_wordpiece.subword as subword
>>> vocab = subword.build_from_token_counts(subword.corpus_token_counts(["the cat sat", "the hat"]), min_count=2)
>>> subword.decode_ids(subword.encode_text("the rat", vocab), vocab)
'the rat'
"""

from __future__ import annotations

import importlib

_MODULE_OF = {
    **dict.fromkeys(
        [
            "PAD",
            "EOS",
            "RESERVED_TOKENS",
            "ESCAPE_CHARS",
            "TFDS_UNDERSCORE",
            "NUM_BYTES",
            "COMPATS",
            "UNDEFINED_CHARACTER",
            "check_compat",
            "alnum_table",
            "split_text",
            "join_tokens",
            "tfds_tokens",
            "is_mixed_alphanum",
            "escape_token",
            "unescape_token",
            "alphabet_of",
            "subtoken_ids",
        ],
        "text",
    ),
    **dict.fromkeys(["segment", "encode_text", "decode_ids"], "reference"),
    **dict.fromkeys(
        [
            "corpus_token_counts",
            "prefix_counts",
            "build_from_token_counts",
            "build_to_target_size",
            "TFDS_MIN_TARGET_SIZE",
        ],
        "learner",
    ),
    **dict.fromkeys(
        [
            "format_vocab",
            "parse_vocab",
            "is_tfds_vocab",
            "format_tfds_vocab",
            "parse_tfds_vocab",
            "read_vocab_file",
            "write_vocab_file",
            "TFDS_HEADER",
            "TFDS_METADATA",
        ],
        "formats",
    ),
}

__all__ = sorted(_MODULE_OF)


def __getattr__(name: str):
    if name not in _MODULE_OF:
        raise AttributeError(f"module 'tf_wordpiece.subword' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_MODULE_OF[name]}"), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
