"""Where `export` writes, decided and checked once before any work: the SavedModel folder, its zip, and the
TFLite and TF.js conversions of its bytes signatures.

- the SavedModel: OUT, or OUT/N with a serving version (TF Serving's layout:
  OUT is the ModelServer's `--model_base_path`, N a version folder in it);
- the zip: OUT.zip, holding OUT/ (with a serving version, every version in it);
- the TFLite model: one file with both languages' bytes signatures;
- the TF.js models: a folder holding one graph model per language (`pt/`, `en/`).

Nothing here imports TensorFlow, so the command line checks its outputs before
TensorFlow loads. Each output is replaced only when it is one this package
writes, and only with `overwrite` (`tf_wordpiece.files`).
"""

from __future__ import annotations

import dataclasses
import json
import os
import pathlib
from typing import Callable

from tf_wordpiece import files
from tf_wordpiece.messages import shown_path

LANGUAGES = ("pt", "en")  # the converter's tokenizers: one TF.js model each, both in the TFLite file
TFJS_FILES = ("model.json", "group1-shard1of1.bin")  # a TF.js graph model as `export.tfjs` writes it
TFJS_WRITER = "tf_wordpiece"  # model.json's "convertedBy"
TFLITE_SIGNATURES = tuple(f"{language}_tokenize_bytes" for language in LANGUAGES)
# How errors name each output: the library's parameters by default; the command line passes its options.
LIBRARY_NAMES = {"out": "out_dir", "tflite": "tflite", "tfjs": "tfjs"}
COMMAND_LINE_NAMES = {"out": "--out", "tflite": "--tflite", "tfjs": "--tfjs"}


@dataclasses.dataclass
class ExportLayout:
    """The checked output paths of one export; `write_*` write each atomically, and list it in `written`.

    Build it with `ExportLayout.checked`. `replaces` holds the outputs that
    existed at the check (each one this package wrote, or an empty folder):
    anything else that appears at an output while the work runs is kept and
    the write fails (`files.write_folder_atomically`).

    >>> layout = ExportLayout.checked("models/converter", serving_version=3, tflite=None)
    >>> layout.model_dir.parts[-2:], layout.zip_path.name, layout.zip_root.name
    (('converter', '3'), 'converter.zip', 'converter')
    """

    model_dir: pathlib.Path
    zip_root: pathlib.Path  # the folder the zip holds: model_dir, or OUT with a serving version
    zip_path: pathlib.Path | None
    tflite: pathlib.Path | None
    tfjs: pathlib.Path | None
    replaces: frozenset[pathlib.Path]
    written: list[str]
    names: dict[str, str] = dataclasses.field(default_factory=lambda: dict(LIBRARY_NAMES))

    @classmethod
    def checked(
        cls,
        out: str | os.PathLike,
        *,
        serving_version: int | None = None,
        make_zip: bool = True,
        tflite: str | os.PathLike | None = None,
        tfjs: str | os.PathLike | None = None,
        overwrite: bool = False,
        written: list[str] | None = None,
        names: dict[str, str] = LIBRARY_NAMES,
    ) -> ExportLayout:
        """The layout for OUT, every output checked (ValueError or FileExistsError naming its option).

        `written` collects each output's path once it is in place (the command
        line's record of what an interrupted run kept). `names` says how errors
        name `out`, `tflite` and `tfjs`: `LIBRARY_NAMES` (`out_dir`, ...) or the
        command line's `COMMAND_LINE_NAMES` (`--out`, ...).
        """
        if serving_version is not None and (
            isinstance(serving_version, bool) or not isinstance(serving_version, int) or serving_version < 1
        ):
            raise ValueError(
                "serving_version: expected a positive int (TF Serving's version folder, e.g. 1), "
                f"got {serving_version!r}"
            )
        base = pathlib.Path(out).resolve()
        model_dir = files.check_model_folder(
            base if serving_version is None else base / str(serving_version), overwrite=overwrite, what=names["out"]
        )
        zip_root = model_dir if serving_version is None else base
        zip_path = zip_root.with_name(zip_root.name + ".zip") if make_zip else None
        if zip_path is not None and zip_path.parent.is_dir():  # else nothing is there yet: the model's write makes it
            files.check_zip_output(zip_path, overwrite=overwrite, folder_name=zip_root.name, what=names["out"])
        if tflite is not None:
            tflite = _checked_tflite(tflite, overwrite=overwrite, what=names["tflite"])
        if tfjs is not None:
            tfjs = files.check_output_folder(
                tfjs, overwrite=overwrite, what=names["tfjs"], kind="TF.js model", is_ours=is_tfjs_models
            )
        layout = cls(
            model_dir=model_dir,
            zip_root=zip_root,
            zip_path=zip_path,
            tflite=tflite,
            tfjs=tfjs,
            replaces=frozenset(),
            written=[] if written is None else written,
            names=dict(names),
        )
        layout._check_apart()
        layout.replaces = frozenset(p for p in layout.outputs().values() if p.exists())
        return layout

    def outputs(self) -> dict[str, pathlib.Path]:
        """Each output this layout writes, by the option that names it."""
        out, tflite, tfjs = self.names["out"], self.names["tflite"], self.names["tfjs"]
        named = {out: self.model_dir, f"{out}'s zip": self.zip_path, tflite: self.tflite, tfjs: self.tfjs}
        return {option: path for option, path in named.items() if path is not None}

    def _check_apart(self) -> None:
        """No output may be another one or lie inside another one."""
        outputs = list(self.outputs().items())
        for i, (option, path) in enumerate(outputs):
            for other_option, other in outputs[i + 1 :]:
                if path == other or other in path.parents or path in other.parents:
                    raise ValueError(
                        f"{option}: {shown_path(path)} and {other_option} {shown_path(other)} overlap; give each "
                        "output its own path"
                    )

    def write_model(self, write: Callable[[pathlib.Path], None]) -> None:
        """`write(folder)` saves the SavedModel into `folder`; it is then swapped in at `model_dir`."""
        files.write_folder_atomically(self.model_dir, write, replace=self.model_dir in self.replaces)
        self.written.append(str(self.model_dir))

    def write_zip(self) -> None:
        files.zip_atomically(self.zip_root, self.zip_path, replace=self.zip_path in self.replaces)
        self.written.append(str(self.zip_path))

    def write_tflite(self, model: bytes) -> None:
        files.write_bytes_atomically(self.tflite, model, replace=self.tflite in self.replaces)
        self.written.append(str(self.tflite))

    def write_tfjs(self, write: Callable[[pathlib.Path, str], None]) -> None:
        """`write(folder, language)` writes one language's TF.js graph model into `folder` (not there yet)."""

        def write_all(folder: pathlib.Path) -> None:
            folder.mkdir()
            for language in LANGUAGES:
                write(folder / language, language)

        files.write_folder_atomically(self.tfjs, write_all, replace=self.tfjs in self.replaces)
        self.written.append(str(self.tfjs))


def is_tfjs_model(folder: pathlib.Path) -> bool:
    """Whether `folder` holds one TF.js graph model as this package writes it, and nothing else."""
    if not folder.is_dir() or sorted(p.name for p in folder.iterdir()) != sorted(TFJS_FILES):
        return False
    try:
        model = json.loads((folder / "model.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(model, dict) and model.get("convertedBy") == TFJS_WRITER


def is_tfjs_models(folder: pathlib.Path) -> bool:
    """Whether `folder` holds the converter's TF.js models (`pt/`, `en/`), and nothing else."""
    entries = sorted(p.name for p in folder.iterdir())
    return entries == sorted(LANGUAGES) and all(is_tfjs_model(folder / language) for language in LANGUAGES)


def _checked_tflite(path: str | os.PathLike, *, overwrite: bool, what: str) -> pathlib.Path:
    path = pathlib.Path(path)

    def is_ours(_head: bytes) -> bool:
        """A TFLite flatbuffer (identifier "TFL3" at byte 4) with the converter's bytes signatures."""
        data = path.read_bytes()
        return data[4:8] == b"TFL3" and all(name.encode() in data for name in TFLITE_SIGNATURES)

    return files.check_file_output(
        path, overwrite=overwrite, what=what, kind="TFLite model", looks_ours=is_ours
    ).resolve()
