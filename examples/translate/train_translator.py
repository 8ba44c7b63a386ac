"""Trains the Transformer tutorial's translator, tiny, on the embedded pt/en sample; exports, reloads, translates.

    python examples/translate/train_translator.py --out translator [--converter DIR] [--epochs 1]
        [--steps-per-epoch N] [--num-layers 2] [--d-model 32] [--overwrite]

The tutorial ("Neural machine translation with a Transformer and Keras") on tf_wordpiece's converter:
`--converter DIR` reuses a converter that `tf-wordpiece export --out DIR` wrote; without it one is
exported into a temporary folder first (learning both vocabularies takes seconds). The tutorial's
`tf.data` pipeline (`prepare_batch`, `make_batches`) feeds `Transformer.fit`, which prints the loss; the
`Translator` (greedy decoding), wrapped in the tutorial's `ExportTranslator`, is saved to `--out` by
`tf_wordpiece.export.saving.save_atomically`, the package's one SavedModel writer (atomically, with a progress
line: an existing SavedModel is replaced only with --overwrite, any other folder never),
then reloaded with `tf.saved_model.load` and run on a few held-out sentences. The saved translator needs
neither tensorflow_text nor tf_wordpiece where it is loaded. On 2 CPU cores the tiny model learns little:
the point is the pipeline, not the translations.
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import tempfile
import time
from importlib import resources

from tf_wordpiece.console import DefaultsOnceHelpFormatter, import_tensorflow_quietly

# TensorFlow's log lines hidden as the command line hides them (TF_WORDPIECE_TF_LOGS=1 shows them).
tf = import_tensorflow_quietly()

from nmt_model import Transformer, WarmupSchedule, masked_accuracy, masked_loss  # noqa: E402
from nmt_translator import MAX_TOKENS, ExportTranslator, Translator, save_translator  # noqa: E402

from tf_wordpiece.export.converter import export_converter  # noqa: E402
from tf_wordpiece.files import check_model_folder  # noqa: E402

BUFFER_SIZE = 20000
BATCH_SIZE = 64
HELD_OUT = 100  # the last pairs of the sample: never trained on, translated at the end


def sample_pairs() -> list[tuple[str, str]]:
    """The embedded corpus of `tf-wordpiece export`: (pt, en) pairs, in the file's order."""
    text = (resources.files("tf_wordpiece") / "data" / "pt_en_sample.tsv").read_text(encoding="utf-8")
    return [tuple(line.split("\t")) for line in text.splitlines()[1:] if line.strip()]


def make_batches(pairs: list[tuple[str, str]], tokenizers, *, batch_size: int = BATCH_SIZE, shuffle: bool = True):
    """The tutorial's pipeline: ((pt ids, en ids without [END]), en ids without [START]), int64, 0-padded.

    pt ids are cut to MAX_TOKENS and en ids to MAX_TOKENS + 1 before the shift, as in the tutorial.
    """

    def prepare_batch(pt, en):
        pt = tokenizers.pt.tokenize(pt)[:, :MAX_TOKENS].to_tensor()
        en = tokenizers.en.tokenize(en)[:, : MAX_TOKENS + 1]
        return (pt, en[:, :-1].to_tensor()), en[:, 1:].to_tensor()

    dataset = tf.data.Dataset.from_tensor_slices(([pt for pt, _ in pairs], [en for _, en in pairs]))
    if shuffle:
        dataset = dataset.shuffle(BUFFER_SIZE, seed=0)
    return dataset.batch(batch_size).map(prepare_batch, tf.data.AUTOTUNE).prefetch(tf.data.AUTOTUNE)


def build_transformer(tokenizers, *, num_layers: int, d_model: int, num_heads: int, dff: int) -> Transformer:
    return Transformer(
        num_layers=num_layers,
        d_model=d_model,
        num_heads=num_heads,
        dff=dff,
        input_vocab_size=int(tokenizers.pt.get_vocab_size()),
        target_vocab_size=int(tokenizers.en.get_vocab_size()),
        dropout_rate=0.1,
    )


class PrintLoss(tf.keras.callbacks.Callback):
    """Prints the running loss every `every` steps (Keras' own line comes once per epoch)."""

    def __init__(self, every: int):
        super().__init__()
        self.every, self.step = every, 0

    def on_train_batch_end(self, batch, logs=None):
        self.step += 1
        if self.step % self.every == 0:
            print(f"step {self.step}: loss {logs['loss']:.4f}, accuracy {logs['masked_accuracy']:.4f}", flush=True)


def train(
    transformer: Transformer,
    batches,
    *,
    epochs: int,
    steps_per_epoch: int | None,
    warmup_steps: int,
    log_every: int = 0,
):
    """The tutorial's compile and fit (Adam on the warm-up schedule, masked loss and accuracy). Returns the History."""
    d_model = transformer.encoder.pos_embedding.d_model
    optimizer = tf.keras.optimizers.Adam(WarmupSchedule(d_model, warmup_steps), beta_1=0.9, beta_2=0.98, epsilon=1e-9)
    transformer.compile(loss=masked_loss, optimizer=optimizer, metrics=[masked_accuracy])
    callbacks = [PrintLoss(log_every)] if log_every else []
    return transformer.fit(
        batches, epochs=epochs, steps_per_epoch=steps_per_epoch, callbacks=callbacks, shuffle=False, verbose=2
    )  # shuffle=False: make_batches shuffles


def load_converter(path: str):
    folder = pathlib.Path(path)
    if not (folder / "saved_model.pb").is_file():
        what = "does not exist" if not folder.exists() else "holds no saved_model.pb"
        raise SystemExit(
            f"--converter: {folder} {what}; write one with `tf-wordpiece export --out {folder}`, "
            "or leave --converter out to export one into a temporary folder"
        )
    return tf.saved_model.load(str(folder))


def positive_int(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}")
    return int(text)


class _HelpFormatter(DefaultsOnceHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Each option's default, and the description's usage lines as written."""


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=_HelpFormatter)
    parser.add_argument("--out", default="translator", help="SavedModel folder to write")
    parser.add_argument("--overwrite", action="store_true", help="replace --out if it is a SavedModel")
    parser.add_argument("--converter", help="a converter SavedModel from `tf-wordpiece export` (default: export one)")
    parser.add_argument("--epochs", type=positive_int, default=1, help="passes over the training pairs")
    parser.add_argument(
        "--steps-per-epoch", type=positive_int, default=None, help="batches per epoch (default: the whole sample)"
    )
    parser.add_argument("--num-layers", type=positive_int, default=2, help="encoder and decoder layers")
    parser.add_argument("--d-model", type=positive_int, default=32, help="the model's width (even)")
    parser.add_argument("--num-heads", type=positive_int, default=2, help="attention heads")
    parser.add_argument("--dff", type=positive_int, default=64, help="the feed-forward layers' width")
    parser.add_argument(
        "--warmup-steps", type=positive_int, default=100, help="the tutorial's 4000 suits its 20 long epochs"
    )
    parser.add_argument(
        "--max-length", type=positive_int, default=MAX_TOKENS, help="most tokens generated per translation"
    )
    parser.add_argument("--log-every", type=int, default=20, help="print the loss every N steps (0: per epoch only)")
    args = parser.parse_args(argv)
    if args.d_model % 2:
        parser.error(f"--d-model: the positional encoding takes an even size (sines and cosines), got {args.d_model}")
    return args


def shown(text: str, width: int = 70) -> str:
    """`text` on one line, cut to `width` characters."""
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def main(argv=None) -> int:
    args = parse_args(argv)
    out = check_model_folder(args.out, overwrite=args.overwrite, what="--out")  # before any work
    pairs = sample_pairs()
    train_pairs, held_out = pairs[:-HELD_OUT], pairs[-HELD_OUT:]
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".converter.", dir=out.parent) as work:
        if args.converter:
            tokenizers = load_converter(args.converter)
        else:
            export_converter(f"{work}/converter", pairs, make_zip=False)
            tokenizers = tf.saved_model.load(f"{work}/converter")
        transformer = build_transformer(
            tokenizers, num_layers=args.num_layers, d_model=args.d_model, num_heads=args.num_heads, dff=args.dff
        )
        start = time.perf_counter()
        history = train(
            transformer,
            make_batches(train_pairs, tokenizers),
            epochs=args.epochs,
            steps_per_epoch=args.steps_per_epoch,
            warmup_steps=args.warmup_steps,
            log_every=args.log_every,
        )
        losses = history.history["loss"]
        print(f"trained {transformer.count_params():,} weights in {time.perf_counter() - start:.0f} s; loss per epoch:")
        print("  " + ", ".join(f"{loss:.3f}" for loss in losses))
        translator = ExportTranslator(Translator(tokenizers, transformer), max_length=args.max_length)
        start = time.perf_counter()
        save_translator(translator, out, overwrite=args.overwrite)
    print(f"saved {args.out} in {time.perf_counter() - start:.0f} s")

    start = time.perf_counter()
    reloaded = tf.saved_model.load(str(out))  # what a user does; tensorflow_text is never imported
    size = sum(path.stat().st_size for path in out.rglob("*") if path.is_file())
    print(f"reloaded {out.name} ({size / 1e6:.1f} MB) in {time.perf_counter() - start:.1f} s")
    for pt, en in held_out[:3]:
        start = time.perf_counter()
        prediction = reloaded(tf.constant(pt)).numpy().decode()
        milliseconds = (time.perf_counter() - start) * 1e3
        print(f"{'input':>12}: {shown(pt)}\n{'prediction':>12}: {shown(prediction)} ({milliseconds:.0f} ms)")
        print(f"{'reference':>12}: {shown(en)}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:  # Ctrl-C: --out is written whole or not at all (save_translator)
        print("interrupted", file=sys.stderr)
        sys.exit(130)
