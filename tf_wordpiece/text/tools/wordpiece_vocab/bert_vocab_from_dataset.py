"""`bert_vocab_from_dataset` at tensorflow_text's module path: `tf_wordpiece.learning.from_text`'s.

>>> import tensorflow as tf
>>> data = tf.data.Dataset.from_tensor_slices(["the cat", "the hat"] * 5)
>>> bert_vocab_from_dataset(data, 14, ["[UNK]"], learn_params={"lower_thresh": 1})[6:9]
['the', 'cat', 'hat']
"""

from tf_wordpiece.learning.from_text import bert_vocab_from_dataset

__all__ = ["bert_vocab_from_dataset"]
