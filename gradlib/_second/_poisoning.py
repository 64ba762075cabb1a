"""NaN poisoning at second order: the cells found, recomputed in forward over forward mode, or reported.

Nested tapes (and forward over reverse) differentiate every path of fn's graph, those that carry a zero too: the
branch of a where() not taken, another output's path. Zero times an infinite derivative is NaN, so the Hessian of
``x1**2`` beside ``where(x0 > 0, sqrt(abs(x0)), 0)`` at ``x0 = 0`` is NaN where it is 2. A cell is poisoned when
its output and its sample's inputs are finite but the cell is NaN (a NaN output's derivatives are NaN for a reason).

Two nested ``ForwardAccumulator``s (forward over forward) carry tangents along the branch a where() takes only (it
selects tangents, it does not multiply the other branch's by 0) and along each output's own path: ``auto``
recomputes every poisoned cell that way, as the first order recomputes a poisoned row in the other mode
(gradlib._perelement._repair). A cell NaN in both is not finite on its own output's path (sqrt or log at 0 in the
branch taken): it stays NaN, and is reported.

>>> poisoned_mask(np.zeros((1, 2)), np.array([[0.0, np.nan]]), np.array([[np.nan, np.nan]]), "laplacian").tolist()
[[True, False]]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np
import tensorflow as tf

from .._foundations._errors import error_gist
from .._foundations._limits import Limits

__all__ = ["Poisoning", "cell_label", "directional", "poisoned_mask", "poisoning_warnings", "repair"]

ZERO = tf.UnconnectedGradients.ZERO
#: the rows of one forward-over-forward pass on copies of the batch
TILE_ROWS = 16_384
#: cells named in one warning
SHOWN = 6


@dataclass(frozen=True)
class Poisoning:
    """The poisoned cells of a result (indices into its value), those repaired, and why no repair ran ("")."""

    cells: np.ndarray = field(default_factory=lambda: np.zeros((0, 1), int))
    repaired: np.ndarray = field(default_factory=lambda: np.zeros((0, 1), int))
    why_not: str = ""
    ran: bool = False


def poisoned_mask(x: np.ndarray, y: np.ndarray, value: np.ndarray, kind: str) -> np.ndarray:
    """The NaN cells of ``value`` whose sample's inputs and whose output are finite.

    ``x`` ``(B, d)``, ``y`` ``(B, out)``; ``value`` ``(B,)`` for a divergence (all of a sample's outputs must be
    finite), else ``(B, out, ...)``."""
    finite_x = np.isfinite(x).all(axis=1)
    if kind == "divergence":
        return np.isnan(value) & finite_x & np.isfinite(y).all(axis=1)
    ok = finite_x[:, None] & np.isfinite(y)
    return np.isnan(value) & ok.reshape(ok.shape + (1,) * (value.ndim - 2))


def directional(g: Callable, x: tf.Tensor, samples: np.ndarray, outer: np.ndarray, inner: np.ndarray,
                tileable: bool) -> tuple[np.ndarray, np.ndarray]:
    """Forward over forward, eagerly: for each row ``r``, ``J w`` and ``u^T H_k w`` of every output ``k`` of
    sample ``samples[r]`` (``w = inner[r]``, ``u = outer[r]``): two arrays ``(R, out)``.

    A tileable ``g`` takes the rows as batches of copies, each as large as the batch ``x`` (which the method that
    ran before held on a tape, with more besides) and at most ``TILE_ROWS``; any other (a function of one fixed
    input) one row at a time."""
    step = _rows_per_pass(x, tileable)
    firsts, seconds = [], []
    for s in range(0, len(samples), step):
        rows = slice(s, s + step)
        xs = tf.gather(x, samples[rows])
        with tf.autodiff.ForwardAccumulator(xs, tf.constant(outer[rows], x.dtype)) as acc2:
            with tf.autodiff.ForwardAccumulator(xs, tf.constant(inner[rows], x.dtype)) as acc1:
                y = g(xs)
            first = acc1.jvp(y, unconnected_gradients=ZERO)
        firsts.append(first.numpy())
        seconds.append(acc2.jvp(first, unconnected_gradients=ZERO).numpy())
    return np.concatenate(firsts), np.concatenate(seconds)


def repair(g: Callable, x: tf.Tensor, value: np.ndarray, mask: np.ndarray, kind: str, tileable: bool,
           limits: Limits, direction: np.ndarray | None = None) -> tuple[np.ndarray, Poisoning]:
    """``(value, poisoning)``: the cells of ``mask`` recomputed in forward over forward mode where that is finite.

    ``kind`` is ``hessian`` ``(B, out, d, d)``, ``diagonal`` ``(B, out, d)``, ``laplacian`` ``(B, out)``,
    ``divergence`` ``(B,)``, ``hvp`` ``(1, out, d)`` (then ``direction`` is the hvp's ``v``, ``(d,)``) or
    ``jacobian`` ``(B, out, d)``, the first derivatives every result carries."""
    cells = np.argwhere(mask)
    samples, outer, inner, place = _plan(mask, kind, int(x.shape[1]), direction)
    passes = -(-len(samples) // _rows_per_pass(x, tileable))
    if passes > limits.max_unrolled:
        return value, Poisoning(cells, why_not=f"forward over forward would take {passes:,} passes, and at most "
                                               f"{limits.max_unrolled:,} are allowed")
    try:
        first, second = directional(g, x, samples, outer, inner, tileable)
    except Exception as exc:   # noqa: BLE001 - fn cannot run under forward mode eagerly: say so, keep the NaN
        return value, Poisoning(cells, why_not=f"forward over forward failed ({type(exc).__name__}: "
                                               f"{error_gist(exc)})", ran=True)
    fixed = value.copy()
    recomputed = place(first, second)
    take = mask & np.isfinite(recomputed)
    fixed[take] = recomputed[take]
    return fixed, Poisoning(cells, np.argwhere(take), ran=True)


def _rows_per_pass(x: tf.Tensor, tileable: bool) -> int:
    return min(TILE_ROWS, int(x.shape[0])) if tileable else 1


def _plan(mask: np.ndarray, kind: str, d: int, direction: np.ndarray | None):
    """The rows of forward over forward that ``mask`` needs, and how to place their answers: ``(samples, outer,
    inner, place)``; ``place(first, second)`` is an array shaped like the value (NaN where not recomputed)."""
    eye = np.eye(d)
    if kind == "hessian":
        triples = np.argwhere(mask.any(axis=1))                                   # (b, i, j)
        triples = np.unique(np.column_stack([triples[:, 0], np.sort(triples[:, 1:], axis=1)]), axis=0)
        index = {tuple(t): r for r, t in enumerate(triples.tolist())}

        def place(first, second):
            out = np.full(mask.shape, np.nan)
            for b, k, i, j in np.argwhere(mask):
                out[b, k, i, j] = second[index[(b, min(i, j), max(i, j))], k]
            return out
        return triples[:, 0], eye[triples[:, 1]], eye[triples[:, 2]], place
    if kind in ("diagonal", "hvp", "jacobian"):
        pairs = np.unique(np.argwhere(mask.any(axis=1)), axis=0)                  # (b, j)
        index = {tuple(p): r for r, p in enumerate(pairs.tolist())}
        outer = np.tile(direction, (len(pairs), 1)) if kind == "hvp" else eye[pairs[:, 1]]

        def place(first, second):
            out = np.full(mask.shape, np.nan)
            for b, k, j in np.argwhere(mask):
                out[b, k, j] = (first if kind == "jacobian" else second)[index[(b, j)], k]
            return out
        return pairs[:, 0], outer, eye[pairs[:, 1]], place
    bs = np.flatnonzero(mask.reshape(mask.shape[0], -1).any(axis=1))             # laplacian, divergence
    samples, js = np.repeat(bs, d), np.tile(np.arange(d), len(bs))

    def place(first, second):
        out = np.full(mask.shape, np.nan)
        if kind == "laplacian":
            out[bs] = second.reshape(len(bs), d, -1).sum(axis=1)
        else:
            out[bs] = first[np.arange(len(js)), js].reshape(len(bs), d).sum(axis=1)
        return out
    return samples, eye[js], eye[js], place


def poisoning_warnings(p: Poisoning, what: str, method: str, label: Callable[[Sequence[int]], str],
                       auto: bool) -> tuple[str, ...]:
    """The warnings of ``p``: the cells repaired, the cells left NaN and why, each named by ``label``."""
    if not len(p.cells):
        return ()
    repaired = {tuple(c) for c in p.repaired.tolist()}
    left = [c for c in p.cells.tolist() if tuple(c) not in repaired]
    cause = (f"method {method!r} multiplies a zero derivative (a where() branch not taken, or another output's path) "
             "by one that is not finite there, and 0 x inf or 0 x NaN is NaN")
    if not auto:
        return (f"NaN in {_some(p.cells.tolist(), label)} of {what}, whose output is finite: {cause}. "
                "method='auto' recomputes such cells in forward over forward mode, which follows only the branch "
                "taken and each output's own path",)
    if p.why_not and not p.ran:
        return (f"NaN in {_some(left, label)} of {what}, whose output is finite: {cause}; not repaired: "
                f"{p.why_not}",)
    warnings = ()
    if repaired:
        warnings += (f"repaired NaN poisoning in {_some(p.repaired.tolist(), label)} of {what}: {cause}; forward "
                     "over forward mode follows only the branch taken and each output's own path, and gives these "
                     "cells finite values",)
    if left:
        why = f"forward over forward mode was tried and {p.why_not}" if p.why_not else (
            "forward over forward mode gives NaN there too: a derivative that is not finite on that output's own "
            "path at these inputs (sqrt or log at 0, say, in the branch taken), so no mode gives a number there")
        warnings += (f"NaN in {_some(left, label)} of {what}, whose output is finite, with {method}: {why}",)
    return warnings


def cell_label(kind: str, rows: Sequence[str], cols: Sequence[str], batch: bool) -> Callable[[Sequence[int]], str]:
    """How a cell of a ``kind`` result is named: ``sample 0: y[1] at (x[0], x[0])`` (no sample without a batch).

    >>> cell_label("hessian", ("y[0]", "y[1]"), ("a", "b"), False)((0, 1, 0, 1))
    'y[1] at (a, b)'
    """
    def label(cell: Sequence[int]) -> str:
        b, rest = cell[0], list(cell[1:])
        where = "" if not batch else f"sample {b}" + (": " if rest else "")
        if kind == "hessian":
            return f"{where}{rows[rest[0]]} at ({cols[rest[1]]}, {cols[rest[2]]})"
        if kind in ("diagonal", "hvp", "jacobian"):
            at = f"({cols[rest[1]]}, {cols[rest[1]]})" if kind == "diagonal" else cols[rest[1]]
            return f"{where}{rows[rest[0]]} at {at}"
        return f"{where}{rows[rest[0]]}" if rest else where
    return label


def _some(cells: list, label: Callable[[Sequence[int]], str]) -> str:
    names = "; ".join(label(c) for c in cells[:SHOWN])
    more = f"; and {len(cells) - SHOWN:,} more" if len(cells) > SHOWN else ""
    return f"{len(cells):,} cell(s) ({names}{more})"
