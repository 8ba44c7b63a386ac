"""The `tf-wordpiece` command line."""

from __future__ import annotations

import argparse
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
    args = parser.parse_args(argv)
    if args.command == "export":
        return _export(args)
    if bool(args.vocab) == bool(args.tokenizer_json):
        parser.error("tokenize: give exactly one of --vocab or --tokenizer-json")
    return _tokenize(args)


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
