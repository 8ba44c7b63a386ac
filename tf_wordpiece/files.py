"""Writing files so that nothing is lost: a reader sees the old file or the complete new one, never a part."""

from __future__ import annotations

import os
import pathlib
import tempfile


def write_text_atomically(path: str | os.PathLike, text: str, *, overwrite: bool = True, what: str = "out") -> None:
    """Writes UTF-8 `text` to a temporary file beside `path`, syncs it, then renames it into place.

    An interrupted write leaves `path` as it was. With `overwrite=False` an
    existing `path` is a FileExistsError naming the argument `what`.
    """
    path = pathlib.Path(path)
    if path.exists() and not overwrite:
        raise FileExistsError(f"{what}: {path} exists; pass overwrite (--overwrite) to replace it")
    if not path.parent.is_dir():
        raise ValueError(f"{what}: the folder {path.parent} does not exist; create it first")
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(temporary, 0o666 & ~_umask())  # mkstemp makes it private; give it a normal file's mode
        os.replace(temporary, path)
    except BaseException:
        pathlib.Path(temporary).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
