"""The shared per-code-point tables (tf_wordpiece.unicode.tables and .normalization): the shipped data is exactly
what the installed peers produce (tools/gen_unicode_tables.py); UTF-8 lengths, range masks, the paged lookup
and the replacement tables built on them."""

from __future__ import annotations

import importlib.util
import json
import pathlib

import numpy as np
import pytest
import tensorflow as tf

from tf_wordpiece.unicode import tables as ut
from tf_wordpiece.unicode.normalization import NormalizationTable

TOOL = pathlib.Path(__file__).resolve().parents[2] / "tools" / "gen_unicode_tables.py"


def test_shipped_tables_are_up_to_date():
    pytest.importorskip("tensorflow_text")
    pytest.importorskip("tokenizers")
    spec = importlib.util.spec_from_file_location("gen_unicode_tables", TOOL)
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    fresh = json.loads(json.dumps(generator.build()))  # the same JSON round trip as the file
    shipped = ut.peer_tables()
    assert fresh["provenance"] == shipped["provenance"]
    for peer in ("tf_text", "hf"):
        for name in fresh[peer]:
            assert fresh[peer][name] == shipped[peer][name], f"{peer}/{name} is stale: run {TOOL.name}"


@pytest.mark.parametrize(
    "code_point, length",
    [(0, 1), (0x7F, 1), (0x80, 2), (0x7FF, 2), (0x800, 3), (0xD800, 3), (0xFFFF, 3), (0x10000, 4), (0x10FFFF, 4)],
    ids=hex,
)
def test_utf8_length(code_point, length):
    assert ut.utf8_length(np.array([code_point])).tolist() == [length]
    assert ut.utf8_length(tf.constant([code_point])).numpy().tolist() == [length]
    if not 0xD800 <= code_point <= 0xDFFF:  # a lone surrogate has no UTF-8; the marker counts 3, as its bytes would
        assert len(chr(code_point).encode("utf-8")) == length


def test_range_mask_is_inclusive():
    mask = ut.range_mask([[0x41, 0x43], [0x10FFFF, 0x10FFFF]])
    assert mask.shape == (ut.NUM_CODE_POINTS,)
    assert np.flatnonzero(mask).tolist() == [0x41, 0x42, 0x43, 0x10FFFF]


def test_code_point_lookup_equals_the_dense_table():
    dense = np.zeros(ut.NUM_CODE_POINTS, np.int32)
    dense[[0, 0x41, 0xFF, 0x100, 0x4E2D, 0x10FFFF]] = [7, 1, 2, 3, 4, 5]
    dense[0x20000:0x20300] = 9  # whole pages, deduplicated
    lookup = ut.CodePointLookup(dense)
    probe = np.array([0, 1, 0x41, 0xFF, 0x100, 0x101, 0x4E2D, 0x1FFFF, 0x20000, 0x202FF, 0x20300, 0x10FFFF], np.int32)
    assert lookup(tf.constant(probe)).numpy().tolist() == dense[probe].tolist()
    assert tf.function(lookup)(tf.constant(probe[None, :])).numpy().tolist() == [dense[probe].tolist()]
    with pytest.raises(ValueError, match=r"dense table must have shape \(1114112,\)"):
        ut.CodePointLookup(np.zeros(10, np.int32))


def test_normalization_table_from_replacements():
    """Rows are numbered in order of first use from 1 (row 0 keeps the code point); `filled` comes first."""
    letters = np.zeros(ut.NUM_CODE_POINTS, bool)
    letters[ord("a") : ord("c") + 1] = True
    table = NormalizationTable.from_replacements(
        {ord("b"): (ord("B"),), ord("x"): (), ord("y"): (ord("y"),), 0xDF: (ord("s"), ord("s"))},
        filled=[(letters, (ord("_"),))],
    )
    assert table.row_outputs == ((), (ord("_"),), (ord("B"),), (), (ord("s"), ord("s")))
    rows = [int(table.dense_rows[ord(c)]) for c in "abcxyz\xdf"]
    assert rows == [1, 2, 1, 3, 0, 0, 4]  # a replacement by itself is no replacement
    assert table.apply("abcxyz\xdf") == "_B_yzss" and not table.compose
    composed = NormalizationTable.from_replacements({0xE9: (ord("e"), 0x301)}, compose=True)
    assert composed.apply("\xe9e\u0301") == "\xe9\xe9"  # decomposed, then composed again (NFC)
