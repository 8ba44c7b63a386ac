"""tensorflow_text's `wordpiece_tokenizer_learner_lib`: `count_words` and `learn` (`tf_wordpiece.learning.learner`'s).

keras-hub's `compute_word_piece_vocabulary` imports this module and calls both.

>>> counts = count_words([[b"the", b"cat"], [b"the"]])
>>> counts["the"], learn(counts, 16, ["[UNK]"], lower_thresh=1)[-1]
(2, 'cat')
"""

from __future__ import annotations

import collections
from typing import Iterable

import numpy as np

from tf_wordpiece.learning.learner import learn

__all__ = ["count_words", "learn"]


def count_words(iterable: Iterable) -> collections.Counter:
    """Word arrays (NumPy, Tensor or RaggedTensor of words, any shape) -> Counter of str words, as tensorflow_text's.

    Bytes words are decoded as UTF-8 (as there, when the first word counted is bytes).
    """
    counts: collections.Counter = collections.Counter()
    for words in iterable:
        words = getattr(words, "flat_values", words)
        counts.update(np.reshape(words, [-1]).tolist())
    if counts and isinstance(next(iter(counts)), bytes):
        counts = collections.Counter({word.decode("utf-8"): count for word, count in counts.items()})
    return counts
