"""Packing (tf_wordpiece.bert.packing): one or two segments into BERT's dense [batch, seq_length] inputs.

Rows on segments given directly, round-robin trimming checked against tensorflow_text (RoundRobinTrimmer,
combine_segments, pad_model_inputs: what the TF Model Garden's BertPackInputs runs) and longest_first
against the truncation of tf_wordpiece.bert.post_processors (Hugging Face's rule).
"""

from __future__ import annotations

import json

import pytest
import tensorflow as tf

from tf_wordpiece.bert.packing import FixedLengthTemplate, round_robin_lengths
from tf_wordpiece.bert.post_processors import Segment, TemplateProcessing

CLS, SEP = 101, 102


def segment(rows: list[list[int]]) -> Segment:
    """Ids as given; token i spans bytes [10 i, 10 i + 3), word i."""
    ids = tf.ragged.constant(rows, tf.int64, ragged_rank=1)
    position = tf.cast(tf.ragged.range(ids.row_lengths()), tf.int64)
    return Segment(ids, position * 10, position * 10 + 3, position)


# (what the row shows, segments, seq_length, trimming, expected ids, type ids)
PACK_ROWS = [
    ("single-padded", [[[7, 8, 9]]], 7, "round_robin", [[CLS, 7, 8, 9, SEP, 0, 0]], [[0, 0, 0, 0, 0, 0, 0]]),
    ("single-trimmed", [[[1, 2, 3, 4, 5]]], 4, "round_robin", [[CLS, 1, 2, SEP]], [[0, 0, 0, 0]]),
    ("pair-in-turn", [[[7, 8, 9]], [[5, 6]]], 7, "round_robin", [[CLS, 7, 8, SEP, 5, 6, SEP]], [[0, 0, 0, 0, 1, 1, 1]]),
    (
        "pair-leftover-to-the-first",
        [[[1, 2, 3, 4, 5]], [[6, 7]]],
        8,  # 5 tokens fit: 2 and 2 in turn, the fifth to the first segment, which has more
        "round_robin",
        [[CLS, 1, 2, 3, SEP, 6, 7, SEP]],
        [[0, 0, 0, 0, 0, 1, 1, 1]],
    ),
    (
        "pair-longest-first",
        [[[1, 2, 3, 4, 5]], [[6, 7]]],
        8,  # Hugging Face: the shorter keeps its 2, the longer the 3 left
        "longest_first",
        [[CLS, 1, 2, 3, SEP, 6, 7, SEP]],
        [[0, 0, 0, 0, 0, 1, 1, 1]],
    ),
    (
        "pair-longest-first-halves",
        [[[1, 2, 3, 4]], [[5, 6, 7, 8]]],
        8,
        "longest_first",
        [[CLS, 1, 2, SEP, 5, 6, 7, SEP]],
        [[0, 0, 0, 0, 1, 1, 1, 1]],
    ),
    (
        "ragged-batch",
        [[[1], [], [2, 3, 4]], [[5, 6], [7], []]],
        6,
        "round_robin",
        [[CLS, 1, SEP, 5, 6, SEP], [CLS, SEP, 7, SEP, 0, 0], [CLS, 2, 3, 4, SEP, SEP]],  # an empty segment: its [SEP]
        [[0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 0, 0], [0, 0, 0, 0, 0, 1]],
    ),
]
ROW_IDS = [r[0] for r in PACK_ROWS]


@pytest.mark.parametrize("what, segments, seq_length, trimming, ids, type_ids", PACK_ROWS, ids=ROW_IDS)
def test_pack(what, segments, seq_length, trimming, ids, type_ids):
    template = FixedLengthTemplate(cls_id=CLS, sep_id=SEP, trimming=trimming)
    enc = template.pack([segment(s) for s in segments], seq_length=seq_length)
    assert enc.ids.numpy().tolist() == ids
    assert enc.type_ids.numpy().tolist() == type_ids
    assert enc.attention_mask.numpy().tolist() == [[int(i != 0) for i in row] for row in ids]
    assert all(t.shape.as_list() == [len(ids), seq_length] for t in (enc.ids, enc.type_ids, enc.attention_mask))


@pytest.mark.parametrize(
    "what, segments, seq_length, trimming, ids, type_ids",
    [r for r in PACK_ROWS if r[3] == "round_robin"],
    ids=[r[0] for r in PACK_ROWS if r[3] == "round_robin"],
)
def test_round_robin_rows_are_tensorflow_texts(what, segments, seq_length, trimming, ids, type_ids):
    tf_text = pytest.importorskip("tensorflow_text")
    ragged = [tf.ragged.constant(s, tf.int64, ragged_rank=1) for s in segments]
    trimmed = tf_text.RoundRobinTrimmer(max_seq_length=seq_length - 1 - len(segments)).trim(ragged)
    combined, types = tf_text.combine_segments(trimmed, start_of_sequence_id=CLS, end_of_segment_id=SEP)
    peer_ids, peer_mask = tf_text.pad_model_inputs(combined, max_seq_length=seq_length)
    peer_types, _ = tf_text.pad_model_inputs(types, max_seq_length=seq_length)
    assert (peer_ids.numpy().tolist(), peer_types.numpy().tolist()) == (ids, type_ids)


@pytest.mark.parametrize("what, segments, seq_length, trimming, ids, type_ids", PACK_ROWS, ids=ROW_IDS)
def test_longest_first_equals_template_processing(what, segments, seq_length, trimming, ids, type_ids):
    """The dense packer and Hugging Face's ragged encode, padded to seq_length, give the same rows."""
    segments = [segment(s) for s in segments]
    dense = FixedLengthTemplate(cls_id=CLS, sep_id=SEP, trimming="longest_first").pack(segments, seq_length=seq_length)
    ragged = TemplateProcessing.bert(cls_id=CLS, sep_id=SEP).process(
        *segments, truncation="longest_first", max_length=seq_length, padding="max_length"
    )
    for name in dense._fields:
        assert getattr(dense, name).numpy().tolist() == getattr(ragged, name).numpy().tolist(), name


def test_the_other_fields():
    enc = FixedLengthTemplate(cls_id=CLS, sep_id=SEP).pack([segment([[7, 8]]), segment([[5]])], seq_length=7)
    assert enc.special_tokens_mask.numpy().tolist() == [[1, 0, 0, 1, 0, 1, 1]]
    assert enc.sequence_ids.numpy().tolist() == [[-1, 0, 0, -1, 1, -1, -1]]
    assert enc.word_ids.numpy().tolist() == [[-1, 0, 1, -1, 0, -1, -1]]
    assert enc.offsets.numpy().tolist() == [[[0, 0], [0, 3], [10, 13], [0, 0], [0, 3], [0, 0], [0, 0]]]


def test_pad_id_and_ids_alone():
    enc = FixedLengthTemplate(cls_id=2, sep_id=3, pad_id=9).pack(
        [Segment.from_ids(tf.ragged.constant([[5]], tf.int64))], seq_length=5
    )
    assert enc.ids.numpy().tolist() == [[2, 5, 3, 9, 9]]
    assert enc.word_ids.numpy().tolist() == [[-1] * 5] and enc.offsets.numpy().tolist() == [[[0, 0]] * 5]


def test_pack_in_a_graph_equals_eager():
    template = FixedLengthTemplate(cls_id=CLS, sep_id=SEP)
    a, b = segment([[1, 2, 3], [4]]), segment([[5], [6, 7, 8, 9]])
    eager = template.pack([a, b], seq_length=6)
    graph = tf.function(lambda x, y: template.pack([x, y], seq_length=6)._asdict())(a, b)
    assert {name: t.numpy().tolist() for name, t in graph.items()} == {
        name: t.numpy().tolist() for name, t in eager._asdict().items()
    }


@pytest.mark.parametrize(
    "lengths, budget, kept",
    [
        ([[5, 2]], 5, [[3, 2]]),
        ([[5, 5]], 5, [[3, 2]]),
        ([[1, 1]], 5, [[1, 1]]),
        ([[0, 4]], 3, [[0, 3]]),
        ([[4, 4, 4]], 7, [[3, 2, 2]]),
        ([[2, 9], [9, 2]], 6, [[2, 4], [4, 2]]),
        ([[3, 3]], 0, [[0, 0]]),
    ],
    ids=str,
)
def test_round_robin_lengths(lengths, budget, kept):
    segments = [
        tf.ragged.constant([[0] * row[i] for row in lengths], tf.int64, ragged_rank=1) for i in range(len(lengths[0]))
    ]
    assert round_robin_lengths(segments, budget).numpy().tolist() == kept
    tf_text = pytest.importorskip("tensorflow_text")
    trimmed = tf_text.RoundRobinTrimmer(max_seq_length=budget).trim(segments)
    assert [[int(t.row_lengths()[r]) for t in trimmed] for r in range(len(lengths))] == kept


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: FixedLengthTemplate(cls_id=1, sep_id=2, trimming="middle"), "trimming: expected one of"),
        (
            lambda: FixedLengthTemplate(cls_id=1, sep_id=2).pack([], seq_length=4),
            "segments: expected one or two, got 0",
        ),
        (
            lambda: FixedLengthTemplate(cls_id=1, sep_id=2).pack([segment([[1]])] * 3, seq_length=9),
            "segments: expected one or two, got 3",
        ),
        (
            lambda: FixedLengthTemplate(cls_id=1, sep_id=2).pack([segment([[1]])] * 2, seq_length=2),
            r"seq_length: expected an int >= 3 \(\[CLS\] and a \[SEP\] per segment\), got 2",
        ),
        (
            lambda: FixedLengthTemplate(cls_id=1, sep_id=2).pack([segment([[1]])], seq_length=True),
            "seq_length: expected an int >= 2",
        ),
    ],
    ids=["trimming", "no-segment", "three-segments", "too-short", "bool"],
)
def test_bad_arguments(make, message):
    with pytest.raises(ValueError, match=message):
        make()


# --- through the exported module, against tokenizers ---------------------------------------------------------


def test_bert_pack_inputs_with_compat_hf_match_hf(tmp_path):
    """The exported module's packer (FixedLengthTemplate, longest_first with compat="hf") against tokenizers."""
    tokenizers = pytest.importorskip("tokenizers")
    from tf_wordpiece.bert.tokenizer_json import tokenizer_json
    from tf_wordpiece.export.module import CustomTokenizer

    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[START]", "[END]", "hello", "world", "!"]
    path = tmp_path / "vocab.txt"
    path.write_text("\n".join(vocab) + "\n", encoding="utf-8")
    module = CustomTokenizer(
        ["[PAD]", "[UNK]", "[START]", "[END]"], str(path), seq_length=6, compat="hf", lower_case=True
    )
    peer = tokenizers.Tokenizer.from_str(json.dumps(tokenizer_json(module.tokenizer)))
    peer.enable_truncation(6)
    peer.enable_padding(length=6)
    a, b = ["Hello world! hello", "hello"], ["world world world", "!"]
    got = module.bert_pack_pair_inputs(tf.constant(a), tf.constant(b))
    want = peer.encode_batch(list(zip(a, b)))
    assert got["input_word_ids"].numpy().tolist() == [e.ids for e in want]
    assert got["input_type_ids"].numpy().tolist() == [e.type_ids for e in want]
    assert got["input_mask"].numpy().tolist() == [e.attention_mask for e in want]
    single = module.bert_pack_inputs(tf.constant(a))["input_word_ids"].numpy().tolist()
    assert single == [e.ids for e in peer.encode_batch(a)]


@pytest.mark.parametrize("trimming", ["round_robin", "longest_first"])
def test_pack_flat_gives_packs_rows(trimming):
    """Issue 41: one packer. The flat int32 form (what `pack_bytes` runs) equals `pack` on one segment."""
    rows = [[7, 8, 9, 10, 11], [], [5], [1, 2, 3]]
    template = FixedLengthTemplate(cls_id=CLS, sep_id=SEP, pad_id=3, trimming=trimming)
    for seq_length in (2, 3, 5, 8):
        ids, mask = template.pack_flat(
            tf.constant([t for r in rows for t in r], tf.int32),
            tf.constant([len(r) for r in rows]),
            seq_length=seq_length,
        )
        want = template.pack([segment(rows)], seq_length=seq_length)
        assert ids.dtype == tf.int32 and mask.dtype == tf.bool
        assert ids.numpy().tolist() == want.ids.numpy().tolist()
        assert mask.numpy().astype(int).tolist() == want.attention_mask.numpy().tolist()
