"""The tutorial's `Translator` (greedy decoding) and `ExportTranslator` (one Portuguese string in, English out).

`tokenizers` is the subword tutorial's converter: anything with `.pt` and `.en` that have `tokenize` (string
`[batch]` -> int64 ragged `[batch, tokens]`, `[START]` first, `[END]` last), `detokenize` and `lookup`:
the SavedModel `tf-wordpiece export` writes, loaded with `tf.saved_model.load`. The saved translator holds
the converter's graphs, so it loads and runs with TensorFlow alone (no tensorflow_text, no tf_wordpiece).
"""

from __future__ import annotations

import os
import pathlib

import tensorflow as tf

from tf_wordpiece.export.saving import save_atomically

MAX_TOKENS = 128  # the tutorial's: source ids beyond this are cut, and at most this many tokens are generated


class Translator(tf.Module):
    """Greedy decoding: the English `[START]`, then the model's most likely next token until `[END]`.

    Call with a string scalar (or `[1]`) tensor; returns (text: string scalar, tokens: string `[tokens]`
    with `[START]` first, attention: float32 `[1, heads, tokens - 1, source tokens]` of the last decoder layer).
    The source is tokenized with `tokenizers.pt` and cut to `max_tokens` ids, as the training pipeline
    cuts it, so an over-long text is translated from its beginning instead of failing.
    """

    def __init__(self, tokenizers, transformer, *, max_tokens: int = MAX_TOKENS):
        super().__init__()
        self.tokenizers = tokenizers
        self.transformer = transformer
        self.max_tokens = max_tokens

    def __call__(self, sentence, max_length: int = MAX_TOKENS):
        if not isinstance(sentence, tf.Tensor) or sentence.dtype != tf.string:
            raise TypeError(f"sentence: expected a tf.string tensor, got {sentence!r}")
        if sentence.shape.rank == 0:
            sentence = sentence[tf.newaxis]
        encoder_input = self.tokenizers.pt.tokenize(sentence)[:, : self.max_tokens].to_tensor()

        start_end = self.tokenizers.en.tokenize(tf.constant([""]))[0]  # [START], [END]
        start, end = start_end[0], start_end[1]
        # A TensorArray, not a Python list, so that tf.function can trace the loop.
        output_array = tf.TensorArray(dtype=tf.int64, size=0, dynamic_size=True)
        output_array = output_array.write(0, start[tf.newaxis])
        for i in tf.range(max_length):
            output = tf.transpose(output_array.stack())  # [1, tokens so far]
            logits = self.transformer([encoder_input, output], training=False)
            predicted_id = tf.argmax(logits[:, -1, :], axis=-1)  # [1]
            output_array = output_array.write(i + 1, predicted_id)
            if predicted_id[0] == end:
                break
        output = tf.transpose(output_array.stack())  # [1, tokens]
        text = self.tokenizers.en.detokenize(output)[0]
        tokens = self.tokenizers.en.lookup(output)[0]
        # The loop's attention scores live inside the loop's graph: compute them once more outside it.
        self.transformer([encoder_input, output[:, :-1]], training=False)
        return text, tokens, self.transformer.decoder.last_attn_scores


class ExportTranslator(tf.Module):
    """The tutorial's export wrapper: `__call__(string scalar) -> string scalar`, the translation."""

    def __init__(self, translator: Translator, *, max_length: int = MAX_TOKENS):
        super().__init__()
        self.translator = translator
        self.max_length = max_length

    @tf.function(input_signature=[tf.TensorSpec(shape=[], dtype=tf.string)])
    def __call__(self, sentence):
        text, _tokens, _attention = self.translator(sentence, max_length=self.max_length)
        return text


def save_translator(module: tf.Module, out_dir: str | os.PathLike, *, overwrite: bool = False) -> pathlib.Path:
    """Saves `module` (an ExportTranslator) as a SavedModel at `out_dir`, atomically. Returns the folder.

    `tf_wordpiece.export.saving.save_atomically`, the package's one SavedModel writer: written into a hidden
    sibling folder, then renamed into place. `tf_wordpiece.files.check_model_folder` runs first: an existing
    SavedModel is replaced only with `overwrite`, and a folder holding anything else (or the current folder)
    never is. Ctrl-C is held back while the old model is swapped out.
    """
    return save_atomically(module, out_dir, overwrite=overwrite)


def load_translator(path: str | os.PathLike):
    """`tf.saved_model.load(path)`, with a clear error when `path` holds no SavedModel."""
    folder = pathlib.Path(path)
    if not (folder / "saved_model.pb").is_file():
        what = "does not exist" if not folder.exists() else "holds no saved_model.pb"
        raise FileNotFoundError(f"translator: {folder} {what}; give the folder that train_translator.py --out wrote")
    return tf.saved_model.load(str(folder))
