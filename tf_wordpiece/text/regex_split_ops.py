"""tensorflow_text's `regex_split` and `regex_split_with_offsets`, in core ops (TensorFlow's RE2, as there).

One `tf.strings.regex_replace` writes a marker byte around every delimiter
match (0xFF, never part of UTF-8), one split (`StringSplitV2`, its values
alone) cuts there: the pieces alternate text, delimiter, text, ..., and the
bytes the replacement added count each string's pieces. Empty pieces go; a delimiter
stays as a token when `keep_delim_regex_pattern` matches all of it. A
pattern that matches the empty string: its empty matches are ignored (in
tensorflow_text the op never returns).

Shapes: strings [...] -> tokens [..., (tokens)] (a scalar gives [1, (tokens)],
as in tensorflow_text); offsets int64 bytes, `end` exclusive.

>>> regex_split(["hello there", "a,b"], r"\\s|,", r",").to_list()
[[b'hello', b'there'], [b'a', b',', b'b']]
"""

from __future__ import annotations

import tensorflow as tf

from tf_wordpiece.shapes import as_strings
from tf_wordpiece.text.base import SplitterWithOffsets

_MARK = b"\xff"  # never in UTF-8
_REWRITE = b"\xff\\0\xff"


def regex_split_with_offsets(
    input,  # noqa: A002 (the peer's name)
    delim_regex_pattern: str,
    keep_delim_regex_pattern: str = "",
    name: str | None = None,
) -> tuple:
    """Splits each string where `delim_regex_pattern` matches; returns (tokens, begin, end).

    Args:
      input: string Tensor of any rank, or RaggedTensor, of UTF-8 text
        without the byte 0xFF (a ValueError at run time otherwise).
      delim_regex_pattern: RE2 pattern of the delimiters.
      keep_delim_regex_pattern: RE2 pattern of the delimiters kept as tokens
        (matching a whole delimiter). Defaults to `""` (none kept).
      name: the name scope of the ops. Defaults to None.
    Returns:
      (tokens string, begin int64, end int64), each [..., (tokens)]; byte offsets.

    >>> tokens, begin, end = regex_split_with_offsets(["hello  world"], r"\\s")
    >>> tokens.to_list(), begin.to_list(), end.to_list()
    ([[b'hello', b'world']], [[0, 7]], [[5, 12]])
    """
    return _split(input, delim_regex_pattern, keep_delim_regex_pattern, name, offsets=True)


def regex_split(
    input,  # noqa: A002 (the peer's name)
    delim_regex_pattern: str,
    keep_delim_regex_pattern: str = "",
    name: str | None = None,
) -> tf.RaggedTensor:
    """The tokens of `regex_split_with_offsets`: string [...] -> [..., (tokens)].

    >>> regex_split("a b", " ", " ").to_list()
    [[b'a', b' ', b'b']]
    """
    return _split(input, delim_regex_pattern, keep_delim_regex_pattern, name, offsets=False)[0]


class RegexSplitter(SplitterWithOffsets):
    """tensorflow_text's `RegexSplitter`: `regex_split` on one pattern, by default line breaks (`"\\r?\\n"`).

    Shapes as `regex_split`: strings [...] -> [..., (pieces)]; offsets int64 bytes.

    >>> RegexSplitter().split(["Hi there.\\nWhat time is it?\\n"]).to_list()
    [[b'Hi there.', b'What time is it?']]
    >>> RegexSplitter(split_regex="\\t").split_with_offsets(["a\\tbc"])[2].to_list()
    [[1, 4]]
    """

    def __init__(self, split_regex: str | None = None):
        super().__init__()
        self._split_regex = split_regex or "\r?\n"  # tensorflow_text's default, also for ""

    def split(self, input) -> tf.RaggedTensor:  # noqa: A002 (the peer's name)
        """string [...] -> [..., (pieces)]."""
        return regex_split(input, self._split_regex)

    def split_with_offsets(self, input) -> tuple:  # noqa: A002
        """string [...] -> (pieces, begin, end), each [..., (pieces)]; int64 byte offsets, `end` exclusive."""
        return regex_split_with_offsets(input, self._split_regex)


def _split(
    input,  # noqa: A002 (the peer's name)
    delim_regex_pattern: str,
    keep_delim_regex_pattern: str,
    name: str | None,
    offsets: bool,
) -> tuple:
    """Both functions' work: (tokens, begin, end), or (tokens,) without `offsets` (no ops for them in eager mode)."""
    for arg, pattern in (
        ("delim_regex_pattern", delim_regex_pattern),
        ("keep_delim_regex_pattern", keep_delim_regex_pattern),
    ):
        if not isinstance(pattern, str):
            raise TypeError(f"{arg}: expected an RE2 pattern (str), got {type(pattern).__name__}: {pattern!r}")
    strings = as_strings(input, "input")
    with tf.name_scope(name or "RegexSplitWithOffsets"):
        if isinstance(strings, tf.RaggedTensor):
            inner = _split(strings.flat_values, delim_regex_pattern, keep_delim_regex_pattern, None, offsets)
            dtype = strings.row_splits.dtype
            return tuple(strings.with_flat_values(t.with_row_splits_dtype(dtype)) for t in inner)
        outputs = _split_flat(tf.reshape(strings, [-1]), delim_regex_pattern, keep_delim_regex_pattern, offsets)
        rank = strings.shape.rank
        if rank is not None and rank > 1:
            shape = tf.shape(strings, out_type=tf.int64)
            for axis in range(rank - 1, 0, -1):
                outputs = tuple(tf.RaggedTensor.from_uniform_row_length(t, shape[axis]) for t in outputs)
        return outputs


def _split_flat(strings: tf.Tensor, delim: str, keep: str, offsets: bool) -> tuple:
    """string [n] -> (tokens, begin, end) [n, (tokens)]; (tokens,) alone with `offsets=False`."""
    marked = tf.strings.regex_replace(strings, delim.encode("utf-8"), _REWRITE)
    # Each match adds 2 bytes and 2 markers: with the marker added at its end a string splits into
    # text, delimiter, text, ..., text, "": 2 pieces a match, and 2.
    added = tf.strings.length(marked) - tf.strings.length(strings)
    pieces_per_string = tf.cast(added, tf.int64) + 2
    # The split's values alone (its indices unread): the row partition comes from `added`, not from a
    # ragged tensor's row ids (a bincount and a cumsum over every piece).
    _, values, _ = tf.raw_ops.StringSplitV2(input=tf.strings.join([marked, _MARK]), sep=_MARK)
    # A string's own 0xFF bytes would make more pieces than its matches do: the totals differ.
    check = tf.debugging.Assert(
        tf.equal(tf.size(values, out_type=tf.int64), tf.reduce_sum(pieces_per_string)),
        [
            "input: a string holds the byte 0xFF (never in UTF-8), which regex_split does not take; "
            "clean it with coerce_to_structurally_valid_utf8"
        ],
    )
    with tf.control_dependencies([check]):
        values = tf.identity(values)
    splits = tf.concat([tf.zeros([1], tf.int64), tf.cumsum(pieces_per_string)], 0)
    lengths = tf.strings.length(values)
    # Every string has an even number of pieces, so the pieces pair up as (text, delimiter) across the batch.
    pair_lengths = tf.reshape(lengths, [-1, 2])
    keep_text = pair_lengths[:, 0] > 0
    if keep:  # a delimiter is kept when the pattern matches all of it (only the delimiters are matched)
        delimiters = tf.reshape(values, [-1, 2])[:, 1]
        keep_delimiter = (pair_lengths[:, 1] > 0) & tf.strings.regex_full_match(delimiters, f"({keep})")
    else:
        keep_delimiter = tf.zeros_like(keep_text)
    keep_piece = tf.reshape(tf.stack([keep_text, keep_delimiter], axis=1), [-1])
    kept = tf.reshape(tf.where(keep_piece), [-1])  # sorted
    # A string's tokens start after the kept pieces before its first piece (a search: cheaper than a cumsum).
    new_splits = tf.searchsorted(kept, splits, out_type=tf.int64)
    if not tf.executing_eagerly():
        # An identity that shape inference cannot see through: on constant inputs it would evaluate these
        # splits (not the values' gather), so that row ids got a static length and values none, and ops that
        # check both shapes as equal (Substr's pos and len) refused the offsets, as tensorflow_text's never are.
        new_splits = tf.raw_ops.PlaceholderWithDefault(input=new_splits, shape=[None])

    def ragged(flat):
        return tf.RaggedTensor.from_row_splits(tf.gather(flat, kept), new_splits, validate=False)

    if not offsets:
        return (ragged(values),)
    ends = tf.cumsum(tf.cast(lengths, tf.int64))
    rows = tf.ragged.row_splits_to_segment_ids(splits)
    row_base = tf.gather(tf.concat([[0], ends], 0), tf.gather(splits, rows))
    end = ends - row_base
    return ragged(values), ragged(end - tf.cast(lengths, tf.int64)), ragged(end)
