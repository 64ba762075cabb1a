"""The forward jet's tanh layer with its weight-gradient pass written out (``tf.custom_gradient``).

For ``t = tanh(z)``, ``s = 1 - t^2`` and ``m = -2 t`` (``s' = m s``), the jet's layer maps the pre-activation ``z``,
its first derivatives ``a_j = Jz_j`` and second ``e_ij = Dz_ij`` to::

    t        J_j = s a_j        D_ij = s p_ij,  p_ij = e_ij + m a_i a_j

TensorFlow's own gradient of these ops materializes ``s``, ``m`` and each product twice over (about 30 elementwise
ops of the batch's size per layer in a Burgers step); written out, the pass back is ``gp_ij = s gD_ij`` (the
gradient of ``e_ij``), ``ga_j = s gJ_j + m sum_pairs gp_ij a_other`` and ``gz = s (gt + m (sum_j gJ_j a_j +
sum_ij gD_ij p_ij) - 2 sum_ij gp_ij a_i a_j)``, with ``s v`` as one ``TanhGrad`` op: about a fifth fewer ops, the
same matrix products. The numbers are the chain rule's own (``tests/pde/test_jet.py`` holds the weight gradients to
nested tapes' at 1e-9 relative in float64). The pass back is made of TensorFlow ops, so a tape around it can
differentiate it again.
"""

from __future__ import annotations

from typing import Callable

import tensorflow as tf

__all__ = ["tanh_layer"]


def tanh_layer(z: tf.Tensor, jz: dict, dz: dict, keep: tuple[int, ...]) -> tuple[tf.Tensor, dict, dict]:
    """``(t, {j: J_j for j in keep}, {(i, j): D_ij})`` from ``z``, ``{j: a_j}`` and ``{(i, j): e_ij}`` (all ``None``:
    the first layer, where ``Dz`` is 0; an ``a_j`` of rank 1 is a kernel row, the same for every point). Only the
    ``J_j`` the next layer takes are outputs: an output nothing reads would still get a gradient of zeros, at the
    batch's size, from the pass back."""
    along, pairs = tuple(jz), tuple(dz)
    keep = tuple(j for j in along if j in keep)
    if not keep and not pairs:
        return tf.tanh(z), {}, {}
    carried = [dz[pair] for pair in pairs if dz[pair] is not None]
    out = _rule(along, keep, pairs, bool(carried))(z, *(jz[j] for j in along), *carried)
    return out[0], dict(zip(keep, out[1:1 + len(keep)])), dict(zip(pairs, out[1 + len(keep):]))


def _rule(along: tuple[int, ...], keep: tuple[int, ...], pairs: tuple[tuple[int, int], ...], carried: bool
          ) -> Callable:
    """The layer for these coordinates and pairs as one ``tf.custom_gradient`` function of ``(z, *a, *e)``."""
    at = {j: k for k, j in enumerate(along)}

    @tf.custom_gradient
    def layer(z, *rest):
        a, e = rest[:len(along)], (rest[len(along):] if carried else (None,) * len(pairs))
        t = tf.tanh(z)
        s = None if all(v.shape.rank == 2 for v in a) else 1 - t * t

        def times_s(v):   # s v: one TanhGrad op, or a kernel row's broadcast product
            return tf.raw_ops.TanhGrad(y=t, dy=v) if v.shape.rank == 2 else s * v
        m = -2 * t if pairs else None
        q = [tf.square(a[at[i]]) if i == j else a[at[i]] * a[at[j]] for i, j in pairs]
        p = [m * qij if eij is None else eij + m * qij for qij, eij in zip(q, e)]
        outputs = [t] + [times_s(a[at[j]]) for j in keep] + [tf.raw_ops.TanhGrad(y=t, dy=v) for v in p]

        def back(*g):
            g_j, g_d = g[1:1 + len(keep)], g[1 + len(keep):]
            gp = [tf.raw_ops.TanhGrad(y=t, dy=v) for v in g_d]
            ga = {j: tf.raw_ops.TanhGrad(y=t, dy=u) for j, u in zip(keep, g_j)}
            for (i, j), gpij in zip(pairs, gp):
                mg = m * gpij
                for k, other in ((i, 2 * mg * a[at[i]]),) if i == j else ((i, mg * a[at[j]]), (j, mg * a[at[i]])):
                    ga[k] = ga[k] + other if k in ga else other
            ga_in = [ga[j] if a[at[j]].shape.rank == 2 else tf.reduce_sum(ga[j], axis=0) for j in along]
            gs = tf.add_n([u * a[at[j]] for j, u in zip(keep, g_j)] + [u * v for u, v in zip(g_d, p)])
            terms = [g[0], m * gs if pairs else -2 * t * gs]
            if pairs:
                terms.append(-2 * tf.add_n([u * v for u, v in zip(gp, q)]))
            return [tf.raw_ops.TanhGrad(y=t, dy=tf.add_n(terms))] + ga_in + (gp if carried else [])
        return outputs, back
    return layer
