"""Progress lines for long work (learning, counting, saving). tqdm is imported only when a bar is shown."""

from __future__ import annotations

import contextlib
import sys
import threading
import time
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


class Stopwatch:
    """The seconds a `timed_step` took (0.0 until its block ends)."""

    seconds: float = 0.0


@contextlib.contextmanager
def timed_step(desc: str, *, disable: bool = False) -> Iterator[Stopwatch]:
    """One long call's line: `desc: 00:03` counting while the block runs, then `desc: 3.2 s` left in place.

    The yielded stopwatch holds that same figure once the block ends, so a
    summary quotes what the line showed. Nothing is left when the block fails.
    """
    watch = Stopwatch()
    start = time.perf_counter()
    with elapsed_time_bar(desc, disable=disable):
        yield watch
    watch.seconds = time.perf_counter() - start
    if not disable:
        from tqdm.auto import tqdm

        tqdm.write(f"{desc}: {watch.seconds:.1f} s", file=sys.stderr)
