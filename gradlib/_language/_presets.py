"""Ready-made problems: the seed question, examples from the TensorFlow and JAX docs, and the pitfalls."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["PRESETS", "PRESETS_BY_KEY", "Preset"]


@dataclass(frozen=True)
class Preset:
    """A function with its inputs, ready for ``evaluate(p.outputs, p.inputs, watch=p.watch, dtype=p.dtype)``."""

    key: str
    title: str
    description: str
    outputs: str
    inputs: dict[str, Any] = field(hash=False)
    watch: tuple[str, ...] | None = None
    dtype: Any = "float32"


#: the ready-made problems, in the order the playground lists them
PRESETS = (
    Preset("seed", "The seed question",
           "Two outputs of three watched scalars; per-element rows [20, 15, 12] and [120, 45, 36].",
           "[x0*x1*x2, x0*x1*x2*x0]", {"x0": 3.0, "x1": 4.0, "x2": 5.0}),
    Preset("tf_docs_sigmoid", "TensorFlow guide: Jacobian of sigmoid",
           "The Advanced autodiff guide's elementwise example: the Jacobian of sigmoid(x) is diagonal.",
           "sigmoid(x)", {"x": [-4.0, -2.0, 0.0, 2.0, 4.0]}),
    Preset("tf_docs_square", "TensorFlow guide: x**2",
           "The autodiff guide's first gradient: y = x**2 at x = 3 gives dy/dx = 6.",
           "x**2", {"x": 3.0}),
    Preset("jax_docs_tanh", "JAX docs: jacrev of tanh(W @ x + b)",
           "The JAX autodiff cookbook's layer: the Jacobian is diag(1 - tanh^2) @ W.",
           "tanh(W @ x + b)", {"W": [[0.5, -0.3, 0.8], [0.1, 0.9, -0.6]], "x": [1.0, 2.0, -1.0], "b": [0.1, -0.2]},
           ("x",)),
    Preset("jax_docs_logistic", "JAX cookbook: logistic predictions",
           "sigmoid(inputs @ W + b), differentiated with respect to the weights W: one row per prediction.",
           "sigmoid(inputs @ W + b)",
           {"inputs": [[0.52, 1.12, 0.77], [0.88, -1.08, 0.15], [0.52, 0.06, -1.30], [0.74, -2.49, 1.39]],
            "W": [0.3, -0.5, 0.8], "b": 0.1}, ("W",)),
    Preset("neural_layer", "A small neural layer",
           "A two-layer tanh network, 4 -> 3 -> 2, differentiated with respect to its input.",
           "tanh(W2 @ tanh(W1 @ x + b1))",
           {"W1": [[0.2, -0.4, 0.1, 0.5], [0.7, 0.3, -0.2, 0.1], [-0.5, 0.6, 0.4, -0.3]], "b1": [0.1, 0.0, -0.1],
            "W2": [[0.3, -0.6, 0.9], [0.5, 0.2, -0.4]], "x": [1.0, -1.0, 0.5, 2.0]}, ("x",)),
    Preset("nan_poisoning", "NaN poisoning",
           "y[0] overflows to inf; reverse mode turns y[1]'s row into NaN. auto returns the true row [0, 2].",
           "[exp(exp(10*x0)), 2*x1]", {"x0": 1.0, "x1": 1.0}),
    Preset("guarded_sqrt", "where(): the guarded square root",
           "where(x > 0, sqrt(x), 0) gives finite rows, but the branch not taken has an infinite or NaN derivative "
           "at x = 0 and -1: NaN under XLA, and for log even eagerly. The fix guards the input too: "
           "sqrt(where(x > 0, x, 1)).",
           "where(x > 0, sqrt(x), 0)", {"x": [0.0, -1.0, 4.0]}),
    Preset("integer_watch", "Watching an integer tensor",
           "n is int32: the tape ignores it and its gradients are None, although y clearly depends on n.",
           "x * n", {"x": [1.0, 2.0], "n": 3}, None, {"n": "int32"}),
)

#: the same, by ``Preset.key``
PRESETS_BY_KEY = {p.key: p for p in PRESETS}
