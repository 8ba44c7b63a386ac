"""Building and saving the tutorial's `ted_hrlr_translate_pt_en_converter` SavedModel.

Both vocabularies are learned as tf_wordpiece's `bert_vocab_from_dataset` learns
(tensorflow_text's algorithm and result); nothing here needs tensorflow_text.
Where the outputs go is `layout.ExportLayout`'s, checked before any work.
"""

from __future__ import annotations

import os
import pathlib
import time
from importlib import resources
from typing import Iterable, Sequence

import tensorflow as tf

from tf_wordpiece.cores import capabilities, cores_that
from tf_wordpiece.export.layout import LANGUAGES, LIBRARY_NAMES, TFLITE_SIGNATURES, ExportLayout
from tf_wordpiece.export.module import TutorialTokenizer
from tf_wordpiece.export.saving import save_atomically, save_model
from tf_wordpiece.learning.from_text import count_and_learn
from tf_wordpiece.learning.word_counts import tfds_load_error
from tf_wordpiece.messages import quoted_path, utf8_text
from tf_wordpiece.progress import progress_bar, timed_step

__all__ = [
    "Converter",
    "embedded_pairs",
    "export_converter",
    "export_to",
    "learn_vocab",
    "save_atomically",  # the one SavedModel writer (export.saving), here where the converter's users look
    "tflite_model",
    "tsv_file_pairs",
    "tfds_pairs",
]

RESERVED_TOKENS = ["[PAD]", "[UNK]", "[START]", "[END]"]
EMBEDDED_CORPUS = "pt_en_sample.tsv"  # Debian 12 gettext catalogs, pt/en pairs; see README


def embedded_pairs() -> list[tuple[str, str]]:
    """The (pt, en) pairs shipped in the package (header line skipped)."""
    text = (resources.files("tf_wordpiece") / "data" / EMBEDDED_CORPUS).read_text(encoding="utf-8")
    return read_tsv_pairs(text.splitlines(), source=EMBEDDED_CORPUS)


TSV_HEADER = ("pt", "en")  # a first line that names the columns, as the embedded sample's does


def read_tsv_pairs(lines: Iterable[str], *, source: str) -> list[tuple[str, str]]:
    """(pt, en) pairs of `pt<TAB>en` lines; blank lines and a header first line `pt<TAB>en` (any case) are skipped.

    >>> read_tsv_pairs(["pt\\ten", "olá\\thello", "", "pt\\ten"], source="pairs.tsv")  # only the first line is a header
    [('olá', 'hello'), ('pt', 'en')]
    """
    pairs = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        if number == 1 and tuple(field.strip().lower() for field in line.split("\t")) == TSV_HEADER:
            continue
        fields = line.split("\t")
        if len(fields) != 2:
            raise ValueError(f"{source}: line {number} has {len(fields)} tab-separated fields, expected 2 (pt<TAB>en)")
        pairs.append((fields[0], fields[1]))
    return pairs


def tsv_file_pairs(paths: Sequence[str]) -> list[tuple[str, str]]:
    """The (pt, en) pairs of pt<TAB>en files (UTF-8, a byte order mark ignored; each file's header line skipped,
    as `read_tsv_pairs` says); a FileNotFoundError or ValueError names `paths`."""
    pairs = []
    for path in paths:
        try:
            data = pathlib.Path(path).read_bytes()
        except FileNotFoundError:
            raise FileNotFoundError(f"paths: {quoted_path(path)} does not exist; check the path") from None
        except OSError as e:
            raise ValueError(f"paths: cannot read {quoted_path(path)}: {e.strerror}") from None
        text = utf8_text(data, "paths", path).removeprefix("\ufeff")  # spreadsheets save TSV files with a BOM
        pairs += read_tsv_pairs(text.splitlines(), source=path)
    if not pairs:
        raise ValueError(f"paths: no pt<TAB>en pairs in {list(paths)}")
    return pairs


def tfds_pairs(name: str = "ted_hrlr_translate/pt_to_en", split: str = "train") -> list[tuple[str, str]]:
    """Pairs from TensorFlow Datasets, when the dataset is already in the user's data dir; a ValueError names `name`."""
    try:
        import tensorflow_datasets as tfds
    except ImportError:
        raise ValueError("name: tensorflow-datasets is not installed (pip install tensorflow-datasets)") from None
    try:
        dataset = tfds.load(name, split=split, as_supervised=True, download=False)
    except Exception as e:  # tfds raises several types for "not prepared"
        raise ValueError(f"name: {tfds_load_error(name, split, e)}") from None
    pairs = []
    for index, (pt, en) in enumerate(tfds.as_numpy(dataset)):
        try:
            pairs.append((pt.decode("utf-8"), en.decode("utf-8")))
        except UnicodeDecodeError as e:
            raise ValueError(
                f"name: {name}:{split} example {index} is not UTF-8 text (byte {e.object[e.start]:#04x} "
                f"at byte offset {e.start}); fix or drop that example"
            ) from None
    return pairs


def learn_vocab(sentences: list[str], *, vocab_size: int, lower_case: bool = True) -> list[str]:
    """The tutorial's vocabulary learning: BERT's learner on the tutorial's reserved tokens.

    A `vocab_size` below the reserved tokens plus the alphabet is a ValueError.
    """
    return count_and_learn(
        sentences,
        vocab_size=vocab_size,
        reserved_tokens=RESERVED_TOKENS,
        bert_tokenizer_params={"lower_case": lower_case},
        strict=True,
    ).vocab


class Converter(tf.Module):
    """The tutorial's two-language module: `.pt` and `.en` TutorialTokenizers.

    They have the tutorial's CustomTokenizer methods and no BERT inputs (these
    vocabularies have no [CLS]/[SEP]; tracing and saving them doubled the export time).

    `signatures()` gives what TF Serving (or any SavedModel client) calls:
    strings [batch] in; `token_ids` int64 [batch, longest] padded with [PAD]
    and `lengths` int64 [batch] out, `[START]` first and `[END]` last in each row.

    Args:
      pt_vocab, en_vocab: vocab.txt paths, or the tokens as lists.
      vocab_dir: with lists, the folder where they are written as
        `pt_vocab.txt` and `en_vocab.txt`, the SavedModel's assets (see
        `TutorialTokenizer`'s `vocab_file`).
      **tokenizer_params: BertTokenizer options (e.g. lower_case=True, core="numeric").
    """

    def __init__(
        self,
        pt_vocab: str | os.PathLike | Sequence[str],
        en_vocab: str | os.PathLike | Sequence[str],
        *,
        vocab_dir: str | os.PathLike | None = None,
        **tokenizer_params,
    ):
        super().__init__()
        for language, vocab in zip(LANGUAGES, (pt_vocab, en_vocab)):
            vocab_file = None
            if not isinstance(vocab, (str, os.PathLike)):
                if vocab_dir is None:
                    raise ValueError("vocab_dir: token lists need the folder to write their vocab.txt assets in")
                vocab_file = pathlib.Path(vocab_dir) / f"{language}_vocab.txt"
            tokenizer = TutorialTokenizer(RESERVED_TOKENS, vocab, vocab_file=vocab_file, **tokenizer_params)
            setattr(self, language, tokenizer)

    def signatures(self) -> dict:
        """`serving_default` (Portuguese, the tutorial's source), `pt_tokenize`, `en_tokenize`: to save.

        With the numeric core also `pt_tokenize_bytes` and `en_tokenize_bytes`
        (UTF-8 bytes in: what TFLite's builtins and TF.js run).
        """
        signatures = {
            "serving_default": self.pt.serving.get_concrete_function(),
            "pt_tokenize": self.pt.serving.get_concrete_function(),
            "en_tokenize": self.en.serving.get_concrete_function(),
        }
        for language in LANGUAGES:
            tokenizer = getattr(self, language)
            if tokenizer.tokenizer.engine.takes_bytes:
                signatures[f"{language}_tokenize_bytes"] = tokenizer.tokenize_bytes.get_concrete_function()
        return signatures


def export_converter(
    out_dir: str | os.PathLike,
    pairs: list[tuple[str, str]],
    *,
    vocab_size: int = 8000,
    overwrite: bool = False,
    make_zip: bool = True,
    serving_version: int | None = None,
    core: str = "string",
    tflite: str | os.PathLike | None = None,
    tfjs: str | os.PathLike | None = None,
) -> dict:
    """Learns both vocabularies, builds the Converter, saves it with its serving signatures (and a .zip).

    `core` is `BertTokenizer`'s: `"xla"` saves the numeric core compiled by XLA
    (faster once compiled; it needs a TensorFlow with XLA where it is loaded).
    With `serving_version` the SavedModel goes to `out_dir/VERSION` (TF
    Serving's layout; the zip then holds `out_dir`). `tflite` (a file) and
    `tfjs` (a folder) also write the bytes signatures for TFLite and TF.js
    (core="numeric"; see `export_to`). Nothing is learned unless every output
    passes its check (`layout.ExportLayout.checked`; its errors name `out_dir`,
    `tflite`, `tfjs`). Returns `export_to`'s summary.
    """
    layout = ExportLayout.checked(
        out_dir,
        names=LIBRARY_NAMES,
        serving_version=serving_version,
        make_zip=make_zip,
        tflite=tflite,
        tfjs=tfjs,
        overwrite=overwrite,
    )
    return export_to(layout, pairs, vocab_size=vocab_size, core=core)


def export_to(
    layout: ExportLayout, pairs: list[tuple[str, str]], *, vocab_size: int = 8000, core: str = "string"
) -> dict:
    """Writes the converter to a checked layout, each output atomically, each step with a progress line.

    The TFLite file holds both languages' bytes signatures (`pt_tokenize_bytes`,
    `en_tokenize_bytes`: TFLite's builtin ops only); the TF.js folder one graph
    model per language (`pt/`, `en/`; `TutorialTokenizer.save_tfjs`). Both need
    core="numeric". Returns the pairs, each vocabulary's size, each step's
    seconds (those its line showed: `learn_seconds`, `build_seconds`,
    `save_seconds`, ...), `model_dir`, `size_bytes` and each other output's path.
    The SavedModel is written by `saving.save_model` (with TF Serving's warm-up
    requests for core="xla"), swapped in by `layout.write_model`.
    """
    if not pairs:
        raise ValueError("pairs: no (pt, en) sentence pairs; give at least one")
    portable = capabilities(core).runs_without_string_ops  # an unknown core is a ValueError here, before any work
    if (layout.tflite or layout.tfjs) and not portable:
        raise ValueError(
            f"core: {core!r} has no bytes signature for TFLite's builtin ops and TF.js; use "
            f"core={cores_that(runs_without_string_ops=True)[0]!r}"
        )
    summary: dict = {"pairs": len(pairs)}
    start = time.perf_counter()
    vocabs = {}
    for index, language in enumerate(progress_bar(LANGUAGES, desc="learning vocabularies", unit=" languages")):
        vocabs[language] = learn_vocab([pair[index] for pair in pairs], vocab_size=vocab_size)
        summary[f"{language}_vocab_size"] = len(vocabs[language])
    summary["learn_seconds"] = time.perf_counter() - start
    built = {}

    def build_and_save(folder: pathlib.Path) -> None:
        # The vocab.txt assets go beside `folder`, into the hidden folder it is saved in, removed afterwards.
        with timed_step("building the tokenizers") as build:
            built["converter"] = Converter(
                vocabs["pt"], vocabs["en"], vocab_dir=folder.parent, lower_case=True, core=core
            )
        summary["save_seconds"] = save_model(
            built["converter"], folder, signatures=built["converter"].signatures(), name=layout.model_dir.name
        )
        summary["build_seconds"] = build.seconds

    layout.write_model(build_and_save)
    summary["export_seconds"] = summary["build_seconds"] + summary["save_seconds"]
    summary["model_dir"] = str(layout.model_dir)
    summary["size_bytes"] = sum(f.stat().st_size for f in layout.model_dir.rglob("*") if f.is_file())
    if layout.zip_path is not None:
        with timed_step(f"zipping {layout.zip_root.name}") as step:
            layout.write_zip()
        summary["zip"], summary["zip_seconds"] = str(layout.zip_path), step.seconds
    if layout.tflite is not None:
        with timed_step("converting to TFLite") as step:
            layout.write_tflite(tflite_model(layout.model_dir, TFLITE_SIGNATURES))
        summary["tflite"], summary["tflite_seconds"] = str(layout.tflite), step.seconds
    if layout.tfjs is not None:
        converter = built["converter"]
        with timed_step("writing the TF.js models") as step:
            layout.write_tfjs(lambda folder, language: getattr(converter, language).save_tfjs(folder))
        summary["tfjs"], summary["tfjs_seconds"] = str(layout.tfjs), step.seconds
    return summary


def tflite_model(saved_model_dir: str | os.PathLike, signature_keys: Sequence[str]) -> bytes:
    """A SavedModel's bytes signatures as one TFLite flatbuffer, with TFLite's builtin ops only (no Flex).

    The interpreter (`ai-edge-litert`, or any TFLite runtime) runs each by its
    key: `get_signature_runner("en_tokenize_bytes")(bytes=uint8 [B], row_lengths=int32 [n])`.
    """
    converter = tf.lite.TFLiteConverter.from_saved_model(str(saved_model_dir), signature_keys=list(signature_keys))
    converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS]  # no SELECT_TF_OPS, no custom ops
    return converter.convert()
