"""What a second-order result says about itself: the diagnoses that go into ``.warnings``.

- A piecewise-linear network (ReLU and friends) has a second derivative of exactly 0 wherever it exists, so
  a Laplacian, a Hessian or a PDE residual's ``u_xx`` is silently 0: named, with the layers responsible.
- ``pfor`` could not vectorize the nested Jacobian (``tf.cond`` inside ``tf.function``, tensorflow#108936):
  the method fell back to a ``while_loop``, slower but right.
- Inputs or outputs that are not finite.

>>> piecewise_warning(np.zeros((2, 1)), [("dense", "relu"), ("dense_1", "linear")], "the Laplacian")[:60]
'the Laplacian is exactly 0 everywhere here: the model is pie'
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._foundations._errors import error_gist
from .._callable._state import plain_model
from ._taylor import PIECEWISE_LINEAR, activation_name

__all__ = ["activations", "nonfinite_warnings", "pfor_fallback", "piecewise_warning"]

#: Keras' layer kinds that are piecewise linear on their own (activations of a layer are read from ``activation``;
#: a class of one's own of the same name is not Keras' one)
_PIECEWISE_LAYERS = {"ReLU": "relu", "LeakyReLU": "leaky_relu", "PReLU": "prelu", "MaxPooling1D": "max",
                     "MaxPooling2D": "max", "GlobalMaxPooling1D": "max", "GlobalMaxPooling2D": "max"}


def activations(model: Any) -> list[tuple[str, str]]:
    """``[(layer name, activation)]`` of a Keras model's layers (nested models included); ``[]`` for a callable."""
    layers = getattr(model, "layers", None)
    if layers is None or not hasattr(model, "trainable_variables") or not plain_model(model):
        return []   # a class of one's own: its call need not be its layers, so they say nothing of its curvature
    import keras

    found = []
    for layer in layers:
        if not type(layer).__module__.startswith("keras.") or "call" in vars(layer):
            found.append((layer.name, "its own call"))   # a layer class of one's own computes what it likes
        elif hasattr(layer, "layers"):
            found += activations(layer)
        elif type(layer).__name__ in _PIECEWISE_LAYERS and type(layer) is getattr(keras.layers, type(layer).__name__):
            found.append((layer.name, _PIECEWISE_LAYERS[type(layer).__name__]))
        elif getattr(layer, "activation", None) is not None:
            name = activation_name(layer.activation)   # a function of one's own named 'relu' is not Keras' relu
            found.append((layer.name, name or f"its own {getattr(layer.activation, '__name__', '?')!r}"))
    return found


def piecewise_warning(value: np.ndarray, acts: list[tuple[str, str]], what: str) -> str:
    """The warning for a result of exactly 0 (or a model with piecewise-linear layers); '' when there is none."""
    flat = [(name, act) for name, act in acts if act in PIECEWISE_LINEAR or act in ("prelu", "max")]
    nonlinear = [name for name, act in flat if act != "linear"]
    zero = value.size > 0 and np.isfinite(value).all() and not np.any(value)
    if zero and acts and len(flat) == len(acts) and nonlinear:
        return (f"{what} is exactly 0 everywhere here: the model is piecewise linear (layers "
                f"{', '.join(f'{n!r} ({a})' for n, a in flat if a != 'linear')}), so its second derivative is 0 "
                "wherever it exists, and a PDE residual built on it silently loses its second-order terms (u_xx). "
                "Use a smooth activation (tanh, softplus, silu) for second derivatives")
    if zero and (not acts or len(flat) < len(acts)):   # a callable, or layers whose activation gradlib cannot name
        return (f"{what} is exactly 0 everywhere here: either fn is linear or piecewise linear (ReLU, abs, max, "
                "...), whose second derivative is 0 wherever it exists, so a PDE residual built on it loses its "
                "second-order terms (u_xx); or these points are special: where fn's curvature vanishes (tanh at 0), "
                "or on a kink (abs(x0) * x1 at x0 = 0: TensorFlow takes abs's slope there as 0, and the second "
                "derivative does not exist). Other points tell which")
    if nonlinear:
        return (f"layers {', '.join(map(repr, nonlinear))} are piecewise linear: their second derivative is 0 "
                f"wherever it exists, so they add nothing to {what}")
    return ""


def pfor_fallback(exc: BaseException) -> str:
    return ("pfor could not vectorize the nested Jacobian (" + error_gist(exc) + "); computed with a while_loop "
            "instead, slower but exact. This is tensorflow#108936 (tf.cond or a Python if inside a tf.function)")


def nonfinite_warnings(x: np.ndarray, y: np.ndarray) -> tuple[str, ...]:
    if not np.isfinite(x).all():
        return ("x holds NaN or infinite values; the second derivatives there are not finite",)
    if not np.isfinite(y).all():
        return ("fn's output holds NaN or infinite values; its second derivatives there are not finite",)
    return ()
