"""tensor2tensor's SubwordTextEncoder encoding and decoding, in core TensorFlow ops (`compat="t2t"`).

The graph half of `SubwordTextEncoder(...)` in its default mode, step by step
as tensor2tensor does it in Python (the tests' `helpers/subword_reference.py` is the plain twin):

1. Text is cut into runs of alphanumeric (Unicode L*/N*) and other
   characters; a single-space token is dropped unless it is first or last.
2. Each token is escaped (`\\` -> `\\\\`, `_` -> `\\u`, characters outside the
   learned alphabet and newline -> `\\<code point>;`) and ends with `_`.
3. Each escaped token is cut into the longest subtokens, left to right. Every
   character of an escape is in the alphabet, so no id is ever unknown.

Decoding joins the subtokens, splits at `_`, unescapes each token and puts one
space between two tokens that both start alphanumeric. Ids outside
[0, vocab_size) decode to nothing, as in tensor2tensor.

The tables this mode needs (which code points are alphanumeric, how each is
escaped, the longest subtoken from each) are built here, in `T2tGraph`.

>>> learned = ["<pad>_", "<EOS>_", "hello_"]
>>> g = T2tGraph(learned + sorted(alphabet_of(learned)))  # every character is a subtoken
>>> ids = g.encode(tf.constant(["hello", "he_"]))
>>> ids.to_list()[0]
[2]
>>> g.decode(ids).numpy().tolist()
[b'hello', b'he_']
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import tensorflow as tf

from tf_wordpiece.chains import follow
from tf_wordpiece.shapes import lower_bound, value_rows
from tf_wordpiece.subword import graph as sg
from tf_wordpiece.subword.text import UNDEFINED_CHARACTER, alnum_table, alphabet_of, subtoken_ids
from tf_wordpiece.unicode import tables as ut

_BACKSLASH, _UNDERSCORE, _SEMICOLON, _LOWER_U, _NEWLINE = 92, 95, 59, 117, 10
_MAX_CODE_POINT = 0x10FFFF


class T2tGraph(tf.Module):
    """Tables and graph code for tensor2tensor's encoding of `subtokens` (id n is subtokens[n]).

    encode: string [n] (invalid UTF-8 read as U+FFFD) -> int64 RaggedTensor [n, ids].
    decode: int64 RaggedTensor [n, ids] -> string [n].

    `source` names the vocabulary in errors (a subtoken list, a vocab file).
    """

    def __init__(self, subtokens: Sequence[str], *, source: str = "subtoken list"):
        super().__init__()
        self.subtokens = list(subtokens)
        self.vocab_size = len(self.subtokens)
        self.alphabet = alphabet_of(self.subtokens)
        _check_encodable(self.subtokens, self.alphabet, source)
        ids = subtoken_ids(self.subtokens)
        self._table = tf.lookup.StaticHashTable(
            tf.lookup.KeyValueTensorInitializer(tf.constant(list(ids)), tf.constant(list(ids.values()), tf.int64)),
            default_value=-1,
        )
        self._strings = tf.constant(self.subtokens)
        self._alnum = ut.CodePointLookup(alnum_table())
        self._kind = ut.CodePointLookup(_escape_kinds(self.alphabet))
        self._longest_from = ut.CodePointLookup(sg.longest_key_from(ids))

    def encode(self, strings: tf.Tensor) -> tf.RaggedTensor:
        tokens = self._escaped_tokens(strings)  # ragged [batch, tokens]
        unique, index = tf.unique(tokens.flat_values)
        pieces = self._longest_matches(unique)  # ragged [unique, pieces]
        per_token = tf.gather(pieces, index)
        return tokens.with_flat_values(per_token).merge_dims(1, 2)

    def decode(self, ids: tf.RaggedTensor) -> tf.Tensor:
        values = tf.cast(ids.flat_values, tf.int64)
        valid = (values >= 0) & (values < tf.size(self._strings, out_type=tf.int64))
        strings = tf.where(valid, tf.gather(self._strings, tf.where(valid, values, 0)), "")
        text = tf.strings.reduce_join(ids.with_flat_values(strings), axis=1)
        tokens = tf.strings.split(text, "_")
        tokens = tf.ragged.boolean_mask(tokens, tf.not_equal(tokens, ""))
        return self._join(tokens.with_flat_values(self._unescape(tokens.flat_values)))

    def _escaped_tokens(self, strings: tf.Tensor) -> tf.RaggedTensor:
        """string [batch] -> ragged [batch, tokens] of escaped tokens, each ending in `_`."""
        chars = tf.strings.unicode_decode(strings, "UTF-8", errors="replace")
        cps = chars.flat_values
        size = tf.size(cps)
        position = tf.range(size)
        row = value_rows(chars)
        row_start = tf.gather(tf.cast(chars.row_starts(), tf.int32), row)
        alnum = self._alnum(cps) > 0
        starts = tf.equal(position, row_start) | tf.not_equal(alnum, tf.gather(alnum, tf.maximum(position - 1, 0)))
        token_of_char = tf.cumsum(tf.cast(starts, tf.int32)) - 1
        token_start = tf.boolean_mask(position, starts)
        token_end = tf.concat([token_start, [size]], 0)[1:]
        token_row = tf.gather(row, token_start)
        row_end = tf.gather(tf.cast(chars.row_limits(), tf.int32), token_row)
        # t2t drops a single-space token, but not the first or the last of a string.
        lone_space = tf.equal(token_end - token_start, 1) & tf.equal(tf.gather(cps, token_start), 32)
        keep = ~lone_space | tf.equal(token_start, tf.gather(row_start, token_start)) | tf.equal(token_end, row_end)

        kind = self._kind(cps)  # 0 as is, 1 `\\<code point>;`, 2 `\\\\`, 3 `\\u`
        as_is = tf.strings.unicode_encode(cps[:, None], "UTF-8")
        numbered = tf.strings.join(["\\", tf.strings.as_string(cps), ";"])
        escaped = tf.gather(
            tf.stack([as_is, numbered, tf.fill([size], "\\\\"), tf.fill([size], "\\u")], 1), kind, batch_dims=1
        )
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
            tf.boolean_mask(m.ids, m.on_path),
            tf.cast(tf.boolean_mask(m.string, m.on_path), tf.int64),
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
        semicolon = (digits_end < row_end) & tf.equal(tf.gather(padded, tf.minimum(digits_end, size)), _SEMICOLON)
        backslash = tf.equal(cps, _BACKSLASH)
        numbered = backslash & (digits_end > position + 1) & semicolon
        pair = backslash & (tf.equal(following, _LOWER_U) | tf.equal(following, _BACKSLASH))
        step = tf.where(numbered, digits_end - position + 1, tf.where(pair, 2, 1))

        # The number of each `\\<digits>;`, exact below 2e6 (enough to tell a code point from too large).
        digit = tf.cast(cps - 48, tf.float64)
        power = tf.pow(tf.constant(10.0, tf.float64), tf.cast(run_end - 1 - position, tf.float64))
        part = tf.where(is_digit & tf.not_equal(cps, 48), tf.minimum(digit * power, 2e6), 0.0)
        sums = tf.concat([[0.0], tf.cumsum(part)], 0)
        number = tf.round(
            tf.gather(sums, digits_end) - tf.gather(sums, tf.minimum(position + 1, size))
        )  # pow is inexact
        from_number = tf.where(number <= _MAX_CODE_POINT, tf.cast(number, tf.int32), ord(UNDEFINED_CHARACTER))
        out = tf.where(numbered, from_number, tf.where(pair & tf.equal(following, _LOWER_U), _UNDERSCORE, cps))

        on_path = follow(
            position + step,
            tf.cast(chars.row_starts(), tf.int32),
            size,
            tf.reduce_max(tf.concat([tf.cast(chars.row_lengths(), tf.int32), [0]], 0)),
        )
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


def _escape_kinds(alphabet: frozenset[str]) -> np.ndarray:
    """Per code point: 0 written as is, 1 `\\<code point>;`, 2 `\\\\`, 3 `\\u`."""
    kinds = np.ones(ut.NUM_CODE_POINTS, np.int32)
    kinds[[ord(c) for c in alphabet]] = 0
    kinds[_NEWLINE] = 1
    kinds[_BACKSLASH] = 2
    kinds[_UNDERSCORE] = 3
    return kinds


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
