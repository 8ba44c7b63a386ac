"""The one way this package writes a SavedModel: atomically, with a progress line, and warm-up requests for XLA.

`save_model` is the save itself (`tf.saved_model.save`, then TF Serving's
warm-up requests when a tokenizer of the module runs `core="xla"`);
`save_atomically` checks the folder first and swaps the new model in whole.
The command line's `export` and `export.converter.export_converter` write
through `save_model` too (`ExportLayout.write_model` is their atomic swap).
Errors name the library's parameters (`out_dir`); the command line shows
its own option names (`console.in_option_names`).
"""

from __future__ import annotations

import os
import pathlib

import tensorflow as tf

from tf_wordpiece.files import check_model_folder, write_folder_atomically
from tf_wordpiece.numeric.serving import add_warmup_requests
from tf_wordpiece.progress import timed_step


def save_model(module: tf.Module, folder: str | os.PathLike, *, signatures=None, name: str | None = None) -> float:
    """Saves `module` into `folder` (a new one), then its warm-up requests; returns the seconds it took.

    A progress line ("saving NAME", NAME defaulting to the folder's) shows the
    time spent. With a tokenizer on `core="xla"`, `folder` gets
    `assets.extra/tf_serving_warmup_requests` (`numeric.serving.add_warmup_requests`):
    TF Serving compiles every batch-size bucket at load, not on the first requests.

    >>> import tempfile
    >>> folder = tempfile.TemporaryDirectory()
    >>> seconds = save_model(tf.Module(), f"{folder.name}/model")
    >>> sorted(p.name for p in pathlib.Path(folder.name, "model").iterdir())
    ['assets', 'fingerprint.pb', 'saved_model.pb', 'variables']
    >>> folder.cleanup()
    """
    folder = pathlib.Path(folder)
    with timed_step(f"saving {name or folder.name}") as step:
        tf.saved_model.save(module, str(folder), signatures=signatures)
        add_warmup_requests(folder, module)  # core="xla": TF Serving compiles at load, not on the first requests
    return step.seconds


def save_atomically(
    module: tf.Module, out_dir: str | os.PathLike, *, overwrite: bool = False, signatures=None
) -> pathlib.Path:
    """`save_model` into a hidden sibling folder (`.NAME.*`), then renames it into place; returns `out_dir` resolved.

    `files.check_model_folder` runs first: only an existing SavedModel (or an
    empty folder) is ever replaced, only with `overwrite`, and only once the new
    one is complete (`files.write_folder_atomically`, which says what Ctrl-C and
    SIGKILL leave). A ValueError or FileExistsError names `out_dir`.

    >>> import tempfile
    >>> folder = tempfile.TemporaryDirectory()
    >>> out = save_atomically(tf.Module(), f"{folder.name}/model")
    >>> (out / "saved_model.pb").is_file(), sorted(p.name for p in pathlib.Path(folder.name).iterdir())
    (True, ['model'])
    >>> folder.cleanup()
    """
    out = check_model_folder(out_dir, overwrite=overwrite, what="out_dir")
    write_folder_atomically(
        out, lambda folder: save_model(module, folder, signatures=signatures, name=out.name), replace=out.exists()
    )
    return out
