"""The contract (tests/helpers/contract.py) on the tokenizers that are not BertTokenizer / WordpieceTokenizer:
SubwordTextEncoder, KerasHubWordPiece, TutorialTokenizer, CustomTokenizer and the Keras layers.

Each runs eagerly, in tf.function, in tf.data and after a SavedModel round trip (the Keras layers: a .keras
file and model.export); decode / detokenize round trips; and construction inside a tf.function, or the
error that says why it cannot be. Every expected id below is worked out by hand from the tiny vocabulary.
"""

from __future__ import annotations

import pytest
import tensorflow as tf

from helpers.contract import (
    as_python,
    check_built_in_function,
    check_contract,
    check_every_way,
    check_keras_contract,
    check_text_contract,
)
from tf_wordpiece.bert.keras_hub_compat import KerasHubWordPiece
from tf_wordpiece.export.module import CustomTokenizer, TutorialTokenizer
from tf_wordpiece.subword.encoder import SubwordTextEncoder

# --- SubwordTextEncoder --------------------------------------------------------------------------

# t2t: id n is entry n. Every character of the alphabet and of "\\_u;0123456789" is a subtoken of its own.
SUBTOKENS = ["hello_", "world_", "!", "_", "\\", "u", ";", *"0123456789", *"helowrd "]
SUB = {t: i for i, t in enumerate(SUBTOKENS)}
SUBWORD_TEXTS = ["hello world!", "world hello", "hello_world", ""]
# A single space between two alphanumeric tokens is dropped; every token ends with "_", and "_" itself is
# escaped as "\\u"; the longest subtoken wins.
SUBWORD_IDS = [
    [SUB["hello_"], SUB["world_"], SUB["!"], SUB["_"]],
    [SUB["world_"], SUB["hello_"]],
    [SUB["hello_"], SUB["\\"], SUB["u"], SUB["_"], SUB["world_"]],
    [],
]


def test_subword_text_encoder_t2t(tmp_path):
    enc = SubwordTextEncoder(SUBTOKENS)
    ids = check_text_contract(
        enc.encode,
        SUBWORD_TEXTS,
        tmp_path,
        owner=enc,
        detokenize=enc.decode,
        round_trip="exact",
        build=lambda: SubwordTextEncoder(SUBTOKENS),
        build_call=lambda obj, s: obj.encode(s),
    )
    assert ids.to_list() == SUBWORD_IDS
    # The Tokenizer / Detokenizer names are the same functions.
    assert enc.tokenize(tf.constant(SUBWORD_TEXTS)).to_list() == SUBWORD_IDS
    assert enc.detokenize(ids).numpy().tolist() == [s.encode() for s in SUBWORD_TEXTS]


def test_subword_text_encoder_tfds(tmp_path):
    """tfds: subword n is id n + 1, then one id per UTF-8 byte (1 + 2 subwords + the byte), 0 is padding."""
    subwords = ["hello_", "world"]
    enc = SubwordTextEncoder(subwords, compat="tfds")
    texts = ["hello world!", "hello ", "!"]
    ids = check_text_contract(
        enc.encode,
        texts,
        tmp_path,
        owner=enc,
        detokenize=enc.decode,
        round_trip="exact",
        build=lambda: SubwordTextEncoder(subwords, compat="tfds"),
        build_call=lambda obj, s: obj.encode(s),
    )
    bang = 1 + len(subwords) + ord("!")
    assert ids.to_list() == [[1, 2, bang], [1], [bang]]


# --- KerasHubWordPiece ---------------------------------------------------------------------------

HUB_VOCAB = ["[UNK]", "the", "qu", "##ick", "fox", ".", "uber"]


def test_keras_hub_word_piece(tmp_path):
    """[batch] -> [batch, words, pieces]; a scalar -> [words, pieces]. No detokenize (keras-hub's is not offered)."""
    options = dict(lowercase=True, strip_accents=True)
    tok = KerasHubWordPiece(HUB_VOCAB, **options)
    ids = check_text_contract(
        tok.tokenize,
        ["The quick fox.", "Über", "", "zebra fox"],
        tmp_path,
        build=lambda: KerasHubWordPiece(HUB_VOCAB, **options),
    )
    assert ids.to_list() == [[[1], [2, 3], [4], [5]], [[6]], [], [[0], [4]]]


# --- TutorialTokenizer and CustomTokenizer -------------------------------------------------------

RESERVED = ["[PAD]", "[UNK]", "[START]", "[END]"]
MODULE_VOCAB = RESERVED + ["[CLS]", "[SEP]", "hello", "world", "!", "##s"]
START, END, CLS, SEP, HELLO, WORLD, BANG, S = 2, 3, 4, 5, 6, 7, 8, 9
MODULE_TEXTS = ["Hello Worlds!", "", "hello zebra"]
MODULE_IDS = [[START, HELLO, WORLD, S, BANG, END], [START, END], [START, HELLO, 1, END]]
# detokenize: pieces rejoined, reserved tokens but [UNK] dropped, words joined by one space.
MODULE_TEXT = ["hello worlds !", "", "hello [UNK]"]


@pytest.fixture
def vocab_file(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("".join(f"{t}\n" for t in MODULE_VOCAB), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("cls", [TutorialTokenizer, CustomTokenizer])
def test_tutorial_and_custom_tokenizer(tmp_path, vocab_file, cls):
    """`tokenize` takes [batch] only (its input signature), so no scalar input."""
    tok = cls(RESERVED, vocab_file, lower_case=True)
    ids = check_text_contract(
        tok.tokenize,
        MODULE_TEXTS,
        tmp_path,
        owner=tok,
        detokenize=tok.detokenize,
        round_trip=MODULE_TEXT,
        scalar=False,
        build=lambda: cls(RESERVED, vocab_file, lower_case=True),  # no tf.Variable: they build inside a tf.function
    )
    assert ids.to_list() == MODULE_IDS
    assert as_python(check_every_way(tok.lookup, ids, tmp_path, owner=tok, name="lookup"))[0] == [
        b"[START]",
        b"hello",
        b"world",
        b"##s",
        b"!",
        b"[END]",
    ]

    # Their own SavedModel (the module itself, as `tf-wordpiece export` saves it) reloads with the same answers.
    tf.saved_model.save(tok, str(tmp_path / "module"))
    loaded = tf.saved_model.load(str(tmp_path / "module"))
    assert loaded.tokenize(tf.constant(MODULE_TEXTS)).to_list() == MODULE_IDS
    assert loaded.detokenize(ids).numpy().tolist() == [s.encode() for s in MODULE_TEXT]


def test_custom_tokenizer_bert_inputs(tmp_path, vocab_file):
    tok = CustomTokenizer(RESERVED, vocab_file, lower_case=True, seq_length=6)
    texts = ["Hello Worlds!", "", "hello hello hello hello hello"]
    single = check_text_contract(tok.bert_pack_inputs, texts, tmp_path, owner=tok, scalar=False)
    assert single["input_word_ids"].numpy().tolist() == [
        [CLS, HELLO, WORLD, S, BANG, SEP],
        [CLS, SEP, 0, 0, 0, 0],
        [CLS, HELLO, HELLO, HELLO, HELLO, SEP],
    ]
    assert single["input_mask"].numpy().tolist() == [[1] * 6, [1, 1, 0, 0, 0, 0], [1] * 6]
    assert single["input_type_ids"].numpy().tolist() == [[0] * 6] * 3

    # Round robin: 3 tokens between [CLS] and two [SEP]s; "hello world" keeps 2, "worlds!" 1.
    first, second = tf.constant(["hello world", "!"]), tf.constant(["worlds!", ""])
    pair = check_every_way(tok.bert_pack_pair_inputs, (first, second), tmp_path, owner=tok, name="pair")
    assert pair["input_word_ids"].numpy().tolist() == [
        [CLS, HELLO, WORLD, SEP, WORLD, SEP],
        [CLS, BANG, SEP, SEP, 0, 0],
    ]
    assert pair["input_type_ids"].numpy().tolist() == [[0, 0, 0, 0, 1, 1], [0, 0, 0, 1, 0, 0]]
    assert pair["input_mask"].numpy().tolist() == [[1] * 6, [1, 1, 1, 1, 0, 0]]


# --- Keras layers --------------------------------------------------------------------------------

keras = pytest.importorskip("keras")
needs_keras_3 = pytest.mark.skipif(not keras.__version__.startswith("3."), reason="the layers need Keras 3")

LAYER_VOCAB = ["[UNK]", "hello", "world", "!", "##s"]
LAYER_TEXTS = ["Hello worlds!", "", "hello zebra"]
LAYER_IDS = [[1, 2, 4, 3], [], [1, 0]]


@needs_keras_3
@pytest.mark.parametrize("compat", ["tf_text", "hf", "keras_hub"])
@pytest.mark.parametrize("sequence_length", [None, 3])
def test_word_piece_tokenizer_layer(tmp_path, compat, sequence_length):
    """The Keras variant of the contract: a Keras model saved as .keras and exported, instead of a tf.Module."""
    from tf_wordpiece.keras_layers import WordPieceTokenizer

    options = dict(vocabulary=LAYER_VOCAB, lowercase=True, compat=compat, sequence_length=sequence_length)
    layer = WordPieceTokenizer(**options)
    ids = check_keras_contract(layer, tf.constant(LAYER_TEXTS), tmp_path, build=lambda: WordPieceTokenizer(**options))
    if sequence_length is None:
        assert ids.to_list() == LAYER_IDS
    else:
        assert ids.numpy().tolist() == [[1, 2, 4], [0, 0, 0], [1, 0, 0]]
    # A scalar string gives one row without the batch axis, in tf.data too.
    for i, row in enumerate(tf.data.Dataset.from_tensor_slices(tf.constant(LAYER_TEXTS)).map(layer)):
        assert as_python(row) == as_python(ids[i])


@needs_keras_3
def test_bert_inputs_packer_layer(tmp_path):
    from tf_wordpiece.keras_layers import BertInputsPacker

    options = dict(sequence_length=6, cls_id=CLS, sep_id=SEP)
    a = tf.ragged.constant([[6, 7], [8], []], tf.int64)
    b = tf.ragged.constant([[9], [6, 7, 8], []], tf.int64)
    out = check_keras_contract(BertInputsPacker(**options), [a, b], tmp_path, build=lambda: BertInputsPacker(**options))
    # 3 tokens between [CLS] and the two [SEP]s: both rows fit exactly.
    assert out["token_ids"].numpy().tolist() == [
        [CLS, 6, 7, SEP, 9, SEP],
        [CLS, 8, SEP, 6, 7, SEP],
        [CLS, SEP, SEP, 0, 0, 0],
    ]
    assert out["segment_ids"].numpy().tolist() == [[0, 0, 0, 0, 1, 1], [0, 0, 0, 1, 1, 1], [0, 0, 1, 0, 0, 0]]
    assert out["padding_mask"].numpy().tolist() == [[True] * 6, [True] * 6, [True] * 3 + [False] * 3]

    (tmp_path / "one").mkdir()
    one = check_keras_contract(BertInputsPacker(**options), a, tmp_path / "one")
    assert one["token_ids"].numpy().tolist() == [[CLS, 6, 7, SEP, 0, 0], [CLS, 8, SEP, 0, 0, 0], [CLS, SEP, 0, 0, 0, 0]]


def test_check_contract_covers_detokenize_and_building_in_a_function(tmp_path):
    """check_contract's own additions on a tiny BertTokenizer: detokenize every way, its expected words, and the
    tokenizer built inside a tf.function."""
    import tf_wordpiece as twp

    vocab = ["[UNK]", "hello", "world", "!", "##s"]
    tok = twp.BertTokenizer(vocab, lower_case=True)
    ids = check_contract(
        tok,
        ["Hello worlds!", "", "zebra"],
        tmp_path,
        detokenized=[[[b"hello"], [b"worlds"], [b"!"]], [], [[b"[UNK]"]]],  # [batch, words, 1], as tensorflow_text
        build=lambda: twp.BertTokenizer(vocab, lower_case=True),
    )
    assert ids.to_list() == [[[1], [2, 4], [3]], [], [[0]]]
    (tmp_path / "wrong").mkdir()
    with pytest.raises(AssertionError, match="detokenize"):
        check_contract(tok, ["Hello"], tmp_path / "wrong", detokenized=[[[b"Hello"]]])
    with pytest.raises(AssertionError, match="built inside"):
        check_built_in_function(
            lambda: twp.BertTokenizer(vocab),
            lambda t, s: t.tokenize(s),
            tf.constant(["!"]),
            tf.ragged.constant([[[0]]], tf.int64),
            "a wrong expectation",
        )
