"""``gradlib.scan``: per-example losses and gradient norms over a whole data set (``python -m gradlib.scan``).

The package holds the engine (``_engine``) and the command line (``_cli``, run by ``__main__``); ``gradlib``
re-exports the function, so ``gradlib.scan(...)`` is the function and ``python -m gradlib.scan`` the command.
"""

from ._engine import ScanResult, scan

__all__ = ["ScanResult", "scan"]
