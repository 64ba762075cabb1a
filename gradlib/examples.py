"""What the dashboard shows: example functions and the pitfalls of TensorFlow's tapes, computed live.

A public submodule for the app (like ``gradlib.figures``): a library user computing gradients needs none of it, so
none of it is in ``gradlib.__all__``. The playground's and the bug page's example functions (``PRESETS``), the seed's
pitfalls of first order (``demonstrate``: each run in TensorFlow on call) and of second order
(``second_order_mistakes``), and a small physics example (``poisson_example``: Laplacians over a 2-D grid).

Importing it is cheap: the names that need TensorFlow load on first use.

>>> from gradlib import examples
>>> examples.PRESETS_BY_KEY["seed"].outputs
'[x0*x1*x2, x0*x1*x2*x0]'
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Cheap (standard library only): loaded at once.
from ._language._presets import PRESETS, PRESETS_BY_KEY, Preset

if TYPE_CHECKING:   # for readers and checkers only: importing them would load TensorFlow (``__getattr__`` below)
    from ._perelement._comparison._demos import DEMOS, Demo, demonstrate
    from ._second._mistakes import PoissonExample, SecondOrderMistake, poisson_example, second_order_mistakes

__all__ = [
    "DEMOS", "Demo", "PRESETS", "PRESETS_BY_KEY", "PoissonExample", "Preset", "SecondOrderMistake", "demonstrate",
    "poisson_example", "second_order_mistakes",
]

#: the names that need TensorFlow: name -> the private module (relative to gradlib) it is defined in
_LAZY = {
    "DEMOS": "._perelement._comparison._demos", "Demo": "._perelement._comparison._demos",
    "demonstrate": "._perelement._comparison._demos",
    "PoissonExample": "._second._mistakes", "SecondOrderMistake": "._second._mistakes",
    "poisson_example": "._second._mistakes", "second_order_mistakes": "._second._mistakes",
}


def __getattr__(name: str) -> Any:
    """Import a name that needs TensorFlow on first use, then keep it here."""
    if name not in _LAZY:
        raise AttributeError(f"module 'gradlib.examples' has no attribute {name!r}")
    value = getattr(importlib.import_module(_LAZY[name], "gradlib"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
