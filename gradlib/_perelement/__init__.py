"""The per-element engine: the Jacobian of a typed function or a callable, row by row, every method side by side.

A room of the library (docs/architecture.md): it imports the foundations, the callable contract (``_callable``)
and the language room. It has two floors. The engine: ``_api`` is its door (``evaluate``,
``per_element_gradients``); the method table (``_methods``), its costs and plans (``_cost``, ``_plan``), how a method
runs and is compiled (``_engine``, ``_compute``, ``_compiled``, ``_package``, ``_repair``), the callable's probe
(``_probe``) and the result (``_result``); ``_persample`` is the batch form. Above it, ``_comparison``: every method
side by side with the checks and the diagnosis (``compare``, ``crosscheck``), which imports the engine and which the
engine never imports.
"""

__all__: list[str] = []
