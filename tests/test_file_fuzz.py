"""Fuzzed vocabulary files and tokenizer.json files: a tokenizer whose vocabulary is exactly the file's, or a
ValueError naming the file; never another exception, never a silently different vocabulary.

Bounded by TF_WORDPIECE_MAX_EXAMPLES (default 25, times 4 here: each example is cheap). For open-ended,
coverage-guided fuzzing of the same checks: tools/fuzz_readers.py (atheris, not a dependency).
"""

from __future__ import annotations

import json
import os
import pathlib
import tempfile

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import tf_wordpiece as twp
from helpers.vocab_files import TOKENS, VALID_JSON, VALID_VOCAB, expected_vocab, looks_binary

MAX_EXAMPLES = 4 * int(os.environ.get("TF_WORDPIECE_MAX_EXAMPLES", "25"))
fuzz = settings(max_examples=MAX_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def mutated(draw, valid: bytes) -> bytes:
    """`valid` after a few byte-level edits: insert, delete, overwrite, duplicate a slice, truncate."""
    data = bytearray(valid)
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(data)))
        kind = draw(st.sampled_from(["insert", "delete", "overwrite", "duplicate", "truncate"]))
        if kind == "insert":
            data[at:at] = draw(
                st.one_of(
                    st.binary(min_size=1, max_size=6),
                    st.sampled_from([b"\n", b"\r", b"\r\n", b"\xef\xbb\xbf", b"\x00", b"\\", b'"', b"{", b"]", b","]),
                )
            )
        elif kind == "delete":
            del data[at : at + draw(st.integers(1, 8))]
        elif kind == "overwrite" and at < len(data):
            data[at] = draw(st.integers(0, 255))
        elif kind == "duplicate":
            end = min(len(data), at + draw(st.integers(1, 12)))
            data[at:at] = data[at:end]
        elif kind == "truncate":
            del data[at:]
    return bytes(data)


@pytest.fixture(scope="module", autouse=True)
def _fuzz_folder(tmp_path_factory):
    """Where `written` puts files: under pytest's temporary folder (hypothesis examples cannot take tmp_path)."""
    global FOLDER
    FOLDER = tmp_path_factory.mktemp("fuzz")


def written(data: bytes, name: str) -> str:
    path = pathlib.Path(tempfile.mkdtemp(dir=FOLDER), name)
    path.write_bytes(data)
    return str(path)


@fuzz
@given(
    data=st.one_of(
        mutated(VALID_VOCAB),
        st.binary(max_size=64),
        st.lists(st.sampled_from(TOKENS + ["", " ", "\r"]), max_size=8).map(lambda t: "\n".join(t).encode()),
    )
)
@example(data=b"\xef\xbb\xbf" + VALID_VOCAB)  # a BOM would silently rename the first token
@example(data=VALID_VOCAB.replace(b"\n", b"\r\n"))
@example(data=VALID_VOCAB + b"[UNK]\n")
@example(data=b"")
def test_vocab_file_reader(data):
    path = written(data, "vocab.txt")
    want = None if looks_binary(data) else expected_vocab(data)
    try:
        tokenizer = twp.BertTokenizer(path)
    except ValueError as e:
        assert want is None, f"rejected a valid vocabulary: {e}"
        assert ("is not a text file" in str(e)) == looks_binary(data), f"binary or not, wrongly told: {e}"
        assert path in str(e) and "vocab" in str(e)
        return
    assert want is not None, "accepted an invalid vocabulary"
    assert tokenizer.vocab.tokens == want
    assert [tokenizer.vocab.id_of(t) for t in want] == list(range(len(want)))


JSON_VALUES = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-3, 40),
        st.floats(allow_nan=False, allow_infinity=False),
        st.text(max_size=8),
    ),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)),
    max_leaves=6,
)


def paths(value, prefix=()):
    """Every key path into a JSON value."""
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from paths(item, prefix + (key,))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from paths(item, prefix + (i,))


@st.composite
def edited_json(draw) -> bytes:
    """The valid file with a few fields replaced by arbitrary JSON values or removed."""
    spec = json.loads(VALID_JSON)
    for _ in range(draw(st.integers(1, 3))):
        where = draw(st.sampled_from([p for p in paths(spec) if p]))
        parent = spec
        for key in where[:-1]:
            parent = parent[key]
        if isinstance(parent, dict) and draw(st.booleans()):
            del parent[where[-1]]
        else:
            parent[where[-1]] = draw(JSON_VALUES)
    return json.dumps(spec, ensure_ascii=False).encode("utf-8")


@fuzz
@given(data=st.one_of(edited_json(), mutated(VALID_JSON), st.binary(max_size=64)))
@example(data=VALID_JSON)
@example(data=VALID_JSON.replace(b'"[UNK]": 1', b'"[UNK]": 1.0'))
@example(data=b"[]")
def test_tokenizer_json_reader(data):
    path = written(data, "tokenizer.json")
    try:
        tokenizer = twp.BertTokenizer.from_tokenizer_json(path)
    except ValueError as e:
        assert path in str(e) or "tokenizer.json" in str(e), f"message does not name the file: {e}"
        return
    vocab = json.loads(data)["model"]["vocab"]
    assert all(type(i) is int for i in vocab.values()), "accepted non-integer ids"
    assert tokenizer.vocab.tokens == sorted(vocab, key=vocab.__getitem__)
    tokenizer.tokenize(["hello worlds! 日😀"])  # what loads, runs
