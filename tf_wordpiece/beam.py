"""Learning a vocabulary with Apache Beam, for corpora too large for one machine.

Workers split and count words in parallel (the same basic tokenizer and
counting as `tf-wordpiece learn`), the counts are summed per word, and one
worker learns the vocabulary from them: distinct words fit in memory even
when the text does not. The result equals `bert_vocab_from_dataset` on the
same text, except that words with equal counts come in sorted order rather
than in order of first appearance, which matters only when `max_input_tokens`
cuts between them.

    python -m tf_wordpiece.beam --input 'gs://bucket/text/*.txt' --out gs://bucket/vocab.txt \\
        --vocab-size 30000 --lower-case --runner DataflowRunner --project P --region R \\
        --temp_location gs://bucket/tmp --extra_package dist/tf_wordpiece-0.1.0-py3-none-any.whl

Options it does not know are Beam pipeline options (runner, project, ...).
"""

from __future__ import annotations

import argparse
import sys

import apache_beam as beam
from apache_beam.options.pipeline_options import PipelineOptions


def learn_vocab(lines, *, vocab_size: int, reserved_tokens: list[str], bert_tokenizer_params: dict | None = None,
                learn_params: dict | None = None):
    """PCollection of text lines (bytes or str) -> PCollection of one element, the vocabulary (list of str)."""
    counts = (
        lines
        | "Batch" >> beam.BatchElements(min_batch_size=256, max_batch_size=1024)
        | "CountWords" >> beam.ParDo(_CountWords(dict(bert_tokenizer_params or {})))
        | "SumCounts" >> beam.CombinePerKey(sum)
        | "AllCounts" >> beam.combiners.ToList()
    )
    return counts | "Learn" >> beam.Map(_learn_from_counts, vocab_size, list(reserved_tokens), dict(learn_params or {}))


def run(argv: list[str] | None = None) -> None:
    """Reads text files, learns, writes one vocab file (Beam writes it aside and renames it when done)."""
    from tf_wordpiece import cli

    parser = argparse.ArgumentParser(prog="python -m tf_wordpiece.beam", description=__doc__.split("\n\n")[0])
    parser.add_argument("--input", required=True, metavar="PATTERN", help="text files (a glob, local or gs://...)")
    cli.add_learn_options(parser)
    args, pipeline_args = parser.parse_known_args(argv)
    with beam.Pipeline(options=PipelineOptions(pipeline_args)) as pipeline:
        lines = pipeline | "Read" >> beam.io.ReadFromText(args.input, coder=beam.coders.BytesCoder())
        vocab = learn_vocab(lines, vocab_size=args.vocab_size, reserved_tokens=args.reserved,
                            bert_tokenizer_params=cli.bert_tokenizer_params(args), learn_params=cli.learn_params(args))
        _ = (vocab
             | "Lines" >> beam.Map(lambda tokens: "\n".join(tokens))
             | "Write" >> beam.io.WriteToText(args.out, shard_name_template="", num_shards=1))


class _CountWords(beam.DoFn):
    """A batch of lines -> (word, count) pairs; each worker builds the tokenizer once."""

    def __init__(self, bert_tokenizer_params: dict):
        self.bert_tokenizer_params = bert_tokenizer_params

    def setup(self):
        import tensorflow as tf

        from tf_wordpiece.basic_tokenizer import tf_text_basic_tokenizer
        from tf_wordpiece.word_counts import batch_word_counter

        counter = batch_word_counter(tf_text_basic_tokenizer(**self.bert_tokenizer_params))
        self.count = tf.function(counter, input_signature=[tf.TensorSpec([None], tf.string)])

    def process(self, batch):
        lines = [line.encode("utf-8") if isinstance(line, str) else line for line in batch]
        words, counts, _, _ = self.count(lines)
        for word, count in zip(words.numpy().tolist(), counts.numpy().tolist()):
            yield word.decode("utf-8"), count


def _learn_from_counts(pairs, vocab_size, reserved_tokens, learn_params):
    from tf_wordpiece.learner import learn

    ordered = sorted(pairs, key=lambda pair: (-pair[1], pair[0]))  # deterministic whatever order the workers sent
    return learn(ordered, vocab_size, reserved_tokens, **learn_params)


if __name__ == "__main__":
    run(sys.argv[1:])
