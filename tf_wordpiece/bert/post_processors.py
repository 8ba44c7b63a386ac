"""Post-processing (templates): special tokens around one or two segments, then truncation and padding.

Hugging Face's order and rules (tokenizers' TemplateProcessing, truncation.rs,
padding.rs): truncate the segments to `max_length` less the tokens the template
adds, apply the template (each part with its type id, special tokens with
offsets (0, 0)), then pad on the right.

Shapes: segments are RaggedTensors [batch, tokens]; the result is an
`Encoding` of ragged [batch, tokens] tensors, or dense [batch, length] ones
when padding. Offsets are int64 byte offsets into each token's own input
string (the first text for `$A`, the pair for `$B`).
"""

from __future__ import annotations

from typing import Mapping, NamedTuple, Sequence

import tensorflow as tf

from tf_wordpiece.messages import check_choice

TRUNCATION_STRATEGIES = ("longest_first", "only_first", "only_second")
PADDING_STRATEGIES = ("longest", "max_length")
SEQUENCES = ("A", "B")


class Segment(NamedTuple):
    """One tokenized input: ids, begin, end, word, each int64 RaggedTensor [batch, tokens].

    word: the index of each token's word in its string (None: all -1).
    """

    ids: tf.RaggedTensor
    begin: tf.RaggedTensor
    end: tf.RaggedTensor
    word: tf.RaggedTensor | None = None

    @classmethod
    def from_ids(cls, ids: tf.RaggedTensor) -> "Segment":
        """Ids alone (offsets 0, words unknown): what packing ids from elsewhere needs."""
        zeros = tf.zeros_like(ids)
        return cls(ids, zeros, zeros)


class Encoding(NamedTuple):
    """The model inputs of a batch, like Hugging Face's `Encoding`.

    ids, type_ids, attention_mask: int64 [batch, tokens] (RaggedTensor), or
      dense [batch, length] when padded.
    offsets: int64 [batch, tokens, 2] byte offsets (begin, end) into the text
      each token comes from; (0, 0) for special and padding tokens.
    special_tokens_mask: int64, 1 for the template's special tokens and for
      padding, 0 for the tokens of the text (added tokens written in it too).
    word_ids: int64, the index of the token's word in its text (words as the
      pre-tokenizer splits them, an added token being one; counted from 0 in
      each of the pair's texts); -1 (Hugging Face's None) for special and padding tokens.
    sequence_ids: int64, 0 for the first text's tokens, 1 for the pair's; -1
      (Hugging Face's None) for special and padding tokens.
    """

    ids: tf.Tensor | tf.RaggedTensor
    type_ids: tf.Tensor | tf.RaggedTensor
    attention_mask: tf.Tensor | tf.RaggedTensor
    offsets: tf.Tensor | tf.RaggedTensor
    special_tokens_mask: tf.Tensor | tf.RaggedTensor
    word_ids: tf.Tensor | tf.RaggedTensor
    sequence_ids: tf.Tensor | tf.RaggedTensor


class TemplateProcessing:
    """Special tokens around one or two sequences, plus the padding token.

    Args:
      single, pair: the templates, each a list of `(name, type_id)`: name `"A"`
        or `"B"` for the sequences, else a key of `special_tokens`.
      special_tokens: name -> the ids it stands for (usually one).
      pad_id, pad_type_id: what padding fills `ids` and `type_ids` with.
      pad_token: the padding token's string (written to tokenizer.json).

    >>> bert = TemplateProcessing.bert(cls_id=101, sep_id=102)
    >>> enc = bert.process(Segment(*[tf.ragged.constant([[7, 8]], tf.int64)] * 3))
    >>> enc.ids.to_list(), enc.type_ids.to_list()
    ([[101, 7, 8, 102]], [[0, 0, 0, 0]])
    >>> enc.special_tokens_mask.to_list(), enc.sequence_ids.to_list()
    ([[1, 0, 0, 1]], [[-1, 0, 0, -1]])
    """

    def __init__(
        self,
        single: Sequence[tuple[str, int]],
        pair: Sequence[tuple[str, int]],
        special_tokens: Mapping[str, Sequence[int]],
        *,
        pad_id: int = 0,
        pad_type_id: int = 0,
        pad_token: str = "[PAD]",
    ):
        self.single = _checked_template("single", single, special_tokens, allowed=("A",))
        self.pair = _checked_template("pair", pair, special_tokens, allowed=SEQUENCES)
        self.special_tokens = {name: tuple(int(i) for i in ids) for name, ids in special_tokens.items()}
        self.pad_id, self.pad_type_id, self.pad_token = int(pad_id), int(pad_type_id), pad_token

    @classmethod
    def bert(
        cls,
        *,
        cls_id: int,
        sep_id: int,
        cls_token: str = "[CLS]",
        sep_token: str = "[SEP]",
        pad_id: int = 0,
        pad_token: str = "[PAD]",
    ) -> "TemplateProcessing":
        """BERT's `[CLS] $A [SEP]` and `[CLS] $A [SEP] $B:1 [SEP]:1`."""
        return cls(
            [(cls_token, 0), ("A", 0), (sep_token, 0)],
            [(cls_token, 0), ("A", 0), (sep_token, 0), ("B", 1), (sep_token, 1)],
            {cls_token: [cls_id], sep_token: [sep_id]},
            pad_id=pad_id,
            pad_token=pad_token,
        )

    def added_tokens(self, is_pair: bool) -> int:
        """How many special tokens the template adds (what truncation reserves)."""
        template = self.pair if is_pair else self.single
        return sum(len(self.special_tokens[name]) for name, _ in template if name not in SEQUENCES)

    def process(
        self,
        first: Segment,
        second: Segment | None = None,
        *,
        add_special_tokens: bool = True,
        truncation: str | None = None,
        max_length: int | None = None,
        padding: str | None = None,
        pad_to_multiple_of: int | None = None,
    ) -> Encoding:
        """Truncates, applies the template and pads, in Hugging Face's order.

        Args are checked by `check_encode_options` (call it first for the
        argument names users passed); see `Encoding` for the shapes.
        """
        if truncation is not None:
            budget = max_length - (self.added_tokens(second is not None) if add_special_tokens else 0)
            first, second = truncate(first, second, budget, truncation)
        segments = (first, second)
        template = self.pair if second is not None else self.single
        batch = first.ids.nrows()
        parts = []
        for name, type_id in template:
            if name in SEQUENCES:
                part = segments[SEQUENCES.index(name)]
                sequence, special = SEQUENCES.index(name), 0
            elif not add_special_tokens:
                continue
            else:
                part = _constant_part(self.special_tokens[name], batch)
                sequence, special = -1, 1
            ones = tf.ones_like(part.ids)
            word = -ones if part.word is None else part.word
            parts.append((part.ids, ones * type_id, part.begin, part.end, ones * special, word, ones * sequence))
        ids, type_ids, begin, end, special, word, sequence = (tf.concat(list(column), axis=1) for column in zip(*parts))
        offsets = begin.with_flat_values(tf.stack([begin.flat_values, end.flat_values], axis=1))
        encoding = Encoding(ids, type_ids, tf.ones_like(ids), offsets, special, word, sequence)
        if padding is not None:
            encoding = self._pad(encoding, padding, max_length, pad_to_multiple_of)
        return encoding

    def _pad(self, encoding: Encoding, padding: str, max_length: int | None, multiple: int | None) -> Encoding:
        lengths = encoding.ids.row_lengths()
        if padding == "longest":
            length = tf.reduce_max(tf.concat([lengths, [0]], 0))
        else:
            length = tf.constant(max_length, tf.int64)
        if multiple:
            length += (multiple - length % multiple) % multiple
        if padding == "max_length":
            # A dense batch cannot hold rows past max_length (HF leaves them longer).
            check = tf.debugging.assert_less_equal(
                lengths,
                length,
                message=f"padding='max_length': a row has more than max_length={max_length} tokens; "
                "pass truncation='longest_first' (or another strategy) or padding='longest'",
            )
            with tf.control_dependencies([check]):
                length = tf.identity(length)
        batch = encoding.ids.nrows()
        return Encoding(
            ids=encoding.ids.to_tensor(self.pad_id, shape=[batch, length]),
            type_ids=encoding.type_ids.to_tensor(self.pad_type_id, shape=[batch, length]),
            attention_mask=encoding.attention_mask.to_tensor(0, shape=[batch, length]),
            offsets=encoding.offsets.to_tensor(0, shape=[batch, length, 2]),
            special_tokens_mask=encoding.special_tokens_mask.to_tensor(1, shape=[batch, length]),
            word_ids=encoding.word_ids.to_tensor(-1, shape=[batch, length]),
            sequence_ids=encoding.sequence_ids.to_tensor(-1, shape=[batch, length]),
        )


def check_encode_options(
    template: TemplateProcessing,
    *,
    is_pair: bool,
    add_special_tokens: bool,
    truncation,
    max_length,
    padding,
    pad_to_multiple_of,
) -> tuple[str | None, str | None]:
    """Validates encode's options; returns (truncation strategy or None, padding strategy or None).

    `truncation=True` means "longest_first", `padding=True` means "longest";
    False and None turn them off.
    """
    if truncation is True:
        truncation = "longest_first"
    if truncation is False:
        truncation = None
    if padding is True:
        padding = "longest"
    if padding is False:
        padding = None
    if truncation is not None:
        check_choice("truncation", truncation, TRUNCATION_STRATEGIES, others=", True or None")
    if padding is not None:
        check_choice("padding", padding, PADDING_STRATEGIES, others=", True or None")
    if max_length is not None and (isinstance(max_length, bool) or not isinstance(max_length, int) or max_length < 0):
        raise ValueError(f"max_length: expected a non-negative int, got {max_length!r}")
    if max_length is None and (truncation is not None or padding == "max_length"):
        what = f"truncation={truncation!r}" if truncation is not None else "padding='max_length'"
        raise ValueError(f"max_length: {what} needs max_length; pass e.g. max_length=128")
    if pad_to_multiple_of is not None:
        if isinstance(pad_to_multiple_of, bool) or not isinstance(pad_to_multiple_of, int) or pad_to_multiple_of < 0:
            raise ValueError(f"pad_to_multiple_of: expected a non-negative int, got {pad_to_multiple_of!r}")
        if padding is None:
            raise ValueError(f"pad_to_multiple_of: {pad_to_multiple_of} needs padding='longest' or 'max_length'")
    if truncation is not None and add_special_tokens:
        added = template.added_tokens(is_pair)
        if max_length < added:
            # Hugging Face's usize subtraction wraps around here and nothing is truncated.
            raise ValueError(
                f"max_length: {max_length} is less than the {added} special tokens the "
                f"{'pair' if is_pair else 'single'} template adds; pass max_length >= {added}"
            )
    return truncation, padding


def truncate(first: Segment, second: Segment | None, max_length: int, strategy: str):
    """Cuts the segments' tails so that together they hold at most `max_length` tokens (HF's rules).

    longest_first: for pairs, the shorter keeps its length if the longer can
      keep as much, else both get half (the second one the odd token).
    only_first / only_second: the named segment loses the excess; it is an
      InvalidArgumentError if that would empty it (or, for only_second, if
      a single sequence needs cutting).
    """
    n1 = first.ids.row_lengths()
    if second is None:
        if strategy == "only_second" and max_length > 0:
            check = tf.debugging.assert_less_equal(
                n1,
                tf.constant(max_length, tf.int64),
                message="Truncation error: Second sequence not provided (truncation='only_second' on single inputs)",
            )
            with tf.control_dependencies([check]):
                n1 = tf.identity(n1)
        return _head(first, tf.minimum(n1, max_length)), None
    n2 = second.ids.row_lengths()
    if max_length == 0:
        zero = tf.zeros_like(n1)
        return _head(first, zero), _head(second, zero)
    total = n1 + n2
    if strategy == "longest_first":
        keep1, keep2 = _longest_first(n1, n2, max_length)
    else:
        to_remove = tf.maximum(total - max_length, 0)
        target = n1 if strategy == "only_first" else n2
        check = tf.debugging.assert_equal(
            tf.reduce_all(tf.equal(to_remove, 0) | (target > to_remove)),
            True,
            message=f"Truncation error: Sequence to truncate too short to respect the provided max_length "
            f"(truncation={strategy!r})",
        )
        with tf.control_dependencies([check]):
            target = tf.identity(target) - to_remove
        keep1, keep2 = (target, n2) if strategy == "only_first" else (n1, target)
    return _head(first, keep1), _head(second, keep2)


def _longest_first(n1: tf.Tensor, n2: tf.Tensor, max_length: int) -> tuple[tf.Tensor, tf.Tensor]:
    """Closed-form lengths of tokenizers' LongestFirst pair truncation."""
    swap = n1 > n2
    short = tf.minimum(n1, n2)
    long_keep = tf.where(short > max_length, short, tf.maximum(short, max_length - short))
    short_keep = short
    both = short_keep + long_keep > max_length
    short_keep = tf.where(both, tf.constant(max_length // 2, tf.int64), short_keep)
    long_keep = tf.where(both, tf.constant(max_length // 2 + max_length % 2, tf.int64), long_keep)
    keep1, keep2 = tf.where(swap, long_keep, short_keep), tf.where(swap, short_keep, long_keep)
    untouched = n1 + n2 <= max_length
    return tf.where(untouched, n1, tf.minimum(n1, keep1)), tf.where(untouched, n2, tf.minimum(n2, keep2))


def _head(segment: Segment, lengths: tf.Tensor) -> Segment:
    """The first `lengths[i]` tokens of each row."""
    return Segment(*(None if t is None else head(t, lengths) for t in segment))


def head(rt: tf.RaggedTensor, lengths: tf.Tensor) -> tf.RaggedTensor:
    """The first `lengths[i]` values of each row of a RaggedTensor [batch, (n)]."""
    lengths = tf.minimum(tf.cast(lengths, rt.row_splits.dtype), rt.row_lengths())
    starts = rt.row_starts()
    keep = tf.ragged.range(starts, starts + lengths, dtype=rt.row_splits.dtype)
    return tf.RaggedTensor.from_row_lengths(tf.gather(rt.values, keep.flat_values), lengths, validate=False)


def _constant_part(ids: Sequence[int], batch: tf.Tensor) -> Segment:
    values = tf.tile(tf.constant(ids, tf.int64), [batch])
    ragged = tf.RaggedTensor.from_row_splits(values, tf.range(batch + 1) * len(ids), validate=False)
    zeros = tf.zeros_like(ragged)
    return Segment(ragged, zeros, zeros, zeros - 1)


def _checked_template(name: str, template, special_tokens, *, allowed) -> tuple[tuple[str, int], ...]:
    pieces = tuple((str(piece), int(type_id)) for piece, type_id in template)
    for piece, _ in pieces:
        if piece in SEQUENCES and piece not in allowed:
            raise ValueError(f"{name}: the {name} template cannot hold ${piece}; got {pieces}")
        if piece not in SEQUENCES and piece not in special_tokens:
            raise ValueError(
                f"{name}: special token {piece!r} is not in special_tokens {sorted(special_tokens)}; add its ids"
            )
    for sequence in allowed:
        if [p for p, _ in pieces].count(sequence) != 1:
            raise ValueError(f"{name}: the {name} template must hold ${sequence} exactly once, got {pieces}")
    return pieces
