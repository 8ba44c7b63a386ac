"""The numeric core: UTF-8 bytes in, ids and byte offsets out, in integer tensor ops only.

The strings of a batch become bytes once (`tf.io.decode_raw` of the joined
batch); everything after that (UTF-8 decoding, normalization, the
pre-tokenizer's classes, word boundaries, WordPiece, offsets) is gathers from
tables built at construction, elementwise ops, running sums, scatters and
bounded loops over fixed-size tensors, so XLA can compile it
(`tf.function(jit_compile=True)`): `tables.py` (the vocabulary as a trie
stored as a double array, built in NumPy), `core.py` (the pipeline, and the
`tf.Module` that pads a batch to a bucket size and builds the ragged outputs).
It reads UTF-8 with `tf_wordpiece.unicode.utf8` and normalizes and splits with
the per-code-point tables of `tf_wordpiece.unicode`, which the string path
shares; it imports nothing of `tf_wordpiece.bert`.
"""
