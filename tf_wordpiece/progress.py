"""Progress lines for long work (learning, counting, saving). tqdm is imported only when a bar is shown."""

from __future__ import annotations

import contextlib
import threading
from typing import Iterable, Iterator, TypeVar

T = TypeVar("T")


def progress_bar(iterable: Iterable[T] | None = None, *, desc: str, disable: bool = False, **options):
    """A tqdm bar (tqdm.auto: a widget in notebooks) over `iterable`; `options` go to tqdm."""
    from tqdm.auto import tqdm

    return tqdm(iterable, desc=desc, disable=disable, **options)


@contextlib.contextmanager
def elapsed_time_bar(desc: str, *, disable: bool = False, interval: float = 0.5) -> Iterator[None]:
    """Shows `desc: 00:12` with the time spent so far while one long call (such as a SavedModel save) runs.

    The call itself reports no progress, so a thread redraws the line every `interval` seconds.
    """
    stop = threading.Event()
    with progress_bar(desc=desc, disable=disable, bar_format="{desc}: {elapsed}", leave=False) as bar:
        ticker = threading.Thread(target=lambda: _redraw_until(stop, bar, interval), daemon=True)
        ticker.start()
        try:
            yield
        finally:
            stop.set()
            ticker.join()


def _redraw_until(stop: threading.Event, bar, interval: float) -> None:
    while not stop.wait(interval):
        bar.refresh()
