"""The `tf-wordpiece` command line: `tokenize`, `learn` and `export`.

Parsing, `--help` and argument errors do not import TensorFlow; the commands
import it with its log lines hidden (set TF_WORDPIECE_TF_LOGS=1 to see them).
Ctrl-C ends any command at once with exit code 130 and leaves no temporary file.
"""

from __future__ import annotations

import argparse
import signal
import sys

from tf_wordpiece import __version__
from tf_wordpiece.console import (
    TF_LOGS_HELP,
    CommandParser,
    DefaultsOnceHelpFormatter,
    check_readable_files,
    check_utf8_arguments,
    import_tensorflow_quietly,
    in_option_names,
    run_command,
)
from tf_wordpiece.cores import CORES, capabilities, cores_that
from tf_wordpiece.learning.params import (
    add_learn_options,
    bert_tokenizer_params,
    int_at_least,
    learn_params,
    size_notes,
    tfds_spec,
    threshold_summary,
)
from tf_wordpiece.messages import STANDARD_INPUT, counted, shown_path, utf8_text
from tf_wordpiece.vocab_text import read_tokenizer_json, read_vocab_lines


def main(argv: list[str] | None = None) -> int:
    """Runs one command; returns its exit code (0 done, 2 bad arguments or input, 130 interrupted)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    kept: list[str] = []  # what a command has finished writing, reported if it is interrupted
    return run_command(f"tf-wordpiece {args.command}", lambda: args.run(args, kept), kept=kept)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tf-wordpiece",
        description="WordPiece tokenization in core TensorFlow ops. Each command has --help, which shows every "
        "default; --out has a default in each command that writes (learn: vocab.txt, export: "
        "ted_hrlr_translate_pt_en_converter) and an existing output is replaced only with --overwrite.",
        epilog="For corpora too large for one machine, the Apache Beam learner takes learn's options: "
        "python -m tf_wordpiece.learning.beam --help (pip install 'tf-wordpiece[beam]'). " + TF_LOGS_HELP,
    )
    parser.add_argument("--version", action="version", version=f"tf-wordpiece {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=CommandParser)
    _add_tokenize_command(commands)
    _add_learn_command(commands)
    _add_export_command(commands)
    return parser


def _subcommand(commands, name: str, **texts) -> argparse.ArgumentParser:
    return commands.add_parser(name, formatter_class=DefaultsOnceHelpFormatter, epilog=TF_LOGS_HELP, **texts)


def _add_tokenize_command(commands) -> None:
    tok = _subcommand(
        commands,
        "tokenize",
        help="tokenize text and print pieces, ids and byte offsets",
        description="Tokenizes each TEXT (or each line of standard input with '-', or of --input files) with a "
        "vocab.txt or a tokenizer.json and prints every piece with its id and byte offsets, then the detokenized "
        "words. Long texts go by file or standard input: the system limits the length of a command line.",
    )
    tok.add_argument(
        "text",
        nargs="*",
        help="strings to tokenize; '-' reads one string a line from standard input (default: none; then --input)",
    )
    tok.add_argument(
        "--input",
        nargs="+",
        metavar="FILE",
        help="UTF-8 text files to tokenize, one string a line ('-': standard input)",
    )
    tok.add_argument("--vocab", help="vocab.txt (line n is id n); this or --tokenizer-json is required")
    tok.add_argument("--tokenizer-json", help="a Hugging Face tokenizer.json instead of --vocab (implies --compat hf)")
    tok.add_argument("--compat", choices=["tf_text", "hf"], default="tf_text", help="whose behaviour to follow")
    tok.add_argument("--lower-case", action="store_true", help="lowercase and strip accents (with --vocab)")
    tok.add_argument(
        "--unknown-token",
        help="the token of words the vocabulary cannot spell (default: [UNK], or the tokenizer.json's)",
    )
    tok.set_defaults(run=_tokenize, parser=tok)


def _add_learn_command(commands) -> None:
    learn = _subcommand(
        commands,
        "learn",
        help="learn a WordPiece vocab.txt from text (tensorflow_text's bert_vocab_from_dataset, same result)",
        description="Splits the text into words with BERT's basic tokenizer, counts them and learns a vocabulary "
        "with BERT's top-down WordPiece algorithm; writes it atomically and prints a summary. "
        "For corpora too large for one machine: python -m tf_wordpiece.learning.beam (same options, Apache Beam).",
    )
    source = learn.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--input",
        nargs="+",
        metavar="FILE",
        help="UTF-8 text files, one sentence or document a line ('-': stdin); a line that is not "
        "UTF-8 is an error naming the file, line and byte",
    )
    source.add_argument(
        "--tfds",
        metavar="NAME[:SPLIT[:FEATURE]]",
        help="a dataset in your TFDS data dir, e.g. ted_hrlr_translate/pt_to_en:train:en (SPLIT: train when left "
        "out; FEATURE may be left out when the dataset has one text feature)",
    )
    add_learn_options(learn)
    learn.set_defaults(run=_learn, parser=learn)


def _add_export_command(commands) -> None:
    exp = _subcommand(
        commands,
        "export",
        help="build the tutorial's ted_hrlr_translate_pt_en_converter SavedModel (pt and en tokenizers)",
        description="Learns pt and en vocabularies, saves the converter atomically (and a .zip; with --tflite and "
        "--tfjs also its bytes signatures for TFLite and TF.js), reloads it and prints the round trip of "
        "'Hello TensorFlow!'. Each output is checked before any work; an empty folder you made is filled.",
    )
    source = exp.add_mutually_exclusive_group()
    source.add_argument(
        "--input",
        nargs="+",
        metavar="TSV",
        help="UTF-8 files of pt<TAB>en lines, one sentence pair a line; a first line 'pt<TAB>en' is a header "
        "and skipped (a line that is not UTF-8 is an error naming the file, line and byte; default: the "
        "embedded sample)",
    )
    source.add_argument(
        "--tfds",
        metavar="NAME[:SPLIT]",
        help="a translation dataset of (pt, en) pairs in your TFDS data dir, e.g. ted_hrlr_translate/pt_to_en "
        "or ted_hrlr_translate/pt_to_en:validation (SPLIT: train when left out; the same form as learn --tfds, "
        "without FEATURE: both languages are learned)",
    )
    exp.add_argument(
        "--out",
        default="ted_hrlr_translate_pt_en_converter",
        help="SavedModel folder to write: a new one, or an empty folder (filled without --overwrite)",
    )
    exp.add_argument("--vocab-size", type=int_at_least(1), default=8000, help="target size of each vocabulary")
    exp.add_argument(
        "--overwrite",
        action="store_true",
        help="replace --out (and its .zip), --tflite and --tfjs if each is what this command wrote; "
        "never another file or folder",
    )
    exp.add_argument("--no-zip", action="store_true", help="do not write OUT.zip")
    exp.add_argument(
        "--serving-version",
        type=int_at_least(1),
        metavar="N",
        help="TF Serving's layout: write the model to OUT/N (OUT is --model_base_path)",
    )
    exp.add_argument(
        "--core",
        choices=list(CORES),
        help="how the saved tokenizers run: string ops, the numeric core, or the numeric core compiled "
        "by XLA (the fastest once compiled, once per batch-size bucket; see docs/design.md) "
        "(default: string; numeric with --tflite or --tfjs, which need it)",
    )
    exp.add_argument(
        "--tflite",
        metavar="FILE",
        help="also write one TFLite model with both languages' bytes signatures, pt_tokenize_bytes and "
        "en_tokenize_bytes (UTF-8 bytes in, ids and byte offsets out; TFLite's builtin ops only)",
    )
    exp.add_argument(
        "--tfjs",
        metavar="FOLDER",
        help="also write a TF.js graph model of each language's bytes signature, FOLDER/pt and FOLDER/en "
        "(run them with examples/tfjs/tokenize.mjs)",
    )
    exp.set_defaults(run=_export, parser=exp)


def _fail(args, error: Exception, *, option: str | None = None, aliases: dict[str, str] | None = None) -> int:
    """Prints the error in the command's option names (`option` in front of one that names none); returns 2."""
    message = in_option_names(str(error), args.parser, aliases=aliases, option=option)
    print(f"tf-wordpiece {args.command}: {message}", file=sys.stderr)
    return 2


def _learn(args, kept: list[str]) -> int:
    from tf_wordpiece.learning.written import check_learned_output

    try:
        check_utf8_arguments(args, {"reserved": "--reserved", "joiner": "--joiner", "tfds": "--tfds"})
        check_readable_files(args.input or [], "--input", stdin=True)
        if args.tfds:
            tfds_spec(args.tfds)
        check_learned_output(args.out, overwrite=args.overwrite, joiner=args.joiner)
    except (ValueError, FileExistsError) as e:
        return _fail(args, e)
    import_tensorflow_quietly(announce="loading TensorFlow")
    from tf_wordpiece.learning import word_counts
    from tf_wordpiece.learning.from_text import count_and_learn
    from tf_wordpiece.vocab import write_vocab_file

    source = ", ".join(shown_path(path) for path in args.input) if args.input else args.tfds
    not_utf8: list[str] = []  # the first line that is not UTF-8, if any: reading stops there
    try:
        dataset = (
            word_counts.text_line_dataset(args.input, not_utf8=not_utf8)
            if args.input
            else word_counts.tfds_text_dataset(args.tfds)
        )
        learned = count_and_learn(
            dataset,
            vocab_size=args.vocab_size,
            reserved_tokens=args.reserved,
            bert_tokenizer_params=bert_tokenizer_params(args),
            learn_params=learn_params(args),
            strict=True,
            check_counts=lambda counts: _check_counts(counts, source, not_utf8),
            progress=True,
        )
        write_vocab_file(args.out, learned.vocab, overwrite=args.overwrite, what="--out")
    except (ValueError, TypeError, FileExistsError) as e:
        return _fail(args, e, option="--input" if args.input else "--tfds")
    kept.append(args.out)
    _print_learn_summary(
        args,
        learned.vocab,
        learned.counts,
        learned.stats,
        source,
        seconds=(learned.counting_seconds, learned.learning_seconds),
    )
    return 0


def _check_counts(counts, source: str, not_utf8: list[str]) -> None:
    """Fails on text that is not UTF-8 (nothing is learned from a corpus read in part) and on one without words."""
    if not_utf8:
        raise ValueError(not_utf8[0])
    if counts.skipped_invalid_utf8:  # --tfds: strings without a file and line
        are = "is" if counts.skipped_invalid_utf8 == 1 else "are"
        raise ValueError(
            f"{counted(counts.skipped_invalid_utf8, 'word')} in {source} {are} not valid UTF-8; re-encode the "
            "dataset's text as UTF-8"
        )
    if not counts:
        raise ValueError(f"input: no words in {source} ({counted(counts.lines, 'line')}); is the corpus empty?")


def _print_learn_summary(args, vocab, counts, stats, source: str, *, seconds: tuple[float, float]) -> None:
    print(
        f"learned {counted(len(vocab), 'token')} (target {args.vocab_size}) from {counted(counts.lines, 'line')} "
        f"of {source}, {counted(len(counts), 'distinct word')} ({stats['words']} learned from); "
        f"{threshold_summary(stats, args)}; counting {seconds[0]:.1f} s, learning {seconds[1]:.1f} s -> "
        f"{shown_path(args.out)}"
    )
    for note in size_notes(
        len(vocab), args.vocab_size, stats, slack_ratio=args.slack_ratio, lower_thresh=args.lower_thresh
    ):
        print(f"note: {note}")


def _export(args, kept: list[str]) -> int:
    from tf_wordpiece.export.layout import COMMAND_LINE_NAMES, ExportLayout

    try:
        # TensorFlow writes --out, --tflite and --tfjs: they need UTF-8.
        check_utf8_arguments(args, {"out": "--out", "tfds": "--tfds", "tflite": "--tflite", "tfjs": "--tfjs"})
        check_readable_files(args.input or [], "--input")
        tfds = _export_tfds(args.tfds) if args.tfds else None
        core = _export_core(args)
        layout = ExportLayout.checked(
            args.out,
            serving_version=args.serving_version,
            make_zip=not args.no_zip,
            tflite=args.tflite,
            tfjs=args.tfjs,
            overwrite=args.overwrite,
            written=kept,  # what an interrupted run kept, for run_command's last line
            names=COMMAND_LINE_NAMES,
        )
    except (ValueError, FileExistsError) as e:
        return _fail(args, e)
    tf = import_tensorflow_quietly(announce="loading TensorFlow")
    from tf_wordpiece.export import converter
    from tf_wordpiece.progress import timed_step

    try:
        with timed_step(f"reading {_export_source(args)}"):
            if args.input:
                pairs = converter.tsv_file_pairs(args.input)
            elif tfds:
                pairs = converter.tfds_pairs(*tfds)
            else:
                pairs = converter.embedded_pairs()
        summary = converter.export_to(layout, pairs, vocab_size=args.vocab_size, core=core)
    except (ValueError, FileExistsError, FileNotFoundError) as e:  # an --input file removed since it was checked
        # The library names its parameters (paths, name, pairs): these are --input or --tfds here.
        source = "--input" if args.input else "--tfds" if args.tfds else None
        return _fail(
            args, e, option=source, aliases={"paths": "--input", "name": "--tfds", "pairs": source or "--input"}
        )
    print(
        f"exported {args.out}: {summary['pairs']} pairs, vocab pt {summary['pt_vocab_size']} / en "
        f"{summary['en_vocab_size']}, learned in {summary['learn_seconds']:.1f} s, built in "
        f"{summary['build_seconds']:.1f} s, saved in {summary['save_seconds']:.1f} s, "
        f"{summary['size_bytes'] / 1e6:.1f} MB"
        + "".join(f", {key} {summary[key]}" for key in ("zip", "tflite", "tfjs") if key in summary)
    )
    with timed_step(f"reloading {layout.model_dir.name}"):
        reloaded = tf.saved_model.load(str(layout.model_dir))
    ids = reloaded.en.tokenize(tf.constant(["Hello TensorFlow!"]))
    print("Hello TensorFlow! ->", ids.to_list())
    print("tokens:", [t.decode() for t in reloaded.en.lookup(ids).to_list()[0]])
    print("detokenized:", reloaded.en.detokenize(ids).numpy()[0].decode())
    return 0


def _export_core(args) -> str:
    """--core, or its default: the numeric core where --tflite or --tfjs asks for bytes signatures, else string."""
    conversions = [option for option, given in (("--tflite", args.tflite), ("--tfjs", args.tfjs)) if given]
    portable = cores_that(runs_without_string_ops=True)[0]
    if args.core is None:
        return portable if conversions else "string"
    if conversions and not capabilities(args.core).runs_without_string_ops:
        raise ValueError(
            f"--core: {' and '.join(conversions)} {'need' if len(conversions) > 1 else 'needs'} the {portable} core's "
            f"bytes signatures (TFLite's builtin ops and TF.js run no string op and no XLA); drop --core "
            f"{args.core} or pass --core {portable}"
        )
    return args.core


def _export_tfds(spec: str) -> tuple[str, str]:
    """(name, split) of export's --tfds NAME[:SPLIT]: learn's form, without FEATURE (both languages are learned)."""
    name, split, feature = tfds_spec(spec)
    if feature is not None:
        raise ValueError(
            f"--tfds: export learns both languages from the dataset's (pt, en) pairs, so it takes no FEATURE; "
            f"pass {name}:{split}"
        )
    return name, split


def _export_source(args) -> str:
    if args.input:
        return ", ".join(args.input)
    return args.tfds or "the embedded sample"


def _tokenize(args, kept: list[str]) -> int:
    if bool(args.vocab) == bool(args.tokenizer_json):
        args.parser.error("give exactly one of --vocab or --tokenizer-json")
    if not args.text and not args.input:
        args.parser.error("give the text to tokenize: TEXT arguments, '-' for standard input, or --input FILE")
    option = "--vocab" if args.vocab else "--tokenizer-json"
    try:
        check_utf8_arguments(args, {"text": "text", "unknown_token": "--unknown-token"})
        check_readable_files([args.vocab or args.tokenizer_json], option)
        check_readable_files(args.input or [], "--input", stdin=True)
        if args.vocab:
            read_vocab_lines(args.vocab)  # empty, binary, not UTF-8: said before TensorFlow's seconds of import
        else:
            read_tokenizer_json(args.tokenizer_json)  # the same for a file that is no tokenizer.json
    except (ValueError, FileNotFoundError) as e:
        return _fail(args, e, aliases={"vocab": option, "path": option})
    try:
        texts = _texts_to_tokenize(args.text, args.input or [])
    except ValueError as e:
        return _fail(args, e)
    tf = import_tensorflow_quietly()
    import tf_wordpiece as twp

    try:
        if args.tokenizer_json:
            overrides = {"unknown_token": args.unknown_token} if args.unknown_token else {}
            tokenizer = twp.BertTokenizer.from_tokenizer_json(args.tokenizer_json, **overrides)
        else:
            tokenizer = twp.BertTokenizer(
                args.vocab, compat=args.compat, lower_case=args.lower_case, unknown_token=args.unknown_token or "[UNK]"
            )
    except (ValueError, TypeError) as e:
        return _fail(args, e, option=option, aliases={"path": option, "vocab": option})
    if not texts:
        print("nothing to tokenize: the input has no lines", file=sys.stderr)
        return 0
    args.text = texts
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


def _texts_to_tokenize(arguments: list[str], files: list[str]) -> list[str]:
    """The TEXT arguments (each '-' replaced by the lines of standard input), then the lines of each --input file."""
    texts: list[str] = []
    for text in arguments:
        texts.extend(_lines_of(STANDARD_INPUT, "text") if text == STANDARD_INPUT else [text])
    for path in files:
        texts.extend(_lines_of(path, "--input"))
    return texts


def _lines_of(path: str, option: str) -> list[str]:
    """The lines of a UTF-8 file ("-": standard input), without their line ends."""
    if path == STANDARD_INPUT:
        data = sys.stdin.buffer.read()
    else:
        with open(path, "rb") as f:
            data = f.read()
    text = utf8_text(data, option, path)
    return [line.removesuffix("\r") for line in text.split("\n")[: -1 if text.endswith("\n") else None]]


def run() -> None:
    """The `tf-wordpiece` script: `main`, then exit with its code.

    Once the command is done, Ctrl-C is ignored: TensorFlow's interpreter
    shutdown takes a while and has nothing left to stop, and a finished
    command must not end as a death by SIGINT.
    """
    code = main()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sys.exit(code)


if __name__ == "__main__":
    run()
