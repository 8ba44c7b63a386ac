"""The numeric core: UTF-8 bytes in, ids and byte offsets out, in integer tensor ops only.

The strings of a batch become bytes once (`tf.io.decode_raw` of the joined
batch); everything after that (UTF-8 decoding, normalization, the
pre-tokenizer's classes, word boundaries, WordPiece, offsets) is gathers from
tables built at construction, elementwise ops, running sums, scatters and
bounded loops over fixed-size tensors, so XLA can compile it
(`tf.function(jit_compile=True)`): `utf8.py` (bytes -> code points),
`tables.py` (the vocabulary as a trie in a cuckoo hash table, built in NumPy),
`core.py` (the pipeline, and the `tf.Module` that pads a batch to a bucket
size and builds the ragged outputs).
"""
