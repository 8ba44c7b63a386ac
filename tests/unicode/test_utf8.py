"""`tf_wordpiece.unicode.utf8.decode` (UTF-8 in integer ops) against TensorFlow's own decoder.

The oracle is `tf.strings.unicode_decode_with_offsets(errors="replace")` with
the project's invalid-UTF-8 marker as the replacement: same character starts,
code points and lengths (a character ends where the next one starts, or at its
string's end), and no character ever runs from one string into the next.
"""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tf_wordpiece.unicode import tables as ut
from tf_wordpiece.unicode import utf8

# Bytes at the edges of UTF-8's ranges: ASCII ends, continuation ends, the
# leads of overlong forms (C0 C1 E0 F0), surrogates (ED), past U+10FFFF (F4 F5),
# bytes never valid (FF), and the narrow second-byte ranges (A0 9F 90 8F).
EDGE_BYTES = [
    0x00,
    0x41,
    0x7F,
    0x80,
    0xBF,
    0xC0,
    0xC1,
    0xC2,
    0xDF,
    0xE0,
    0xA0,
    0x9F,
    0xED,
    0xEF,
    0xF0,
    0x90,
    0x8F,
    0xF4,
    0xF5,
    0xFF,
]
VALID_SEQUENCES = ["é", "߿", "ࠀ", "€", "\ud7ff", "\ue000", "\uffff", "😀", "𐀀", "\U0010ffff"]
pieces = st.one_of(
    st.sampled_from(EDGE_BYTES).map(lambda b: bytes([b])),
    st.sampled_from(VALID_SEQUENCES).map(lambda s: s.encode("utf-8")),
    # A valid sequence cut short: its lead and some of its continuation bytes.
    st.tuples(st.sampled_from(VALID_SEQUENCES), st.integers(1, 3)).map(lambda p: p[0].encode("utf-8")[: p[1]]),
)
byte_strings = st.lists(pieces, max_size=12).map(b"".join)
batches = st.lists(byte_strings, min_size=1, max_size=8)


def decode_batch(strings: list[bytes], padding: bytes, decode=utf8.decode) -> utf8.Characters:
    """The strings end to end (then `padding`, in a row of its own), decoded; NumPy arrays out."""
    data = b"".join(strings)
    buffer = np.frombuffer(data + padding, np.uint8).astype(np.int32)
    byte_row = np.repeat(np.arange(len(strings) + 1), [len(s) for s in strings] + [len(padding)]).astype(np.int32)
    chars = decode(tf.constant(buffer), tf.constant(byte_row), tf.constant(len(data), tf.int32))
    return utf8.Characters(*(t.numpy() for t in chars))


def expected(strings: list[bytes]) -> list[tuple[list[int], list[int], list[int]]]:
    """Per string: (character starts, code points, character ends) from TensorFlow's decoder."""
    code_points, starts = tf.strings.unicode_decode_with_offsets(
        tf.constant(strings, tf.string), "UTF-8", errors="replace", replacement_char=ut.INVALID_UTF8
    )
    out = []
    for s, cps, offs in zip(strings, code_points.to_list(), starts.to_list()):
        out.append((offs, cps, (offs + [len(s)])[1:]))
    return out


def actual(strings: list[bytes], chars: utf8.Characters) -> list[tuple[list[int], list[int], list[int]]]:
    out, base = [], 0
    for s in strings:
        where = np.flatnonzero(chars.start[base : base + len(s)])
        at = base + where
        out.append((where.tolist(), chars.code_point[at].tolist(), (where + chars.length[at]).tolist()))
        base += len(s)
    return out


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# The padding (in a row of its own) is at least 3 bytes: `decode` looks 3 bytes ahead
# and needs a buffer at least that long; the core always pads to 64 bytes or more.
@given(strings=batches, padding=st.lists(st.sampled_from(EDGE_BYTES), min_size=3, max_size=6).map(bytes))
@example(strings=["héllo 中文 😀".encode(), b"\xe2\x82", b"\xac", b"ok"], padding=b"\x00\x00\x00")
@example(strings=[b"\xf0\x9f", b"\x98\x80"], padding=b"\x80\x80\x80")  # a 4-byte emoji split over two strings
@example(strings=[b"", b"\xc3", b"", b"\xa9"], padding=b"\xa9\xa9\xa9")
@example(strings=[b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xe0\x80\xaf", b"\xc0\xaf"], padding=b"\x00\x00\x00")
def test_decode_matches_tensorflow(strings, padding):
    chars = decode_batch(strings, padding)
    assert actual(strings, chars) == expected(strings)
    size = sum(len(s) for s in strings)
    assert not chars.start[size:].any(), "padding starts no character"


def test_every_invalid_utf8_hard_string(invalid_utf8):
    chars = decode_batch(invalid_utf8, b"\x00\x00\x00")
    assert actual(invalid_utf8, chars) == expected(invalid_utf8)


def test_compiled_with_xla_decodes_the_same():
    """decode runs inside the jit-compiled core: XLA must give what eager gives."""
    strings = [bytes(range(256)), "naïve 😀 \U0010ffff".encode(), b"\xe2\x82", b"\xac\xf4\x8f\xbf\xbf\xf5"]
    padding = b"\x80" * 7  # continuation bytes right after the truncated lead above: still never joined
    compiled = tf.function(utf8.decode, jit_compile=True)
    chars = decode_batch(strings, padding, decode=compiled)
    assert actual(strings, chars) == expected(strings)


@pytest.mark.parametrize("code_point", [0, 0x7F, 0x80, 0x7FF, 0x800, 0xD7FF, 0xE000, 0xFFFD, 0xFFFF, 0x10000, 0x10FFFF])
def test_boundary_code_points(code_point):
    s = chr(code_point).encode("utf-8", "surrogatepass")
    assert actual([s], decode_batch([s], b"\x00\x00\x00")) == [([0], [code_point], [len(s)])]


@pytest.mark.parametrize("strings", [[b"h"], [b"a", b"\xc3"]], ids=["one-byte", "two-bytes"])
def test_buffers_shorter_than_the_lookahead(strings):
    assert actual(strings, decode_batch(strings, b"")) == expected(strings)
