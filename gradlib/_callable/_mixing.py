"""The check that a batch's samples do not mix: what makes a per-sample derivative exist at all.

For a random cotangent ``u``, the whole batch's vector-Jacobian product ``u^T dy/dx`` must equal what the per-sample
Jacobians give, ``sum_k u[c, k] J[c, k, :]`` for each sample ``c``. A sample whose output depends on another
sample's input breaks that equality (with probability one for a random ``u``): a layer that mixes the batch
(BatchNormalization in training mode, a shift along the batch axis). Every per-sample API (first and second order,
PDE residuals) asks this one check and words its first part the same (``mixing_text``).

The projection sees only what the tape differentiates. A function that mixes the batch in its values alone (a batch
statistic under ``tf.stop_gradient``: ``x / stop_gradient(std(x, axis=0))``) passes it, and batch_jacobian gave
that batch's Jacobians, not each sample's (hunt 54: 1.889 where sample 3 alone gives 9.234, while method ``loop``
refused the same function as mixing). So the compiled steps also call fn once more, on the batch with its first
and last samples held and the others moved (``held``, ``held_outputs``: one forward pass); where a held sample's
output changed (``moved_samples``), the API computes its derivatives in the moved batch and refuses if they differ
(``held_refusal``). A value that moves with the batch while its derivatives do not
(``x - stop_gradient(mean(x))``) is answered, and so is an output that depends on the batch's size (the moved batch
has the same size).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

import tensorflow as tf

from .._foundations._format import format_number
from ._outputs import joined_outputs
from ._state import same_output

__all__ = ["MIXING_TOLERANCE", "PROJECTION_SEED", "Mixing", "held", "held_outputs", "held_refusal", "moved_batch",
           "moved_samples", "second_held", "find_mixing", "mixing_text"]

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


def held(x: tf.Tensor, last: bool = False) -> tf.Tensor:
    """The batch with its first and its last sample as they are and every other sample moved halfway towards the
    first (``x[c] / 2 + x[0] / 2``): another mean and spread, the same batch size, every feature within the batch's
    own range, so a function that takes the batch takes this one. A sample equal to the one it moves towards would
    not move at all (a batch of identical samples hid every mixing: mutants57), so it moves by ``(|x| + 1) / 16``
    instead. ``last``: only the last sample held, the others moved towards it (of two samples, the pass that holds
    the second: one pass cannot hold both and move one). Traceable."""
    b = tf.shape(x)[0]
    rows = tf.range(b)
    keep = (rows == b - 1) if last else (rows == 0) | ((rows == b - 1) & (b > 2))
    halfway = x / 2 + (x[-1:] if last else x[:1]) / 2
    still = tf.reduce_all(tf.equal(halfway, x), axis=tf.range(1, tf.rank(x)), keepdims=True)
    moved = tf.where(still, x + (tf.abs(x) + 1) / 16, halfway)
    return tf.where(tf.reshape(keep, tf.concat([[b], tf.ones([tf.rank(x) - 1], tf.int32)], 0)), x, moved)


def moved_batch(x: tf.Tensor, sample: int) -> tf.Tensor:
    """The batch in which ``sample`` (the first or the last) is held and the others moved: ``held``'s pass that
    holds it."""
    return held(x, last=sample > 0 and x.shape[0] == 2)


def held_outputs(fn: Callable, x: tf.Tensor, api: str) -> tf.Tensor:
    """Traceable: fn's output on the batch with its first and last samples held and the others moved (``held``),
    joined (``moved_samples`` compares the held samples' rows with the batch's own; of two samples, after
    ``second_held``)."""
    return joined_outputs(fn(held(x)), x.shape[0], api)


def second_held(fn: Callable, x: Any, ends: np.ndarray, api: str) -> np.ndarray:
    """``ends`` (``held_outputs``), where the batch has two samples, with its second row from the pass that holds
    the second and moves the first: one pass cannot hold both, and the compiled one held the first, so a sample 1
    that reads sample 0 under stop_gradient passed (hunt 56: y[1] = tanh(x[1]) * x[0] answered x[0] * tanh'(x[1])
    where sample 1 alone has tanh'(x[1])). One more forward pass, eager, for batches of two only."""
    ends = np.array(ends)
    if ends.shape[0] == 2:
        ends[1] = np.asarray(joined_outputs(fn(held(tf.convert_to_tensor(x), last=True)), 2, api))[1]
    return ends


def moved_samples(y: np.ndarray, moved: np.ndarray, dtype: str) -> list[int]:
    """The held samples (the first and the last) whose output changed when the other samples moved (``moved``, from
    ``held_outputs``, and ``second_held`` of two samples) beyond ``dtype``'s rounding (``_state.same_output``)."""
    b = y.shape[0]
    rows, moved = np.asarray(y).reshape(b, -1), np.asarray(moved).reshape(b, -1)
    return [i for i in sorted({0, b - 1}) if not same_output(moved[i], rows[i], dtype)]


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
    return (f"{api}: the samples of the batch are not independent: when the other samples move, sample {sample}'s "
            f"output and its {what} change ({format_number(given[k], 4)} in the batch as given, "
            f"{format_number(moved[k], 4)} with the others moved, where they differ most). fn mixes the batch "
            "through a path the tape does not differentiate (a batch statistic under tf.stop_gradient, an integer "
            "cast), which the backward check cannot see, so these derivatives belong to this batch, not to the "
            "sample. Compute such a statistic outside fn and pass it in (as BatchNormalization in inference mode "
            f"reads its moving statistics), or use gradlib.{instead} on the whole batch")
