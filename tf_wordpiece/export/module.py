"""CustomTokenizer: TensorFlow's subword-tutorial tokenizer module, in core ops only.

The SavedModel it exports loads with `tf.saved_model.load` where tensorflow_text
is not installed, and its `serving_default` signature serves from stock TF Serving.
It holds the vocabulary twice: the vocab.txt asset (`get_vocab_path`) and one
token tensor, from which the graph builds its lookup tables when it loads and
which `lookup`, `detokenize` and `get_vocab_size` read.
"""

from __future__ import annotations

import os
import re
from typing import Sequence

import tensorflow as tf

from tf_wordpiece.base import Detokenizer, Tokenizer
from tf_wordpiece.bert.packing import FixedLengthTemplate
from tf_wordpiece.bert.post_processors import Segment
from tf_wordpiece.bert_tokenizer.tokenizer import BertTokenizer
from tf_wordpiece.cores import cores_that
from tf_wordpiece.messages import errors_in_names
from tf_wordpiece.shapes import map_over_strings, merge_words, wrap_flat_rows, wrap_rows
from tf_wordpiece.vocab import read_vocab_file, write_vocab_file

REQUIRED_RESERVED = ("[START]", "[END]", "[UNK]")
STRING_BATCH = tf.TensorSpec([None], tf.string)
DENSE_IDS = tf.TensorSpec([None, None], tf.int64)
RAGGED_IDS = tf.RaggedTensorSpec([None, None], tf.int64)
DENSE_IDS_INT32 = tf.TensorSpec([None, None], tf.int32)
RAGGED_IDS_INT32 = tf.RaggedTensorSpec([None, None], tf.int32)
BYTES = tf.TensorSpec([None], tf.uint8, name="bytes")
ROW_LENGTHS = tf.TensorSpec([None], tf.int32, name="row_lengths")


class TutorialTokenizer(Tokenizer, Detokenizer):
    """The subword tutorial's tokenizer: BERT WordPiece plus [START]/[END], as a tf.Module.

    The methods of the tutorial's `CustomTokenizer`, and a serving signature;
    `CustomTokenizer` adds BERT model inputs. Signatures (all traced at
    construction, so a SavedModel has them):
      tokenize(string [batch]) -> int64 RaggedTensor [batch, tokens], words and
        pieces merged, `[START]` first and `[END]` last.
      detokenize(int64 [batch, tokens], dense or ragged) -> string [batch]:
        pieces rejoined into words, reserved tokens except `[UNK]` dropped, words
        joined by one space.
      lookup(int64 [batch, tokens], dense or ragged) -> the token strings.
      get_vocab_size(), get_vocab_path() (a SavedModel asset), get_reserved_tokens().
      serving(string [batch]) -> {"token_ids": int64 [batch, longest] padded with
        [PAD] (or 0), "lengths": int64 [batch]}: the `serving_default` signature.
      tokenize_bytes(uint8 [bytes], int32 [batch]) -> flat int32 ids, offsets and
        tokens per string, in integer ops only: with core="numeric" or "xla"
        only (TFLite builtins, TF.js via `save_tfjs`); see `_tokenize_bytes`.

    Args:
      reserved_tokens: must include "[START]", "[END]" and "[UNK]", all in the vocabulary.
      vocab_path: vocab.txt (line n is id n), the SavedModel's asset; or the tokens, a list.
      vocab_file: with a list of tokens, where to write them as vocab.txt (a
        new file, written atomically and never read back) for the SavedModel's
        asset; keep it until the module is saved. `export_converter` writes it
        in the hidden folder the model is saved from.
      **tokenizer_params: BertTokenizer options (e.g. lower_case=True, compat="hf").

    >>> import tempfile, pathlib
    >>> folder = tempfile.TemporaryDirectory()
    >>> path = pathlib.Path(folder.name) / "vocab.txt"
    >>> _ = path.write_text("[PAD]\\n[UNK]\\n[START]\\n[END]\\nhello\\nworld\\n!\\n")
    >>> tok = TutorialTokenizer(["[PAD]", "[UNK]", "[START]", "[END]"], str(path), lower_case=True)
    >>> ids = tok.tokenize(tf.constant(["Hello World!"]))
    >>> ids.to_list()
    [[2, 4, 5, 6, 3]]
    >>> tok.detokenize(ids).numpy().tolist()
    [b'hello world !']
    >>> folder.cleanup()
    """

    def __init__(
        self,
        reserved_tokens: Sequence[str],
        vocab_path: str | os.PathLike | Sequence[str],
        *,
        vocab_file: str | os.PathLike | None = None,
        **tokenizer_params,
    ):
        super().__init__()
        reserved_tokens = list(reserved_tokens)
        missing = [t for t in REQUIRED_RESERVED if t not in reserved_tokens]
        if missing:
            raise ValueError(f"reserved_tokens: {reserved_tokens} lacks {missing}; the tutorial's module needs them")
        from_file = isinstance(vocab_path, (str, os.PathLike))
        if from_file and vocab_file is not None:
            raise ValueError(f"vocab_file: {os.fspath(vocab_file)!r} is for a list of tokens; vocab_path is a file")
        if not from_file and vocab_file is None:
            raise ValueError(
                "vocab_file: a list of tokens needs the path of the vocab.txt to write them to, the SavedModel's asset"
            )
        with errors_in_names({"vocab": "vocab_path"}):  # the vocab reader's and BertTokenizer's name for it
            tokens = read_vocab_file(vocab_path) if from_file else vocab_path
        where = f"vocab file {os.fspath(vocab_path)!r}" if from_file else "vocabulary"
        absent = [t for t in reserved_tokens if t not in set(tokens)]
        if absent:
            raise ValueError(f"reserved_tokens: {absent} not in the {where}; add them")
        with errors_in_names({"vocab": "vocab_path"}):
            self.tokenizer = BertTokenizer(tokens, **tokenizer_params)
        if not from_file:
            write_vocab_file(vocab_file, self.tokenizer.vocab.tokens, overwrite=False, what="vocab_file")
        self._vocab_path = tf.saved_model.Asset(os.fspath(vocab_path if from_file else vocab_file))
        ids = self.tokenizer.token_to_id
        self._start, self._end = ids("[START]"), ids("[END]")
        self._pad = _id_or(ids("[PAD]"), 0)
        self._reserved_tokens = reserved_tokens
        # Bad-token pattern for detokenize: every reserved token but [UNK].
        self._drop_pattern = "|".join(re.escape(t) for t in reserved_tokens if t != "[UNK]") or "(?!)"

        self.tokenize.get_concrete_function(STRING_BATCH)
        for spec in (DENSE_IDS, RAGGED_IDS):
            self.detokenize.get_concrete_function(spec)
            self.lookup.get_concrete_function(spec)
        for spec in (DENSE_IDS_INT32, RAGGED_IDS_INT32):  # int32 ids (Keras' default) look up too
            self.lookup.get_concrete_function(spec)
        self.get_vocab_size.get_concrete_function()
        self.get_vocab_path.get_concrete_function()
        self.get_reserved_tokens.get_concrete_function()
        if self.tokenizer.engine.takes_bytes:  # the numeric core's
            self.tokenize_bytes = tf.function(self._tokenize_bytes, input_signature=[BYTES, ROW_LENGTHS])
            self.tokenize_bytes.get_concrete_function()

    @property
    def _tokens(self) -> tf.Tensor:
        """string [vocab size]: the one token tensor (the tokenizer's) that every signature reads."""
        return self.tokenizer.vocab.token_tensor

    @tf.function(input_signature=[STRING_BATCH])
    def tokenize(self, strings):
        pieces = tf.cast(merge_words(self.tokenizer.tokenize(strings)), tf.int64)
        return wrap_rows(pieces, self._start, self._end)

    def tokenize_nd(self, strings) -> tf.Tensor | tf.RaggedTensor:
        """`tokenize` for strings of any rank, on the Python object (the saved `tokenize` takes [batch] only).

        Shapes: a scalar -> int64 [(tokens)]; [batch] -> [batch, (tokens)];
        [d1, ..., dn] -> [d1, ..., dn, (tokens)]; a RaggedTensor keeps its ragged axes.
        A loaded SavedModel does the same with `tf.reshape(strings, [-1])`,
        `tokenize`, then `tf.RaggedTensor.from_uniform_row_length`.

        >>> import tempfile, pathlib
        >>> folder = tempfile.TemporaryDirectory()
        >>> path = pathlib.Path(folder.name) / "vocab.txt"
        >>> _ = path.write_text("[PAD]\\n[UNK]\\n[START]\\n[END]\\nhi\\n")
        >>> tok = CustomTokenizer(["[PAD]", "[UNK]", "[START]", "[END]"], str(path))
        >>> tok.tokenize_nd("hi").numpy().tolist(), tok.tokenize_nd([["hi", ""]]).to_list()
        ([2, 4, 3], [[[2, 4, 3], [2, 3]]])
        >>> folder.cleanup()
        """
        return map_over_strings(strings, "strings", lambda flat: (self.tokenize(flat),))[0]

    @tf.function
    def detokenize(self, tokenized):
        words = self.tokenizer.detokenize(self._checked(tokenized))
        keep = ~tf.strings.regex_full_match(words, self._drop_pattern)
        return tf.strings.reduce_join(tf.ragged.boolean_mask(words, keep), separator=" ", axis=-1)

    @tf.function
    def lookup(self, token_ids):
        token_ids = self._checked(token_ids)
        if isinstance(token_ids, tf.RaggedTensor):
            return tf.ragged.map_flat_values(tf.gather, self._tokens, token_ids)
        return tf.gather(self._tokens, token_ids)

    @tf.function(input_signature=[])
    def get_vocab_size(self):
        return tf.shape(self._tokens)[0]

    @tf.function(input_signature=[])
    def get_vocab_path(self):
        return self._vocab_path

    @tf.function(input_signature=[])
    def get_reserved_tokens(self):
        return tf.constant(self._reserved_tokens)

    @tf.function(input_signature=[STRING_BATCH])
    def serving(self, strings):
        ids = self.tokenize(strings)
        return {"token_ids": ids.to_tensor(default_value=self._pad), "lengths": ids.row_lengths()}

    def _tokenize_bytes(self, data, row_lengths):
        """`tokenize` on UTF-8 bytes, in integer ops only (TFLite builtins, TF.js): the `tokenize_bytes` signature.

        data uint8 [B] (the strings end to end), row_lengths int32 [n] (bytes
        per string) -> {"token_ids": int32 [tokens], the ids of `tokenize`
        ([START] and [END] included) row after row; "starts", "ends": int32
        [tokens], byte offsets in the token's string (0 for [START], the
        string's length for [END]); "row_lengths": int32 [n], tokens per string}.
        """
        out = self.tokenizer.tokenize_bytes(data, row_lengths)
        ids, starts, ends = wrap_flat_rows(
            [out["token_ids"], out["starts"], out["ends"]],
            out["row_lengths"],
            [self._start, 0, 0],
            [self._end, row_lengths, row_lengths],
        )
        return {"token_ids": ids, "starts": starts, "ends": ends, "row_lengths": out["row_lengths"] + 2}

    def save_tfjs(self, out_dir: str | os.PathLike, *, overwrite: bool = False) -> None:
        """Writes the `tokenize_bytes` signature as a TensorFlow.js graph model (needs core="numeric").

        `out_dir` gets model.json and one weights file; `examples/tfjs/tokenize.mjs`
        runs it in Node with @tensorflow/tfjs. TF.js takes int32 where the
        signature takes uint8 bytes. See `tf_wordpiece.export.tfjs`.
        """
        if not self.tokenizer.engine.capabilities.runs_without_string_ops:
            portable = cores_that(runs_without_string_ops=True)
            raise ValueError(
                f"core={self.tokenizer.core!r}: a TF.js model needs core={portable[0]!r} (TF.js runs no "
                f"string ops and no XLA); build the tokenizer with core={portable[0]!r}"
            )
        from tf_wordpiece.export.tfjs import save_tfjs_graph_model

        save_tfjs_graph_model(
            self._tokenize_bytes, {"data": BYTES, "row_lengths": ROW_LENGTHS}, out_dir, overwrite=overwrite
        )

    def _checked(self, ids):
        """`ids`, once checked to be in [0, vocab size) (the checks run first, not beside the use)."""
        values = ids.flat_values if isinstance(ids, tf.RaggedTensor) else ids
        size = tf.cast(tf.shape(self._tokens)[0], values.dtype)
        checks = [
            tf.debugging.assert_non_negative(values, message="token ids must be >= 0"),
            tf.debugging.assert_less(values, size, message="token ids must be < the vocabulary size"),
        ]
        with tf.control_dependencies(checks):
            values = tf.identity(values)
        return ids.with_flat_values(values) if isinstance(ids, tf.RaggedTensor) else values


class CustomTokenizer(TutorialTokenizer):
    """`TutorialTokenizer` plus BERT model inputs.

    Also (with fixed input signatures, so a SavedModel has them):
      bert_pack_inputs(string [batch]) and bert_pack_pair_inputs(string [batch],
        string [batch]) -> {"input_word_ids", "input_mask", "input_type_ids"},
        int32 [batch, seq_length], `[CLS] a [SEP] (b [SEP])` (type id 1 for b
        and its [SEP]) when the vocabulary has [CLS]/[SEP], else
        `[START]`/`[END]`, padded with [PAD] (or 0). Segments are trimmed
        round-robin like `tensorflow_text.RoundRobinTrimmer`, or with
        compat="hf" longest-first as Hugging Face truncates (the ids of
        `BertTokenizer.encode(..., truncation="longest_first",
        padding="max_length")`). One packer, `bert.packing.FixedLengthTemplate`,
        as in the Keras `BertInputsPacker`.
      `signatures()`: serving_default and both BERT inputs, for tf.saved_model.save.

    Args:
      reserved_tokens, vocab_path, vocab_file, **tokenizer_params: as `TutorialTokenizer`.
      seq_length: the fixed length of the BERT inputs. Defaults to 128.

    >>> import tempfile, pathlib
    >>> folder = tempfile.TemporaryDirectory()
    >>> path = pathlib.Path(folder.name) / "vocab.txt"
    >>> _ = path.write_text("[PAD]\\n[UNK]\\n[START]\\n[END]\\n[CLS]\\n[SEP]\\nhello\\n")
    >>> tok = CustomTokenizer(["[PAD]", "[UNK]", "[START]", "[END]"], str(path), seq_length=5)
    >>> tok.bert_pack_inputs(tf.constant(["hello"]))["input_word_ids"].numpy().tolist()
    [[4, 6, 5, 0, 0]]
    >>> folder.cleanup()
    """

    def __init__(
        self,
        reserved_tokens: Sequence[str],
        vocab_path: str | os.PathLike | Sequence[str],
        *,
        seq_length: int = 128,
        **tokenizer_params,
    ):
        if isinstance(seq_length, bool) or not isinstance(seq_length, int) or seq_length < 3:
            raise ValueError(f"seq_length: expected an int >= 3, got {seq_length!r}")
        super().__init__(reserved_tokens, vocab_path, **tokenizer_params)
        self.seq_length = seq_length
        ids = self.tokenizer.token_to_id
        self._cls, self._sep = _id_or(ids("[CLS]"), self._start), _id_or(ids("[SEP]"), self._end)
        self._packer = FixedLengthTemplate(
            cls_id=self._cls,
            sep_id=self._sep,
            pad_id=self._pad,
            trimming=self.tokenizer.recipe.trimming,
        )

    @tf.function(input_signature=[STRING_BATCH])
    def bert_pack_inputs(self, strings):
        return self._pack([self._segment(strings)])

    @tf.function(input_signature=[STRING_BATCH, STRING_BATCH])
    def bert_pack_pair_inputs(self, first, second):
        return self._pack([self._segment(first), self._segment(second)])

    def signatures(self) -> dict:
        """The signatures to pass to tf.saved_model.save."""
        signatures = {
            "serving_default": self.serving.get_concrete_function(),
            "bert_pack_inputs": self.bert_pack_inputs.get_concrete_function(),
            "bert_pack_pair_inputs": self.bert_pack_pair_inputs.get_concrete_function(),
        }
        if self.tokenizer.engine.takes_bytes:
            signatures["tokenize_bytes"] = self.tokenize_bytes.get_concrete_function()
        return signatures

    def _segment(self, strings):
        return tf.cast(merge_words(self.tokenizer.tokenize(strings)), tf.int64)

    def _pack(self, segments):
        enc = self._packer.pack([Segment.from_ids(s) for s in segments], seq_length=self.seq_length)
        return self._bert_inputs(enc)

    @staticmethod
    def _bert_inputs(enc) -> dict:
        """An Encoding as the BERT encoders' int32 inputs (TF Hub / Model Garden names)."""
        names = {"input_word_ids": enc.ids, "input_mask": enc.attention_mask, "input_type_ids": enc.type_ids}
        return {name: tf.cast(t, tf.int32) for name, t in names.items()}


def _id_or(token_id: int | None, default: int) -> int:
    return default if token_id is None else token_id
