"""The problem every method solves: ``f(xs, cs)``, the watched tensors, the constants and how to label them.

A problem is built from function text (``expression_problem``: a parsed ``Program`` and checked inputs) or
from a Python callable (``callable_problem``: its tensors checked to be floating point and of one dtype). Its
``key`` names it in the engine's caches; ``check_size`` refuses a Jacobian over the limits before anything runs.

>>> import tensorflow as tf
>>> p = callable_problem(lambda x: x * x, tf.constant([1.0, 2.0]))
>>> p.names, p.width, p.dtype
((('x', (2,)),), 2, 'float32')
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Hashable, Sequence

import tensorflow as tf

from . import _cost
from .._callable._forms import check_callable, given_form, xs_form
from .._callable._updates import refuse_updating
from .._callable._outputs import output_names, whole_labels, whole_output
from .._callable._state import callable_key
from .._foundations._cache import HashedKey
from .._foundations._errors import ExpressionError
from .._language._inputs import Input, check_not_flushed, compute_dtype, nonfinite_warnings, promotion_warnings
from .._foundations._limits import LIMITS, Limits, largest_fitting
from .._language._operations import notes

#: the class of an eager tensor (``_shape``)
_EAGER = tf.__internal__.EagerTensor

__all__ = ["UNUSED_IN_TENSORFLOW", "Problem", "callable_problem", "callable_problem_key", "check_size",
           "expression_problem", "jacobian_advice"]

#: what TensorFlow gives for a watched input the function does not use (the Jacobian shows its zeros)
UNUSED_IN_TENSORFLOW = "tape.gradient gives None for them, zeros with unconnected_gradients=ZERO"


@dataclass(frozen=True)
class Problem:
    """What every method needs: ``f(xs, cs)``, the watched tensors, the constants, and how to label them."""

    f: Callable[[list, list], Any]
    xs: list
    cs: list
    names: tuple[tuple[str, tuple[int, ...]], ...]   # every watched input, in column order
    differentiable: tuple[bool, ...]                  # per watched input: float (True) or integer (False)
    dtype: str
    key: Hashable | None                              # identifies f for the compiled cache; None: never compile
    warnings: tuple[str, ...] = ()
    size: int | None = None                           # the number of outputs, when known without running f
    profile: _cost.Profile | None = None              # what the methods cost, when f's intermediates are known
    check: bool = False                               # check each answer against f itself (``gradlib._perelement._probe``)
    output_names: tuple[str, ...] = ()                # a Keras model's names of its outputs (``model.output_names``)
    api: str = "evaluate"                             # the API that made the problem, named in its refusals
    #: ``{"outputs": ((name, shape), ...)}`` of the named outputs f joins, set whenever f runs (eagerly or traced)
    parts: dict = field(default_factory=dict, compare=False, hash=False)

    @property
    def structure(self) -> tuple | None:
        """Function text only: ``(program, names of xs, names of cs)``, what the structured Jacobian walks
        (``gradlib._perelement._structured``; ``f`` carries it, since a method sees only ``f``); None for a callable."""
        return getattr(self.f, "structure", None)

    def row_labels(self, shape: tuple[int, ...]) -> tuple[str, ...]:
        """The labels of the output's elements (``y`` of ``shape``): by the outputs' names wherever fn gave them
        (``gradlib._callable._outputs.whole_labels``)."""
        if len(self.output_names) > 1 and "outputs" not in self.parts:   # a warm compiled call ran no f: once here
            self.f(self.xs, self.cs)
        return whole_labels(shape, self.parts.get("outputs", ()), self.output_names, (n for n, _ in self.names))

    @property
    def width(self) -> int:
        """The Jacobian's columns: every watched element, integer inputs included."""
        return sum(math.prod(shape) for _, shape in self.names)

    @property
    def float_width(self) -> int:
        """The columns a method computes: the elements of the floating-point watched tensors ``xs``."""
        return sum(int(x.shape.num_elements()) for x in self.xs)

    @property
    def itemsize(self) -> int:
        """Bytes per element of the computation's dtype."""
        return tf.as_dtype(self.dtype).size


def check_size(m: int, problem: Problem, limits: Limits) -> None:
    """Refuse a Jacobian of ``m`` rows over ``limits.max_jacobian`` entries, before anything is allocated."""
    n = problem.width
    if m * n > limits.max_jacobian:
        raise ExpressionError(
            f"the Jacobian would have {m:,} x {n:,} = {m * n:,} entries; at most {limits.max_jacobian:,} are allowed. "
            + jacobian_advice(m, n, len(problem.names), limits.max_jacobian))


def jacobian_advice(m: int, n: int, watched: int, limit: int) -> str:
    """What fits under ``limit`` entries: at most so many outputs for these watched elements, or the other way round.

    >>> for option in jacobian_advice(501, 501, 1, 250_000).split(", or "): print(option)
    It fits with at most 499 outputs for these 501 watched elements (reduce the output, for example with sum or mean)
    at most 499 watched elements for these 501 outputs (use a smaller input)
    """
    options, outputs, elements = [], largest_fitting(limit, m, m * n), largest_fitting(limit, n, m * n)
    if outputs:
        options.append(f"at most {outputs:,} output{'s' if outputs > 1 else ''} for these {n:,} watched elements "
                       "(reduce the output, for example with sum or mean)")
    if elements:
        how = "watch fewer inputs or use smaller ones" if watched > 1 else "use a smaller input"
        options.append(f"at most {elements:,} watched element{'s' if elements > 1 else ''} for these {m:,} outputs "
                       f"({how})")
    return "It fits with " + ", or ".join(options) if options else "Reduce the output and watch fewer elements"


# ---------------------------------------------------------------- from function text


def expression_problem(program, inputs: Sequence[Input]) -> Problem:
    """The problem of a parsed ``program`` at checked ``inputs``: integer inputs enter as constants."""
    dtype = compute_dtype(inputs)
    program.check_numbers(dtype)
    check_not_flushed(inputs)
    tf_dtype = tf.as_dtype(dtype)
    watched = [i for i in inputs if i.watched]
    floats = [i for i in watched if i.dtype.startswith("float")]
    consts = [i for i in inputs if i not in floats]
    xs = [tf.constant(i.value, dtype=tf_dtype) for i in floats]
    cs = [tf.constant(i.value.astype(i.dtype)) for i in consts]
    x_names, c_names = [i.name for i in floats], [i.name for i in consts]

    def f(xs_: list, cs_: list):
        env = dict(zip(x_names, xs_))
        # Integer inputs enter as constants and are cast inside: exactly why TensorFlow gives them no gradient.
        env.update({name: tf.cast(c, tf_dtype) for name, c in zip(c_names, cs_)})
        return program.build(env, tf_dtype)

    f.structure = (program, tuple(x_names), tuple(c_names))   # what method 'structured' reads instead of calling f
    signature = tuple((i.name, i.shape, i.dtype, i.watched) for i in inputs)
    key = ("expression", program.key, signature, dtype)
    warnings = nonfinite_warnings(inputs) + promotion_warnings(inputs) + tuple(
        f"input {i.name!r} is {i.dtype}: TensorFlow's tape does not watch integer tensors, so its gradients are "
        f"None (shown as 0). Use float32 or float64 to differentiate with respect to it"
        for i in watched if i not in floats)
    # what a function's row says about its gradient (sign, floor, round: 0 wherever they have one)
    warnings += notes(program.functions)
    unused = [i.name for i in watched if i.name not in program.names]
    if unused:
        warnings += (f"watched input(s) {', '.join(map(repr, unused))} do not appear in the function: "
                     f"their gradients are zero ({UNUSED_IN_TENSORFLOW})",)
    profile = _cost.Profile.of_program(program, [i.name for i in floats], sum(i.size for i in floats),
                                       tf_dtype.size)
    return Problem(f, xs, cs, tuple((i.name, i.shape) for i in watched),
                   tuple(i in floats for i in watched), dtype, key, warnings, math.prod(program.shape), profile)


# ---------------------------------------------------------------- from a callable


def callable_problem(fn: Callable, xs: Any, *, check: bool = False, api: str = "per_element_gradients",
                     limits: Limits = LIMITS) -> Problem:
    """The problem of ``per_element_gradients(fn, xs)``: ``xs`` one tensor, a list, or a dict of them (as
    ``tape.gradient`` takes, checked by ``gradlib._callable._forms.xs_form``); with ``check``, each answer is checked
    against ``fn``. ``api`` names the caller in refusals.

    ``fn`` gets ``xs`` in the form it was given; the Jacobian's columns follow the list's order or the dict's
    keys (named by them).
    """
    check_callable(fn, api)
    form, names, tensors = xs_form(xs, api, limits)
    key = callable_problem_key(fn, "single" if form == "single" else names if form == "dict" else "list", tensors)
    refuse_updating(fn, given_form(form, names, tensors), api, key)
    outputs, parts = output_names(fn), {}

    def f(watched: list, _cs: list):
        y, parts["outputs"] = whole_output(fn(given_form(form, names, watched)), api, outputs)
        return y

    return Problem(f, tensors, [], tuple((n, tuple(t.shape)) for n, t in zip(names, tensors)),
                   (True,) * len(tensors), tensors[0].dtype.name, key, check=check, output_names=outputs, parts=parts,
                   api=api)


def _shape(t: Any) -> tuple:
    """``tuple(t.shape)``; for an eager tensor read as its ``_shape_tuple()`` (the same ints, without building a
    ``TensorShape`` and its dimensions: 2-3 us of each warm call of ``per_element_gradients``)."""
    if type(t) is _EAGER and hasattr(t, "_shape_tuple"):
        return t._shape_tuple()
    return tuple(t.shape)


def callable_problem_key(fn: Callable, form: Hashable, tensors: list) -> Hashable | None:
    """The key of ``fn``'s problem at ``tensors`` given in ``form`` (``"single"``, ``"list"``, or the dict's names):
    ``fn``, the form, each tensor's shape and dtype, and the fingerprint of what ``fn`` reads (``callable_key``)."""
    key = callable_key(fn, form, tuple([(_shape(t), t.dtype.name) for t in tensors]))
    if key is None:
        return None
    try:
        return HashedKey(("callable", *key))   # hashed once for the caches a call looks it up in
    except TypeError:   # a part that cannot be hashed: the caches' lookups say so, as for a plain tuple
        return ("callable", *key)
