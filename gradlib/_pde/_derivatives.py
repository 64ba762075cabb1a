"""A network's derivatives by name, as tensors of shape ``(N,)``, differentiable with respect to its weights.

Only what is asked is computed. A derivative of order k is the gradient of one of order k - 1 along one
coordinate, so the asked ones and their ancestors form a tree: each node that has children costs one backward
pass (the gradient of its sum over the points with respect to ``x``), which gives its derivative along every
coordinate at once. ``u_x`` and ``u_t`` share ``u``'s pass; ``u_xx`` and ``u_xt`` share ``u_x``'s; no full
Hessian is formed. The gradient of a sum is each point's own gradient only when **the model does not mix
samples** (point i's output depends on point i's coordinates alone: no BatchNormalization in training mode, no
attention across points); ``gradlib.pde.check`` tests that once, eagerly.

For a Keras ``Sequential`` of Dense layers with forward rules, orders 1 and 2 come from one forward pass instead
(``_jet``: no tapes, the same numbers); the rest of this module is the general path. The passes run under nested
``tf.GradientTape``s (one per order) that watch ``x`` only: inside a caller's
tape they are recorded like any op, so the result is differentiable with respect to the weights, eagerly and
inside ``tf.function``. Nothing leaves TensorFlow (no ``.numpy()``).
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Sequence, TypeVar

import tensorflow as tf

from .._foundations._errors import ExpressionError, GradlibError, InputError, error_gist
from .._callable._trace import graph_cut
from .._second._runner import first_order_cut_error, refuse_first_order_cut
from ._jet import jet_kernels, jet_values
from ._names import Derivative, check_names, derivative

__all__ = ["Plan", "check_model", "check_x", "compute", "derivatives", "entry_point", "forward_columns", "plan",
           "split_outputs"]

#: a parent's children, by order: (output, along) -> its children's ``along``
Tree = dict[tuple[int, tuple[int, ...]], set[tuple[int, ...]]]


F = TypeVar("F", bound=Callable)


def entry_point(function: F) -> F:
    """A public function of ``gradlib.pde``, called inside a caller's ``tf.function``: AutoGraph leaves its code as
    written (``do_not_convert``), and a gradlib error leaves it as itself. Without ``ag_pass_through`` AutoGraph
    turns every exception raised under the caller's function into a ``StagingError`` "in user code", gradlib's
    refusal included: the caller could neither catch a ``GradlibError`` nor tell that gradlib refused."""
    @tf.autograph.experimental.do_not_convert
    @functools.wraps(function)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except GradlibError as exc:
            exc.ag_pass_through = True
            raise
    return run  # type: ignore[return-value]


class Plan:
    """What to compute: the derivatives asked (by name) and, per order, which nodes are differentiated."""

    def __init__(self, coords: tuple[str, ...], outputs: tuple[str, ...], wanted: tuple[Derivative, ...]):
        self.coords, self.outputs, self.wanted = coords, outputs, wanted
        self.order = max((len(d.along) for d in wanted), default=0)
        self.parents = _parents({(d.output, d.along) for d in wanted}, self.order)

    @property
    def passes(self) -> int:
        """The backward passes one call takes."""
        return sum(len(level) for level in self.parents)


def plan(coords: Any, outputs: Any, want: Any, api: str) -> Plan:
    """Check the names and decide which passes to take; refused (a gradlib error) before any work."""
    coords, outputs = check_names(coords, outputs, api)
    if isinstance(want, str) or not isinstance(want, Sequence) or not want:
        raise ExpressionError(f"{api}: want must be a non-empty list of names, like want=['u', 'u_x', 'u_xx']; "
                              f"got {want!r}")
    return Plan(coords, outputs, tuple(derivative(name, outputs, coords, api) for name in want))


@entry_point
def derivatives(model: Callable, x: Any, coords: Sequence[str] = ("x", "t"),
                want: Sequence[str] = ("u", "u_x", "u_t", "u_xx", "u_xt"), outputs: Sequence[str] | None = None
                ) -> dict[str, tf.Tensor]:
    """The values and derivatives of ``model`` at the points ``x`` named in ``want``, as tensors of shape ``(N,)``.

    Args:
        model: a Keras model or any callable taking ``x`` ``(N, len(coords))`` and returning ``(N,)``, ``(N, k)``
            (one column per output), a list of ``k`` such columns or a dict by output name. It must not mix
            points (``check`` tests it).
        x: the points, floating point, one column per coordinate: a tensor (symbolic inside ``tf.function``),
            an array or a nested list.
        coords: the coordinates' names, one per column of ``x``.
        want: names: an output (``u``), or an output, ``_`` and the coordinates to differentiate along, in any
            order (``u_x``, ``u_xx``, ``u_xt``, ``v_y``), up to order 4.
        outputs: the names of the model's outputs, in order (``("u", "v", "p")``); ``None``: one output ``u``.

    Returns:
        name -> ``tf.Tensor`` of shape ``(N,)`` in ``x``'s dtype (an output in the model's), differentiable with
        respect to the model's weights under the caller's ``tf.GradientTape``, eagerly or in ``tf.function``.

    Raises:
        ExpressionError: a name in ``coords``, ``outputs`` or ``want`` is not acceptable (before any work).
        InputError: ``x`` is not floating point, empty, or has not one column per coordinate (before any work).
        GradlibError: the model failed, or returned outputs that do not match ``outputs``.
    """
    api = "gradlib.pde.derivatives"
    plan_ = plan(coords, outputs, want, api)
    check_model(model, plan_, api)
    return compute(model, check_x(x, plan_.coords, api), plan_, api)


def _parents(nodes: set[tuple[int, tuple[int, ...]]], order: int) -> list[Tree]:
    """For each order k from 1, the nodes of order k - 1 to differentiate and the children each gives.

    Derivatives commute, so a node of order k has as many candidate parents as distinct coordinates in it;
    from the highest order down, the parent that serves the most nodes not yet served is taken first (u_xt and
    u_tt, without u_xx, share u_t's pass)."""
    levels: list[Tree] = [{} for _ in range(order)]
    needed = set(nodes)
    for k in range(order, 0, -1):
        todo = {n for n in needed if len(n[1]) == k}
        while todo:
            options: dict[tuple[int, tuple[int, ...]], set[tuple[int, ...]]] = {}
            for output, along in todo:
                for j in set(along):
                    rest = list(along)
                    rest.remove(j)
                    options.setdefault((output, tuple(rest)), set()).add(along)
            parent = max(sorted(options), key=lambda p: (p in needed, len(options[p])))
            levels[k - 1][parent] = options[parent]
            todo -= {(parent[0], a) for a in options[parent]}
            needed.add(parent)
    return levels


def check_x(x: Any, coords: tuple[str, ...], api: str) -> tf.Tensor:
    """``x`` as a floating tensor ``(N, len(coords))`` with N > 0 where its shape is known (a ``tf.function``'s
    input may leave N open)."""
    if not isinstance(x, tf.Tensor):
        try:
            x = tf.convert_to_tensor(x)
        except (TypeError, ValueError) as exc:
            raise InputError(f"{api}: x must be an array of shape (N, {len(coords)}) (one column per coordinate "
                             f"{', '.join(coords)}); it could not be read: {error_gist(exc)}") from None
    if not x.dtype.is_floating:
        raise InputError(f"{api}: x has dtype {x.dtype.name}; TensorFlow's gradient with respect to an integer or "
                         f"other non-float tensor is None, so no derivative would exist. Pass floats, like "
                         f"tf.cast(x, tf.float32)")
    if x.shape.rank != 2:
        raise InputError(f"{api}: x must have shape (N, {len(coords)}) (N points, one column per coordinate "
                         f"{', '.join(coords)}); got shape {tuple(x.shape)}")
    if x.shape[1] is not None and x.shape[1] != len(coords):
        raise InputError(f"{api}: x has {x.shape[1]} columns but coords names {len(coords)} "
                         f"({', '.join(coords)}): give one name per column of x, in order")
    if x.shape[0] == 0:
        raise InputError(f"{api}: x holds no points (shape {tuple(x.shape)}); give at least one")
    return x


def check_model(model: Any, plan_: Plan, api: str) -> None:
    """A Keras model whose one input or one output has a known width that ``coords`` or ``outputs`` does not fit:
    refused before any work (any other callable is checked on its answer)."""
    inputs, outputs = (_widths(getattr(model, attribute, None)) for attribute in ("inputs", "outputs"))
    if inputs is not None and inputs != len(plan_.coords):
        raise InputError(f"{api}: the model takes {inputs} input columns and coords names {len(plan_.coords)} "
                         f"({', '.join(plan_.coords)}): give one name per input column, in order")
    if outputs is not None and outputs != len(plan_.outputs):
        raise GradlibError(f"{api}: the model returns {outputs} output{'s' * (outputs != 1)} per point and outputs "
                           f"names {len(plan_.outputs)} ({', '.join(plan_.outputs)}): name each, in order, like "
                           f"outputs={tuple('uvpqrs'[:outputs]) if outputs <= 6 else ('u', 'v', '...')}")


def _widths(tensors: Any) -> int | None:
    """The width of a Keras model's one input or output ``(None, k)``; None when not that (or not known)."""
    try:
        shape = tuple(tensors[0].shape) if isinstance(tensors, (list, tuple)) and len(tensors) == 1 else ()
    except (AttributeError, TypeError, ValueError):
        return None
    return shape[1] if len(shape) == 2 and isinstance(shape[1], int) else None


def split_outputs(y: Any, outputs: tuple[str, ...], points: int | None, api: str) -> list[tf.Tensor]:
    """The model's answer as one ``(N,)`` tensor per output: a tensor ``(N,)`` or ``(N, len(outputs))``, a list
    of ``(N,)``/``(N, 1)`` tensors in ``outputs`` order, or a dict holding each output by name."""
    if isinstance(y, dict):
        missing = [name for name in outputs if name not in y]
        if missing:
            raise GradlibError(f"{api}: the model returns the outputs {', '.join(map(str, y))}, not "
                               f"{', '.join(missing)}: name them in outputs=")
        parts = [y[name] for name in outputs]
    elif isinstance(y, (list, tuple)):
        parts = list(y)
        if len(parts) != len(outputs):
            raise GradlibError(f"{api}: the model returns {len(parts)} outputs and outputs names {len(outputs)} "
                               f"({', '.join(outputs)}): give one name per output, in order")
    else:
        y = tf.convert_to_tensor(y)
        width = 1 if y.shape.rank == 1 else (y.shape[1] if y.shape.rank == 2 else None)
        if width != len(outputs):
            have = f"shape {tuple(y.shape)}" if width is None else f"{width} output{'s' * (width != 1)} per point"
            raise GradlibError(f"{api}: the model returns {have} and outputs names {len(outputs)} "
                               f"({', '.join(outputs)}): the model must return (N,) or (N, k) with k = "
                               f"len(outputs); name its columns with outputs=")
        parts = [y] if y.shape.rank == 1 else [y[:, k] for k in range(width)]
    return [_column(part, name, points, api) for part, name in zip(parts, outputs)]


def _column(part: Any, name: str, points: int | None, api: str) -> tf.Tensor:
    part = tf.convert_to_tensor(part)
    if part.shape.rank == 2 and part.shape[1] == 1:
        part = part[:, 0]
    if part.shape.rank != 1 or None not in (points, part.shape[0]) and part.shape[0] != points:
        raise GradlibError(f"{api}: the model's output {name!r} has shape {tuple(part.shape)}; for {points} points "
                           f"it must be ({points},) or ({points}, 1), one value per point")
    if not part.dtype.is_floating:
        raise GradlibError(f"{api}: the model's output {name!r} has dtype {part.dtype.name}; a derivative needs a "
                           "floating-point output")
    return part


def compute(model: Callable, x: tf.Tensor, plan_: Plan, api: str, jet: bool = True) -> dict[str, tf.Tensor]:
    """Each asked derivative of ``model`` at ``x``, by name (the tensors stay on the caller's tapes): by the forward
    jet where it applies (``jet=False``: never), else by nested tapes."""
    kernels = jet_kernels(model, plan_) if jet else []
    if kernels:
        return jet_values(kernels, x, plan_)
    values: dict[tuple[int, tuple[int, ...]], tf.Tensor] = {}
    tapes = [tf.GradientTape(persistent=True, watch_accessed_variables=False) for _ in range(plan_.order)]
    open_: list[tf.GradientTape] = []
    try:
        for tape in reversed(tapes):   # the outermost records the most: every pass below it
            open_.append(tape.__enter__())
            tape.watch(x)
        since = 0 if tf.executing_eagerly() else len(tf.compat.v1.get_default_graph().get_operations())
        for k, column in enumerate(forward_columns(model, x, plan_.outputs, api)):
            values[k, ()] = column
        if plan_.order >= 2:
            _refuse_first_order_cut(model, x, api, since)
        for tape, level in zip(tapes, plan_.parents):
            open_.pop().__exit__(None, None, None)   # this order's tape stops; the ones above record its passes
            _differentiate(tape, x, level, values)
    finally:
        while open_:
            open_.pop().__exit__(None, None, None)
    return {d.name: values[d.output, d.along] for d in plan_.wanted}


def _refuse_first_order_cut(model: Callable, x: tf.Tensor, api: str, since: int) -> None:
    """Refuse second derivatives through ``tf.nn.moments``' stop_gradient (a Keras LayerNormalization): read from the
    ops the model's call added to the graph being traced (from the ``since``-th: not the rest of the user's step; no
    extra trace), or eagerly from one trace per model."""
    if tf.executing_eagerly():
        refuse_first_order_cut(api, model, (None,) + tuple(x.shape[1:]), x.dtype, _hashable(("pde", model)))
        return
    name = graph_cut(tf.compat.v1.get_default_graph(), since)
    if name:
        raise first_order_cut_error(api, name)


def _hashable(key: Any) -> Any:
    """``key`` when it can key a cache, else ``None`` (then nothing is cached)."""
    try:
        hash(key)
    except TypeError:
        return None
    return key


def forward_columns(model: Callable, x: tf.Tensor, outputs: tuple[str, ...], api: str) -> list[tf.Tensor]:
    """One call of ``model`` on ``x``, its outputs split into one ``(N,)`` column per name in ``outputs``."""
    try:
        y = model(x)
    except Exception as exc:   # noqa: BLE001 - the user's model failed: say so, with its message
        raise GradlibError(f"{api}: the model failed on x of shape {tuple(x.shape)}: {type(exc).__name__}: "
                           f"{error_gist(exc)}") from exc
    return split_outputs(y, outputs, x.shape[0], api)


def _differentiate(tape: tf.GradientTape, x: tf.Tensor, level: Tree, values: dict) -> None:
    """One backward pass per parent: the gradient of its sum, each child one column (taken while the tapes of
    the higher orders record, so that they can differentiate it again)."""
    for (output, along), children in level.items():
        gradient = tape.gradient(values[output, along], x, unconnected_gradients=tf.UnconnectedGradients.ZERO)
        for child in children:
            values[output, child] = gradient[:, _added(along, child)]


def _added(parent: tuple[int, ...], child: tuple[int, ...]) -> int:
    """The coordinate ``child`` adds to ``parent``."""
    rest = list(child)
    for k in parent:
        rest.remove(k)
    return rest[0]
