"""Keras 3 layers: a WordPiece tokenizer and a BERT inputs packer, in core TensorFlow ops.

Not imported by `import tf_wordpiece` (Keras is TensorFlow's, but only these
layers need it): `from tf_wordpiece.keras_layers import WordPieceTokenizer, BertInputsPacker`.
Keras 3 on any backend: they compute in TensorFlow (inside `tf.data` on JAX or
PyTorch, as keras-hub's preprocessing layers do) and, called eagerly on another
backend, return its arrays (ragged ids as Python lists): `tf_wordpiece.keras_backends`.

- They run in `model.fit` on string inputs, inside `tf.data`, and in
  `model.export(...)`, whose SavedModel loads with `tf.saved_model.load` where
  neither tf_wordpiece nor tensorflow_text is installed.
- `get_config` holds the vocabulary itself (a list of tokens, never a path),
  so a `.keras` file carries it and reloads anywhere with
  `keras.models.load_model` (with tf_wordpiece installed).
- `WordPieceTokenizer` takes keras-hub's `WordPieceTokenizer` arguments
  (`vocabulary`, `sequence_length`, `lowercase`, `strip_accents`, `split`,
  `split_on_cjk`, `oov_token`, `suffix_indicator`, `dtype`). With
  `compat="keras_hub"` its ids are keras-hub's (`tf_wordpiece.bert.keras_hub_compat`);
  with `"tf_text"` or `"hf"` the words are split by tf_wordpiece's
  `BertTokenizer`, whose ids equal tensorflow_text's or Hugging Face's.
"""

from __future__ import annotations

import dataclasses
import os
from typing import ClassVar, Sequence

import keras
import tensorflow as tf

from tf_wordpiece.bert.keras_hub_compat import KerasHubWordPiece
from tf_wordpiece.bert.packing import FixedLengthTemplate
from tf_wordpiece.bert.post_processors import Segment
from tf_wordpiece.bert.recipes import RECIPES, HfRecipe, TfTextRecipe
from tf_wordpiece.bert_tokenizer.tokenizer import BertTokenizer
from tf_wordpiece.cores import capabilities, cores_that
from tf_wordpiece.keras_backends import backend_outputs, takes_tensorflow_inputs, to_tensorflow
from tf_wordpiece.messages import check_choice, errors_in_names
from tf_wordpiece.shapes import refuse_empty_list
from tf_wordpiece.vocab import read_vocab_file

TEMPLATES = tuple(RECIPES)  # BertInputsPacker's template: the recipe whose trimming it runs
COMPATS = ("tf_text", "hf", "keras_hub")
CORES = tuple(cores_that(compiles=False))  # a layer's graph runs inside Keras' own: no XLA-compiled core


# The layer's names of what it hands on to BertTokenizer and the vocab reader, whose errors name their own.
LAYER_NAMES = {"vocab": "vocabulary", "unknown_token": "oov_token"}


def _vocabulary_list(vocabulary) -> list[str]:
    if isinstance(vocabulary, (str, os.PathLike)):
        return read_vocab_file(vocabulary)
    if isinstance(vocabulary, Sequence) and all(isinstance(t, str) for t in vocabulary):
        return list(vocabulary)
    raise ValueError(
        f"vocabulary: expected a vocab.txt path or a list of token strings, got {type(vocabulary).__name__}; "
        "pass e.g. vocabulary='vocab.txt'"
    )


@keras.saving.register_keras_serializable(package="tf_wordpiece")
class WordPieceTokenizer(keras.layers.Layer):
    """Strings -> WordPiece ids, words and pieces merged (keras-hub's `WordPieceTokenizer` output).

    Shapes: strings [batch] -> int [batch, (pieces)] RaggedTensor, or dense
    [batch, sequence_length] padded with 0 and cut when `sequence_length` is set;
    a scalar string gives [(pieces)] or [sequence_length]. With `split=False`
    (keras-hub's pre-split input) words [batch, (words)] -> [batch, (pieces)],
    and words [words] -> [(pieces)].

    Args:
      vocabulary: a vocab.txt path (read now; the layer keeps the tokens) or a list of tokens.
      sequence_length: pad or cut each row to this length (dense output). Defaults to None (ragged).
      lowercase: BERT's uncased normalization. Defaults to False.
      strip_accents: keras-hub's (None is its default, False) with
        compat="keras_hub"; Hugging Face's (None follows `lowercase`) with
        compat="hf"; in compat="tf_text" accents are stripped exactly when
        lowercasing, as tensorflow_text does. Defaults to None.
      split: compat="keras_hub" only: split on white space and punctuation
        (False: the inputs are words already). Defaults to True.
      split_on_cjk: compat="keras_hub" only: CJK ideographs are words of their own. Defaults to True.
      oov_token: the unknown token; must be in the vocabulary. Defaults to "[UNK]".
      suffix_indicator: the prefix of non-initial pieces. Defaults to "##".
      compat: "tf_text" (tensorflow_text.BertTokenizer's ids), "hf" (Hugging
        Face's) or "keras_hub" (keras-hub 0.32's `WordPieceTokenizer`: it strips
        accents, splits, then case-folds each word). Defaults to "tf_text".
      special_tokens: tokens matched whole in the text (each one id); not with
        compat="keras_hub". Defaults to none.
      core: `BertTokenizer`'s core, "string" or "numeric" (the same ids, and
        `tokenize_bytes` for runtimes without string ops: TFLite builtins,
        TF.js); not with compat="keras_hub". Defaults to "string".
      dtype: "int32" or "int64". Defaults to "int32".

    >>> layer = WordPieceTokenizer(vocabulary=["[UNK]", "hello", "world", "!", "##s"], lowercase=True)
    >>> layer(tf.constant(["Hello worlds!"])).to_list()
    [[1, 2, 4, 3]]
    >>> WordPieceTokenizer(vocabulary=["[UNK]", "hello"], sequence_length=3)(tf.constant(["hello"])).numpy().tolist()
    [[1, 0, 0]]
    >>> hub = WordPieceTokenizer(vocabulary=["[UNK]", "a", "b", "!"], lowercase=True, compat="keras_hub")
    >>> hub(tf.constant(["A\u00a0B ＡB！"])).to_list()  # folded after the split: "a b" and "ab" are words
    [[0, 0, 3]]
    """

    def __init__(
        self,
        vocabulary=None,
        *,
        sequence_length: int | None = None,
        lowercase: bool = False,
        strip_accents: bool | None = None,
        split: bool = True,
        split_on_cjk: bool = True,
        oov_token: str = "[UNK]",
        suffix_indicator: str = "##",
        compat: str = "tf_text",
        special_tokens: Sequence[str] | None = None,
        core: str = "string",
        dtype="int32",
        **kwargs,
    ):
        if vocabulary is None:
            raise ValueError(
                "vocabulary: WordPieceTokenizer needs one; pass vocabulary='vocab.txt' or a list of tokens"
            )
        if sequence_length is not None and (
            isinstance(sequence_length, bool) or not isinstance(sequence_length, int) or sequence_length < 1
        ):
            raise ValueError(f"sequence_length: expected a positive int or None, got {sequence_length!r}")
        if dtype not in ("int32", "int64"):
            raise ValueError(f"dtype: expected 'int32' or 'int64' (token ids), got {dtype!r}")
        recipe = _layer_recipe(
            compat, lowercase=lowercase, strip_accents=strip_accents, split=split, split_on_cjk=split_on_cjk
        )
        recipe.check_layer_options(special_tokens=special_tokens, core=core)
        kwargs.pop("trainable", None)  # saved by get_config; the layer has no weights
        super().__init__(dtype=dtype, trainable=False, **kwargs)
        takes_tensorflow_inputs(self)  # strings and lists reach `call` as they are, on every backend
        with errors_in_names(LAYER_NAMES):
            self.vocabulary = _vocabulary_list(vocabulary)
        self.sequence_length = sequence_length
        self.lowercase = bool(lowercase)
        self.strip_accents = strip_accents
        self.oov_token = oov_token
        self.suffix_indicator = suffix_indicator
        self.split, self.split_on_cjk = bool(split), bool(split_on_cjk)
        self.compat = compat
        self.special_tokens = list(special_tokens) if special_tokens else None
        self.core = core
        with errors_in_names(LAYER_NAMES):
            self._tokenizer = recipe.tokenizer(
                self.vocabulary,
                oov_token=oov_token,
                suffix_indicator=suffix_indicator,
                special_tokens=self.special_tokens,
                dtype=dtype,
                core=core,
            )

    @backend_outputs
    def call(self, inputs):
        refuse_empty_list(inputs, "inputs")
        inputs = to_tensorflow(inputs)
        one_row = not isinstance(inputs, tf.RaggedTensor) and inputs.shape.rank == (0 if self.split else 1)
        strings = inputs[None] if one_row else inputs
        ids = tf.cast(self._tokenizer.tokenize(strings).merge_dims(-2, -1), self.dtype)  # [..., words, pieces]
        if self.sequence_length is not None:
            ids = ids.to_tensor(default_value=0, shape=[None, self.sequence_length])
        return ids[0] if one_row else ids

    def tokenize_bytes(self, data, row_lengths) -> dict[str, tf.Tensor]:
        """UTF-8 bytes in, ids out, in integer ops only (needs core="numeric"; no sequence_length applied).

        `data` uint8 (or int32) [B] holds the strings' bytes end to end,
        `row_lengths` int32 [n] each string's length in bytes. Returns
        {"token_ids": int32 [pieces], "row_lengths": int32 [n]}: the ids of
        `call` on the strings, flat, and pieces per string.

        >>> layer = WordPieceTokenizer(vocabulary=["[UNK]", "hi", "##s"], core="numeric")
        >>> out = layer.tokenize_bytes(tf.constant(list(b"his hix"), tf.uint8), tf.constant([4, 3]))
        >>> out["token_ids"].numpy().tolist(), out["row_lengths"].numpy().tolist()
        ([1, 2, 0], [2, 1])
        """
        if not capabilities(self.core).takes_bytes:
            raise ValueError(
                f"core={self.core!r}: tokenize_bytes needs the numeric core; build the layer with core='numeric'"
            )
        out = self._tokenizer.tokenize_bytes(data, row_lengths)
        return {"token_ids": tf.cast(out["token_ids"], self.dtype), "row_lengths": out["row_lengths"]}

    def vocabulary_size(self) -> int:
        return len(self.vocabulary)

    def id_to_token(self, token_id: int) -> str:
        if not 0 <= token_id < len(self.vocabulary):
            raise ValueError(
                f"token_id: {token_id!r} is outside the vocabulary [0, {len(self.vocabulary)}); "
                "pass an id the tokenizer produced"
            )
        return self.vocabulary[token_id]

    def token_to_id(self, token: str) -> int:
        try:
            return self.vocabulary.index(token)
        except ValueError:
            raise ValueError(
                f"token: {token!r} is not in the vocabulary ({len(self.vocabulary)} tokens); check its "
                f"case and the {self.suffix_indicator!r} prefix"
            ) from None

    def compute_output_spec(self, inputs):
        outer = inputs.shape if self.split else inputs.shape[:-1]  # split=False: the last axis is words
        shape = (*outer, self.sequence_length)
        return keras.KerasTensor(shape, dtype=self.dtype, ragged=self.sequence_length is None)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(
            vocabulary=self.vocabulary,
            sequence_length=self.sequence_length,
            lowercase=self.lowercase,
            strip_accents=self.strip_accents,
            split=self.split,
            split_on_cjk=self.split_on_cjk,
            oov_token=self.oov_token,
            suffix_indicator=self.suffix_indicator,
            compat=self.compat,
            special_tokens=self.special_tokens,
            core=self.core,
        )
        return config

    @classmethod
    def from_config(cls, config: dict) -> "WordPieceTokenizer":
        config = dict(config)
        dtype = config.get("dtype")
        if isinstance(dtype, dict):  # a serialized DTypePolicy
            config["dtype"] = dtype.get("config", {}).get("name", "int32")
        elif hasattr(dtype, "name"):
            config["dtype"] = dtype.name
        return cls(**config)


def _layer_recipe(
    compat: str, *, lowercase: bool, strip_accents: bool | None, split: bool, split_on_cjk: bool
) -> "_BertLayerRecipe | _KerasHubLayerRecipe":
    """The recipe `compat` names, from keras-hub's option names; a ValueError naming an option it does not take."""
    check_choice("compat", compat, COMPATS)
    if compat == _KerasHubLayerRecipe.compat:
        return _KerasHubLayerRecipe(
            lowercase=bool(lowercase),
            strip_accents=bool(strip_accents),
            split=bool(split),
            split_on_cjk=bool(split_on_cjk),
        )
    if not split or not split_on_cjk:
        raise ValueError(
            f"split, split_on_cjk: keras-hub's options (got split={split!r}, split_on_cjk="
            f"{split_on_cjk!r}) need compat='keras_hub', got compat={compat!r}"
        )
    return _BertLayerRecipe(RECIPES[compat].from_keras_hub_options(lowercase=lowercase, strip_accents=strip_accents))


class _LayerRecipeChecks:
    """What a layer recipe takes besides its own options: `special_tokens` (if `takes_special_tokens`) and `core`."""

    compat: ClassVar[str]
    takes_special_tokens: ClassVar[bool]
    cores: ClassVar[tuple[str, ...]]

    def check_layer_options(self, *, special_tokens: Sequence[str] | None, core: str) -> None:
        if special_tokens and not self.takes_special_tokens:
            raise ValueError(
                f"special_tokens: not offered with compat={self.compat!r} (got {list(special_tokens)!r}); "
                "use compat='tf_text' or 'hf', or add the ids after tokenizing"
            )
        elsewhere = f" (core={core!r} needs compat='tf_text' or 'hf')" if core in CORES else ""
        check_choice("core", core, self.cores, note=f" with compat={self.compat!r}{elsewhere}")


@dataclasses.dataclass(frozen=True)
class _BertLayerRecipe(_LayerRecipeChecks):
    """compat="tf_text" or "hf": `BertTokenizer` with that recipe (its ids are the peer's)."""

    recipe: TfTextRecipe | HfRecipe
    takes_special_tokens: ClassVar[bool] = True
    cores: ClassVar[tuple[str, ...]] = CORES

    @property
    def compat(self) -> str:
        return self.recipe.compat

    def tokenizer(self, vocabulary: list[str], *, oov_token, suffix_indicator, special_tokens, dtype, core):
        return BertTokenizer(
            vocabulary,
            compat=self.recipe.compat,
            unknown_token=oov_token,
            suffix_indicator=suffix_indicator,
            special_tokens=special_tokens,
            token_out_type=tf.as_dtype(dtype),
            core=core,
            **dataclasses.asdict(self.recipe),
        )


@dataclasses.dataclass(frozen=True)
class _KerasHubLayerRecipe(_LayerRecipeChecks):
    """compat="keras_hub": keras-hub's own WordPieceTokenizer rules (`KerasHubWordPiece`), string ops only."""

    lowercase: bool
    strip_accents: bool
    split: bool
    split_on_cjk: bool
    compat: ClassVar[str] = "keras_hub"
    takes_special_tokens: ClassVar[bool] = False
    cores: ClassVar[tuple[str, ...]] = ("string",)

    def tokenizer(self, vocabulary: list[str], *, oov_token, suffix_indicator, special_tokens, dtype, core):
        return KerasHubWordPiece(
            vocabulary, suffix_indicator=suffix_indicator, oov_token=oov_token, **dataclasses.asdict(self)
        )


@keras.saving.register_keras_serializable(package="tf_wordpiece")
class BertInputsPacker(keras.layers.Layer):
    """Token ids of one or two segments -> BERT's dense inputs, `[CLS] a [SEP] (b [SEP])`.

    Shapes: int [batch, (tokens)] (ragged, or dense padded with `pad_id`) for each
    segment -> {"token_ids", "segment_ids", "padding_mask"} [batch, sequence_length]
    (keras-hub's names; `padding_mask` is bool).

    Args:
      sequence_length: the output length, special tokens included.
      cls_id, sep_id: the ids of `[CLS]` and `[SEP]` (`WordPieceTokenizer.token_to_id`).
      pad_id: what pads `token_ids`. Defaults to 0.
      template: how two segments share the length: "tf_text"
        (`tensorflow_text.RoundRobinTrimmer`, both segments' type ids as
        `[0]*(len(a)+2) + [1]*(len(b)+1)`) or "hf" (Hugging Face's
        `longest_first` truncation; the same template). Defaults to "tf_text".

    >>> packer = BertInputsPacker(sequence_length=6, cls_id=101, sep_id=102)
    >>> out = packer([tf.ragged.constant([[7, 8, 9]]), tf.ragged.constant([[5, 6, 4]])])
    >>> out["token_ids"].numpy().tolist(), out["segment_ids"].numpy().tolist()
    ([[101, 7, 8, 102, 5, 102]], [[0, 0, 0, 0, 1, 1]])
    """

    def __init__(
        self, *, sequence_length: int, cls_id: int, sep_id: int, pad_id: int = 0, template: str = "tf_text", **kwargs
    ):
        if isinstance(sequence_length, bool) or not isinstance(sequence_length, int) or sequence_length < 3:
            raise ValueError(
                f"sequence_length: expected an int >= 3 ([CLS], [SEP] and a token), got {sequence_length!r}"
            )
        check_choice("template", template, TEMPLATES)
        kwargs.pop("trainable", None)
        kwargs.pop("dtype", None)  # the outputs are int32 and bool
        super().__init__(trainable=False, dtype="int32", **kwargs)
        takes_tensorflow_inputs(self)  # ragged lists and tf tensors reach `call` as they are, on every backend
        self.sequence_length, self.template = sequence_length, template
        self.cls_id, self.sep_id, self.pad_id = int(cls_id), int(sep_id), int(pad_id)
        self._packer = FixedLengthTemplate(
            cls_id=self.cls_id, sep_id=self.sep_id, pad_id=self.pad_id, trimming=RECIPES[template].trimming
        )

    @backend_outputs
    def call(self, inputs):
        segments = list(inputs) if _segments(inputs) else [inputs]
        if not 1 <= len(segments) <= 2:
            raise ValueError(f"inputs: expected one or two segments, got {len(segments)}")
        segments = [tf.ragged.constant(s, tf.int64) if isinstance(s, list) else to_tensorflow(s) for s in segments]
        segments = [
            s if isinstance(s, tf.RaggedTensor) else tf.RaggedTensor.from_tensor(s, padding=self.pad_id)
            for s in segments
        ]
        segments = [Segment.from_ids(tf.cast(s, tf.int64)) for s in segments]
        enc = self._packer.pack(segments, seq_length=self.sequence_length)
        return {
            "token_ids": tf.cast(enc.ids, tf.int32),
            "segment_ids": tf.cast(enc.type_ids, tf.int32),
            "padding_mask": tf.cast(enc.attention_mask, tf.bool),
        }

    def pack_flat(self, ids, counts) -> dict[str, tf.Tensor]:
        """One segment given flat, in int32 arithmetic only (TFLite builtins, TF.js): int32 ids [k] and ids per
        row [n] -> the inputs of `call` on those rows, each [n, sequence_length] (`FixedLengthTemplate.pack_flat`).

        >>> packer = BertInputsPacker(sequence_length=4, cls_id=101, sep_id=102)
        >>> packer.pack_flat(tf.constant([7, 8, 9]), tf.constant([1, 2]))["token_ids"].numpy().tolist()
        [[101, 7, 102, 0], [101, 8, 9, 102]]
        """
        tokens, mask = self._packer.pack_flat(
            tf.cast(ids, tf.int32), tf.cast(counts, tf.int32), seq_length=self.sequence_length
        )
        return {"token_ids": tokens, "segment_ids": tf.zeros_like(tokens), "padding_mask": mask}

    def compute_output_spec(self, inputs):
        first = inputs[0] if isinstance(inputs, (list, tuple)) else inputs
        shape = (first.shape[0], self.sequence_length)
        return {
            "token_ids": keras.KerasTensor(shape, dtype="int32"),
            "segment_ids": keras.KerasTensor(shape, dtype="int32"),
            "padding_mask": keras.KerasTensor(shape, dtype="bool"),
        }

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(
            sequence_length=self.sequence_length,
            cls_id=self.cls_id,
            sep_id=self.sep_id,
            pad_id=self.pad_id,
            template=self.template,
        )
        return config


def _segments(inputs) -> bool:
    """Whether `inputs` is a list or tuple of segments, not one segment given as a list of rows of ids.

    A tuple is segments; so is a list of tensors or arrays, or of ragged lists
    (rows of rows). A list of rows of ids (`[[7, 8], [9]]`, a tokenizer's
    output on JAX) is one segment.
    """
    if isinstance(inputs, tuple):
        return True
    if not isinstance(inputs, list):
        return False
    return not all(isinstance(row, list) and not any(isinstance(i, list) for i in row) for row in inputs)
