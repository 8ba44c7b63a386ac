"""Building and saving the tutorial's `ted_hrlr_translate_pt_en_converter` SavedModel.

Both vocabularies are learned as tf_wordpiece's `bert_vocab_from_dataset` learns
(tensorflow_text's algorithm and result); nothing here needs tensorflow_text.
"""

from __future__ import annotations

import os
import pathlib
import shutil
import tempfile
import time
from importlib import resources
from typing import Callable, Iterable, Sequence

import tensorflow as tf

from tf_wordpiece.export.module import TutorialTokenizer
from tf_wordpiece.files import check_model_folder, check_zip_output, interrupts_deferred
from tf_wordpiece.learning.from_text import count_and_learn
from tf_wordpiece.learning.word_counts import invalid_utf8_message, tfds_load_error
from tf_wordpiece.numeric.serving import add_warmup_requests
from tf_wordpiece.progress import elapsed_time_bar, progress_bar
from tf_wordpiece.vocab import write_vocab_file

RESERVED_TOKENS = ["[PAD]", "[UNK]", "[START]", "[END]"]
EMBEDDED_CORPUS = "pt_en_sample.tsv"  # Debian 12 gettext catalogs, pt/en pairs; see README


def embedded_pairs() -> list[tuple[str, str]]:
    """The (pt, en) pairs shipped in the package (header line skipped)."""
    text = (resources.files("tf_wordpiece") / "data" / EMBEDDED_CORPUS).read_text(encoding="utf-8")
    return read_tsv_pairs(text.splitlines()[1:], source=EMBEDDED_CORPUS)


def read_tsv_pairs(lines: Iterable[str], *, source: str) -> list[tuple[str, str]]:
    pairs = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) != 2:
            raise ValueError(f"{source}: line {number} has {len(fields)} tab-separated fields, expected 2 (pt<TAB>en)")
        pairs.append((fields[0], fields[1]))
    return pairs


def tsv_file_pairs(paths: Sequence[str]) -> list[tuple[str, str]]:
    pairs = []
    for path in paths:
        try:
            data = pathlib.Path(path).read_bytes()
        except OSError as e:
            raise ValueError(f"--input: cannot read {path!r}: {e.strerror}") from None
        pairs += read_tsv_pairs(_utf8_text(data, path).splitlines(), source=path)
    if not pairs:
        raise ValueError(f"--input: no pt<TAB>en pairs in {list(paths)}")
    return pairs


def _utf8_text(data: bytes, path: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        offset = e.start - (data.rfind(b"\n", 0, e.start) + 1)
        raise ValueError(f"--{invalid_utf8_message(path, line, offset, data[e.start])}") from None


def tfds_pairs(name: str = "ted_hrlr_translate/pt_to_en", split: str = "train") -> list[tuple[str, str]]:
    """Pairs from TensorFlow Datasets, when the dataset is already in the user's data dir."""
    try:
        import tensorflow_datasets as tfds
    except ImportError:
        raise ValueError("--tfds: tensorflow-datasets is not installed (pip install tensorflow-datasets)") from None
    try:
        dataset = tfds.load(name, split=split, as_supervised=True, download=False)
    except Exception as e:  # tfds raises several types for "not prepared"
        raise ValueError(f"--tfds: {tfds_load_error(name, split, e)}") from None
    pairs = []
    for index, (pt, en) in enumerate(tfds.as_numpy(dataset)):
        try:
            pairs.append((pt.decode("utf-8"), en.decode("utf-8")))
        except UnicodeDecodeError as e:
            raise ValueError(
                f"--tfds: {name}:{split} example {index} is not UTF-8 text (byte {e.object[e.start]:#04x} "
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
    """

    def __init__(self, pt_vocab: str, en_vocab: str, **tokenizer_params):
        super().__init__()
        self.pt = TutorialTokenizer(RESERVED_TOKENS, pt_vocab, **tokenizer_params)
        self.en = TutorialTokenizer(RESERVED_TOKENS, en_vocab, **tokenizer_params)

    def signatures(self) -> dict:
        """`serving_default` (Portuguese, the tutorial's source), `pt_tokenize`, `en_tokenize`: to save."""
        signatures = {
            "serving_default": self.pt.serving.get_concrete_function(),
            "pt_tokenize": self.pt.serving.get_concrete_function(),
            "en_tokenize": self.en.serving.get_concrete_function(),
        }
        if hasattr(self.pt, "tokenize_bytes"):  # the numeric core's
            signatures["pt_tokenize_bytes"] = self.pt.tokenize_bytes.get_concrete_function()
            signatures["en_tokenize_bytes"] = self.en.tokenize_bytes.get_concrete_function()
        return signatures


def serving_model_dir(out_dir: str | os.PathLike, version: int | None) -> pathlib.Path:
    """Where the SavedModel goes: `out_dir`, or TF Serving's `out_dir/VERSION` when `version` is given.

    TF Serving's `--model_base_path` is `out_dir`; it serves the highest numbered folder in it.

    >>> serving_model_dir("models/converter", 1).parts[-2:]
    ('converter', '1')
    """
    if version is None:
        return pathlib.Path(out_dir).resolve()
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise ValueError(
            f"serving_version: expected a positive int (TF Serving's version folder, e.g. 1), got {version!r}"
        )
    return pathlib.Path(out_dir).resolve() / str(version)


def save_atomically(module: tf.Module, out_dir: str, *, overwrite: bool = False, signatures=None) -> None:
    """Saves into a hidden sibling folder (`.NAME.*`), then renames it into place.

    `files.check_model_folder` runs first: only an existing SavedModel (or an
    empty folder) is ever replaced, only with `overwrite`, and only once the new
    one is complete. A progress line shows the time spent saving. Ctrl-C
    (SIGINT) at any point leaves the old model (or none) and no temporary
    folder; it is held back while the two renames that swap the models run.
    SIGKILL can leave a hidden `.NAME.*` sibling, and, if it lands between
    those two renames, the old model in `.NAME.old.*/model` with nothing
    at NAME; never a partial model at NAME.
    """
    out = check_model_folder(out_dir, overwrite=overwrite, what="--out")

    def save(folder: pathlib.Path) -> None:
        with elapsed_time_bar(f"saving {out.name}"):
            tf.saved_model.save(module, str(folder), signatures=signatures)
            add_warmup_requests(folder, module)  # core="xla": TF Serving compiles at load, not on the first requests

    write_folder_atomically(out, save)


def write_folder_atomically(out: pathlib.Path, write: Callable[[pathlib.Path], None]) -> None:
    """`write(folder)` into a hidden sibling folder (`.NAME.*`), then swaps it in at `out` (see `save_atomically`).

    The caller checks first that replacing `out` loses nothing.
    """
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = pathlib.Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    retired = None
    try:
        write(staging / "model")
        with interrupts_deferred():
            retired = swap_in(staging / "model", out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
        if retired is not None:
            shutil.rmtree(retired, ignore_errors=True)


def swap_in(new: pathlib.Path, out: pathlib.Path) -> pathlib.Path | None:
    """Renames `new` to `out`; an existing `out` moves to a hidden folder first, returned for deletion."""
    if not out.exists():
        new.rename(out)
        return None
    retired = pathlib.Path(tempfile.mkdtemp(prefix=f".{out.name}.old.", dir=out.parent))
    out.rename(retired / "model")
    try:
        new.rename(out)
    except BaseException:
        (retired / "model").rename(out)  # put the old model back
        raise
    return retired


def zip_atomically(folder: str | os.PathLike, *, overwrite: bool = True) -> str:
    """Writes FOLDER.zip (the folder, under its own name) through a hidden temporary file. Returns its path.

    An existing FOLDER.zip is replaced only when it is such a zip (`files.check_zip_output`).
    """
    folder = pathlib.Path(folder).resolve()
    check_zip_output(folder.with_name(folder.name + ".zip"), overwrite=overwrite, folder_name=folder.name, what="--out")
    staging = pathlib.Path(tempfile.mkdtemp(prefix=f".{folder.name}.zip.", dir=folder.parent))
    try:
        archive = shutil.make_archive(str(staging / folder.name), "zip", root_dir=folder.parent, base_dir=folder.name)
        final = folder.with_name(folder.name + ".zip")
        os.replace(archive, final)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return str(final)


def check_outputs(out_dir: str, *, overwrite: bool, make_zip: bool) -> pathlib.Path:
    """Checks the model folder (and OUT.zip) may be written, before any work: see `files.check_model_folder`."""
    out = check_model_folder(out_dir, overwrite=overwrite, what="--out")
    if make_zip:
        check_zip_output(out.with_name(out.name + ".zip"), overwrite=overwrite, folder_name=out.name, what="--out")
    return out


def export_converter(
    out_dir: str,
    pairs: list[tuple[str, str]],
    *,
    vocab_size: int = 8000,
    overwrite: bool = False,
    make_zip: bool = True,
    serving_version: int | None = None,
    core: str = "string",
) -> dict:
    """Learns both vocabularies, builds the Converter, saves it with its serving signatures (and a .zip).

    `core` is `BertTokenizer`'s: `"xla"` saves the numeric core compiled by XLA
    (faster once compiled; it needs a TensorFlow with XLA where it is loaded).

    With `serving_version` the SavedModel goes to `out_dir/VERSION` (TF
    Serving's layout; the zip then holds `out_dir`). Returns timings and
    `model_dir`. Nothing is learned unless `check_outputs` passes.
    """
    model_dir = serving_model_dir(out_dir, serving_version)
    if serving_version is not None and make_zip:
        base = model_dir.parent  # may hold other versions; the zip holds them all
        check_zip_output(base.with_name(base.name + ".zip"), overwrite=overwrite, folder_name=base.name, what="--out")
        out = check_outputs(str(model_dir), overwrite=overwrite, make_zip=False)
    else:
        out = check_outputs(str(model_dir), overwrite=overwrite, make_zip=make_zip)
    if not pairs:
        raise ValueError("corpus: no sentence pairs")
    summary: dict = {"pairs": len(pairs)}
    start = time.perf_counter()
    out.parent.mkdir(parents=True, exist_ok=True)
    # Beside the model, like save_atomically's staging folder, so SIGKILL leaves only hidden .NAME.* siblings.
    with tempfile.TemporaryDirectory(prefix=f".{out.name}.vocab.", dir=out.parent) as work:
        vocab_paths = {}
        for index, language in enumerate(progress_bar(["pt", "en"], desc="learning vocabularies")):
            vocab = learn_vocab([pair[index] for pair in pairs], vocab_size=vocab_size)
            path = os.path.join(work, f"{language}_vocab.txt")
            write_vocab_file(path, vocab)
            vocab_paths[language] = path
            summary[f"{language}_vocab_size"] = len(vocab)
        summary["learn_seconds"] = time.perf_counter() - start
        start = time.perf_counter()
        converter = Converter(vocab_paths["pt"], vocab_paths["en"], lower_case=True, core=core)
        save_atomically(converter, str(out), overwrite=overwrite, signatures=converter.signatures())
    summary["export_seconds"] = time.perf_counter() - start
    summary["model_dir"] = str(out)
    if make_zip:
        summary["zip"] = zip_atomically(out if serving_version is None else out.parent, overwrite=overwrite)
    summary["size_bytes"] = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
    return summary
