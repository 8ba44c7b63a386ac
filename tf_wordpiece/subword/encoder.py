"""SubwordTextEncoder: tensor2tensor's invertible subword encoder, in core TensorFlow ops.

decode(encode(s)) == s for every valid UTF-8 string s: text is split into runs
of alphanumeric (Unicode L*/N*) and other characters, each token is escaped
(`\\` -> `\\\\`, `_` -> `\\u`, characters outside the learned alphabet and
newline -> `\\<code point>;`) and ends with `_`, and escaped tokens are cut into
the longest subtokens left to right. Every character of an escape is in the
alphabet, so no id is ever unknown.

`compat="tfds"` runs `tfds.deprecated.text.SubwordTextEncoder` instead (ids
equal its `encode`, text its `decode`; UTF-8 byte ids after the subwords, id 0
padding). This class is the public face: it picks the mode's graph class once
(`t2t.py`'s `T2tGraph` or `tfds.py`'s `TfdsGraph`), learns with `learner.py`
and reads and writes files with `formats.py`; the table of differences between
the modes is in the package docstring (`subword/__init__.py`).

Invalid UTF-8 input, both modes: each maximal invalid byte sequence is read as
U+FFFD (as Python's `bytes.decode("utf-8", "replace")`), so such input does not
round trip; valid UTF-8 never changes.

>>> enc = SubwordTextEncoder.build_from_corpus(["the cat sat on the mat"] * 3, 40, verbose=False)
>>> ids = enc.encode(tf.constant(["the bat sat", "x_y\\n"]))
>>> ids.shape.as_list(), ids.dtype.name
([2, None], 'int64')
>>> enc.decode(ids).numpy().tolist()
[b'the bat sat', b'x_y\\n']
"""

from __future__ import annotations

import os
from typing import Iterable, Sequence

import tensorflow as tf

from tf_wordpiece.base import Detokenizer, Tokenizer
from tf_wordpiece.shapes import PythonEntry, as_ids, as_strings
from tf_wordpiece.subword import formats, learner
from tf_wordpiece.subword.t2t import T2tGraph
from tf_wordpiece.subword.text import check_compat
from tf_wordpiece.subword.tfds import TfdsGraph

STRING_BATCH = tf.TensorSpec([None], tf.string)


class SubwordTextEncoder(Tokenizer, Detokenizer):
    """tensor2tensor's SubwordTextEncoder as a tf.Module: `encode`, `decode`, `vocab_size`.

    Args:
      subtokens: the subtoken strings (t2t: id n is entry n; tfds: id n + 1),
        or the path of a vocabulary file in `store_to_file`'s format (t2t: one
        subtoken a line, quoted or bare; tfds: quoted, after tfds's two header lines).
      compat: "t2t" (tensor2tensor) or "tfds" (tfds.deprecated.text); None:
        "t2t" for a list, the file's format for a path.

    Signatures (traced at construction, so a SavedModel has them):
      encode(string [batch]) -> int64 RaggedTensor [batch, ids]; a scalar
        string (tensor2tensor's and tfds's `encode(text)`) -> int64 [ids]. A
        Python str or list of str is taken as a scalar or a batch.
      decode(int [batch, ids], dense or ragged) -> string [batch]; int [ids]
        (or a Python list of int) -> a string scalar. Ids outside
        [0, vocab_size) decode to nothing, as in tensor2tensor (tfds: 0 too).
      vocab_size() -> int32 scalar.

    >>> enc = SubwordTextEncoder.build_from_corpus(["hello world"] * 5, 40, verbose=False)
    >>> enc.subtokens[:4]
    ['<pad>_', '<EOS>_', 'world_', 'hello_']
    >>> ids = enc.encode(tf.constant(["hello world", "world, hello"]))
    >>> ids.to_list()
    [[3, 2], [2, ...]]
    >>> enc.decode(ids).numpy().tolist()
    [b'hello world', b'world, hello']
    >>> enc.encode("hello world").numpy().tolist(), enc.decode([3, 2]).numpy()
    ([3, 2], b'hello world')
    >>> tfds_mode = SubwordTextEncoder(["hello_", "world"], compat="tfds")
    >>> tfds_mode.encode(tf.constant(["hello world!"])).to_list()  # "!" is its byte: 1 + 2 + 33
    [[1, 2, 36]]
    """

    def __init__(self, subtokens: Sequence[str] | str | os.PathLike, *, compat: str | None = None):
        super().__init__()
        if isinstance(subtokens, (str, os.PathLike)):
            self.source = f"vocab file {os.fspath(subtokens)!r}"
            compat, subtokens = formats.read_vocab_file(subtokens, compat)
        else:
            self.source = "subtoken list"
            compat = check_compat("t2t" if compat is None else compat)
            subtokens = _checked_list(subtokens, allow_empty=compat == "tfds")
        self.compat = compat
        # The one place the mode is chosen: each graph class holds its own tables, encode and decode.
        self._graph: T2tGraph | TfdsGraph
        if compat == "tfds":
            self._graph = TfdsGraph(subtokens)
            self.subtokens = self._graph.subwords
        else:
            self._graph = T2tGraph(subtokens, source=self.source)
            self.subtokens = self._graph.subtokens
            self.alphabet = self._graph.alphabet  # t2t only: the characters written as themselves
        # Python values are converted before the call, so encode("...") in a loop traces once.
        self.encode = PythonEntry(
            self._encode, lambda v: as_strings(v, "strings"), [STRING_BATCH, tf.TensorSpec([], tf.string)]
        )
        self.decode = PythonEntry(
            self._decode,
            _int64_ids,
            [
                tf.TensorSpec([None], tf.int64),
                tf.TensorSpec([None, None], tf.int64),
                tf.RaggedTensorSpec([None, None], tf.int64),
            ],
        )
        self.vocab_size.get_concrete_function()

    @classmethod
    def build_from_corpus(
        cls,
        lines: Iterable[str],
        target_vocab_size: int,
        *,
        compat: str = "t2t",
        max_subtoken_length: int | None = None,
        reserved_tokens: Sequence[str] | None = None,
        min_val: int | None = None,
        max_val: int | None = None,
        num_iterations: int = 4,
        max_corpus_chars: int | None = None,
        verbose: bool = True,
    ) -> "SubwordTextEncoder":
        """Learns a vocabulary of about `target_vocab_size` ids from lines of text (t2t's
        `build_from_generator`, or tfds's `build_from_corpus` with `compat="tfds"`, whose
        subwords it equals); see `learner.build_to_target_size` for the defaults.

        As in both peers, a target below the alphabet plus the reserved tokens
        still builds (the vocabulary closest to it, larger than asked); tfds
        refuses targets below 258 (padding, a subword, 256 bytes), and so does
        `compat="tfds"`. `max_corpus_chars` (tfds's option, either mode): learn
        from the first this many characters only; None or 0 for all.

        >>> enc = SubwordTextEncoder.build_from_corpus(["hello world"] * 3, 5, verbose=False)  # below the alphabet
        >>> len(enc.subtokens) > 5, enc.decode(enc.encode("hello")).numpy()
        (True, b'hello')
        """
        # None: each mode's default reserved tokens (t2t's <pad> and <EOS>, tfds's none), chosen by the learner.
        counts = learner.corpus_token_counts(
            lines, compat=compat, reserved_tokens=reserved_tokens or (), max_corpus_chars=max_corpus_chars
        )
        subtokens = learner.build_to_target_size(
            counts,
            target_vocab_size,
            compat=compat,
            min_val=min_val,
            max_val=max_val,
            num_iterations=num_iterations,
            max_subtoken_length=max_subtoken_length,
            reserved_tokens=reserved_tokens,
            verbose=verbose,
        )
        return cls(subtokens, compat=compat)

    @classmethod
    def load_from_file(cls, path: str | os.PathLike, *, compat: str | None = None) -> "SubwordTextEncoder":
        """Reads a vocabulary file written by `store_to_file`, by tensor2tensor, or by tfds's
        `save_to_file(prefix)` (the file `prefix + ".subwords"`; its header selects `compat="tfds"`)."""
        return cls(path, compat=compat)

    def store_to_file(self, path: str | os.PathLike, *, add_single_quotes: bool = True) -> None:
        """Writes the vocabulary atomically: t2t, one subtoken a line in single quotes; tfds, its
        header and metadata lines first (name the file `prefix + ".subwords"` for tfds's loader).

        `add_single_quotes=False` (tensor2tensor's option, t2t only) writes each
        subtoken bare; `load_from_file` reads both. A subtoken that would not
        read back bare (white space at an end, wrapping quotes such as the
        subtoken `'`, a newline) is then a ValueError naming it.
        """
        formats.write_vocab_file(path, self.subtokens, compat=self.compat, add_single_quotes=add_single_quotes)

    def _encode(self, strings: tf.Tensor):
        """string [batch] -> int64 ragged [batch, ids]; a scalar -> int64 [ids]."""
        if isinstance(strings, tf.RaggedTensor) or strings.shape.rank not in (0, 1):
            raise ValueError(
                f"strings: expected a string or a [batch] vector of strings, got shape {strings.shape}; "
                "reshape it to [batch]"
            )
        if strings.shape.rank == 0:
            return self._graph.encode(strings[None])[0]
        return self._graph.encode(strings)

    def _decode(self, ids):
        """int [batch, ids] (dense or ragged) -> string [batch]; int [ids] -> a string scalar."""
        if ids.shape.rank not in (1, 2):
            raise ValueError(f"ids: expected int [ids] or [batch, ids], got shape {ids.shape}; reshape it")
        if ids.shape.rank == 1:
            return self._graph.decode(tf.RaggedTensor.from_tensor(ids[None]))[0]
        if not isinstance(ids, tf.RaggedTensor):
            ids = tf.RaggedTensor.from_tensor(ids)
        return self._graph.decode(ids)

    def tokenize(self, strings):
        """The `Tokenizer` interface: `encode(strings)`."""
        return self.encode(strings)

    def detokenize(self, token_ids):
        """The `Detokenizer` interface: `decode(token_ids)`."""
        return self.decode(token_ids)

    @tf.function(input_signature=[])
    def vocab_size(self):
        return tf.constant(self._graph.vocab_size, tf.int32)


def _int64_ids(values):
    ids = as_ids(values, "ids")
    return ids if ids.dtype == tf.int64 else tf.cast(ids, tf.int64)


def _checked_list(subtokens, *, allow_empty: bool) -> list[str]:
    if isinstance(subtokens, (bytes, bytearray)) or not isinstance(subtokens, Sequence):
        raise TypeError(f"subtokens: expected a list of str or a vocabulary file path, got {type(subtokens).__name__}")
    bad = [s for s in subtokens if not isinstance(s, str)]
    if bad:
        raise TypeError(f"subtokens: every subtoken must be a str, got {bad[0]!r} ({type(bad[0]).__name__})")
    if not any(subtokens) and not allow_empty:
        raise ValueError("subtokens: empty; learn a vocabulary (SubwordTextEncoder.build_from_corpus) or load one")
    return list(subtokens)
