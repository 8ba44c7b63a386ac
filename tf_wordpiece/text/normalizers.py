"""tensorflow_text's `normalize_utf8`, `case_fold_utf8` and `coerce_to_structurally_valid_utf8`, in core ops.

ICU normalizes there; here the shipped ICU tables (`bert.code_points`) map
each code point, `bert.composition.Composer` puts marks in canonical order
and, for NFC, NFKC and case folding (ICU's NFKC_Casefold), composes. Bytes
that are not UTF-8 stay as they are, as ICU leaves them in tensorflow_text.
As ICU's quick check, a string made only of code points that the form keeps
(and that nothing around them changes) is returned first, by one regular
expression match; only the others take the chain.
Every function keeps the input's shape (Tensor of any rank, or RaggedTensor).

>>> normalize_utf8(["\\uff2b\\uff21", "e\\u0301"], "NFKC").numpy().tolist()
[b'KA', b'\\xc3\\xa9']
>>> case_fold_utf8("The Stra\\u00dfe").numpy()
b'the strasse'
"""

from __future__ import annotations

import functools

import numpy as np
import tensorflow as tf

from tf_wordpiece.bert import composition
from tf_wordpiece.bert.code_points import encode_code_points, table_lookup
from tf_wordpiece.bert.composition import Composer
from tf_wordpiece.shapes import as_strings, rows_of_values
from tf_wordpiece.unicode import tables as ut

NORMALIZATION_FORMS = ("NFC", "NFD", "NFKC", "NFKD")
# form -> (the shipped per-code-point decomposition, whether canonical composition follows)
_STEPS = {
    "NFC": ("nfd", True),
    "NFD": ("nfd", False),
    "NFKC": ("nfkd", True),
    "NFKD": ("nfkd", False),
    "NFKC_CASEFOLD": ("casefold", True),
}


def normalize_utf8(input, normalization_form: str = "NFKC", name: str | None = None):  # noqa: A002 (the peer's name)
    """Unicode normalization of each UTF-8 string (UAX #15), as tensorflow_text's `normalize_utf8`.

    Args:
      input: string Tensor of any rank, or RaggedTensor, of UTF-8 text.
      normalization_form: `"NFC"`, `"NFD"`, `"NFKC"` or `"NFKD"`, in any case.
        Defaults to `"NFKC"`.
      name: the name scope of the ops. Defaults to None.
    Returns:
      string, the input's shape: each string normalized (invalid UTF-8 bytes kept).

    >>> normalize_utf8(["\\u00e9"], "NFD").numpy().tolist()
    [b'e\\xcc\\x81']
    """
    form = _checked_form(normalization_form)
    with tf.name_scope(name or "NormalizeUTF8"):
        return map_strings(input, functools.partial(_normalize_flat, form=form))


def case_fold_utf8(input, name: str | None = None):  # noqa: A002 (the peer's name)
    """ICU's NFKC_Casefold of each UTF-8 string, as tensorflow_text's `case_fold_utf8` (so NFKC as well).

    Args:
      input: string Tensor of any rank, or RaggedTensor, of UTF-8 text.
      name: the name scope of the ops. Defaults to None.
    Returns:
      string, the input's shape: each string case folded (invalid UTF-8 bytes kept).

    >>> case_fold_utf8([["\\uff21BC", "\\u0130"]]).numpy().tolist()
    [[b'abc', b'i\\xcc\\x87']]
    """
    with tf.name_scope(name or "CaseFoldUTF8"):
        return map_strings(input, functools.partial(_normalize_flat, form="NFKC_CASEFOLD"))


def coerce_to_structurally_valid_utf8(input, replacement_char: str = "\ufffd", name: str | None = None):  # noqa: A002
    """Each byte that is not part of valid UTF-8 replaced by `replacement_char`, as tensorflow_text's function.

    Args:
      input: string Tensor of any rank.
      replacement_char: one character. Defaults to U+FFFD.
      name: the name of the op. Defaults to None.
    Returns:
      string, the input's shape.

    >>> coerce_to_structurally_valid_utf8([b"A", b"\\xdeB2"]).numpy().tolist()
    [b'A', b'\\xef\\xbf\\xbdB2']
    """
    if not isinstance(replacement_char, str) or len(replacement_char) != 1:
        raise ValueError(f"replacement_char: expected one character, got {replacement_char!r}")
    return tf.strings.unicode_transcode(
        as_strings(input, "input"),
        input_encoding="UTF-8",
        output_encoding="UTF-8",
        errors="replace",
        replacement_char=ord(replacement_char),
        name=name,
    )


def _checked_form(normalization_form) -> str:
    form = normalization_form.upper() if isinstance(normalization_form, str) else normalization_form
    if form not in NORMALIZATION_FORMS:
        raise ValueError(
            f"normalization_form: expected one of {list(NORMALIZATION_FORMS)} (in any case), got {normalization_form!r}"
        )
    return form


def map_strings(input, flat_fn):  # noqa: A002
    """Applies `flat_fn` (string [n] -> [n]) to strings of any shape, ragged or not."""
    strings = as_strings(input, "input")
    if isinstance(strings, tf.RaggedTensor):
        return strings.with_flat_values(map_strings(strings.flat_values, flat_fn))
    return tf.reshape(flat_fn(tf.reshape(strings, [-1])), tf.shape(strings))


@functools.cache  # one Composer (its tables) for all calls
def _composer() -> Composer:
    return Composer()


def _normalize_flat(strings: tf.Tensor, *, form: str) -> tf.Tensor:
    """string [n] -> [n]: the strings that pass the quick check as they are (ASCII-lowered for case
    folding), the others through `_normalize_chain`."""
    quick = tf.strings.regex_full_match(strings, _quick_check(form))
    out = tf.strings.lower(strings) if form == "NFKC_CASEFOLD" else strings  # ASCII bytes only
    rest = tf.reshape(tf.where(~quick), [-1, 1])
    return tf.cond(
        tf.size(rest) > 0,
        lambda: tf.tensor_scatter_nd_update(out, rest, _normalize_chain(tf.gather_nd(strings, rest), form=form)),
        lambda: out,
    )


@functools.cache  # one pattern per form
def _quick_check(form: str) -> str:
    """An RE2 pattern of the strings that `form` leaves as they are (A-Z lowered by case folding, as
    `tf.strings.lower`): a run of the pieces of `_quick_check_pieces`."""
    pieces = ("".join(ut.regex_class(c) for c in piece) for piece in _quick_check_pieces(form))
    return f"(?:{'|'.join(pieces)})*"


def _quick_check_pieces(form: str) -> list[tuple[np.ndarray, ...]]:
    """The pieces of a string that `form` keeps, each one or two code points, a bool [NUM_CODE_POINTS] class each.

    ICU's quick check without runs of marks: a kept starter; a kept mark after a kept starter whose canonical
    decomposition ends in a starter (nothing reorders); for the C forms, a kept code point that composes with
    some code points before it, after such a starter that is the first of no composite pair. Kept: mapped to
    itself (for the C forms by the form's composed table; case folding's decomposed table must equal NFKD's).
    """
    tables = ut.peer_tables()["tf_text"]
    table, compose = _STEPS[form]
    ccc, first, second = composition.combining_data()
    changed = set(tables["nfc" if form == "NFC" else "nfkc"] if compose else tables[table])
    if form == "NFKC_CASEFOLD":
        nfkd = tables["nfkd"]
        changed |= {c for c in set(nfkd) | set(tables[table]) if nfkd.get(c) != tables[table].get(c)}
    kept = np.ones(ut.NUM_CODE_POINTS, bool)
    kept[[int(c) for c in changed]] = False
    kept[0xD800:0xE000] = False  # surrogates: not UTF-8 (and ut.INVALID_UTF8)
    if form == "NFKC_CASEFOLD":
        kept[ord("A") : ord("Z") + 1] = True
    composes = second if compose else np.zeros(ut.NUM_CODE_POINTS, bool)
    starter = kept & (ccc == 0) & ~composes
    before_mark = starter.copy()
    before_mark[[int(c) for c, full in tables["nfd"].items() if ccc[full[-1]] > 0]] = False
    pieces = [(starter,), (before_mark, kept & (ccc > 0) & ~composes)]
    return pieces + [(before_mark & ~first, kept & composes)] if compose else pieces


def _normalize_chain(strings: tf.Tensor, *, form: str) -> tf.Tensor:
    """string [n] -> [n]: decomposed by the table, marks in canonical order, composed for the C forms."""
    table, compose = _STEPS[form]
    chars = tf.strings.unicode_decode_with_offsets(strings, "UTF-8", errors="replace", replacement_char=ut.INVALID_UTF8)
    code_points = chars[0].flat_values
    rows = rows_of_values(chars[0].row_splits[:-1], tf.size(code_points))
    mapped, mapped_rows = table_lookup(table)(code_points, rows)
    if compose:
        out, first, _ = _composer()(mapped, mapped_rows)
        out_rows = tf.gather(mapped_rows, first)
    else:
        order = _composer().order(mapped, mapped_rows)
        out, out_rows = tf.gather(mapped, order), mapped_rows
    n = tf.size(strings)
    invalid = code_points == ut.INVALID_UTF8
    return tf.cond(
        tf.reduce_any(invalid),
        lambda: encode_keeping_bytes(out, out_rows, n, invalid_bytes(strings, chars, rows, invalid)),
        lambda: encode_code_points(out, out_rows, n),
    )


def invalid_bytes(strings, chars, rows, invalid) -> tf.Tensor:
    """string [k]: the input bytes of each code point that decoded as invalid, in order."""
    starts = tf.cast(chars[1].flat_values, tf.int32)
    lengths = tf.strings.length(strings)
    last = tf.concat([rows[1:] != rows[:-1], [True]], 0)
    ends = tf.where(last, tf.gather(lengths, rows), tf.concat([starts[1:], [0]], 0))
    at = tf.reshape(tf.where(invalid), [-1])
    return tf.strings.substr(
        tf.gather(strings, tf.gather(rows, at)), tf.gather(starts, at), tf.gather(ends - starts, at)
    )


def encode_keeping_bytes(code_points, rows, n, raw: tf.Tensor) -> tf.Tensor:
    """Like `encode_code_points`, each `ut.INVALID_UTF8` written as the next of `raw`'s byte strings.

    Invalid code points keep their order through the table (they map to
    themselves) and the Composer (they are starters that combine with nothing).
    """
    invalid = code_points == ut.INVALID_UTF8
    one_each = tf.RaggedTensor.from_uniform_row_length(tf.where(invalid, 0x20, code_points), 1)
    pieces = tf.strings.unicode_encode(one_each, "UTF-8")
    pieces = tf.tensor_scatter_nd_update(pieces, tf.where(invalid), raw)
    joined = tf.RaggedTensor.from_value_rowids(pieces, tf.cast(rows, tf.int64), nrows=tf.cast(n, tf.int64))
    return tf.strings.reduce_join(joined, axis=1)


def normalize_utf8_with_offsets_map(input, normalization_form: str = "NFKC", name: str | None = None):  # noqa: A002
    """Not supported: a ValueError that says so (the form is checked first, as everywhere).

    tensorflow_text returns ICU's edit records as an opaque `tf.variant`
    tensor, which core TensorFlow ops cannot build; `normalize_utf8` gives the
    same strings, and `tf_wordpiece.BertTokenizer(offsets="original")` gives
    token offsets in the input strings.

    >>> normalize_utf8_with_offsets_map(["a"])
    Traceback (most recent call last):
    ...
    ValueError: normalize_utf8_with_offsets_map: not supported by tf_wordpiece.text ...
    """
    _checked_form(normalization_form)
    raise ValueError(_NO_OFFSETS_MAP.format(function="normalize_utf8_with_offsets_map"))


def find_source_offsets(offsets_map, input_offsets, name: str | None = None):
    """Not supported, as `normalize_utf8_with_offsets_map` (whose map it reads): a ValueError that says so."""
    raise ValueError(_NO_OFFSETS_MAP.format(function="find_source_offsets"))


_NO_OFFSETS_MAP = (
    "{function}: not supported by tf_wordpiece.text (tensorflow_text's offsets map is a tf.variant of ICU "
    "edits that core TensorFlow ops cannot build); use normalize_utf8 for the strings, and "
    "tf_wordpiece.BertTokenizer(offsets='original') for token offsets in the input, or tensorflow_text itself"
)
