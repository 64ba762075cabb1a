"""What the linter knows about TensorFlow, Keras and NumPy calls, by dotted name (``tf.math.argmax``).

Names are normalised first: ``tensorflow`` is ``tf``, ``keras`` and ``tensorflow.keras`` are
``tf.keras``, ``numpy`` is ``np``; the ``tf.math.``/``tf.nn.`` spellings of a function match its
short name. A TensorFlow function not listed here is taken to be differentiable, which can only
hide a finding, never make one up.
"""

from __future__ import annotations

__all__ = ["ALIASES", "call_kind", "dtype_of_name", "kind_returns_tuple", "normalise"]

ALIASES = {"tensorflow": "tf", "keras": "tf.keras", "numpy": "np", "tensorflow.keras": "tf.keras",
           "tf.compat.v2": "tf", "tensorflow.compat.v2": "tf", "tf.compat.v1": "tf", "tensorflow.compat.v1": "tf",
           "jax.numpy": "jnp"}

_CONSTANTS = {"constant", "ones", "zeros", "fill", "eye", "range", "linspace", "convert_to_tensor",
              "ones_like", "zeros_like", "random.normal", "random.uniform", "random.truncated_normal",
              "random.stateless_normal", "random.stateless_uniform", "random.shuffle", "identity_n"}
_NONDIFF = {"argmax", "argmin", "round", "floor", "ceil", "sign", "equal", "not_equal", "greater",
            "greater_equal", "less", "less_equal", "logical_and", "logical_or", "logical_not", "is_nan",
            "is_finite", "is_inf", "size", "shape", "rank", "unique", "one_hot", "count_nonzero",
            "argsort", "searchsorted", "floordiv", "histogram_fixed_width", "rint", "in_top_k",
            "confusion_matrix", "bincount", "random.categorical", "random.multinomial", "multinomial"}
_SLICING = {"unstack", "split", "gather", "gather_nd", "slice", "strided_slice", "boolean_mask"}
_TUPLES = {"nn.moments", "top_k", "linalg.eigh", "linalg.eig", "linalg.svd", "linalg.qr", "unique_with_counts",
           "meshgrid", "nn.sufficient_statistics", "nn.weighted_moments", "nn.fused_batch_norm", "custom_gradient"}
_NUMPY_BRIDGES = {"numpy_function", "py_func", "make_ndarray", "get_static_value"}
#: Keras calls that return a NumPy array: keras.ops.convert_to_numpy, keras.backend.get_value/eval/batch_get_value
_KERAS_TO_NUMPY = {"convert_to_numpy", "get_value", "batch_get_value", "eval"}
_INT_NAMES = {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool", "string"}
_FLOAT_NAMES = {"float16", "float32", "float64", "bfloat16", "double", "half", "float", "complex64", "complex128"}
_SUBMODULES = ("math.", "nn.", "linalg.", "dtypes.", "experimental.numpy.", "raw_ops.")


def normalise(qual: str) -> str:
    """``tensorflow.math.argmax`` -> ``tf.math.argmax``; ``keras.layers.Dense`` -> ``tf.keras.layers.Dense``."""
    for long, short in sorted(ALIASES.items(), key=lambda kv: -len(kv[0])):
        if qual == long or qual.startswith(long + "."):
            return short + qual[len(long):]
    return qual


def _short(name: str) -> str:
    """``math.argmax`` -> ``argmax``: the same function under its namespaces."""
    for prefix in _SUBMODULES:
        if name.startswith(prefix):
            return name[len(prefix):]
    return name


def dtype_of_name(qual: str) -> str | None:
    """'int' for ``tf.int32``/``"int64"``/``np.int32``/``int``, 'float' for the float dtypes, else None."""
    last = qual.rsplit(".", 1)[-1]
    if last in _INT_NAMES or qual == "int":
        return "int"
    if last in _FLOAT_NAMES:
        return "float"
    return None


def call_kind(qual: str) -> str:
    """What calling ``qual`` does: constant, variable, tape, nondiff, stop, slicing, numpy, cast, keras_model,
    keras_fn, opaque, printing, function, diff (a differentiable TensorFlow op) or unknown."""
    if qual.startswith(("np.", "math.", "jnp.", "scipy.")):
        return "numpy"
    if not qual.startswith("tf."):
        return "unknown"
    name = qual[3:]
    if name.startswith("keras."):
        return _keras_kind(name[6:])
    short = _short(name)
    table = (("variable", {"Variable"}), ("tape", {"GradientTape"}), ("function", {"function"}),
             ("stop", {"stop_gradient"}), ("cast", {"cast", "dtypes.cast", "saturate_cast"}),
             ("printing", {"print"}), ("constant", _CONSTANTS), ("nondiff", _NONDIFF), ("slicing", _SLICING),
             ("numpy", _NUMPY_BRIDGES))
    for kind, names in table:
        if name in names or short in names:
            return kind
    if name.startswith("strings."):                  # a string has no gradient: as_string, to_number, format
        return "nondiff"
    if name.startswith(("debugging.", "summary.", "io.", "data.", "config.", "saved_model.", "random.")):
        return "opaque"
    return "diff"


def kind_returns_tuple(qual: str) -> bool:
    """Whether the TensorFlow function ``qual`` returns a tuple of tensors rather than one tensor."""
    name = qual[3:] if qual.startswith("tf.") else qual
    return name in _TUPLES or _short(name) in _TUPLES


def _keras_kind(name: str) -> str:
    last = name.rsplit(".", 1)[-1]
    if name.startswith(("optimizers.", "callbacks.", "metrics.", "initializers.", "regularizers.", "utils.")):
        return "opaque"
    if name.startswith(("backend.", "ops.")) and last in _KERAS_TO_NUMPY:
        return "numpy"
    if name.startswith(("losses.", "activations.", "backend.", "ops.")):
        return "nondiff" if last in _NONDIFF else "keras_fn"
    if name in ("Input", "layers.Input", "models.load_model", "saving.load_model"):
        return "unknown"
    if name == "models.clone_model":                 # a new model of the same layers, with variables of its own
        return "keras_model"
    if last[:1].isupper() and (name.startswith(("layers.", "models.", "applications.")) or "." not in name):
        return "keras_model"
    return "unknown"
