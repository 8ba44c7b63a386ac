"""CustomTokenizer and the converter export: the tutorial's signatures, serving, BERT inputs, portability."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import tensorflow as tf

from helpers.child import run_python
from helpers.data import VOCAB
from tf_wordpiece.bert.packing import round_robin_lengths
from tf_wordpiece.export import converter
from tf_wordpiece.export.module import CustomTokenizer, TutorialTokenizer

text = pytest.importorskip("tensorflow_text")

RESERVED = ["[PAD]", "[UNK]", "[START]", "[END]"]


@pytest.fixture(scope="module")
def tutorial_vocab(tmp_path_factory) -> str:
    """bert-base-uncased with [unused0]/[unused1] renamed to the tutorial's [START]/[END]."""
    tokens = VOCAB.read_text(encoding="utf-8").splitlines()
    tokens[tokens.index("[unused0]")], tokens[tokens.index("[unused1]")] = "[START]", "[END]"
    path = tmp_path_factory.mktemp("vocab") / "vocab.txt"
    path.write_text("\n".join(tokens) + "\n", encoding="utf-8")
    return str(path)


@pytest.fixture(scope="module")
def english() -> list[str]:
    return [en for _, en in converter.embedded_pairs()]


@pytest.fixture(scope="module")
def module(tutorial_vocab) -> CustomTokenizer:
    return CustomTokenizer(RESERVED, tutorial_vocab, lower_case=True, seq_length=16)


def cleanup_text(reserved_tokens, token_txt):
    """The tutorial's cleanup, verbatim in spirit: drop reserved tokens but [UNK], join words."""
    bad = "|".join(re.escape(t) for t in reserved_tokens if t != "[UNK]")
    keep = ~tf.strings.regex_full_match(token_txt, bad)
    return tf.strings.reduce_join(tf.ragged.boolean_mask(token_txt, keep), separator=" ", axis=-1)


def test_matches_tensorflow_text_on_the_pt_en_sample(module, tutorial_vocab, english):
    peer = text.BertTokenizer(tutorial_vocab, lower_case=True)
    start, end = module._start, module._end
    both = english + [pt for pt, _ in converter.embedded_pairs()]
    for i in range(0, len(both), 2000):
        batch = tf.constant(both[i : i + 2000])
        ids = module.tokenize(batch)
        words = peer.tokenize(batch).merge_dims(-2, -1)
        expected = [[start, *row, end] for row in words.to_list()]
        assert ids.to_list() == expected
        assert module.detokenize(ids).numpy().tolist() == cleanup_text(RESERVED, peer.detokenize(ids)).numpy().tolist()


def test_signatures(module):
    ids = module.tokenize(tf.constant(["Hello TensorFlow!", ""]))
    assert module.detokenize(ids.to_tensor()).numpy().tolist() == [b"hello tensorflow !", b""]
    assert module.lookup(ids).to_list()[0] == [b"[START]", b"hello", b"tensor", b"##flow", b"!", b"[END]"]
    assert int(module.get_vocab_size()) == 30522
    assert module.get_reserved_tokens().numpy().tolist() == [t.encode() for t in RESERVED]
    served = module.serving(tf.constant(["Hello", "Hello TensorFlow!"]))
    assert served["lengths"].numpy().tolist() == [3, 6]
    assert served["token_ids"].numpy()[0].tolist() == ids.to_list()[0][:1] + [7592] + ids.to_list()[0][-1:] + [0] * 3


def test_special_ids_are_the_tokenizers(module):
    ids = module.tokenizer.token_to_id
    assert (module._start, module._end, module._pad) == (ids("[START]"), ids("[END]"), ids("[PAD]")) == (1, 2, 0)
    assert (module._cls, module._sep) == (ids("[CLS]"), ids("[SEP]")) == (101, 102)


@pytest.mark.parametrize("seq_length", [5, 16, 40])
def test_hf_bert_inputs_are_what_encode_gave(tutorial_vocab, seq_length):
    """compat="hf" packs with FixedLengthTemplate (longest first), as the old `encode`-based packing did."""
    module = CustomTokenizer(RESERVED, tutorial_vocab, compat="hf", lower_case=True, seq_length=seq_length)
    pairs = converter.embedded_pairs()[:300] + [("", ""), ("[CLS] [SEP] [PAD]", "a " * 60), ("x " * 50, "")]
    first, second = (tf.constant([pair[i] for pair in pairs]) for i in (0, 1))
    names = {"input_word_ids": "ids", "input_type_ids": "type_ids", "input_mask": "attention_mask"}
    for args, packed in (
        ((first,), module.bert_pack_inputs(first)),
        ((first, second), module.bert_pack_pair_inputs(first, second)),
    ):
        old = module.tokenizer.encode(
            *args, truncation="longest_first", max_length=seq_length, padding="max_length"
        )  # the template from the vocabulary's [CLS]/[SEP]/[PAD], as the old CustomTokenizer gave encode
        for name, field in names.items():
            assert packed[name].numpy().tolist() == getattr(old, field).numpy().tolist(), name


def test_bert_inputs(module):
    seven, two, ten = "one two three four five six seven", "eight nine", " ".join(["ten"] * 10)
    packed = module.bert_pack_pair_inputs(tf.constant([seven, seven]), tf.constant([two, ten]))
    assert {k: v.shape.as_list() for k, v in packed.items()} == {k: [2, 16] for k in packed}
    ids, mask, types = (packed[k].numpy().tolist() for k in ("input_word_ids", "input_mask", "input_type_ids"))
    # [CLS] 7 [SEP] 2 [SEP] fits; with 10 the 13-token budget is shared round robin: 7 and 6.
    assert mask == [[1] * 12 + [0] * 4, [1] * 16]
    assert types == [[0] * 9 + [1] * 3 + [0] * 4, [0] * 9 + [1] * 7]
    assert ids[1][0] == module._cls and ids[1][8] == module._sep and ids[1][15] == module._sep
    assert ids[0][12:] == [0, 0, 0, 0]
    single = module.bert_pack_inputs(tf.constant([ten + " " + ten]))["input_word_ids"].numpy()[0].tolist()
    assert single[0] == module._cls and single[-1] == module._sep and len(single) == 16


@pytest.mark.parametrize("budget", [0, 1, 2, 5, 8, 13])
def test_round_robin_trim_matches_tensorflow_text(budget):
    rng = np.random.default_rng(budget)
    segments = [
        tf.ragged.constant([list(range(n)) for n in rng.integers(0, 9, size=12)], dtype=tf.int64) for _ in range(2)
    ]
    ours = round_robin_lengths(segments, budget).numpy().T.tolist()
    theirs = text.RoundRobinTrimmer(max_seq_length=budget).trim(segments)
    assert ours == [t.row_lengths().numpy().tolist() for t in theirs]


def test_saved_model_moves_loads_without_tensorflow_text_and_has_core_ops_only(module, tmp_path):
    first = tmp_path / "first" / "tokenizer"
    converter.save_atomically(module, str(first), signatures=module.signatures())
    moved = tmp_path / "moved"
    shutil.move(str(first), str(moved))
    child = textwrap.dedent(
        """
        import json
        import tensorflow as tf
        from tensorflow.core.protobuf import saved_model_pb2
        path = sys.argv[1]
        m = tf.saved_model.load(path)
        ids = m.tokenize(tf.constant(["Hello TensorFlow!"]))
        proto = saved_model_pb2.SavedModel()
        proto.ParseFromString(open(path + "/saved_model.pb", "rb").read())
        graph = proto.meta_graphs[0].graph_def
        ops = {n.op for n in graph.node} | {n.op for f in graph.library.function for n in f.node_def}
        functions = {f.signature.name for f in graph.library.function}
        serve = m.signatures["serving_default"](tf.constant(["Hello"]))
        print(json.dumps({
            "ids": ids.to_list(),
            "detok": m.detokenize(ids).numpy()[0].decode(),
            "dense_detok": m.detokenize(ids.to_tensor()).numpy()[0].decode(),
            "lookup": [t.decode() for t in m.lookup(ids).to_list()[0]],
            "dense_lookup": [t.decode() for t in m.lookup(ids.to_tensor()).numpy()[0]],
            "reserved": [t.decode() for t in m.get_reserved_tokens().numpy()],
            "pair": m.signatures["bert_pack_pair_inputs"](first=tf.constant(["Hello"]), second=tf.constant(["!"]))[
                "input_type_ids"].numpy()[0][:6].tolist(),
            "vocab_path": m.get_vocab_path().numpy().decode(),
            "size": int(m.get_vocab_size()),
            "serving": serve["token_ids"].numpy().tolist(),
            "bert": m.signatures["bert_pack_inputs"](tf.constant(["Hello"]))["input_word_ids"].numpy()[0][:4].tolist(),
            "not_core": sorted(op for op in ops - functions if not hasattr(tf.raw_ops, op)),
            "tensorflow_text": sys.modules.get("tensorflow_text") is not None,
        }))
        """
    )
    runs = {}
    for mode, without in (("installed", []), ("blocked", ["tensorflow_text"])):  # importable but never imported; not
        runs[mode] = run_python(child, moved, without=without)
    assert runs["installed"] == runs["blocked"]
    got = runs["blocked"]
    want = module.tokenize(tf.constant(["Hello TensorFlow!"])).to_list()
    assert got["ids"] == want
    assert got["detok"] == got["dense_detok"] == "hello tensorflow !"
    assert got["lookup"] == got["dense_lookup"] == ["[START]", "hello", "tensor", "##flow", "!", "[END]"]
    assert got["reserved"] == RESERVED
    assert got["pair"] == [0, 0, 0, 1, 1, 0]
    assert got["vocab_path"].startswith(str(moved)) and os.path.isfile(got["vocab_path"])
    assert got["size"] == 30522 and got["not_core"] == [] and got["tensorflow_text"] is False
    assert got["serving"] == [[module._start, 7592, module._end]]
    assert got["bert"] == [module._cls, 7592, module._sep, 0]


def test_saved_model_cli_and_tf_data(module, tmp_path, english):
    path = tmp_path / "served"
    converter.save_atomically(module, str(path), signatures=module.signatures())
    cli = shutil.which("saved_model_cli", path=os.path.dirname(sys.executable)) or shutil.which("saved_model_cli")
    show = subprocess.run([cli, "show", "--dir", str(path), "--all"], capture_output=True, text=True, timeout=300)
    assert show.returncode == 0 and "serving_default" in show.stdout and "bert_pack_pair_inputs" in show.stdout
    run = subprocess.run(
        [
            cli,
            "run",
            "--dir",
            str(path),
            "--tag_set",
            "serve",
            "--signature_def",
            "serving_default",
            "--input_exprs",
            "strings=['Hello']",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    token_ids = run.stdout.split("output key token_ids:")[1]
    assert [int(x) for x in re.findall(r"\d+", token_ids)] == [module._start, 7592, module._end]

    loaded = tf.saved_model.load(str(path))
    dataset = (
        tf.data.Dataset.from_tensor_slices(english).batch(256).map(loaded.tokenize, num_parallel_calls=tf.data.AUTOTUNE)
    )
    from_data = [row for batch in dataset for row in batch.to_list()]
    assert from_data == module.tokenize(tf.constant(english)).to_list()


def test_bad_input(tutorial_vocab, module, tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        CustomTokenizer(RESERVED, str(tmp_path / "missing.txt"))
    with pytest.raises(ValueError, match=r"lacks \['\[END\]'\]"):
        CustomTokenizer(["[PAD]", "[UNK]", "[START]"], tutorial_vocab)
    with pytest.raises(ValueError, match=r"\['\[MASK2\]'\] not in the vocab file"):
        CustomTokenizer(RESERVED + ["[MASK2]"], tutorial_vocab)
    with pytest.raises(tf.errors.InvalidArgumentError, match="vocabulary size"):
        module.lookup(tf.constant([[30522]], tf.int64))
    with pytest.raises(tf.errors.InvalidArgumentError, match=">= 0"):
        module.detokenize(tf.ragged.constant([[-1]], dtype=tf.int64))


def test_export_command_is_atomic_and_refuses_to_overwrite(tmp_path, capsys):
    from tf_wordpiece.cli import main

    pairs = converter.embedded_pairs()[:400]
    corpus = tmp_path / "pairs.tsv"
    corpus.write_text("\n".join(f"{pt}\t{en}" for pt, en in pairs) + "\n", encoding="utf-8")
    out = tmp_path / "converter"
    assert main(["export", "--input", str(corpus), "--out", str(out), "--vocab-size", "400", "--no-zip"]) == 0
    printed = capsys.readouterr().out
    assert "detokenized: hello tensorflow !" in printed
    before = sorted(p.name for p in out.iterdir())
    assert main(["export", "--input", str(corpus), "--out", str(out), "--vocab-size", "400"]) == 2
    assert "--out: " in (err := capsys.readouterr().err) and "already holds a SavedModel; pass --overwrite" in err
    assert sorted(p.name for p in out.iterdir()) == before
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no staging left behind
    bad = tmp_path / "bad.tsv"
    bad.write_text("only one field\n", encoding="utf-8")
    assert main(["export", "--input", str(bad), "--out", str(tmp_path / "x")]) == 2
    assert "expected 2" in capsys.readouterr().err and not (tmp_path / "x").exists()


RARE = "zqxjvocabcopies"


@pytest.mark.parametrize("core", ["string", "numeric"])
def test_saved_model_holds_the_vocabulary_in_the_asset_and_one_token_tensor(tmp_path, core):
    """A rare token's bytes occur twice in the saved files: in the vocab.txt asset and in the one token tensor
    that lookup, detokenize, get_vocab_size and the graph's lookup tables (made when the model loads) read."""
    tokens = RESERVED + ["[CLS]", "[SEP]", "hello", "##lo", RARE, "##" + RARE[:6]]
    module = CustomTokenizer(RESERVED, tokens, vocab_file=tmp_path / "vocab.txt", core=core, seq_length=8)
    out = tmp_path / "model"
    converter.save_atomically(module, str(out), signatures=module.signatures())
    counts = {str(f.relative_to(out)): f.read_bytes().count(RARE.encode()) for f in out.rglob("*") if f.is_file()}
    assert counts.pop("assets/vocab.txt") == 1
    assert sum(counts.values()) == 1, counts
    loaded = tf.saved_model.load(str(out))
    ids = loaded.tokenize(tf.constant([f"hellolo {RARE}{RARE[:6]}"]))
    assert ids.to_list() == [[2, 6, 7, 8, 9, 3]]
    assert loaded.lookup(ids).to_list()[0][1:-1] == [b"hello", b"##lo", RARE.encode(), b"##" + RARE[:6].encode()]
    assert loaded.detokenize(ids).numpy().tolist() == [f"hellolo {RARE}{RARE[:6]}".encode()]
    assert int(loaded.get_vocab_size()) == len(tokens)
    assert loaded.get_vocab_path().numpy().decode().endswith("vocab.txt")


def test_converter_from_lists_writes_its_assets_where_told(tmp_path):
    pt, en = ["[PAD]", "[UNK]", "[START]", "[END]", "olá"], ["[PAD]", "[UNK]", "[START]", "[END]", RARE]
    with pytest.raises(ValueError, match="vocab_dir: token lists need the folder"):
        converter.Converter(pt, en)
    module = converter.Converter(pt, en, vocab_dir=tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["en_vocab.txt", "pt_vocab.txt"]
    out = tmp_path / "model"
    converter.save_atomically(module, str(out), signatures=module.signatures())
    assert sorted(p.name for p in (out / "assets").iterdir()) == ["en_vocab.txt", "pt_vocab.txt"]
    assert sum(f.read_bytes().count(RARE.encode()) for f in out.rglob("*") if f.is_file()) == 2
    loaded = tf.saved_model.load(str(out))
    assert loaded.en.tokenize(tf.constant([RARE])).to_list() == [[2, 4, 3]]
    assert loaded.pt.get_vocab_path().numpy().decode().endswith("pt_vocab.txt")


@pytest.mark.parametrize("module_class", [TutorialTokenizer, CustomTokenizer])
@pytest.mark.parametrize(
    "vocab_path, error, message",
    [
        ("missing.txt", FileNotFoundError, r"^vocab_path: vocab file '.*missing\.txt' does not exist"),
        ("nul.txt", ValueError, r"^vocab_path: vocab file '.*nul\.txt' is not a text file \(it holds NUL bytes"),
        (RESERVED + ["hi", "hi"], ValueError, r"^vocab_path: the vocab list has 1 duplicate token: 'hi'"),
    ],
    ids=["missing", "binary", "duplicate"],
)
def test_vocabulary_errors_name_vocab_path(tmp_path, module_class, vocab_path, error, message):
    """The vocab reader's and BertTokenizer's errors say vocab_path, the modules' argument, not their own vocab."""
    (tmp_path / "nul.txt").write_bytes(b"\x00" * 100)
    from_file = isinstance(vocab_path, str)
    vocab_file = {} if from_file else {"vocab_file": tmp_path / "v.txt"}
    with pytest.raises(error, match=message):
        module_class(RESERVED, str(tmp_path / vocab_path) if from_file else vocab_path, **vocab_file)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["nul.txt"]


def test_a_token_list_needs_a_new_vocab_file(tmp_path):
    tokens = RESERVED + ["hi"]
    with pytest.raises(ValueError, match="vocab_file: a list of tokens needs the path"):
        TutorialTokenizer(RESERVED, tokens)
    (tmp_path / "mine.txt").write_text("[UNK]\nmine\n", encoding="utf-8")
    with pytest.raises(FileExistsError, match="vocab_file: .*mine.txt already exists"):
        TutorialTokenizer(RESERVED, tokens, vocab_file=tmp_path / "mine.txt")
    assert (tmp_path / "mine.txt").read_text(encoding="utf-8") == "[UNK]\nmine\n"
    with pytest.raises(ValueError, match="vocab_file: .* is for a list of tokens"):
        TutorialTokenizer(RESERVED, str(tmp_path / "mine.txt"), vocab_file=tmp_path / "other.txt")
    with pytest.raises(ValueError, match=r"reserved_tokens: \['\[END\]'\] not in the vocabulary"):
        TutorialTokenizer(RESERVED, ["[PAD]", "[UNK]", "[START]"], vocab_file=tmp_path / "v.txt")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.txt"]


def test_export_converter_errors_name_its_parameters(tmp_path):
    """The library's errors name its parameters (out_dir, pairs, tflite); the command line maps them to options."""
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "todo.txt").write_text("keep me")
    with pytest.raises(ValueError, match=r"^out_dir: .* is a folder that is not a SavedModel"):
        converter.export_converter(notes, [("olá", "hello")])
    with pytest.raises(ValueError, match=r"^pairs: no \(pt, en\) sentence pairs"):
        converter.export_converter(tmp_path / "model", [])
    with pytest.raises(ValueError, match=r"^tflite: the folder .* does not exist"):
        converter.export_converter(tmp_path / "model", [("olá", "hello")], tflite=tmp_path / "no" / "m.tflite")
    with pytest.raises(ValueError, match=r"^out_dir: .* and tfjs .* overlap"):
        converter.export_converter(tmp_path / "model", [("olá", "hello")], tfjs=tmp_path / "model" / "js")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes"]


@pytest.mark.parametrize(
    "call, error, message",
    [
        (
            lambda folder: converter.export_converter(folder / "model", [("olá", "hello")], core="bogus"),
            ValueError,
            r"^core: expected one of \['string', 'numeric', 'xla'\], got 'bogus'$",
        ),
        (
            lambda folder: converter.tsv_file_pairs([str(folder / "missing.tsv")]),
            FileNotFoundError,
            r"^paths: '.*missing\.tsv' does not exist; check the path$",
        ),
        (
            lambda folder: converter.tsv_file_pairs([str(folder)]),
            ValueError,
            r"^paths: cannot read '.*': Is a directory",
        ),
    ],
    ids=["unknown-core", "missing-tsv", "tsv-is-a-folder"],
)
def test_converter_errors_come_before_any_work(tmp_path, capsys, call, error, message):
    """An unknown core is refused before the vocabularies are learned; a missing TSV is a FileNotFoundError."""
    with pytest.raises(error, match=message):
        call(tmp_path)
    assert "learning vocabularies" not in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_the_string_cores_tokenize_graph_has_no_stateful_if_and_no_added_token_keys(tmp_path):
    """The exported converter's `tokenize` (string core) pays for no stateful `If` (a ragged constructor's
    Asserts inside a cond made one) and, without added tokens, for no added-token keys (docs/benchmarks.md:
    both cost the tutorial's pipeline CPU time on every batch)."""
    tokens = RESERVED + ["hello", "world", "!", "##s"]
    module = TutorialTokenizer(RESERVED, tokens, vocab_file=tmp_path / "vocab.txt", lower_case=True)
    graph = module.tokenize.get_concrete_function(tf.TensorSpec([None], tf.string)).graph.as_graph_def()
    ops = [n.op for n in graph.node] + [n.op for f in graph.library.function for n in f.node_def]
    assert "StatelessIf" in ops  # the conds are there, stateless
    assert "If" not in ops and "AsString" not in ops
    assert module.tokenize(tf.constant([b"Hello worlds! caf\xff"])).to_list() == [[2, 4, 5, 7, 6, 1, 3]]
