"""PDE residuals for physics-informed networks: a network's derivatives by coordinate name, as tensors.

A room of the library (docs/architecture.md): it imports the foundations, the language (``gradlib._language``:
a residual's text is parsed and built by it) and the per-element engine (its per-sample mixing test).
``_names`` reads coordinate, output and derivative names, ``_derivatives`` computes what is asked with nested
tapes inside the caller's own tape or ``tf.function``, ``_residual`` turns a typed residual into a callable and
``_check`` runs the eager checks once. The public face is ``gradlib.pde``.
"""

__all__: list[str] = []
