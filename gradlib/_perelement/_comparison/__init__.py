"""The comparison, the per-element room's upper floor: every method side by side, checked and explained.

It sits above the engine (docs/architecture.md): its modules import the engine's door (``_api``) and the engine's
modules, and no module of the engine imports one of these (``tests/project/test_architecture.py`` enforces the
one-way floor). ``_compare`` is its door (``compare``); ``_checks`` holds the finite-difference check and the
methods' agreement, ``_findings`` the diagnosis, ``_guard`` the dead branch of a ``where()``, ``_crosscheck`` the
gradients eagerly, as a graph, under XLA and in forward mode side by side (``crosscheck``), and ``_demos`` the
seed's pitfalls, computed live.
"""

__all__: list[str] = []
