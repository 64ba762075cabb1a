"""Which batches' independence has been checked: the weights' fingerprint and the bounded record of checks.

``per_example_gradients`` proves that a batch's examples do not mix by computing each example's loss alone
(``_gradients.check_independent``): about one more forward pass of the batch, which made the norms cost 1.3-1.7
plain batch gradients instead of 0.5-0.7 (issue 41). Whether a traced step mixes examples is decided by its graph
(the model, loss, kind, training flag: the compiled function's key), the batch's shapes and the values of the
variables the graph reads (a weight can gate a batch-mixing term: ``x + (alpha > 1) * mean(x, axis=0)``). So the
check runs once per compiled step, batch signature (the batch size included) and weights' fingerprint, and again
whenever any of them changes; each step keeps a ``record`` of the fingerprint each signature was last checked at.
The fingerprint and the record are ``gradlib._callable._weights``' (``per_sample_gradients`` amortizes its own check
with them): every floating-point variable of the model, trainable or not, hashed in the same traced step.
"""

from __future__ import annotations

from .._callable._weights import FINGERPRINT_SPEC, SIGNATURES, record, weights_fingerprint

__all__ = ["FINGERPRINT_SPEC", "SIGNATURES", "record", "weights_fingerprint"]
