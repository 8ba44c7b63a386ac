"""Vocabulary loading and validation: vocab.txt files, token lists and lookup tables."""

from __future__ import annotations

import os
from typing import Sequence, Union

import numpy as np
import tensorflow as tf

from tf_wordpiece.files import looks_like_text_lines, write_text_atomically
from tf_wordpiece.messages import counted, shown_path
from tf_wordpiece.tf1_graphs import HashTable
from tf_wordpiece.vocab_text import read_vocab_lines

VocabLike = Union[str, os.PathLike, Sequence[str], tf.lookup.StaticHashTable, tf.lookup.StaticVocabularyTable]


class Vocab(tf.Module):
    """An id -> token list plus a string -> int64 hash table (missing tokens give -1).

    Line n of a vocab file is the token with id n. The line terminator (`\\n`,
    and a `\\r` before it) is not part of the token.

    Args:
      vocab: a vocab.txt path, a sequence of tokens, a `tf.lookup.StaticHashTable`
        (string -> int) whose ids are dense on [0, size), or tensorflow_text's
        `tf.lookup.StaticVocabularyTable` (dense ids, `num_oov_buckets` N).
      required: tokens that must be in the vocabulary (e.g. the unknown token);
        not checked for a StaticVocabularyTable with OOV buckets, which give
        any string an id (`has_oov_table`).

    `lookup` gives a string not in the vocabulary the id tensorflow_text's
    table gives it: with N OOV buckets (1 for a path or a list, as
    tensorflow_text makes from a path) size + to_hash_bucket_fast(s, N); for
    a StaticHashTable, its default value.

    >>> v = Vocab(["[UNK]", "hello", "##s"], required=["[UNK]"])
    >>> len(v), v.id_of("hello"), v.id_of("nope"), v.lookup(tf.constant(["hello", "nope"])).numpy().tolist()
    (3, 1, -1, [1, 3])
    """

    def __init__(self, vocab: VocabLike, *, required: Sequence[str] = ()):
        super().__init__(name="vocab")
        self.source = _describe(vocab)
        # A plain list, not one tf.Module tracks (a ListWrapper: a third of a second per 30,000 tokens to build);
        # the SavedModel holds the tokens in `token_tensor`.
        object.__setattr__(self, "tokens", _read_tokens(vocab, self.source))
        self.num_oov_buckets, self.oov_default = _oov_rule(vocab, len(self.tokens))
        # A StaticVocabularyTable's buckets give every string an id, so no token is required to be in it.
        self.has_oov_table = isinstance(vocab, tf.lookup.StaticVocabularyTable) and self.num_oov_buckets > 0
        if self.has_oov_table:
            required = ()
        try:
            _validate(self.tokens, self.source, required)
        except ValueError as e:
            if isinstance(vocab, (str, os.PathLike)) and not looks_like_text_lines("\n".join(self.tokens).encode()):
                raise ValueError(
                    f"vocab: {os.fspath(vocab)!r} does not look like a vocab file (one token a line, line n "
                    f"is id n): most of its lines hold spaces, as prose and tables do. {e}"
                ) from None
            raise
        object.__setattr__(self, "_ids", {t: i for i, t in enumerate(self.tokens)})  # Python-side lookups, untracked
        # One tensor of the tokens, which the table's keys are too: a SavedModel stores a tensor that
        # several functions capture once, so the vocabulary is in it once, however many tables read it.
        self.token_tensor = tf.constant(self.tokens, tf.string)
        self.table = HashTable(
            tf.lookup.KeyValueTensorInitializer(self.token_tensor, tf.range(len(self.tokens), dtype=tf.int64)),
            default_value=-1,
        )

    def __len__(self) -> int:
        return len(self.tokens)

    def lookup(self, strings: tf.Tensor) -> tf.Tensor:
        """string [...] -> int64 ids, with tensorflow_text's ids for strings outside the vocabulary (see above)."""
        ids = self.table.lookup(strings)
        if self.num_oov_buckets:
            buckets = tf.strings.to_hash_bucket_fast(strings, self.num_oov_buckets) + len(self.tokens)
            return tf.where(ids >= 0, ids, buckets)
        return tf.where(ids >= 0, ids, self.oov_default)

    def id_looked_up(self, token: str) -> int:
        """`lookup`'s id of one token, as a Python int: an OOV bucket's for a token outside the vocabulary.

        >>> Vocab(["[UNK]", "a"]).id_looked_up("a"), Vocab(["[UNK]", "a"]).id_looked_up("zz")
        (1, 2)
        """
        with tf.init_scope():
            return int(_table_values(self.lookup(tf.constant([token])))[0][0])

    def id_of(self, token: str) -> int:
        return self._ids.get(token, -1)


def _describe(vocab: VocabLike) -> str:
    if isinstance(vocab, (str, os.PathLike)):
        return f"vocab file '{shown_path(vocab)}'"
    if isinstance(vocab, (tf.lookup.StaticHashTable, tf.lookup.StaticVocabularyTable)):
        return "vocab table"
    return "vocab list"


def _oov_rule(vocab: VocabLike, size: int) -> tuple[int, int]:
    """(OOV buckets, default id without buckets) of tensorflow_text's lookups in this vocabulary."""
    if isinstance(vocab, tf.lookup.StaticVocabularyTable):
        return int(_table_values(vocab.size())[0]) - size, -1
    if isinstance(vocab, tf.lookup.StaticHashTable):
        return 0, int(_table_values(tf.convert_to_tensor(vocab.default_value))[0])
    return 1, -1  # tensorflow_text's StaticVocabularyTable(path, num_oov_buckets=1)


def _export_vocabulary_table(table: tf.lookup.StaticVocabularyTable) -> tuple[tf.Tensor, tf.Tensor]:
    """The keys and ids of a StaticVocabularyTable's in-vocabulary part (it has no export method)."""
    return tf.raw_ops.LookupTableExportV2(table_handle=table.resource_handle, Tkeys=tf.string, Tvalues=tf.int64)


def _table_values(*tensors: tf.Tensor) -> list[np.ndarray]:
    """The values of tensors read off a table. Eager tensors have them; in a TF1-style graph (tensorflow_text's
    graph-mode tests, `tf.compat.v1.Session` code) they come from a session of their own, which initializes
    the graph's tables first: the caller's sessions are not touched."""
    if all(hasattr(t, "numpy") for t in tensors):
        return [t.numpy() for t in tensors]
    graph = tensors[0].graph
    with graph.as_default():
        initialize = tf.compat.v1.tables_initializer()
    with tf.compat.v1.Session(graph=graph) as session:
        session.run(initialize)
        return session.run(list(tensors))


def _read_tokens(vocab: VocabLike, source: str) -> list[str]:
    if isinstance(vocab, (str, os.PathLike)):
        return read_vocab_file(vocab)
    if isinstance(vocab, (tf.lookup.StaticHashTable, tf.lookup.StaticVocabularyTable)):
        if vocab.key_dtype != tf.string:
            raise TypeError(f"vocab: the table's keys must be tf.string, got {vocab.key_dtype.name}")
        keys, ids = vocab.export() if isinstance(vocab, tf.lookup.StaticHashTable) else _export_vocabulary_table(vocab)
        keys, ids = _table_values(keys, tf.cast(ids, tf.int64))
        tokens = [k.decode("utf-8") for k in keys[np.argsort(ids)]]
        if sorted(ids.tolist()) != list(range(len(tokens))):
            raise ValueError(f"vocab: the {source}'s ids must be dense on [0, size); got ids {sorted(ids)[:10]}...")
        return tokens
    if hasattr(vocab, "lookup"):
        raise TypeError(
            f"vocab: got a {type(vocab).__name__}, which cannot list its tokens (detokenize needs them); "
            "pass the vocab.txt path, a list of tokens, a tf.lookup.StaticHashTable or StaticVocabularyTable"
        )
    if isinstance(vocab, (bytes, bytearray)) or not isinstance(vocab, Sequence):
        raise TypeError(
            f"vocab: expected a vocab.txt path, a list of str or a StaticHashTable, got {type(vocab).__name__}"
        )
    bad = [t for t in vocab if not isinstance(t, (str, bytes))]
    if bad:
        raise TypeError(f"vocab: every token must be a str (or UTF-8 bytes), got {bad[0]!r} ({type(bad[0]).__name__})")
    return [_decoded(token) for token in vocab]


def _decoded(token: str | bytes) -> str:
    """A token as str: tensorflow_text takes lists of bytes too (a tensor's `.numpy().tolist()`, say)."""
    if isinstance(token, str):
        return token
    try:
        return token.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(
            f"vocab: token {token!r} is not UTF-8 ({e.reason} at byte {e.start}); fix or drop it"
        ) from None


def read_vocab_file(path: str | os.PathLike) -> list[str]:
    """Reads vocab.txt (UTF-8 without BOM, one token a line, line n is id n; `\\n` or `\\r\\n` ends a line).

    A missing file is a FileNotFoundError; an empty, binary or non-UTF-8 file
    a ValueError saying so (see `vocab_text.read_vocab_lines`).
    """
    return read_vocab_lines(path)


def _validate(tokens: list[str], source: str, required: Sequence[str]) -> None:
    if not tokens:
        raise ValueError(f"vocab: the {source} is empty; a vocabulary needs at least the unknown token")
    seen: dict[str, int] = {}
    duplicates = []
    for i, token in enumerate(tokens):
        if token in seen:
            duplicates.append(f"{token!r} at ids {seen[token]} and {i}")
        seen.setdefault(token, i)
    if duplicates:
        raise ValueError(
            f"vocab: the {source} has {counted(len(duplicates), 'duplicate token')}: {', '.join(duplicates[:5])}; "
            "each token must appear once (line n is id n)"
        )
    missing = [t for t in required if t not in seen]
    if missing:
        raise ValueError(
            f"vocab: the {source} ({counted(len(tokens), 'token')}) lacks {missing}; add it or pass another "
            "unknown_token"
        )


def write_vocab_file(
    path: str | os.PathLike, tokens: Sequence[str], *, overwrite: bool = True, what: str = "path"
) -> None:
    """Writes vocab.txt (UTF-8, one token a line, line n is id n) atomically; `read_vocab_file` reads it back.

    An existing file is replaced only with `overwrite` and only when it looks
    like a vocab file (`files.check_file_output`); `what` names the path's
    argument in errors.
    """
    unwritable = [t for t in tokens if "\n" in t or t.endswith("\r")]
    if unwritable:
        raise ValueError(f"tokens: {unwritable[:3]} cannot be written one per line (line break in the token)")
    if tokens and tokens[0].startswith("\ufeff"):
        raise ValueError(
            f"tokens: the first token {tokens[0]!r} starts with U+FEFF, which reads back as a byte order "
            "mark (an error); move it after the first token"
        )
    write_text_atomically(
        path,
        "".join(f"{token}\n" for token in tokens),
        overwrite=overwrite,
        what=what,
        kind="vocab file",
        looks_ours=looks_like_text_lines,
    )
