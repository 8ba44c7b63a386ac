"""tensorflow_text's `normalize_utf8`, `case_fold_utf8` and `coerce_to_structurally_valid_utf8`, in core ops.

ICU normalizes there; here the shipped ICU tables (`bert.code_points`) map
each code point, `bert.composition.Composer` puts marks in canonical order
and, for NFC, NFKC and case folding (ICU's NFKC_Casefold), composes. Bytes
that are not UTF-8 stay as they are, as ICU leaves them in tensorflow_text.
As ICU's quick check, a string made only of code points that the form keeps
(and that nothing around them changes) is returned first, by one regular
expression match. In the others only the runs that may change (from one
normalization boundary to the next) are cut out, by one `regex_replace` that
wraps them in a byte UTF-8 never holds and a split: a run of one code point
takes a table of each code point's form on its own, a starter with kept marks
already in canonical order stays, two or three starters that compose pair by
pair (Hangul's jamo) take the composition table, and only the rest (and
strings that are not valid UTF-8) take the chain.
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
from tf_wordpiece.shapes import as_strings, rows_and_positions, rows_of_values
from tf_wordpiece.tf1_graphs import cache_per_graph
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


class UnknownNormalizationForm(ValueError, tf.errors.InvalidArgumentError):
    """An unknown `normalization_form`: a ValueError, raised when the call is made, that is also what
    tensorflow_text's kernel raises when it runs (`tf.errors.InvalidArgumentError`), so code that catches
    either catches it.

    >>> try:
    ...     normalize_utf8(["a"], "NFX")
    ... except tf.errors.InvalidArgumentError as error:
    ...     print(isinstance(error, ValueError), error)
    True normalization_form: expected one of ['NFC', 'NFD', 'NFKC', 'NFKD'] (in any case), got 'NFX'
    """

    def __init__(self, message: str):
        tf.errors.InvalidArgumentError.__init__(self, None, None, message)
        ValueError.__init__(self, message)  # args, for repr and pickling


def _checked_form(normalization_form) -> str:
    form = normalization_form.upper() if isinstance(normalization_form, str) else normalization_form
    if form not in NORMALIZATION_FORMS:
        raise UnknownNormalizationForm(
            f"normalization_form: expected one of {list(NORMALIZATION_FORMS)} (in any case), got {normalization_form!r}"
        )
    return form


def map_strings(input, flat_fn):  # noqa: A002
    """Applies `flat_fn` (string [n] -> [n]) to strings of any shape, ragged or not."""
    strings = as_strings(input, "input")
    if isinstance(strings, tf.RaggedTensor):
        return strings.with_flat_values(map_strings(strings.flat_values, flat_fn))
    return tf.reshape(flat_fn(tf.reshape(strings, [-1])), tf.shape(strings))


@cache_per_graph  # one Composer (its tables) for all calls
def _composer() -> Composer:
    return Composer()


def _normalize_flat(strings: tf.Tensor, *, form: str) -> tf.Tensor:
    """string [n] -> [n]: the strings that pass the quick check as they are (ASCII-lowered for case
    folding), the others through `_normalize_failing`."""
    quick = tf.strings.regex_full_match(strings, _quick_check(form))
    out = tf.strings.lower(strings) if form == "NFKC_CASEFOLD" else strings  # ASCII bytes only
    rest = tf.reshape(tf.where(~quick), [-1, 1])
    return tf.cond(
        tf.size(rest) > 0,
        lambda: tf.tensor_scatter_nd_update(out, rest, _normalize_failing(tf.gather_nd(out, rest), form)),
        lambda: out,
    )


# Wraps each run that may change: never in UTF-8, so a string holding it is invalid and takes the chain whole.
_MARK = b"\xff"
# The strings that the decoder reads as valid UTF-8 (RE2 alone lets an encoded surrogate pass).
_VALID_UTF8 = r"[\x{0}-\x{d7ff}\x{e000}-\x{10ffff}]*"


def _normalize_failing(strings: tf.Tensor, form: str) -> tf.Tensor:
    """string [f], strings that fail the quick check (A-Z lowered for case folding) -> [f].

    Only the runs `_fail_run_pattern` finds may change, each on its own (a run starts at a normalization
    boundary): they are cut out by one `regex_replace` and a `split`, and joined back with the bytes between
    them. A run of one code point takes `_single_code_points`' table, for the composing forms a run of
    starters that compose (`_Runs.starter_composites`) the composition table; other longer ones, and strings
    that are not valid UTF-8, are left to `_with_longer_runs`, in a branch of its own (most batches have none).
    """
    deleted = _deleted_pattern(form)
    if deleted:  # they map to nothing: gone first, they join no run
        strings = tf.strings.regex_replace(strings, deleted, "")
    valid = tf.strings.regex_full_match(strings, _VALID_UTF8)
    marked = tf.strings.regex_replace(strings, _fail_run_pattern(form), _MARK + b"\\0" + _MARK)
    # Bytes kept, a run, bytes kept, ... in each string: the raw op's (string, position) indices, not a
    # RaggedTensor (whose row partition costs a dozen ops more).
    at, pieces, _ = tf.raw_ops.StringSplitV2(input=marked, sep=_MARK)
    runs_at = tf.where(tf.equal(tf.math.floormod(at[:, 1], 2), 1) & tf.gather(valid, at[:, 0]))  # a \xff splits too
    runs = _Runs(tf.gather_nd(pieces, runs_at), form)
    singles = runs.singles()

    def join(normalized_runs):
        return tf.strings.unsorted_segment_join(
            tf.tensor_scatter_nd_update(pieces, runs_at, normalized_runs), at[:, 0], tf.size(strings)
        )

    return tf.cond(
        tf.reduce_any(runs.lengths > 1) | ~tf.reduce_all(valid),
        lambda: _with_longer_runs(strings, valid, runs, singles, join, form),
        lambda: join(singles),
    )


class _Runs:
    """Runs [r] cut out of strings, decoded: each code point's `_run_codes`."""

    def __init__(self, runs: tf.Tensor, form: str):
        self.runs, self.form = runs, form
        splits, self.code_points = tf.raw_ops.UnicodeDecode(input=runs, input_encoding="UTF-8")
        self.splits = tf.cast(splits, tf.int32)
        self.lengths = self.splits[1:] - self.splits[:-1]
        self.code = _run_codes(form)(self.code_points)
        self.starter_code = tf.gather(self.code, self.splits[:-1])

    def singles(self) -> tf.Tensor:
        """string [r]: each run normalized as if it were its first code point alone."""
        row = self.starter_code // _ROW
        return tf.where(tf.equal(row, 0), self.runs, tf.gather(_single_code_points(self.form), row))

    def starter_composites(self) -> tuple[tf.Tensor, tf.Tensor]:
        """(bool [r], string [r]) for the composing forms: whether a run is one of `_starter_runs`, and the
        UTF-8 of the code point it composes to."""
        keys, composites = _starter_runs(self.form)
        position = self.splits[:-1, None] + tf.range(_MAX_STARTERS)
        padding = tf.zeros([_MAX_STARTERS - 1], tf.int32)  # a run's next code points, even at the end
        code_points = tf.gather(tf.concat([self.code_points, padding], 0), position)
        code_points = tf.where(tf.range(_MAX_STARTERS) < self.lengths[:, None], code_points, 0)
        key = tf.reduce_sum(tf.cast(code_points, tf.int64) * _STARTER_KEY_SCALE, axis=1)
        at = tf.minimum(tf.searchsorted(keys, key), keys.shape[0] - 1)
        composes = tf.equal(tf.gather(keys, at), key) & (self.lengths > 1) & (self.lengths <= _MAX_STARTERS)
        return composes, _each_encoded(tf.gather(composites, at))

    def changing(self) -> tf.Tensor:
        """bool [r]: whether a run may change, other than a starter with the kept marks it allows in canonical
        order (see `_run_codes`)."""
        run_of = tf.searchsorted(self.splits[1:], tf.range(tf.size(self.code)), side="right")
        allows = tf.where(_has(self.starter_code, _AFTER_FIRST_ONLY), _MARK_AFTER_FIRST, _KEPT_MARK)
        ccc, allowed = tf.math.floormod(self.code, 256), _has(self.code, tf.gather(allows, run_of))
        wrong = (ccc[:-1] > ccc[1:]) | ~allowed[1:]  # at each code point after the first
        wrong &= tf.equal(run_of[:-1], run_of[1:])
        changes = tf.math.unsorted_segment_max(tf.cast(wrong, tf.int32), run_of[1:], tf.size(self.runs)) > 0
        return changes | ~_has(self.starter_code, _AFTER_FIRST_ONLY | _ANY_KEPT_MARK)


def _with_longer_runs(strings, valid, runs: _Runs, singles, join, form: str) -> tf.Tensor:
    """`_normalize_failing`'s result where some runs are longer than a code point or some strings are not
    valid UTF-8: for the composing forms, runs of starters that compose take the composition table (Hangul's
    jamo: keras-hub case folds Korean words after NFD); the other runs that may change and those strings go
    through one `_normalize_chain`."""
    longer = runs.lengths > 1
    if _STEPS[form][1]:
        composes, composite = runs.starter_composites()
        singles, longer = tf.where(composes, composite, singles), longer & ~composes
    longer_at = tf.where(longer & runs.changing())
    invalid_at = tf.where(~valid)
    chained = tf.concat([tf.gather_nd(runs.runs, longer_at), tf.gather_nd(strings, invalid_at)], 0)
    normalized = tf.cond(tf.size(chained) > 0, lambda: _normalize_chain(chained, form=form), lambda: chained)
    longer = tf.size(longer_at)
    joined = join(tf.tensor_scatter_nd_update(singles, longer_at, normalized[:longer]))
    return tf.tensor_scatter_nd_update(joined, invalid_at, normalized[longer:])


# `_run_codes`: bits 0-7 the combining class, then these bits; a run stays as it is when its starter has
# one of the first two and each code point after it, in canonical order, the bit the starter asks for.
_AFTER_FIRST_ONLY = 256  # nothing reorders after it, the first of some pair: asks for _MARK_AFTER_FIRST
_ANY_KEPT_MARK = 512  # nothing reorders after it, the first of no pair: asks for _KEPT_MARK
_MARK_AFTER_FIRST = 1024  # a kept mark that composes with nothing
_KEPT_MARK = 2048  # a kept mark
_ROW = 4096  # and from this bit up, the code point's row in `_single_code_points` (0: `form` keeps it alone)
_MAX_STARTERS = 3  # the longest run `_starter_runs` holds: Hangul's leading, vowel and trailing jamo
_STARTER_KEY_SCALE = np.array([1 << 42, 1 << 21, 1], np.int64)  # a run of up to 3 code points as one int64


def _has(code: tf.Tensor, bits) -> tf.Tensor:
    return tf.bitwise.bitwise_and(code, bits) > 0


@cache_per_graph  # one lookup per form
def _run_codes(form: str) -> ut.CodePointLookup:
    """int32 per code point: its combining class, `_AFTER_FIRST_ONLY` ... bits, and its `_ROW`."""
    c = _run_classes(form)
    ccc, _, _ = composition.combining_data()
    code = ccc.astype(np.int32) + _ROW * _single_code_point_rows(form)[0]
    code += _AFTER_FIRST_ONLY * (c["before_mark"] & c["first"]) + _ANY_KEPT_MARK * (c["before_mark"] & ~c["first"])
    code += _MARK_AFTER_FIRST * c["mark"] + _KEPT_MARK * (c["kept"] & (ccc > 0))
    with tf.init_scope():  # eager constants, even when built inside a tf.function
        return ut.CodePointLookup(code)


@cache_per_graph  # one table per composing form
def _starter_runs(form: str) -> tuple[tf.Tensor, tf.Tensor]:
    """(int64 [k] sorted keys, int32 [k] code points): the runs of two or three code points, each a starter
    `form` keeps alone, that compose pair by pair into one code point (what the chain gives them: nothing to
    reorder, nothing blocked), keyed `_STARTER_KEY_SCALE` by their code points, and that code point. Hangul's
    leading + vowel (+ trailing) jamo, Indic two-part vowels, ..."""
    ccc, _, _ = composition.combining_data()
    plain = (_single_code_point_rows(form)[0] == 0) & (ccc == 0)
    pairs = {pair: composite for pair, composite in composition.composite_pairs().items() if plain[list(pair)].all()}
    by_first: dict[int, list[tuple[int, int]]] = {}
    for (first, second), composite in pairs.items():
        by_first.setdefault(first, []).append((second, composite))
    runs = {(a, b, 0): ab for (a, b), ab in pairs.items()}
    runs.update({(a, b, c): abc for (a, b), ab in pairs.items() for c, abc in by_first.get(ab, [])})
    keys = np.array(list(runs), np.int64) @ _STARTER_KEY_SCALE
    order = np.argsort(keys)
    with tf.init_scope():  # eager constants, even when built inside a tf.function
        return tf.constant(keys[order]), tf.constant(np.array(list(runs.values()), np.int32)[order])


@functools.cache  # one pattern per form
def _deleted_pattern(form: str) -> str:
    """An RE2 pattern of the code points `form` maps to nothing (case folding's default ignorables), "" for none."""
    deleted = np.zeros(ut.NUM_CODE_POINTS, bool)
    deleted[[c for c, out in _code_point_map(_STEPS[form][0]).items() if not out]] = True
    return f"{ut.regex_class(deleted)}+" if deleted.any() else ""


@cache_per_graph  # one table per form
def _single_code_points(form: str) -> tf.Tensor:
    """string [rows]: the UTF-8 of `form` of each code point on its own, at its `_single_code_point_rows` row."""
    with tf.init_scope():  # an eager constant, even when built inside a tf.function
        return tf.constant(_single_code_point_rows(form)[1])


@functools.cache  # one table per form
def _single_code_point_rows(form: str) -> tuple[np.ndarray, list[bytes]]:
    """(int32 [NUM_CODE_POINTS] each code point's row, the UTF-8 of `form` of each row's code point on its own):
    row 0 (an empty string) for the code points `form` keeps."""
    table, compose = _STEPS[form]
    mapping = _code_point_map(table)
    ccc, _, _ = composition.combining_data()
    pairs = composition.composite_pairs() if compose else {}
    rows = np.zeros(ut.NUM_CODE_POINTS, np.int32)
    outputs = [b""]
    for c in sorted(mapping):
        out = _normalize_code_points(mapping[c], ccc, pairs)
        if out != (c,):
            rows[c] = len(outputs)
            outputs.append("".join(map(chr, out)).encode("utf-8"))
    return rows, outputs


@functools.cache
def _code_point_map(table: str) -> dict[int, tuple[int, ...]]:
    return ut.code_point_map(ut.peer_tables()["tf_text"][table])


def _normalize_code_points(code_points, ccc: np.ndarray, pairs: dict) -> tuple[int, ...]:
    """Decomposed code points -> in canonical order, then composed by `pairs` ((first, second) -> composite;
    none for the D forms), as UAX #15 does it: in Python, for the tables of a few code points."""
    ordered = list(code_points)
    for i in range(1, len(ordered)):  # insertion sort of each run of marks, stable
        j = i
        while j > 0 and ccc[ordered[j]] > 0 and ccc[ordered[j - 1]] > ccc[ordered[j]]:
            ordered[j - 1], ordered[j] = ordered[j], ordered[j - 1]
            j -= 1
    out: list[int] = []
    starter, last = None, None  # the last starter's index in out; the class of the last code point after it
    for c in ordered:
        cc = int(ccc[c])
        unblocked = starter is not None and (last is None or last < cc)
        composite = pairs.get((out[starter], c)) if unblocked else None
        if composite is not None:
            out[starter] = composite
        elif cc == 0:
            starter, last = len(out), None
            out.append(c)
        else:
            last = cc
            out.append(c)
    return tuple(out)


@functools.cache  # one pattern per form
def _quick_check(form: str) -> str:
    """An RE2 pattern of the strings that `form` leaves as they are (A-Z lowered by case folding, as
    `tf.strings.lower`): a run of the pieces of `_quick_check_pieces`."""
    pieces = ("".join(ut.regex_class(c) for c in piece) for piece in _quick_check_pieces(form))
    return f"(?:{'|'.join(pieces)})*"


@functools.cache  # one set of classes per form
def _run_classes(form: str) -> dict[str, np.ndarray]:
    """bool [NUM_CODE_POINTS] classes of `form`'s runs (a boundary, then the code points up to the next one).

    boundary: nothing before the code point reorders or composes with anything from it on (its mapping starts
      with a starter, that, for the C forms, combines with nothing before it).
    kept: mapped to itself (for the C forms by the form's composed table; case folding's decomposed table must
      equal NFKD's); starter: a kept boundary; before_mark: a starter whose canonical decomposition ends in a
      starter (a mark after it stays where it is); first: the first of some composite pair (C forms);
    mark: a kept mark that composes with nothing; composes: a kept code point that composes with some code
      point before it (C forms).
    """
    tables = ut.peer_tables()["tf_text"]
    table, compose = _STEPS[form]
    ccc, first, second = composition.combining_data()
    if not compose:
        first, second = np.zeros_like(first), np.zeros_like(second)
    changed = set(tables["nfc" if form == "NFC" else "nfkc"] if compose else tables[table])
    if form == "NFKC_CASEFOLD":
        nfkd = tables["nfkd"]
        changed |= {c for c in set(nfkd) | set(tables[table]) if nfkd.get(c) != tables[table].get(c)}
    kept = np.ones(ut.NUM_CODE_POINTS, bool)
    kept[[int(c) for c in changed]] = False
    kept[0xD800:0xE000] = False  # surrogates: not UTF-8 (and ut.INVALID_UTF8)
    if form == "NFKC_CASEFOLD":
        kept[ord("A") : ord("Z") + 1] = True
    leading = np.arange(ut.NUM_CODE_POINTS)
    deleted = [int(c) for c, full in tables[table].items() if not full]
    for c, full in tables[table].items():
        leading[int(c)] = full[0] if full else 0
    boundary = (ccc[leading] == 0) & ~second[leading] & _valid()
    boundary[deleted] = False  # gone, it lets what is before and after it compose
    starter = kept & boundary & ~second  # not a composite whose first code point composes backward (Unicode 16's)
    before_mark = starter.copy()
    before_mark[[int(c) for c, full in tables["nfd"].items() if ccc[full[-1]] > 0]] = False
    return dict(
        boundary=boundary,
        kept=kept,
        starter=starter,
        before_mark=before_mark,
        first=first,
        mark=kept & (ccc > 0) & ~second,
        composes=kept & second,
    )


def _quick_check_pieces(form: str) -> list[tuple[np.ndarray, ...]]:
    """The pieces of a string that `form` keeps, each one or two code points, a bool [NUM_CODE_POINTS] class each.

    ICU's quick check without runs of marks: a kept starter; a kept mark after a kept starter whose canonical
    decomposition ends in a starter (nothing reorders); for the C forms, a kept code point that composes with
    some code points before it, after such a starter that is the first of no composite pair.
    """
    c = _run_classes(form)
    pieces = [(c["starter"],), (c["before_mark"], c["mark"])]
    return pieces + [(c["before_mark"] & ~c["first"], c["composes"])] if _STEPS[form][1] else pieces


@functools.cache  # one pattern per form
def _fail_run_pattern(form: str) -> str:
    """An RE2 pattern of the runs (a boundary and the code points up to the next one) that may change.

    A run is kept when it is a kept starter alone, or one after which nothing reorders (`before_mark`)
    followed by kept marks in canonical order that compose with nothing (for the C forms: with nothing
    before them where the starter is the first of some pair, else any kept marks, or a single kept starter
    that composes backward). Each alternative starts at a boundary (or the string's start) and ends with
    `N*`, which takes the run to its end, so a match is a whole run: where none matches, RE2 moves on within
    the run, where no alternative can start. The last alternative, a starter and two or more code points, also
    takes runs that are kept: `_Runs.changing` tells them apart (as a pattern, each class before each lower one, the
    order of marks outgrows RE2's DFA; capture groups to tell them apart cost more than the rest).
    """
    c = _run_classes(form)
    ccc, _, _ = composition.combining_data()
    inner = ~c["boundary"] & _valid()  # N: the rest of a run
    after_first, marks = c["mark"], c["kept"] & (ccc > 0)  # kept marks after a first of some pair, after others
    joins = c["composes"] & (ccc == 0)  # kept starters that compose backward: alone after a starter
    bm, first, n = c["before_mark"], c["first"], _classes(inner)
    alternatives = [
        f"^{n}",  # code points before any boundary
        _classes(c["boundary"] & ~c["starter"]),  # a boundary that changes
        _classes(c["starter"] & ~bm, inner),  # a mark that may move before the starter's last code point
        _classes(bm & first) + f"{n}*" + _classes(inner & ~after_first),
        _classes(bm & ~first) + f"{n}*" + _classes(inner & ~marks & ~joins),
        _classes(bm & ~first) + f"(?:{n}+{_classes(joins)}|{_classes(joins)}{n})",
    ]
    changing = "|".join(a for a in alternatives if "[]" not in a)
    return f"(?:{changing}){n}*|{_classes(bm)}{n}{n}+"


def _classes(*masks: np.ndarray) -> str:
    """RE2 classes of bool [NUM_CODE_POINTS] masks one after another; "[]" where one is empty (no match)."""
    return "".join(ut.regex_class(mask) if mask.any() else "[]" for mask in masks)


@functools.cache
def _valid() -> np.ndarray:
    """bool [NUM_CODE_POINTS]: the code points UTF-8 can hold (all but the surrogates)."""
    valid = np.ones(ut.NUM_CODE_POINTS, bool)
    valid[0xD800:0xE000] = False
    return valid


def _normalize_chain(strings: tf.Tensor, *, form: str) -> tf.Tensor:
    """string [n] -> [n]: decomposed by the table, marks in canonical order, composed for the C forms."""
    return _normalized(strings, form)[0]


def _normalized(strings: tf.Tensor, form: str) -> tuple:
    """string [n] -> (normalized string [n], its code points `out` [o], the decoded input `chars`, and how
    each output came about: the decomposed code points `mapped` [k],
    int32 `source` [k] (the input code point of each decomposed one), `owner` [k] (the output code point
    each decomposed one went into), `first` [o] (the decomposed index of each output's first constituent)).
    """
    table, compose = _STEPS[form]
    chars = tf.strings.unicode_decode_with_offsets(strings, "UTF-8", errors="replace", replacement_char=ut.INVALID_UTF8)
    code_points = chars[0].flat_values
    rows = rows_of_values(chars[0].row_splits[:-1], tf.size(code_points))
    mapped, source = table_lookup(table).with_sources(code_points)
    mapped_rows = tf.gather(rows, source)
    if compose:
        out, first, owner = _composer()(mapped, mapped_rows)
    else:
        first = _composer().marks.order(mapped, mapped_rows)
        out, owner = tf.gather(mapped, first), tf.math.invert_permutation(first)
    out_rows = tf.gather(mapped_rows, first)
    n = tf.size(strings)
    invalid = tf.equal(code_points, ut.INVALID_UTF8)
    normalized = tf.cond(
        tf.reduce_any(invalid),
        lambda: encode_keeping_bytes(out, out_rows, n, invalid_bytes(strings, chars, rows, invalid)),
        lambda: encode_code_points(out, out_rows, n),
    )
    return normalized, out, chars, mapped, source, owner, first


def _with_offsets_map_flat(strings: tf.Tensor, form: str) -> tuple[tf.Tensor, tf.RaggedTensor]:
    """string [n] -> (normalized [n], int64 [n, (normalized length + 1)]: the input byte of each output one).

    The input is cut into pieces that normalize on their own, as ICU's
    `normalizeUTF8` records them in its `Edits`: a piece whose bytes stay the
    same maps byte for byte; in a changed one, its first output byte maps to
    its first input byte and the others to its end (ICU's
    `sourceIndexFromDestinationIndex`). The end maps to the input's length.
    """
    normalized, out, chars, mapped, source, owner, first = _normalized(strings, form)
    span = _Spans(strings, normalized, chars, out, tf.gather(source, first))
    finest = _finest_pieces(chars, mapped, source, owner, first, form)
    changed = tf.gather(span.of_pieces(finest)[4], finest)
    # ICU rewrites the whole run between two normalization boundaries where anything in it changes.
    segment = tf.cumsum(tf.cast(_boundaries(chars, mapped, source, form), tf.int32)) - 1
    any_changed = tf.math.unsorted_segment_max(tf.cast(changed, tf.int32), segment, tf.size(segment))
    starts_segment = tf.concat([[True], tf.not_equal(segment[1:], segment[:-1])], 0)[: tf.size(segment)]
    starts_piece = tf.concat([[True], tf.not_equal(finest[1:], finest[:-1])], 0)[: tf.size(finest)]
    cut = starts_piece & (starts_segment | tf.equal(tf.gather(any_changed, segment), 0))
    pieces = tf.cumsum(tf.cast(cut, tf.int32)) - 1
    return normalized, span.offsets_map(pieces)


class _Spans:
    """Where each input and output code point of a flat batch of strings lies, in bytes of its string."""

    def __init__(self, strings, normalized, chars, out, out_source):
        self.strings, self.normalized = strings, normalized
        self.rows = tf.cast(chars[0].value_rowids(), tf.int32)
        self.lengths = tf.cast(tf.strings.length(strings), tf.int64)
        self.starts = chars[1].flat_values
        last = tf.concat([tf.not_equal(self.rows[1:], self.rows[:-1]), [True]], 0)
        self.ends = tf.where(last, tf.gather(self.lengths, self.rows), tf.concat([self.starts[1:], [0]], 0))
        # Each output code point's bytes: its UTF-8 length, or the raw bytes an invalid one stands for.
        out = tf.cast(out, tf.int64)
        utf8 = 1 + tf.cast(out >= 0x80, tf.int64) + tf.cast(out >= 0x800, tf.int64) + tf.cast(out >= 0x10000, tf.int64)
        raw = tf.gather(self.ends - self.starts, out_source)
        self.out_bytes = tf.where(tf.equal(out, ut.INVALID_UTF8), raw, utf8)
        self.out_source = out_source
        self.out_rows = tf.gather(self.rows, out_source)
        before_row = tf.cumsum(
            tf.math.unsorted_segment_sum(self.out_bytes, self.out_rows, tf.size(strings)), exclusive=True
        )
        self.out_starts = tf.cumsum(self.out_bytes, exclusive=True) - tf.gather(before_row, self.out_rows)

    def of_pieces(self, pieces: tf.Tensor) -> tuple:
        """int32 [m] each input code point's piece -> each piece's (input start, input end, output start,
        output end, changed: bool), [p] each."""
        count = tf.reduce_max(tf.concat([pieces, [-1]], 0)) + 1
        out_pieces = tf.gather(pieces, self.out_source)
        src_start = tf.math.unsorted_segment_min(self.starts, pieces, count)
        src_end = tf.math.unsorted_segment_max(self.ends, pieces, count)
        dst_start = tf.math.unsorted_segment_min(self.out_starts, out_pieces, count)
        dst_end = tf.math.unsorted_segment_max(self.out_starts + self.out_bytes, out_pieces, count)
        row = tf.math.unsorted_segment_min(self.rows, pieces, count)
        before = tf.strings.substr(tf.gather(self.strings, row), src_start, src_end - src_start)
        after = tf.strings.substr(tf.gather(self.normalized, row), dst_start, dst_end - dst_start)
        return src_start, src_end, dst_start, dst_end, tf.not_equal(before, after)

    def offsets_map(self, pieces: tf.Tensor) -> tf.RaggedTensor:
        """int64 [n, (output length + 1)]: each output byte's input byte, as ICU's fine Edits iterator reads it."""
        src_start, src_end, dst_start, _, changed = self.of_pieces(pieces)
        k, within = rows_and_positions(self.out_bytes, out_type=tf.int64)
        piece = tf.gather(tf.gather(pieces, self.out_source), k)
        at = tf.gather(self.out_starts, k) + within
        piece_at = tf.gather(dst_start, piece)
        linear = tf.gather(src_start, piece) + at - piece_at
        value = tf.where(tf.gather(changed, piece) & tf.not_equal(at, piece_at), tf.gather(src_end, piece), linear)
        rows = tf.cast(tf.gather(self.out_rows, k), tf.int64)
        per_byte = tf.RaggedTensor.from_value_rowids(value, rows, nrows=tf.size(self.strings, out_type=tf.int64))
        return tf.concat([per_byte, tf.expand_dims(self.lengths, 1)], axis=1)


def _finest_pieces(chars, mapped, source, owner, first, form) -> tf.Tensor:
    """int32 [m]: each input code point's piece, the finest cut of the strings into runs of code points whose
    outputs are a run of the output (no reordering or composition across a cut)."""
    k = tf.size(mapped)
    j = tf.range(k)
    in_rows = tf.cast(chars[0].value_rowids(), tf.int32)
    if _STEPS[form][1]:
        sorted_at = tf.math.invert_permutation(_composer().marks.order(mapped, tf.gather(in_rows, source)))
    else:
        sorted_at = owner
    out_at = tf.gather(sorted_at, tf.gather(first, owner))  # where each one's output code point sorted
    lo = tf.minimum(j, tf.minimum(sorted_at, out_at))
    hi = tf.maximum(j, tf.maximum(sorted_at, out_at))
    ones = tf.ones_like(j)
    crossing = tf.cumsum(
        tf.math.unsorted_segment_sum(ones, lo + 1, k + 1) - tf.math.unsorted_segment_sum(ones, hi + 1, k + 1)
    )[:k]  # at each decomposed index: how many links cross the cut before it
    m = tf.size(in_rows)
    first_mapped = tf.math.unsorted_segment_min(j, source, m)
    new_row = tf.concat([[True], tf.not_equal(in_rows[1:], in_rows[:-1])], 0)[:m]
    return tf.cumsum(tf.cast(new_row | tf.equal(tf.gather(crossing, first_mapped), 0), tf.int32)) - 1


def _boundaries(chars, mapped, source, form) -> tf.Tensor:
    """bool [m]: whether ICU's normalizer has a boundary before each input code point (decomposition's for
    NFD and NFKD, composition's for NFC and NFKC), as its `decomposeUTF8` and `composeUTF8` find them.

    Read off the combining classes and the composition pairs, not ICU's norm16
    data: checked at every offset of the shared sample and the hard strings of
    tests/text/test_offsets_map.py, not proved for every code point (a mapping
    of several code points whose last starter combines backward is the kind of
    case to check first if one ever differs).
    """
    m = tf.size(chars[0].flat_values)
    ccc, back, forward = _composer().properties(mapped)
    j = tf.range(tf.size(mapped))
    lead = tf.gather(j, tf.math.unsorted_segment_min(j, source, m))  # each input code point's first mapped one
    trail = tf.math.unsorted_segment_max(j, source, m)  # and its last
    previous_trail = tf.concat([[0], trail[:-1]], 0)[:m]
    if _STEPS[form][1]:
        before = ~tf.gather(back, lead)
        after = ~tf.gather(back, previous_trail) & ~tf.gather(forward, previous_trail)
    else:
        before = tf.equal(tf.gather(ccc, lead), 0)
        after = tf.gather(ccc, previous_trail) <= 1
    in_rows = tf.cast(chars[0].value_rowids(), tf.int32)
    new_row = tf.concat([[True], tf.not_equal(in_rows[1:], in_rows[:-1])], 0)[:m]
    return new_row | before | after


def char_ends(strings, starts, rows) -> tf.Tensor:
    """[c], the dtype of `starts`: where each decoded character ends in its string (the next one's start, or the
    string's length after its last); `starts` [c] are `unicode_decode_with_offsets`' offsets, `rows` [c] their strings.
    """
    lengths = tf.cast(tf.strings.length(strings), starts.dtype)
    last = tf.concat([tf.not_equal(rows[1:], rows[:-1]), [True]], 0)
    return tf.where(last, tf.gather(lengths, rows), tf.concat([starts[1:], tf.zeros([1], starts.dtype)], 0))


def invalid_bytes(strings, chars, rows, invalid) -> tf.Tensor:
    """string [k]: the input bytes of each code point that decoded as invalid, in order."""
    starts = tf.cast(chars[1].flat_values, tf.int32)
    ends = char_ends(strings, starts, rows)
    at = tf.reshape(tf.where(invalid), [-1])
    return tf.strings.substr(
        tf.gather(strings, tf.gather(rows, at)), tf.gather(starts, at), tf.gather(ends - starts, at)
    )


def encode_keeping_bytes(code_points, rows, n, raw: tf.Tensor) -> tf.Tensor:
    """Like `encode_code_points`, each `ut.INVALID_UTF8` written as the next of `raw`'s byte strings.

    Invalid code points keep their order through the table (they map to
    themselves) and the Composer (they are starters that combine with nothing).
    """
    invalid = tf.equal(code_points, ut.INVALID_UTF8)
    pieces = tf.tensor_scatter_nd_update(_each_encoded(tf.where(invalid, 0x20, code_points)), tf.where(invalid), raw)
    return tf.strings.unsorted_segment_join(pieces, rows, n)  # in order (a ragged reduce_join: 100 graph nodes)


def _each_encoded(code_points: tf.Tensor) -> tf.Tensor:
    """int32 code points [n] -> string [n]: the UTF-8 of each one alone."""
    return tf.strings.unicode_encode(tf.RaggedTensor.from_uniform_row_length(code_points, 1, validate=False), "UTF-8")


def normalize_utf8_with_offsets_map(input, normalization_form: str = "NFKC", name: str | None = None):  # noqa: A002
    """`normalize_utf8`, and a map from each normalized byte offset back to the input, as tensorflow_text's.

    The map is exact: `find_source_offsets` gives what tensorflow_text's does
    (ICU's edit records read with a fine iterator) for every offset. Treat it
    as opaque, as tensorflow_text's `tf.variant`: it is an int64 RaggedTensor
    (a Tensor for a scalar input) with one more dimension than the input,
    holding, per string, the input byte offset of each normalized byte offset
    0..len inclusive; index or slice it along with the strings.

    Args:
      input: string Tensor of any rank, or RaggedTensor, of UTF-8 text.
      normalization_form: `"NFC"`, `"NFD"`, `"NFKC"` or `"NFKD"`, in any case.
        Defaults to `"NFKC"`.
      name: the name scope of the ops. Defaults to None.
    Returns:
      (normalized: string, the input's shape, as `normalize_utf8` gives it;
      offsets_map: int64, the input's shape + [(normalized length + 1)]).

    >>> normalized, offsets_map = normalize_utf8_with_offsets_map(["\\uff2b\\uff21", "e\\u0301x"], "NFKC")
    >>> normalized.numpy().tolist()
    [b'KA', b'\\xc3\\xa9x']
    >>> find_source_offsets(offsets_map, [[0, 1, 2], [0, 1, 2]]).numpy().tolist()
    [[0, 3, 6], [0, 3, 3]]
    """
    form = _checked_form(normalization_form)
    with tf.name_scope(name or "NormalizeUTF8WithOffsetsMap"):
        strings = as_strings(input, "input")
        flat = tf.reshape(strings.flat_values if isinstance(strings, tf.RaggedTensor) else strings, [-1])
        normalized, offsets_map = _with_offsets_map_flat(flat, form)
        if isinstance(strings, tf.RaggedTensor):
            return strings.with_flat_values(normalized), strings.with_flat_values(offsets_map)
        if strings.shape.rank == 0:
            return tf.reshape(normalized, []), offsets_map[0]
        shape = tf.shape(strings, out_type=tf.int64)
        for size in reversed(tf.unstack(shape[1:], num=strings.shape.rank - 1)):
            offsets_map = tf.RaggedTensor.from_uniform_row_length(offsets_map, size)
        return tf.reshape(normalized, tf.shape(strings)), offsets_map


def find_source_offsets(offsets_map, input_offsets, name: str | None = None):
    """Input byte offsets of normalized byte offsets, through `normalize_utf8_with_offsets_map`'s map.

    As tensorflow_text's: `input_offsets` int64 of rank N + 1 (Tensor or
    RaggedTensor) over a map of N string dimensions, each innermost row read
    with the next string's map (a rank-1 Tensor is one string's offsets, a
    scalar one offset of one string). Offsets below 0 give 0, offsets past
    the normalized length give the input's length (ICU's answers); offsets
    are read as int32, as ICU reads them. As in tensorflow_text's kernel, a
    row of no offsets takes no map: the rows that have offsets take the maps
    in order, and their count must be the number of maps.

    Args:
      offsets_map: from `normalize_utf8_with_offsets_map`, indexed or sliced
        like the strings.
      input_offsets: int64 byte offsets into the normalized strings.
      name: the name scope of the ops. Defaults to None.
    Returns:
      int64, `input_offsets`' shape (and ragged structure): byte offsets into the input strings.

    >>> _, offsets_map = normalize_utf8_with_offsets_map("\\ufb01ne", "NFKC")
    >>> find_source_offsets(offsets_map, [-1, 0, 1, 2, 3, 4, 9]).numpy().tolist()
    [0, 0, 3, 3, 4, 5, 5]
    """
    with tf.name_scope(name or "FindSourceOffsets"):
        maps = _as_map_rows(offsets_map)
        offsets = input_offsets
        if not isinstance(offsets, tf.RaggedTensor):
            offsets = tf.convert_to_tensor(offsets, tf.int64, name="input_offsets")
        if isinstance(offsets, tf.RaggedTensor):
            values, splits = offsets.flat_values, offsets.nested_row_splits[-1]
        elif offsets.shape.rank is None or offsets.shape.rank == 0:
            return tf.reshape(_source_offsets(maps, tf.reshape(offsets, [1]), tf.constant([0, 1], tf.int64)), [])
        else:
            values = tf.reshape(offsets, [-1])
            width = tf.shape(offsets, out_type=tf.int64)[-1]
            rows = tf.size(values, out_type=tf.int64) // tf.maximum(width, 1) if offsets.shape.rank > 1 else 1
            splits = tf.range(tf.cast(rows, tf.int64) + 1) * width
        found = _source_offsets(maps, values, splits)
        if isinstance(offsets, tf.RaggedTensor):
            return offsets.with_flat_values(found)
        return tf.reshape(found, tf.shape(offsets))


def _as_map_rows(offsets_map) -> tf.RaggedTensor:
    """An offsets map of any string shape -> int64 [strings, (normalized length + 1)]."""
    if isinstance(offsets_map, tf.RaggedTensor):
        rows = offsets_map.with_row_splits_dtype(tf.int64)
        return tf.RaggedTensor.from_row_splits(rows.flat_values, rows.nested_row_splits[-1])
    offsets_map = tf.convert_to_tensor(offsets_map, tf.int64)
    if offsets_map.shape.rank != 1:
        raise ValueError(
            f"offsets_map: expected the map of normalize_utf8_with_offsets_map (an int64 RaggedTensor, or a vector "
            f"for one string), got a Tensor of shape {offsets_map.shape}; pass the map returned with the strings"
        )
    return tf.RaggedTensor.from_tensor(offsets_map[None])


def _source_offsets(maps: tf.RaggedTensor, values: tf.Tensor, splits: tf.Tensor) -> tf.Tensor:
    """int64 offsets [k] in rows `splits` -> their input offsets [k]: the rows with offsets take one map each, in
    order (tensorflow_text's kernel: an empty row takes none), and there must be as many of them as maps."""
    splits = tf.cast(splits, tf.int64)
    has_offsets = tf.cast(splits[1:] > splits[:-1], tf.int64)
    check = tf.debugging.assert_equal(
        tf.reduce_sum(has_offsets),
        maps.nrows(),
        message="Input offset tensor dimension did not match the offset map dimension.",
    )
    with tf.control_dependencies([check]):  # a TF1-style graph runs only what an output depends on
        splits = tf.identity(splits)
    offset_rows = rows_of_values(splits[:-1], tf.size(values))
    rows = tf.gather(tf.cumsum(has_offsets, exclusive=True), offset_rows)  # each offset's map
    wrapped = tf.cast(tf.cast(values, tf.int32), tf.int64)  # ICU's int32_t index
    last = tf.gather(maps.row_lengths(), rows) - 1
    at = tf.gather(maps.row_splits, rows) + tf.clip_by_value(wrapped, 0, last)
    return tf.gather(maps.flat_values, at)
