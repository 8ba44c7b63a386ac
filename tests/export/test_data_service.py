"""The tutorial's tokenizing pipeline on a tf.data service cluster whose servers have only TensorFlow.

A dispatcher and two workers run as separate processes on localhost ports (examples/data_service/), in
which neither tf_wordpiece nor tensorflow_text can be imported. The exported converter is loaded from a
copy that is deleted before the pipeline runs, so the workers get everything from the dataset graph:
for the string core, its vocabulary tables travel as tables with their contents (`HashTableV2` plus
`LookupTableImportV2` of constants); for the numeric core, as constant tensors. Both give the local
pipeline's ids. What does not travel: ops the workers lack (tensorflow_text's), and tables initialized
from a file, which travel as the file's path (docs/deployment.md, "Scaling out").
"""

from __future__ import annotations

import collections
import pathlib
import shutil
import sys

import pytest
import tensorflow as tf
from tensorflow.core.framework import graph_pb2

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "examples" / "data_service"))

from local_cluster import LocalCluster  # noqa: E402
from tokenize_on_service import copies_of, example_rows, on_service, text_batches, tokenized_batches  # noqa: E402

from helpers.converters import exported_converter, sample_pairs  # noqa: E402

PAIRS = 300  # examples per pass: a few batches of 64, split between the workers


@pytest.fixture(scope="module")
def cluster():
    """Started first, so that its three processes import TensorFlow while the converter is exported."""
    cluster = LocalCluster(num_workers=2, unimportable=("tf_wordpiece", "tensorflow_text")).start()
    yield cluster
    cluster.stop()


@pytest.fixture(scope="module")
def string_converter(cluster, tmp_path_factory) -> pathlib.Path:
    return exported_converter(tmp_path_factory, "string")


@pytest.fixture(scope="module")
def numeric_converter(cluster, tmp_path_factory) -> pathlib.Path:
    return exported_converter(tmp_path_factory, "numeric")


def loaded_then_deleted(converter: pathlib.Path, tmp_path: pathlib.Path):
    """The converter loaded from a copy that no longer exists: nothing can read its files afterwards."""
    copy = tmp_path / "converter"
    shutil.copytree(converter, copy)
    tokenizers = tf.saved_model.load(str(copy))
    shutil.rmtree(copy)
    return tokenizers


def graph_ops(dataset: tf.data.Dataset) -> set[str]:
    """The op types of the graph that `distribute` sends to the service."""
    graph = graph_pb2.GraphDef()
    graph.ParseFromString(dataset._as_serialized_graph().numpy())  # the graph tf.data service serializes
    return {node.op for node in graph.node} | {node.op for f in graph.library.function for node in f.node_def}


@pytest.mark.parametrize("mode, split_by_batch", [("distributed_epoch", True), ("parallel_epochs", False)])
def test_the_string_core_travels_to_workers_without_tf_wordpiece(
    cluster, string_converter, tmp_path, mode, split_by_batch
):
    tokenizers = loaded_then_deleted(string_converter, tmp_path)
    local = tokenized_batches(tokenizers, sample_pairs()[:PAIRS], split_by_batch=split_by_batch)
    assert {"HashTableV2", "LookupTableImportV2"} <= graph_ops(local)  # the tables, contents and all
    want = example_rows(local)
    assert sum(want.values()) == PAIRS
    served = example_rows(on_service(local, cluster.target, mode))
    assert copies_of(served, want) == (1 if mode == "distributed_epoch" else 2), (
        f"{mode}: {sum(served.values())} rows, {len(set(served) - set(want))} of them not the local pipeline's"
    )


@pytest.mark.slow  # a second export, of the numeric core: half a minute on 2 busy cores
def test_the_numeric_core_travels_to_workers_without_tf_wordpiece(cluster, numeric_converter, tmp_path):
    tokenizers = loaded_then_deleted(numeric_converter, tmp_path)
    local = tokenized_batches(tokenizers, sample_pairs()[:PAIRS])
    assert not {op for op in graph_ops(local) if "Table" in op}  # constants only
    served = example_rows(on_service(local, cluster.target, "distributed_epoch"))
    assert copies_of(served, example_rows(local)) == 1


def test_a_table_read_from_a_file_travels_as_the_files_path(cluster, tmp_path):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("[PAD]\n[UNK]\nolá\nmundo\n", encoding="utf-8")
    table = tf.lookup.StaticHashTable(
        tf.lookup.TextFileInitializer(
            str(vocab), tf.string, tf.lookup.TextFileIndex.WHOLE_LINE, tf.int64, tf.lookup.TextFileIndex.LINE_NUMBER
        ),
        default_value=1,
    )
    words = tf.data.Dataset.from_tensor_slices(["olá", "mundo", "tchau"]).batch(3).map(table.lookup)
    assert "InitializeTableFromTextFileV2" in graph_ops(words)
    assert sorted(on_service(words, cluster.target, "parallel_epochs").unbatch().as_numpy_iterator()) == sorted(
        [2, 3, 1] * 2
    )
    vocab.unlink()  # the table is already built here, but the service builds it again from the path
    with pytest.raises(tf.errors.NotFoundError, match=r"vocab\.txt; No such file or directory"):
        list(on_service(words, cluster.target, "parallel_epochs"))


def test_tensorflow_text_ops_do_not_reach_these_workers(cluster, string_converter):
    """The control: a pipeline on tensorflow_text fails there, so the servers really lack it."""
    text = pytest.importorskip("tensorflow_text")
    vocab = string_converter / "assets" / "en_vocab.txt"
    tokenizer = text.BertTokenizer(str(vocab), lower_case=True)
    lines = tf.data.Dataset.from_tensor_slices([en for _, en in sample_pairs()[:8]]).batch(8)
    tokenized = lines.map(lambda en: tokenizer.tokenize(en).merge_dims(-2, -1).to_tensor())
    with pytest.raises(tf.errors.NotFoundError, match="Op type not registered 'CaseFoldUTF8'"):
        list(on_service(tokenized, cluster.target, "parallel_epochs"))


def test_one_split_per_batch_gives_the_tutorials_batches():
    pairs = sample_pairs()[:150]
    for batch_size in (64, 150, 200):
        tutorial = list(text_batches(pairs, batch_size=batch_size, split_by_batch=False).as_numpy_iterator())
        split_by_batch = list(text_batches(pairs, batch_size=batch_size).as_numpy_iterator())
        assert [len(pt) for pt, _ in split_by_batch] == [len(pt) for pt, _ in tutorial]
        for (pt, en), (want_pt, want_en) in zip(split_by_batch, tutorial, strict=True):
            assert pt.tolist() == want_pt.tolist() and en.tolist() == want_en.tolist()


def test_rows_compare_whatever_the_batching():
    """example_rows drops each batch's padding, so two splits of the same examples compare equal."""
    one = [(tf.constant([[2, 5, 3], [2, 3, 0]]), tf.constant([[2, 3], [2, 3]]))]
    two = [(tf.constant([[2, 3]]), tf.constant([[2, 3]])), (tf.constant([[2, 5, 3]]), tf.constant([[2, 3]]))]
    assert example_rows(one) == example_rows(two) == collections.Counter({((2, 5, 3), (2, 3)): 1, ((2, 3), (2, 3)): 1})
    assert copies_of(example_rows(one + one), example_rows(one)) == 2
    assert copies_of(example_rows(two[:1]), example_rows(one)) == 0


def test_bad_arguments_are_clear_errors(tmp_path, capsys):
    import tf_data_server
    import tokenize_on_service

    with pytest.raises(SystemExit, match="--converter: .*missing holds no SavedModel; write one with `tf-wordpiece"):
        tokenize_on_service.main(["--converter", str(tmp_path / "missing")])
    with pytest.raises(SystemExit):
        tf_data_server.parse_args(["dispatcher", "--port", "70000"])
    assert "--port: 70000 is not a port number" in capsys.readouterr().err
    with pytest.raises(ValueError, match="mode: expected one of"):
        tokenize_on_service.on_service(tf.data.Dataset.range(1), "grpc://localhost:1", "epochs")
    with pytest.raises(ValueError, match="num_workers: expected at least 1 worker, got 0"):
        LocalCluster(0)
    assert tf_data_server.parse_args(["worker", "--dispatcher", "grpc://h:5050"]).dispatcher == "h:5050"
