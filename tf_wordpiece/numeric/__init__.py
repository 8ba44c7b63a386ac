"""The numeric core: UTF-8 bytes in, ids and byte offsets out, in integer tensor ops only.

The strings of a batch become bytes once; everything after that (UTF-8
decoding, normalization, the pre-tokenizer's classes, word boundaries,
WordPiece, offsets) is gathers from tables built at construction, elementwise
ops, running sums and a few scatters, with no loop whose length follows the
text, so XLA compiles it (`tf.function(jit_compile=True)`) and TFLite's
builtins and TF.js run it. One job a module:

- `batch`: the bytes with a space after each string, per byte its string and offset;
- `chars`: normalization, classes and vocabulary characters fused into one
  per-code-point table; `tables`: the vocabulary as two tries in a double array;
- `words` (stage 1): UTF-8, added tokens, slots of normalized characters, words;
- `pieces` (stage 2): every slot walks the trie at once, pieces by pointer doubling;
- `core`: `NumericCore` (buckets for XLA, outputs, warm-up); `parts`: batches
  larger than one call, in parts; `serving`: TF Serving's warm-up requests.

It reads UTF-8 with `tf_wordpiece.unicode.utf8` and normalizes and splits with
the per-code-point tables of `tf_wordpiece.unicode`, which the string path
shares; it imports nothing of `tf_wordpiece.bert`.
"""
