"""SubwordTextEncoder: tensor2tensor's invertible subword encoder, in core TensorFlow ops.

decode(encode(s)) == s for every valid UTF-8 string s: text is split into runs
of alphanumeric (Unicode L*/N*) and other characters, each token is escaped
(`\\` -> `\\\\`, `_` -> `\\u`, characters outside the learned alphabet and
newline -> `\\<code point>;`) and ends with `_`, and escaped tokens are cut into
the longest subtokens left to right. Every character of an escape is in the
alphabet, so no id is ever unknown.

`compat="tfds"` runs `tfds.deprecated.text.SubwordTextEncoder` instead (ids
equal its `encode`, text its `decode`; UTF-8 byte ids after the subwords, id 0
padding): see `tfds.py`, and the table of differences in
`learner.py`, which learns both.

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
import pathlib
from typing import Iterable, Sequence

import numpy as np
import tensorflow as tf

from tf_wordpiece.subword import graph as sg
from tf_wordpiece.subword import learner as sl
from tf_wordpiece.subword.tfds import TfdsGraph
from tf_wordpiece import unicode_tables as ut
from tf_wordpiece.chains import follow
from tf_wordpiece.files import write_text_atomically
from tf_wordpiece.shapes import PythonEntry, as_ids, as_strings, lower_bound, value_rows

STRING_BATCH = tf.TensorSpec([None], tf.string)
_BACKSLASH, _UNDERSCORE, _SEMICOLON, _LOWER_U, _NEWLINE = 92, 95, 59, 117, 10
_MAX_CODE_POINT = 0x10FFFF


class SubwordTextEncoder(tf.Module):
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
            compat, subtokens = _read_vocab(subtokens, compat)
        else:
            self.source = "subtoken list"
            compat = sl.check_compat("t2t" if compat is None else compat)
            subtokens = _checked_list(subtokens, allow_empty=compat == "tfds")
        self.compat = compat
        if compat == "tfds":
            self._tfds = TfdsGraph(subtokens)
            self.subtokens = self._tfds.subwords
        else:
            self._init_t2t(subtokens)
        # Python values are converted before the call, so encode("...") in a loop traces once.
        self.encode = PythonEntry(self._encode, lambda v: as_strings(v, "strings"),
                                  [STRING_BATCH, tf.TensorSpec([], tf.string)])
        self.decode = PythonEntry(self._decode, _int64_ids, [
            tf.TensorSpec([None], tf.int64), tf.TensorSpec([None, None], tf.int64),
            tf.RaggedTensorSpec([None, None], tf.int64)])
        self.vocab_size.get_concrete_function()

    def _init_t2t(self, subtokens: list[str]) -> None:
        self.subtokens = subtokens
        self.alphabet = sl.alphabet_of(subtokens)
        _check_encodable(subtokens, self.alphabet, self.source)
        ids = sl.subtoken_ids(subtokens)
        self._table = tf.lookup.StaticHashTable(
            tf.lookup.KeyValueTensorInitializer(tf.constant(list(ids)), tf.constant(list(ids.values()), tf.int64)),
            default_value=-1,
        )
        self._strings = tf.constant(subtokens)
        self._alnum = ut.CodePointLookup(sl.alnum_table("t2t"))
        self._kind = ut.CodePointLookup(_escape_kinds(self.alphabet))
        self._longest_from = ut.CodePointLookup(sg.longest_key_from(ids))

    @classmethod
    def build_from_corpus(cls, lines: Iterable[str], target_vocab_size: int, *, compat: str = "t2t",
                          max_subtoken_length: int | None = None, reserved_tokens: Sequence[str] | None = None,
                          min_val: int | None = None, max_val: int | None = None, num_iterations: int = 4,
                          max_corpus_chars: int | None = None, verbose: bool = True) -> "SubwordTextEncoder":
        """Learns a vocabulary of about `target_vocab_size` ids from lines of text (t2t's
        `build_from_generator`, or tfds's `build_from_corpus` with `compat="tfds"`, whose
        subwords it equals); see `subword_learner.build_to_target_size` for the defaults.

        As in both peers, a target below the alphabet plus the reserved tokens
        still builds (the vocabulary closest to it, larger than asked); tfds
        refuses targets below 258 (padding, a subword, 256 bytes), and so does
        `compat="tfds"`. `max_corpus_chars` (tfds's option, either mode): learn
        from the first this many characters only; None or 0 for all.

        >>> enc = SubwordTextEncoder.build_from_corpus(["hello world"] * 3, 5, verbose=False)  # below the alphabet
        >>> len(enc.subtokens) > 5, enc.decode(enc.encode("hello")).numpy()
        (True, b'hello')
        """
        reserved = reserved_tokens
        if reserved is None and compat == "tfds":
            reserved = ()
        counts = sl.corpus_token_counts(lines, compat=compat, reserved_tokens=reserved or (),
                                        max_corpus_chars=max_corpus_chars)
        subtokens = sl.build_to_target_size(
            counts, target_vocab_size, compat=compat, min_val=min_val, max_val=max_val, num_iterations=num_iterations,
            max_subtoken_length=max_subtoken_length, reserved_tokens=reserved, verbose=verbose,
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
        if self.compat == "tfds":
            if not add_single_quotes:
                raise ValueError("add_single_quotes: False is only for compat='t2t' (tfds's files always quote their "
                                 "subwords); drop it")
            text = sl.format_tfds_vocab(self.subtokens)
        else:
            text = sl.format_vocab(self.subtokens, add_single_quotes=add_single_quotes)
        write_text_atomically(path, text, what="path", kind="subword vocabulary", looks_ours=_looks_like_a_subword_file)

    def _encode(self, strings: tf.Tensor):
        """string [batch] -> int64 ragged [batch, ids]; a scalar -> int64 [ids]."""
        if isinstance(strings, tf.RaggedTensor) or strings.shape.rank not in (0, 1):
            raise ValueError(f"strings: expected a string or a [batch] vector of strings, got shape {strings.shape}; "
                             "reshape it to [batch]")
        if strings.shape.rank == 0:
            return self._encode_batch(strings[None])[0]
        return self._encode_batch(strings)

    def _encode_batch(self, strings: tf.Tensor) -> tf.RaggedTensor:
        if self.compat == "tfds":
            return self._tfds.encode(tf.strings.unicode_transcode(strings, "UTF-8", "UTF-8", errors="replace"))
        tokens = self._escaped_tokens(strings)  # ragged [batch, tokens]
        unique, index = tf.unique(tokens.flat_values)
        pieces = self._longest_matches(unique)  # ragged [unique, pieces]
        per_token = tf.gather(pieces, index)
        return tokens.with_flat_values(per_token).merge_dims(1, 2)

    def _decode(self, ids):
        """int [batch, ids] (dense or ragged) -> string [batch]; int [ids] -> a string scalar."""
        if ids.shape.rank not in (1, 2):
            raise ValueError(f"ids: expected int [ids] or [batch, ids], got shape {ids.shape}; reshape it")
        if ids.shape.rank == 1:
            return self._decode_batch(tf.RaggedTensor.from_tensor(ids[None]))[0]
        if not isinstance(ids, tf.RaggedTensor):
            ids = tf.RaggedTensor.from_tensor(ids)
        return self._decode_batch(ids)

    def _decode_batch(self, ids: tf.RaggedTensor) -> tf.Tensor:
        if self.compat == "tfds":
            return self._tfds.decode(ids)
        values = tf.cast(ids.flat_values, tf.int64)
        valid = (values >= 0) & (values < tf.size(self._strings, out_type=tf.int64))
        strings = tf.where(valid, tf.gather(self._strings, tf.where(valid, values, 0)), "")
        text = tf.strings.reduce_join(ids.with_flat_values(strings), axis=1)
        tokens = tf.strings.split(text, "_")
        tokens = tf.ragged.boolean_mask(tokens, tokens != "")
        return self._join(tokens.with_flat_values(self._unescape(tokens.flat_values)))

    @tf.function(input_signature=[])
    def vocab_size(self):
        if self.compat == "tfds":
            return tf.constant(self._tfds.vocab_size, tf.int32)
        return tf.size(self._strings)

    def _escaped_tokens(self, strings: tf.Tensor) -> tf.RaggedTensor:
        """string [batch] -> ragged [batch, tokens] of escaped tokens, each ending in `_`."""
        chars = tf.strings.unicode_decode(strings, "UTF-8", errors="replace")
        cps = chars.flat_values
        size = tf.size(cps)
        position = tf.range(size)
        row = value_rows(chars)
        row_start = tf.gather(tf.cast(chars.row_starts(), tf.int32), row)
        alnum = self._alnum(cps) > 0
        starts = (position == row_start) | (alnum != tf.gather(alnum, tf.maximum(position - 1, 0)))
        token_of_char = tf.cumsum(tf.cast(starts, tf.int32)) - 1
        token_start = tf.boolean_mask(position, starts)
        token_end = tf.concat([token_start, [size]], 0)[1:]
        token_row = tf.gather(row, token_start)
        row_end = tf.gather(tf.cast(chars.row_limits(), tf.int32), token_row)
        # t2t drops a single-space token, but not the first or the last of a string.
        lone_space = (token_end - token_start == 1) & (tf.gather(cps, token_start) == 32)
        keep = ~lone_space | (token_start == tf.gather(row_start, token_start)) | (token_end == row_end)

        kind = self._kind(cps)  # 0 as is, 1 `\\<code point>;`, 2 `\\\\`, 3 `\\u`
        as_is = tf.strings.unicode_encode(cps[:, None], "UTF-8")
        numbered = tf.strings.join(["\\", tf.strings.as_string(cps), ";"])
        escaped = tf.gather(tf.stack([as_is, numbered, tf.fill([size], "\\\\"), tf.fill([size], "\\u")], 1),
                            kind, batch_dims=1)
        token_text = tf.strings.reduce_join(tf.RaggedTensor.from_value_rowids(escaped, token_of_char), axis=1)
        token_text = tf.strings.join([token_text, "_"])
        num_rows = tf.shape(strings, out_type=tf.int64)[0]
        return tf.RaggedTensor.from_value_rowids(
            tf.boolean_mask(token_text, keep), tf.cast(tf.boolean_mask(token_row, keep), tf.int64), nrows=num_rows
        )

    def _longest_matches(self, tokens: tf.Tensor) -> tf.RaggedTensor:
        """Escaped tokens [u] -> ids [u, pieces]: longest subtoken first, left to right
        (every character is a subtoken, so every piece has an id)."""
        m = sg.longest_match(tokens, self._table, self._longest_from)
        return tf.RaggedTensor.from_value_rowids(
            tf.boolean_mask(m.ids, m.on_path), tf.cast(tf.boolean_mask(m.string, m.on_path), tf.int64),
            nrows=tf.cast(tf.size(tokens), tf.int64),
        )

    def _unescape(self, tokens: tf.Tensor) -> tf.Tensor:
        """Escaped tokens [m] (no trailing `_`) -> text: `\\u`, `\\\\`, `\\<n>;` read left to right."""
        chars = tf.strings.unicode_decode(tokens, "UTF-8")
        cps = chars.flat_values
        size = tf.size(cps)
        position = tf.range(size)
        row_end = tf.gather(tf.cast(chars.row_limits(), tf.int32), value_rows(chars))
        padded = tf.concat([cps, [-1]], 0)
        following = tf.where(position + 1 < row_end, tf.gather(padded, position + 1), -1)
        is_digit = (cps >= 48) & (cps <= 57)
        # Where each run of digits ends: the next non-digit or the end of the token.
        stops = tf.sort(tf.concat([tf.cast(tf.reshape(tf.where(~is_digit), [-1]), tf.int32), row_end], 0))
        # The first stop at or after a position (not tf.searchsorted: TFLite cannot convert its LowerBound op).
        digits_end = tf.gather(stops, lower_bound(stops, position + 1, size))
        run_end = tf.gather(stops, lower_bound(stops, position, size))  # for the digits themselves
        semicolon = (digits_end < row_end) & (tf.gather(padded, tf.minimum(digits_end, size)) == _SEMICOLON)
        backslash = cps == _BACKSLASH
        numbered = backslash & (digits_end > position + 1) & semicolon
        pair = backslash & ((following == _LOWER_U) | (following == _BACKSLASH))
        step = tf.where(numbered, digits_end - position + 1, tf.where(pair, 2, 1))

        # The number of each `\\<digits>;`, exact below 2e6 (enough to tell a code point from too large).
        digit = tf.cast(cps - 48, tf.float64)
        power = tf.pow(tf.constant(10.0, tf.float64), tf.cast(run_end - 1 - position, tf.float64))
        part = tf.where(is_digit & (cps != 48), tf.minimum(digit * power, 2e6), 0.0)
        sums = tf.concat([[0.0], tf.cumsum(part)], 0)
        number = tf.round(tf.gather(sums, digits_end) - tf.gather(sums, tf.minimum(position + 1, size)))  # pow is inexact
        from_number = tf.where(number <= _MAX_CODE_POINT, tf.cast(number, tf.int32), ord(sl.UNDEFINED_CHARACTER))
        out = tf.where(numbered, from_number, tf.where(pair & (following == _LOWER_U), _UNDERSCORE, cps))

        on_path = follow(position + step, tf.cast(chars.row_starts(), tf.int32), size,
                         tf.reduce_max(tf.concat([tf.cast(chars.row_lengths(), tf.int32), [0]], 0)))
        kept = tf.ragged.boolean_mask(chars.with_flat_values(out), chars.with_flat_values(on_path))
        return tf.strings.unicode_encode(kept, "UTF-8", errors="replace")

    def _join(self, tokens: tf.RaggedTensor) -> tf.Tensor:
        """t2t's detokenizer: one space between two tokens that both start alphanumeric."""
        words = tokens.flat_values
        first = tf.strings.unicode_decode(tf.strings.substr(words, 0, 1, unit="UTF8_CHAR"), "UTF-8").flat_values
        alnum = self._alnum(first) > 0
        position = tf.range(tf.size(words))
        row_start = tf.gather(tf.cast(tokens.row_starts(), tf.int32), value_rows(tokens))
        spaced = (position > row_start) & alnum & tf.gather(alnum, tf.maximum(position - 1, 0))
        words = tf.where(spaced, tf.strings.join([" ", words]), words)
        return tf.strings.reduce_join(tokens.with_flat_values(words), axis=1)


def _int64_ids(values):
    ids = as_ids(values, "ids")
    return ids if ids.dtype == tf.int64 else tf.cast(ids, tf.int64)


def _escape_kinds(alphabet: frozenset[str]) -> np.ndarray:
    """Per code point: 0 written as is, 1 `\\<code point>;`, 2 `\\\\`, 3 `\\u`."""
    kinds = np.ones(ut.NUM_CODE_POINTS, np.int32)
    kinds[[ord(c) for c in alphabet]] = 0
    kinds[_NEWLINE] = 1
    kinds[_BACKSLASH] = 2
    kinds[_UNDERSCORE] = 3
    return kinds


def _checked_list(subtokens, *, allow_empty: bool) -> list[str]:
    if isinstance(subtokens, (bytes, bytearray)) or not isinstance(subtokens, Sequence):
        raise TypeError(f"subtokens: expected a list of str or a vocabulary file path, got {type(subtokens).__name__}")
    bad = [s for s in subtokens if not isinstance(s, str)]
    if bad:
        raise TypeError(f"subtokens: every subtoken must be a str, got {bad[0]!r} ({type(bad[0]).__name__})")
    if not any(subtokens) and not allow_empty:
        raise ValueError("subtokens: empty; learn a vocabulary (SubwordTextEncoder.build_from_corpus) or load one")
    return list(subtokens)


def _read_vocab(path: str | os.PathLike, compat: str | None) -> tuple[str, list[str]]:
    """(compat, subtokens) of a vocabulary file; tfds's header line means compat "tfds"."""
    path = os.fspath(path)
    try:
        data = pathlib.Path(path).read_bytes()
    except OSError as e:
        raise ValueError(f"vocab: cannot read the vocab file {path!r} ({e.strerror}); pass a file written by store_to_file") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"vocab: the vocab file {path!r} is not valid UTF-8 (byte {e.start}); re-save it as UTF-8") from None
    found = "tfds" if sl.is_tfds_vocab(text) else "t2t"
    if compat is not None and sl.check_compat(compat) != found:
        raise ValueError(f"compat: {compat!r}, but the vocab file {path!r} is in {found}'s format "
                         f"({'has' if found == 'tfds' else 'lacks'} the {sl.TFDS_HEADER!r} header); pass compat={found!r} or None")
    if found == "tfds":
        return found, sl.parse_tfds_vocab(text, source=f"vocab file {path!r}")
    return found, sl.parse_vocab(text, source=f"vocab file {path!r}")


def _check_encodable(subtokens: list[str], alphabet: frozenset[str], source: str) -> None:
    """Every string must encode: each alphabet character (escape characters included) is a subtoken."""
    present = set(subtokens)
    missing = sorted(c for c in alphabet if c not in present)
    if missing:
        raise ValueError(
            f"vocab: the {source} is malformed: {len(missing)} character(s) it uses are not subtokens on their own "
            f"({missing[:10]}); every character of the alphabet and of '\\\\_u;0123456789' must be one. "
            "Learn the vocabulary with SubwordTextEncoder.build_from_corpus"
        )


def _looks_like_a_subword_file(head: bytes) -> bool:
    """Whether a file starts as `store_to_file` writes: quoted subtokens a line, after tfds's `###` header
    lines, or bare ones from t2t's reserved `<pad>_` and `<EOS>_` on (what `add_single_quotes=False` writes)."""
    if head.startswith(b"<pad>_\n<EOS>_\n"):
        return True
    lines = [line for line in head.split(b"\n")[:-1] if line and not line.startswith(b"###")]
    return all(line[:1] in (b"'", b'"') for line in lines)
