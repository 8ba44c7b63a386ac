"""What TF1-style graphs need: `with tf.Graph().as_default():` code run by a `tf.compat.v1.Session`, as
tensorflow_text's own tests run each case first (`test_util.run_all_in_graph_and_eager_modes`).

There `tf.init_scope()` lands in that graph, not in eager mode, so:
- `cache_per_graph`: tables and constants made once and shared (eager tensors in TensorFlow 2's usual case)
  are made once per graph, as a tensor of one graph cannot be used in another;
- `HashTable`: a table initializes itself before its lookups, as nobody runs
  `tf.compat.v1.tables_initializer()` for the tables a tokenizer makes inside (tensorflow_text's tokenizers
  hold none).
Inside, the package compares tensors with `tf.equal` / `tf.not_equal`: outside TensorFlow 2's eager context
`a == b` on tensors is Python's identity test.
"""

from __future__ import annotations

import functools
import weakref
from typing import Callable, TypeVar

import tensorflow as tf

T = TypeVar("T")


def outer_graph() -> tf.Graph | None:
    """The graph `tf.init_scope()` makes constants in, or None where that is eager (TensorFlow 2's usual case).

    >>> outer_graph() is None
    True
    """
    if tf.executing_eagerly():
        return None
    with tf.init_scope():
        return None if tf.executing_eagerly() else tf.compat.v1.get_default_graph()


def cache_per_graph(make: Callable[..., T]) -> Callable[..., T]:
    """`functools.cache`, with one entry per outer graph (see `outer_graph`) besides the eager one.

    >>> @cache_per_graph
    ... def table(n):
    ...     return tf.range(n)
    >>> table(3) is table(3)
    True
    >>> with tf.Graph().as_default():
    ...     table(3) is table(3), table(3).graph is tf.compat.v1.get_default_graph()
    (True, True)
    """
    eager = functools.cache(make)
    in_graphs: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    @functools.wraps(make)
    def cached(*args, **kwargs):
        graph = outer_graph()
        if graph is None:
            return eager(*args, **kwargs)
        if graph not in in_graphs:
            in_graphs[graph] = functools.cache(make)
        return in_graphs[graph](*args, **kwargs)

    return cached


class HashTable(tf.lookup.StaticHashTable):
    """`tf.lookup.StaticHashTable` that, in a TF1-style graph, initializes itself before each lookup.

    TensorFlow accepts a second initialization with the same keys and values as a no-op, so a
    session that never ran `tables_initializer()` still gets its ids. Elsewhere it is a StaticHashTable.

    >>> table = HashTable(tf.lookup.KeyValueTensorInitializer(["a", "b"], [0, 1]), default_value=-1)
    >>> table.lookup(tf.constant(["b", "c"])).numpy().tolist()
    [1, -1]
    >>> with tf.Graph().as_default():
    ...     table = HashTable(tf.lookup.KeyValueTensorInitializer(["a", "b"], [0, 1]), default_value=-1)
    ...     tf.compat.v1.Session().run(table.lookup(tf.constant(["b", "c"]))).tolist()
    [1, -1]
    """

    def lookup(self, keys, name=None):
        init = self._init_op
        if outer_graph() is None or not isinstance(init, tf.Operation):
            return super().lookup(keys, name)
        with tf.control_dependencies([init]):
            return super().lookup(keys, name)
