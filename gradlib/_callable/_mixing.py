"""The check that a batch's samples do not mix: what makes a per-sample derivative exist at all.

For a random cotangent ``u``, the whole batch's vector-Jacobian product ``u^T dy/dx`` must equal what the per-sample
Jacobians give, ``sum_k u[c, k] J[c, k, :]`` for each sample ``c``. A sample whose output depends on another
sample's input breaks that equality (with probability one for a random ``u``): a layer that mixes the batch
(BatchNormalization in training mode, a shift along the batch axis). Every per-sample API (first and second order,
PDE residuals) asks this one check and words its first part the same (``mixing_text``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._foundations._format import format_number

__all__ = ["MIXING_TOLERANCE", "PROJECTION_SEED", "Mixing", "find_mixing", "mixing_text"]

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
