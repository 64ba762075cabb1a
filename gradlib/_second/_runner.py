"""The one engine behind every second-order entry point: size the request, choose a method, trace it once
(cached), run it, and check that the samples of a batch are independent.

A request is a function ``g`` of a batch ``(B, d)`` returning ``(B, out)`` (the entry points flatten what the
user gave into that form). ``run`` returns plain NumPy data and the notes for ``.warnings``.

The independence check is ``per_sample_gradients``' (gradlib._callable._mixing): for a random cotangent ``u``, the
whole batch's ``u^T dy/dx`` must equal ``sum_k u[c, k] J[c, k, :]`` for each sample ``c``, where ``J`` is each
output column's gradient summed over the batch. A function that mixes samples breaks the equality, and a
second derivative computed as a ``batch_jacobian`` of its gradient would be the derivative of a sum
(tensorflow#38428: ``[3, 3]`` where the true diagonal is ``[2, 2]``): ``BatchMixingError`` instead.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from dataclasses import dataclass, replace
from typing import Any, Callable, Hashable

import numpy as np
import tensorflow as tf

from .._foundations._cache import LRUCache
from .._callable._mixing import (find_mixing, held_outputs, held_refusal, held_tower, mixing_text, moved_batch,
                                 moved_samples)
from .._callable._random import RANDOM, is_random
from .._foundations._errors import BatchMixingError, ExpressionError, GradlibError, InputError, error_gist
from .._foundations._format import format_number
from .._foundations._limits import Limits, largest_fitting
from .._callable._state import same_output
from .._callable._trace import (defined_gradient, first_order_cut, lowest_float, numpy_call, py_function_call, trace,
                               while_loops)
from . import _orders, _tapes
from ._curvature import pfor_fallback
from ._poisoning import Poisoning, poisoned_mask, repair
from ._forward_laplacian import chunked_forward_laplacian
from ._taylor import dense_layers

__all__ = ["FORWARD_METHODS", "RANDOM_REPAIR", "SEVERAL_CALLS", "Outcome", "Request", "check_independent",
           "custom_gradient_refusal", "random_refusal", "while_loop_refusal",
           "first_order_cut_error", "refuse_first_order_cut", "run", "shape_of", "trace_failure"]

#: the methods that differentiate by ``tf.autodiff.ForwardAccumulator`` over a tape: inside a ``tf.function`` they do
#: not follow a gradient fn defines itself (``tf.custom_gradient``), which nested tapes do
FORWARD_METHODS = ("forward_over_reverse", "hutchinson")
#: the methods that call fn several times and combine the results (the first derivatives on the batch, then a pass
#: on copies of the batch per chunk of tangents or probes): for a random fn each call draws anew, and they mix draws
SEVERAL_CALLS = ("forward_over_reverse", "hutchinson")
_COMPILED = LRUCache(maxsize=32)
#: (key, shape, dtype) -> the gradient fn defines itself, "" when none
_DEFINED = LRUCache(maxsize=64)
#: (key, shape, dtype) -> the ops of fn's while loops (a recurrent layer's), () when none
_LOOPS = LRUCache(maxsize=64)
#: (key, shape, dtype) -> the stop_gradient that makes fn's second derivatives wrong (``first_order_cut``), "" when none
_CUT = LRUCache(maxsize=64)
_TRACED = threading.local()   # how long this thread's last trace took (a first call says so when it is long)


@dataclass(frozen=True)
class Request:
    """What to compute: ``g`` on the batch ``x`` ``(B, d)``; ``key`` names ``g`` in the compiled cache (``None``:
    never cached); ``model`` is the user's Keras model, if any (for the forward rules and the diagnoses)."""

    api: str
    g: Callable
    x: tf.Tensor
    kind: str
    method: str
    key: Hashable | None
    model: Any = None
    tileable: bool = True
    probes: int = 0
    check_independence: bool = True
    precision: str = ""         # the lowest precision fn computes in, if lower than x's (a float32 model on float64)


@dataclass(frozen=True)
class Outcome:
    y: np.ndarray
    jacobian: np.ndarray
    value: np.ndarray
    error: np.ndarray | None
    method: str
    notes: tuple[str, ...]
    cost: str
    poisoning: Poisoning = Poisoning()
    jacobian_poisoning: Poisoning = Poisoning()     # of the first derivatives, ``jacobian``


def shape_of(req: Request, outputs: int) -> _orders.Shape:
    """The request as the cost table sees it: ``outputs`` is the real call's (``_output_size``); a Keras model's
    Dense sizes are read only when they are its computation on this very batch (``_rules_fit``), else guessed, and
    then fn's while loops counted (one trace per function and shape: a recurrent layer's cost its first call most)."""
    b, d = (int(n) for n in req.x.shape)
    kernels = _rules_fit(req, outputs)
    if kernels:
        sizes = [tuple(int(n) for n in k.shape) for k, _, _ in kernels]
        macs, floats, widest = sum(a * c for a, c in sizes), d + sum(c for _, c in sizes), max(c for _, c in sizes)
        layers, measured = len(sizes), True
    else:
        floats = 8.0 * (d + outputs)
        macs, widest, layers, measured = floats * d, int(floats), 4, False
    return _orders.Shape(b, d, outputs, req.kind, req.x.dtype.size, float(macs), float(floats), layers,
                         req.tileable, bool(kernels), req.probes, measured, widest,
                         0 if kernels else len(_while_loop(req)))


def _rules_misfit(req: Request) -> str:
    """Why the forward rules do not describe ``g`` (what ``_rules_fit`` found), for a refusal: the first layer
    that has no rule, or that ``g`` is not a model."""
    if req.model is None:
        return "fn is not a Keras model"
    return dense_layers(req.model)[1] or "the model's Dense layers do not take a sample of x as their input"


def _rules_fit(req: Request, outputs: int) -> list:
    """The forward rules' kernels when they describe ``g`` on this batch: a Sequential of Dense layers proved to
    compute as Keras' own (``dense_layers``), its first kernel taking a sample's ``d`` inputs and its last giving
    the ``outputs`` the real call gave (``hessians`` flattens a whole batch into one sample: a Dense(50) on a (50, 2)
    input is 2,500 outputs of 100 inputs, not 50 of 2), else ``[]``."""
    kernels, _ = dense_layers(req.model) if req.model is not None else ([], "")
    if not kernels or req.x.shape.rank != 2:
        return []
    first, last = kernels[0][0].shape, kernels[-1][0].shape
    return kernels if int(first[0]) == int(req.x.shape[1]) and int(last[1]) == outputs else []


def run(req: Request, limits: Limits) -> Outcome:
    """Choose (``auto``) or check the method, trace it (once per function and shape), run it, check the batch."""
    outputs = _output_size(req, limits)
    s = shape_of(req, outputs)
    method = _orders.choose(s, limits) if req.method == "auto" else req.method
    if method in FORWARD_METHODS and _defined_gradient(req):
        if req.method != "auto":
            raise custom_gradient_refusal(req.api, method, _defined_gradient(req),
                                          "method='nested_tapes' or 'loop' (reverse over reverse)")
        method = _orders.choose(s, limits, exclude=FORWARD_METHODS)
    if method in FORWARD_METHODS and req.kind != "divergence" and _while_loop(req):
        if req.method != "auto":
            raise while_loop_refusal(req.api, method, _while_loop(req)[0])
        method = _orders.choose(s, limits, exclude=FORWARD_METHODS)
    random = _random(req)
    if method in SEVERAL_CALLS and random:
        if req.method != "auto":
            raise random_refusal(req.api, method)
        method = _orders.choose(s, limits, exclude=SEVERAL_CALLS)
    out, notes, precision = _execute(req, method, s, limits)
    notes += (f"{RANDOM}: these derivatives are those of one call's draw ({method!r} differentiates one call of fn), "
              "and every call gives others; fix its randomness (training=False) to get those of one function",) \
        if random else ()
    if method == "forward_laplacian" and not same_output(out["y"], out["called"], precision):
        if req.method != "auto":
            raise ExpressionError(f"{req.api} cannot use method='forward_laplacian' on this model: its layer rules "
                                  "give a y that differs from the model's own call (it computes something other "
                                  "than its Dense layers). Use method='auto'")
        method = _orders.choose(s, limits, exclude=FORWARD_METHODS + ("forward_laplacian",))
        out, notes, precision = _execute(req, method, s, limits)
        notes += ("the forward Laplacian's layer rules gave a y that differs from the model's own call, so "
                  f"{method!r} (which calls the model) computed this instead",)
    if req.check_independence and method != "forward_laplacian" and req.x.shape[0] >= 2:
        notes += check_independent(req.api, out["jacobian"], out["u"], out["vjp"], precision, req.model is not None)
        _check_held(req, method, out, s, precision, random, limits)
    if req.kind != "divergence":   # after the check: a model that mixes the batch is refused for that first
        refuse_first_order_cut(req.api, req.g, req.x.shape, req.x.dtype, req.key)
    value, poisoning = _repaired(req, out["y"], out["value"], req.kind, limits)
    jacobian, jacobian_poisoning = (_repaired(req, out["y"], out["jacobian"], "jacobian", limits)   # returned too
                                    if req.kind in ("hessian", "diagonal") else (out["jacobian"], Poisoning()))
    return Outcome(out["y"], jacobian, value, out.get("error"), method, notes,
                   _orders.row(method).cost(s).text() + ("" if s.measured else " (sizes guessed: fn is not a "
                                                         "Keras Sequential of Dense layers taking each sample as "
                                                         "its input)"), poisoning, jacobian_poisoning)


def _check_held(req: Request, method: str, out: dict, s: _orders.Shape, precision: str, random: bool,
                limits: Limits) -> None:
    """Refuse a batch whose held sample has other derivatives when the other samples move (``out["held"]``:
    ``_mixing.held_outputs``, up to the second order): ``method`` run again on that moved batch (the same shape:
    the same trace), its first derivatives compared, and its second ones but for ``hutchinson`` (its probes are
    drawn per sample: the held sample's second derivatives along ``_mixing.tower``'s random direction instead). A
    batch statistic under ``tf.stop_gradient`` mixes the values only, which ``check_independent`` cannot see
    (``_mixing``'s docstring). A random fn's calls differ anyway."""
    if random:
        return
    keys = ("jacobian",) if method == "hutchinson" else ("jacobian", "value")
    passes: dict[int, dict] = {}   # the method on each moved batch, run once (each holds half the samples)
    for b in moved_samples(out["held"], precision):
        if b % 2 not in passes:
            passes[b % 2] = _execute(replace(req, x=moved_batch(req.x, b)), method, s, limits)[0]
        moved = passes[b % 2]
        refusal = held_refusal(req.api, b, np.concatenate([out[k][b].ravel() for k in keys]),
                               np.concatenate([moved[k][b].ravel() for k in keys]), precision, "derivatives",
                               "hessians")
        if not refusal and method == "hutchinson":   # its second derivatives: the tower's, along a random direction
            refusal = held_refusal(req.api, b, *held_tower(out["held"], b), precision, "derivatives", "hessians")
        if refusal:
            raise BatchMixingError(refusal)


def _execute(req: Request, method: str, s: _orders.Shape, limits: Limits) -> tuple[dict, tuple[str, ...], str]:
    """``(the method's arrays, its notes, the least precise dtype it computes in)``: checked, traced, run."""
    why = _orders.row(method).applicable(s)
    if why and _orders.row(method).needs_dense and not s.dense:
        why += f" ({_rules_misfit(req)})"
    if why:
        raise ExpressionError(f"{req.api} cannot use method={method!r}: {why}. Use method='auto'")
    _orders.check_budget(method, s, limits)
    _TRACED.seconds = 0.0
    compiled, fallback, precision = _compiled(req, method)
    traced, start = _TRACED.seconds, time.perf_counter()
    try:
        out = {k: v.numpy() for k, v in compiled(req.x).items()}
    except GradlibError:
        raise
    except Exception as exc:   # noqa: BLE001 - fn failed as a graph: say so, with its message
        raise GradlibError(f"fn failed inside {req.api}'s compiled {method} on a batch of shape {tuple(req.x.shape)}: "
                           f"{type(exc).__name__}: {error_gist(exc)}") from exc
    notes = (fallback,) if fallback else ()
    first = traced + time.perf_counter() - start if traced else 0.0   # a fresh trace's first run optimizes the graph
    if first > _orders.FIRST_CALL_SECONDS:
        notes += (f"this first call spent {format_number(first, 2)} s tracing method {method!r} and running it once "
                  f"({format_number(traced, 2)} s tracing; its estimate: {_orders.row(method).cost(s).text()}); later "
                  "calls with this function and batch shape reuse the trace",)
    return out, notes, precision


def _repaired(req: Request, y: np.ndarray, value: np.ndarray, kind: str, limits: Limits) -> tuple[np.ndarray,
                                                                                                  Poisoning]:
    """The NaN-poisoned cells of ``value`` (gradlib._second._poisoning), recomputed in forward over forward mode
    under ``auto``; the value as it is otherwise."""
    mask = poisoned_mask(req.x.numpy(), y, value, kind)
    if not mask.any() or req.method != "auto":
        return value, Poisoning(np.argwhere(mask))
    if _defined_gradient(req):
        return value, Poisoning(np.argwhere(mask), why_not="fn defines its own gradient (tf.custom_gradient), "
                                "which forward mode does not follow")
    if _random(req):
        return value, Poisoning(np.argwhere(mask), why_not=RANDOM_REPAIR)
    return repair(req.g, req.x, value, mask, kind, req.tileable, limits)


def _output_size(req: Request, limits: Limits) -> int:
    """Call ``g`` once on the first sample (eagerly): the output must keep the batch axis, and its real size is
    what every bound and estimate reads (never a layer's declared units: a model's call may return more)."""
    try:
        y = tf.convert_to_tensor(req.g(req.x[:1]))
    except GradlibError:
        raise
    except Exception as exc:   # noqa: BLE001 - the user's function failed: say so, with its message
        raise GradlibError(f"fn failed on a batch of shape {tuple(req.x[:1].shape)}: {type(exc).__name__}: "
                           f"{error_gist(exc)}") from exc
    if not y.dtype.is_floating:
        raise GradlibError(f"fn must return floating-point values; it returned {y.dtype.name}")
    if y.shape.rank != 2 or int(y.shape[0]) != 1:   # (out, B) or a sum over the batch: not a row per sample
        raise GradlibError(f"fn must return one row per sample, but on a batch of shape {tuple(req.x[:1].shape)} it "
                           f"returned shape {tuple(y.shape)}. {req.api} needs y of shape (B, outputs...); for a "
                           "function of the whole batch use gradlib.hessians")
    if req.kind == "divergence" and int(y.shape[1]) != int(req.x.shape[1]):
        raise GradlibError(f"{req.api} needs a vector field: as many outputs as inputs per sample, but fn maps "
                           f"{int(req.x.shape[1]):,} inputs to {int(y.shape[1]):,} outputs")
    _check_cells(req, int(y.shape[1]), limits)
    return int(y.shape[1])


def _check_cells(req: Request, outputs: int, limits: Limits) -> None:
    """Refuse a result over ``limits.max_hessian`` entries before anything is traced, giving both numbers."""
    b, d = (int(n) for n in req.x.shape)
    per = {"hessian": d * d, "diagonal": d}.get(req.kind, 1)
    cells = b * outputs * per
    if cells > limits.max_hessian:
        what = {"hessian": f"{b:,} x {outputs:,} outputs x {d:,} x {d:,} inputs",
                "diagonal": f"{b:,} x {outputs:,} outputs x {d:,} inputs"}.get(req.kind, f"{b:,} x {outputs:,}")
        raise ExpressionError(f"{req.api} would return {cells:,} second-order entries ({what}); at most "
                              f"{limits.max_hessian:,} are allowed. {_cells_advice(req, b, outputs, d, limits)}")


def _cells_advice(req: Request, b: int, outputs: int, d: int, limits: Limits) -> str:
    """What fits under ``limits.max_hessian``, each with its number, the others as they are; only what does fit.

    A smaller batch is no advice when even one sample is over, nor ``diagonal=True`` when the diagonals are over too.
    """
    limit, per = limits.max_hessian, {"hessian": d * d, "diagonal": d}.get(req.kind, 1)
    cells, options = b * outputs * per, []
    if req.tileable and 0 < largest_fitting(limit, b, cells) < b:
        options.append(f"a batch of at most {largest_fitting(limit, b, cells):,}")
    fewer = largest_fitting(limit, outputs, cells)
    if 0 < fewer < outputs:
        options.append(f"at most {fewer:,} output{'s' if fewer > 1 else ''} per sample" if req.tileable else
                       f"at most {fewer:,} output{'s' if fewer > 1 else ''}")
    inputs = math.isqrt(limit // (b * outputs)) if req.kind == "hessian" else limit // (b * outputs)
    if not req.tileable and 0 < inputs < d:
        options.append(f"at most {inputs:,} watched element{'s' if inputs > 1 else ''} in all")
    if req.tileable and req.kind == "hessian" and b * outputs * d <= limit:
        options.append("diagonal=True (the diagonals only)")
    if req.tileable and req.kind in ("hessian", "diagonal") and b * outputs <= limit:
        options.append("gradlib.laplacian (the trace only)")
    if not options:
        return "Ask for less: no smaller batch, output or input alone fits"
    return "It fits with " + ", or ".join(options)


def trace_failure(when: str, exc: BaseException) -> GradlibError:
    """fn failed when the second order traced it (``when``): the error, and what to do where the cause is known."""
    text = f"{type(exc).__name__}: {error_gist(exc)}"
    advice = ""
    if "SymbolicTensor" in text or "OperatorNotAllowedInGraph" in text or "symbolic" in text.lower():
        advice = (". The second order runs fn inside a tf.function (traced once, cached), so fn must run as a graph: "
                  "no .numpy(), float() or NumPy on a tensor, no Python if on a tensor's value (tf.cond, tf.where)")
    elif "gradient registry has no entry for" in text:
        advice = (". TensorFlow has no gradient for the gradient of an op fn uses, so its second derivative cannot be "
                  "taken (softsign is one such op): write that part with other ops")
    return GradlibError(f"fn failed when {when}: {text}{advice}")


def random_refusal(api: str, method: str) -> GradlibError:
    """The refusal of a ``method`` that calls fn several times (``SEVERAL_CALLS``) on a random fn."""
    return GradlibError(
        f"{api} cannot use method={method!r} on this fn: {RANDOM}. {method} calls fn several times (the first "
        "derivatives on the batch, then passes on copies of it) and combines the results, each from another draw: "
        "a number no single draw has. Fix its randomness (training=False), or use method='nested_tapes' or 'loop', "
        "which differentiate one call of fn (the derivatives of that call's draw), or method='auto', which does")


#: why ``auto`` does not repair NaN-poisoned cells of a random fn
RANDOM_REPAIR = (f"{RANDOM}, and a repair calls fn again: its cells would come from another draw than the rest")


def _random(req: Request) -> bool:
    """Whether ``req.g`` is random (``_callable._random``: two calls on the first samples, once per function and
    sample shape while ``req.key`` names it)."""
    return is_random(req.g, req.x, None if req.key is None else ("second", req.key))


def custom_gradient_refusal(api: str, method: str, name: str, instead: str) -> GradlibError:
    """The refusal of a forward-over-reverse ``method`` on a function that defines its own gradient ``name``."""
    return GradlibError(f"{api} cannot use method={method!r} on this fn: it defines its own gradient "
                        f"(tf.custom_gradient; op type {name!r}), which nested tapes follow and forward mode over a "
                        "tape does not (it differentiates the operations fn runs, so its second derivatives disagree "
                        f"with nested tape.gradient calls). Use {instead}, or "
                        "method='auto', which keeps to reverse mode for such a function")


def refuse_first_order_cut(api: str, g: Callable, shape: Any, dtype: Any, key: Hashable | None) -> None:
    """Refuse ``g`` when its graph holds ``tf.nn.moments``' stop_gradient (``first_order_cut``): every method,
    nested tapes and forward mode alike, would return second derivatives that are off (a Keras LayerNormalization's
    by 0.6% to 50%), and no method of TensorFlow's differentiates around it. ``g`` is traced once per ``key`` (the
    function's, ``None``: not cached), shape and dtype."""
    spec = tf.TensorSpec(tuple(shape), dtype)
    read = lambda: first_order_cut(g, [spec])  # noqa: E731
    name = read() if key is None else _CUT.get_or_create((key, tuple(spec.shape), spec.dtype.name), read)
    if name:
        raise first_order_cut_error(api, name)


def first_order_cut_error(api: str, name: str) -> GradlibError:
    """The refusal of second derivatives through ``tf.nn.moments``' stop_gradient, the op ``name``."""
    return GradlibError(
        f"{api} cannot take second derivatives of this fn: it computes a variance with tf.nn.moments (op "
        f"{name!r}; Keras' LayerNormalization and GroupNormalization do), whose tf.stop_gradient on the mean keeps "
        "the first derivative right but not the second (TensorFlow's tapes give 2/n where the variance's second "
        "derivative is 2/n (1 - 1/n)), so every method would return wrong numbers. Compute the variance without "
        "it, e.g. tf.reduce_mean(tf.square(x - tf.reduce_mean(x, axis, keepdims=True)), axis) or "
        "tf.math.reduce_variance, in a layer of your own; first derivatives are right")


def while_loop_refusal(api: str, method: str, name: str) -> GradlibError:
    """The refusal of a forward-over-reverse ``method`` on a function that runs a while loop, the op ``name``."""
    return GradlibError(f"{api} cannot use method={method!r} on this fn: it runs a while loop (op {name!r}: a Keras "
                        "recurrent layer such as LSTM or GRU, tf.scan or tf.while_loop), and TensorFlow's forward mode "
                        "over a tape fails on it after tracing for seconds (TypeError: `dtype` <dtype: 'variant'> is "
                        "not compatible with 1 of dtype int64, where the loop keeps a TensorArray as Keras' recurrent "
                        "layers do). Use method='loop' or 'nested_tapes' (reverse over reverse), or method='auto', "
                        "which does; or build the recurrent layer with unroll=True (no loop)")


def _while_loop(req: Request) -> tuple[str, ...]:
    """The ops of ``req.g``'s while loops (``()`` when none), read from one trace per function and shape."""
    spec = tf.TensorSpec(tuple(req.x.shape), req.x.dtype)
    read = lambda: while_loops(req.g, [spec])  # noqa: E731
    return read() if req.key is None else _LOOPS.get_or_create((req.key, tuple(spec.shape), spec.dtype.name), read)


def _defined_gradient(req: Request) -> str:
    """The gradient ``req.g`` defines itself ("" when none), read from one trace per function and shape."""
    spec = tf.TensorSpec(tuple(req.x.shape), req.x.dtype)
    read = lambda: defined_gradient(req.g, [spec])  # noqa: E731
    return read() if req.key is None else _DEFINED.get_or_create((req.key, tuple(spec.shape), spec.dtype.name), read)


def _compiled(req: Request, method: str) -> tuple[Callable, str, str]:
    """``(the traced method, its pfor fallback note, the least precise dtype it computes in)``, cached: the
    precision is read from the trace, for a float64 batch through a layer left at float32 is checked as float32."""
    spec = tf.TensorSpec(tuple(req.x.shape), req.x.dtype)

    def create():
        concrete, note = _trace(req, method, spec)
        return concrete, note, lowest_float(concrete.graph, req.precision or req.x.dtype.name)

    if req.key is None:
        return create()
    return _COMPILED.get_or_create((req.key, req.kind, method, tuple(spec.shape), spec.dtype.name, req.probes,
                                    req.precision, req.check_independence), create)


class _ThisThread(logging.Filter):
    """Drops this thread's records: pfor logs every op it cannot convert, at length, before it raises."""

    def __init__(self):
        super().__init__()
        self.thread = threading.get_ident()

    def filter(self, record: logging.LogRecord) -> bool:
        return record.thread != self.thread


def _trace(req: Request, method: str, spec: tf.TensorSpec) -> tuple[Callable, str]:
    """Trace with pfor; where pfor cannot vectorize (tensorflow#108936), trace again without it and say so."""
    _refuse_python(req, spec)
    quiet = _ThisThread()
    logging.getLogger("tensorflow").addFilter(quiet)
    try:
        return _concrete(req, method, spec, use_pfor=True), ""
    except GradlibError:
        raise
    except Exception as exc:   # noqa: BLE001 - pfor, or the user's function, failed while tracing
        if "vectoriz" not in str(exc):
            raise trace_failure(f"{req.api} traced it on a batch of shape {tuple(spec.shape)}", exc) from exc
        note = pfor_fallback(exc)
    finally:
        logging.getLogger("tensorflow").removeFilter(quiet)
    try:
        return _concrete(req, method, spec, use_pfor=False), note
    except GradlibError:
        raise
    except Exception as exc:   # noqa: BLE001 - the user's function failed while tracing
        raise trace_failure(f"{req.api} traced it without pfor on a batch of shape {tuple(spec.shape)}", exc) from exc


def _refuse_python(req: Request, spec: tf.TensorSpec) -> None:
    """Refuse fn's ``tf.numpy_function`` or ``tf.py_function`` (read in its own trace, once per compiled entry).

    A numpy_function's gradient is None: every tape takes its output as a constant, so the second derivatives would
    leave that part out (``per_sample_gradients`` warns of the same in a Jacobian); its output's shape is unknown
    too, and the kernels failed with a bare "int() argument must be ..., not 'NoneType'". A py_function's gradient
    is taken once per call (``py_function_call``), and a second derivative needs more than one.
    """
    try:
        plain = trace(req.g, [spec])
    except GradlibError:
        raise
    except Exception as exc:   # noqa: BLE001 - the user's function failed while tracing
        raise trace_failure(f"{req.api} traced it on a batch of shape {tuple(spec.shape)}", exc) from exc
    name = numpy_call(plain.graph)
    if name:
        raise GradlibError(
            f"{req.api}: fn calls tf.numpy_function (op {name!r}), which TensorFlow cannot differentiate: every tape "
            "takes its output as a constant, so its second derivatives would leave that part out. Compute it with "
            "TensorFlow ops")
    name = py_function_call(plain.graph)
    if name:
        raise GradlibError(
            f"{req.api}: fn calls tf.py_function (op {name!r}), whose gradient TensorFlow takes only once per call, "
            "and second derivatives take it again for each input element. Compute it with TensorFlow ops")


def _concrete(req: Request, method: str, spec: tf.TensorSpec, use_pfor: bool):
    kernel = _kernel(req, method, use_pfor)
    # a Sequential of Dense layers cannot mix the batch; others: ``_check_held``, unless the caller opted out of the
    # check: then no held pass (three towers of g up to the answered order) is traced (``_compiled``'s key: the flag)
    if method != "forward_laplacian" and req.check_independence:
        inner = kernel
        order = 1 if req.kind == "divergence" else 2   # the held samples' derivatives up to those answered
        kernel = lambda x: {**inner(x), "held": held_outputs(req.g, x, req.api, order)}  # noqa: E731
    start = time.perf_counter()
    concrete = trace(kernel, [spec])
    _TRACED.seconds = time.perf_counter() - start
    return concrete


def _kernel(req: Request, method: str, use_pfor: bool) -> Callable:
    g, kind = req.g, req.kind
    if method == "nested_tapes":
        return lambda x: _tapes.nested_tapes(g, x, kind, use_pfor)
    if method == "loop":
        return lambda x: _tapes.loop(g, x, kind, use_pfor)
    if method == "forward_over_reverse" and req.tileable:
        return lambda x: _tapes.forward_over_reverse(g, x, kind, _orders.TILE_ROWS, use_pfor)
    if method == "forward_over_reverse":
        return lambda x: _tapes.forward_over_reverse_one(g, x, kind, _orders.TILE_ROWS, use_pfor)
    if method == "hutchinson":
        return lambda x: _tapes.hutchinson(g, x, kind, req.probes, _orders.TILE_ROWS, use_pfor)
    kernels, _ = dense_layers(req.model)

    def taylor(x):   # "called": the model's own y, which the rules' must equal (gradlib._callable._state.same_output)
        y, jac, value = chunked_forward_laplacian(kernels, x, kind)
        jac = tf.zeros((int(x.shape[0]), int(y.shape[1]), 0), y.dtype) if jac is None else jac   # a Laplacian's: none
        return {"y": y, "jacobian": jac, "value": value, "called": tf.cast(g(x), y.dtype)}
    return taylor


def check_independent(api: str, jac: np.ndarray, u: np.ndarray, vjp: np.ndarray, dtype: str,
                      model: bool = False) -> tuple[str, ...]:
    """Every sample at once (see the module's docstring); a note when some entries are not finite. ``model``: fn
    is a Keras model (told to call it with training=False); a function is told what to do if it calls one."""
    mixing, finite = find_mixing(jac, u, vjp, dtype)
    if mixing is not None:
        call = ("Call the model with training=False (a layer such as BatchNormalization in training mode mixes the "
                "batch)" if model else "If fn calls a model, call it with training=False")
        raise BatchMixingError(
            f"{api}: {mixing_text(mixing)}, so per-sample second derivatives do not exist, and a batch_jacobian of "
            f"the gradient would silently be the derivative of the batch's sum (tensorflow#38428). {call}, or use "
            "gradlib.hessians on the whole batch")
    return () if finite else ("the samples' independence could only be checked where the Jacobian is finite",)
