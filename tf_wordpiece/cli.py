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
    args = parser.parse_args(argv)
    if bool(args.vocab) == bool(args.tokenizer_json):
        parser.error("tokenize: give exactly one of --vocab or --tokenizer-json")
    return _tokenize(args)


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
