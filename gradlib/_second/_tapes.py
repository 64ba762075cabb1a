"""The tape methods, each a function traced into a graph: ``g`` maps a batch ``(B, d)`` to ``(B, out)``.

Every method returns the same dict of tensors: ``y`` ``(B, out)``, ``jacobian`` ``(B, out, d)`` (the gradient of
each output column summed over the batch, which is each sample's own Jacobian exactly when samples are
independent), ``u`` and ``vjp`` (a random cotangent and ``u^T dy/dx`` over the whole batch: the independence
check's evidence) and ``value``: ``(B, out, d, d)`` for ``hessian``, ``(B, out, d)`` for ``diagonal``,
``(B, out)`` for ``laplacian``, ``(B,)`` for ``divergence`` (then ``out == d``). Hutchinson adds ``error``.

Every slice that a later gradient is taken of is taken inside the tape that records it: a slice taken after the
tape's block is invisible to it, and its gradient is ``None`` (the seed's lesson, an order higher).
"""

from __future__ import annotations

from typing import Callable

import tensorflow as tf

__all__ = ["PROBE_SEED", "PROJECTION_SEED", "first_order", "forward_over_reverse", "forward_over_reverse_one",
           "hutchinson", "loop",
           "nested_tapes", "reduce_hessian"]

ZERO = tf.UnconnectedGradients.ZERO
#: the independence check's random cotangent (fixed: the same function and batch always get the same verdict)
PROJECTION_SEED = (20, 26)
#: Hutchinson's probes (fixed: an estimate is reproducible; drawn in float32, so alike in every dtype)
PROBE_SEED = (25, 2)


def first_order(g: Callable, x: tf.Tensor, use_pfor: bool = True) -> dict:
    """``y``, the batch Jacobian and the check's ``(u, u^T dy/dx)``; ``value`` is the divergence if square."""
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = g(x)
    jac = tape.batch_jacobian(y, x, unconnected_gradients=ZERO, experimental_use_pfor=use_pfor)
    return {"y": y, "jacobian": jac, **_projection(tape, y, x)}


def _projection(tape: tf.GradientTape, y: tf.Tensor, x: tf.Tensor) -> dict:
    u = tf.random.stateless_normal(tf.shape(y), seed=PROJECTION_SEED, dtype=y.dtype)
    return {"u": u, "vjp": tape.gradient(y, x, output_gradients=u, unconnected_gradients=ZERO)}


def reduce_hessian(h: tf.Tensor, kind: str) -> tf.Tensor:
    """The full ``(B, out, d, d)`` Hessians reduced to what ``kind`` asks for."""
    if kind == "diagonal":
        return tf.linalg.diag_part(h)
    if kind == "laplacian":
        return tf.linalg.trace(h)
    return h


def nested_tapes(g: Callable, x: tf.Tensor, kind: str, use_pfor: bool = True) -> dict:
    """The TensorFlow guide's Hessian: ``batch_jacobian`` of a ``batch_jacobian`` computed inside an outer tape."""
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape(persistent=True) as inner:
            inner.watch(x)
            y = g(x)
        jac = inner.batch_jacobian(y, x, unconnected_gradients=ZERO, experimental_use_pfor=use_pfor)
    out = {"y": y, "jacobian": jac, **_projection(inner, y, x)}
    if kind == "divergence":
        return {**out, "value": tf.linalg.trace(jac)}
    h = outer.batch_jacobian(jac, x, unconnected_gradients=ZERO, experimental_use_pfor=use_pfor)
    return {**out, "value": reduce_hessian(h, kind)}


def loop(g: Callable, x: tf.Tensor, kind: str, use_pfor: bool = True) -> dict:
    """A loop over input dimensions: each element of each output's gradient differentiated again (one pass each)."""
    d = int(x.shape[1])
    with tf.GradientTape(persistent=True) as outer:
        outer.watch(x)
        with tf.GradientTape(persistent=True) as inner:
            inner.watch(x)
            y = g(x)
            columns = [y[:, k] for k in range(int(y.shape[1]))]
        grads = [inner.gradient(c, x, unconnected_gradients=ZERO) for c in columns]
        entries = [[grad[:, j] for j in range(d)] for grad in grads] if kind != "divergence" else []
    out = {"y": y, "jacobian": tf.stack(grads, axis=1), **_projection(inner, y, x)}
    if kind == "divergence":
        return {**out, "value": tf.add_n([grads[j][:, j] for j in range(d)])}
    values = []
    for row in entries:
        if kind == "hessian":
            values.append(tf.stack([outer.gradient(e, x, unconnected_gradients=ZERO) for e in row], axis=1))
        else:
            diagonal = tf.stack([outer.gradient(e, x, unconnected_gradients=ZERO)[:, j] for j, e in enumerate(row)],
                                axis=1)
            values.append(diagonal if kind == "diagonal" else tf.reduce_sum(diagonal, axis=1))
    return {**out, "value": tf.stack(values, axis=1)}


def _chunks(total: int, batch: int, rows: int) -> list[range]:
    per = max(1, rows // max(batch, 1))
    return [range(s, min(total, s + per)) for s in range(0, total, per)]


def _tiled_hvps(g: Callable, x: tf.Tensor, tangents: tf.Tensor, outputs: int, divergence: bool) -> list[tf.Tensor]:
    """Forward over reverse on ``m`` copies of the batch, copy ``i`` with tangent ``tangents[i]`` ``(m, B, d)``.

    Returns, per output column ``k``, ``(m, B, d)``: ``H_k[b] @ tangents[i, b]`` (for a divergence, one entry:
    ``J[b] @ tangents[i, b]``).
    """
    m, b, d = tangents.shape
    xt = tf.tile(x, [m, 1])
    with tf.autodiff.ForwardAccumulator(xt, tf.reshape(tangents, (m * b, d))) as acc:
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(xt)
            yt = g(xt)
            columns = [yt[:, k] for k in range(outputs)]
        if divergence:
            return [tf.reshape(acc.jvp(yt, unconnected_gradients=ZERO), (m, b, -1))]
        grads = [tape.gradient(c, xt, unconnected_gradients=ZERO) for c in columns]
    return [tf.reshape(acc.jvp(grad, unconnected_gradients=ZERO), (m, b, d)) for grad in grads]


def forward_over_reverse(g: Callable, x: tf.Tensor, kind: str, rows: int, use_pfor: bool = True) -> dict:
    """One Hessian-vector product per input element ``e_j``, on copies of the batch (``rows`` rows per pass)."""
    out = first_order(g, x, use_pfor)
    b, d = int(x.shape[0]), int(x.shape[1])
    outputs = int(out["y"].shape[1])
    parts: list[list[tf.Tensor]] = []
    for js in _chunks(d, b, rows):
        eye = tf.one_hot(list(js), d, dtype=x.dtype)                             # (m, d)
        tangents = tf.broadcast_to(eye[:, None, :], (len(js), b, d))
        hvps = _tiled_hvps(g, x, tangents, outputs, kind == "divergence")
        parts.append([_reduce_hvps(hv, eye, kind) for hv in hvps])
    if kind == "divergence":
        return {**out, "value": tf.add_n([p[0] for p in parts])}
    per_output = [tf.concat([p[k] for p in parts], axis=-1) if kind != "laplacian" else tf.add_n([p[k] for p in parts])
                  for k in range(outputs)]
    return {**out, "value": tf.stack(per_output, axis=1)}


def _reduce_hvps(hv: tf.Tensor, eye: tf.Tensor, kind: str) -> tf.Tensor:
    """``hv`` ``(m, B, d)`` (column ``j`` of each sample's Hessian for the chunk's ``m`` elements) as ``kind``'s part."""
    if kind == "hessian":
        return tf.transpose(hv, (1, 2, 0))                                        # (B, d, m): H[b, :, j]
    picked = tf.transpose(tf.reduce_sum(hv * eye[:, None, :], axis=-1))           # (B, m): H[b, j, j]
    return picked if kind == "diagonal" else tf.reduce_sum(picked, axis=1)


def forward_over_reverse_one(g: Callable, x: tf.Tensor, kind: str, rows: int, use_pfor: bool = True) -> dict:
    """For a function of one fixed input (batch of one): one Hessian-vector product per output and input element.

    With pfor, the ``out * d`` products are vectorized passes of at most ``rows`` pairs each (``tf.vectorized_map``
    over pairs of a one-hot cotangent ``e_k`` and tangent ``e_j``), so the graph holds one forward-over-reverse pass
    per ``rows`` pairs, not ``out * d`` (a kernel of 6 inputs and 3 outputs: 2,948 ops traced in 10-15 s written
    out one by one, 1,097 in 2 s vectorized). The numbers are the same ops' (a one-hot cotangent is what
    ``tape.gradient`` of the slice ``y[:, k]`` seeds): the same zeros at kinks and ties, a sum rounded in another
    order at most an ulp off (tests/second/test_tapes_vectorized.py). Without pfor (``use_pfor=False``: the
    runner's fallback where pfor cannot vectorize) they run one after another in a ``tf.map_fn`` loop, still one
    pass in the graph (written out one by one, ``out * d`` passes could take minutes to trace).
    """
    out = first_order(g, x, use_pfor)
    outputs = int(out["y"].shape[1])
    h = _hvps(g, x, outputs, rows, use_pfor)
    return {**out, "value": reduce_hessian(h, kind)}


def _hvps(g: Callable, x: tf.Tensor, outputs: int, rows: int, use_pfor: bool) -> tf.Tensor:
    """``(1, out, d, d)``: pair ``k * d + j`` is ``H_k @ e_j``; one pass's pairs vectorized (reverse and forward),
    or without pfor one after another in a ``tf.map_fn`` loop: one pass traced either way, never ``out * d``."""
    d = int(x.shape[1])
    pairs = [(k, j) for k in range(outputs) for j in range(d)]

    def hvp(pair: tuple[tf.Tensor, tf.Tensor]) -> tf.Tensor:
        cotangent, tangent = pair
        with tf.autodiff.ForwardAccumulator(x, tangent[None]) as acc:
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = g(x)
            grad = tape.gradient(y, x, output_gradients=tf.cast(cotangent[None], y.dtype), unconnected_gradients=ZERO)
        return acc.jvp(grad, unconnected_gradients=ZERO)[0]                   # (d,): H_k[:, j]

    passes = []
    for chunk in _chunks(len(pairs), 1, rows):
        cotangents = tf.one_hot([pairs[p][0] for p in chunk], outputs, dtype=x.dtype)     # (m, out)
        tangents = tf.one_hot([pairs[p][1] for p in chunk], d, dtype=x.dtype)              # (m, d)
        passes.append(tf.vectorized_map(hvp, (cotangents, tangents)) if use_pfor                 # (m, d)
                      else tf.map_fn(hvp, (cotangents, tangents), fn_output_signature=x.dtype))
    columns = tf.reshape(tf.concat(passes, axis=0), (outputs, d, d))                      # [k, j, :]: H_k[:, j]
    return tf.transpose(columns, (0, 2, 1))[None]


def hutchinson(g: Callable, x: tf.Tensor, kind: str, probes: int, rows: int, use_pfor: bool = True) -> dict:
    """``mean_s v_s^T H v_s`` over ``probes`` random +-1 vectors (``v^T J v`` for a divergence), and its standard
    error ``std_s / sqrt(probes)``."""
    out = first_order(g, x, use_pfor)
    b, d = int(x.shape[0]), int(x.shape[1])
    outputs = 1 if kind == "divergence" else int(out["y"].shape[1])
    # drawn in float32 whatever x's dtype: a stateless draw in float64 is another stream, and the same request in
    # float32 and float64 got other probes (estimates 1.5 apart, not float32's rounding)
    uniform = tf.random.stateless_uniform((probes, b, d), seed=PROBE_SEED, dtype=tf.float32)
    v = tf.where(uniform < 0.5, tf.constant(-1, x.dtype), tf.constant(1, x.dtype))
    samples = []
    for chunk in _chunks(probes, b, rows):
        vs = v[chunk.start:chunk.stop]
        hvps = _tiled_hvps(g, x, vs, int(out["y"].shape[1]), kind == "divergence")
        samples.append(tf.stack([tf.reduce_sum(hv * vs, axis=-1) for hv in hvps[:outputs]], axis=-1))  # (m, B, o)
    q = tf.concat(samples, axis=0)                                                # (S, B, o)
    mean = tf.reduce_mean(q, axis=0)
    spread = tf.sqrt(tf.reduce_sum(tf.square(q - mean), axis=0) / max(probes - 1, 1))
    error = spread / tf.sqrt(tf.cast(probes, x.dtype))
    if kind == "divergence":
        return {**out, "value": mean[:, 0], "error": error[:, 0]}
    return {**out, "value": mean, "error": error}
