"""A BERT text classifier that takes raw strings: keras-hub's BertBackbone with tf_wordpiece's preprocessor in front.

    python examples/classifier/classifier.py --out classifier_out

builds a tiny `keras_hub.models.BertBackbone` (random weights, nothing downloaded) behind
`BertTextClassifierPreprocessor` (bert-base-uncased's vocabulary, lowercased, numeric core), trains it
for a few steps on a `tf.data` of (string, label) pairs (Portuguese or English? from the package's pt-en
sample), then writes it for every runtime, each holding tokenizer and model together:

    classifier_out/classifier.keras     Keras (reloads with tf_wordpiece and keras-hub installed)
    classifier_out/saved_model/         model.export(): TensorFlow, TF Serving, the C API; strings in
    classifier_out/classifier.tflite    TFLite, builtin ops only; UTF-8 bytes in
    classifier_out/tfjs/                TF.js graph model; UTF-8 bytes in (classify.mjs runs it in Node)

Quality is not the point (two minutes of CPU); the same logits in every runtime are.
"""

from __future__ import annotations

import argparse
import pathlib
import sys

from tf_wordpiece.console import DefaultsOnceHelpFormatter, import_tensorflow_quietly, runtime_lines_hidden

# TensorFlow's log lines (and the TFLite converter's) hidden as the command line hides them (a cuInit
# "E..." line on a machine without a GPU is no error of this script); TF_WORDPIECE_TF_LOGS=1 shows them.
tf = import_tensorflow_quietly()

import keras  # noqa: E402
import keras_hub  # noqa: E402
import numpy as np  # noqa: E402

from tf_wordpiece.export import keras_model  # noqa: E402
from tf_wordpiece.export.converter import embedded_pairs  # noqa: E402
from tf_wordpiece.keras_preprocessor import BertTextClassifierPreprocessor, TextModel  # noqa: E402

REPO = pathlib.Path(__file__).resolve().parents[2]
VOCAB = REPO / "tests/data/bert-base-uncased/vocab.txt"
LABELS = ("pt", "en")


def build_classifier(
    vocabulary,
    *,
    sequence_length: int = 64,
    num_classes: int = 2,
    num_layers: int = 2,
    hidden_dim: int = 32,
    num_heads: int = 2,
    intermediate_dim: int = 64,
    compat: str = "tf_text",
    core: str = "numeric",
    seed: int = 0,
) -> keras.Model:
    """strings [batch] -> logits float32 [batch, num_classes]: preprocessor, then keras-hub's BertTextClassifier.

    The classifier (`BertBackbone`, dropout, a `logits` Dense) is keras-hub's own, built without a
    preprocessor; tf_wordpiece's layer feeds it. compat="keras_hub" gives keras-hub's token ids
    (string ops only); "tf_text" with core="numeric" runs in TFLite and TF.js too.
    """
    keras.utils.set_random_seed(seed)
    preprocessor = BertTextClassifierPreprocessor(
        vocabulary, sequence_length=sequence_length, lowercase=True, compat=compat, core=core, name="preprocessor"
    )
    backbone = keras_hub.models.BertBackbone(
        vocabulary_size=preprocessor.vocabulary_size(),
        num_layers=num_layers,
        num_heads=num_heads,
        hidden_dim=hidden_dim,
        intermediate_dim=intermediate_dim,
        max_sequence_length=sequence_length,
    )
    head = keras_hub.models.BertTextClassifier(
        backbone=backbone, num_classes=num_classes, preprocessor=None, name="classifier"
    )
    strings = keras.Input(shape=(), dtype="string", name="strings")
    return TextModel(strings, head(preprocessor(strings)), name="text_classifier")  # predict(["text"]) works


def language_dataset(pairs, *, batch_size: int = 32) -> tf.data.Dataset:
    """(string, label) batches: each pair's Portuguese side labelled 0, its English side 1, shuffled."""
    texts = [text for pair in pairs for text in pair]
    labels = [label for _ in pairs for label in (0, 1)]
    ds = tf.data.Dataset.from_tensor_slices((texts, labels)).shuffle(len(texts), seed=0)
    return ds.batch(batch_size)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=DefaultsOnceHelpFormatter)
    parser.add_argument("--out", required=True, help="a new folder for the models")
    parser.add_argument("--steps", type=int, default=60, help="training steps (batches of 32)")
    args = parser.parse_args(argv)
    out = pathlib.Path(args.out)
    if out.exists():
        print(f"--out: {out} already exists; choose a new folder", file=sys.stderr)
        return 2

    pairs = embedded_pairs()
    train, held_out = pairs[:-200], pairs[-200:]
    model = build_classifier(VOCAB.read_text(encoding="utf-8").splitlines())
    model.compile(
        optimizer=keras.optimizers.Adam(1e-3),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )
    # The dataset shuffles itself; Keras' default shuffle=True would only warn that it ignores it for a tf.data.
    history = model.fit(
        language_dataset(train).repeat(), steps_per_epoch=args.steps // 3, epochs=3, verbose=2, shuffle=False
    )
    print("loss per epoch:", [round(x, 3) for x in history.history["loss"]])
    _, accuracy = model.evaluate(language_dataset(held_out), verbose=0)
    print(f"held-out accuracy: {accuracy:.3f} on {2 * len(held_out)} lines")
    texts = ["Abrir o arquivo", "Open the file", ""]
    logits = model.predict(texts, verbose=0)
    for text, row in zip(texts, logits):
        print(f"{text!r}: {LABELS[int(np.argmax(row))]} {np.round(row, 3).tolist()}")

    out.mkdir(parents=True)
    model.save(out / "classifier.keras")
    model.export(str(out / "saved_model"), verbose=False)
    size = keras_model.save_tflite(model, out / "classifier.tflite")
    keras_model.save_tfjs(model, out / "tfjs")
    print(f"wrote {out}/: classifier.keras, saved_model/, classifier.tflite ({size / 1e6:.1f} MB), tfjs/")

    # Each runtime, the same logits: the SavedModel with plain TensorFlow, the .tflite in a TFLite interpreter.
    loaded = tf.saved_model.load(str(out / "saved_model"))  # keep it referenced: its variables live with it
    served = loaded.serve(tf.constant(texts)).numpy()
    print("SavedModel:", np.round(served, 3).tolist())
    try:
        from ai_edge_litert.interpreter import Interpreter
    except ImportError:
        print("TFLite: pip install ai-edge-litert to run classifier.tflite here")
    else:
        encoded = [text.encode("utf-8") for text in texts]
        with runtime_lines_hidden():  # the interpreter's "INFO: Created TensorFlow Lite XNNPACK delegate" line
            run = Interpreter(model_path=str(out / "classifier.tflite")).get_signature_runner()
            lite = run(
                bytes=np.frombuffer(b"".join(encoded), np.uint8),
                row_lengths=np.array([len(e) for e in encoded], np.int32),
            )
        print("TFLite:    ", np.round(lite["logits"], 3).tolist())
    print(f"TF.js: node examples/classifier/classify.mjs {out}/tfjs {' '.join(repr(t) for t in texts[:2])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
