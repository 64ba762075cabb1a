"""PDE residuals for physics-informed networks: a network's derivatives by coordinate name, as tensors.

A room of the library (docs/architecture.md): it imports the foundations, the language (``gradlib._language``:
a residual's text is parsed and built by it), the per-element engine (its per-sample mixing test) and second order
(its Dense layer rules).
``_names`` reads coordinate, output and derivative names, ``_derivatives`` computes what is asked inside the
caller's own tape or ``tf.function`` (by ``_jet``, the forward jet, for a Dense network with layer rules from second
order's ``_taylor``; else by nested tapes), ``_residual`` turns a typed residual into a callable and
``_check`` runs the eager checks once. The public face is ``gradlib.pde``.
"""

__all__: list[str] = []
