"""A tf.data service dispatcher or worker, with nothing but TensorFlow: no tf_wordpiece, no tensorflow_text.

    python tf_data_server.py dispatcher [--port 5050]
    python tf_data_server.py worker --dispatcher HOST:5050 [--port 0] [--host HOST]

Start one dispatcher, then a worker on each machine that should run input pipelines. A client sends
its pipeline's graph with `dataset.apply(tf.data.experimental.service.distribute(..., service=
"grpc://HOST:5050"))`; the workers run it. The converter that `tf-wordpiece export` writes tokenizes in
core TensorFlow ops, and its vocabulary tables travel inside that graph, so the workers need only the
TensorFlow version the client has (docs/deployment.md, "Scaling out").

Prints one line once it serves (`dispatcher grpc://localhost:5050`, `worker ... of dispatcher HOST:5050`),
then serves until Ctrl-C or SIGTERM. A worker started before its dispatcher waits for it. `--host` is the
name clients use to reach a worker (default localhost, which only works on one machine).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    roles = parser.add_subparsers(dest="role", required=True)
    dispatcher = roles.add_parser("dispatcher", help="the service's coordinator: one per cluster")
    dispatcher.add_argument("--port", type=int, default=5050, help="port to serve on (0: any free port; default: 5050)")
    worker = roles.add_parser("worker", help="runs the pipelines that clients send")
    worker.add_argument("--dispatcher", required=True, help="the dispatcher's HOST:PORT")
    worker.add_argument("--port", type=int, default=0, help="port to serve on (default: 0, any free port)")
    worker.add_argument(
        "--host", default="localhost", help="this machine's name as clients reach it (default: localhost)"
    )
    args = parser.parse_args(argv)
    if not 0 <= args.port <= 65535:
        parser.error(f"--port: {args.port} is not a port number (0 to 65535)")
    if args.role == "worker" and args.dispatcher.startswith("grpc://"):
        args.dispatcher = args.dispatcher[len("grpc://") :]  # WorkerConfig wants HOST:PORT
    return args


def serve(args: argparse.Namespace) -> str:
    """Starts the server (it runs on TensorFlow's threads); returns the line that announces it."""
    tf = import_tensorflow_quietly()
    service = tf.data.experimental.service
    if args.role == "dispatcher":
        server = service.DispatchServer(service.DispatcherConfig(port=args.port))
        announce = f"dispatcher {server.target}"
    else:
        config = service.WorkerConfig(
            dispatcher_address=args.dispatcher, port=args.port, worker_address=f"{args.host}:%port%"
        )
        server = service.WorkerServer(config)  # returns once the dispatcher has registered it
        announce = f"worker on {args.host} (port {args.port or 'chosen by TensorFlow'}) of dispatcher {args.dispatcher}"
    serve.server = server  # kept alive until the process ends
    return announce


def import_tensorflow_quietly():
    """TensorFlow imported with its log lines hidden, as tf_wordpiece's command line does (here without
    tf_wordpiece, which a worker need not have); TF_WORDPIECE_TF_LOGS=1 shows them.

    The lines written while its libraries load ignore TF_CPP_MIN_LOG_LEVEL, so file descriptor 2 is sent
    to /dev/null during the import and the devices' creation (cuInit's "E..." line without a GPU driver);
    TF_CPP_MIN_LOG_LEVEL=3 hides the later ones.
    """
    if os.environ.get("TF_WORDPIECE_TF_LOGS", "") not in ("", "0"):
        import tensorflow as tf

        return tf
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    sys.stderr.flush()
    saved, null = os.dup(2), os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 2)
    try:
        import tensorflow as tf

        tf.config.list_logical_devices()
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(null)
    return tf


def main(argv=None) -> int:
    args = parse_args(argv)
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    print(serve(args), flush=True)
    while not stop.wait(0.5):
        pass
    print(f"{args.role} stopped", flush=True)
    # TensorFlow's server objects can wait on their peers while Python tears them down: leave at once.
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main())
