"""BertTokenizer (tf_wordpiece.bert_tokenizer.tokenizer) on tiny inline vocabularies: behaviour, shapes, scalars
and Python lists, contract, bad input. Each stage has its own file in tests/bert/."""

from __future__ import annotations

import pytest
import tensorflow as tf

import tf_wordpiece as twp
from helpers.contract import check_contract

TINY = [
    "[PAD]",
    "[UNK]",
    "[CLS]",
    "[SEP]",
    "[MASK]",
    "hello",
    "world",
    "!",
    ",",
    "##s",
    "un",
    "##aff",
    "##able",
    "straße",
    "strasse",
    "e",
    "##e",
    "日",
    "本",
    "[",
    "]",
    "mask",
    "a",
    "##a",
]
ID = {t: i for i, t in enumerate(TINY)}


@pytest.mark.parametrize(
    "compat, lower_case, text, expected",
    [
        ("tf_text", True, "Hello worlds!", [["hello"], ["world", "##s"], ["!"]]),
        ("hf", True, "Hello worlds!", [["hello"], ["world", "##s"], ["!"]]),
        ("tf_text", False, "Hello", [["[UNK]"]]),
        ("tf_text", True, "unaffable,", [["un", "##aff", "##able"], [","]]),
        ("tf_text", True, "STRASSE straße", [["strasse"], ["strasse"]]),  # NFKC_Casefold: ß -> ss
        ("hf", True, "STRASSE straße", [["strasse"], ["straße"]]),  # per-character lowercase keeps ß
        ("tf_text", True, "日本", [["日"], ["本"]]),  # CJK ideographs are words of their own
        ("hf", True, "日本", [["日"], ["本"]]),
        ("tf_text", True, "[MASK]", [["["], ["mask"], ["]"]]),  # tensorflow_text splits specials
        ("hf", True, "[MASK] x[MASK]", [["[MASK]"], ["[UNK]"], ["[MASK]"]]),  # HF matches them as written
        ("hf", True, "a\x00a", [["a", "##a"]]),  # HF deletes controls: the word joins
        ("tf_text", True, "a\x00a", [["a"], ["a"]]),  # tensorflow_text turns them into spaces
        ("tf_text", True, "", []),
        ("hf", True, " \t\n ", []),
        ("tf_text", True, "aaaa", [["a", "##a", "##a", "##a"]]),
    ],
    ids=lambda v: repr(v)[:30],
)
def test_pieces(compat, lower_case, text, expected):
    tok = twp.BertTokenizer(TINY, compat=compat, lower_case=lower_case, token_out_type=tf.string)
    got = tok.tokenize([text]).to_list()[0]
    assert got == [[p.encode() for p in word] for word in expected]


@pytest.mark.parametrize("compat", ["tf_text", "hf"])
def test_contract(compat, tmp_path):
    tok = twp.BertTokenizer(TINY, compat=compat, lower_case=True)
    ids = check_contract(tok, ["Hello worlds!", "", "unaffable straße 日本 [MASK]", "  "], tmp_path)
    assert ids.to_list()[0] == [[ID["hello"]], [ID["world"], ID["##s"]], [ID["!"]]]


def test_offsets_point_into_the_original_string():
    tok = twp.BertTokenizer(TINY, lower_case=True)
    text = "ÉÉ  Unaffable"
    _, begin, end = tok.tokenize_with_offsets([text])
    raw = text.encode("utf-8")
    pieces = [raw[b:e] for b, e in zip(begin.flat_values.numpy(), end.flat_values.numpy())]
    assert pieces == ["É".encode(), "É".encode(), b"Un", b"aff", b"able"]


def test_normalized_offsets_follow_the_normalized_string():
    tok = twp.BertTokenizer(TINY, lower_case=True, offsets="normalized")
    _, begin, end = tok.tokenize_with_offsets(["ÉÉ straße"])
    # normalized: "ee strasse"; "ee" is e + ##e, "strasse" one piece.
    assert begin.to_list() == [[[0, 1], [3]]]
    assert end.to_list() == [[[1, 2], [10]]]


@pytest.mark.parametrize(
    "shape_input, leading_shape",
    [
        ("hello world", [1]),  # a scalar gives [1, words, pieces], as in tensorflow_text
        (["hello", "world !"], [2]),
        ([["hello", "world"], ["!", ""]], [2, 2]),
    ],
)
def test_rank_policy(shape_input, leading_shape):
    tok = twp.BertTokenizer(TINY, lower_case=True)
    out = tok.tokenize(shape_input)
    assert out.shape.rank == len(leading_shape) + 2
    assert out.shape.as_list()[: len(leading_shape)] == leading_shape
    flat = tf.reshape(tf.constant(shape_input), [-1])
    assert out.flat_values.numpy().tolist() == tok.tokenize(flat).flat_values.numpy().tolist()


def test_ragged_input_keeps_its_shape():
    tok = twp.BertTokenizer(TINY, lower_case=True)
    out = tok.tokenize(tf.ragged.constant([["hello"], ["world", "!"]]))
    assert out.to_list() == [[[[ID["hello"]]]], [[[ID["world"]]], [[ID["!"]]]]]


def test_empty_batch():
    tok = twp.BertTokenizer(TINY, lower_case=True)
    ids, begin, end = tok.tokenize_with_offsets(tf.constant([], tf.string))
    assert ids.shape.as_list()[0] == 0 and begin.shape.as_list()[0] == 0


def test_basic_and_wordpiece_stages_compose():
    tok = twp.BertTokenizer(TINY, lower_case=True, token_out_type=tf.string)
    words = tok.basic_tokenizer.tokenize(["Hello worlds!"])
    assert words.to_list() == [[b"hello", b"worlds", b"!"]]
    pieces = tok.wordpiece_tokenizer.tokenize(words)
    assert pieces.to_list() == tok.tokenize(["Hello worlds!"]).to_list()


def test_too_long_words_are_unknown():
    tok = twp.BertTokenizer(TINY, max_bytes_per_word=3, token_out_type=tf.string)
    assert tok.tokenize(["aaa aaaa"]).to_list() == [[[b"a", b"##a", b"##a"], [b"[UNK]"]]]
    # The limit applies to whole-word vocabulary entries too.
    assert tok.tokenize(["hello"]).to_list() == [[[b"[UNK]"]]]
    hf = twp.BertTokenizer(TINY, compat="hf", max_input_chars_per_word=2, token_out_type=tf.string)
    assert hf.tokenize(["ee eee"]).to_list() == [[[b"e", b"##e"], [b"[UNK]"]]]


def test_detokenize_joins_pieces():
    tok = twp.BertTokenizer(TINY, lower_case=True)
    ids = tok.tokenize(["Hello unaffable worlds!"])
    assert tok.detokenize(ids.merge_dims(-2, -1)).to_list() == [[b"hello", b"unaffable", b"worlds", b"!"]]
    dense = tf.constant([[ID["un"], ID["##aff"], ID["##able"], 999]])
    assert tok.detokenize(dense).to_list() == [[b"unaffable", b"[UNK]"]]


def test_preserve_unused_token():
    vocab = TINY + ["[unused7]"]
    tok = twp.BertTokenizer(vocab, lower_case=True, preserve_unused_token=True, token_out_type=tf.string)
    assert tok.tokenize(["a [unused7] [ unused7 ]"]).to_list() == [[[b"a"], [b"[unused7]"], [b"["], [b"[UNK]"], [b"]"]]]


def test_keep_whitespace():
    tok = twp.BertTokenizer(TINY + [" "], keep_whitespace=True, token_out_type=tf.string)
    assert tok.tokenize(["a  a"]).to_list() == [[[b"a"], [b"[UNK]"], [b"a"]]]


def test_from_tokenizer_json_matches_vocab(vocab_path):
    from helpers.data import TOKENIZER_JSON

    from_json = twp.BertTokenizer.from_tokenizer_json(TOKENIZER_JSON)
    from_vocab = twp.BertTokenizer(vocab_path, compat="hf", lower_case=True)
    text = ["Hello [MASK] Wörld, 日本語 ß ﬁ", ""]
    assert from_json.tokenize(text).to_list() == from_vocab.tokenize(text).to_list()
    assert from_json.special_tokens == ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


# --- scalars and Python lists at tokenize / encode / decode (issue 18, fault 9) -------------------------------

BERT_VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "hello", "world", "!", ",", "##s"]


def test_bert_scalar_shape_is_the_peers_in_tf_text_mode():
    text = pytest.importorskip("tensorflow_text")
    vocab = tf.lookup.StaticVocabularyTable(
        tf.lookup.KeyValueTensorInitializer(BERT_VOCAB, tf.range(len(BERT_VOCAB), dtype=tf.int64)), 1
    )
    peer = text.BertTokenizer(vocab)
    ours = twp.BertTokenizer(BERT_VOCAB, offsets="normalized")
    for got, want in zip(ours.tokenize_with_offsets("hello worlds!"), peer.tokenize_with_offsets("hello worlds!")):
        assert got.shape.rank == want.shape.rank == 3
        assert got.to_list() == want.to_list()
    assert ours.basic_tokenizer.tokenize("hello worlds!").to_list() == [[b"hello", b"worlds", b"!"]]
    graph = tf.function(ours.tokenize)(tf.constant("hello"))
    assert graph.to_list() == [[[4]]]
    hf = twp.BertTokenizer(BERT_VOCAB, compat="hf")
    assert hf.tokenize("hello worlds").to_list() == [[4], [5, 8]]  # HF has no tensors: one row


def test_bert_decode_scalar_and_python_lists():
    tok = twp.BertTokenizer(BERT_VOCAB, compat="hf", lower_case=True)
    ids = tok.encode("hello worlds!").ids
    assert ids.shape.rank == 1
    assert tok.decode(ids).numpy() == b"hello worlds!"
    assert tok.decode(ids.numpy().tolist()).numpy() == b"hello worlds!"
    assert tok.decode([[2, 4, 3], [5]]).numpy().tolist() == [b"hello", b"world"]  # ragged Python lists
    assert tok.encode(["hello", "world"]).ids.to_list() == [[2, 4, 3], [2, 5, 3]]
    assert tok.decode([4, 8, 6], skip_special_tokens=False).numpy().decode() == "hellos!"
    assert tok.detokenize([[4, 8], [5]]).to_list() == [[b"hellos"], [b"world"]]


# --- bad input ---------------------------------------------------------------------------------


def test_missing_vocab_file(tmp_path):
    missing = tmp_path / "nope.txt"
    with pytest.raises(FileNotFoundError, match="nope.txt.*does not exist"):
        twp.BertTokenizer(str(missing))


@pytest.mark.parametrize(
    "data, message",
    [
        (b"", "is empty; a vocabulary needs at least the unknown token"),
        (b"\x00" * 4096, r"is not a text file \(it holds NUL bytes"),
        (b"PK\x03\x04\x14\x00\x08\x00" + bytes(range(256)) * 8, r"is not a text file \(it holds NUL bytes"),
        (bytes(range(1, 32)) * 64 + b"\n", r"is not a text file \(it holds control bytes"),
        ("[UNK]\ncafé\n".encode("latin1"), "is not UTF-8 text: line 2 holds the byte 0xe9.*iconv -f latin1"),
    ],
    ids=["empty", "nul-bytes", "zip", "controls", "latin1"],
)
def test_vocab_files_that_are_not_vocabularies_say_what_they_are(tmp_path, data, message):
    path = tmp_path / "vocab.txt"
    path.write_bytes(data)
    with pytest.raises(ValueError, match=message) as info:
        twp.BertTokenizer(str(path))
    assert "most of its lines hold spaces" not in str(info.value)
    if b"\x00" in data or data[:1] == b"\x01":
        assert "iconv" not in str(info.value)  # binary: converting its encoding would not help


def test_a_nul_token_alone_on_its_line_is_text(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_bytes(b"[UNK]\n\x00\nhello\n")
    assert twp.BertTokenizer(str(path)).vocab.tokens == ["[UNK]", "\x00", "hello"]


def test_an_empty_list_is_named_as_such(vocab_path):
    tok = twp.BertTokenizer(vocab_path)
    for call in (tok.tokenize, tok.tokenize_with_offsets):
        with pytest.raises(ValueError, match="strings: the list is empty") as info:
            call([])
        assert "float32" not in str(info.value)
    assert tok.tokenize(tf.constant([], tf.string)).shape[0] == 0  # the empty batch it suggests works


@pytest.mark.parametrize(
    "content, message",
    [
        ("", "is empty"),
        ("hello\nworld\n", r"lacks \['\[UNK\]'\]"),
        ("[UNK]\nhello\nhello\n", "duplicate token.*'hello' at ids 1 and 2"),
    ],
)
def test_bad_vocab_file(tmp_path, content, message):
    path = tmp_path / "vocab.txt"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ValueError, match=message) as info:
        twp.BertTokenizer(str(path))
    assert "vocab.txt" in str(info.value)


def test_vocab_file_not_utf8(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_bytes(b"[UNK]\n\xff\xfe\n")
    with pytest.raises(ValueError, match="vocab.txt is not UTF-8 text: line 2 holds the byte 0xff at byte offset 0; "):
        twp.BertTokenizer(str(path))


def test_vocab_file_with_crlf(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_bytes(b"[UNK]\r\nhello\r\n")
    tok = twp.BertTokenizer(str(path), token_out_type=tf.string)
    assert tok.tokenize(["hello"]).to_list() == [[[b"hello"]]]


def test_vocab_table_input():
    table = tf.lookup.StaticHashTable(
        tf.lookup.KeyValueTensorInitializer(TINY, tf.range(len(TINY), dtype=tf.int64)), default_value=-1
    )
    tok = twp.BertTokenizer(table, lower_case=True)
    assert tok.tokenize(["hello"]).to_list() == [[[ID["hello"]]]]


@pytest.mark.parametrize("bad", [[1, 2, 3], tf.constant([1.0]), 3])
def test_non_string_input_is_type_error(bad):
    tok = twp.BertTokenizer(TINY)
    with pytest.raises(TypeError, match="strings"):
        tok.tokenize(bad)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(compat="spacy"), "compat: expected one of"),
        (dict(offsets="chars"), "offsets: expected one of"),
        (dict(compat="tf_text", strip_accents=True), "strip_accents=True: only for compat='hf'"),
        (dict(compat="hf", keep_whitespace=True), "keep_whitespace=True: only for compat='tf_text'"),
        (dict(lower_case=True, normalization_form="NFKD"), "lower_case=True already applies NFD"),
        (dict(normalization_form="NFX"), "normalization_form: expected one of"),
        (dict(lower_case=True, normalization_form="NFKC"), "lower_case=True already applies NFD"),
        (dict(unknown_token="<unk>"), "lacks"),
        (dict(special_tokens=["<s>"]), "special_tokens"),
        (dict(token_out_type=tf.float32), "token_out_type"),
    ],
)
def test_bad_arguments(kwargs, message):
    with pytest.raises((ValueError, TypeError), match=message):
        twp.BertTokenizer(TINY, **kwargs)


def test_vocab_of_wrong_type():
    with pytest.raises(TypeError, match="vocab"):
        twp.BertTokenizer(42)
    with pytest.raises(TypeError, match="every token must be a str"):
        twp.BertTokenizer(["[UNK]", 3])


def test_tokens_given_as_utf8_bytes_are_taken_as_tensorflow_text_takes_them():
    as_bytes = twp.BertTokenizer([t.encode("utf-8") for t in TINY])
    assert as_bytes.vocab.tokens == list(TINY)
    with pytest.raises(ValueError, match=r"token b'\\xff' is not UTF-8.*fix or drop it"):
        twp.BertTokenizer(["[UNK]", b"\xff"])


def test_negative_ids_in_detokenize():
    tok = twp.BertTokenizer(TINY)
    with pytest.raises(tf.errors.InvalidArgumentError, match="ids must be >= 0"):
        tok.detokenize(tf.constant([[-1]]))


def test_vocabulary_without_suffix_pieces_in_a_graph():
    """Regression: a vocabulary with no "##" pieces once failed to trace (int32/int64 mix)."""
    tok = twp.BertTokenizer(["[UNK]", "a", "b", "ab"], token_out_type=tf.string)
    tokenize = tf.function(tok.tokenize, input_signature=[tf.TensorSpec([None], tf.string)])
    assert tokenize(tf.constant(["ab ba a"])).to_list() == [[[b"ab"], [b"[UNK]"], [b"a"]]]


@pytest.mark.parametrize("compat", ["tf_text", "hf"])
def test_tokenize_graph_stays_small(compat):
    # Each instantiation of the function (every new tf.data iterator, every epoch) pays for each node of
    # the traced graph before Grappler prunes it: RaggedTensor.value_rowids() alone was ~70 nodes a call.
    tok = twp.BertTokenizer(TINY, compat=compat)
    graph = tf.function(tok.tokenize).get_concrete_function(tf.TensorSpec([None], tf.string)).graph
    value_rowids = [n.name for n in graph.as_graph_def().node if "RaggedValueRowIds" in n.name]
    assert not value_rowids, f"use shapes.value_rows: {value_rowids[:3]}"
    assert len(graph.as_graph_def().node) < 1000


def test_bucketed_table_without_the_unknown_token_is_accepted_by_both_layers():
    """The vocabulary (not the raw argument) says whether OOV buckets give the unknown token an id."""
    text = pytest.importorskip("tensorflow_text")
    tokens = ["hello", "##s", "world"]
    init = tf.lookup.KeyValueTensorInitializer(tokens, tf.range(len(tokens), dtype=tf.int64))
    table = tf.lookup.StaticVocabularyTable(init, num_oov_buckets=3)
    words = ["hellos", "zzz"]
    ours = twp.BertTokenizer(table, unknown_token="[UNK]").tokenize(words).to_list()
    wordpiece = twp.WordpieceTokenizer(table, unknown_token="[UNK]").tokenize(words).to_list()
    peer = text.BertTokenizer(table, unknown_token="[UNK]").tokenize(words).to_list()
    assert ours == peer
    assert [sum(row, []) for row in ours] == wordpiece
    assert ours[1][0][0] == int(table.lookup(tf.constant("[UNK]")))  # the bucket of "[UNK]"


def test_each_mode_takes_its_recipes_options_only():
    hf = twp.BertTokenizer(TINY, compat="hf", clean_text=False, keep_whitespace=False)  # the other mode's default
    assert hf.recipe == twp.HfRecipe(clean_text=False)
    assert twp.BertTokenizer(TINY).recipe == twp.TfTextRecipe()
    with pytest.raises(ValueError, match="clean_text=False: only for compat='hf'; drop it or pass compat='hf'"):
        twp.BertTokenizer(TINY, clean_text=False)
    with pytest.raises(TypeError, match="lowercase: not an option of BertTokenizer"):
        twp.BertTokenizer(TINY, lowercase=True)
    with pytest.raises(ValueError, match="compat: expected one of"):
        twp.BertTokenizer(TINY, compat="t2t")
