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

Options it does not know are Beam pipeline options (runner, project, ...).
"""

from __future__ import annotations

import argparse
import sys

from tf_wordpiece.console import (
    DefaultsOnceHelpFormatter,
    check_utf8_arguments,
    hide_log_records,
    import_tensorflow_quietly,
    in_option_names,
    run_command,
)

if __name__ == "__main__":  # python -m: the quiet start of the tf-wordpiece commands, before Beam loads TensorFlow
    import_tensorflow_quietly()
    hide_log_records("apitools not found")  # Beam's BigQuery client check, irrelevant to reading text files

import apache_beam as beam  # noqa: E402 (after the quiet start)
from apache_beam.metrics import Metrics, MetricsFilter  # noqa: E402
from apache_beam.options.pipeline_options import PipelineOptions  # noqa: E402

from tf_wordpiece.files import check_file_output, looks_like_text_lines  # noqa: E402
from tf_wordpiece.learning.learner import check_learn_params, learn_with_stats  # noqa: E402
from tf_wordpiece.learning.params import (
    add_learn_options,
    bert_tokenizer_params,
    checked_param_names,  # noqa: E402
    learn_params,
    size_notes,
    threshold_summary,
)


def learn_vocab(
    lines,
    *,
    vocab_size: int,
    reserved_tokens: list[str],
    bert_tokenizer_params: dict | None = None,
    learn_params: dict | None = None,
):
    """PCollection of text lines (bytes or str) -> PCollection of one element, the vocabulary (list of str).

    The arguments are those of `from_text.count_and_learn`, checked as it checks
    them (names and learning values here, before the pipeline runs; word
    splitting values when the workers build the splitter).
    """
    tokenizer_params, learning = checked_param_names(bert_tokenizer_params, learn_params)
    check_learn_params(vocab_size, reserved_tokens, learning)
    counts = (
        lines
        | "Batch" >> beam.BatchElements(min_batch_size=256, max_batch_size=1024)
        | "CountWords" >> beam.ParDo(_CountWords(tokenizer_params))
        | "SumCounts" >> beam.CombinePerKey(sum)
        | "AllCounts" >> beam.combiners.ToList()
    )
    return counts | "Learn" >> beam.Map(_learn_from_counts, vocab_size, list(reserved_tokens), learning)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m tf_wordpiece.learning.beam",
        description=__doc__.split("\n\n")[0],
        formatter_class=DefaultsOnceHelpFormatter,
        epilog="Options it does not know are Beam pipeline options (--runner, ...).",
    )
    parser.add_argument("--input", required=True, metavar="PATTERN", help="text files (a glob, local or gs://...)")
    add_learn_options(parser)
    return parser


def run(argv: list[str] | None = None) -> dict:
    """Reads text files, learns, writes one vocab file (Beam writes it aside and renames it when done).

    The input must match files and `--out` may only replace a vocab file, with
    `--overwrite` (ValueError / FileExistsError before the pipeline starts).
    Returns the summary: lines, distinct words, tokens, threshold and the like.
    """
    args, pipeline_args = build_parser().parse_known_args(argv)
    check_utf8_arguments(args, {"reserved": "--reserved", "joiner": "--joiner"})
    _check_paths(args)
    pipeline = beam.Pipeline(options=PipelineOptions(pipeline_args))
    lines = pipeline | "Read" >> beam.io.ReadFromText(args.input, coder=beam.coders.BytesCoder())
    vocab = learn_vocab(
        lines,
        vocab_size=args.vocab_size,
        reserved_tokens=args.reserved,
        bert_tokenizer_params=bert_tokenizer_params(args),
        learn_params=learn_params(args),
    )
    _ = (
        vocab
        | "Lines" >> beam.Map(lambda tokens: "\n".join(tokens))
        | "Write" >> beam.io.WriteToText(args.out, shard_name_template="", num_shards=1)
    )
    result = pipeline.run()
    result.wait_until_finish()
    return _metrics(result)


def main(argv: list[str] | None = None) -> int:
    """`python -m tf_wordpiece.learning.beam`: runs and prints the summary, as `tf-wordpiece learn`; 2 on bad input."""
    parser = build_parser()
    args, _ = parser.parse_known_args(argv)

    def learn_and_report() -> int:
        try:
            summary = run(argv)
        except (ValueError, FileExistsError) as e:
            print(f"{parser.prog}: {in_option_names(str(e), parser)}", file=sys.stderr)
            return 2
        print(
            f"learned {summary['tokens']} tokens (target {args.vocab_size}) from {summary['lines']} lines of "
            f"{args.input}, {summary['distinct_words']} distinct words ({summary['words']} learned from); "
            f"{threshold_summary(summary, args)} -> {args.out}"
        )
        if summary["invalid_utf8_words"]:
            print(f"warning: skipped {summary['invalid_utf8_words']} words of invalid UTF-8", file=sys.stderr)
        for note in size_notes(
            summary["tokens"], args.vocab_size, summary, slack_ratio=args.slack_ratio, lower_thresh=args.lower_thresh
        ):
            print(f"note: {note}")
        return 0

    return run_command(parser.prog, learn_and_report, kept=[])


def _check_paths(args) -> None:
    from apache_beam.io.filesystem import BeamIOError
    from apache_beam.io.filesystems import FileSystems

    try:
        matched = FileSystems.match([args.input])[0].metadata_list
    except BeamIOError as e:
        raise ValueError(f"--input: cannot list {args.input!r} ({e})") from None
    if not matched:
        raise ValueError(f"--input: no files match {args.input!r}; check the path or the glob")
    if "://" not in args.out:  # local: the same rules as tf-wordpiece learn
        check_file_output(
            args.out, overwrite=args.overwrite, what="--out", kind="vocab file", looks_ours=looks_like_text_lines
        )
    elif FileSystems.exists(args.out) and not args.overwrite:
        raise FileExistsError(f"--out: {args.out} already exists; pass --overwrite to replace that vocab file")


_METRICS = "tf_wordpiece.learning.beam"  # not __name__, which is "__main__" under python -m
_SUMMARY = ("lines", "invalid_utf8_words", "distinct_words", "words", "tokens")


def _metrics(result) -> dict:
    """The pipeline's counters and the chosen threshold (None when there was nothing to learn from)."""
    found = result.metrics().query(MetricsFilter().with_namespace(_METRICS))
    values = {
        m.key.metric.name: (m.committed if m.committed is not None else m.attempted)
        for m in found["counters"] + found["distributions"]
    }
    summary = {name: values.get(name, 0) for name in _SUMMARY}
    threshold, lowest, highest = (values.get(name) for name in ("threshold", "search_lowest", "search_highest"))
    summary["threshold"] = threshold.max if threshold is not None and threshold.count else None
    if lowest is not None and lowest.count and highest is not None and highest.count:
        summary["search_range"] = (lowest.max, highest.max)
    return summary


class _CountWords(beam.DoFn):
    """A batch of lines -> (word, count) pairs; each worker builds the splitter (`count_and_learn`'s) once."""

    def __init__(self, bert_tokenizer_params: dict):
        self.bert_tokenizer_params = bert_tokenizer_params

    def setup(self):
        import tensorflow as tf

        from tf_wordpiece.learning.from_text import word_splitter
        from tf_wordpiece.learning.word_counts import batch_word_counter

        counter = batch_word_counter(word_splitter(self.bert_tokenizer_params))
        self.count = tf.function(counter, input_signature=[tf.TensorSpec([None], tf.string)])

    def process(self, batch):
        lines = [line.encode("utf-8") if isinstance(line, str) else line for line in batch]
        words, counts, _, invalid = self.count(lines)
        Metrics.counter(_METRICS, "lines").inc(len(lines))
        Metrics.counter(_METRICS, "invalid_utf8_words").inc(int(invalid))
        for word, count in zip(words.numpy().tolist(), counts.numpy().tolist()):
            yield word.decode("utf-8"), count


def _learn_from_counts(pairs, vocab_size, reserved_tokens, learn_params):
    ordered = sorted(pairs, key=lambda pair: (-pair[1], pair[0]))  # deterministic whatever order the workers sent
    vocab, stats = learn_with_stats(
        ordered, vocab_size=vocab_size, reserved_tokens=reserved_tokens, learn_params=learn_params
    )
    Metrics.counter(_METRICS, "distinct_words").inc(len(ordered))
    Metrics.counter(_METRICS, "words").inc(stats["words"])
    Metrics.counter(_METRICS, "tokens").inc(len(vocab))
    if stats["threshold"] is not None:
        Metrics.distribution(_METRICS, "threshold").update(stats["threshold"])
    if stats.get("search_range"):
        Metrics.distribution(_METRICS, "search_lowest").update(stats["search_range"][0])
        Metrics.distribution(_METRICS, "search_highest").update(stats["search_range"][1])
    return vocab


if __name__ == "__main__":
    sys.exit(main())
