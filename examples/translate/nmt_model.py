"""The encoder-decoder Transformer of TensorFlow's tutorial "Neural machine translation with a Transformer and Keras".

https://www.tensorflow.org/text/tutorials/transformer: the same layers (a positional embedding, global
self-attention in the encoder, causal self-attention and cross-attention in the decoder, each followed by a
residual add and a LayerNormalization, a ReLU feed-forward block), the masked loss and accuracy and the
warm-up learning-rate schedule, here sized by the caller (the example trains a tiny one on 2 CPU cores).

Shapes: token ids are int64 `[batch, tokens]`, 0 (`[PAD]`) padding; the model maps `(pt_ids, en_ids)` to
logits float32 `[batch, en_tokens, target_vocab_size]`. Nothing here knows about text: the tokenizers feed it.
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf

keras = tf.keras


def positional_encoding(length: int, depth: int) -> tf.Tensor:
    """Sines then cosines of `position / 10000**(2i / depth)`: float32 `[length, depth]` (depth even)."""
    if depth % 2:
        raise ValueError(f"depth: the positional encoding takes an even depth (sines and cosines), got {depth}")
    half = depth // 2
    positions = np.arange(length)[:, np.newaxis]  # [length, 1]
    rates = 1 / (10000 ** (np.arange(half)[np.newaxis, :] / half))  # [1, depth / 2]
    angles = positions * rates
    return tf.constant(np.concatenate([np.sin(angles), np.cos(angles)], axis=-1), tf.float32)


class PositionalEmbedding(keras.layers.Layer):
    """Token embedding scaled by sqrt(d_model), plus the positional encoding; id 0 is masked downstream."""

    def __init__(self, vocab_size: int, d_model: int, max_length: int = 2048):
        super().__init__()
        self.d_model = d_model
        self.embedding = keras.layers.Embedding(vocab_size, d_model, mask_zero=True)
        self.pos_encoding = positional_encoding(max_length, d_model)

    def compute_mask(self, *args, **kwargs):
        return self.embedding.compute_mask(*args, **kwargs)

    def call(self, ids):
        length = tf.shape(ids)[1]
        x = self.embedding(ids) * tf.math.sqrt(tf.cast(self.d_model, tf.float32))
        return x + self.pos_encoding[tf.newaxis, :length, :]


class BaseAttention(keras.layers.Layer):
    """MultiHeadAttention, then a residual add and a LayerNormalization (the masks come with the inputs)."""

    def __init__(self, **attention_args):
        super().__init__()
        self.supports_masking = True  # Keras 3: pass the padding mask on to the next layer
        self.mha = keras.layers.MultiHeadAttention(**attention_args)
        self.layernorm = keras.layers.LayerNormalization()
        self.add = keras.layers.Add()


class CrossAttention(BaseAttention):
    """The decoder attends to the encoder's output (`context`); the scores are kept for attention plots."""

    def call(self, x, context, context_mask=None):
        attended, scores = self.mha(
            query=x, key=context, value=context, value_mask=context_mask, return_attention_scores=True
        )
        self.last_attn_scores = scores  # [batch, heads, target tokens, source tokens]
        return self.layernorm(self.add([x, attended]))


class GlobalSelfAttention(BaseAttention):
    """Every source token attends to every other."""

    def call(self, x):
        return self.layernorm(self.add([x, self.mha(query=x, value=x, key=x)]))


class CausalSelfAttention(BaseAttention):
    """Each target token attends to itself and the tokens before it only."""

    def call(self, x):
        return self.layernorm(self.add([x, self.mha(query=x, value=x, key=x, use_causal_mask=True)]))


class FeedForward(keras.layers.Layer):
    """Dense(dff, relu), Dense(d_model), dropout, then a residual add and a LayerNormalization."""

    def __init__(self, d_model: int, dff: int, dropout_rate: float = 0.1):
        super().__init__()
        self.supports_masking = True
        # The tutorial's keras.Sequential, unrolled: Keras 3's Sequential warns on masked inputs
        self.seq = [
            keras.layers.Dense(dff, activation="relu"),
            keras.layers.Dense(d_model),
            keras.layers.Dropout(dropout_rate),
        ]
        self.add = keras.layers.Add()
        self.layer_norm = keras.layers.LayerNormalization()

    def call(self, x):
        y = x
        for layer in self.seq:
            y = layer(y)
        return self.layer_norm(self.add([x, y]))


class EncoderLayer(keras.layers.Layer):
    def __init__(self, *, d_model: int, num_heads: int, dff: int, dropout_rate: float = 0.1):
        super().__init__()
        self.supports_masking = True
        self.self_attention = GlobalSelfAttention(num_heads=num_heads, key_dim=d_model, dropout=dropout_rate)
        self.ffn = FeedForward(d_model, dff, dropout_rate)

    def call(self, x):
        return self.ffn(self.self_attention(x))


class Encoder(keras.layers.Layer):
    """Source ids int64 `[batch, source tokens]` -> float32 `[batch, source tokens, d_model]`."""

    def __init__(self, *, num_layers: int, d_model: int, num_heads: int, dff: int, vocab_size: int, dropout_rate=0.1):
        super().__init__()
        self.pos_embedding = PositionalEmbedding(vocab_size=vocab_size, d_model=d_model)
        self.enc_layers = [
            EncoderLayer(d_model=d_model, num_heads=num_heads, dff=dff, dropout_rate=dropout_rate)
            for _ in range(num_layers)
        ]
        self.dropout = keras.layers.Dropout(dropout_rate)

    def call(self, ids):
        x = self.dropout(self.pos_embedding(ids))
        for layer in self.enc_layers:
            x = layer(x)
        return x


class DecoderLayer(keras.layers.Layer):
    def __init__(self, *, d_model: int, num_heads: int, dff: int, dropout_rate: float = 0.1):
        super().__init__()
        self.supports_masking = True
        self.causal_self_attention = CausalSelfAttention(num_heads=num_heads, key_dim=d_model, dropout=dropout_rate)
        self.cross_attention = CrossAttention(num_heads=num_heads, key_dim=d_model, dropout=dropout_rate)
        self.ffn = FeedForward(d_model, dff, dropout_rate)

    def call(self, x, context, context_mask=None):
        x = self.cross_attention(self.causal_self_attention(x), context, context_mask=context_mask)
        self.last_attn_scores = self.cross_attention.last_attn_scores
        return self.ffn(x)


class Decoder(keras.layers.Layer):
    """Target ids `[batch, target tokens]` and the encoder's output -> float32 `[batch, target tokens, d_model]`."""

    def __init__(self, *, num_layers: int, d_model: int, num_heads: int, dff: int, vocab_size: int, dropout_rate=0.1):
        super().__init__()
        self.pos_embedding = PositionalEmbedding(vocab_size=vocab_size, d_model=d_model)
        self.dropout = keras.layers.Dropout(dropout_rate)
        self.dec_layers = [
            DecoderLayer(d_model=d_model, num_heads=num_heads, dff=dff, dropout_rate=dropout_rate)
            for _ in range(num_layers)
        ]
        self.last_attn_scores = None

    def call(self, ids, context, context_mask=None):
        # Keras fills `context_mask` from the encoder output's padding mask. It is handed down explicitly
        # because Keras 3's MultiHeadAttention removes the mask from the tensors it attends to: the second
        # layer would otherwise attend to the source's padding.
        x = self.dropout(self.pos_embedding(ids))
        for layer in self.dec_layers:
            x = layer(x, context, context_mask=context_mask)
        self.last_attn_scores = self.dec_layers[-1].last_attn_scores
        return x


class Transformer(keras.Model):
    """`(source ids, target ids)` -> next-token logits float32 `[batch, target tokens, target_vocab_size]`.

    >>> model = Transformer(num_layers=1, d_model=8, num_heads=2, dff=16, input_vocab_size=20, target_vocab_size=30)
    >>> tuple(model((tf.constant([[2, 5, 3]]), tf.constant([[2, 7]]))).shape)
    (1, 2, 30)
    """

    def __init__(
        self,
        *,
        num_layers: int,
        d_model: int,
        num_heads: int,
        dff: int,
        input_vocab_size: int,
        target_vocab_size: int,
        dropout_rate: float = 0.1,
    ):
        super().__init__()
        sizes = dict(num_layers=num_layers, d_model=d_model, num_heads=num_heads, dff=dff, dropout_rate=dropout_rate)
        self.encoder = Encoder(vocab_size=input_vocab_size, **sizes)
        self.decoder = Decoder(vocab_size=target_vocab_size, **sizes)
        self.final_layer = keras.layers.Dense(target_vocab_size)

    def call(self, inputs):
        source, target = inputs
        logits = self.final_layer(self.decoder(target, self.encoder(source)))
        try:
            del logits._keras_mask  # the loss masks padding itself; Keras must not scale it a second time
        except AttributeError:
            pass
        return logits


class WarmupSchedule(keras.optimizers.schedules.LearningRateSchedule):
    """The tutorial's `CustomSchedule`: d_model**-0.5 * min(step**-0.5, step * warmup_steps**-1.5)."""

    def __init__(self, d_model: int, warmup_steps: int = 4000):
        super().__init__()
        self.d_model = float(d_model)
        self.warmup_steps = warmup_steps

    def __call__(self, step):
        step = tf.cast(step, tf.float32) + 1.0  # Keras 3 counts from 0; the formula from 1
        return tf.math.rsqrt(self.d_model) * tf.minimum(tf.math.rsqrt(step), step * self.warmup_steps**-1.5)

    def get_config(self) -> dict:
        return {"d_model": self.d_model, "warmup_steps": self.warmup_steps}


def masked_loss(label, pred):
    """Mean sparse cross-entropy over the non-padding labels (label 0 is `[PAD]`)."""
    mask = tf.cast(label != 0, tf.float32)
    loss = keras.losses.sparse_categorical_crossentropy(label, pred, from_logits=True) * mask
    return tf.reduce_sum(loss) / tf.reduce_sum(mask)


def masked_accuracy(label, pred):
    """The share of non-padding labels that the argmax of `pred` gets right."""
    label = tf.cast(label, tf.int64)
    mask = label != 0
    match = (tf.argmax(pred, axis=-1) == label) & mask
    return tf.reduce_sum(tf.cast(match, tf.float32)) / tf.reduce_sum(tf.cast(mask, tf.float32))
