"""A tf.data service cluster on this machine: a dispatcher and N workers, each its own Python process.

    with LocalCluster(num_workers=2) as cluster:
        dataset = dataset.apply(tf.data.experimental.service.distribute("distributed_epoch", cluster.target))

Each process runs `tf_data_server.py`. `unimportable=("tf_wordpiece", "tensorflow_text")` makes those
packages fail to import in the servers (as on a machine that has only TensorFlow), which is how the tests
prove that what travels to the workers is plain TensorFlow. The servers also exit when this process does
(they watch their stdin), so an interrupted run leaves none behind.
"""

from __future__ import annotations

import pathlib
import select
import socket
import subprocess
import sys
import tempfile
import time
from typing import Sequence

SERVER = pathlib.Path(__file__).resolve().parent / "tf_data_server.py"

# Runs before tf_data_server.py in each server process: blocks imports, and exits when stdin closes.
PRELUDE = """
import os, runpy, sys, threading
for name in sys.argv[1].split(","):
    if name:
        sys.modules[name] = None  # `import name` now raises ImportError
def exit_with_parent():
    sys.stdin.read()
    os._exit(0)
threading.Thread(target=exit_with_parent, daemon=True).start()
sys.argv = [sys.argv[2]] + sys.argv[3:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def free_port() -> int:
    """A port that nothing listens on now (the dispatcher takes it a moment later)."""
    with socket.socket() as probe:
        probe.bind(("localhost", 0))
        return probe.getsockname()[1]


class LocalCluster:
    """Starts a dispatcher and `num_workers` workers at once; `target` is the dispatcher's `grpc://` address.

    `start()` only launches the processes (they import TensorFlow in the background); `target` and
    `wait_ready()` wait until every server has announced itself (or `timeout` seconds, then RuntimeError).
    `stop()` (or leaving the `with` block) ends them all.
    """

    def __init__(self, num_workers: int = 2, *, unimportable: Sequence[str] = (), timeout: float = 180):
        if num_workers < 1:
            raise ValueError(f"num_workers: expected at least 1 worker, got {num_workers}")
        self.num_workers = num_workers
        self.unimportable = tuple(unimportable)
        self.timeout = timeout
        self.processes: list[subprocess.Popen] = []
        self._logs: list = []
        self._ready = False
        self._port = 0

    def start(self) -> LocalCluster:
        self._port = free_port()
        roles = [["dispatcher", "--port", str(self._port)]]
        roles += [["worker", "--dispatcher", f"localhost:{self._port}"]] * self.num_workers
        for role in roles:
            log = tempfile.TemporaryFile()  # the server's stderr, shown if it fails; never a name on disk
            command = [sys.executable, "-c", PRELUDE, ",".join(self.unimportable), str(SERVER), *role]
            self.processes.append(
                subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True)
            )
            self._logs.append(log)
        return self

    def wait_ready(self) -> None:
        if self._ready:
            return
        deadline = time.monotonic() + self.timeout
        for process, log in zip(self.processes, self._logs):
            line = self._first_line(process, deadline)
            if not line:
                log.seek(0)
                tail = log.read()[-3000:].decode("utf-8", "replace")
                self.stop()
                raise RuntimeError(f"a tf.data service server did not start ({' '.join(process.args[4:])}):\n{tail}")
        self._ready = True

    @staticmethod
    def _first_line(process: subprocess.Popen, deadline: float) -> str:
        """The server's announcement, or "" when it exits (or the deadline passes) first."""
        while time.monotonic() < deadline:
            if process.poll() is not None:
                return ""
            ready, _, _ = select.select([process.stdout], [], [], 0.5)  # POSIX (Linux, macOS)
            if ready:
                return process.stdout.readline().strip()
        return ""

    @property
    def target(self) -> str:
        """The dispatcher's address for `distribute(..., service=target)`, once every server is up."""
        self.wait_ready()
        return f"grpc://localhost:{self._port}"

    @property
    def pids(self) -> list[int]:
        return [process.pid for process in self.processes]

    def stop(self) -> None:
        for process in self.processes:
            process.stdin.close()  # the prelude's watcher ends the server at once
        for process in self.processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            process.stdout.close()
        for log in self._logs:
            log.close()
        self.processes, self._logs, self._ready = [], [], False

    def __enter__(self) -> LocalCluster:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
