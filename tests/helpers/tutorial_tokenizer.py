"""The subword tutorial's `CustomTokenizer` on `tensorflow_text.BertTokenizer`: the oracle of the exported converter.

As the tutorial (tensorflow.org/text/guide/subwords_tokenizer) writes it: `tokenize` merges words and
pieces and adds `[START]`/`[END]`, `detokenize` drops every reserved token but `[UNK]` and joins the
words with a space, `lookup` gathers from the vocabulary. Built from the same vocab files as the
converter that `tf-wordpiece export` writes, it must give the same ids and text.
"""

from __future__ import annotations

import pathlib
import re

import tensorflow as tf

RESERVED_TOKENS = ["[PAD]", "[UNK]", "[START]", "[END]"]


class TutorialTextTokenizer(tf.Module):
    """strings [batch] -> int64 ragged [batch, tokens], with tensorflow_text's BertTokenizer (lower_case=True)."""

    def __init__(self, vocab_path: str, reserved_tokens=RESERVED_TOKENS):
        super().__init__()
        import tensorflow_text as text  # the oracle only: the package never imports it

        self.tokenizer = text.BertTokenizer(vocab_path, lower_case=True)
        self._reserved_tokens = list(reserved_tokens)
        vocab = pathlib.Path(vocab_path).read_text(encoding="utf-8").splitlines()
        self.vocab = tf.Variable(vocab, trainable=False)
        self._start, self._end = vocab.index("[START]"), vocab.index("[END]")

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
    def tokenize(self, strings):
        ids = self.tokenizer.tokenize(strings).merge_dims(-2, -1)
        count = ids.bounding_shape()[0]
        starts = tf.fill([count, 1], tf.constant(self._start, tf.int64))
        ends = tf.fill([count, 1], tf.constant(self._end, tf.int64))
        return tf.concat([starts, ids, ends], axis=1)

    @tf.function
    def detokenize(self, tokenized):
        words = self.tokenizer.detokenize(tokenized)
        bad = "|".join(re.escape(token) for token in self._reserved_tokens if token != "[UNK]")
        keep = ~tf.strings.regex_full_match(words, bad)
        return tf.strings.reduce_join(tf.ragged.boolean_mask(words, keep), separator=" ", axis=-1)

    @tf.function
    def lookup(self, token_ids):
        return tf.gather(self.vocab, token_ids)


class TutorialTextConverter(tf.Module):
    """`.pt` and `.en` TutorialTextTokenizers: the tutorial's `ted_hrlr_translate_pt_en_converter`."""

    def __init__(self, pt_vocab: str, en_vocab: str):
        super().__init__()
        self.pt = TutorialTextTokenizer(pt_vocab)
        self.en = TutorialTextTokenizer(en_vocab)
