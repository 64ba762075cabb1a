"""The check that a batch's samples do not mix: what makes a per-sample derivative exist at all.

For a random cotangent ``u``, the whole batch's vector-Jacobian product ``u^T dy/dx`` must equal what the per-sample
Jacobians give, ``sum_k u[c, k] J[c, k, :]`` for each sample ``c``. A sample whose output depends on another
sample's input breaks that equality (with probability one for a random ``u``): a layer that mixes the batch
(BatchNormalization in training mode, a shift along the batch axis). Every per-sample API (first and second order,
PDE residuals) asks this one check and words its first part the same (``mixing_text``).

The projection sees only what the tape differentiates. A function that mixes the batch in its values alone (a batch
statistic under ``tf.stop_gradient``: ``x / stop_gradient(std(x, axis=0))``) passes it, and batch_jacobian gave
that batch's Jacobians, not each sample's (hunt 54: 1.889 where sample 3 alone gives 9.234, while method ``loop``
refused the same function as mixing). So the compiled steps also take ``tower`` (fn's value and its derivatives
along random directions, up to the order the API answers) on the batch as given and on two moved batches (``held``,
``held_outputs``): one with its even samples held and the odd ones moved, one the other way round, so that every
sample is held once while what it could read moves. Where a held sample's derivatives changed (``moved_samples``),
the API computes its derivatives in the moved batch and refuses if they differ (``held_refusal``). Derivatives are
compared, not values: a hard boundary ansatz ``x (1 - x) N(x)`` is 0 at x = 0 and 1 whatever N reads, while its
derivatives there move with N, and the held pass that compared the first and last samples' values let every API
answer that batch's derivatives (hunt 59). A value that moves with the batch while its derivatives do not
(``x - stop_gradient(mean(x))``) is answered, and so is an output that depends on the batch's size (the moved
batches have the same size).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

import tensorflow as tf

from .._foundations._format import format_number
from ._outputs import joined_outputs
from ._state import same_output

__all__ = ["MIXING_TOLERANCE", "PROJECTION_SEED", "Mixing", "held", "held_outputs", "held_refusal", "held_rows",
           "held_tower", "moved_batch", "moved_samples", "find_mixing", "mixing_text", "tower"]

#: the projection check's tolerance, relative to the scale of the per-sample terms it sums (float32 rounding
#: in sums over a few hundred terms stays below 1e-5; a BatchNormalization over 1,000 samples mixes at 1e-3).
#: Half precision: about 10 of its epsilons (float16's 2**-10, bfloat16's 2**-7). bfloat16's was float16's 1e-2,
#: 1.3 of its epsilons: independent mixed_bfloat16 MLPs (tanh, widths 16 and 64, batches of 5 and 64) gapped by
#: 0.007 in the median and 0.018 at most on a CPU with native bf16 kernels (AVX512_BF16), so they were refused as
#: mixing; a layer that centres over the batch gaps by 3.8 or more in both half precisions.
MIXING_TOLERANCE = {"float16": 1e-2, "bfloat16": 8e-2, "float32": 1e-4, "float64": 1e-10}
#: the random cotangent ``u`` of the check (fixed: the same function and batch always get the same verdict)
PROJECTION_SEED = (20, 26)


@dataclass(frozen=True)
class Mixing:
    """Where a batch's samples are seen to mix: the ``sample`` whose input changes another's output most, by how
    much (``gap``) at the scale of the per-sample terms (``scale``)."""

    sample: int
    gap: float
    scale: float


def find_mixing(jac: np.ndarray, u: np.ndarray, g: np.ndarray, dtype: str) -> tuple[Mixing | None, bool]:
    """``u^T dy/dx`` over the batch (``g``) against ``sum_k u[c, k] J[c, k, :]`` per sample ``c`` (``jac`` from
    batch_jacobian): the mixing found beyond ``MIXING_TOLERANCE`` (or ``None``), and whether every entry was
    finite. Where the function mixes samples, batch_jacobian silently sums other samples' outputs into each block
    and ``g`` differs from the blocks' prediction. Only finite entries count as evidence (an all-inf batch does
    not mix). The sums run in float64 whatever the batch's dtype (NumPy's einsum has no bfloat16)."""
    jac, u, g = (np.asarray(a, np.float64) for a in (jac, u, g))
    b = u.shape[0]
    blocks, weights = jac.reshape(b, u[0].size, -1), u.reshape(b, -1)
    with np.errstate(all="ignore"):
        predicted = np.einsum("bk,bkd->bd", weights, blocks)
        scale = np.einsum("bk,bkd->bd", np.abs(weights), np.abs(blocks))
        gap = np.abs(g.reshape(b, -1) - predicted)
    finite = np.isfinite(gap) & np.isfinite(scale)
    if not finite.any():
        return None, False
    top = max(float(scale[finite].max()), 1e-30)
    excess = np.where(finite, gap, 0.0)
    if excess.max() <= MIXING_TOLERANCE.get(dtype, 1e-4) * top:
        return None, bool(finite.all())
    sample = int(np.unravel_index(np.argmax(excess), excess.shape)[0])
    return Mixing(sample, float(excess.max()), float(scale[finite].max())), bool(finite.all())


def mixing_text(m: Mixing) -> str:
    """The first part of a mixing refusal: which sample, by how much."""
    scale = (f"at a scale of {format_number(m.scale, 3)}" if m.scale > 0 else
             "where the per-sample Jacobians are all zero: each sample alone does not move its output, as for "
             "x - mean(x) over the batch")
    return (f"the samples of the batch are not independent: the input of sample {m.sample} changes the output of "
            f"another sample (a random projection of dy/dx differs from the per-sample Jacobians by "
            f"{format_number(m.gap, 3)}, {scale})")


def held(x: tf.Tensor, odd: bool = False) -> tf.Tensor:
    """The batch with its even samples (0, 2, ...) as they are and every odd one moved halfway towards the first
    (``x[c] / 2 + x[0] / 2``): another mean and spread, the same batch size, every feature within the batch's own
    range, so a function that takes the batch takes this one. ``odd``: the odd samples held and the even ones moved
    towards the second: the two passes hold every sample once, so a sample that reads any other (the first:
    ``tanh(x) * stop_gradient(x[:1])``) or a statistic is held while what it reads moves. A sample equal to the one
    it moves towards would not move at all (a batch of identical samples hid every mixing: mutants57), so it moves by
    ``(|x| + 1) / 16`` instead. Traceable."""
    b = tf.shape(x)[0]
    parity = int(odd)
    keep = tf.range(b) % 2 == parity
    towards = tf.minimum(parity, b - 1)   # a batch of one has no second sample (and nothing to hold it against)
    halfway = x / 2 + x[towards:towards + 1] / 2
    still = tf.reduce_all(tf.equal(halfway, x), axis=tf.range(1, tf.rank(x)), keepdims=True)
    moved = tf.where(still, x + (tf.abs(x) + 1) / 16, halfway)
    return tf.where(tf.reshape(keep, tf.concat([[b], tf.ones([tf.rank(x) - 1], tf.int32)], 0)), x, moved)


def held_rows(b: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The samples each pass holds: ``held(x)``'s (the even ones) and ``held(x, odd=True)``'s."""
    return tuple(range(0, b, 2)), tuple(range(1, b, 2))


def moved_batch(x: tf.Tensor, sample: int) -> tf.Tensor:
    """The batch in which ``sample`` is held and the others of its pass moved: ``held``'s pass that holds it."""
    return held(x, odd=sample % 2 == 1)


def held_outputs(fn: Callable, x: tf.Tensor, api: str, order: int = 1) -> tf.Tensor:
    """Traceable: ``tower`` of fn on the batch as given, on ``held(x)`` and on ``held(x, odd=True)``, stacked
    ``(3, B, order + 1, width)``. ``moved_samples`` compares each sample's row on the pass that holds it: its
    derivatives up to ``order`` (the order the API answers), which move where the value does not (hunt 59: a hard
    boundary ansatz ``x (1 - x) N(x)`` whose N reads a batch statistic under stop_gradient is 0 at x = 0 and 1
    whatever the batch, and laplacian answered 4.102 at x = 0 where the sample alone has 4)."""
    return tf.stack([tower(fn, t, api, order) for t in (x, held(x), held(x, odd=True))])


def tower(fn: Callable, x: tf.Tensor, api: str, order: int) -> tf.Tensor:
    """``(B, order + 1, width)``: fn's output (joined, flattened per sample), then for ``k = 1 .. order`` the
    gradient of ``sum(r_k * previous)`` with respect to x (fixed random ``r_k``, the same for every batch of a shape):
    each sample's ``k``-th derivatives along random directions, which read that sample's input alone where fn does
    not mix the batch (the projection checks that), one backward pass per order. Rows padded with 0 to one width."""
    b = x.shape[0]
    parts = _tower(lambda t: tf.reshape(joined_outputs(fn(t), b, api), (tf.shape(t)[0], -1)), x, order)
    parts = [tf.cast(p, tf.float64) for p in parts]   # a half-precision output beside float32 derivatives
    width = tf.reduce_max([tf.shape(p)[1] for p in parts])
    return tf.stack([tf.pad(p, [[0, 0], [0, width - tf.shape(p)[1]]]) for p in parts], 1)


def _tower(f: Callable, x: tf.Tensor, order: int) -> list[tf.Tensor]:
    if order == 0:
        return [f(x)]
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(x)
        parts = _tower(f, x, order - 1)
        top = parts[-1] if parts[-1].dtype.is_floating else tf.cast(parts[-1], x.dtype)
        seed = (PROJECTION_SEED[0] + order, PROJECTION_SEED[1])
        total = tf.reduce_sum(tf.random.stateless_normal(tf.shape(top), seed=seed, dtype=top.dtype) * top)
    first = tape.gradient(total, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    return parts + [tf.reshape(first, (tf.shape(x)[0], -1))]


def moved_samples(ends: np.ndarray, dtype: str) -> list[int]:
    """The samples whose derivatives along ``tower``'s random directions changed when the others of their pass moved
    (``ends``, from ``held_outputs``) beyond ``dtype``'s rounding (``_state.same_output``), compared order by order;
    the first and the last first, then the others in order. A value that moves while no derivative does
    (``x - stop_gradient(mean(x))``) is not one: the API answers derivatives."""
    ends = np.asarray(ends)
    b = ends.shape[1]
    moved = [i for p, rows in enumerate(held_rows(b), 1) for i in rows
             if not all(same_output(ends[p, i, k], ends[0, i, k], dtype) for k in range(1, ends.shape[2]))]
    return sorted(moved, key=lambda i: (i not in (0, b - 1), i != 0, i))


def held_tower(ends: np.ndarray, sample: int) -> tuple[np.ndarray, np.ndarray]:
    """``sample``'s ``tower`` rows (its value, then its derivatives by order) in the batch as given and on the pass
    that holds it (``ends`` from ``held_outputs``)."""
    ends = np.asarray(ends)
    return ends[0, sample], ends[1 + sample % 2, sample]


def held_refusal(api: str, sample: int, given: np.ndarray, moved: np.ndarray, dtype: str, what: str,
                 instead: str) -> str:
    """``""`` where ``given`` (a sample's ``what``: its Jacobian, its Laplacian, in the batch as given) equals
    ``moved`` (the same with the other samples moved: ``held``) within ``dtype``'s rounding, else the refusal, with
    the API to use ``instead`` on the whole batch."""
    given, moved = np.asarray(given, np.float64).ravel(), np.asarray(moved, np.float64).ravel()
    if same_output(moved, given, dtype):
        return ""
    gap = np.abs(given - moved)
    k = int(np.argmax(np.where(np.isfinite(gap), gap, -1.0)))
    verb = "changes" if what == "Jacobian" else "change"
    return (f"{api}: the samples of the batch are not independent: when the other samples move, sample {sample}'s "
            f"{what} {verb} ({format_number(given[k], 4)} in the batch as given, "
            f"{format_number(moved[k], 4)} with the others moved, where they differ most). fn mixes the batch "
            "through a path the tape does not differentiate (a batch statistic under tf.stop_gradient, an integer "
            "cast), which the backward check cannot see, so these derivatives belong to this batch, not to the "
            "sample. Compute such a statistic outside fn and pass it in (as BatchNormalization in inference mode "
            f"reads its moving statistics), or use gradlib.{instead} on the whole batch")
