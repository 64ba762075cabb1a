"""Per-layer rules for per-example gradients: each example's gradient norm without materializing the gradient.

For a layer ``z = a @ W + b`` the gradient of example ``i``'s loss with respect to ``W`` is ``a_i^T g_i``, where
``a_i`` is the layer's input for that example and ``g_i = dL_i/dz_i`` (the gradient at the pre-activation output,
which one ordinary backward pass of the summed loss gives for every example at once). Its squared norm needs
neither the outer product nor a per-example backward pass ("ghost norms", as in TensorFlow Privacy's fast
gradient clipping):

- one step (``a_i`` a vector): ``||a_i||^2 ||g_i||^2``;
- a sequence (``a_i`` is ``T x k``, the layer applied at every step): ``<a_i a_i^T, g_i g_i^T>``, the sum over
  all pairs of steps ``(a_t . a_s)(g_t . g_s)``. The per-step shortcut ``sum_t ||a_t||^2 ||g_t||^2`` drops the
  cross terms and is wrong. When ``k * o`` is smaller than ``T * (k + o)`` the outer product is cheaper, and
  is used instead;
- a bias is a weight on a constant input of 1: one more column of ones in ``a``.

One row per layer type: Dense (any rank), Embedding (the gradient rows of repeated tokens add up), Conv1D and
Conv2D (a convolution is a Dense layer over image patches) and the normalization layers, whose scale and
offset have small per-example gradients that are simply computed. Layers not in the table (and layers whose
configuration a row does not cover) are left to the caller's per-example loop.

>>> import keras
>>> rule_for(keras.layers.Dense(3)).name, rule_for(keras.layers.GRU(3))
('dense', None)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import keras
import tensorflow as tf

from .._callable._state import computes_as

__all__ = ["Capture", "LAYER_RULES", "LayerRule", "accepts", "rule_for", "sequence_norm_sq"]


@dataclass(frozen=True)
class LayerRule:
    """How one layer type is run, and how its per-example gradients and their norms follow from ``(a, g)``.

    ``forward(layer, x, training)`` returns ``(y, a, z)``: the layer's output, what the rule keeps from the
    forward pass, and the tensor ``z`` whose gradient ``g`` the rule needs. ``norm_sq(layer, a, g)`` is each
    example's squared gradient norm over ``variables(layer)``, shape ``(B,)``; ``gradients(layer, a, g)`` the
    per-example gradients, one ``(B, *var.shape)`` tensor per variable; ``floats(layer, a)`` how many floats
    ``norm_sq`` allocates at most, to check against the limits before anything runs.
    """

    name: str
    applies: Callable[[Any], bool]
    variables: Callable[[Any], list]
    forward: Callable[[Any, tf.Tensor, Any], tuple[tf.Tensor, tf.Tensor, tf.Tensor]]
    norm_sq: Callable[[Any, tf.Tensor, tf.Tensor], tf.Tensor]
    gradients: Callable[[Any, tf.Tensor, tf.Tensor], list[tf.Tensor]]
    floats: Callable[[Any, tf.Tensor], int]


@dataclass(frozen=True, eq=False)
class Capture:
    """One call of a layer that a rule ran: what its norm and gradients need after the backward pass."""

    layer: Any
    rule: LayerRule
    a: tf.Tensor
    z: tf.Tensor


def rule_for(layer: Any) -> LayerRule | None:
    """The rule for ``layer``, or ``None`` when it must take the per-example loop."""
    if not _plain_float(layer):
        return None
    return next((rule for rule in LAYER_RULES if rule.applies(layer)), None)


def _plain_float(layer: Any) -> bool:
    """Float32/64 computed in the variables' own dtype, not quantized, no LoRA: the layer's call is the textbook one."""
    return (isinstance(layer, keras.layers.Layer) and getattr(layer, "quantization_mode", None) is None
            and not getattr(layer, "lora_enabled", False) and layer.compute_dtype == layer.variable_dtype
            and layer.compute_dtype in ("float32", "float64"))


def _own_call(layer: Any, cls: type) -> bool:
    """``layer`` is a ``cls`` that computes what ``cls`` does (``gradlib._callable._state.computes_as``: a subclass may
    compute something else in its ``call``, ``__call__`` or ``build``: the rule runs none of them, so one that
    doubled its input was blamed as batch mixing)."""
    return computes_as(layer, cls)


def _float_input(layer: Any, x: tf.Tensor) -> tf.Tensor:
    """The input in the layer's compute dtype: Keras' ``__call__`` casts a floating-point input to it, and an
    integer one meets the float kernel in ``ops.matmul``, which promotes it to the same dtype (a Dense layer on
    integer features: ``tf.matmul`` refused int32 against float32, and the model Keras runs was refused)."""
    return tf.cast(x, layer.compute_dtype) if x.dtype != layer.compute_dtype else x


def _activate(layer: Any, z: tf.Tensor) -> tf.Tensor:
    return z if layer.activation is None else layer.activation(z)


# ---------------------------------------------------------------- the algebra shared by Dense and convolutions


def sequence_norm_sq(a: tf.Tensor, g: tf.Tensor) -> tf.Tensor:
    """``||a_i^T g_i||_F^2`` per example, for ``a`` of shape ``(B, T, k)`` and ``g`` of shape ``(B, T, o)``.

    >>> a = tf.constant([[[1.0], [1.0]]]); g = tf.constant([[[1.0], [-1.0]]])
    >>> float(sequence_norm_sq(a, g)[0])   # the steps cancel: a^T g = 0 (the per-step shortcut says 2)
    0.0
    """
    steps, k, o = a.shape[1], a.shape[2], g.shape[2]
    if steps == 1:
        return tf.reduce_sum(tf.square(a), axis=[1, 2]) * tf.reduce_sum(tf.square(g), axis=[1, 2])
    if steps is not None and steps * (k + o) < k * o:   # T x T products: all pairs of steps
        return tf.reduce_sum(tf.matmul(a, a, transpose_b=True) * tf.matmul(g, g, transpose_b=True), axis=[1, 2])
    return tf.reduce_sum(tf.square(tf.matmul(a, g, transpose_a=True)), axis=[1, 2])


def _sequence_floats(batch: int, steps: int, k: int, o: int) -> int:
    if steps == 1:
        return batch * (k + o)
    return batch * (2 * steps * steps if steps * (k + o) < k * o else k * o)


def _with_ones(a: tf.Tensor, bias: bool) -> tf.Tensor:
    """``a`` with a column of ones when there is a bias (a bias is the weight of a constant input of 1)."""
    return tf.concat([a, tf.ones_like(a[..., :1])], axis=-1) if bias else a


def _steps(t: tf.Tensor) -> tf.Tensor:
    """``(B, ..., k)`` as ``(B, T, k)``: every position between the batch and the last axis is a step."""
    return tf.reshape(t, [tf.shape(t)[0], math.prod(t.shape[1:-1]), t.shape[-1]])


def _outer_gradients(a: tf.Tensor, g: tf.Tensor, kernel_shape: tuple[int, ...], bias: bool) -> list[tf.Tensor]:
    """Per-example ``a_i^T g_i`` (the kernel, reshaped) and ``sum_t g_t`` (the bias), for ``(B, T, .)`` a and g."""
    kernel = tf.reshape(tf.matmul(a, g, transpose_a=True), (-1,) + tuple(kernel_shape))
    return [kernel, tf.reduce_sum(g, axis=1)] if bias else [kernel]


# ---------------------------------------------------------------- Dense


def _dense_forward(layer, x, training):
    a = _float_input(layer, x)
    z = tf.matmul(a, layer.kernel) if a.shape.rank == 2 else tf.tensordot(a, layer.kernel, axes=1)
    if layer.bias is not None:
        z = z + layer.bias
    return _activate(layer, z), a, z


def _dense_norm_sq(layer, a, g):
    if a.shape.rank == 2:   # one step: ||a_i||^2 (plus the bias's 1) times ||g_i||^2, without a copy of [a, 1]
        a_sq = tf.reduce_sum(tf.square(a), axis=1)
        return (a_sq + 1 if layer.bias is not None else a_sq) * tf.reduce_sum(tf.square(g), axis=1)
    return sequence_norm_sq(_with_ones(_steps(a), layer.bias is not None), _steps(g))


def _dense_gradients(layer, a, g):
    return _outer_gradients(_steps(a), _steps(g), tuple(layer.kernel.shape), layer.bias is not None)


def _dense_floats(layer, a):
    return _sequence_floats(1, math.prod(a.shape[1:-1]), a.shape[-1] + 1, layer.units)


# ---------------------------------------------------------------- Embedding


def _embedding_forward(layer, x, training):
    ids = tf.cast(x, "int32") if x.dtype not in (tf.int32, tf.int64) else x
    ids = tf.where(ids < 0, ids + layer.input_dim, ids)   # Keras' take: -1 is the last row, as in NumPy
    z = tf.gather(layer.embeddings, ids)
    return z, ids, z


def _embedding_rows(layer, ids, g):
    """Each example's gradient rows: ``(row key, summed g)`` with key ``example * vocabulary + token``."""
    batch, vocabulary = tf.shape(g)[0], layer.input_dim
    flat_ids = tf.reshape(tf.cast(ids, tf.int64), [batch, -1])
    keys = tf.reshape(flat_ids + tf.cast(tf.range(batch), tf.int64)[:, None] * vocabulary, [-1])
    return keys, tf.reshape(g, [-1, g.shape[-1]])


def _embedding_norm_sq(layer, ids, g):
    keys, rows = _embedding_rows(layer, ids, g)
    unique, index = tf.unique(keys)   # a token used twice by one example: its two gradient rows add up
    summed = tf.math.unsorted_segment_sum(rows, index, tf.shape(unique)[0])
    owner = tf.cast(unique // layer.input_dim, tf.int32)
    return tf.math.unsorted_segment_sum(tf.reduce_sum(tf.square(summed), axis=1), owner, tf.shape(g)[0])


def _embedding_gradients(layer, ids, g):
    keys, rows = _embedding_rows(layer, ids, g)
    batch = tf.shape(g)[0]
    dense = tf.math.unsorted_segment_sum(rows, keys, tf.cast(batch, tf.int64) * layer.input_dim)
    return [tf.reshape(dense, [batch, layer.input_dim, layer.output_dim])]


def _embedding_floats(layer, ids):
    return 2 * math.prod(ids.shape[1:]) * layer.output_dim


# ---------------------------------------------------------------- Conv1D and Conv2D: Dense over image patches


def _conv_applies(layer) -> bool:
    own = _own_call(layer, keras.layers.Conv2D) or _own_call(layer, keras.layers.Conv1D)
    return own and layer.data_format == "channels_last" and layer.groups == 1 and layer.padding in ("valid", "same")


def _conv_forward(layer, x, training):
    a = _float_input(layer, x)
    z = layer.convolution_op(a, layer.kernel)
    if layer.use_bias:
        z = z + layer.bias
    return _activate(layer, z), a, z


def _spatial(layer, x, g):
    """``x`` and ``g`` with two spatial axes (a Conv1D's sequence as an image of height 1), kernel size and rates."""
    if layer.rank == 1:
        return x[:, None], g[:, None], (1,) + layer.kernel_size, (1,) + layer.strides, (1,) + layer.dilation_rate
    return x, g, layer.kernel_size, layer.strides, layer.dilation_rate


def _patches(layer, x, g):
    """The input patches each output position sees, ``(B, positions, kernel elements)`` in the kernel's order."""
    x, _, size, stride, rate = _spatial(layer, x, g)
    patches = tf.image.extract_patches(x, sizes=(1, *size, 1), strides=(1, *stride, 1), rates=(1, *rate, 1),
                                       padding=layer.padding.upper())
    return _steps(patches)


def _offset_blocks(layer, x, g):
    """A stride-1 convolution's per-example kernel gradient, one ``(B, C_in, C_out)`` block per kernel offset.

    Each block is ``a^T g`` with ``a`` the input shifted by that offset: no patches are built (extracting
    them measured several times slower than the shifted slices on a 28 x 28 input).
    """
    x, g, size, _, rate = _spatial(layer, x, g)
    if layer.padding == "same":   # TensorFlow's SAME: the odd pixel of padding goes after
        reach = [(s - 1) * r for s, r in zip(size, rate)]
        x = tf.pad(x, [[0, 0]] + [[t // 2, t - t // 2] for t in reach] + [[0, 0]])
    height, width, flat_g = g.shape[1], g.shape[2], _steps(g)
    return [tf.matmul(_steps(x[:, i * rate[0]:i * rate[0] + height, j * rate[1]:j * rate[1] + width]), flat_g,
                      transpose_a=True) for i in range(size[0]) for j in range(size[1])]


def _unit_strides(layer) -> bool:
    return all(s == 1 for s in layer.strides)


def _conv_norm_sq(layer, x, g):
    if not _unit_strides(layer):
        return sequence_norm_sq(_with_ones(_patches(layer, x, g), layer.use_bias), _steps(g))
    terms = [tf.reduce_sum(tf.square(block), axis=[1, 2]) for block in _offset_blocks(layer, x, g)]
    if layer.use_bias:
        terms.append(tf.reduce_sum(tf.square(tf.reduce_sum(_steps(g), axis=1)), axis=1))
    return tf.add_n(terms)


def _conv_gradients(layer, x, g):
    if not _unit_strides(layer):
        return _outer_gradients(_patches(layer, x, g), _steps(g), tuple(layer.kernel.shape), layer.use_bias)
    kernel = tf.reshape(tf.stack(_offset_blocks(layer, x, g), axis=1), (-1,) + tuple(layer.kernel.shape))
    return [kernel, tf.reduce_sum(_steps(g), axis=1)] if layer.use_bias else [kernel]


def _conv_floats(layer, x):
    positions = math.prod(layer.compute_output_shape((1,) + tuple(x.shape[1:]))[1:-1])
    k = math.prod(layer.kernel.shape[:-1])
    if _unit_strides(layer):
        return k * layer.filters + positions * x.shape[-1]
    return positions * k + _sequence_floats(1, positions, k + 1, layer.filters)


# ---------------------------------------------------------------- normalization: y = x_hat * gamma + beta


def _norm_applies(layer) -> bool:
    if _own_call(layer, keras.layers.LayerNormalization):
        return not layer.rms_scaling and (layer.scale or layer.center)
    return _own_call(layer, keras.layers.BatchNormalization) and (layer.scale or layer.center)


def _last_axis_only(layer, x) -> bool:
    axes = layer.axis if isinstance(layer.axis, (list, tuple)) else [layer.axis]
    return sorted(a % x.shape.rank for a in axes) == [x.shape.rank - 1]


def _norm_forward(layer, x, training):
    x = _float_input(layer, x)
    if isinstance(layer, keras.layers.LayerNormalization):
        x_hat = keras.ops.layer_normalization(x, None, None, axis=-1, epsilon=layer.epsilon)
    else:   # inference: the moving statistics (training mode mixes the batch and is refused before this)
        x_hat = keras.ops.batch_normalization(x, tf.cast(layer.moving_mean, x.dtype),
                                              tf.cast(layer.moving_variance, x.dtype), axis=-1,
                                              epsilon=layer.epsilon)
    y = x_hat * layer.gamma if layer.scale else x_hat
    if layer.center:
        y = y + layer.beta
    return y, x_hat, y


def _norm_gradients(layer, x_hat, g):
    middle = list(range(1, g.shape.rank - 1))
    grads = [tf.reduce_sum(g * x_hat, axis=middle)] if layer.scale else []
    return grads + ([tf.reduce_sum(g, axis=middle)] if layer.center else [])


def _norm_norm_sq(layer, x_hat, g):
    return tf.add_n([tf.reduce_sum(tf.square(t), axis=1) for t in _norm_gradients(layer, x_hat, g)])


def _norm_variables(layer):
    return ([layer.gamma] if layer.scale else []) + ([layer.beta] if layer.center else [])


LAYER_RULES: tuple[LayerRule, ...] = (
    LayerRule("dense", lambda l: _own_call(l, keras.layers.Dense), lambda l: [l.kernel] + ([l.bias] if l.bias is not None else []),
         _dense_forward, _dense_norm_sq, _dense_gradients, _dense_floats),
    LayerRule("embedding", lambda l: _own_call(l, keras.layers.Embedding) and not l.mask_zero, lambda l: [l.embeddings],
         _embedding_forward, _embedding_norm_sq, _embedding_gradients, _embedding_floats),
    LayerRule("conv", _conv_applies, lambda l: [l.kernel] + ([l.bias] if l.use_bias else []),
         _conv_forward, _conv_norm_sq, _conv_gradients, _conv_floats),
    LayerRule("normalization", _norm_applies, _norm_variables, _norm_forward, _norm_norm_sq, _norm_gradients,
         lambda l, x_hat: 2 * l.gamma.shape[0] if l.scale else 2 * l.beta.shape[0]),
)


def accepts(rule: LayerRule, layer: Any, x: Any) -> bool:
    """Whether ``rule`` can run this call of ``layer`` on ``x`` (a tensor without a Keras mask, the right rank)."""
    if not tf.is_tensor(x) or getattr(x, "_keras_mask", None) is not None or x.shape.rank is None \
            or not x.shape[1:].is_fully_defined():
        return False
    if rule.name == "normalization":
        return x.shape.rank >= 2 and _last_axis_only(layer, x)
    if rule.name == "conv":
        return x.shape.rank == layer.rank + 2
    return x.shape.rank >= 2 or rule.name == "embedding"
