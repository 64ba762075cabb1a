"""The callable contract: a user's function and its inputs, as every API of gradlib takes them.

A room of the library (docs/architecture.md) on the foundations' floor: it imports only the foundations, and every
room that takes a user's function imports it (the per-element engine, second order, per-example gradients, PDE
residuals).

- ``_forms``    inputs: ``xs`` as ``tape.gradient`` takes it (the per-element family), a batch with the samples
                first or a model's several inputs as ``model.fit`` takes them (the per-sample family); every check
                written once, the API's name a parameter, so one bad input gets one refusal across a family
- ``_outputs``  outputs: one or several (list, tuple, dict, a Keras model's), joined and checked; a failing fn
- ``_labels``   row and column labels (``x[1]``, ``price[0]``; an output never by an input's name)
- ``_mixing``   the check that a batch's samples do not mix
- ``_random``   whether fn is random (two calls on the first samples that differ, remembered) and which layers
                hold a generator: methods that combine several calls of fn refuse a random fn
- ``_updates``  a fn whose output reads a variable it also updates (a layer counting its calls into a weight it
                scales by): refused by name from one trace, before any call, by every API that calls fn
- ``_weights``  which batches' independence was checked: the weights' fingerprint (computed in a traced step) and
                the bounded record of checks (per-example gradients, per_sample_gradients, its tiled method)
- ``_state``    the cache key of a function (``fingerprint``: the values a trace would freeze) and the proof that
                a Keras model computes as its class
- ``_trace``    the only place that calls ``tf.function`` on a user's function: every compiled variant a room needs
"""

__all__: list[str] = []
