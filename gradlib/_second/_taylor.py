"""The forward Laplacian: value, Jacobian and Laplacian (or Hessian diagonal) carried through each Dense layer.

For ``z = h W + b`` and ``a = s(z)`` (elementwise), with ``J = dh/dx`` ``(B, k, d)`` and ``L`` the Laplacian of
each unit of ``h`` ``(B, k)`` (or ``D``, its Hessian diagonal ``(B, k, d)``)::

    Jz = J W            Lz = L W                Dz = D W
    Ja = s'(z) Jz       La = s'(z) Lz + s''(z) sum_d Jz^2      Da = s'(z) Dz + s''(z) Jz^2

which is the collapsed second-order Taylor recurrence: one pass, no tape, no pfor. Only a Keras Sequential
of Dense layers with an activation in ``RULES`` qualifies (``dense_layers`` says which layer does not), each
proved to compute what Keras' own class does (``gradlib._callable._state.computes_as``: a subclass overriding ``call``
computes something else, and its Laplacian was that of its bare layers); the engine also checks the rules' ``y``
against the model's own call. Any other model goes to a tape method, so this rule set can only be incomplete,
never wrong.

>>> import numpy as np
>>> kernels = [(np.array([[2.0]]), np.array([0.0]), "tanh")]
>>> y, jac, lap = forward_laplacian(kernels, tf.constant([[0.5]], tf.float64), "laplacian")
>>> bool(abs(float(lap[0, 0]) + 8 * np.tanh(1.0) * (1 - np.tanh(1.0) ** 2)) < 1e-12)
True
"""

from __future__ import annotations

from typing import Any, Callable

import tensorflow as tf

from .._callable._state import computes_as
from ._tanh_adjoint import tanh_layer

__all__ = ["FACTORED", "PIECEWISE_LINEAR", "RULES", "activation_name", "dense_layers", "forward_jet",
           "forward_laplacian", "plain_dtypes"]


def _tanh(z):
    t = tf.tanh(z)
    d1 = 1 - t * t
    return t, d1, -2 * t * d1


def _sigmoid(z):
    s = tf.sigmoid(z)
    d1 = s * (1 - s)
    return s, d1, d1 * (1 - 2 * s)


def _softplus(z):
    s = tf.sigmoid(z)
    return tf.nn.softplus(z), s, s * (1 - s)


def _silu(z):
    s = tf.sigmoid(z)
    return z * s, s + z * s * (1 - s), s * (1 - s) * (2 + z * (1 - 2 * s))


def _exponential(z):
    e = tf.exp(z)
    return e, e, e


def _elu(z):
    e = tf.exp(tf.minimum(z, 0))
    positive = z > 0
    # TensorFlow's EluGrad gradient takes its x < 0 branch only: elu''(0) is 0 on the tape, not e^0 = 1
    second = tf.where(z < 0, e, tf.zeros_like(z))
    return tf.where(positive, z, e - 1), tf.where(positive, tf.ones_like(z), e), second


def _relu(z):
    positive = tf.cast(z > 0, z.dtype)
    return tf.nn.relu(z), positive, tf.zeros_like(z)


def _linear(z):
    return z, tf.ones_like(z), tf.zeros_like(z)


#: activation name (as Keras serializes it) -> ``z -> (s(z), s'(z), s''(z))``
RULES: dict[str, Callable] = {"linear": _linear, "tanh": _tanh, "sigmoid": _sigmoid, "softplus": _softplus,
                              "silu": _silu, "swish": _silu, "exponential": _exponential, "elu": _elu, "relu": _relu}
#: activations whose second derivative is 0 wherever it exists (TensorFlow's gradients give exactly 0)
PIECEWISE_LINEAR = ("relu", "relu6", "leaky_relu", "hard_tanh", "hard_shrink", "soft_shrink", "hard_sigmoid",
                    "sparse_sigmoid", "linear")


def activation_name(function: Any) -> str | None:
    """Keras' name of ``function`` if it is Keras' own activation of that name (``"tanh"``), else ``None``.

    Read by identity, not by ``keras.activations.serialize``: that names any function by its ``__name__`` (a
    user's own ``def relu(z)`` is ``'relu'`` too) and raises ``OSError`` on a lambda whose source it cannot read.
    """
    import keras

    name = getattr(function, "__name__", None)
    if not isinstance(name, str):
        return None
    try:
        return name if keras.activations.get(name) is function else None
    except (ValueError, TypeError):   # not the name of any Keras activation
        return None


def dense_layers(model: Any) -> tuple[list[tuple[Any, Any, str]], str]:
    """``(kernels, why_not)``: a Keras Sequential of plain Dense layers as ``[(kernel, bias, activation)]``, or
    ``([], the reason)`` (the first layer the rules do not cover)."""
    import keras

    if not computes_as(model, keras.Sequential):
        return [], ("fn is not a Keras Sequential model" if not isinstance(model, keras.Sequential) else
                    f"fn is a {type(model).__name__}, a Sequential whose class defines methods of its own (its call "
                    "may compute something other than its layers)")
    kernels = []
    for layer in model.layers:
        if not computes_as(layer, keras.layers.Dense):
            return [], (f"layer {layer.name!r} is a {type(layer).__name__}, not a Dense layer"
                        + (" (its class defines methods of its own)" if isinstance(layer, keras.layers.Dense) else ""))
        name = activation_name(layer.activation)
        if name is None:   # a user's own `def tanh(z)` is not Keras' tanh: its rule gave a wrong Laplacian
            return [], f"layer {layer.name!r} has an activation function of its own, which has no forward rule"
        if name not in RULES:
            return [], f"layer {layer.name!r} has the activation {name!r}, which has no forward rule"
        if getattr(layer, "lora_enabled", False) or getattr(layer, "quantization_mode", None):
            return [], f"layer {layer.name!r} is LoRA-enabled or quantized"
        kernels.append((layer.kernel, layer.bias, name))
    if not kernels:
        return [], "the model has no layers"
    return kernels, ""


def forward_laplacian(kernels: list[tuple[Any, Any, str]], x: tf.Tensor, kind: str):
    """``(y, jacobian, value)``: value is the Laplacian ``(B, out)`` or the Hessian diagonal ``(B, out, d)``.

    The Jacobian is carried as ``(B, d, units)`` so that each layer's ``J W`` is one plain matrix product of
    ``(B * d, units)`` by the kernel (no transposes); it is turned to ``(B, out, d)`` once, at the end.
    """
    dtype = kernels[0][0].dtype if hasattr(kernels[0][0], "dtype") else x.dtype
    h = tf.cast(x, dtype)
    jac = second = None      # None: J is the identity, the second-order term is 0 (h is x itself)
    for kernel, bias, activation in kernels:
        w = tf.cast(tf.convert_to_tensor(kernel), dtype)
        z = tf.matmul(h, w) + (tf.cast(tf.convert_to_tensor(bias), dtype) if bias is not None else 0)
        h, d1, d2 = RULES[activation](z)
        if jac is None:      # the first layer: Jz is the kernel itself, the same for every sample
            squares = tf.square(w)
            second = d2 * tf.reduce_sum(squares, axis=0) if kind == "laplacian" else d2[:, None, :] * squares[None]
            jac = d1[:, None, :] * w[None]
            continue
        jz = _times(jac, w)
        if kind == "laplacian":
            second = d1 * tf.matmul(second, w) + d2 * tf.reduce_sum(tf.square(jz), axis=1)
        else:
            second = d1[:, None, :] * _times(second, w) + d2[:, None, :] * tf.square(jz)
        jac = d1[:, None, :] * jz
    jac = tf.transpose(jac, (0, 2, 1))
    second = second if kind == "laplacian" else tf.transpose(second, (0, 2, 1))
    return tf.cast(h, x.dtype), tf.cast(jac, x.dtype), tf.cast(second, x.dtype)


def _times(carried: tf.Tensor, w: tf.Tensor) -> tf.Tensor:
    """``(B, d, k) @ (k, m)`` as one matrix product of ``(B * d, k)`` by ``(k, m)``."""
    shape = tf.shape(carried)
    product = tf.matmul(tf.reshape(carried, (-1, shape[2])), w)
    return tf.reshape(product, (shape[0], shape[1], int(w.shape[1])))


def plain_dtypes(kernels: list[tuple[Any, Any, str]], layers: list[Any]) -> bool:
    """Whether every layer computes in its kernels' dtype (no mixed precision: a ``mixed_float16`` Dense rounds each
    product to float16, which rules run in the kernels' float32 would not), all in one dtype."""
    dtypes = {getattr(layer, "compute_dtype", None) for layer in layers}
    dtypes |= {tf.as_dtype(k.dtype).name for k, _, _ in kernels}
    return len(dtypes) == 1


def _tanh_factored(z):
    t = tf.tanh(z)
    return t, 1 - t * t, -2 * t


def _sigmoid_factored(z):
    s = tf.sigmoid(z)
    return s, s * (1 - s), 1 - 2 * s


def _softplus_factored(z):
    s = tf.sigmoid(z)
    return tf.nn.softplus(z), s, 1 - s


#: activation name -> ``z -> (s(z), s'(z), r(z))`` with ``s'' = s' r`` everywhere: the jet's second derivative is
#: then ``s' (Dz + r Jz_i Jz_j)``, one product fewer per layer than ``s' Dz + s'' Jz_i Jz_j`` (the other
#: activations of ``RULES`` take that general form)
FACTORED: dict[str, Callable] = {"tanh": _tanh_factored, "sigmoid": _sigmoid_factored,
                                 "softplus": _softplus_factored}


def forward_jet(kernels: list[tuple[Any, Any, str]], x: tf.Tensor, firsts: tuple[int, ...],
                pairs: tuple[tuple[int, int], ...]) -> tuple[tf.Tensor, dict, dict]:
    """``(y, {j: dy/dx_j}, {(i, j): d2y/dx_i dx_j})``, each ``(B, out)``, along the asked coordinates only.

    The second-order Taylor recurrence of ``forward_laplacian`` with one carried term per asked direction and
    pair: for ``z = h W + b`` and ``a = s(z)``, ``Jz_j = J_j W``, ``Ja_j = s'(z) Jz_j``, ``Dz_ij = D_ij W`` and
    ``Da_ij = s'(z) Dz_ij + s''(z) Jz_i Jz_j`` (``u_xt`` without the rest of the Hessian). Plain TensorFlow ops on
    the kernels, so an outer tape that watches them differentiates the result with respect to the weights.

    >>> import numpy as np
    >>> kernels = [(np.array([[2.0], [1.0]]), np.array([0.0]), "tanh")]
    >>> y, first, second = forward_jet(kernels, tf.constant([[0.5, 0.0]], tf.float64), (1,), ((0, 1),))
    >>> bool(abs(float(second[0, 1][0, 0]) + 4 * np.tanh(1.0) * (1 - np.tanh(1.0) ** 2)) < 1e-12)
    True
    """
    dtype = kernels[0][0].dtype if hasattr(kernels[0][0], "dtype") else x.dtype
    h, jac, second = tf.cast(x, dtype), None, None      # None: J is the identity, D is 0 (h is x itself)
    for (kernel, bias, activation), (along, keep) in zip(kernels, _carried(kernels, firsts, pairs)):
        w = tf.cast(tf.convert_to_tensor(kernel), dtype)
        z = tf.matmul(h, w) + (tf.cast(tf.convert_to_tensor(bias), dtype) if bias is not None else 0)
        if jac is None:   # the first layer: Jz_j is row j of the kernel (one vector for all points), Dz is 0
            jz = {j: w[j] for j in along}
            dz = {pair: None for pair in pairs}
        else:
            jz = {j: tf.matmul(jac[j], w) for j in along}
            dz = {pair: tf.matmul(second[pair], w) for pair in pairs}
        h, jac, second = _activate(activation, z, jz, dz, keep)
    cast = (lambda t: tf.cast(t, x.dtype))
    return h, {j: cast(jac[j]) for j in firsts}, {pair: cast(second[pair]) for pair in pairs}


def _carried(kernels: list, firsts: tuple[int, ...], pairs: tuple[tuple[int, int], ...]) -> list[tuple[list, tuple]]:
    """Per layer, ``(along, keep)``: the coordinates whose ``Jz`` it takes and those whose ``Ja`` it passes on.
    The last layer passes on the asked first derivatives only; a layer before passes on what the next one takes:
    its own ``keep``, and the pairs' coordinates where its activation has a second derivative."""
    in_pairs = {j for pair in pairs for j in pair}
    keep, layers = tuple(sorted(set(firsts))), []
    for _, _, activation in reversed(kernels):
        along = sorted(set(keep) | (in_pairs if activation != "linear" else set()))
        layers.append((along, keep))
        keep = tuple(along)
    return layers[::-1]


def _activate(activation: str, z: tf.Tensor, jz: dict, dz: dict, keep: tuple[int, ...]
              ) -> tuple[tf.Tensor, dict, dict]:
    """One activation's value, first and second derivatives from its input's (``None``: a Dz of 0); the first
    derivatives along ``keep`` at least."""
    if activation == "linear":   # s' = 1, s'' = 0: the products carry through as they are
        return (z, {j: v + tf.zeros_like(z) if v.shape.rank == 1 else v for j, v in jz.items()},
                {pair: tf.zeros_like(z) if v is None else v for pair, v in dz.items()})
    if activation == "tanh":   # its weight-gradient pass written out: the same numbers in fewer ops
        return tanh_layer(z, jz, dz, keep)
    if activation in FACTORED:
        h, d1, r = FACTORED[activation](z)
        second = {(i, j): d1 * _plus(r * (jz[i] * jz[j]), v) for (i, j), v in dz.items()}
    else:
        h, d1, d2 = RULES[activation](z)
        second = {(i, j): _plus(d2 * (jz[i] * jz[j]), None if v is None else d1 * v) for (i, j), v in dz.items()}
    return h, {j: d1 * v for j, v in jz.items()}, second


def _plus(a: tf.Tensor, b: tf.Tensor | None) -> tf.Tensor:
    return a if b is None else a + b
