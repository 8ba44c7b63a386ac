"""tensor2tensor's invertible SubwordTextEncoder: the learner, the graph encoder, tfds's variant.

The public class is `tf_wordpiece.SubwordTextEncoder` (`encoder.py`). The
modules, one job each, lowest first (each imports only those above it in
this list, never one below):

- `text.py`: text to subtoken strings in plain Python: both modes' tokens,
  t2t's escaping, the alphabet, subtoken ids.
- `rules.py`: each mode's learning rules (the table below), one object a
  mode (`T2tRules`, `TfdsRules`), which the learner asks and never the mode's name.
- `learner.py`: learning a vocabulary (token counts, min_count iterations,
  the search for a target size).
- `formats.py`: both vocabulary file formats, read and written.
- `graph.py`: the greedy longest match in core TF ops, shared by both modes.
- `t2t.py` (`T2tGraph`) and `tfds.py` (`TfdsGraph`): each mode's encoding
  and decoding in core TF ops, with the tables that configure it.
- `encoder.py`: `SubwordTextEncoder`, which picks the mode's graph class once.

Two compat modes, because the two published copies of the algorithm differ.
The learner's side of each row is one object a mode in `rules.py` (`T2tRules`,
`TfdsRules`; the member that holds the rule in parentheses); the graph's
side is the mode's graph class:

| | `compat="t2t"` (default): tensor2tensor | `compat="tfds"`: `tfds.deprecated.text` |
|---|---|---|
| tokens (`tokens`) | runs of Unicode category L*/N* and of the rest; one space between two alphanumeric tokens is implied | runs of `re` `\\w` (which includes `_`) and `\\W`; a token followed by exactly `" "` gets `_`, the space is dropped; reserved tokens are split out whole first |
| every token ends in `_` | yes | only before a single space |
| `_`, `\\` (`prepared`) | `\\u`, `\\\\` | `_` becomes `\\&undsc` (its byte id when not a subword), which segmentation keeps whole (`kept_whole`); `\\` kept |
| characters outside the alphabet | `\\<code point>;` built from alphabet characters, so every id is a subtoken | UTF-8 byte ids after the subwords |
| vocabulary starts from (`alphabet`, `first_vocab`) | every character of the corpus plus `\\_u;0123456789` | the reserved tokens only |
| never a learned candidate (`covered`) | an alphabet character (every vocabulary holds the alphabet) | a single-byte string (its byte id covers it) |
| reserved tokens (`default_reserved`, `check_reserved`) | `<pad>` (id 0), `<EOS>` (id 1), escaped (`<pad>_`); a list must start with them | none by default; id 0 is padding, subword ids start at 1; each must mix `\\w` and `\\W` and not end in `_` |
| ids (`size`, `smallest_target`) | the subtokens; `target_size` >= 1 | 1 + subwords + 256; `target_size` >= 258 |
| `max_subtoken_length=m` (`counted_length`, `default_max_subtoken_length`) | substrings up to m - 1 characters are counted (its off-by-one, kept); None: no limit | up to m characters; default 20 |
| min_count of one build (`min_count`) | at least 1 | as given |
| binary search on min_count (`min_count_bounds`, `prefer_later`) | between `min_val` (1) and `max_val` (1000); ties keep the earlier try | between the least and the most frequent token count; ties keep the later try |

The package also offers the plain-Python names of `text`, `learner` and
`formats` (`tf_wordpiece.subword.split_text`, ...), listed once in
`__init__.pyi` and each imported on first use (`tf_wordpiece/lazy.py`, as the
root package's), so importing one module never loads the others and nothing
here loads TensorFlow. (The slow pure-Python twin of the t2t encoder that the
tests compare the graph with is test code: `tests/helpers/subword_reference.py`.)

>>> import tf_wordpiece.subword as subword
>>> vocab = subword.build_from_token_counts(subword.corpus_token_counts(["the cat sat", "the hat"]), min_count=2)
>>> vocab[:4]
['<pad>_', '<EOS>_', 'at_', 'the_']
>>> [subword.escape_token(token, subword.alphabet_of(vocab)) for token in subword.split_text("the rat")]
['the_', '\\\\114;at_']
>>> subword.parse_vocab(subword.format_vocab(vocab), source="a list") == vocab
True
"""

from __future__ import annotations

from tf_wordpiece.lazy import attach_stub

__getattr__, __dir__, __all__ = attach_stub(__name__, __file__)
