"""Second order: per-element Hessians, per-sample Hessians and Laplacians, divergences, Hessian-vector products.

A private room of gradlib (issue 25). It imports gradlib's foundations (``_errors``, ``_limits``, ``_format``,
``_cache``, ``_runtime``), the callable contract (``_callable``: the inputs' forms and checks, the cache key of a
function, its trace) and the language (typed functions' Hessians). The
public names are exported lazily by ``gradlib/__init__.py``.

- ``_orders``     the method table: each row's kinds, cost estimate and limits; ``auto``'s choice
- ``_tapes``      the tape methods (nested tapes, the loop over input dimensions, forward over reverse, Hutchinson)
- ``_taylor``     the forward Laplacian's per-layer rules for Dense layers
- ``_forward_laplacian`` those rules run in chunks of the batch that stay in the cache (``auto``'s Dense path)
- ``_runner``     the one engine: size, choose, trace once (cached), run, check the batch's independence
- ``_curvature``  the diagnoses in ``.warnings`` (piecewise-linear networks, pfor fallbacks)
- ``_poisoning``  NaN-poisoned cells (a where() branch not taken): recomputed under ``auto`` in forward over
                  forward mode, or named in ``.warnings``
- ``_answers``    the results, plain data
- ``_hessians``   ``hessians`` and ``hvp`` (a function of a few tensors)
- ``_samplewise`` ``per_sample_hessians``, ``laplacian`` and ``divergence`` (a function of a batch)
"""

__all__: list[str] = []
