"""Per-example gradients of a training loss with respect to a model's weights, and their data-set form.

A room of the library (docs/architecture.md): it imports the foundations and the callable contract
(``_callable``). ``_gradients`` is its door
(``per_example_gradients``), ``_ghost`` holds the layer rules, ``_structure`` reads a model's inputs and labels
the way ``model.fit`` does, ``_tokens`` refuses token ids outside an Embedding's table (both APIs), and
``_scan`` streams a whole data set through ``tf.data`` (``gradlib.scan``).
"""

__all__: list[str] = []
