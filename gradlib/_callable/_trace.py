"""The trace of a user's function: the one place in gradlib that calls ``tf.function`` on it.

Every compiled variant a room needs is asked for here: the per-element engine's methods (graph or XLA,
``jit_compile``), crosscheck's modes, second order's kernels (forward or reverse, with or without pfor), the
per-sample Jacobians, per-example steps and the PDE residual's graph. One place means one set of options
(``autograph=False``, an exact signature that never retraces) and one reading of what a trace shows: a gradient
``fn`` defines itself (``defined_gradient``) and the least precise float it computes in (``lowest_float``).
``tests/project/test_architecture.py`` fails if another module of gradlib calls ``tf.function``.
"""

from __future__ import annotations

import sys
from typing import Any, Callable, Sequence

__all__ = ["CUSTOM_GRADIENT_ATTR", "INLINE_EXECUTOR", "INLINE_OPS", "NUMPY_CALLS", "WHILE_OPS", "call_traced",
           "defined_gradient", "first_order_cut", "fixed_caller", "graph_cut", "graph_loops", "inline_ops",
           "lowest_float", "numpy_call", "polymorphic", "py_function_call", "trace", "while_loops"]

#: the attribute TensorFlow puts on an op whose gradient is overridden: ``tf.custom_gradient`` in a graph wraps its
#: outputs in an ``IdentityN`` made under ``gradient_override_map({"IdentityN": "CustomGradient-<uid>"})``
#: (tensorflow/python/ops/custom_gradient.py, ``_graph_mode_decorator``); ``gradient_override_map`` does the same
CUSTOM_GRADIENT_ATTR = "_gradient_op_type"


def trace(fn: Callable, signature: Sequence[Any], *, jit_compile: bool | None = None) -> Any:
    """``fn`` traced once into a concrete function for exactly ``signature`` (its arguments' ``tf.TensorSpec``s, nested
    as ``fn`` takes them): every compiled function of gradlib is made here, with the same options.

    ``autograph=False``: gradlib's own code has no tensor-dependent Python control flow, so AutoGraph's source
    conversion would only add tracing time (and warnings about lambdas it cannot parse); a user's function that
    needs AutoGraph is a ``tf.function`` already. ``reduce_retracing=False``: the signature is exact, so the
    function never retraces. ``jit_compile=True`` asks XLA to fuse the graph (``_perelement/_compiled.py``
    measures it before keeping it).
    """
    import tensorflow as tf   # here, not at the top: importing gradlib loads no TensorFlow

    function = tf.function(fn, input_signature=list(signature), autograph=False, jit_compile=jit_compile,
                           reduce_retracing=False)
    return function.get_concrete_function()


def defined_gradient(fn: Callable, signature: Sequence[Any]) -> str:
    """The name of a gradient ``fn`` defines itself (``tf.custom_gradient``, ``gradient_override_map``), or ``""``.

    Reverse mode (``tape.gradient``) follows such a gradient; forward mode (``tf.autodiff.ForwardAccumulator``)
    inside a ``tf.function`` differentiates the operations ``fn`` runs instead, silently: a straight-through
    ``round`` gets 0 where the tape gives 1. ``fn`` is traced once for ``signature`` (as ``trace`` takes it) and
    every op is read, those of the functions it calls included. ``""`` too when ``fn`` cannot be traced: it then
    runs eagerly, where forward mode follows the gradient the tape records.

    >>> import tensorflow as tf
    >>> ste = tf.custom_gradient(lambda x: (tf.round(x), lambda dy: dy))
    >>> defined_gradient(lambda x: ste(x) * x, [tf.TensorSpec([2])]).startswith("CustomGradient-")
    True
    >>> defined_gradient(lambda x: tf.round(x) * x, [tf.TensorSpec([2])])
    ''
    """
    try:
        graph_def = trace(fn, signature).graph.as_graph_def()
    except Exception:   # noqa: BLE001 - not traceable: it runs eagerly (see above)
        return ""
    nodes = [*graph_def.node, *(node for function in graph_def.library.function for node in function.node_def)]
    names = [node.attr[CUSTOM_GRADIENT_ATTR].s.decode() for node in nodes if CUSTOM_GRADIENT_ATTR in node.attr]
    return names[0] if names else ""


#: the ops of a ``tf.while_loop`` in a graph (a Keras recurrent layer's time loop, ``tf.scan``, ``tf.map_fn``)
WHILE_OPS = ("While", "StatelessWhile")


def while_loops(fn: Callable, signature: Sequence[Any]) -> tuple[str, ...]:
    """The names of the while loops' ops in ``fn``'s trace (and the functions it calls), ``()`` for none or when
    ``fn`` cannot be traced: one per Keras recurrent layer (LSTM, GRU, SimpleRNN without ``unroll``), ``tf.scan``.

    TensorFlow's forward mode over a tape (``tf.autodiff.ForwardAccumulator`` over ``tf.GradientTape``, in a
    ``tf.function``) fails on such a loop after tracing for seconds: ``TypeError: `dtype` <dtype: 'variant'> is not
    compatible with 1 of dtype int64`` where it keeps a ``TensorArray`` (Keras' LSTM and GRU, ``tf.scan``). Second
    derivatives through one trace and first run for tens of seconds (``gradlib._second._orders``, ``LOOP_SECONDS``).

    >>> import tensorflow as tf
    >>> len(while_loops(lambda x: tf.scan(lambda h, _: tf.tanh(h), tf.range(3), initializer=x)[-1],
    ...                 [tf.TensorSpec([2])]))
    1
    >>> while_loops(lambda x: tf.tanh(x), [tf.TensorSpec([2])])
    ()
    """
    try:
        graph = trace(fn, signature).graph
    except Exception:   # noqa: BLE001 - not traceable: the caller's own trace reports why
        return ()
    return graph_loops(graph)


def graph_loops(graph: Any) -> tuple[str, ...]:
    """The names of the while loops' ops in ``graph`` and the functions it calls (``while_loops``, read from a
    trace already made)."""
    graph_def = graph.as_graph_def()
    nodes = (*graph_def.node, *(node for function in graph_def.library.function for node in function.node_def))
    return tuple(node.name for node in nodes if node.op in WHILE_OPS)


def first_order_cut(fn: Callable, signature: Sequence[Any]) -> str:
    """The name of a ``tf.stop_gradient`` in ``fn`` that keeps its first derivative right and makes its second wrong,
    or ``""``: the one ``tf.nn.moments`` puts on the mean, ``squared_difference(x, stop_gradient(mean))``.

    That variance has the right gradient (its derivative along the mean is 0 at the mean), but not the right
    Hessian: nested tapes give ``2/n I`` where it is ``2/n (I - 1/n)``. Keras' ``LayerNormalization`` (TensorFlow
    backend) computes its variance so, and so every second derivative through it, by any tape or forward mode,
    is silently off. ``fn`` is traced once for ``signature``; ``""`` when it cannot be traced.

    >>> import tensorflow as tf
    >>> first_order_cut(lambda x: tf.nn.moments(x, axes=[1])[1], [tf.TensorSpec([2, 3])]).endswith("StopGradient")
    True
    >>> first_order_cut(lambda x: tf.math.reduce_variance(x, axis=1), [tf.TensorSpec([2, 3])])
    ''
    """
    try:
        graph = trace(fn, signature).graph
    except Exception:   # noqa: BLE001 - not traceable: the caller's own trace reports why
        return ""
    return graph_cut(graph)


def graph_cut(graph: Any, since: int = 0) -> str:
    """``first_order_cut`` of a graph already built (a ``tf.function``'s being traced included), read from its ops
    from the ``since``-th on (those a call made: not the rest of a user's training step) and, when they call
    functions, from the functions the graph holds."""
    ops = graph.get_operations()[since:]
    for op in ops:
        if op.type == "StopGradient" and any(c.type == "SquaredDifference" for c in op.outputs[0].consumers()):
            return op.name
    if not any(op.type in ("PartitionedCall", "StatefulPartitionedCall") for op in ops):
        return ""
    graph_def = graph.as_graph_def()
    nodes = [node for function in graph_def.library.function for node in function.node_def]
    stops = {node.name for node in nodes if node.op == "StopGradient"}
    for node in nodes:
        if node.op == "SquaredDifference":
            for name in node.input:
                name = name.lstrip("^").split(":")[0]
                if name in stops:
                    return name
    return ""


#: the op types of ``tf.numpy_function`` (and ``tf.compat.v1.py_func``): Python that TensorFlow runs and registers as
#: not differentiable, so a tape takes their outputs as constants (``tf.py_function``'s ``EagerPyFunc`` has a gradient)
NUMPY_CALLS = ("PyFunc", "PyFuncStateless")


def numpy_call(graph: Any) -> str:
    """The name of a ``tf.numpy_function`` op in ``graph`` (or a function it calls) that reads a tensor, or ``""``.

    Its output is a constant to every tape: where it depends on the watched input, a Jacobian through it leaves that
    part out with no error (``numpy(2x) * x`` gets ``2x`` where the derivative is ``4x``). One that reads no tensor
    (a constant made in NumPy) changes no derivative.

    >>> import numpy as np, tensorflow as tf
    >>> f = lambda x: tf.numpy_function(np.sin, [x], tf.float32) * x
    >>> numpy_call(trace(f, [tf.TensorSpec([2])]).graph) != ""
    True
    >>> numpy_call(trace(lambda x: tf.sin(x) * x, [tf.TensorSpec([2])]).graph)
    ''
    """
    graph_def = graph.as_graph_def()
    nodes = (*graph_def.node, *(node for function in graph_def.library.function for node in function.node_def))
    return next((node.name for node in nodes
                 if node.op in NUMPY_CALLS and any(not name.startswith("^") for name in node.input)), "")


def py_function_call(graph: Any) -> str:
    """The name of a ``tf.py_function`` op (``EagerPyFunc``) in ``graph`` (or a function it calls), or ``""``.

    Its gradient replays the tape its Python recorded, which TensorFlow keeps for one gradient per call of the op: a
    second gradient through the same call (``batch_jacobian``'s rows, a persistent tape's next row) fails with
    ``KeyError: pyfunc_N``.
    """
    graph_def = graph.as_graph_def()
    nodes = (*graph_def.node, *(node for function in graph_def.library.function for node in function.node_def))
    return next((node.name for node in nodes if node.op == "EagerPyFunc"), "")


#: floating-point dtypes, least precise first
_FLOATS = ("float16", "bfloat16", "float32", "float64")


def lowest_float(graph: Any, start: str) -> str:
    """The least precise of ``start`` and the floating-point dtypes ``graph``'s ops compute in (the functions it calls
    included): a float64 batch through a layer left at float32 (``keras.layers.Activation('tanh')`` without a dtype,
    a ``tf.cast`` in fn) is computed to float32's precision, and checks of the result must allow for that.
    """
    graph_def = graph.as_graph_def()
    found = {start}
    for node in (*graph_def.node, *(node for function in graph_def.library.function for node in function.node_def)):
        for value in node.attr.values():
            for code in ([value.type] if value.type else value.list.type):
                found.add(_DTYPE_NAMES.get(code, ""))
    return next((name for name in _FLOATS if name in found), start)


#: TensorFlow's DataType enum (tensorflow/core/framework/types.proto) -> name, for the floating-point ones
_DTYPE_NAMES = {19: "float16", 14: "bfloat16", 1: "float32", 2: "float64"}


def call_traced(function: Any, xs: Sequence[Any], cs: Sequence[Any]) -> Any:
    """Call ``function`` (a concrete function from ``trace`` taking ``(xs, cs)``) on the tensors it was traced for.

    ``ConcreteFunction.__call__`` binds its arguments to the signature again on every call (canonicalising,
    flattening, checking each tensor's shape and dtype against its spec): 0.13-0.2 ms of a 1.1 ms warm
    ``evaluate`` on the 256-wide MLP (docs/performance.md, issue 26). gradlib's compiled caches are keyed on the
    shapes and dtypes of exactly these tensors, so the binding can only confirm what the key already says: the
    flat list (``xs`` then ``cs``, the order the signature flattens to, then the function's captures) goes to
    the traced graph through its public ``inference_fn``. Anything else (a value that is not a tensor, a
    callable that is not a concrete function) takes the ordinary call and its checks. gradlib returns NumPy
    arrays, never tensors a tape could follow, so not recording the call on a tape loses nothing.
    """
    tf = sys.modules.get("tensorflow")   # loaded: ``function`` was traced by it (no import on a warm call)
    atomic = getattr(function, "inference_fn", None)
    if tf is None or atomic is None or not all(isinstance(t, tf.Tensor) for t in (*xs, *cs)):
        return function(xs, cs)
    return atomic.call_preflattened([*xs, *cs, *function.captured_inputs])


def fixed_caller(function: Any) -> Callable[[Sequence[Any], Sequence[Any]], Sequence[Any]] | None:
    """``call_traced`` for the warm calls of ``function`` (a concrete function from ``trace``), with what it reads
    again on every call read once: the flat list of its captures (each a tensor fixed at tracing, a constant or a
    variable's handle) and the packing of its outputs (a flat tuple of tensors: packing them gives them back in
    that order). 15 us of a warm ``per_element_gradients`` on the tall MLP. ``None`` when a capture is read at call
    time (a deferred capture, a callable) or the outputs are nested: then ``call_traced`` answers every call."""
    tf = sys.modules.get("tensorflow")
    atomic, captured = getattr(function, "inference_fn", None), getattr(function, "_captured_inputs", None)
    outputs = getattr(function, "structured_outputs", None)
    if (tf is None or atomic is None or captured is None or any(callable(c) for c in captured)
            or not isinstance(outputs, (tuple, list)) or not all(isinstance(o, tf.Tensor) for o in outputs)):
        return None
    captures = tuple(function.captured_inputs)
    if not all(isinstance(c, tf.Tensor) for c in captures):
        return None
    execute = _executor(atomic, getattr(function, "graph", None))

    def call(xs: Sequence[Any], cs: Sequence[Any]) -> Sequence[Any]:
        outputs = execute([*xs, *cs, *captures]) if execute is not None else None
        return outputs if outputs is not None else atomic.call_flat(*xs, *cs, *captures)

    return call


def _executor(atomic: Any, graph: Any = None) -> Callable[[list], Any] | None:
    """What ``call_flat`` of the traced function ``atomic`` runs, eagerly, once its checks are known to pass: the
    runtime's ``call_function`` of the function's name, on the flat inputs. ``call_flat`` reads the function's output
    types again (``function_type.flat_outputs``, twice) and enters three context managers (its error's context, the
    control captures, a paused tape) on every call: 40-50 us of a warm call on the tall MLP, interleaved with
    ``call_flat`` in one process. Here the count of outputs is read once, and the function is called only where
    ``call_flat`` would do exactly this: executing eagerly, no control captures (ops run before the call), and no
    output carrying handle data (a resource) to set. ``call_function`` records nothing on a tape (the caller of
    ``call_flat`` must, and gradlib returns NumPy), and an error is told as ``call_flat`` tells it (its
    ``InterpolateRuntimeError``: where in fn the failing op was made). ``None`` (``call_flat`` answers) where any of it
    cannot be read. ``graph``: the function's graph, read for ``inline_ops`` (then its calls take ``INLINE_EXECUTOR``).
    Outside a cancellation context it makes ``call_function``'s one ``execute`` itself, with the attributes read from
    the thread's call options as ``call_function`` reads them, and enters the error's context only for an error:
    a warm call's Python calls through here fell from 15 to 4 (``tests/perelement/test_warm.py`` counts them).
    """
    try:
        context, name = atomic._bound_context, atomic.name
        outputs = list(atomic.function_type.flat_outputs)
        if atomic._call_options.control_captures or any(o.dtype._handle_data for o in outputs):
            return None
        count, call_function = len(outputs), context.call_function
        interpolated = sys.modules[type(atomic).__module__].InterpolateRuntimeError
        run, cancellation = sys.modules["tensorflow.python.eager.execute"], sys.modules[
            "tensorflow.python.eager.cancellation"]
        options = context.function_call_options
        if not all(hasattr(o, a) for o, a in ((cancellation, "_active_context"), (options, "_executor_type"),
                                               (options, "_config_proto_serialized"))):
            return None
        default = INLINE_EXECUTOR if _inline(atomic, graph) else ""
        op = name.decode()
    except Exception:   # noqa: BLE001 - another TensorFlow's internals: the ordinary call
        return None

    def execute(flat: list) -> Any:
        if not context.executing_eagerly():
            return None
        try:   # ``with interpolated(atomic)`` entered only for an error: three Python calls fewer on every call
            if cancellation._active_context is not None:   # ``cancellation.context()``: call_function passes it on
                return call_function(name, flat, count)
            # ``call_function``'s call, its attributes read from the fields ``function_call_options.as_attrs()``
            # returns (six Python calls fewer): a caller's own executor type and config are kept
            options = context.function_call_options
            config = options._config_proto_serialized
            if config is None:
                config = options.as_attrs()["config_proto"]
            return run.execute(op, num_outputs=count, inputs=flat, ctx=context,
                               attrs=("executor_type", options._executor_type or default,
                                      "config_proto", config)) or None
        except BaseException:
            with interpolated(atomic):
                raise

    return execute


#: the runtime's executor that runs a function's kernels one after another on the calling thread (its default
#: executor hands each kernel to the inter-op thread pool and waits for it): the same kernels on the same device, so
#: the same numbers (each kernel still uses the device's intra-op threads), without the hand-offs. 60-65 us of the
#: 0.35 ms a warm call's graph took on the tall MLP and the 256-wide one, in interleaved calls
INLINE_EXECUTOR = "SINGLE_THREADED_EXECUTOR"

#: op types that executor runs as the default one does: synchronous kernels without state (or reading a variable,
#: as the default executor reads it once per call), no control flow, no call of another function, no send, receive
#: or collective (TensorFlow's ``single_threaded_executor.cc`` refuses the last three, and reference-typed edges)
INLINE_OPS = frozenset({
    "Placeholder", "Const", "Identity", "IdentityN", "NoOp", "ReadVariableOp",
    "Add", "AddV2", "AddN", "Sub", "Mul", "RealDiv", "Div", "DivNoNan", "Neg", "Square", "Sqrt", "Rsqrt", "Reciprocal",
    "Exp", "Expm1", "Log", "Log1p", "Tanh", "Sigmoid", "Sin", "Cos", "Abs", "Sign", "Pow", "Maximum", "Minimum",
    "SquaredDifference", "Erf", "Relu", "Relu6", "Elu", "Selu", "Softplus", "LeakyRelu", "Softmax", "LogSoftmax",
    "MatMul", "BatchMatMulV2", "BatchMatMulV3", "BiasAdd", "Sum", "Prod", "Mean", "Max", "Min", "Cast",
    "Greater", "GreaterEqual", "Less", "LessEqual", "Equal", "NotEqual", "LogicalAnd", "LogicalOr", "LogicalNot",
    "Select", "SelectV2", "ZerosLike", "OnesLike", "Reshape", "ExpandDims", "Squeeze", "StridedSlice", "Slice",
    "BroadcastTo", "Pack", "Unpack", "ConcatV2", "Transpose", "Tile", "Fill", "Shape", "GatherV2", "Range"})


def inline_ops(graph: Any) -> bool:
    """Whether every op of ``graph`` (a traced function's) is one of ``INLINE_OPS``: its calls may then take
    ``INLINE_EXECUTOR`` and give the default executor's numbers."""
    try:
        return all(op.type in INLINE_OPS for op in graph.get_operations())
    except Exception:   # noqa: BLE001 - not a graph that can be read: the default executor
        return False


def _inline(atomic: Any, graph: Any) -> bool:
    """Whether the calls of ``atomic`` may take ``INLINE_EXECUTOR``: XLA does not compile it and its ops are all
    ``inline_ops``."""
    attribute = atomic.attributes.get("_XlaMustCompile")
    return graph is not None and attribute is not None and not attribute.b and inline_ops(graph)


def polymorphic(fn: Callable) -> Any:
    """``fn`` as a ``tf.function`` that traces once per input shape it meets (``reduce_retracing``): for a graph a
    caller's own training step calls with batches of any size (``gradlib.pde``'s residual), where ``trace``'s one
    exact signature does not fit. No AutoGraph, as in ``trace``."""
    import tensorflow as tf   # here, not at the top: importing gradlib loads no TensorFlow

    return tf.function(fn, reduce_retracing=True, autograph=False)
