"""Whether a user's function is random: another output at every call, so another derivative at every call.

Dropout or GaussianNoise called with ``training=True``, Keras' RandomFlip or RandomRotation in training mode,
``tf.random.normal`` inside fn, a ``tf.random.Generator`` it holds: each call draws anew. A method that calls fn
once and differentiates that call (a ``batch_jacobian``, nested tapes) gives the derivatives of that one draw. A
method that calls fn several times and combines the results (one tape per sample, forward over reverse on copies of
the batch, Hutchinson's probes, a repair of NaN cells in another mode) mixes draws: numbers no draw has (a
Laplacian that is 0 or 16 for every draw came out 4.0 and 7.75). Such methods refuse a random fn by name.

``is_random`` reads fn's trace first (``random_op``: a random op of TensorFlow, or a stateless one seeded from a
variable the trace also writes, as Keras' SeedGenerator is, followed into the functions it calls): a function that
draws one coin per call escaped two calls half the time, and "not random" was then remembered. Where the trace has
none (or fn cannot be traced) it calls fn twice on the same first ``PROBE_SAMPLES`` samples and compares the outputs,
as ``per_element_gradients``' check does (``gradlib._perelement._probe``: "fn is random"). The verdict is remembered
per function (its ``callable_key``: the values it reads) and sample shape, so a warm call pays nothing; a function
that has no key is probed on every call that asks. ``draws_random`` reads what an object holds instead (a Keras
``SeedGenerator`` or a ``tf.random.Generator`` in any attribute of any of its layers): for a model that is only
random in training mode, which a per-example API runs it in.

>>> import tensorflow as tf
>>> is_random(lambda x: x + tf.random.normal(tf.shape(x)), tf.zeros((4, 2)))
True
>>> is_random(lambda x: x * x, tf.ones((4, 2)))
False
"""

from __future__ import annotations

from typing import Any, Callable, Hashable

import numpy as np
import tensorflow as tf

from .._foundations._cache import LRUCache
from ._state import callable_key
from ._trace import trace

__all__ = ["PROBE_SAMPLES", "RANDOM", "RANDOM_OPS", "draws_random", "is_random", "random_objects", "random_op",
           "updated_read"]

#: the samples the two probing calls of fn take (the first ones of the batch)
PROBE_SAMPLES = 8
#: the words every API opens its refusal or warning of a random fn with (``per_element_gradients``' own)
RANDOM = ("fn is random: two calls at the same point gave different outputs, or its graph draws random numbers "
          "(Dropout or another random layer with training=True?)")
#: TensorFlow's ops that draw anew at every run: their state is in the op (``tf.random.uniform``) or a resource
#: (``tf.random.Generator``: ``RngReadAndSkip``, the older ``Stateful*``)
RANDOM_OPS = frozenset({
    "RandomUniform", "RandomUniformInt", "RandomStandardNormal", "TruncatedNormal", "ParameterizedTruncatedNormal",
    "Multinomial", "RandomShuffle", "RandomGamma", "RandomPoisson", "RandomPoissonV2", "RandomCrop",
    "NonDeterministicInts", "RngReadAndSkip", "RngSkip", "StatefulUniform", "StatefulUniformInt",
    "StatefulUniformFullInt", "StatefulStandardNormal", "StatefulStandardNormalV2", "StatefulTruncatedNormal",
    "StatefulRandomBinomial", "SampleDistortedBoundingBox", "SampleDistortedBoundingBoxV2"})
#: the stateless random ops (``tf.random.stateless_*``): the same numbers for the same seed
_STATELESS = ("StatelessRandom", "StatelessTruncatedNormal", "StatelessMultinomial",
              "StatelessParameterizedTruncatedNormal")
#: the ops that write a variable (their first input), by name or prefix: ``assign``, ``assign_add``, ``scatter_*``, an
#: optimizer's ``ResourceApply*``; a seed read from a variable the same function writes changes at every call
_WRITES = ("AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp", "ResourceScatter", "ResourceApply",
           "ResourceSparseApply", "ResourceStridedSliceAssign")
#: (fn's key, a sample's shape, dtype) -> whether two calls of fn differed
_VERDICTS = LRUCache(maxsize=128)
#: ``is_random``'s default key: fn's own ``callable_key`` (a key of ``None`` means "not remembered")
_OWN = object()


def is_random(fn: Callable, x: tf.Tensor, key: Hashable | None = _OWN) -> bool:
    """Whether two calls of ``fn`` on the first ``PROBE_SAMPLES`` samples of the batch ``x`` give different outputs
    (beyond 100 ulps); remembered per ``key`` (``callable_key(fn)`` when not given; ``None``: not remembered) and
    sample shape. A call that fails is not this check's to report: the API's own call of fn says so."""
    key = callable_key(fn, "random") if key is _OWN else key
    probe = lambda: bool(_traced_random(fn, x[:PROBE_SAMPLES])) or _differ(fn, x[:PROBE_SAMPLES])  # noqa: E731
    if key is None:
        return probe()
    return _VERDICTS.get_or_create((key, tuple(x.shape[1:]), x.dtype.name), probe)


def _traced_random(fn: Callable, x: tf.Tensor) -> str:
    """``random_op`` of fn traced on ``x``'s shape, or ``""`` where fn cannot be traced (the two calls decide)."""
    try:
        graph = trace(fn, [tf.TensorSpec(x.shape, x.dtype)]).graph
    except Exception:   # noqa: BLE001 - NumPy on a tensor, say: no graph to read
        return ""
    return random_op(graph)


def random_op(graph: Any) -> str:
    """The name of an op in ``graph`` (or a function it calls: a while_loop's body, a ``tf.function`` inside) that
    draws anew at every run, or ``""``: one of ``RANDOM_OPS``, or a stateless random op whose seed is read from a
    variable the same function writes (Keras' ``SeedGenerator``: Dropout, ``keras.random``). A stateless op with a
    constant seed (or one computed from the input) gives the same numbers at every call and is not random. A draw
    the output ignores (``0 * tf.random.normal(...)``) is random here: the trace does not say which draws matter,
    and a rare coin (``uniform < 0.999``) would escape any number of calls: a refusal is better than mixed draws.

    >>> random_op(trace(lambda x: x + tf.random.normal([2]), [tf.TensorSpec([2])]).graph) != ""
    True
    >>> random_op(trace(lambda x: x + tf.random.stateless_normal([2], seed=[1, 2]), [tf.TensorSpec([2])]).graph)
    ''
    """
    flow = _Flow(graph.as_graph_def())
    for body, nodes in flow.bodies.items():
        for node in nodes.values():
            if node.op in RANDOM_OPS:
                return node.name
            if node.op.startswith(_STATELESS) and flow.written and flow.reads_written(body, node):
                return node.name
    return ""


def _base(name: str) -> str:
    return name.lstrip("^").split(":")[0]


#: the ops whose first input is not passed to the function they call (the branch index or predicate)
_BRANCHES = ("If", "StatelessIf", "Case", "StatelessCase")


class _Flow:
    """The data flow of a graph and the functions it calls (a ``tf.function`` inside, a while_loop's body), across
    their boundaries: a function's argument is what its callers pass (a seed read from a variable in the outer
    graph and passed into a nested ``tf.function``, or the variable itself, read there: hunt 48 found both missed
    when each body was read alone). Each body's nodes by name (``""`` is the graph itself); ``written``: the
    variables any body writes, as the graph's own resources they are (``roots``)."""

    def __init__(self, graph_def: Any) -> None:
        library = {function.signature.name: function for function in graph_def.library.function}
        self.bodies = {"": {node.name: node for node in graph_def.node}}
        self.args: dict[str, list[str]] = {"": []}
        self.rets: dict[str, list[str]] = {"": []}   # the values each function returns
        for name, function in library.items():
            self.bodies[name] = {node.name: node for node in function.node_def}
            self.args[name] = [arg.name for arg in function.signature.input_arg]
            self.rets[name] = [_base(value) for value in function.ret.values()]
        self.callers: dict[tuple[str, str], list[tuple[str, str]]] = {}
        for body, nodes in self.bodies.items():
            for node in nodes.values():
                self._calls(body, node, library)
        self.written = {root for body, nodes in self.bodies.items() for node in nodes.values()
                        if node.op.startswith(_WRITES) and node.input
                        for root in self.roots(body, _base(node.input[0]))}

    def _calls(self, body: str, node: Any, library: dict) -> None:
        """Record which of ``body``'s values each function ``node`` calls takes as its arguments."""
        data = [_base(name) for name in node.input if not name.startswith("^")][node.op in _BRANCHES:]
        for value in node.attr.values():
            callee = value.func.name
            if callee in library:
                for arg, given in zip(self.args[callee], data):
                    self.callers.setdefault((callee, arg), []).append((body, given))

    def roots(self, body: str, name: str) -> set[tuple[str, str]]:
        """The values of the graph (or of bodies no one calls) that ``name`` in ``body`` is: an argument is what
        each caller passes, followed up."""
        out, stack, seen = set(), [(body, name)], set()
        while stack:
            item = stack.pop()
            if item in seen:
                continue
            seen.add(item)
            passed = self.callers.get(item) if item[1] in self.args[item[0]] else None
            if passed:
                stack.extend(passed)
            else:
                out.add(item)
        return out

    def reads_written(self, body: str, node: Any) -> bool:
        """Whether ``node`` depends, through data inputs in its body and the arguments its body's callers pass, on a
        variable ``written`` (read in any body, or passed to a function whose output it takes)."""
        seen, stack = set(), [(body, node)]
        while stack:
            where, current = stack.pop()
            for name in current.input:
                if name.startswith("^"):
                    continue
                for root in self.roots(where, _base(name)):
                    if root in self.written:
                        return True
                    if root not in seen and root[1] in self.bodies[root[0]]:
                        seen.add(root)
                        stack.append((root[0], self.bodies[root[0]][root[1]]))
        return False


def updated_read(graph: Any) -> str:
    """The name of the graph's own value (a captured variable's handle) that the graph writes and also reads into one
    of its outputs, or ``""``: a function whose output depends on a variable it updates (``n.assign_add(1)`` then
    ``z * n``, or ``z * n`` then the update) gives another output at every call, so every call of the many an API
    makes computes another function, and each moves the user's state. Followed into the functions it calls (a
    ``tf.function`` inside, a while_loop's body, a cond's branches) and out through what they return.

    Not such a read: a variable written and read only into its own update (BatchNormalization's moving statistics in
    training mode, a metric's totals, a call counter the output ignores: the answer is every call's), or a seed read
    into a stateless random op (Keras' ``SeedGenerator``: ``random_op``'s, a random fn's refusal).

    >>> import tensorflow as tf
    >>> n = tf.Variable(0.0)
    >>> updated_read(trace(lambda z: z * n.assign_add(1.0), [tf.TensorSpec([2])]).graph) != ""
    True
    >>> updated_read(trace(lambda z: [n.assign_add(1.0), z * 2.0][1], [tf.TensorSpec([2])]).graph)
    ''
    """
    flow = _Flow(graph.as_graph_def())
    if not flow.written:
        return ""
    stack, seen = [("", _base(t.name)) for t in graph.outputs], set()
    while stack:
        body, name = stack.pop()
        node = flow.bodies[body].get(name)
        if (body, name) in seen or node is None or node.op.startswith(_STATELESS):
            continue
        seen.add((body, name))
        callees = [value.func.name for value in node.attr.values() if value.func.name and value.func.name in flow.rets]
        for callee in callees:
            stack.extend((callee, ret) for ret in flow.rets[callee])
        for given in (_base(i) for i in node.input if not i.startswith("^")):
            for root in flow.roots(body, given):
                if root in flow.written and not callees and not node.op.startswith(_WRITES):
                    return root[1]
                stack.append(root)
    return ""


def _differ(fn: Callable, x: tf.Tensor) -> bool:
    try:
        first, second = (_flat(fn(x)) for _ in range(2))
    except Exception:   # noqa: BLE001 - fn failed: the API's own call of fn reports it
        return False
    if first.shape != second.shape:
        return True
    same = (first == second) | (np.isnan(first) & np.isnan(second))   # inf == inf, NaN where both are
    eps = float(np.finfo(np.float32).eps)
    with np.errstate(invalid="ignore", over="ignore"):
        gap = np.where(same, 0.0, np.abs(first - second) - 100 * eps * np.maximum(1.0, np.abs(first)))
    return bool(np.nan_to_num(gap, nan=1.0).max(initial=0.0) > 0)


def _flat(y: Any) -> np.ndarray:
    """Every floating-point output of fn (a tensor, a list or dict of them), flattened into one float64 array."""
    parts = [np.asarray(t, np.float64).ravel() for t in tf.nest.flatten(y)
             if np.issubdtype(np.asarray(t).dtype, np.floating)]
    return np.concatenate(parts) if parts else np.zeros(0)


def random_objects(obj: Any) -> tuple[str, ...]:
    """The names of the layers of ``obj`` (itself included) that hold a Keras ``SeedGenerator`` or a
    ``tf.random.Generator`` in an attribute (Dropout's ``seed_generator``, RandomFlip's ``generator``, a layer of
    one's own with a generator under any name): each draws random numbers when it runs in training mode."""
    layers = [obj] + list(_layers(obj))
    return tuple(dict.fromkeys(str(getattr(layer, "name", type(layer).__name__)) for layer in layers
                               if _holds_generator(layer)))


def draws_random(obj: Any) -> bool:
    """Whether ``random_objects(obj)`` names any layer."""
    return bool(random_objects(obj))


def _layers(obj: Any) -> list:
    flatten = getattr(obj, "_flatten_layers", None)
    try:
        return list(flatten(include_self=False, recursive=True)) if flatten else list(getattr(obj, "layers", []))
    except (TypeError, AttributeError):
        return []


#: the attributes that say how much a Keras layer draws: all zero (an LSTM's ``dropout=0.0``), it draws nothing
RATES = ("rate", "dropout", "recurrent_dropout", "stddev")


def _holds_generator(layer: Any) -> bool:
    """Whether ``layer`` holds a generator in an attribute (or a list of them), and draws with it (a rate not 0)."""
    kinds = _generator_kinds()
    try:
        values = list(vars(layer).values())
    except TypeError:   # no __dict__
        return False
    rates = [getattr(layer, name) for name in RATES if isinstance(getattr(layer, name, None), (int, float))]
    if rates and not any(rates):
        return False
    for value in values:   # a plain loop: a generator expression per value cost ~70 us a layer on every call
        if isinstance(value, kinds):
            return True
        if isinstance(value, (list, tuple)) and any(isinstance(item, kinds) for item in value[:64]):
            return True
    return False


def _generator_kinds() -> tuple[type, ...]:
    kinds: list[type] = [tf.random.Generator]
    try:
        import keras
        kinds.append(keras.random.SeedGenerator)
    except (ImportError, AttributeError):   # no Keras 3: TensorFlow's generator is all there is
        pass
    return tuple(kinds)
