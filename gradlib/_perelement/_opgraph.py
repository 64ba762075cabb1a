"""A callable's structured Jacobian: its traced graph read op by op, each op's Jacobian by the structured rules.

A Python callable shows no syntax tree, but its trace does: ``fn`` traced into a ``tf.function`` is a graph of
TensorFlow ops (``MatMul``, ``BiasAdd``, ``Tanh``, ...). The ops that lie between the watched inputs and the output
are walked in the order they were made, and each one's Jacobian follows from its inputs' by the same algebra the
typed functions use (``gradlib._perelement._structured``): a watched input is an identity block kept as its
diagonal, an element-wise op scales rows (its derivative from the operations table's row, ``GRAPH_UNARY``; the
binary ones from ``PARTIALS``, ties and kinks as TensorFlow's gradients take them), ``MatMul`` mixes them,
``Reshape``, ``ExpandDims``, ``Squeeze`` and ``Identity`` keep them, ``Transpose``, ``ConcatV2`` and ``Pack`` move
them, ``Softmax`` and ``LogSoftmax`` take the language's rules along the last axis, ``Sum`` and ``Mean`` add (and
average) rows along their axes. An op that does not depend on a watched input (a ``Const``, a ``ReadVariableOp`` of
a layer's weights, a shape computation) has no Jacobian at all, and an op whose outputs are not floating point
carries none (the tape follows no integer or boolean tensor).

One op on that path without a rule, or one that defines its own gradient (``tf.custom_gradient``), and the whole
function is left to the tape (``NotApplicable``): there is no mixing of the two within one function. So is an op
computing in another dtype than the watched inputs (a cast to float32 in a float64 call).

``read`` traces ``fn`` once (``gradlib._callable._trace.trace``) and says, before any Jacobian is built, whether
every op is covered and what the walk will hold (a ``Profile`` with the real intermediates, for the cost model and
the limits); ``from_graph`` is the method itself, walking the graph its own trace is making.

>>> import tensorflow as tf
>>> w = tf.constant([[1.0, 2.0], [3.0, 4.0]])
>>> y, J = from_graph(lambda xs, cs: tf.tanh(tf.linalg.matvec(w, xs[0])), [tf.constant([0.0, 0.0])], [])
>>> J.numpy().tolist()
[[1.0, 2.0], [3.0, 4.0]]
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Callable, Hashable, Sequence

import tensorflow as tf

from . import _cost
from .._callable._trace import CUSTOM_GRADIENT_ATTR, call_traced, trace
from .._foundations._cache import LRUCache
from .._foundations._errors import error_gist
from .._language._operations import OPERATIONS, PARTIALS
from ._structured import NotApplicable, RuleFailed, algebra

__all__ = ["GRAPH_BINARY", "GRAPH_RULES", "GRAPH_UNARY", "MAX_CALL_DEPTH", "Reading", "from_graph", "read", "walk_plan"]

#: op type -> the language's element-wise row whose derivative it takes (each row's own op is that op type:
#: tests/perelement/test_opgraph.py traces every row to hold this)
GRAPH_UNARY = {"Tanh": "tanh", "Sigmoid": "sigmoid", "Relu": "relu", "Exp": "exp", "Log": "log", "Sin": "sin",
               "Cos": "cos", "Sqrt": "sqrt", "Square": "square", "Abs": "abs", "Softplus": "softplus",
               "Log1p": "log1p", "Expm1": "expm1", "Elu": "elu", "Sinh": "sinh", "Cosh": "cosh", "Atan": "atan",
               "Erf": "erf", "Tan": "tan", "Asin": "asin", "Acos": "acos"}
#: op type -> the binary element-wise function of ``PARTIALS`` it computes (with NumPy's broadcasting)
GRAPH_BINARY = {"AddV2": "add", "Add": "add", "BiasAdd": "add", "Sub": "subtract", "Mul": "multiply",
                "RealDiv": "divide", "Maximum": "maximum", "Minimum": "minimum", "Pow": "pow"}
#: ops whose output holds the rows of their first input in the same (row-major) order
_SAME_ROWS = ("Identity", "Snapshot", "Reshape", "ExpandDims", "Squeeze", "EnsureShape")
#: ops the tape does not differentiate through: their output has no Jacobian, and the walk does not take them
_STOPS = ("StopGradient",)
#: problem key -> its Reading, so that auto reads a callable's graph once
_READINGS = LRUCache(maxsize=128)


def _shape(t: tf.Tensor) -> tuple[int, ...]:
    return tuple(t.shape.as_list())


def _same_rows(walker, op, ins):
    return ins[0][1]


def _unary(walker, op, ins):
    (value, jac) = ins[0]
    derivative = OPERATIONS[GRAPH_UNARY[op.type]].structured
    return derivative(walker, (value, jac))[1]


def _binary(walker, op, ins):
    (a, ja), (b, jb), y = ins[0], ins[1], op.outputs[0]
    da, db = PARTIALS[GRAPH_BINARY[op.type]](a, b, y)
    return walker.elementwise([(a, ja, da), (b, jb, db)], _shape(y))


def _neg(walker, op, ins):
    (value, jac) = ins[0]
    return walker.scale(jac, lambda: tf.constant(-1.0, walker.dtype), _shape(value))


def _transposed(walker, value, jac):
    return tf.transpose(value), None if jac is None else walker.flat(
        tf.transpose(walker.tensor(jac, _shape(value)), [1, 0, 2]))


def _matmul(walker, op, ins):
    """``MatMul`` of two matrices (either transposed); a column ``(k, 1)`` or a row ``(1, k)`` operand is a vector,
    whose identity block stays a diagonal (``tf.linalg.matvec`` makes the column)."""
    (a, ja), (b, jb) = ins
    if op.get_attr("transpose_a"):
        a, ja = _transposed(walker, a, ja)
    if op.get_attr("transpose_b"):
        b, jb = _transposed(walker, b, jb)
    (p, k), q = _shape(a), _shape(b)[1]
    if q == 1:
        b = tf.reshape(b, [k])
    elif p == 1:
        a = tf.reshape(a, [k])
    return walker.product(a, ja, b, jb, _shape(op.outputs[0]))


def _transpose(walker, op, ins):
    (value, jac) = ins[0]
    perm = [int(i) for i in tf.get_static_value(op.inputs[1])]
    return walker.flat(tf.transpose(walker.tensor(jac, _shape(value)), [*perm, len(perm)]))


def _softmax(walker, op, ins):   # Softmax and LogSoftmax: along the last axis, the language's rows
    name = "softmax" if op.type == "Softmax" else "log_softmax"
    return OPERATIONS[name].structured(walker, ins[0], -1)[1]


def _join(walker, op, ins):   # ConcatV2 (its axis the last input) and Pack (its axis an attribute)
    if op.type == "Pack":
        return walker.stack(ins, int(op.get_attr("axis")))[1]
    return walker.stack(ins[:-1], int(tf.get_static_value(op.inputs[-1])), join=tf.concat)[1]


def _reduce(walker, op, ins):   # Sum and Mean over the axes of their second input, keep_dims as TensorFlow's attribute
    jac, shape = ins[0][1], _shape(ins[0][0])
    axes = sorted({int(a) % max(len(shape), 1) for a in tf.nest.flatten(tf.get_static_value(op.inputs[1]).tolist())})
    keep, reduce = bool(op.get_attr("keep_dims")), tf.reduce_sum if op.type == "Sum" else tf.reduce_mean
    if not axes or not shape:
        return jac
    if len(axes) == len(shape) and not keep and op.type == "Sum":   # a watched input's sum: its diagonal, one row
        return walker.along(jac, shape, None, reduce)
    return walker.flat(reduce(walker.tensor(jac, shape), axis=axes, keepdims=keep))


#: the ops that call a function of the graph's library: a ``tf.function`` of the user's own, a Keras layer's call
_CALLS = ("PartitionedCall", "StatefulPartitionedCall")


def _body(op):
    """The traced graph of the function a call op runs, from the library of the graph the op is in: read once per op
    (``walk_plan`` reads every call before the walk imports a body, whose library could shadow a name). A call op
    the walk imported (a call within a called function) reads it through the op it copies."""
    known = _BODIES.setdefault(op.graph, {})
    if op.name not in known:
        known[op.name] = getattr(op.graph._get_function(op.get_attr("f").name), "graph", None)   # noqa: SLF001
    if known[op.name] is not None:
        return known[op.name]
    for scope, original in _IMPORTED.get(op.graph, {}).items():
        if op.name.startswith(scope + "/"):
            return _body(original.get_operation_by_name(op.name[len(scope) + 1:]))
    raise NotApplicable(f"op {op.type!r} ({op.name}) calls a function whose traced graph is not at hand")


#: graph -> {call op's name: the traced graph it calls}, and graph -> {scope of a body the walk imported into it:
#: that body's traced graph}
_BODIES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_IMPORTED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _call(walker, op, ins):
    """A call of the user's own ``tf.function``: its body imported into this graph onto the call's inputs (ops that
    compute the same values as the call), walked by the same rules; the Jacobian of the body's output."""
    body = _body(op)
    scope = f"{op.name}_structured".replace("/", "_")
    (y,) = tf.graph_util.import_graph_def(body.as_graph_def(), {p.name: t for p, (t, _) in zip(body.inputs, ins)},
                                          return_elements=[body.outputs[0].name], name=scope)
    _IMPORTED.setdefault(y.graph, {})[scope] = body
    carried = {t.name: jac for t, jac in ins if jac is not None}
    plan = [o for o in _plan(y, set(carried), walker.dtype) if o.name.startswith(scope + "/")]
    return _walk(walker, plan, carried).get(y.name)


#: op type -> its rule ``(algebra, op, [(input, its Jacobian or None)]) -> the Jacobian of its first output``
GRAPH_RULES: dict[str, Callable] = {
    **{t: _same_rows for t in _SAME_ROWS}, **{t: _unary for t in GRAPH_UNARY},
    **{t: _binary for t in GRAPH_BINARY}, "Neg": _neg, "MatMul": _matmul, "Transpose": _transpose,
    "Softmax": _softmax, "LogSoftmax": _softmax, "ConcatV2": _join, "Pack": _join,
    "Sum": _reduce, "Mean": _reduce, "Cast": _same_rows, **{t: _call for t in _CALLS}}   # a cast to the same dtype only (``_uncovered``)


def _uncovered(op, dtype) -> str:
    """Why the walk cannot take ``op`` (an op on the path from a watched input to the output): "" when it can."""
    where = f"op {op.type!r} ({op.name})"
    if op.type not in GRAPH_RULES:
        return f"{where} has no rule in the structured Jacobian"
    if CUSTOM_GRADIENT_ATTR in op.node_def.attr:
        return f"{where} defines its own gradient (tf.custom_gradient), which only the tape follows"
    y = op.outputs[0]
    if len(op.outputs) != 1 and op.type not in _CALLS:   # a call's other outputs: ``_plan`` checks them
        return f"{where} has {len(op.outputs)} outputs"
    if y.dtype != dtype or not y.shape.is_fully_defined():
        return f"{where} gives {y.dtype.name} {y.shape}, not {dtype.name} of a known shape as the watched inputs"
    if op.type == "BiasAdd" and op.get_attr("data_format") not in (b"NHWC", "NHWC") and y.shape.rank > 2:
        return f"{where} adds its bias along the channels first (NCHW)"
    if op.type in ("Transpose", "ConcatV2", "Sum", "Mean") and tf.get_static_value(op.inputs[-1]) is None:
        return f"{where} has a permutation or an axis known only when it runs"
    if op.type == "MatMul" and any(t.shape.rank != 2 for t in op.inputs):
        return f"{where} multiplies values of shapes {[_shape(t) for t in op.inputs]}"
    return ""


def _ancestors(y: tf.Tensor) -> set:
    """The ops ``y`` is computed from (through their data inputs), ``y``'s own included."""
    seen, todo = set(), [y.op]
    while todo:
        op = todo.pop()
        if op.name not in seen:
            seen.add(op.name)
            todo.extend(t.op for t in op.inputs)
    return seen


def walk_plan(y: tf.Tensor, xs: Sequence[tf.Tensor]) -> list:
    """The ops from the watched ``xs`` (tensors of ``y``'s graph) to ``y`` that carry a Jacobian, in the order they
    were made; ``NotApplicable`` names the first that the walk cannot take (inside a called function's body too)."""
    dtype = xs[0].dtype
    if not hasattr(y, "graph") or not hasattr(y, "op"):
        raise NotApplicable("fn's output is not a tensor of its trace")
    if y.dtype != dtype:
        raise NotApplicable(f"fn's output is {y.dtype.name}, not {dtype.name} as its watched inputs")
    return _plan(y, {x.name for x in xs}, dtype)


def _plan(y: tf.Tensor, carried: set, dtype, depth: int = 0) -> list:
    """``walk_plan`` from the tensors named ``carried``; a call op's body is planned too (``_body_plan``)."""
    wanted, carried, plan = _ancestors(y), set(carried), []
    for op in y.graph.get_operations():
        if op.name not in wanted or not any(t.name in carried for t in op.inputs):
            continue
        floats = [t for t in op.outputs if t.dtype.is_floating]
        if not floats or op.type in _STOPS:
            continue   # integer or boolean outputs, or a stop: the tape follows none of them
        why = _uncovered(op, dtype)
        if why:
            raise NotApplicable(f"{why}: the tape differentiates this function instead")
        if op.type in _CALLS:
            _check_other_outputs(op, wanted)
            _body_plan(op, carried, dtype, depth)
        carried.add(op.outputs[0].name)
        plan.append(op)
    return plan


def _check_other_outputs(op, wanted: set) -> None:
    """A call op's outputs after the first (a function traced for a tape returns its intermediates too) may feed no
    op ``y`` is computed from: the walk carries the first output's Jacobian only."""
    others = {t.name for t in op.outputs[1:]}
    used = [o.name for o in op.graph.get_operations() if o.name in wanted and any(t.name in others for t in o.inputs)]
    if used:
        raise NotApplicable(f"op {op.type!r} ({op.name}) has {len(op.outputs)} outputs and op {used[0]!r} reads one "
                            "after the first, which the walk does not carry")


#: stateful ops that give the walk's imported copy of a body the same values as fn's own call: reading a variable
_SAME_STATE = ("ReadVariableOp", "VarHandleOp")


def _stateful(body, depth: int) -> str:
    """The name of the first op of ``body`` (or of a function it calls) with a state other than a variable read."""
    for op in body.get_operations():
        if op.type in _CALLS and depth < MAX_CALL_DEPTH:
            inner = _stateful(_body(op), depth + 1)
            if inner:
                return inner
        elif op.op_def.is_stateful and op.type not in _SAME_STATE:
            return op.type
    return ""


#: calls within calls followed at most this deep (a deeper one leaves the function to the tape)
MAX_CALL_DEPTH = 8


def _body_plan(op, carried: set, dtype, depth: int) -> list:
    """The plan of the body of call op ``op`` from the inputs the call gets carried tensors on (what ``_profile``
    counts); ``NotApplicable`` names an op of the body the walk cannot take."""
    if depth >= MAX_CALL_DEPTH:
        raise NotApplicable(f"op {op.type!r} ({op.name}) calls functions more than {MAX_CALL_DEPTH} deep")
    body = _body(op)
    state = _stateful(body, depth)
    if state:
        raise NotApplicable(f"in the function {op.get_attr('f').name!r} that op {op.name!r} calls, op {state!r} has "
                            "a state (a random number, a variable it writes), which the walk's own copy of the "
                            "function would not share with fn's call: the tape differentiates this function instead")
    inner = {p.name for p, t in zip(body.inputs, op.inputs) if t.name in carried}
    try:
        return _plan(body.outputs[0], inner, dtype, depth + 1)
    except NotApplicable as exc:
        raise NotApplicable(f"in the function {op.get_attr('f').name!r} that op {op.name!r} calls, {exc}") from None


def from_graph(f: Callable, xs: list, cs: list):
    """``(y, J)`` of a callable problem's ``f`` from the ops of its trace; run eagerly, it traces itself once."""
    if tf.executing_eagerly():
        specs = [[tf.TensorSpec(t.shape, t.dtype) for t in tensors] for tensors in (xs, cs)]
        return tuple(call_traced(trace(lambda xs_, cs_: from_graph(f, xs_, cs_), specs), xs, cs))
    y = f(xs, cs)
    plan = walk_plan(y, xs)
    walker, blocks = algebra(xs)
    jacobians = _walk(walker, plan, {x.name: block for x, block in zip(xs, blocks)})
    return y, walker.dense(jacobians.get(y.name), _shape(y))


def _walk(walker, plan: list, jacobians: dict) -> dict:
    """Every op of ``plan`` by its rule, from ``jacobians`` (tensor name -> its Jacobian), which it fills."""
    for op in plan:
        ins = [(t, jacobians.get(t.name)) for t in op.inputs]
        try:
            jac = GRAPH_RULES[op.type](walker, op, ins)
        except (ValueError, tf.errors.InvalidArgumentError) as exc:
            raise RuleFailed(f"the structured rule of op {op.type!r} ({op.name}) could not place the Jacobians of "
                             f"its inputs (TensorFlow said: {error_gist(exc)}); use method='auto'") from exc
        rows = None if jac is None else jac.shape[0] if tf.is_tensor(jac) else jac.size
        if rows is not None and rows != op.outputs[0].shape.num_elements():
            raise RuleFailed(f"the structured rule of op {op.type!r} ({op.name}) gave {rows} rows for "
                             f"{op.outputs[0].shape.num_elements()} values; use method='auto'")
        jacobians[op.outputs[0].name] = jac
    return jacobians


@dataclass(frozen=True)
class Reading:
    """What one trace of a callable says: why the structured Jacobian does not cover it ("" when it does), and the
    profile of its real intermediates (None when not covered)."""

    why: str
    profile: _cost.Profile | None = None


def read(f: Callable, xs: list, cs: list, key: Hashable | None = None) -> Reading:
    """Trace ``f`` once (remembered by ``key``) and read whether its structured Jacobian is covered, and its profile:
    every float value it holds, the walk's values and their work (a matrix product ``2 p k q``, an element-wise op
    one per element), so the cost model's estimate counts what the walk really allocates."""
    def reading() -> Reading:
        specs = [[tf.TensorSpec(t.shape, t.dtype) for t in tensors] for tensors in (xs, cs)]
        try:
            graph = trace(f, specs).graph
        except Exception as exc:   # noqa: BLE001 - fn cannot be traced: the tape methods run it eagerly
            return Reading(f"fn cannot be traced into a graph ({type(exc).__name__}: {error_gist(exc)})")
        y, inputs = graph.outputs[0], graph.inputs[:len(xs)]
        try:
            plan = walk_plan(y, inputs)
        except NotApplicable as exc:
            return Reading(str(exc))
        return Reading("", _profile(graph, plan, y, inputs))

    return reading() if key is None else _READINGS.get_or_create(key, reading)


def _work(op) -> float:
    size = sum(t.shape.num_elements() or 0 for t in op.outputs if t.dtype.is_floating and t.shape.is_fully_defined())
    if op.type in ("Sum", "Mean") and op.inputs[0].shape.is_fully_defined():   # one addition per element it reads
        return float(op.inputs[0].shape.num_elements())
    if op.type == "MatMul" and all(t.shape.is_fully_defined() for t in op.inputs):
        a = op.inputs[0].shape.as_list()
        return 2.0 * size * (a[0] if op.get_attr("transpose_a") else a[1])
    return float(size)


def _inlined(plan: list, carried: set, dtype) -> tuple[list, list]:
    """``(ops, plan)`` of the bodies ``plan``'s call ops run, those they call included: every op of each body, and
    the ops of its plan (what the walk imports and holds)."""
    ops, inner = [], []
    carried = carried | {op.outputs[0].name for op in plan}
    for op in plan:
        if op.type in _CALLS:
            body, body_plan = _body(op), _body_plan(op, carried, dtype, 0)
            deeper = _inlined(body_plan, {p.name for p, t in zip(body.inputs, op.inputs) if t.name in carried}, dtype)
            ops += body.get_operations() + deeper[0]
            inner += body_plan + deeper[1]
    return ops, inner


def _profile(graph, plan: list, y: tf.Tensor, xs: Sequence[tf.Tensor]) -> _cost.Profile:
    body_ops, body_plan = _inlined(plan, {x.name for x in xs}, xs[0].dtype)
    ops, plan = graph.get_operations() + body_ops * 2, plan + body_plan   # a body runs in the call and imported
    elements = sum(t.shape.num_elements() or 0 for op in ops for t in op.outputs
                   if t.dtype.is_floating and t.shape.is_fully_defined())
    n = sum(int(x.shape.num_elements()) for x in xs)
    return _cost.Profile(m=int(y.shape.num_elements()), n=n, itemsize=xs[0].dtype.size,
                         forward=sum(_work(op) for op in ops), elements=elements,
                         watched_work=sum(_work(op) for op in plan) + n,
                         watched_elements=sum(op.outputs[0].shape.num_elements() for op in plan) + n,
                         operations=max(len(plan), 1))
