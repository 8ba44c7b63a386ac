"""Writing files so that nothing is lost: a reader sees the old file or the complete new one, never a part."""

from __future__ import annotations

import contextlib
import os
import pathlib
import signal
import tempfile
import threading


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
