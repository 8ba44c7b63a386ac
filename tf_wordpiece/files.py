"""Writing files so that nothing is lost: a reader sees the old file or the complete new one, never a part."""

from __future__ import annotations

import contextlib
import os
import pathlib
import shutil
import signal
import tempfile
import threading
import zipfile
from typing import Callable

from tf_wordpiece.messages import shown_path


def write_text_atomically(
    path: str | os.PathLike,
    text: str,
    *,
    overwrite: bool = True,
    what: str = "out",
    kind: str = "file",
    looks_ours: Callable[[bytes], bool] | None = None,
) -> None:
    """Writes UTF-8 `text` to a temporary file beside `path`, syncs it, then renames it into place.

    An interrupted write leaves `path` as it was. `check_file_output` runs first:
    a folder at `path` is an error, and so is an existing file with `overwrite=False`.
    """
    path = check_file_output(path, overwrite=overwrite, what=what, kind=kind, looks_ours=looks_ours)
    write_bytes_atomically(path, text.encode("utf-8"))


def write_bytes_atomically(path: str | os.PathLike, data: bytes, *, replace: bool = True) -> None:
    """Writes `data` to a hidden temporary file beside `path` (`.NAME.*.tmp`), syncs it, then renames it into place.

    The caller has checked that `path` may be written (`check_file_output`). With
    `replace=False` a file that appeared at `path` since is kept and the write
    is a FileExistsError. Ctrl-C or an error leaves `path` as it was and no
    temporary file; SIGKILL can leave the hidden temporary file.
    """
    path = pathlib.Path(path)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(temporary, 0o666 & ~_umask())  # mkstemp makes it private; give it a normal file's mode
        _refuse_newcomer(path, replace)
        os.replace(temporary, path)
    except BaseException:
        pathlib.Path(temporary).unlink(missing_ok=True)
        raise


def check_file_output(
    path: str | os.PathLike,
    *,
    overwrite: bool,
    what: str = "out",
    kind: str = "file",
    looks_ours: Callable[[bytes], bool] | None = None,
    ours: str | None = None,
) -> pathlib.Path:
    """Checks, before any work, that a file may be written at `path`. Returns it as a Path.

    A folder at `path` or a missing parent folder is a ValueError. An existing
    file is a FileExistsError unless `overwrite`; with `overwrite` it is still
    refused (ValueError) when `looks_ours` says its first bytes are not a `kind`
    this package writes, so that a user's own file is never replaced.
    `what` names the argument in messages ("--out", "path"); `ours`, if given,
    says in the refusal what `looks_ours` recognises.
    """
    path = pathlib.Path(path)
    if path.is_dir():
        raise ValueError(
            f"{what}: {shown_path(path)} is a folder; give the path of the {kind} to write inside it, "
            f"such as {shown_path(path / _example_name(kind))}"
        )
    if not path.parent.is_dir():
        raise ValueError(f"{what}: the folder {shown_path(path.parent)} does not exist; create it first")
    if path.exists():
        if not overwrite:
            raise FileExistsError(
                f"{what}: {shown_path(path)} already exists; {_overwrite_hint(what)} to replace that {kind}, or "
                "choose another path"
            )
        if looks_ours is not None and not looks_ours(_head(path)):
            if ours:
                raise ValueError(
                    f"{what}: {shown_path(path)} exists and is not {ours}; tf-wordpiece replaces only what it wrote, "
                    "so move or delete that file yourself if it is yours to replace, or choose another path"
                )
            raise ValueError(
                f"{what}: {shown_path(path)} exists and does not look like a {kind}; tf-wordpiece replaces only "
                f"files of the kind it writes, so move that file or choose another path"
            )
    return path


def check_model_folder(path: str | os.PathLike, *, overwrite: bool, what: str = "out") -> pathlib.Path:
    """Checks, before any work, that a SavedModel folder may be written at `path`. Returns it resolved.

    Only an existing SavedModel folder (one holding `saved_model.pb`) is ever
    replaced, and only with `overwrite`: see `check_output_folder`.
    """
    return check_output_folder(path, overwrite=overwrite, what=what, kind="SavedModel", is_ours=is_saved_model)


def is_saved_model(folder: pathlib.Path) -> bool:
    return (folder / "saved_model.pb").is_file()


def check_output_folder(
    path: str | os.PathLike, *, overwrite: bool, what: str, kind: str, is_ours: Callable[[pathlib.Path], bool]
) -> pathlib.Path:
    """Checks, before any work, that a folder of `kind` (a SavedModel, a TF.js model) may be written at `path`.

    Returns it resolved. An existing folder that `is_ours` recognises (one this
    package writes) is replaced only with `overwrite`. An empty folder is filled
    as it is, with or without `overwrite` (the user made it for this output);
    missing parent folders are the writer's to create. The current folder or
    one above it, a file, and a folder holding anything else are refused
    (ValueError), whatever `overwrite` says.
    """
    out = pathlib.Path(path).resolve()
    here = pathlib.Path.cwd().resolve()
    if out == here or out in here.parents:
        raise ValueError(
            f"{what}: {shown_path(path)} is the current folder or one above it; give a new folder name for the "
            f"{kind}, such as ./{_example_folder(kind)}"
        )
    if out.exists() and not out.is_dir():
        raise ValueError(f"{what}: {shown_path(out)} is a file, not a {kind} folder; move it or choose another path")
    if out.is_dir():
        if is_ours(out):
            if not overwrite:
                raise FileExistsError(
                    f"{what}: {shown_path(out)} already holds a {kind}; {_overwrite_hint(what)} to replace "
                    "that model, or choose another path"
                )
        elif any(out.iterdir()):
            entries = sorted(shown_path(p.name) for p in out.iterdir())
            shown = ", ".join(entries[:3]) + (f" and {len(entries) - 3} more" if len(entries) > 3 else "")
            raise ValueError(
                f"{what}: {shown_path(out)} is a folder that is not a {kind} (it holds {shown}); tf-wordpiece "
                f"replaces only {kind} folders it writes, so give a new folder name"
            )
    return out


def check_zip_output(path: str | os.PathLike, *, overwrite: bool, folder_name: str, what: str = "out") -> pathlib.Path:
    """Checks that the archive of model folder `folder_name` may be written at `path` (see `check_file_output`).

    An existing archive is replaced only when it is a zip of `folder_name/`
    alone, as `zip_atomically` writes it.
    """

    def is_zip_of_the_model(_head: bytes) -> bool:
        try:
            with zipfile.ZipFile(path) as archive:
                names = archive.namelist()
        except (zipfile.BadZipFile, OSError):
            return False
        return bool(names) and all(name == f"{folder_name}/" or name.startswith(f"{folder_name}/") for name in names)

    return check_file_output(
        path, overwrite=overwrite, what=what, kind=f"zip of {folder_name}/", looks_ours=is_zip_of_the_model
    )


def head_text(head: bytes) -> str | None:
    """The first bytes of a file as UTF-8 text (a character cut at the end of the sample dropped), or None if
    they are not UTF-8."""
    try:
        return head.decode("utf-8")
    except UnicodeDecodeError as e:
        if e.start < len(head) - 4:  # not just a character cut at the end of the sample
            return None
        return head[: e.start].decode("utf-8")


def looks_like_text_lines(head: bytes) -> bool:
    """Whether the first bytes of a file read as UTF-8 text of one token a line (a vocab file), not prose or data.

    Prose, tables and JSON have spaces inside most lines; vocabularies almost never do.
    """
    text = head_text(head)
    if text is None:
        return False
    lines = [line.strip() for line in text.split("\n") if line.strip()]
    with_spaces = sum(1 for line in lines if any(c.isspace() for c in line))
    binary = sum(1 for line in lines if "\x00" in line and line != "\x00")  # a NUL token alone on its line is fine
    return with_spaces * 2 <= len(lines) and not binary


def _overwrite_hint(what: str) -> str:
    return "pass --overwrite" if what.startswith("--") else "pass overwrite=True"


def _head(path: pathlib.Path, size: int = 65536) -> bytes:
    with open(path, "rb") as f:
        return f.read(size)


def _example_name(kind: str) -> str:
    return {"vocab file": "vocab.txt", "tokenizer.json": "tokenizer.json", "TFLite model": "model.tflite"}.get(
        kind, "out.txt"
    )


def _example_folder(kind: str) -> str:
    return {"SavedModel": "converter", "TF.js model": "tfjs_model"}.get(kind, "out")


def write_folder_atomically(out: pathlib.Path, write: Callable[[pathlib.Path], None], *, replace: bool) -> None:
    """`write(folder)` into a hidden sibling folder (`.NAME.*/model`), then swaps it in at `out`.

    The caller has checked that replacing `out` loses nothing (`check_output_folder`)
    and says with `replace` whether something was there to replace: with
    `replace=False` anything that appeared at `out` since is kept and the swap
    is a FileExistsError. `write` may put files it needs only while writing
    (a SavedModel's asset sources) beside `folder`, in the hidden folder, which
    is removed afterwards. Ctrl-C (SIGINT) at any point leaves the old `out`
    (or none) and no hidden folder; it is held back while the two renames of
    the swap run. SIGKILL can leave a hidden `.NAME.*` sibling and, if it lands
    between those two renames, the old folder in `.NAME.old.*/model` with
    nothing at NAME; never a partial folder at NAME.
    """
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = pathlib.Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    retired = None
    try:
        write(staging / "model")
        with interrupts_deferred():
            _refuse_newcomer(out, replace)
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
        (retired / "model").rename(out)  # put the old one back
        raise
    return retired


def zip_atomically(folder: pathlib.Path, archive: pathlib.Path, *, replace: bool) -> pathlib.Path:
    """Writes `archive`, a zip of `folder` under its own name (`NAME/...`), through a hidden temporary folder.

    The caller has checked that `archive` may be written (`check_zip_output`);
    `replace` as in `write_folder_atomically`. Returns `archive`.
    """
    staging = pathlib.Path(tempfile.mkdtemp(prefix=f".{archive.name}.", dir=archive.parent))
    try:
        made = shutil.make_archive(str(staging / folder.name), "zip", root_dir=folder.parent, base_dir=folder.name)
        _refuse_newcomer(archive, replace)
        os.replace(made, archive)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return archive


def _refuse_newcomer(path: pathlib.Path, replace: bool) -> None:
    """A FileExistsError if something appeared at `path` after the check said nothing was there."""
    if not replace and (path.exists() or path.is_symlink()):
        raise FileExistsError(
            f"{shown_path(path)} appeared while tf-wordpiece was writing it; kept it, wrote nothing there"
        )


@contextlib.contextmanager
def interrupts_deferred():
    """Holds Ctrl-C (SIGINT) back until the block ends, so that a few renames happen all or none.

    Only the main thread receives signals in Python, so elsewhere this does nothing.
    Nothing can hold SIGKILL back; callers document what it can leave.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: held.append(frame))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if held and callable(previous):
            previous(signal.SIGINT, held[0])  # the default handler raises KeyboardInterrupt here
        elif held and previous == signal.SIG_DFL:
            signal.raise_signal(signal.SIGINT)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
