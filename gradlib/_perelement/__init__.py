"""The per-element engine: the Jacobian of a typed function or a callable, row by row, every method side by side.

A room of the library (docs/architecture.md): it imports the foundations, the callable contract (``_callable``)
and the language room.
``_api`` is its door (``evaluate``, ``per_element_gradients``); ``_compare`` runs every method with checks and
diagnosis; ``_persample`` is the batch form; the rest is the method table (``_methods``), its costs and
plans (``_cost``, ``_plan``), how a method runs and is compiled (``_engine``, ``_compute``, ``_compiled``,
``_package``, ``_repair``), the callable's probe (``_probe``), and what is shown about
a result (``_result``, ``_checks``, ``_findings``, ``_guard``, ``_demos``).
"""

__all__: list[str] = []
