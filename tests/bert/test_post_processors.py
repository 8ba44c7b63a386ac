"""Post-processing (tf_wordpiece.bert.post_processors): TemplateProcessing's template, truncation and padding in
Hugging Face's order, on segments given directly; then the Encoding's special_tokens_mask, word_ids and
sequence_ids through BertTokenizer.encode against tokenizers (issue 18, option 1).

The whole-sample parity (with truncation and padding) is in tests/bert_tokenizer/test_hugging_face.py.
"""

from __future__ import annotations

import pytest
import tensorflow as tf

import tf_wordpiece as twp
from helpers.contract import assert_ragged_equal
from helpers.data import TOKENIZER_JSON
from helpers.oracles import hf_oracle
from tf_wordpiece.bert.post_processors import Segment, TemplateProcessing, check_encode_options, head, truncate

BERT = TemplateProcessing.bert(cls_id=101, sep_id=102)


def segment(rows: list[list[int]], first_offset: int = 0) -> Segment:
    """Ids as given; each token i spans bytes [10 i, 10 i + 1) (shifted by `first_offset`), word i."""
    ids = tf.ragged.constant(rows, tf.int64, ragged_rank=1)
    position = tf.ragged.range(ids.row_lengths())
    begin = tf.cast(position * 10 + first_offset, tf.int64)
    return Segment(ids, begin, begin + 1, tf.cast(position, tf.int64))


def lists(encoding) -> dict:
    return {
        name: t.to_list() if isinstance(t, tf.RaggedTensor) else t.numpy().tolist()
        for name, t in encoding._asdict().items()
    }


# (what the row shows, first, second, process options, expected fields)
TEMPLATE_ROWS = [
    (
        "single",
        [[7, 8], []],
        None,
        {},
        dict(
            ids=[[101, 7, 8, 102], [101, 102]],
            type_ids=[[0, 0, 0, 0], [0, 0]],
            attention_mask=[[1, 1, 1, 1], [1, 1]],
            offsets=[[[0, 0], [0, 1], [10, 11], [0, 0]], [[0, 0], [0, 0]]],
            special_tokens_mask=[[1, 0, 0, 1], [1, 1]],
            word_ids=[[-1, 0, 1, -1], [-1, -1]],
            sequence_ids=[[-1, 0, 0, -1], [-1, -1]],
        ),
    ),
    (
        "pair",
        [[7]],
        [[5, 6]],
        {},
        dict(
            ids=[[101, 7, 102, 5, 6, 102]],
            type_ids=[[0, 0, 0, 1, 1, 1]],
            special_tokens_mask=[[1, 0, 1, 0, 0, 1]],
            word_ids=[[-1, 0, -1, 0, 1, -1]],  # counted from 0 in each text
            sequence_ids=[[-1, 0, -1, 1, 1, -1]],
        ),
    ),
    (
        "no-special-tokens",
        [[7]],
        [[5, 6]],
        dict(add_special_tokens=False),
        dict(ids=[[7, 5, 6]], type_ids=[[0, 1, 1]], sequence_ids=[[0, 1, 1]]),
    ),
    (
        "pad-longest",
        [[7, 8], [9]],
        None,
        dict(padding="longest"),
        dict(
            ids=[[101, 7, 8, 102], [101, 9, 102, 0]],
            attention_mask=[[1, 1, 1, 1], [1, 1, 1, 0]],
            special_tokens_mask=[[1, 0, 0, 1], [1, 0, 1, 1]],  # padding counts as special
            word_ids=[[-1, 0, 1, -1], [-1, 0, -1, -1]],
            offsets=[[[0, 0], [0, 1], [10, 11], [0, 0]], [[0, 0], [0, 1], [0, 0], [0, 0]]],
        ),
    ),
    (
        "pad-to-max-length-and-multiple",
        [[7]],
        None,
        dict(padding="max_length", max_length=4, pad_to_multiple_of=3),
        dict(ids=[[101, 7, 102, 0, 0, 0]], attention_mask=[[1, 1, 1, 0, 0, 0]]),
    ),
    (
        "truncate-longest-first",
        [[1, 2, 3, 4, 5]],
        [[6, 7]],
        dict(truncation="longest_first", max_length=7),  # 3 specials: 4 tokens kept, 2 and 2
        dict(ids=[[101, 1, 2, 102, 6, 7, 102]], type_ids=[[0, 0, 0, 0, 1, 1, 1]]),
    ),
    (
        "truncate-only-second",
        [[1, 2]],
        [[6, 7, 8]],
        dict(truncation="only_second", max_length=6),
        dict(ids=[[101, 1, 2, 102, 6, 102]]),
    ),
    (
        "truncate-then-pad",
        [[1, 2, 3], [4]],
        None,
        dict(truncation="longest_first", max_length=4, padding="longest"),
        dict(ids=[[101, 1, 2, 102], [101, 4, 102, 0]]),
    ),
]


@pytest.mark.parametrize("what, first, second, options, expected", TEMPLATE_ROWS, ids=[r[0] for r in TEMPLATE_ROWS])
def test_process(what, first, second, options, expected):
    pair = None if second is None else segment(second)
    got = lists(BERT.process(segment(first), pair, **options))
    assert {name: got[name] for name in expected} == expected


def test_process_in_a_graph_equals_eager():
    first, second = segment([[1, 2, 3], [4]]), segment([[5], [6, 7, 8]])
    options = dict(truncation="longest_first", max_length=6, padding="longest")
    eager = BERT.process(first, second, **options)
    graph = tf.function(lambda a, b: BERT.process(a, b, **options)._asdict())(first, second)
    assert {name: t.numpy().tolist() for name, t in graph.items()} == lists(eager)


def test_a_custom_template():
    """tokenizers' TemplateProcessing: any special tokens, several ids each, any type ids."""
    template = TemplateProcessing(
        [("<s>", 0), ("A", 0), ("</s>", 0)],
        [("<s>", 0), ("A", 0), ("</s>", 0), ("</s>", 1), ("B", 1), ("</s>", 1)],
        {"<s>": [0], "</s>": [2, 3]},
        pad_id=1,
        pad_type_id=5,
    )
    assert template.added_tokens(False) == 3 and template.added_tokens(True) == 7
    enc = template.process(segment([[9]]), segment([[8]]), padding="max_length", max_length=10)
    assert enc.ids.numpy().tolist() == [[0, 9, 2, 3, 2, 3, 8, 2, 3, 1]]
    assert enc.type_ids.numpy().tolist() == [[0, 0, 0, 0, 1, 1, 1, 1, 1, 5]]


@pytest.mark.parametrize(
    "single, pair, message",
    [
        ([("A", 0), ("B", 0)], [("A", 0), ("B", 1)], r"single: the single template cannot hold \$B"),
        ([("[CLS]", 0)], [("A", 0), ("B", 1)], r"single: the single template must hold \$A exactly once"),
        ([("A", 0)], [("A", 0), ("B", 1), ("B", 1)], r"pair: the pair template must hold \$B exactly once"),
        ([("<x>", 0), ("A", 0)], [("A", 0), ("B", 1)], r"single: special token '<x>' is not in special_tokens"),
    ],
    ids=["B-in-single", "no-A", "B-twice", "unknown-special"],
)
def test_bad_templates(single, pair, message):
    with pytest.raises(ValueError, match=message):
        TemplateProcessing(single, pair, {"[CLS]": [101]})


# (n1, n2, max_length) -> what each keeps; tokenizers' LongestFirst, checked against it below.
LONGEST_FIRST = [
    (5, 2, 7, (5, 2)),  # fits
    (5, 2, 4, (2, 2)),  # the shorter keeps its length, the longer what is left
    (5, 1, 4, (3, 1)),
    (1, 5, 4, (1, 3)),
    (3, 3, 5, (2, 3)),  # both over half: halves, the odd token to the longer (of equals, the second)
    (6, 4, 3, (2, 1)),
    (4, 0, 2, (2, 0)),
    (3, 3, 0, (0, 0)),
]


@pytest.mark.parametrize("n1, n2, max_length, kept", LONGEST_FIRST, ids=str)
def test_longest_first_truncation(n1, n2, max_length, kept):
    first, second = truncate(segment([list(range(n1))]), segment([list(range(n2))]), max_length, "longest_first")
    assert (int(first.ids.row_lengths()[0]), int(second.ids.row_lengths()[0])) == kept


@pytest.mark.parametrize("n1, n2, max_length, kept", LONGEST_FIRST, ids=str)
def test_longest_first_rows_are_tokenizers(n1, n2, max_length, kept):
    tokenizers = pytest.importorskip("tokenizers")
    peer = tokenizers.Tokenizer(tokenizers.models.WordLevel({"a": 0, "[UNK]": 1}, unk_token="[UNK]"))
    peer.pre_tokenizer = tokenizers.pre_tokenizers.WhitespaceSplit()
    peer.enable_truncation(max_length, strategy="longest_first")
    sequences = peer.encode("a " * n1, "a " * n2, add_special_tokens=False).sequence_ids
    assert (sequences.count(0), sequences.count(1)) == kept


@pytest.mark.parametrize(
    "strategy, first, second, message",
    [
        ("only_first", [[1]], [[2, 3, 4, 5]], "Truncation error: Sequence to truncate too short"),
        ("only_second", [[1, 2, 3, 4]], [[2]], "Truncation error: Sequence to truncate too short"),
        ("only_second", [[1, 2, 3, 4]], None, "Truncation error: Second sequence not provided"),
    ],
)
def test_truncation_that_cannot_fit_is_an_error(strategy, first, second, message):
    with pytest.raises(tf.errors.InvalidArgumentError, match=message):
        truncate(segment(first), None if second is None else segment(second), 2, strategy)


def test_head_keeps_the_first_tokens_of_each_row():
    rt = tf.ragged.constant([[1, 2, 3], [], [4, 5]], tf.int64)
    assert head(rt, tf.constant([2, 5, 0])).to_list() == [[1, 2], [], []]


def test_segment_from_ids():
    ids = tf.ragged.constant([[7, 8]], tf.int64)
    enc = BERT.process(Segment.from_ids(ids))
    assert enc.offsets.to_list() == [[[0, 0]] * 4] and enc.word_ids.to_list() == [[-1, -1, -1, -1]]


@pytest.mark.parametrize(
    "options, expected",
    [
        (dict(truncation=True, max_length=8, padding=True), ("longest_first", "longest")),
        (dict(truncation=False, max_length=None, padding=False), (None, None)),
        (dict(truncation="only_first", max_length=8, padding="max_length"), ("only_first", "max_length")),
    ],
    ids=["true-means-default", "false-means-off", "named"],
)
def test_check_encode_options(options, expected):
    got = check_encode_options(BERT, is_pair=True, add_special_tokens=True, pad_to_multiple_of=None, **options)
    assert got == expected


@pytest.mark.parametrize(
    "options, message",
    [
        (dict(truncation="only_third", max_length=8), "truncation: expected one of"),
        (dict(truncation=True), "max_length: truncation='longest_first' needs max_length"),
        (dict(padding="max_length"), "max_length: padding='max_length' needs max_length"),
        (dict(padding="left"), "padding: expected one of"),
        (dict(pad_to_multiple_of=8), "pad_to_multiple_of: 8 needs padding"),
        (dict(pad_to_multiple_of=-2, padding=True), "pad_to_multiple_of: expected a non-negative int"),
        (dict(truncation=True, max_length=-1), "max_length: expected a non-negative int"),
        (dict(truncation=True, max_length=True), "max_length: expected a non-negative int"),
        (dict(truncation=True, max_length=2), "max_length: 2 is less than the 3 special tokens the pair template adds"),
    ],
)
def test_bad_encode_options(options, message):
    options = dict(dict(truncation=None, max_length=None, padding=None, pad_to_multiple_of=None), **options)
    with pytest.raises(ValueError, match=message):
        check_encode_options(BERT, is_pair=True, add_special_tokens=True, **options)


# --- Encoding.special_tokens_mask, word_ids and sequence_ids through encode, against tokenizers -----------------

FIELDS = ("special_tokens_mask", "word_ids", "sequence_ids")
CASES = [
    (
        ["Hello [MASK] world!", "[MASK]", "a[MASK]b  c", " [SEP] x ", "", "unaffable 日本語 ok", "\x00 zz \ufffd yy"],
        None,
    ),
    (["hello world", "", "don't stop"], ["how are you?", "", "[MASK] it's ok"]),
]


@pytest.fixture(scope="module")
def ours():
    return twp.BertTokenizer.from_tokenizer_json(TOKENIZER_JSON)


def hf_fields(encodings) -> list:
    return [
        [e.special_tokens_mask for e in encodings],
        [[-1 if w is None else w for w in e.word_ids] for e in encodings],
        [[-1 if s is None else s for s in e.sequence_ids] for e in encodings],
    ]


def as_lists(t) -> list:
    return t.to_list() if isinstance(t, tf.RaggedTensor) else t.numpy().tolist()


@pytest.mark.parametrize(
    "options",
    [
        {},
        dict(padding="longest"),
        dict(truncation="longest_first", max_length=6),
        dict(add_special_tokens=False, padding="max_length", max_length=12),
    ],
    ids=repr,
)
@pytest.mark.parametrize("texts, pairs", CASES, ids=["single", "pair"])
def test_fields_match_tokenizers(ours, texts, pairs, options):
    peer = hf_oracle()
    if "truncation" in options:
        peer.enable_truncation(options["max_length"])
    if "padding" in options:
        peer.enable_padding(length=options.get("max_length") if options["padding"] == "max_length" else None)
    inputs = texts if pairs is None else list(zip(texts, pairs))
    want = hf_fields(peer.encode_batch(inputs, add_special_tokens=options.get("add_special_tokens", True)))
    enc = ours.encode(texts, pairs, **options)
    assert [as_lists(getattr(enc, name)) for name in FIELDS] == want


def test_scalar_input(ours):
    enc = ours.encode("Hello [MASK] world!")
    e = hf_oracle().encode("Hello [MASK] world!")
    assert [as_lists(getattr(enc, name)) for name in FIELDS] == [row[0] for row in hf_fields([e])]


def test_fields_every_way(ours, tmp_path):
    texts, pairs = CASES[1]
    eager = ours.encode(texts, pairs, padding="longest")

    def encode(a, b):
        enc = ours.encode(a, b, padding="longest")
        return {name: getattr(enc, name) for name in FIELDS}

    graph = tf.function(encode)(tf.constant(texts), tf.constant(pairs))
    for name in FIELDS:
        assert_ragged_equal(graph[name], getattr(eager, name), f"tf.function {name}")
    dataset = tf.data.Dataset.from_tensor_slices((texts, pairs)).batch(len(texts)).map(encode)
    for name in FIELDS:
        assert_ragged_equal(next(iter(dataset))[name], getattr(eager, name), f"tf.data {name}")
    module = tf.Module()
    module.tok = ours
    module.encode = tf.function(encode, input_signature=[tf.TensorSpec([None], tf.string)] * 2)
    tf.saved_model.save(module, str(tmp_path / "m"))
    loaded = tf.saved_model.load(str(tmp_path / "m")).encode(tf.constant(texts), tf.constant(pairs))
    for name in FIELDS:
        assert_ragged_equal(loaded[name], getattr(eager, name), f"SavedModel {name}")
