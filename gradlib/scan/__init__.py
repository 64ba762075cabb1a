"""``gradlib.scan``: per-example losses and gradient norms over a whole data set (``python -m gradlib.scan``).

The package holds the command line (``_cli``, run by ``__main__``) and its file readers (``_files``); the engine is
``gradlib._perexample._scan``; ``gradlib``
re-exports the function, so ``gradlib.scan(...)`` is the function and ``python -m gradlib.scan`` the command.
The engine (TensorFlow) is imported on first use of a name below, so the command's ``--help`` and its argument
checks answer without loading TensorFlow.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["ScanResult", "scan"]


def __getattr__(name: str) -> Any:
    """``ScanResult`` and ``scan`` from the engine, imported on first use."""
    if name not in __all__:
        raise AttributeError(f"module 'gradlib.scan' has no attribute {name!r}")
    value = getattr(importlib.import_module("gradlib._perexample._scan"), name)
    globals()[name] = value
    return value
