"""What a Python callable reads besides its arguments (the values a traced graph would freeze), and whether a
Keras model's structure may stand for its call (the section at the end).

A ``tf.function`` trace turns every NumPy array and Python number the function reads into a constant of
the graph. gradlib compiles a callable on its own (the caller never asked for ``tf.function``), so it must
not change the answer when such a value changes: the compiled cache is keyed on ``fingerprint(fn)``, a
summary of the values ``fn`` can see, and a changed value means a new trace.

Seen: the function's default arguments, its closure cells, and the module globals its code names (also
inside nested lambdas and comprehensions), following functions it reads the same way (to ``MAX_DEPTH``),
and a ``functools.partial``'s arguments. Each value counts if it is a Python or NumPy number, a NumPy
array or an eager TensorFlow tensor (by its content, so in-place changes count), a TensorFlow variable (by identity:
a graph reads its value live, but a name rebound to another variable must mean a new trace), or a short list or
tuple of numbers.

Not seen (documented in the README): attributes of objects (``self.scale``, a module attribute read as
``np.pi`` or ``config.scale``), containers other than short lists of numbers, and functions reached through
objects.

>>> import numpy as np
>>> scale = np.array([1.0, 2.0])
>>> f = lambda x: x * scale
>>> before = fingerprint(f)
>>> scale[0] = 5.0
>>> fingerprint(f) == before
False
"""

from __future__ import annotations

import functools
import hashlib
import sys
import types
from typing import Any, Callable, Hashable, Iterator

import numpy as np

__all__ = ["KEEPS_THE_CALL", "MAX_DEPTH", "callable_key", "computes_as", "fingerprint", "plain_model", "same_output",
           "tolerance"]

#: how deep to follow functions that a function reads (f calls g which reads a global)
MAX_DEPTH = 3
#: lists and tuples of numbers up to this length count as values; longer ones are not read
MAX_SEQUENCE = 1_000


def fingerprint(fn: Callable) -> tuple:
    """A hashable summary of the numbers and arrays ``fn`` reads from outside its arguments."""
    out: list[tuple] = []
    _visit(fn, out, set(), 0)
    return tuple(out)


def _visit(fn: Any, out: list, seen: set[int], depth: int) -> None:
    if isinstance(fn, functools.partial):
        out.extend(("partial", k, v) for k, v in _values(list(enumerate(fn.args)) + sorted(fn.keywords.items())))
        fn = fn.func
    fn = getattr(fn, "__func__", fn)   # a bound method: its function (self's attributes are not followed)
    if not isinstance(fn, types.FunctionType) or id(fn) in seen or depth > MAX_DEPTH:
        return
    seen.add(id(fn))
    named: list[tuple[str, Any]] = [(f"default {i}", v) for i, v in enumerate(fn.__defaults__ or ())]
    named += [(f"default {k}", v) for k, v in sorted((fn.__kwdefaults__ or {}).items())]
    named += [(f"closure {name}", cell) for name, cell in zip(fn.__code__.co_freevars, _cells(fn))]
    named += [(f"global {name}", fn.__globals__[name]) for name in sorted(set(_names(fn.__code__)))
              if name in fn.__globals__]
    for name, value in named:
        if isinstance(value, (types.FunctionType, types.MethodType, functools.partial)):
            _visit(value, out, seen, depth + 1)
    out.extend((fn.__qualname__, name, v) for name, v in _values(named))


def _cells(fn: types.FunctionType) -> Iterator[Any]:
    for cell in fn.__closure__ or ():
        try:
            yield cell.cell_contents
        except ValueError:   # a cell not yet bound
            yield None


def _names(code: types.CodeType) -> Iterator[str]:
    """The global names ``code`` reads, including those of nested lambdas and comprehensions."""
    yield from code.co_names
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _names(const)


def _values(named: list[tuple[Any, Any]]) -> Iterator[tuple[Any, Any]]:
    for name, value in named:
        summary = _summary(value)
        if summary is not None:
            yield name, summary


def _summary(value: Any) -> Any:
    """A hashable stand-in for a number, an array or a short list of numbers; ``None`` for anything else."""
    if isinstance(value, np.generic) and not isinstance(value, np.object_):
        value = value.item()
    if isinstance(value, (bool, int, float, complex)):
        return (type(value).__name__, repr(value))   # repr: NaN equals itself here
    if isinstance(value, np.ndarray) and value.dtype != object:
        digest = hashlib.blake2b(np.ascontiguousarray(value).tobytes(), digest_size=16).hexdigest()
        return ("ndarray", value.shape, value.dtype.str, digest)
    tf = sys.modules.get("tensorflow")   # only when TensorFlow is loaded (the lint CLI never loads it)
    if tf is not None and isinstance(value, tf.Variable):
        return ("variable", id(value))   # read live by a graph, but a name rebound to another variable is another one
    if tf is not None and isinstance(value, tf.__internal__.EagerTensor):   # frozen into a trace as a constant
        array = value.numpy()
        digest = hashlib.blake2b(np.ascontiguousarray(array).tobytes(), digest_size=16).hexdigest()
        return ("tensor", array.shape, array.dtype.str, digest)
    if isinstance(value, (list, tuple)) and len(value) <= MAX_SEQUENCE:
        items = [_summary(v) for v in value]
        if all(i is not None and i[0] in ("bool", "int", "float", "complex") for i in items):
            return (type(value).__name__, tuple(items))
    return None


def callable_key(fn: Callable, *parts: Hashable) -> Hashable | None:
    """The key of a compiled function of ``fn`` for ``parts`` (method, shapes, dtypes): ``fn`` itself, the parts,
    and the fingerprint of the values ``fn`` reads, which are frozen into a trace (a changed value must mean a
    new key, or the compiled graph would keep answering with the old one). None when ``fn`` is not hashable:
    then it is compiled anew, never cached."""
    try:
        hash(fn)
    except TypeError:
        return None
    return (fn, *parts, fingerprint(fn))


# ---------------------------------------------------------------- a model's structure and its call
# Some paths read a model instead of calling it: the forward Laplacian carries value, Jacobian and Laplacian through
# each Dense kernel (gradlib._second._taylor), the per-example gradients run a model layer by layer and give the
# layers they know rules of their own (gradlib._perexample._ghost), the cost estimates read layer sizes. Each is
# right only when the object computes what Keras' own class computes: a subclass may compute something else in any
# method a call runs (a keras.Sequential whose call returned super().call(x) * 3 had the Laplacian of its bare
# layers, 96% off, silently). So every such shortcut asks this one proof: ``computes_as`` a known class (that class,
# or subclasses defining nothing but KEEPS_THE_CALL), and where it computes y itself, ``same_output`` as the
# model's own call. Where either fails the caller takes the tape path, which calls the model and is right for any
# class.

#: what a subclass may define and still compute its base class's call: its construction and config, the class's
#: own metadata, and what only ``fit`` / ``evaluate`` run (never a call of the model on a batch)
KEEPS_THE_CALL = frozenset({
    "__init__", "get_config", "from_config", "__module__", "__qualname__", "__doc__", "__dict__", "__weakref__",
    "__annotations__", "__annotate__", "__firstlineno__", "__static_attributes__", "__orig_bases__",
    "__parameters__", "__type_params__", "__classcell__", "train_step", "test_step", "predict_step", "compile",
    "compute_metrics", "get_compile_config", "compile_from_config"})


def computes_as(obj: Any, cls: type) -> bool:
    """``obj`` is a ``cls`` and computes what ``cls`` does: every class from ``type(obj)`` up to ``cls`` defines
    only names in ``KEEPS_THE_CALL`` (an overridden ``call``, ``__call__``, ``build`` or weight property could
    compute anything), and no ``call`` was put on the instance itself (Keras puts its own ``build`` there).

    >>> import keras
    >>> class Tripled(keras.layers.Dense):
    ...     def call(self, x):
    ...         return super().call(x) * 3.0
    >>> computes_as(keras.layers.Dense(2), keras.layers.Dense), computes_as(Tripled(2), keras.layers.Dense)
    (True, False)
    """
    if not isinstance(obj, cls) or "call" in getattr(obj, "__dict__", {}):   # a call replaced on the instance
        return False
    for klass in type(obj).__mro__:
        if klass is cls:
            return True
        if not set(vars(klass)) <= KEEPS_THE_CALL:
            return False
    return False


def plain_model(model: Any) -> bool:
    """A Keras ``Sequential`` or functional ``Model`` that computes what Keras' own class does (``computes_as``):
    its layers are then what its call runs, in the graph Keras keeps."""
    import keras

    functional = _functional_class()
    return computes_as(model, keras.Sequential) or (functional is not None and computes_as(model, functional))


def _functional_class() -> type | None:
    """Keras' class of a functional model (what ``keras.Model(inputs, outputs)`` makes)."""
    try:
        from keras.src.models.functional import Functional
        return Functional
    except ImportError:   # a Keras that moved it: a shortcut then takes no functional model, which is only slower
        return None


def tolerance(dtype: str) -> float:
    """The relative gap two computations of the same value in ``dtype`` may show (their rounding, not a bug)."""
    return {"float16": 2e-2, "bfloat16": 5e-2, "float32": 1e-4}.get(str(dtype), 1e-9)


def same_output(shortcut: Any, called: Any, dtype: str) -> bool:
    """Whether a shortcut's ``y`` equals the model's own call's, elementwise within ``dtype``'s ``tolerance``
    (relative to the largest finite magnitude; a NaN or infinity must be matched in place).

    >>> same_output(np.array([[1.0]]), np.array([[1.0 + 1e-9]]), "float32")
    True
    """
    a, b = np.asarray(shortcut, np.float64), np.asarray(called, np.float64)
    if a.shape != b.shape:
        return False
    finite = np.isfinite(a) & np.isfinite(b)
    if not np.array_equal(a[~finite], b[~finite], equal_nan=True):
        return False
    scale = max(1.0, float(np.abs(b[finite]).max(initial=0.0)))
    return bool(np.all(np.abs(a[finite] - b[finite]) <= tolerance(dtype) * scale))
