"""Packing: one or two segments into BERT's fixed-length inputs, `[CLS] a [SEP] (b [SEP])`.

The fixed-length sibling of `TemplateProcessing` (which builds Hugging Face's
ragged encodings): the segments are trimmed to fit, round-robin as
`tensorflow_text.RoundRobinTrimmer` trims or `longest_first` as Hugging Face
truncates, then written straight into dense [batch, seq_length] rows with
position arithmetic (no ragged concat, so TFLite converts it). One packer
serves the exported `CustomTokenizer` and the Keras `BertInputsPacker`.
"""

from __future__ import annotations

from typing import Sequence

import tensorflow as tf

from tf_wordpiece.bert import budgets
from tf_wordpiece.bert.post_processors import Encoding, Segment, head, truncate
from tf_wordpiece.messages import check_choice

TRIMMERS = ("round_robin", "longest_first")


class FixedLengthTemplate:
    """BERT's template in dense rows of `seq_length`, with type ids 0 for `[CLS] a [SEP]` and 1 for `b [SEP]`.

    Args:
      cls_id, sep_id: the ids of `[CLS]` and `[SEP]` (or `[START]`/`[END]`).
      pad_id: what pads `ids`. Defaults to 0.
      trimming: `"round_robin"` (tensorflow_text's RoundRobinTrimmer: one
        token from each segment in turn) or `"longest_first"` (Hugging Face's
        truncation). Defaults to `"round_robin"`.

    >>> template = FixedLengthTemplate(cls_id=1, sep_id=2)
    >>> a, b = (Segment.from_ids(tf.ragged.constant(t, tf.int64)) for t in ([[7, 8, 9]], [[5, 6]]))
    >>> enc = template.pack([a, b], seq_length=7)  # 4 tokens fit: 2 from each, in turn
    >>> enc.ids.numpy().tolist(), enc.type_ids.numpy().tolist()
    ([[1, 7, 8, 2, 5, 6, 2]], [[0, 0, 0, 0, 1, 1, 1]])
    >>> enc = template.pack([a], seq_length=7)
    >>> enc.ids.numpy().tolist(), enc.attention_mask.numpy().tolist()
    ([[1, 7, 8, 9, 2, 0, 0]], [[1, 1, 1, 1, 1, 0, 0]])
    >>> enc.special_tokens_mask.numpy().tolist(), enc.sequence_ids.numpy().tolist()
    ([[1, 0, 0, 0, 1, 1, 1]], [[-1, 0, 0, 0, -1, -1, -1]])
    """

    def __init__(self, *, cls_id: int, sep_id: int, pad_id: int = 0, trimming: str = "round_robin"):
        check_choice("trimming", trimming, TRIMMERS)
        self.cls_id, self.sep_id, self.pad_id = int(cls_id), int(sep_id), int(pad_id)
        self.trimming = trimming

    def pack(self, segments: Sequence[Segment], *, seq_length: int) -> Encoding:
        """One or two segments (each field int64 [batch, (tokens)]) -> an `Encoding` of dense int64
        [batch, seq_length] tensors (offsets [batch, seq_length, 2], bytes into each token's own string)."""
        if not 1 <= len(segments) <= 2:
            raise ValueError(f"segments: expected one or two, got {len(segments)}")
        if isinstance(seq_length, bool) or not isinstance(seq_length, int) or seq_length < 1 + len(segments):
            raise ValueError(
                f"seq_length: expected an int >= {1 + len(segments)} ([CLS] and a [SEP] per segment), "
                f"got {seq_length!r}"
            )
        budget = seq_length - 1 - len(segments)  # [CLS] and one [SEP] per segment
        if self.trimming == "round_robin":
            keep = round_robin_lengths([s.ids for s in segments], budget)
            segments = [
                Segment(*(None if t is None else head(t, keep[:, i]) for t in s)) for i, s in enumerate(segments)
            ]
        else:
            segments = [
                s
                for s in truncate(segments[0], segments[1] if len(segments) == 2 else None, budget, "longest_first")
                if s is not None
            ]
        return self._write(segments, seq_length)

    def pack_flat(self, ids: tf.Tensor, counts: tf.Tensor, *, seq_length: int) -> tuple[tf.Tensor, tf.Tensor]:
        """One segment given flat: ids [k] and ids per row `counts` [n] -> (ids [n, seq_length], bool mask).

        The same rows as `pack` with one segment (both trimmings keep a
        segment's first `seq_length - 2` tokens), in the dtype of `ids`
        (int32 for TFLite's builtins, which divide no int64, and TF.js,
        which has no int64), from position arithmetic alone.

        >>> ids, mask = FixedLengthTemplate(cls_id=1, sep_id=2).pack_flat(
        ...     tf.constant([7, 8, 9]), tf.constant([1, 0, 2]), seq_length=4)
        >>> ids.numpy().tolist(), mask.numpy().astype(int).tolist()
        ([[1, 7, 2, 0], [1, 2, 0, 0], [1, 8, 9, 2]], [[1, 1, 1, 0], [1, 1, 0, 0], [1, 1, 1, 1]])
        """
        counts = tf.cast(counts, ids.dtype)
        position = tf.range(seq_length, dtype=ids.dtype)[None, :]  # [1, L]
        start = tf.cumsum(counts, exclusive=True)[:, None]  # [n, 1]
        kept = tf.minimum(counts, seq_length - 2)[:, None]
        inside = (position >= 1) & (position <= kept)
        padded = tf.concat([ids, tf.constant([self.pad_id], ids.dtype)], 0)  # the last index reads pad_id
        tokens = tf.gather(padded, tf.where(inside, start + position - 1, tf.size(ids, out_type=ids.dtype)))
        tokens = tf.where(tf.equal(position, kept + 1), tf.constant(self.sep_id, ids.dtype), tokens)
        tokens = tf.where(tf.equal(position, 0), tf.constant(self.cls_id, ids.dtype), tokens)
        return tokens, position <= kept + 1

    def _write(self, segments: list[Segment], seq_length: int) -> Encoding:
        """Each segment's tokens at their positions, `[SEP]` after each, dense position arithmetic only."""
        position = tf.range(seq_length, dtype=tf.int64)[None, :]  # [1, seq_length]
        batch = segments[0].ids.nrows()
        shape = tf.stack([batch, tf.constant(seq_length, batch.dtype)])
        ids = tf.tile(
            tf.where(tf.equal(position, 0), tf.constant(self.cls_id, tf.int64), tf.constant(self.pad_id, tf.int64)),
            tf.stack([batch, tf.constant(1, batch.dtype)]),
        )
        types = tf.zeros_like(ids)
        sequence = word = -tf.ones_like(ids)
        begin = end = tf.zeros_like(ids)
        start = tf.ones([batch, 1], tf.int64)  # where the current segment begins
        row = tf.range(batch)[:, None]
        for index, segment in enumerate(segments):
            length = segment.ids.row_lengths()[:, None]
            inside = (position >= start) & (position < start + length)
            at = tf.clip_by_value(position - start, 0, seq_length - 1) + row * seq_length

            def place(field: tf.RaggedTensor | None, current: tf.Tensor) -> tf.Tensor:
                if field is None:
                    return current
                dense = tf.reshape(field.to_tensor(default_value=0, shape=shape), [-1])
                return tf.where(inside, tf.gather(dense, at), current)

            ids, word, begin, end = (
                place(f, c)
                for f, c in ((segment.ids, ids), (segment.word, word), (segment.begin, begin), (segment.end, end))
            )
            ids = tf.where(tf.equal(position, start + length), tf.constant(self.sep_id, tf.int64), ids)
            types = tf.where((position >= start) & (position <= start + length), tf.constant(index, tf.int64), types)
            sequence = tf.where(inside, tf.constant(index, tf.int64), sequence)
            start += length + 1
        attention = tf.cast(position < start, tf.int64)
        in_text = sequence >= 0
        return Encoding(
            ids=ids,
            type_ids=types,
            attention_mask=attention,
            offsets=tf.stack([begin, end], axis=-1),
            special_tokens_mask=tf.cast(~in_text, tf.int64),
            word_ids=tf.where(in_text, word, -1),
            sequence_ids=sequence,
        )


def round_robin_lengths(segments: Sequence[tf.RaggedTensor], budget: int | tf.Tensor) -> tf.Tensor:
    """How many tokens each segment keeps, int64 [batch, segments]: at most `budget` per row, one from each in turn.

    Like tensorflow_text.RoundRobinTrimmer: every segment keeps min(its length,
    L) for the largest fair level L that fits, and the tokens left over go one
    each to the first segments that have more (`budgets.round_robin`).

    >>> a, b = tf.ragged.constant([[1, 2, 3, 4, 5]]), tf.ragged.constant([[6, 7]])
    >>> round_robin_lengths([a, b], 5).numpy().tolist(), round_robin_lengths([a, a], 5).numpy().tolist()
    ([[3, 2]], [[3, 2]])
    """
    lengths = tf.stack([tf.cast(s.row_lengths(), tf.int64) for s in segments], axis=1)  # [batch, segments]
    return budgets.round_robin(lengths, budget)
