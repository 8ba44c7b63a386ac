"""What the command-line entry points share: TensorFlow imported quietly, errors in option names, Ctrl-C.

Nothing here imports TensorFlow, so `--help` and argument errors answer at once.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import sys
from typing import Callable, Iterator

INTERRUPTED = 130  # the shell's code for a process ended by Ctrl-C (128 + SIGINT)


def import_tensorflow_quietly():
    """Imports TensorFlow with its C++ log lines hidden, unless the user set TF_CPP_MIN_LOG_LEVEL.

    TensorFlow prints oneDNN, CUDA and cuInit lines while it loads, before its
    log level applies, so standard error is muted while it imports.
    """
    if "TF_CPP_MIN_LOG_LEVEL" in os.environ:
        import tensorflow as tf

        return tf
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    with _stderr_muted():
        import tensorflow as tf
    return tf


@contextlib.contextmanager
def _stderr_muted() -> Iterator[None]:
    sys.stderr.flush()
    saved = os.dup(2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


def in_option_names(message: str, parser: argparse.ArgumentParser) -> str:
    """Writes the Python argument names of a library error as the parser's options: vocab_size -> --vocab-size."""
    options = {action.dest: action.option_strings[0] for action in parser._actions if action.option_strings}

    def option(match: re.Match) -> str:
        return options.get(match.group(0), match.group(0))

    message = re.sub(r"^(\w+)(?=:)", option, message)  # "input: ..." -> "--input: ..."
    return re.sub(r"(?<![\w-])[a-z]+(?:_[a-z]+)+\b", option, message)  # names with underscores, anywhere


def run_command(name: str, command: Callable[[], int], *, kept: list[str]) -> int:
    """Runs `command` (which returns an exit code); on Ctrl-C prints what was kept and exits 130 at once.

    The exit skips interpreter shutdown on purpose: a tf.data pipeline cut off
    mid-batch can make shutdown wait forever for its threads. Files being written
    are removed by their writers' cleanup as the interrupt unwinds, before this.
    """
    try:
        return command()
    except KeyboardInterrupt:
        what = f"kept {', '.join(kept)}" if kept else "nothing written"
        print(f"\n{name}: interrupted; {what}", file=sys.stderr)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(INTERRUPTED)  # inside the except block, while the interrupted frames are still alive
