"""tf_wordpiece.text's normalize_utf8_with_offsets_map and find_source_offsets against tensorflow_text: the same
source offset for every normalized offset (and one past each end) of the shared sample and hard strings, in the
four forms; the same shapes for rank 0/1/2 and ragged inputs; inside tf.function and tf.data."""

from __future__ import annotations

import pytest
import tensorflow as tf

import tf_wordpiece.text as ours

tf_text = pytest.importorskip("tensorflow_text")

FORMS = ["NFC", "NFD", "NFKC", "NFKD"]
# Strings whose ICU edit records are not one piece per code point.
HARD = [
    "a\u0301\u0323b",  # marks out of canonical order
    "x\u0301\u0323",  # reordered after a starter that may compose
    "\u00e9\u0301 e\u0301\u0301 a\u0301\u0301b",  # a mark after a (de)composed character
    "Z\u0351\u036b\u0343\u036a\u0302\u034fA",  # a decomposing mark in a run, then CGJ (class 0)
    "\u0130\u0307 \u1e9b\u0323 \u0344\u0345",  # İ, long s with dot, a mark that decomposes to two
    "\ud55c\uad6d\uc5b4 \u1100\u1161\u11a8 \u1100\u1161 \uac00\u11a8",  # syllables, conjoining jamo
    "\u3131\u3134\u3137\u314f\u3153",  # compatibility jamo (NFKC composes them)
    "\ufb01\ufb03 \uff2b\uff21\uff24\uff2f \u00df \u2460 \u00bd \u2122 \u33a1",  # ligatures, fullwidth, ß, ...
    "\uf900\uf9dc\ufa10 \U0002f800",  # CJK compatibility ideographs
    "\U0001f469\u200d\U0001f469\u200d\U0001f467 \U0001f44d\U0001f3fd \U0001f1eb\U0001f1f7 \u263a\ufe0f",  # emoji
    "\u0b47\u0b3e \u0dd9\u0dcf\u0dca \u1025\u102e",  # starters that compose (Oriya, Sinhala, Myanmar)
    "",
]
INVALID = [b"a\xffb\xc3", b"\xe2\x82", b"e\xcc\x81\x80\xcc\x81"]


def compare_all_offsets(strings: list[bytes], form: str) -> None:
    """Every normalized offset from -1 to length + 1 of each string, ours vs tensorflow_text's, in one batch."""
    batch = tf.constant(strings)
    theirs_strings, theirs_map = tf_text.normalize_utf8_with_offsets_map(batch, form)
    mine_strings, mine_map = ours.normalize_utf8_with_offsets_map(batch, form)
    assert mine_strings.numpy().tolist() == theirs_strings.numpy().tolist()
    lengths = tf.strings.length(theirs_strings)
    offsets = tf.ragged.range(tf.constant(-1, tf.int64), tf.cast(lengths, tf.int64) + 2)
    mine = ours.find_source_offsets(mine_map, offsets).to_list()
    theirs = tf_text.find_source_offsets(theirs_map, offsets).to_list()
    wrong = [(s, m, t) for s, m, t in zip(strings, mine, theirs) if m != t]
    assert not wrong, f"{len(wrong)} strings differ, the first: {wrong[0]}"


@pytest.mark.parametrize("form", FORMS)
def test_every_offset_of_the_sample_matches(sample, form):
    compare_all_offsets(sample + [s.encode() for s in HARD] + INVALID, form)


@pytest.mark.parametrize("form", FORMS)
def test_the_map_is_the_source_offset_of_each_normalized_offset(form):
    text = ["\ufb01e\u0301", ""]
    _, offsets_map = ours.normalize_utf8_with_offsets_map(text, form)
    normalized, theirs_map = tf_text.normalize_utf8_with_offsets_map(text, form)
    every = tf.ragged.range(tf.cast(tf.strings.length(normalized), tf.int64) + 1)
    assert offsets_map.to_list() == tf_text.find_source_offsets(theirs_map, every).to_list()
    assert offsets_map.to_list()[1] == [0]


@pytest.mark.parametrize(
    "value, offsets",
    [
        ("\uff21b\u00c9", 4),
        ("\uff21b\u00c9", [0, 1, 3, 4, 5, 99, -7]),
        (["\uff21b", "e\u0301"], [[0, 1, 2], [0, 1, 2]]),
        (["\uff21b", "e\u0301"], tf.ragged.constant([[0, 1, 2], [1]], tf.int64)),
        ([["\u00c9", "x\u0301\u0323"], ["\ufb01", "a"]], [[[0, 1], [1, 3]], [[1, 2], [0, 1]]]),
        (
            tf.ragged.constant([["\u00c9", "A\u030a"], ["\u3131"]]),
            tf.ragged.constant([[[0, 1], [1, 3]], [[0, 3]]], tf.int64),
        ),
    ],
    ids=["rank0-scalar", "rank0-vector", "rank1", "rank1-ragged-offsets", "rank2", "ragged"],
)
@pytest.mark.parametrize("form", ["NFD", "NFKC"])
def test_shapes_match(value, offsets, form):
    theirs_strings, theirs_map = tf_text.normalize_utf8_with_offsets_map(value, form)
    mine_strings, mine_map = ours.normalize_utf8_with_offsets_map(value, form)
    assert type(mine_strings) is type(theirs_strings)
    assert mine_strings.shape.as_list() == theirs_strings.shape.as_list()
    theirs = tf_text.find_source_offsets(theirs_map, offsets)
    mine = ours.find_source_offsets(mine_map, offsets)
    assert type(mine) is type(theirs) and mine.dtype == theirs.dtype == tf.int64
    assert mine.shape.as_list() == theirs.shape.as_list()
    as_list = lambda t: t.to_list() if isinstance(t, tf.RaggedTensor) else t.numpy().tolist()  # noqa: E731
    assert as_list(mine) == as_list(theirs)


def test_offsets_outside_the_string_are_icus_answers():
    """Below 0: 0; past the end: the input's length; ICU reads each offset as an int32."""
    offsets = tf.constant([[-(2**40), -1, 0, 2, 3, 4, 1000, 2**32 + 2]], tf.int64)
    theirs = tf_text.find_source_offsets(tf_text.normalize_utf8_with_offsets_map(["\uff21bc"])[1], offsets)
    mine = ours.find_source_offsets(ours.normalize_utf8_with_offsets_map(["\uff21bc"])[1], offsets)
    assert mine.numpy().tolist() == theirs.numpy().tolist() == [[0, 0, 0, 4, 5, 5, 5, 4]]


def test_rows_of_no_offsets_take_no_map_as_in_the_peer():
    """tensorflow_text's kernel gives maps only to rows that have offsets: as many such rows as maps, or an error."""
    cases = [
        (["\uff21", "b", "c"], tf.ragged.constant([[1], [], [0]], tf.int64)),  # 3 maps, 2 rows with offsets
        (["\uff21", "c"], tf.ragged.constant([[1], [], [0]], tf.int64)),  # 2 maps: the third row takes the second
        (tf.ragged.constant([["\uff21"], [], ["\uff22\uff23"]]), tf.ragged.constant([[[1]], [[]], [[0, 4]]], tf.int64)),
        (tf.ragged.constant([["\uff21"], [""], ["c"]]), tf.ragged.constant([[[1]], [[]], [[0]]], tf.int64)),
    ]
    answers = []
    for strings, offsets in cases:
        try:
            want = tf_text.find_source_offsets(tf_text.normalize_utf8_with_offsets_map(strings)[1], offsets).to_list()
        except tf.errors.InvalidArgumentError:
            with pytest.raises(tf.errors.InvalidArgumentError, match="did not match the offset map"):
                ours.find_source_offsets(ours.normalize_utf8_with_offsets_map(strings)[1], offsets)
            answers.append("error")
            continue
        assert ours.find_source_offsets(ours.normalize_utf8_with_offsets_map(strings)[1], offsets).to_list() == want
        answers.append(want)
    assert answers == ["error", [[3], [], [0]], [[[3]], [[]], [[0, 6]]], "error"]


def test_more_offset_rows_than_maps_is_the_peers_error():
    _, offsets_map = ours.normalize_utf8_with_offsets_map(["a", "b"])
    with pytest.raises(tf.errors.InvalidArgumentError, match="did not match the offset map dimension"):
        ours.find_source_offsets(offsets_map, [[0], [0], [0]])


def test_in_a_tf_function_and_a_tf_data_map():
    strings = tf.constant(["\uff2b\uff21 e\u0301", "\ufb01", ""])
    want = ours.find_source_offsets(ours.normalize_utf8_with_offsets_map(strings)[1], [[0, 1, 3], [0, 1, 2], [0, 0, 0]])

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string), tf.TensorSpec([None, None], tf.int64)])
    def source_offsets(text, offsets):
        return ours.find_source_offsets(ours.normalize_utf8_with_offsets_map(text)[1], offsets)

    offsets = tf.constant([[0, 1, 3], [0, 1, 2], [0, 0, 0]], tf.int64)
    assert (
        source_offsets(strings, offsets).numpy().tolist() == want.numpy().tolist() == [[0, 3, 7], [0, 3, 3], [0, 0, 0]]
    )
    dataset = tf.data.Dataset.from_tensor_slices((strings, offsets)).map(
        lambda text, row: ours.find_source_offsets(ours.normalize_utf8_with_offsets_map(text)[1], row)
    )
    assert [row.numpy().tolist() for row in dataset] == want.numpy().tolist()


def test_the_map_round_trips_on_the_normalized_strings_of_a_rank_2_input():
    """Each normalized character's bytes map back to input bytes that normalize to it."""
    text = tf.constant([["\uff2b\uff21 caf\u00e9", "\u1100\u1161\u11a8"], ["\u00e9\u0301", "\ufb01 \u2460"]])
    normalized, offsets_map = ours.normalize_utf8_with_offsets_map(text, "NFKC")
    chars = tf.strings.unicode_split_with_offsets(normalized, "UTF-8")
    starts = ours.find_source_offsets(offsets_map, chars[1])
    ends = ours.find_source_offsets(offsets_map, chars[1] + tf.cast(tf.strings.length(chars[0]), tf.int64))
    assert starts.shape.as_list() == chars[1].shape.as_list()
    assert starts.to_list() == [[[0, 3, 6, 7, 8, 9, 10], [0]], [[0, 2], [0, 3, 3, 4]]]
    assert ends.to_list() == [[[3, 6, 7, 8, 9, 10, 12], [9]], [[2, 4], [3, 3, 4, 7]]]
    # The input slice of each row's map at [1][0] is the map of that string alone.
    alone = ours.normalize_utf8_with_offsets_map(text[1, 0], "NFKC")[1]
    assert offsets_map[1][0].numpy().tolist() == alone.numpy().tolist()
