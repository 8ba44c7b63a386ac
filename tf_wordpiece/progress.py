"""Progress lines for long work (learning, counting, saving). tqdm is imported only when a bar is shown."""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from typing import Iterable, Iterator, TypeVar

T = TypeVar("T")


def progress_bar(iterable: Iterable[T] | None = None, *, desc: str, disable: bool = False, **options):
    """A tqdm bar (tqdm.auto: a widget in notebooks) over `iterable`; `options` go to tqdm.

    Written to a file or a pipe (standard error is not a terminal, outside a
    notebook), it is a `PlainLines` instead: whole lines, no `\\r` frames.
    """
    stream = options.get("file") or sys.stderr
    if not disable and not _animated(stream):
        return PlainLines(
            iterable, desc=desc, unit=options.get("unit", "it"), total=options.get("total"), stream=stream
        )
    from tqdm.auto import tqdm

    return tqdm(iterable, desc=desc, disable=disable, **options)


def _animated(stream) -> bool:
    """Whether a bar redrawn in place suits `stream`: a terminal, or a notebook (tqdm.auto draws a widget there)."""
    if _in_a_notebook():
        return True
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


def _in_a_notebook() -> bool:
    """Whether this process is a Jupyter kernel running code (not merely one that imported ipykernel)."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None and hasattr(ipython, "get_ipython") else None
    return type(shell).__name__ == "ZMQInteractiveShell"


class PlainLines:
    """A progress bar for logs: `desc ...` when it starts, `desc: N unit so far` at most once a minute, and
    `desc: N unit in T s` when it ends (`desc: 100% (N/N) in T s` when the total is known). Whole lines only.

    `unit` is a plural noun, as tqdm's units are (" strings", " steps"): a count of 1 drops its final "s"
    ("1 step"); tqdm's default "it" stays as it is.

    It offers what the package calls on tqdm bars: iteration, `update`,
    `set_postfix`, `refresh`, `close`, and use as a context manager.

    >>> import io
    >>> log = io.StringIO()
    >>> for _ in PlainLines(range(3), desc="counting", unit=" files", stream=log):
    ...     pass
    >>> print(log.getvalue().replace("\\r", "<CR>"))  # doctest: +ELLIPSIS
    counting ...
    counting: 100% (3/3 files) in 0.0 s
    <BLANKLINE>
    >>> log = io.StringIO()
    >>> with PlainLines(desc="search", unit=" steps", stream=log) as bar:
    ...     bar.update()
    >>> log.getvalue().splitlines()[-1]
    'search: 1 step in 0.0 s'
    """

    EVERY = 60.0  # seconds between two "so far" lines

    def __init__(self, iterable=None, *, desc: str, unit: str = "it", total: int | None = None, stream=None):
        self.iterable, self.desc = iterable, desc
        self.total = len(iterable) if total is None and hasattr(iterable, "__len__") else total
        self.unit = unit if unit.startswith(" ") else f" {unit}"  # tqdm's units are glued: "3it", " 3 lines"
        self.stream = stream or sys.stderr
        self.n, self.closed = 0, False
        self.start = self.said = time.perf_counter()
        self._say(f"{desc} ...")

    def __iter__(self):
        try:
            for item in self.iterable:
                yield item
                self.update()
        finally:
            self.close()

    def __enter__(self) -> PlainLines:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def update(self, n: int = 1) -> None:
        self.n += n
        now = time.perf_counter()
        if now - self.said >= self.EVERY:
            self.said = now
            self._say(f"{self.desc}: {self._count(self.n)} so far, {now - self.start:.0f} s")

    def set_postfix(self, **values) -> None:
        """Ignored: a log gets the step's final line, not each intermediate value."""

    def refresh(self) -> None:
        """Nothing to redraw."""

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        seconds = time.perf_counter() - self.start
        if self.total:
            done = f"{100 * self.n // self.total}% ({self.n}/{self._count(self.total)})"
            self._say(f"{self.desc}: {done} in {seconds:.1f} s")
        else:
            self._say(f"{self.desc}: {self._count(self.n)} in {seconds:.1f} s")

    def _count(self, n: int) -> str:
        """`n` and the unit, in the singular for 1 ("1 step", "2 steps")."""
        return f"{n}{self.unit[:-1] if n == 1 and self.unit.endswith('s') else self.unit}"

    def _say(self, line: str) -> None:
        print(line, file=self.stream, flush=True)


@contextlib.contextmanager
def elapsed_time_bar(desc: str, *, disable: bool = False, interval: float = 0.5) -> Iterator[None]:
    """Shows `desc: 00:12` with the time spent so far while one long call (such as a SavedModel save) runs.

    The call itself reports no progress, so a thread redraws the line every `interval` seconds.
    """
    if not disable and not _animated(sys.stderr):  # a log: one line now; the caller writes the time at the end
        print(f"{desc} ...", file=sys.stderr, flush=True)
        yield
        return
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
