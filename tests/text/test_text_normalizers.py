"""tf_wordpiece.text's normalizers and regex_split against tensorflow_text: same outputs on the shared sample,
rank 0/1/2 and ragged inputs, and the same errors for bad input."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

import tf_wordpiece.text as ours
from helpers.child import run_python
from tf_wordpiece.text import normalizers

tf_text = pytest.importorskip("tensorflow_text")

# keras-hub's pretokenize() patterns (keras_hub/src/tokenizers/word_piece_tokenizer.py), and byte_pair_tokenizer's.
SPLITS = [
    (r"\s|\p{Cc}|\p{Cf}|[!-/]|[:-@]|[\[-`]|[{-~]|\p{P}", r"[!-/]|[:-@]|[\[-`]|[{-~]|\p{P}"),
    (r"\s", ""),
    (r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+", r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+"),
    ("ab|a", "a"),
]


def as_lists(outputs):
    return [t.to_list() if isinstance(t, tf.RaggedTensor) else np.asarray(t.numpy()).tolist() for t in outputs]


@pytest.mark.parametrize("form", ["NFC", "NFD", "NFKC", "NFKD", "nfkc"])
def test_normalize_utf8_matches(sample, form):
    batch = tf.constant(sample)
    assert ours.normalize_utf8(batch, form).numpy().tolist() == tf_text.normalize_utf8(batch, form).numpy().tolist()


def test_case_fold_utf8_matches(sample):
    batch = tf.constant(sample)
    assert ours.case_fold_utf8(batch).numpy().tolist() == tf_text.case_fold_utf8(batch).numpy().tolist()


@pytest.mark.parametrize(
    "value",
    [
        tf.constant("\uff21b\u00c9"),
        tf.constant([["\u00c9", ""], ["x\xff".encode("latin-1"), "\u1e9b\u0323"]]),
        tf.ragged.constant([["\u00c9", "A"], []]),
    ],
    ids=["rank0", "rank2", "ragged"],
)
def test_shapes_match(value):
    for fn in (ours.case_fold_utf8, ours.normalize_utf8):
        mine, theirs = fn(value), getattr(tf_text, fn.__name__)(value)
        assert type(mine) is type(theirs) and mine.shape.as_list() == theirs.shape.as_list()
        assert as_lists([mine]) == as_lists([theirs])


def test_coerce_to_structurally_valid_utf8_matches(sample):
    batch = tf.constant(sample)
    for char in ("\ufffd", "?"):
        mine = ours.coerce_to_structurally_valid_utf8(batch, char)
        assert mine.numpy().tolist() == tf_text.coerce_to_structurally_valid_utf8(batch, char).numpy().tolist()


@pytest.mark.parametrize("delim, keep", SPLITS, ids=["keras_hub", "space", "gpt2", "keep_partial"])
def test_regex_split_with_offsets_matches(sample, delim, keep):
    # tensorflow_text's kernel reads each string up to its first NUL byte (a C string): those differ, see below.
    batch = tf.constant([s for s in sample if b"\x00" not in s and b"\xff" not in s])
    mine = ours.regex_split_with_offsets(batch, delim, keep)
    assert as_lists(mine) == as_lists(tf_text.regex_split_with_offsets(batch, delim, keep))


@pytest.mark.parametrize("pattern", [None, "", "\t", r"\s+"], ids=["default", "empty", "tab", "spaces"])
def test_regex_splitter_matches(pattern):
    lines = [b"Hi there.\nWhat time is it?\r\nIt is\tgametime.", b"Who?\n\n", b"", b"a  b\t\tc\n"]
    mine, theirs = ours.RegexSplitter(pattern), tf_text.RegexSplitter(pattern)
    assert as_lists([mine.split(lines)]) == as_lists([theirs.split(lines)])
    assert as_lists(mine.split_with_offsets(lines)) == as_lists(theirs.split_with_offsets(lines))


@pytest.mark.xfail(
    strict=True, reason="tensorflow_text's regex_split stops at a NUL byte (C string); ours reads it all"
)
def test_regex_split_nul_byte():
    assert ours.regex_split(["a\x00b"], " ").to_list() == tf_text.regex_split(["a\x00b"], " ").to_list()


@pytest.mark.parametrize(
    "value", ["a b", [["a b", "c"], ["", "d  e"]], tf.ragged.constant([["a b"], []])], ids=["rank0", "rank2", "ragged"]
)
def test_regex_split_shapes_match(value):
    mine, theirs = ours.regex_split_with_offsets(value, " "), tf_text.regex_split_with_offsets(value, " ")
    assert [t.shape.as_list() for t in mine] == [t.shape.as_list() for t in theirs]
    assert as_lists(mine) == as_lists(theirs)


def test_bad_pattern_is_the_peers_error_naming_it():
    with pytest.raises(tf.errors.InvalidArgumentError) as theirs:
        tf_text.regex_split(["a"], "a(")
    with pytest.raises(type(theirs.value), match=r"Invalid pattern: a\("):
        ours.regex_split(["a"], "a(")


def test_unknown_form_names_the_four():
    with pytest.raises(ValueError, match="normalization_form.*NFC.*NFD.*NFKC.*NFKD.*'XYZ'"):
        ours.normalize_utf8(["a"], "XYZ")
    # tensorflow_text's kernel raises InvalidArgumentError when it runs: the same error is that too
    for call in (tf_text.normalize_utf8, ours.normalize_utf8, ours.normalize_utf8_with_offsets_map):
        with pytest.raises(tf.errors.InvalidArgumentError):
            call(["a"], "XYZ")


def test_ids_where_text_is_expected_are_a_type_error():
    for call in (
        lambda: ours.normalize_utf8([1, 2]),
        lambda: ours.case_fold_utf8(tf.constant([1])),
        lambda: ours.regex_split([3], " "),
    ):
        with pytest.raises(TypeError, match="pass text, not ids|expected strings"):
            call()


def test_byte_0xff_is_an_error_not_a_wrong_answer():
    with pytest.raises(tf.errors.InvalidArgumentError, match="0xFF"):
        ours.regex_split([b"a\xffb c"], " ")


def test_offsets_map_checks_the_form():
    with pytest.raises(ValueError, match="normalization_form"):
        ours.normalize_utf8_with_offsets_map(["a"], "bad")


def test_normalize_utf8_in_a_saved_model_holds_no_untracked_resource(tmp_path):
    """keras-hub exports its tokenizers' calls: ours must save (no module-level lookup table) and serve the same."""
    strings = tf.constant(["e\u0301 A\u030a \u1e9b\u0323", "\ufb01 \u2460", "", "caf\xe9"])

    class Normalizer(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
        def serve(self, text):
            return {form: ours.normalize_utf8(text, form) for form in ("NFC", "NFD", "NFKC", "NFKD")}

    want = {form: value.numpy().tolist() for form, value in Normalizer().serve(strings).items()}
    tf.saved_model.save(Normalizer(), str(tmp_path / "normalizer"))
    served = tf.saved_model.load(str(tmp_path / "normalizer")).serve(strings)
    assert {form: value.numpy().tolist() for form, value in served.items()} == want
    assert want["NFC"][0] == "\xe9 \xc5 \u1e9b\u0323".encode()  # composed: the pair lookup ran


@pytest.mark.parametrize("form", ["NFC", "NFD", "NFKC", "NFKD", "NFKC_CASEFOLD"])
def test_quick_check_strings_are_what_the_chain_gives(form):
    """Every code point of each piece the quick check passes, in strings of 64 code points: the starters beside
    neighbours in code point order and shuffled; each first code point of a two-piece with a random second,
    and each second with a random first. The quick path's output (the input, ASCII-lowered for case folding)
    is the full chain's."""
    rng = np.random.default_rng(0)
    orders = []
    for piece in normalizers._quick_check_pieces(form):
        classes = [np.flatnonzero(c) for c in piece]
        if len(classes) == 1:
            assert 1_000_000 < len(classes[0]) < 0x110000 - 0x800  # most of Unicode, less marks and surrogates
            orders += [classes[0], rng.permutation(classes[0])]
        else:
            assert len(classes[1]) > 20
            for each in (0, 1):
                other = rng.choice(classes[1 - each], len(classes[each]))
                orders.append(np.stack([classes[0], other] if each == 0 else [other, classes[1]], 1).reshape(-1))
    strings = tf.constant(["".join(map(chr, order[i : i + 64])) for order in orders for i in range(0, len(order), 64)])
    assert tf.reduce_all(tf.strings.regex_full_match(strings, normalizers._quick_check(form)))
    quick = normalizers._normalize_flat(strings, form=form)
    assert tf.reduce_all(quick == normalizers._normalize_chain(strings, form=form))
    upper = tf.strings.regex_full_match(strings, ".*[A-Z].*")  # lowered by case folding
    assert tf.reduce_all((quick != strings) == (upper if form == "NFKC_CASEFOLD" else False))


def test_quick_check_leaves_strings_it_cannot_vouch_for_to_the_chain():
    strings = ["plain ascii", "e\u0301", "\u1100\u1161", "\xc5", b"bad \xff utf-8", "\ufb01", "A\u0308", "\xe9\u0323"]
    strings += ["\u0915\u094d\u0937", "\u0915\u094d\u094d", "\u094d"]  # Devanagari virama (class 9)
    strings += ["\u0bae\u0bbe", "\u0bc6\u0bbe"]  # Tamil: U+0BBE composes after U+0BC6 alone
    quick = tf.strings.regex_full_match(strings, normalizers._quick_check("NFKC")).numpy().tolist()
    assert quick == [True, False, False, True, False, False, False, False, True, False, False, True, False]


@pytest.mark.parametrize("form", ["NFC", "NFD", "NFKC", "NFKD", "NFKC_CASEFOLD"])
def test_bytes_that_are_not_utf8_take_the_chain(form):
    """RE2 reads some of these leniently (an encoded surrogate, a code point past U+10FFFF): none may pass the
    quick check, as none is what the decoder reads as one code point; the outputs keep the bytes, as the chain."""
    strings = [b"a\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xe0\x80\xaf", b"\xc0\xaf", b"\xf8\x88\x80\x80\x80", b"\x80"]
    strings += [b"A\xc3", b"\xf0\x9f\x98", b"\xffA\xcc\x81"]
    assert not tf.reduce_any(tf.strings.regex_full_match(strings, normalizers._quick_check(form)))
    out = normalizers._normalize_flat(tf.constant(strings), form=form).numpy().tolist()
    assert out == normalizers._normalize_chain(tf.constant(strings), form=form).numpy().tolist()
    assert out[0] == b"a\xed\xa0\x80" and out[-1][0] == 0xFF


@pytest.mark.parametrize("form", ["NFC", "NFD", "NFKC", "NFKD", "NFKC_CASEFOLD"])
def test_runs_cut_out_of_failing_strings_are_what_the_chain_gives(form):
    """Strings the quick check fails are cut into runs, and only runs that may change are normalized (a code
    point alone by a table): random strings of starters, marks of many classes in and out of order, code points
    that compose backward, that change or are deleted, and stray bytes give what the chain gives."""
    pool = "aeouAEOSsKkz.\u00e9\u00c5\u1e9b\u0130\u2126\ufb01\u1100\u1161\u11a8\uac00\uac01\u0bc6\u0bbe\u0b47\u0b3e"
    pool += "\u0300\u0301\u0308\u0323\u0327\u0345\u031b\u05b0\u05b4\u05bc\u05c1\u064b\u0651\u0650\u0652\u093c\u094d"
    pool += "\u0f71\u0f72\u0f74\u0f7a\u0f80\u0e38\u0e48\u200b\u00ad\u034f\u3099\u304b\u0915\u0f40\u1e0a\u0344"
    rng = np.random.default_rng(1)
    strings = ["".join(rng.choice(list(pool), rng.integers(1, 9))).encode() for _ in range(3000)]
    strings += [s[:-1] + b"\xff" for s in strings[:200]] + [b"\xed\xa0\x80" + s for s in strings[200:300]]
    batch = tf.constant(strings)
    quick = normalizers._normalize_flat(batch, form=form).numpy().tolist()
    assert quick == normalizers._normalize_chain(batch, form=form).numpy().tolist()
    if form != "NFKC_CASEFOLD":
        assert quick == tf_text.normalize_utf8(batch, form).numpy().tolist()
    else:
        assert quick == tf_text.case_fold_utf8(batch).numpy().tolist()


@pytest.mark.parametrize("form", ["NFC", "NFD", "NFKC", "NFKD", "NFKC_CASEFOLD"])
def test_each_code_point_alone_is_what_the_chain_gives(form):
    """The table of runs of one code point (built in Python) against the chain, for every code point in it and
    every one that starts a run the form may change, each alone and after an "a"."""
    classes = normalizers._run_classes(form)
    code_points = np.flatnonzero(
        (classes["boundary"] & ~classes["starter"]) | normalizers._single_code_point_rows(form)[0]
    )
    strings = tf.constant([chr(c).encode() for c in code_points] + [b"a" + chr(c).encode() for c in code_points])
    got = normalizers._normalize_flat(strings, form=form).numpy().tolist()
    assert got == normalizers._normalize_chain(strings, form=form).numpy().tolist()


@pytest.mark.parametrize("form", ["NFC", "NFKC", "NFKC_CASEFOLD"])
def test_runs_of_starters_that_compose_are_what_the_chain_gives(form):
    """Runs of two or three starters that compose pair by pair skip the chain (`_Runs.starter_composites`):
    every such pair of the composition table (Hangul's leading + vowel jamo, Indic two-part vowels, ...),
    every leading + vowel + trailing jamo, and, on a sample, the same after a letter, before a trailing jamo,
    a vowel jamo, a mark or a letter, a precomposed syllable before a trailing jamo, and runs of four or five
    jamo (longer than the table's runs), against the chain and tensorflow_text."""
    from tf_wordpiece.bert import composition

    ccc, _, _ = composition.combining_data()
    pairs = [chr(a) + chr(b) for a, b in composition.composite_pairs() if ccc[a] == 0 and ccc[b] == 0]
    jamo = [chr(0x1100 + lead) + chr(0x1161 + vowel) for lead in range(19) for vowel in range(21)]
    triples = [pair + chr(0x11A8 + trail) for pair in jamo for trail in range(27)]
    rng = np.random.default_rng(2)
    sample = rng.choice(pairs, 400)
    variants = [f"x{p}" for p in sample] + [p + tail for p in sample for tail in "\u11a8\u1161\u0301a"]
    variants += [chr(0xAC00 + 28 * k) + "\u11a8" for k in range(0, 399, 7)] + ["\u1100\u1161\u11a7", "\u10ff\u1161"]
    variants += [t + tail for t in triples[::97] for tail in ("\u11a8", "\u11af\u11ba", "\u1161")]  # 4, 5 jamo
    strings = tf.constant([s.encode() for s in pairs + triples + variants])
    got = normalizers._normalize_flat(strings, form=form).numpy().tolist()
    assert got == normalizers._normalize_chain(strings, form=form).numpy().tolist()
    peer = tf_text.case_fold_utf8(strings) if form == "NFKC_CASEFOLD" else tf_text.normalize_utf8(strings, form)
    assert got == peer.numpy().tolist()
    assert got[len(pairs)] == "\uac01".encode() and got[len(pairs) + len(triples) - 1] == "\ud7a3".encode()


def test_combining_classes_are_icus_newer_marks_included():
    """Every mark with a combining class (the shipped table: ICU's, which knows marks Python's `unicodedata`
    does not, as U+0897 (230), U+1E4EC (232) and U+113CE (9)) ordered against marks of other classes, and
    blocking or not a composition after it, in every form, as tensorflow_text."""
    from tf_wordpiece.unicode import tables as ut

    classes = {int(c): k for c, k in ut.peer_tables()["tf_text"]["ccc"].items()}
    assert classes[0x0897] == 230 and classes[0x1E4EC] == 232 and classes[0x113CE] == 9 and classes[0x0301] == 230
    strings = []
    for mark in map(chr, classes):
        strings += [f"a{mark}{ref}" for ref in "\u0334\u0316\u0301\u035c"] + [f"a\u0301{mark}", f"e{mark}\u0301x"]
    batch = tf.constant([s.encode() for s in strings])
    for form in ("NFC", "NFD", "NFKC", "NFKD"):
        assert ours.normalize_utf8(batch, form).numpy().tolist() == tf_text.normalize_utf8(batch, form).numpy().tolist()
    assert ours.case_fold_utf8(batch).numpy().tolist() == tf_text.case_fold_utf8(batch).numpy().tolist()


def test_a_composite_whose_first_code_point_composes_backward_is_no_quick_starter():
    """Unicode 16's Tulu-Tigalari, Gurung Khema and Kirat Rai composites decompose to a first code point that
    composes with one before it (U+113C2 U+113C5 is U+113C5 U+113C2 in NFC): the quick check must not pass
    them. Each such composite after each code point it may compose with, in every form, as tensorflow_text."""
    from tf_wordpiece.bert import composition
    from tf_wordpiece.unicode import tables as ut

    nfd = {int(c): full for c, full in ut.peer_tables()["tf_text"]["nfd"].items()}
    befores = {}
    for first, second in composition.composite_pairs():
        befores.setdefault(second, []).append(first)
    composites = [c for c, full in nfd.items() if full[0] in befores and c not in befores]
    assert 0x113C5 in composites and 0x16121 in composites
    strings = [chr(before) + chr(c) for c in composites for before in befores[nfd[c][0]]]
    batch = tf.constant([s.encode() for s in strings + [f"x{s}y" for s in strings]])
    for form in ("NFC", "NFD", "NFKC", "NFKD"):
        assert ours.normalize_utf8(batch, form).numpy().tolist() == tf_text.normalize_utf8(batch, form).numpy().tolist()
    assert ours.case_fold_utf8(batch).numpy().tolist() == tf_text.case_fold_utf8(batch).numpy().tolist()


def test_first_used_inside_tf_data_pipelines_one_after_another():
    """tf_wordpiece.text's modules load lazily, so in a fresh process their first use may be inside a tf.data
    trace: nothing they keep may be that trace's tensor (a module-level `tf.constant` was, and the next
    pipeline failed to build)."""
    got = run_python(
        """
        import json
        import tensorflow as tf
        import tf_wordpiece.text as text

        lines = tf.data.Dataset.from_tensor_slices(["Cafe\\u0301 Stra\\u00dfe", "x"]).batch(2)
        forms = ("NFD", "NFC", "NFKC_CASEFOLD")
        fold = lambda x: text.case_fold_utf8(x)
        fns = [lambda x, form=form: text.normalize_utf8(x, form) for form in forms[:2]] + [fold]
        print(json.dumps([[s.decode() for s in next(iter(lines.map(fn))).numpy().tolist()] for fn in fns]))
        """
    )
    assert got == [["Cafe\u0301 Stra\u00dfe", "x"], ["Caf\u00e9 Stra\u00dfe", "x"], ["caf\u00e9 strasse", "x"]]
