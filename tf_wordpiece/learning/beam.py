"""Learning a vocabulary with Apache Beam, for corpora too large for one machine.

Workers split and count words in parallel (the same basic tokenizer and
counting as `tf-wordpiece learn`), the counts are summed per word, and one
worker learns the vocabulary from them: distinct words fit in memory even
when the text does not. The result equals `bert_vocab_from_dataset` on the
same text, except that words with equal counts come in sorted order rather
than in order of first appearance, which matters only when `max_input_tokens`
cuts between them.

    python -m tf_wordpiece.learning.beam --input 'gs://bucket/text/*.txt' --out gs://bucket/vocab.txt \\
        --vocab-size 30000 --lower-case --runner DataflowRunner --project P --region R \\
        --temp_location gs://bucket/tmp --extra_package dist/tf_wordpiece-0.1.0-py3-none-any.whl

Options it does not know are Beam pipeline options (runner, project, ...). It needs Apache Beam, which
the "beam" extra installs: pip install "tf-wordpiece[beam]".
"""

from __future__ import annotations

import argparse
import glob
import importlib.util
import os
import shutil
import signal
import sys
import threading
import time

from tf_wordpiece.console import (
    TF_LOGS_HELP,
    DefaultsOnceHelpFormatter,
    check_utf8_arguments,
    hide_log_records,
    import_tensorflow_quietly,
    in_option_names,
    run_command,
)
from tf_wordpiece.learning.params import (
    add_learn_options,
    bert_tokenizer_params,
    checked_param_names,
    learn_params,
    size_notes,
    threshold_summary,
)
from tf_wordpiece.messages import counted, shown_path

PROG = "python -m tf_wordpiece.learning.beam"
NEEDS_BEAM = 'Apache Beam is not installed; install the "beam" extra: pip install "tf-wordpiece[beam]"'


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description=__doc__.split("\n\n")[0],
        formatter_class=DefaultsOnceHelpFormatter,
        epilog=f"Options it does not know are Beam pipeline options (--runner, ...). {TF_LOGS_HELP}",
    )
    parser.add_argument("--input", required=True, metavar="PATTERN", help="text files (a glob, local or gs://...)")
    add_learn_options(parser)
    return parser


def _command_line() -> int:
    """`python -m`: --help and argument errors answer at once, a missing Beam in one line; then loads and runs.

    TensorFlow loads first, with its log lines hidden (Beam would load it
    otherwise). Ctrl-C while it all loads ends as Ctrl-C while it runs.
    """
    build_parser().parse_known_args()
    if importlib.util.find_spec("apache_beam") is None:
        print(f"{PROG}: {NEEDS_BEAM}", file=sys.stderr)
        return 2

    def load_and_run() -> int:
        import_tensorflow_quietly(announce="loading TensorFlow and Apache Beam")
        hide_log_records("apitools not found")  # Beam's check for its BigQuery client, irrelevant to text files
        # Beam's note that it replaces --out: the user passed --overwrite, which only ever replaces a vocab file.
        hide_log_records("Deleting %d existing files", logger="apache_beam.io.filebasedsink")
        # Beam's traceback of a Ctrl-C in a step: the command says "interrupted" instead.
        hide_log_records("KeyboardInterrupt", logger="apache_beam.runners.common")
        from tf_wordpiece.learning.beam import main  # this module under its own name: Beam pickles its functions so

        return main()

    return run_command(PROG, load_and_run, kept=[])


if __name__ == "__main__":
    code = _command_line()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # as `tf-wordpiece`: the slow shutdown has nothing left to stop
    sys.exit(code)

try:
    import apache_beam as beam
except ModuleNotFoundError as e:
    if e.name != "apache_beam":
        raise
    raise ModuleNotFoundError(f"tf_wordpiece.learning.beam: {NEEDS_BEAM}", name="apache_beam") from None
from apache_beam.metrics import Metrics, MetricsFilter  # noqa: E402
from apache_beam.options.pipeline_options import PipelineOptions, StandardOptions  # noqa: E402

from tf_wordpiece.learning.learner import check_learn_params, learn_with_stats  # noqa: E402
from tf_wordpiece.learning.written import check_learned_output  # noqa: E402
from tf_wordpiece.progress import progress_bar  # noqa: E402

# Runners that run the pipeline in this process (its workers are threads), as Beam spells them without case and
# "runner": they show progress lines here.
LOCAL_RUNNERS = ("direct", "switchingdirect", "bundlebaseddirect")


def learn_vocab(
    lines,
    *,
    vocab_size: int,
    reserved_tokens: list[str],
    bert_tokenizer_params: dict | None = None,
    learn_params: dict | None = None,
    progress: bool = False,
):
    """PCollection of text lines (bytes or str) -> PCollection of one element, the vocabulary (list of str).

    The arguments are those of `from_text.count_and_learn`, checked as it checks
    them (names and learning values here, before the pipeline runs; word
    splitting values when the workers build the splitter). With `progress`,
    the workers show a counting bar and the learner its search on standard
    error: for runners whose workers are threads of this process.
    """
    tokenizer_params, learning = checked_param_names(bert_tokenizer_params, learn_params)
    check_learn_params(vocab_size, reserved_tokens, learning)
    counts = (
        lines
        | "Batch" >> beam.BatchElements(min_batch_size=256, max_batch_size=1024)
        | "CountWords" >> beam.ParDo(_CountWords(tokenizer_params, progress=progress))
        | "SumCounts" >> beam.CombinePerKey(sum)
        | "AllCounts" >> beam.combiners.ToList()
    )
    return counts | "Learn" >> beam.Map(_learn_from_counts, vocab_size, list(reserved_tokens), learning, progress)


def run(argv: list[str] | None = None) -> dict:
    """Reads text files, learns, writes one vocab file (Beam writes it aside and renames it when done).

    The input must match files and `--out` may only replace a vocab file, with
    `--overwrite` (ValueError / FileExistsError before the pipeline starts).
    A runner that runs here (DirectRunner, the default) shows a line for each
    step on standard error. Returns the summary: lines, distinct words,
    tokens, threshold, seconds and the like.
    """
    args, pipeline_args = build_parser().parse_known_args(argv)
    check_utf8_arguments(args, {"reserved": "--reserved", "joiner": "--joiner"})
    _check_paths(args)
    options = PipelineOptions(pipeline_args)
    runner = options.view_as(StandardOptions).runner or "DirectRunner"
    progress = runner.lower().removesuffix("runner") in LOCAL_RUNNERS
    pipeline = beam.Pipeline(options=options)
    lines = pipeline | "Read" >> beam.io.ReadFromText(args.input, coder=beam.coders.BytesCoder())
    vocab = learn_vocab(
        lines,
        vocab_size=args.vocab_size,
        reserved_tokens=args.reserved,
        bert_tokenizer_params=bert_tokenizer_params(args),
        learn_params=learn_params(args),
        progress=progress,
    )
    _ = (
        vocab
        | "Lines" >> beam.Map(_vocab_text, shown_path(args.out) if progress else None)
        | "Write" >> beam.io.WriteToText(args.out, shard_name_template="", num_shards=1)
    )
    start = time.perf_counter()
    _say(
        f"running the pipeline on {runner}: {shown_path(args.input)} -> {shown_path(args.out)}"
        + ("" if progress else "; its progress shows in the runner's own console")
    )
    try:
        result = _run_to_the_end(pipeline, args.out)
    finally:
        _close_bars()
    return _metrics(result) | {"seconds": time.perf_counter() - start}


def _run_to_the_end(pipeline, out: str):
    """Runs the pipeline and waits for it; if it fails or Ctrl-C stops it, nothing of it is left beside `out`.

    Beam writes a local `out` through a temporary folder beside it
    (beam-temp-NAME-*), removed here if the run does not finish. A Ctrl-C
    that Beam wrapped in its own error (raised in a step) is a
    KeyboardInterrupt again, for `run_command` to report.
    """
    folder, name = os.path.split(os.path.abspath(out))
    pattern = os.path.join(glob.escape(folder), f"beam-temp-{glob.escape(name)}-*")
    before = set(glob.glob(pattern)) if "://" not in out else None
    try:
        result = pipeline.run()
        result.wait_until_finish()
        return result
    except BaseException as error:
        for temporary in set(glob.glob(pattern)) - before if before is not None else ():
            shutil.rmtree(temporary, ignore_errors=True)
        if isinstance(error, Exception) and _stopped_by_ctrl_c(error):
            raise KeyboardInterrupt from None
        raise


def _stopped_by_ctrl_c(error: BaseException | None) -> bool:
    """Whether a KeyboardInterrupt is behind `error`, as Beam reports one raised in a step."""
    seen = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, KeyboardInterrupt) or str(error).startswith("KeyboardInterrupt [while running"):
            return True
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return False


def main(argv: list[str] | None = None) -> int:
    """`python -m tf_wordpiece.learning.beam`: runs and prints the summary, as `tf-wordpiece learn`; 2 on bad input."""
    parser = build_parser()
    args, _ = parser.parse_known_args(argv)
    kept: list[str] = []  # reported if Ctrl-C comes after the pipeline wrote --out

    def learn_and_report() -> int:
        try:
            summary = run(argv)
        except (ValueError, FileExistsError) as e:
            print(f"{parser.prog}: {in_option_names(str(e), parser)}", file=sys.stderr)
            return 2
        kept.append(shown_path(args.out))
        print(
            f"learned {counted(summary['tokens'], 'token')} (target {args.vocab_size}) from "
            f"{counted(summary['lines'], 'line')} of {shown_path(args.input)}, "
            f"{counted(summary['distinct_words'], 'distinct word')} ({summary['words']} learned from); "
            f"{threshold_summary(summary, args)}; pipeline {summary['seconds']:.1f} s, learning "
            f"{summary['learning_seconds']:.1f} s of it -> {shown_path(args.out)}"
        )
        if summary["invalid_utf8_words"]:
            skipped = counted(summary["invalid_utf8_words"], "word")
            print(f"warning: skipped {skipped} of invalid UTF-8", file=sys.stderr)
        for note in size_notes(
            summary["tokens"], args.vocab_size, summary, slack_ratio=args.slack_ratio, lower_thresh=args.lower_thresh
        ):
            print(f"note: {note}")
        return 0

    return run_command(parser.prog, learn_and_report, kept=kept)


def _check_paths(args) -> None:
    from apache_beam.io.filesystem import BeamIOError
    from apache_beam.io.filesystems import FileSystems

    try:
        matched = FileSystems.match([args.input])[0].metadata_list
    except BeamIOError as e:
        raise ValueError(f"--input: cannot list '{shown_path(args.input)}' ({e})") from None
    if not matched:
        raise ValueError(f"--input: no files match '{shown_path(args.input)}'; check the path or the glob")
    if "://" not in args.out:  # local: the same rules as tf-wordpiece learn
        check_learned_output(args.out, overwrite=args.overwrite, joiner=args.joiner)
    elif FileSystems.exists(args.out) and not args.overwrite:
        raise FileExistsError(
            f"--out: {shown_path(args.out)} already exists; pass --overwrite to replace that vocab file"
        )


_METRICS = "tf_wordpiece.learning.beam"
_SUMMARY = ("lines", "invalid_utf8_words", "distinct_words", "words", "tokens")


def _metrics(result) -> dict:
    """The pipeline's counters, the chosen threshold (None when there was nothing to learn from), learning's seconds."""
    found = result.metrics().query(MetricsFilter().with_namespace(_METRICS))
    values = {
        m.key.metric.name: (m.committed if m.committed is not None else m.attempted)
        for m in found["counters"] + found["distributions"]
    }
    summary = {name: values.get(name, 0) for name in _SUMMARY}
    threshold, lowest, highest, steps, learning = (
        values.get(name) for name in ("threshold", "search_lowest", "search_highest", "search_steps", "learning_ms")
    )
    summary["threshold"] = threshold.max if threshold is not None and threshold.count else None
    if steps is not None and steps.count:
        summary["search_steps"] = steps.max
    if lowest is not None and lowest.count and highest is not None and highest.count:
        summary["search_range"] = (lowest.max, highest.max)
    summary["learning_seconds"] = learning.max / 1000 if learning is not None and learning.count else 0.0
    return summary


# Progress lines of the workers that run in this process (LOCAL_RUNNERS run them as threads): one bar a step.
_bars: dict[str, object] = {}
_bars_lock = threading.Lock()


def _advance(desc: str, amount: int, unit: str) -> None:
    with _bars_lock:
        if desc not in _bars:
            _bars[desc] = progress_bar(desc=desc, unit=unit, leave=False)
        _bars[desc].update(amount)


def _close_bars() -> None:
    with _bars_lock:
        for bar in _bars.values():
            bar.close()
        _bars.clear()


def _say(line: str) -> None:
    """A progress line between the bars, on standard error."""
    print(line, file=sys.stderr, flush=True)


class _CountWords(beam.DoFn):
    """A batch of lines -> (word, count) pairs; each worker builds the splitter (`count_and_learn`'s) once."""

    def __init__(self, bert_tokenizer_params: dict, *, progress: bool = False):
        self.bert_tokenizer_params = bert_tokenizer_params
        self.progress = progress

    def setup(self):
        import tensorflow as tf

        from tf_wordpiece.learning.from_text import word_splitter
        from tf_wordpiece.learning.word_counts import batch_word_counter

        if self.progress:
            _advance("counting words", 0, " lines")  # shown while the splitter builds and its first batch traces
        counter = batch_word_counter(word_splitter(self.bert_tokenizer_params))
        self.count = tf.function(counter, input_signature=[tf.TensorSpec([None], tf.string)])

    def process(self, batch):
        lines = [line.encode("utf-8") if isinstance(line, str) else line for line in batch]
        words, counts, _, invalid = self.count(lines)
        Metrics.counter(_METRICS, "lines").inc(len(lines))
        Metrics.counter(_METRICS, "invalid_utf8_words").inc(int(invalid))
        if self.progress:
            _advance("counting words", len(lines), " lines")
        for word, count in zip(words.numpy().tolist(), counts.numpy().tolist()):
            yield word.decode("utf-8"), count


def _learn_from_counts(pairs, vocab_size, reserved_tokens, learn_params, progress=False):
    if progress:
        _close_bars()
        _say(f"learning from {counted(len(pairs), 'distinct word')}")
    start = time.perf_counter()
    ordered = sorted(pairs, key=lambda pair: (-pair[1], pair[0]))  # deterministic whatever order the workers sent
    vocab, stats = learn_with_stats(
        ordered, vocab_size=vocab_size, reserved_tokens=reserved_tokens, learn_params=learn_params, progress=progress
    )
    Metrics.distribution(_METRICS, "learning_ms").update(round(1000 * (time.perf_counter() - start)))
    Metrics.counter(_METRICS, "distinct_words").inc(len(ordered))
    Metrics.counter(_METRICS, "words").inc(stats["words"])
    Metrics.counter(_METRICS, "tokens").inc(len(vocab))
    if stats["threshold"] is not None:
        Metrics.distribution(_METRICS, "threshold").update(stats["threshold"])
        Metrics.distribution(_METRICS, "search_steps").update(stats["search_steps"])
    if stats.get("search_range"):
        Metrics.distribution(_METRICS, "search_lowest").update(stats["search_range"][0])
        Metrics.distribution(_METRICS, "search_highest").update(stats["search_range"][1])
    return vocab


def _vocab_text(tokens: list[str], shown_out: str | None) -> str:
    """The vocab file's text; `shown_out` (a progress line's path) if the writing is shown."""
    if shown_out is not None:
        _say(f"writing {counted(len(tokens), 'token')} to {shown_out}")
    return "\n".join(tokens)
