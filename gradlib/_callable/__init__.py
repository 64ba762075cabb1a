"""The callable contract: a user's function and its inputs, as every API of gradlib takes them.

A room of the library (docs/architecture.md) on the foundations' floor: it imports only the foundations, and every
room that takes a user's function imports it (the per-element engine, second order, per-example gradients, PDE
residuals). ``_state`` is the callable's cache key (``fingerprint``: the values a trace would freeze) and the proof
that a Keras model computes as its class; ``_trace`` is the only place that calls ``tf.function`` on a user's
function (every compiled variant a room needs, XLA or not, forward or reverse, is asked for there).
"""

__all__: list[str] = []
