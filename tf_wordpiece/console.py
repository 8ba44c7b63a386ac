"""What the command-line entry points share: TensorFlow imported quietly, errors in option names, Ctrl-C.

Nothing here imports TensorFlow, so `--help` and argument errors answer at once.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import signal
import sys
import tempfile
import threading
from typing import Callable, Iterator, Sequence

from tf_wordpiece.messages import in_names, shown_path

INTERRUPTED = 130  # the shell's code for a process ended by Ctrl-C (128 + SIGINT)


TF_LOGS = "TF_WORDPIECE_TF_LOGS"  # set to 1 to see TensorFlow's own log lines on standard error
TF_LOGS_HELP = (
    f"TensorFlow's own log lines are hidden, whatever TF_CPP_MIN_LOG_LEVEL says; set {TF_LOGS}=1 to see them "
    "(TF_CPP_MIN_LOG_LEVEL then applies)."
)


def tensorflow_logs_wanted() -> bool:
    """Whether the user asked for TensorFlow's log lines (TF_WORDPIECE_TF_LOGS set, to anything but "" or 0)."""
    return os.environ.get(TF_LOGS, "") not in ("", "0")


def import_tensorflow_quietly(announce: str | None = None):
    """Imports TensorFlow and starts its runtime with its C++ log lines hidden, unless `tensorflow_logs_wanted()`.

    Returns the `tensorflow` module. `announce`, if given, is printed on
    standard error first (the import takes seconds): a command's first
    progress line.

    TensorFlow 2.21 writes its log lines from C++ straight to file descriptor
    2, where no Python setting reaches. The lines written while its shared
    libraries load (absl's "All log messages before absl::InitializeLog()"
    warning, oneDNN, cudart_stub; printed once by each of two libraries) come
    before TensorFlow reads TF_CPP_MIN_LOG_LEVEL, so they ignore it: descriptor
    2 is redirected while TensorFlow imports. The first operation then creates
    the devices (cuInit's error on a machine without a GPU driver), so that
    runs inside the redirection too; later lines obey TF_CPP_MIN_LOG_LEVEL,
    set to 3 (fatal errors only) for the rest of the process and its children.
    If the import fails, what was written meanwhile is shown after all.
    """
    if "tensorflow" in sys.modules:  # already loaded (a Python caller, or a test): nothing left to hide
        return sys.modules["tensorflow"]
    if announce:
        print(announce, file=sys.stderr, flush=True)
    if tensorflow_logs_wanted():
        with ctrl_c_stays_ctrl_c():
            import tensorflow as tf

        return tf
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    with _stderr_held_back(), ctrl_c_stays_ctrl_c():
        import tensorflow as tf

        tf.config.list_logical_devices()  # creates the devices: the lines of the first operation come here
    return tf


class _CtrlCNoted:
    """Python's own Ctrl-C handler (raises KeyboardInterrupt) that also counts the presses."""

    def __init__(self) -> None:
        self.presses = 0

    def __call__(self, signum, frame):
        self.presses += 1
        raise KeyboardInterrupt


@contextlib.contextmanager
def ctrl_c_stays_ctrl_c() -> Iterator[None]:
    """A Ctrl-C pressed inside the block ends it as a KeyboardInterrupt, whatever the code it hit made of it.

    pybind11 reports a KeyboardInterrupt raised while one of TensorFlow's
    modules initializes as `ImportError: initialization failed`; where
    TensorFlow imports an optional module under `except ImportError` the
    Ctrl-C was lost (the export went on); one raised while autograph converts
    a function becomes `AssertionError: Concurrent access?` as its stack
    mapper unwinds. Each ended a command with a traceback or not at all.
    Blocks nest (an inner one still ends at once). Only in the main thread,
    and only over Python's own Ctrl-C handler (a caller's handler is left alone).

    >>> with ctrl_c_stays_ctrl_c():
    ...     pass
    """
    handler = signal.getsignal(signal.SIGINT) if threading.current_thread() is threading.main_thread() else None
    installed_here = handler is signal.default_int_handler
    if installed_here:
        handler = _CtrlCNoted()
        signal.signal(signal.SIGINT, handler)
    if not isinstance(handler, _CtrlCNoted):  # not the main thread, a caller's own handler, or Ctrl-C ignored
        yield
        return
    presses_before = handler.presses
    try:
        yield
    except KeyboardInterrupt:
        raise
    except Exception as error:
        if handler.presses > presses_before:
            raise KeyboardInterrupt from error
        raise
    finally:
        if installed_here:
            signal.signal(signal.SIGINT, signal.default_int_handler)
    if handler.presses > presses_before:  # swallowed on the way (TensorFlow imports optional modules under
        raise KeyboardInterrupt  # `except ImportError`)


@contextlib.contextmanager
def runtime_lines_hidden() -> Iterator[None]:
    """Hides what native code writes to standard error inside the block (shown if the block raises), unless
    `tensorflow_logs_wanted()`: TFLite's interpreter, for one, prints "INFO: Created TensorFlow Lite XNNPACK
    delegate for CPU." from C++, where no log level reaches.
    """
    if tensorflow_logs_wanted():
        yield
        return
    with _stderr_held_back():
        yield


@contextlib.contextmanager
def _stderr_held_back() -> Iterator[None]:
    """Sends what is written to file descriptor 2 aside: dropped if the block succeeds, written out if it raises.

    Ctrl-C (KeyboardInterrupt) drops it too: then only "interrupted" is wanted.
    """
    sys.stderr.flush()
    saved = os.dup(2)
    failed = False
    with tempfile.TemporaryFile() as aside:  # unlinked at once: nothing is left in the temp dir
        os.dup2(aside.fileno(), 2)
        try:
            yield
        except Exception:  # a broken install, say: the lines held back may tell why
            failed = True
            raise
        finally:
            sys.stderr.flush()  # Python's own writes in the block go aside too
            os.dup2(saved, 2)
            os.close(saved)
            if failed:
                aside.seek(0)
                held = aside.read()
                while held:
                    held = held[os.write(2, held) :]


def hide_log_records(*beginnings: str, logger: str = "") -> Callable[[logging.LogRecord], bool]:
    """Drops the records of `logger` (the root logger by default) whose message starts with one of `beginnings`.

    For a library's warnings that do not concern a command's user, such as
    Apache Beam's "apitools not found" (it logs on the root logger). A
    logger's filter sees only the records logged on that logger itself, not
    those of its children: name the logger that logs them. Every other record
    passes. Returns the filter (`logging.getLogger(logger).removeFilter(it)` ends it).
    """

    def keep(record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith(beginnings)

    logging.getLogger(logger).addFilter(keep)
    return keep


class DefaultsOnceHelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """argparse's "(default: X)" after each option's help, unless the help states its default.

    An option without a default (None) shows "(default: none)", a required
    one "(required)": every option says what happens when it is left out.
    """

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if "default" in text or action.default is argparse.SUPPRESS:
            return text
        if action.required and action.option_strings:
            return f"{text} (required)"
        if action.default is None or action.default == []:
            return f"{text} (default: none)"
        return super()._get_help_string(action)


class CommandParser(argparse.ArgumentParser):
    """A subcommand's parser: an unknown option is its own error, shown with its own usage.

    argparse hands a subparser's unknown arguments up to the top-level parser,
    which would report them with the top-level usage.
    """

    def parse_known_args(self, args=None, namespace=None):
        parsed, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed, extras


def check_utf8_arguments(args: argparse.Namespace, names: dict[str, str]) -> None:
    """Raises ValueError, naming the argument, if a text argument is not UTF-8.

    Python hands over undecodable command-line bytes as lone surrogates
    (U+DC80..U+DCFF, "surrogateescape"); TensorFlow cannot take such a str.
    `names` maps each destination to check to its name on the command line.
    """
    for dest, name in names.items():
        value = getattr(args, dest, None)
        values = value if isinstance(value, list) else [value]
        for number, text in enumerate(values, 1):
            if not isinstance(text, str):
                continue
            try:
                text.encode("utf-8")
            except UnicodeEncodeError as e:
                raw = text.encode("utf-8", "surrogateescape")
                offset = len(text[: e.start].encode("utf-8", "surrogateescape"))
                which = f"argument {number} " if isinstance(value, list) else ""
                raise ValueError(
                    f"{name}: {which}{raw!r} is not valid UTF-8 (byte 0x{raw[offset]:02x} at byte offset {offset}); "
                    "pass text in UTF-8: set a UTF-8 locale in the terminal (e.g. LANG=C.UTF-8) or convert it with "
                    "iconv -f latin1 -t utf-8"
                ) from None


def check_readable_files(paths: Sequence[str], option: str, *, stdin: bool = False) -> None:
    """Raises ValueError, naming `option`, unless every path is a readable file ("-": standard input, if `stdin`).

    Run before TensorFlow loads, so that a typo is reported at once.
    """
    for path in paths:
        if stdin and path == "-":
            continue
        if os.path.isdir(path):
            raise ValueError(f"{option}: '{shown_path(path)}' is a folder; give the path of a file")
        if not os.path.exists(path):
            raise ValueError(f"{option}: '{shown_path(path)}' does not exist; check the path")
        try:
            with open(path, "rb"):
                pass
        except OSError as e:
            raise ValueError(f"{option}: cannot read '{shown_path(path)}': {e.strerror}") from None


def in_option_names(
    message: str, parser: argparse.ArgumentParser, *, aliases: dict[str, str] | None = None, option: str | None = None
) -> str:
    """Writes the Python argument names of a library error as the parser's options: vocab_size -> --vocab-size.

    `aliases` maps other leading names (a library's `path`) to options; a
    message that starts with no option then gets `option` in front, if given.
    """
    options = {action.dest: action.option_strings[0] for action in parser._actions if action.option_strings}
    message = in_names(message, options | (aliases or {}))  # "input: ..." -> "--input: ...", vocab_size anywhere
    if option and not message.startswith("-"):
        message = f"{option}: {message}"  # e.g. "pairs.tsv: line 3 ..." -> "--input: pairs.tsv: line 3 ..."
    return message


def run_command(name: str, command: Callable[[], int], *, kept: list[str]) -> int:
    """Runs `command` (which returns an exit code); on Ctrl-C prints what was kept and exits 130 at once.

    The exit skips interpreter shutdown on purpose: a tf.data pipeline cut off
    mid-batch can make shutdown wait forever for its threads. Files being written
    are removed by their writers' cleanup as the interrupt unwinds, before this.
    """
    try:
        with ctrl_c_stays_ctrl_c():
            return command()
    except KeyboardInterrupt:
        what = f"kept {', '.join(kept)}" if kept else "nothing written"
        print(f"\n{name}: interrupted; {what}", file=sys.stderr)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(INTERRUPTED)  # inside the except block, while the interrupted frames are still alive
