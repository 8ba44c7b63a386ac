"""store_to_file(add_single_quotes=...) and loading: tensor2tensor's quoted and bare vocabulary files."""

from __future__ import annotations

import pytest
import tensorflow as tf

import tf_wordpiece as twp
from tf_wordpiece import subword as sl


@pytest.fixture(scope="module")
def lines(multilingual) -> list[str]:
    """Letters and single spaces only: no subtoken then has a quote or white space, so it can be stored bare."""
    cleaned = (" ".join("".join(c if c.isalpha() else " " for c in line).split()) for line in multilingual[:800])
    return [line for line in cleaned if line]


@pytest.fixture(scope="module")
def learned(lines) -> twp.SubwordTextEncoder:
    return twp.SubwordTextEncoder.build_from_corpus(lines, 600, verbose=False)


def test_files_are_tensor2tensors_bytes(learned, tmp_path):
    quoted, bare = tmp_path / "quoted.subwords", tmp_path / "bare.subwords"
    learned.store_to_file(quoted)
    learned.store_to_file(bare, add_single_quotes=False)
    # tensor2tensor writes "'" + subtoken + "'\n", or subtoken + "\n" without quotes, in UTF-8.
    assert quoted.read_bytes() == b"".join(b"'" + s.encode("utf-8") + b"'\n" for s in learned.subtokens)
    assert bare.read_bytes() == b"".join(s.encode("utf-8") + b"\n" for s in learned.subtokens)
    assert bare.read_bytes().startswith(b"<pad>_\n<EOS>_\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bare.subwords", "quoted.subwords"]  # no leftovers


@pytest.mark.parametrize("first, second", [(True, False), (False, True)], ids=["quoted-then-bare", "bare-then-quoted"])
def test_round_trip_both_ways(learned, lines, tmp_path, first, second):
    learned.store_to_file(tmp_path / "a", add_single_quotes=first)
    loaded = twp.SubwordTextEncoder.load_from_file(tmp_path / "a")
    assert loaded.subtokens == learned.subtokens
    loaded.store_to_file(tmp_path / "b", add_single_quotes=second)
    again = twp.SubwordTextEncoder.load_from_file(tmp_path / "b")
    assert again.subtokens == learned.subtokens
    batch = tf.constant(lines[:200])
    assert again.encode(batch).to_list() == learned.encode(batch).to_list()
    learned.store_to_file(tmp_path / "c", add_single_quotes=second)
    assert (tmp_path / "b").read_bytes() == (tmp_path / "c").read_bytes()


def test_bare_lines_read_as_tensor2tensor_reads_them(tmp_path):
    # tensor2tensor's loader: line.strip(), then one pair of wrapping ' or " removed.
    alphabet = "<pad>_EOSab\\u;0123456789"
    path = tmp_path / "vocab"
    path.write_text("<pad>_\n  <EOS>_\t\n" + "".join(f"{c}\n" for c in alphabet) + " 'ab_'\n", encoding="utf-8")
    enc = twp.SubwordTextEncoder.load_from_file(path)
    assert enc.subtokens[:2] == ["<pad>_", "<EOS>_"] and enc.subtokens[-1] == "ab_"


@pytest.mark.parametrize("subtoken", ["'", " ", "a ", '"x"', "'b'", "a\nb"])
def test_bare_refuses_subtokens_that_would_not_read_back(subtoken):
    subtokens = ["<pad>_", "<EOS>_", subtoken, "ab_"]
    with pytest.raises(ValueError, match="add_single_quotes: False cannot store .* store with add_single_quotes=True"):
        sl.format_vocab(subtokens, add_single_quotes=False)
    if "\n" not in subtoken:  # quoted, it reads back
        assert sl.parse_vocab(sl.format_vocab(subtokens), source="test") == subtokens


def test_refused_store_writes_nothing(tmp_path):
    enc = twp.SubwordTextEncoder(["<pad>_", "<EOS>_", *"<pad>_EOS\\u;0123456789ab'"])
    with pytest.raises(ValueError, match="add_single_quotes: False cannot store 1 subtoken"):
        enc.store_to_file(tmp_path / "v", add_single_quotes=False)
    assert list(tmp_path.iterdir()) == []


def test_bare_replaces_its_own_file_but_not_a_users(learned, tmp_path):
    path = tmp_path / "vocab.subwords"
    learned.store_to_file(path, add_single_quotes=False)
    learned.store_to_file(path, add_single_quotes=False)
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n", encoding="utf-8")
    with pytest.raises(ValueError, match="does not look like a subword vocabulary"):
        learned.store_to_file(notes, add_single_quotes=False)
    assert notes.read_text(encoding="utf-8") == "my notes\n"


def test_tfds_mode_refuses_bare(tmp_path):
    enc = twp.SubwordTextEncoder(["hello_", "world"], compat="tfds")
    with pytest.raises(ValueError, match="add_single_quotes: False is only for compat='t2t'"):
        enc.store_to_file(tmp_path / "v.subwords", add_single_quotes=False)
