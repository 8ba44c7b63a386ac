"""The `tf-wordpiece` command line."""

from __future__ import annotations

import argparse
import os
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tf-wordpiece", description="WordPiece tokenization in core TensorFlow ops.")
    commands = parser.add_subparsers(dest="command", required=True)
    tok = commands.add_parser("tokenize", help="tokenize text and print pieces, ids and byte offsets")
    tok.add_argument("text", nargs="+", help="strings to tokenize")
    tok.add_argument("--vocab", help="vocab.txt (line n is id n)")
    tok.add_argument("--tokenizer-json", help="a Hugging Face tokenizer.json instead of --vocab (implies --compat hf)")
    tok.add_argument("--compat", choices=["tf_text", "hf"], default="tf_text")
    tok.add_argument("--lower-case", action="store_true")
    exp = commands.add_parser(
        "export",
        help="build the tutorial's ted_hrlr_translate_pt_en_converter SavedModel (pt and en tokenizers)",
        description="Learns pt and en vocabularies, saves the converter atomically (and a .zip), reloads it and "
        "prints the round trip of 'Hello TensorFlow!'.",
    )
    source = exp.add_mutually_exclusive_group()
    source.add_argument("--input", nargs="+", metavar="TSV", help="pt<TAB>en files (default: the embedded sample)")
    source.add_argument("--tfds", metavar="NAME", help="e.g. ted_hrlr_translate/pt_to_en, if in your TFDS data dir")
    exp.add_argument("--out", default="ted_hrlr_translate_pt_en_converter", help="SavedModel folder to write")
    exp.add_argument("--vocab-size", type=int, default=8000)
    exp.add_argument("--overwrite", action="store_true", help="replace an existing model")
    exp.add_argument("--no-zip", action="store_true", help="do not write OUT.zip")
    _add_learn_command(commands)
    args = parser.parse_args(argv)
    if args.command == "export":
        return _export(args)
    if args.command == "learn":
        return _learn(args)
    if bool(args.vocab) == bool(args.tokenizer_json):
        parser.error("tokenize: give exactly one of --vocab or --tokenizer-json")
    return _tokenize(args)


def _add_learn_command(commands) -> None:
    learn = commands.add_parser(
        "learn",
        help="learn a WordPiece vocab.txt from text (tensorflow_text's bert_vocab_from_dataset, same result)",
        description="Splits the text into words with BERT's basic tokenizer, counts them and learns a vocabulary "
        "with BERT's top-down WordPiece algorithm; writes it atomically and prints a summary. "
        "For corpora too large for one machine: python -m tf_wordpiece.beam (same options, Apache Beam).",
    )
    source = learn.add_mutually_exclusive_group(required=True)
    source.add_argument("--input", nargs="+", metavar="FILE", help="UTF-8 text files, one sentence or document a line ('-': stdin)")
    source.add_argument("--tfds", metavar="NAME:SPLIT:FEATURE", help="e.g. ted_hrlr_translate/pt_to_en:train:en, from your TFDS data dir")
    learn.add_argument("--overwrite", action="store_true", help="replace an existing --out")
    add_learn_options(learn)


def add_learn_options(parser: argparse.ArgumentParser) -> None:
    """The options `tf-wordpiece learn` and the Beam pipeline share: output, splitting and learning."""
    from tf_wordpiece.learner import LearnParams

    parser.add_argument("--out", required=True, help="vocab.txt to write (line n is id n)")
    parser.add_argument("--vocab-size", type=int, default=8000, help="target (maximum) size (default 8000)")
    parser.add_argument("--reserved", nargs="*", default=["[PAD]", "[UNK]", "[START]", "[END]"], metavar="TOKEN",
                        help="tokens placed first (default: [PAD] [UNK] [START] [END])")
    words = parser.add_argument_group("word splitting (the BertTokenizer options to use with the vocabulary)")
    words.add_argument("--lower-case", action="store_true")
    words.add_argument("--keep-whitespace", action="store_true")
    words.add_argument("--normalization-form", choices=["NFD", "NFKD"])
    words.add_argument("--preserve-unused-token", action="store_true")
    algorithm = parser.add_argument_group("learning (tensorflow_text's learn_params; defaults as there)")
    defaults = LearnParams()
    for name in ("upper_thresh", "lower_thresh", "num_iterations", "max_input_tokens", "max_token_length", "max_unique_chars"):
        algorithm.add_argument(f"--{name.replace('_', '-')}", type=int, default=getattr(defaults, name))
    algorithm.add_argument("--slack-ratio", type=float, default=defaults.slack_ratio)
    algorithm.add_argument("--joiner", default=defaults.joiner, help="suffix indicator (default ##)")
    algorithm.add_argument("--no-joiner-token", action="store_true", help="learn non-initial tokens without the joiner")


def bert_tokenizer_params(args) -> dict:
    return dict(lower_case=args.lower_case, keep_whitespace=args.keep_whitespace,
                normalization_form=args.normalization_form, preserve_unused_token=args.preserve_unused_token)


def learn_params(args) -> dict:
    from tf_wordpiece.learner import LearnParams

    params = {name: getattr(args, name) for name in LearnParams._fields if hasattr(args, name)}
    return params | {"include_joiner_token": not args.no_joiner_token}


def _learn(args) -> int:
    import time
    import warnings

    from tf_wordpiece import word_counts
    from tf_wordpiece.basic_tokenizer import tf_text_basic_tokenizer
    from tf_wordpiece.learner import learn
    from tf_wordpiece.vocab import write_vocab_file

    try:
        if os.path.exists(args.out) and not args.overwrite:
            raise FileExistsError(f"--out: {args.out} exists; pass --overwrite to replace it")
        dataset = word_counts.text_line_dataset(args.input) if args.input else word_counts.tfds_text_dataset(args.tfds)
        splitter = tf_text_basic_tokenizer(**bert_tokenizer_params(args))
        start = time.perf_counter()
        counts = word_counts.count_words(dataset, splitter, progress=True)
        counted = time.perf_counter()
        if not counts:
            raise ValueError(f"input: no words in {args.input or args.tfds} ({counts.lines} lines); is the corpus empty?")
        stats: dict = {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # an oversized result is the error below
            vocab = learn(counts, args.vocab_size, args.reserved, **learn_params(args), progress=True, stats=stats)
        if stats["minimum_size"] > args.vocab_size:
            raise ValueError(f"--vocab-size: {args.vocab_size} is smaller than the reserved tokens plus the alphabet "
                             f"({stats['minimum_size']} tokens); raise --vocab-size or lower --max-unique-chars")
        write_vocab_file(args.out, vocab, overwrite=args.overwrite)
    except (ValueError, TypeError, FileExistsError) as e:
        print(f"tf-wordpiece learn: {e}", file=sys.stderr)
        return 2
    skipped = f", skipped {counts.skipped_invalid_utf8} words of invalid UTF-8" if counts.skipped_invalid_utf8 else ""
    print(f"learned {len(vocab)} tokens (target {args.vocab_size}) from {counts.lines} lines, {len(counts)} distinct "
          f"words ({stats['words']} learned from){skipped}; count threshold {stats['threshold']} after "
          f"{stats['search_steps']} search steps; counting {counted - start:.1f} s, learning "
          f"{time.perf_counter() - counted:.1f} s -> {args.out}")
    if len(vocab) > args.vocab_size:
        print(f"note: more tokens than the target: the threshold search ended at {stats['threshold']} "
              "(tensorflow_text gives the same); widen --lower-thresh..--upper-thresh or raise --slack-ratio")
    if len(vocab) < args.vocab_size * (1 - args.slack_ratio) and stats["threshold"] <= args.lower_thresh:
        print(f"note: fewer tokens than the target because the threshold reached --lower-thresh {args.lower_thresh}; "
              "lower it (or give more text) to learn more")
    return 0


def _export(args) -> int:
    import tensorflow as tf

    from tf_wordpiece import converter

    try:
        if args.input:
            pairs = converter.tsv_file_pairs(args.input)
        elif args.tfds:
            pairs = converter.tfds_pairs(args.tfds)
        else:
            pairs = converter.embedded_pairs()
        summary = converter.export_converter(
            args.out, pairs, vocab_size=args.vocab_size, overwrite=args.overwrite, make_zip=not args.no_zip
        )
    except (ValueError, FileExistsError) as e:
        print(f"tf-wordpiece export: {e}", file=sys.stderr)
        return 2
    print(
        f"exported {args.out}: {summary['pairs']} pairs, vocab pt {summary['pt_vocab_size']} / en "
        f"{summary['en_vocab_size']}, learned in {summary['learn_seconds']:.1f} s, saved in "
        f"{summary['export_seconds']:.1f} s, {summary['size_bytes'] / 1e6:.1f} MB" + (f", zip {summary['zip']}" if "zip" in summary else "")
    )
    reloaded = tf.saved_model.load(args.out)
    ids = reloaded.en.tokenize(tf.constant(["Hello TensorFlow!"]))
    print("Hello TensorFlow! ->", ids.to_list())
    print("tokens:", [t.decode() for t in reloaded.en.lookup(ids).to_list()[0]])
    print("detokenized:", reloaded.en.detokenize(ids).numpy()[0].decode())
    return 0


def _tokenize(args) -> int:
    import tensorflow as tf

    import tf_wordpiece as twp

    try:
        if args.tokenizer_json:
            tokenizer = twp.BertTokenizer.from_tokenizer_json(args.tokenizer_json)
        else:
            tokenizer = twp.BertTokenizer(args.vocab, compat=args.compat, lower_case=args.lower_case)
    except (ValueError, TypeError) as e:
        print(f"tf-wordpiece: {e}", file=sys.stderr)
        return 2
    ids, begin, end = tokenizer.tokenize_with_offsets(tf.constant(args.text))
    for row, text in enumerate(args.text):
        print(text)
        row_ids, row_begin, row_end = (t[row].flat_values for t in (ids, begin, end))
        pieces = tf.gather(tokenizer.vocab.token_tensor, row_ids).numpy()
        for i, piece, b, e in zip(row_ids.numpy(), pieces, row_begin.numpy(), row_end.numpy()):
            print(f"  {i:>6}  {piece.decode('utf-8', 'replace'):<16} bytes [{b}, {e})")
    words = tokenizer.detokenize(ids.merge_dims(-2, -1))
    print("detokenized:", [b" ".join(w).decode("utf-8", "replace") for w in words.to_list()])
    return 0


if __name__ == "__main__":
    sys.exit(main())
