"""Per-example gradients of a training loss with respect to a Keras model's weights, and their norms.

``tape.gradient(loss, model.trainable_variables)`` gives the gradient of the *summed* loss; a Python loop
over the examples is hundreds of times slower. Here one forward pass records, for every layer with a rule in
``_ghost`` (Dense, Embedding, Conv1D/2D, normalization), the layer's input and its pre-activation output ``z``;
one backward pass of the summed loss gives ``dL_i/dz_i`` for every example at once (example ``i``'s loss
depends on no other example's ``z``), and each layer's rule turns that into per-example gradient norms (or,
when asked, the gradients). Variables of any other layer take a vectorized per-example path (``tape.jacobian``
of the loss vector, with pfor), which is always correct, only slower. A model whose examples are not
independent (BatchNormalization in training mode) has no per-example gradients and is refused.

>>> import keras
>>> model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1, use_bias=False)])
>>> model.set_weights([np.array([[1.0], [2.0]], np.float32)])
>>> r = per_example_gradients(model, [[1.0, 0.0], [0.0, 3.0]], [0.0, 0.0], loss=lambda y, p: 0.5 * p[:, 0] ** 2)
>>> r.losses.tolist(), r.norms.tolist(), r.method
([0.5, 18.0], [1.0, 18.0], 'layerwise')
>>> [g.tolist() for g in r.gradients]    # example 0: p * x = 1 * [1, 0]; example 1: 6 * [0, 3]
[[[[1.0], [0.0]], [[0.0], [18.0]]]]
"""

from __future__ import annotations

import functools
import inspect
import math
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Hashable

import keras
import numpy as np
import tensorflow as tf

from . import _runtime, _structure
from ._cache import LRUCache
from ._errors import BatchMixingError, ExpressionError, GradlibError, error_gist
from ._format import format_number
from ._ghost import Capture, accepts, rule_for
from ._limits import LIMITS, Limits

__all__ = ["PerExampleResult", "Plan", "check_floats", "loss_vector", "losses_and_norms", "per_example_gradients",
           "per_example_terms", "weighted_gradient"]

#: how many examples the independence probe runs jointly and one by one
PROBE_EXAMPLES = 3
#: compiled per-batch functions kept per process (each holds its model)
_COMPILED = LRUCache(maxsize=32)


@dataclass(frozen=True)
class Plan:
    """How a model's per-example gradients are computed; decided when the per-batch function is traced.

    ``method``: ``ghost`` (norms from the per-layer rules, no per-example gradient materialized), ``layerwise``
    (per-example gradients from the per-layer rules), ``pfor`` / ``while_loop`` (``tape.jacobian`` of the loss
    vector, vectorized or looped), joined by ``+`` when both kinds ran. ``fallback``: the layers whose variables
    took the jacobian path. ``floats_per_example``: what the computation allocates per example, at most.
    """

    method: str
    fallback: tuple[str, ...]
    floats_per_example: int


@dataclass(frozen=True, eq=False)
class PerExampleResult:
    """Per-example losses, gradient norms and (unless ``norms_only``) gradients, as NumPy data.

    ``gradients[k][i]`` is example ``i``'s gradient of its loss with respect to ``model.trainable_variables[k]``;
    ``norms[i]`` the L2 norm of example ``i``'s gradient over all trainable variables together.
    """

    losses: np.ndarray
    norms: np.ndarray
    gradients: list[np.ndarray] | None
    method: str
    variable_names: tuple[str, ...]
    fallback: tuple[str, ...]
    seconds: float
    warnings: tuple[str, ...] = ()
    _reweighted: Callable[[np.ndarray], list[np.ndarray]] | None = field(default=None, repr=False)

    @property
    def batch_size(self) -> int:
        return int(self.losses.shape[0])

    def clip_factors(self, clip_norm: float) -> np.ndarray:
        """``min(1, clip_norm / ||g_i||)`` per example (1 for a zero gradient): what DP-SGD scales each by."""
        clip_norm = _check_clip_norm(clip_norm)
        with np.errstate(divide="ignore"):
            return np.where(self.norms > clip_norm, clip_norm / self.norms, 1.0)

    def clipped_mean(self, clip_norm: float) -> list[np.ndarray]:
        """DP-SGD's clipped mean (without noise): ``mean_i g_i * min(1, clip_norm / ||g_i||)``, per variable.

        From the stored gradients when there are any, otherwise with one re-weighted backward pass of the
        whole batch (the gradient of ``sum_i w_i L_i``), not one per example. ``clip_norm=np.inf`` gives the
        plain mean gradient. With ``training=True`` and random layers (Dropout), that pass draws new randomness,
        as a second pass does in TensorFlow Privacy's fast clipping; stored gradients do not.
        """
        weights = self.clip_factors(clip_norm) / self.batch_size
        if self.gradients is not None:
            return [np.tensordot(weights.astype(g.dtype), g, axes=1) for g in self.gradients]
        if self._reweighted is None:
            raise GradlibError("this PerExampleResult has neither gradients nor its model: compute it again")
        return self._reweighted(weights)

    def mean(self) -> list[np.ndarray]:
        """The plain mean of the per-example gradients (the batch gradient of the mean loss), per variable."""
        return self.clipped_mean(np.inf)


def per_example_gradients(model: Any, x: Any, y: Any, *, loss: Any = None, loss_weights: Any = None,
                          norms_only: bool = False, training: bool = False,
                          limits: Limits = LIMITS) -> PerExampleResult:
    """Each example's loss, gradient norm and gradient with respect to ``model.trainable_variables``.

    Args:
        model: a Keras model (Sequential, functional or subclassed); layers without a fast rule are handled by
            the vectorized path.
        x: the batch as the model takes it, ``(B, ...)``: floats, or integer token ids for an Embedding; for a
            model with several inputs a list of such arrays (in the order of ``model.inputs``) or a dict keyed by
            input name, as ``model.fit`` takes them.
        y: the targets, ``(B, ...)``; for a model with several outputs a list or a dict keyed by output name.
        loss: a Keras loss object (its unreduced values, averaged over any axes after the batch axis, are the
            per-example losses; its ``reduction`` is not used), a callable ``(y_true, y_pred) -> (B,)``, a Keras
            loss name (``"sparse_categorical_crossentropy"``), or one of these per output (a list, or a dict keyed
            by output name). ``None``: the loss the model was compiled with.
        loss_weights: for a model with several outputs, one weight per output (a list or dict): example ``i``'s
            loss is ``sum_k loss_weights[k] * L_k``, as Keras adds them. ``None``: the compiled weights, or 1.
        norms_only: compute the losses and norms only (the fast path; ``gradients`` is ``None``).
        training: the ``training`` argument of the model's layers (Dropout active, BatchNormalization refused).
        limits: ``max_elements`` bounds ``x`` and ``y``; ``max_jacobian`` the floats allocated per batch.

    Returns:
        A ``PerExampleResult``.

    Example:
        >>> import keras
        >>> model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
        >>> loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        >>> r = per_example_gradients(model, np.ones((4, 3), np.float32), [0, 1, 0, 1], loss=loss)
        >>> r.losses.shape, r.norms.shape, [g.shape for g in r.gradients]
        ((4,), (4,), [(4, 3, 2), (4, 2)])

    Raises:
        ExpressionError: a request over the limits (a kind of ``GradlibError``).
        GradlibError: a bad model, batch or loss.
        BatchMixingError: an example's loss depends on other examples (BatchNormalization in training mode).
    """
    _check_model(model)
    xt, yt = _check_batch(model, x, y, limits)
    loss = _check_loss(model, loss, loss_weights, yt)
    kind = "norms" if norms_only else "gradients"
    with _runtime.work_slot():
        start = time.perf_counter()
        compiled, plan = _compiled(model, loss, kind, bool(training), xt, yt)
        check_floats(plan, _structure.batch_size(xt), limits, "per_example_gradients", "for this batch",
                     "Use a smaller batch" + ("" if plan.method.startswith("ghost") else " or norms_only=True"))
        out = compiled(xt, yt)
        losses, norms = out[0].numpy(), out[1].numpy()
        grads = [t.numpy() for t in out[2:]] if kind == "gradients" else None
        seconds = time.perf_counter() - start
    reweighted = None if grads is not None else functools.partial(_reweighted, model, loss, bool(training), xt, yt)
    return PerExampleResult(losses=losses, norms=norms, gradients=grads, method=plan.method,
                            variable_names=tuple(v.path for v in model.trainable_variables), fallback=plan.fallback,
                            seconds=seconds, warnings=_warnings(losses, norms), _reweighted=reweighted)


# ---------------------------------------------------------------- the per-batch computation (traceable)


def per_example_terms(model: Any, loss: Any, x: tf.Tensor, y: tf.Tensor, *, training: bool = False,
                      gradients: bool = False) -> tuple[tf.Tensor, tf.Tensor, list[tf.Tensor] | None, Plan]:
    """``(losses, norms, gradients or None, plan)`` of one batch, as tensors: runs inside ``tf.function``.

    One forward pass through the model's layers (each rule's layer run by its rule), one backward pass of the
    summed loss to each rule's ``z``, each rule's norms or gradients, and ``tape.jacobian`` of the loss vector
    for the variables no rule covers. Call it inside a ``tf.function`` (or ``strategy.run``); the model must be
    built. The ``plan`` is plain Python, fixed at trace time.
    """
    recorder = _Recorder(training)
    with tf.GradientTape(persistent=True) as tape:
        outputs = recorder.run(model, x)
        losses = loss_vector(loss, y, outputs)
        total = tf.reduce_sum(losses)
    claimed, fallback = recorder.split(model)
    dz = tape.gradient(total, [c.z for c in claimed], unconnected_gradients=tf.UnconnectedGradients.ZERO)
    jacobians, how = _jacobians(tape, losses, fallback)
    if gradients:
        by_variable = {id(v): j for v, j in zip(fallback, jacobians)}
        for c, g in zip(claimed, dz):
            by_variable.update(zip(map(id, c.rule.variables(c.layer)), c.rule.gradients(c.layer, c.a, g)))
        grads = [tf.cast(by_variable[id(v)], losses.dtype) for v in model.trainable_variables]
        norm_sq = tf.add_n([_row_sq(t) for t in grads])
    else:
        grads = None
        terms = [c.rule.norm_sq(c.layer, c.a, g) for c, g in zip(claimed, dz)] + [_row_sq(j) for j in jacobians]
        norm_sq = tf.add_n([tf.cast(t, losses.dtype) for t in terms])
    plan = _plan(model, claimed, fallback, how, gradients)
    return losses, tf.sqrt(norm_sq), grads, plan


def losses_and_norms(model: Any, loss: Any, x: tf.Tensor, y: tf.Tensor, *,
                     training: bool = False) -> tuple[tf.Tensor, tf.Tensor]:
    """Each example's loss and gradient norm, ``(B,)`` tensors each: the per-batch step, for ``tf.function``.

    The fast path of ``per_example_gradients(..., norms_only=True)`` without its checks, caches or NumPy:
    call it inside your own ``tf.function`` or ``strategy.run`` (the model must be built, the batch mixing
    check is yours). ``per_example_terms`` also gives the gradients and the plan.
    """
    losses, norms, _, _ = per_example_terms(model, loss, x, y, training=training)
    return losses, norms


def weighted_gradient(model: Any, loss: Any, x: tf.Tensor, y: tf.Tensor, weights: tf.Tensor, *,
                      training: bool = False) -> list[tf.Tensor]:
    """The gradient of ``sum_i weights[i] * L_i`` per trainable variable: one backward pass (traceable).

    With ``weights = min(1, C / ||g_i||) / B`` this is DP-SGD's clipped mean gradient (before noise).
    """
    with tf.GradientTape() as tape:
        losses = loss_vector(loss, y, model(x, training=training))
        total = tf.reduce_sum(tf.stop_gradient(tf.cast(weights, losses.dtype)) * losses)
    grads = tape.gradient(total, model.trainable_variables)   # ZERO here fails on a Keras variable's string dtype
    # a variable the loss does not reach (an output without a loss) gets zeros; an Embedding's IndexedSlices a tensor
    return [tf.zeros(v.shape, v.dtype) if g is None else tf.convert_to_tensor(g)
            for v, g in zip(model.trainable_variables, grads)]


def loss_vector(loss: Any, y_true: Any, y_pred: Any) -> tf.Tensor:
    """The per-example losses ``(B,)``: a Keras loss unreduced (mean over axes after the batch), or a callable's;
    for a ``PerOutputLoss``, the weighted sum of each output's."""
    if isinstance(loss, _structure.PerOutputLoss):
        return loss.total(y_true, y_pred, loss_vector)
    if isinstance(loss, keras.losses.Loss):
        values = tf.convert_to_tensor(loss.call(keras.ops.convert_to_tensor(y_true, dtype=loss.dtype),
                                                keras.ops.convert_to_tensor(y_pred, dtype=loss.dtype)))
        if values.shape.rank is not None and values.shape.rank > 1:
            values = tf.reduce_mean(values, axis=list(range(1, values.shape.rank)))
    else:
        try:
            values = tf.convert_to_tensor(loss(y_true, y_pred))
        except (TypeError, ValueError, tf.errors.InvalidArgumentError) as exc:
            raise GradlibError(f"per_example_gradients: the loss failed on y_true of shape {tuple(y_true.shape)} and "
                               f"y_pred of shape {tuple(y_pred.shape)}: {error_gist(exc)}") from exc
    if values.shape.rank != 1:
        raise GradlibError(
            f"per_example_gradients needs one loss per example, shape (B,), but the loss returned shape "
            f"{tuple(values.shape)}. Reduce the other axes in your loss, e.g. tf.reduce_mean(..., axis=-1)")
    if not values.dtype.is_floating:
        raise GradlibError(f"per_example_gradients: the loss must return floating-point values, not {values.dtype.name}")
    return values


def _row_sq(t: tf.Tensor) -> tf.Tensor:
    """Each example's sum of squares: ``(B, ...) -> (B,)``."""
    t = tf.reshape(t, [tf.shape(t)[0], -1])
    return tf.reduce_sum(tf.square(t), axis=1)


def _jacobians(tape: tf.GradientTape, losses: tf.Tensor, variables: list) -> tuple[list[tf.Tensor], str]:
    """``tape.jacobian(losses, variables)``: vectorized with pfor, or a while_loop where pfor cannot go."""
    if not variables:
        return [], ""
    zero = tf.UnconnectedGradients.ZERO
    try:
        return tape.jacobian(losses, variables, unconnected_gradients=zero, experimental_use_pfor=True), "pfor"
    except (ValueError, NotImplementedError, tf.errors.OpError):
        return tape.jacobian(losses, variables, unconnected_gradients=zero, experimental_use_pfor=False), "while_loop"


def _plan(model: Any, claimed: list[Capture], fallback: list, how: str, gradients: bool) -> Plan:
    owners: dict[int, str] = {}
    for layer in _layers(model):   # outermost first: a GRU, not its cell
        owners.update((id(v), layer.name) for v in layer.trainable_variables if id(v) not in owners)
    names = tuple(dict.fromkeys(owners.get(id(v), v.path) for v in fallback))
    method = "+".join(p for p in (("layerwise" if gradients else "ghost") if claimed else "", how) if p)
    floats = sum(c.rule.floats(c.layer, c.a) for c in claimed) + sum(math.prod(v.shape) for v in fallback)
    if gradients:
        floats += sum(math.prod(v.shape) for v in model.trainable_variables)
    return Plan(method=method, fallback=names, floats_per_example=int(floats))


# ---------------------------------------------------------------- running the model layer by layer


class _Recorder:
    """Runs a model through its layers, letting each rule run the calls it covers and recording them.

    Functional and Sequential models are walked node by node with Keras' own graph runner (private API of
    Keras 3's ``Functional``; without it, or for a subclassed model, the whole model is one opaque call and
    every variable takes the jacobian path: slower, still right).
    """

    def __init__(self, training: bool):
        self.training = training
        self.captures: list[Capture] = []
        self.others: list[Any] = []   # operations run as they are: their variables take the jacobian path

    def run(self, model: Any, x: Any) -> Any:
        graph = getattr(model, "_functional", None) if isinstance(model, keras.Sequential) else model
        if hasattr(graph, "_run_through_graph") and hasattr(graph, "_standardize_inputs"):
            inputs = graph._standardize_inputs(x)
            out = graph._run_through_graph(inputs, operation_fn=lambda op: functools.partial(self.call, op))
            return out[0] if isinstance(out, (list, tuple)) and len(out) == 1 else out
        if isinstance(model, keras.Sequential):
            for layer in model.layers:
                x = self.call(layer, x)
            return x
        _refuse_training_batchnorm(model, self.training)
        self.others.append(model)
        return model(x, training=self.training)

    def call(self, op: Any, *args: Any, **kwargs: Any) -> Any:
        if _takes_training(op):
            kwargs["training"] = self.training   # as Keras does: the model's training reaches every layer
        if isinstance(op, keras.layers.BatchNormalization) and kwargs.get("training") and op.trainable:
            raise _mixing_error(f"layer {op.name!r} is a BatchNormalization called in training mode: it normalizes "
                                "each example with statistics of the whole batch")
        extra = {k: v for k, v in kwargs.items() if k != "training" and v is not None}
        if isinstance(op, keras.Model) and len(args) == 1 and not extra:
            return self.run(op, args[0])
        rule = rule_for(op)
        if rule is not None and len(args) == 1 and not extra and accepts(rule, op, args[0]) and _covers(rule, op):
            y, a, z = rule.forward(op, args[0], self.training)
            self.captures.append(Capture(op, rule, a, z))
            return y
        if isinstance(op, keras.layers.Layer):
            _refuse_training_batchnorm(op, self.training)
            self.others.append(op)
        return op(*args, **kwargs)

    def split(self, model: Any) -> tuple[list[Capture], list]:
        """The captures whose rule accounts for all of its variables' gradient, and every other variable."""
        calls = Counter(id(c.layer) for c in self.captures)
        elsewhere = Counter(id(v) for op in self.others for v in op.trainable_variables)
        for c in self.captures:
            elsewhere.update(id(v) for v in c.rule.variables(c.layer))
        claimed = [c for c in self.captures if calls[id(c.layer)] == 1   # a shared layer: its gradients add up
                   and all(elsewhere[id(v)] == 1 for v in c.rule.variables(c.layer))]
        mine = {id(v) for c in claimed for v in c.rule.variables(c.layer)}
        return claimed, [v for v in model.trainable_variables if id(v) not in mine]


def _takes_training(op: Any) -> bool:
    call = getattr(op, "call", None)
    try:
        return call is not None and "training" in inspect.signature(call).parameters
    except (TypeError, ValueError):
        return False


def _covers(rule: Any, layer: Any) -> bool:
    """The rule's variables are exactly the layer's trainable ones (a frozen kernel leaves the layer to others)."""
    return sorted(map(id, rule.variables(layer))) == sorted(map(id, layer.trainable_variables))


def _layers(model: Any) -> list:
    flatten = getattr(model, "_flatten_layers", None)
    return list(flatten(include_self=False, recursive=True)) if flatten else list(getattr(model, "layers", []))


def _refuse_training_batchnorm(op: Any, training: bool) -> None:
    """An opaque layer or model run in training mode: refuse it if it holds a trainable BatchNormalization."""
    if not training:
        return
    for layer in [op] + _layers(op):
        if isinstance(layer, keras.layers.BatchNormalization) and layer.trainable:
            where = f"{op.name!r} contains {layer.name!r}," if layer is not op else f"{op.name!r} is"
            raise _mixing_error(f"{where} a BatchNormalization run in training mode: "
                                "it normalizes each example with statistics of the whole batch")


def _mixing_error(why: str) -> BatchMixingError:
    return BatchMixingError(
        f"per_example_gradients: the examples of the batch are not independent ({why}), so per-example gradients "
        "do not exist. Use training=False (BatchNormalization then uses its moving statistics), or a model "
        "without batch statistics (LayerNormalization is per example)")


# ---------------------------------------------------------------- compiling once per model, loss and shapes


def _compiled(model: Any, loss: Any, kind: str, training: bool, x: tf.Tensor, y: tf.Tensor) -> tuple[Any, Plan]:
    """The traced per-batch function for this model, loss, kind and batch signature (cached, bounded)."""
    specs = (_structure.specs(x), _structure.specs(y))
    create = lambda: _trace(model, loss, kind, training, specs, x, y)  # noqa: E731
    try:
        key: Hashable | None = (model, loss, kind, training, _structure.signature(specs),
                                tuple(map(id, model.trainable_variables)))
        hash(key)
    except TypeError:
        key = None
    return _COMPILED.get_or_create(key, create) if key is not None else create()


def _trace(model: Any, loss: Any, kind: str, training: bool, specs: tuple, x: tf.Tensor, y: tf.Tensor):
    """Build the model and check the batch eagerly on a few examples, then trace the per-batch function once."""
    _check_independent(model, loss, x, y, training)
    plans: list[Plan] = []

    def body(xb, yb):
        losses, norms, grads, plan = per_example_terms(model, loss, xb, yb, training=training,
                                                       gradients=kind == "gradients")
        plans.append(plan)
        return (losses, norms, *grads) if grads is not None else (losses, norms)

    function = tf.function(body, input_signature=specs, autograph=False, reduce_retracing=False)
    try:
        concrete = function.get_concrete_function()
    except GradlibError:
        raise
    except (TypeError, ValueError, NotImplementedError, tf.errors.OpError) as exc:
        raise GradlibError(f"per_example_gradients could not run the model on a batch of {_shapes(x)}: "
                           f"{error_gist(exc)}") from exc
    return concrete, plans[-1]


def _reweighted(model: Any, loss: Any, training: bool, x: tf.Tensor, y: tf.Tensor, weights: np.ndarray) -> list[np.ndarray]:
    """``weighted_gradient`` of the stored batch, compiled once per model, loss and signature."""
    specs = (_structure.specs(x), _structure.specs(y), tf.TensorSpec((None,), tf.float64))
    key = (model, loss, "weighted", training, _structure.signature(specs), tuple(map(id, model.trainable_variables)))
    create = lambda: tf.function(  # noqa: E731
        lambda xb, yb, w: weighted_gradient(model, loss, xb, yb, w, training=training),
        input_signature=specs, autograph=False, reduce_retracing=False).get_concrete_function()
    with _runtime.work_slot():
        compiled = _COMPILED.get_or_create(key, create)
        return [g.numpy() for g in compiled(x, y, tf.constant(weights, tf.float64))]


# ---------------------------------------------------------------- checks


def _check_model(model: Any) -> None:
    if not isinstance(model, keras.layers.Layer):
        raise GradlibError(f"per_example_gradients needs a Keras model, got {type(model).__name__}; build one with "
                           "keras.Sequential or the functional API")


def _check_loss(model: Any, loss: Any, loss_weights: Any, y: Any) -> Any:
    return _structure.resolve_loss(model, loss, loss_weights, y, "per_example_gradients")


def _check_batch(model: Any, x: Any, y: Any, limits: Limits) -> tuple[Any, Any]:
    return _structure.check_batch(model, x, y, limits, "per_example_gradients")


def _shapes(x: Any) -> str:
    """``shape (6, 5)``, or each leaf's shape for several inputs: for messages."""
    shapes = [tuple(t.shape) for t in tf.nest.flatten(x)]
    return f"shape {shapes[0]}" if len(shapes) == 1 else f"shapes {', '.join(map(str, shapes))}"


def check_floats(plan: Plan, batch: int, limits: Limits, api: str, where: str, fix: str) -> None:
    """Refuse a ``batch`` whose floats under ``plan`` exceed ``limits.max_jacobian`` (``api`` and ``fix`` name
    the caller and what to change; ``where`` says what ``batch`` is)."""
    floats = plan.floats_per_example * batch
    if floats > limits.max_jacobian:
        raise ExpressionError(
            f"{api} would allocate about {floats:,} floats {where} ({plan.floats_per_example:,} per example, method "
            f"{plan.method}); at most {limits.max_jacobian:,} are allowed. {fix}")


def _check_clip_norm(clip_norm: Any) -> float:
    if isinstance(clip_norm, bool) or not isinstance(clip_norm, (int, float, np.floating, np.integer)) \
            or not clip_norm > 0:
        raise ExpressionError(f"clip_norm must be a positive number (np.inf for no clipping), got {clip_norm!r}")
    return float(clip_norm)


def _check_independent(model: Any, loss: Any, x: tf.Tensor, y: tf.Tensor, training: bool) -> None:
    """Build the model on the first examples, and refuse it if their losses change with the batch around them.

    The losses of the first examples computed together must equal each computed alone. Random layers (Dropout)
    make two training-mode passes differ anyway, so such models are probed in inference mode; BatchNormalization
    in training mode is refused by name.
    """
    _refuse_training_batchnorm(model, training)
    k = min(PROBE_EXAMPLES, _structure.batch_size(x))
    random_layers = any(hasattr(layer, "seed_generator") for layer in _layers(model))
    mode = training and not random_layers

    def losses(xb, yb):
        try:
            return loss_vector(loss, yb, model(xb, training=mode)).numpy()
        except GradlibError:
            raise
        except Exception as exc:   # noqa: BLE001 - the user's model or loss failed: say so, with its message
            raise GradlibError(f"per_example_gradients could not run the model and loss on a batch of "
                               f"{_shapes(xb)}: {type(exc).__name__}: {error_gist(exc)}") from exc

    joint = losses(_structure.rows(x, 0, k), _structure.rows(y, 0, k))
    if joint.shape != (k,):
        raise GradlibError(f"the loss returned shape {joint.shape} for {k} examples; it must return one value per example")
    if k < 2:
        return
    alone = np.concatenate([losses(_structure.rows(x, i, i + 1), _structure.rows(y, i, i + 1)) for i in range(k)])
    scale = max(1.0, float(np.abs(joint[np.isfinite(joint)]).max(initial=0.0)))
    if not np.allclose(joint, alone, rtol=1e-4, atol=1e-5 * scale, equal_nan=True):
        i = int(np.nanargmax(np.abs(joint - alone)))
        raise _mixing_error(f"example {i}'s loss is {format_number(joint[i])} in a batch of {k} and "
                            f"{format_number(alone[i])} alone")


def _warnings(losses: np.ndarray, norms: np.ndarray) -> tuple[str, ...]:
    if not np.isfinite(losses).all():
        return (f"{int((~np.isfinite(losses)).sum())} example(s) have a loss that is not finite; their norms and "
                "gradients are not finite either",)
    if not np.isfinite(norms).all():
        return (f"{int((~np.isfinite(norms)).sum())} example(s) have a gradient norm that is not finite",)
    return ()
