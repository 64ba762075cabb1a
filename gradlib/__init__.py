"""gradlib: per-element gradients (the Jacobian, row by row) for TensorFlow, with the pitfalls shown.

>>> import gradlib
>>> gradlib.evaluate("[x0*x1*x2, x0*x1*x2*x0]", {"x0": 3, "x1": 4, "x2": 5}).jacobian.tolist()
[[20.0, 15.0, 12.0], [120.0, 45.0, 36.0]]

Importing gradlib is cheap and changes nothing outside it: the names that need TensorFlow are loaded on
first use (PEP 562, ``__getattr__`` below), so ``gradlib.lint`` and its command line never load TensorFlow,
and TensorFlow's own settings (thread pools, logger) stay as the host program left them. A long-lived
server opts in to shared-server settings with ``gradlib.configure_threads()``.
"""

from __future__ import annotations

import importlib
import numbers
from typing import TYPE_CHECKING, Any, Mapping, Sequence

# Cheap (standard library only): loaded at once.
from ._foundations._errors import BatchMixingError, ExpressionError, GradlibError, InputError, NotDifferentiableWarning, error_gist
from ._foundations._format import format_number, format_ratio
from ._foundations._limits import LIMITS, Limits
from .lint import LintError, LintFinding, LintResult, lint
from ._foundations._runtime import returns_numpy, work_slot
# The command's package (cheap); the name ``gradlib.scan`` is the function, loaded on first use from its engine.
from . import scan as _scan_package

del scan   # the import bound the package here; ``__getattr__`` gives the function
__version__ = "0.1.0"

if TYPE_CHECKING:   # for the annotations only: importing them would load TensorFlow
    from ._perelement._result import GradResult
    from ._second._answers import HessianResult

#: the public names that need TensorFlow, NumPy or pandas: name -> (module, name there), imported on first use
_LAZY = {
    "per_element_gradients": ("._perelement._api", "per_element_gradients"),
    "Agreement": ("._perelement._comparison._checks", "Agreement"),
    "FiniteDifferenceCheck": ("._perelement._comparison._checks", "FiniteDifferenceCheck"),
    "tensorflow_code": ("._language._codegen", "tensorflow_code"),
    "Comparison": ("._perelement._comparison._compare", "Comparison"),
    "compare": ("._perelement._comparison._compare", "compare"),
    "CrossCheck": ("._perelement._comparison._crosscheck", "CrossCheck"),
    "ModeCheck": ("._perelement._comparison._crosscheck", "ModeCheck"),
    "crosscheck": ("._perelement._comparison._crosscheck", "crosscheck"),
    "Finding": ("._perelement._comparison._findings", "Finding"),
    "DTYPES": ("._language._inputs", "DTYPES"), "FLOAT_DTYPES": ("._language._inputs", "FLOAT_DTYPES"),
    "check_inputs": ("._language._inputs", "check_inputs"), "Input": ("._language._inputs", "Input"),
    "FUNCTIONS": ("._language._syntax", "FUNCTIONS"),
    "CORRECT_METHODS": ("._perelement._methods", "CORRECT_METHODS"), "METHODS": ("._perelement._methods", "METHODS"),
    "METHOD_TABLE": ("._perelement._methods", "TABLE"), "Method": ("._perelement._methods", "Method"),
    "PerExampleResult": ("._perexample._gradients", "PerExampleResult"),
    "per_example_gradients": ("._perexample._gradients", "per_example_gradients"),
    "PER_SAMPLE_METHODS": ("._perelement._persample", "PER_SAMPLE_METHODS"), "PerSampleResult": ("._perelement._persample", "PerSampleResult"),
    "per_sample_gradients": ("._perelement._persample", "per_sample_gradients"),
    "CELL_STATUS": ("._perelement._result", "CELL_STATUS"), "GradResult": ("._perelement._result", "GradResult"),
    "configure_threads": ("._foundations._runtime", "configure_threads"),
    "SECOND_METHODS": ("._second._orders", "SECOND_METHODS"), "SECOND_METHOD_TABLE": ("._second._orders", "TABLE"),
    "HessianResult": ("._second._answers", "HessianResult"), "HvpResult": ("._second._answers", "HvpResult"),
    "hessians": ("._second._hessians", "hessians"), "hvp": ("._second._hessians", "hvp"),
    "PerSampleHessians": ("._second._answers", "PerSampleHessians"),
    "LaplacianResult": ("._second._answers", "LaplacianResult"),
    "DivergenceResult": ("._second._answers", "DivergenceResult"),
    "per_sample_hessians": ("._second._samplewise", "per_sample_hessians"),
    "laplacian": ("._second._samplewise", "laplacian"), "divergence": ("._second._samplewise", "divergence"),
    "ScanResult": ("._perexample._scan", "ScanResult"), "scan": ("._perexample._scan", "scan"),
}
#: the public submodules bound here on first use: ``gradlib.pde`` (it needs TensorFlow) and ``gradlib.examples`` (the
#: app's example functions and live demonstrations) work after ``import gradlib`` alone
_LAZY_MODULES = {"examples", "pde"}

__all__ = [
    "Agreement", "BatchMixingError", "CELL_STATUS", "CORRECT_METHODS", "Comparison", "CrossCheck", "DTYPES",
    "DivergenceResult", "ExpressionError", "FLOAT_DTYPES", "FUNCTIONS", "Finding", "FiniteDifferenceCheck",
    "GradResult", "GradlibError", "HessianResult", "HvpResult", "Input", "InputError", "LIMITS", "LaplacianResult", "Limits",
    "LintError", "LintFinding", "LintResult", "METHODS", "METHOD_TABLE", "Method", "ModeCheck",
    "NotDifferentiableWarning", "PER_SAMPLE_METHODS", "PerExampleResult", "PerSampleHessians", "PerSampleResult",
    "SECOND_METHODS", "SECOND_METHOD_TABLE", "ScanResult", "check_inputs", "compare", "configure_threads",
    "crosscheck", "divergence", "error_gist", "evaluate", "format_number", "format_ratio", "hessians", "hvp",
    "laplacian", "lint", "per_element_gradients", "per_example_gradients", "per_sample_gradients",
    "per_sample_hessians", "scan", "tensorflow_code", "work_slot",
]


@returns_numpy("gradlib.evaluate")
def evaluate(outputs: str, inputs: Mapping[str, Any], *, watch: Sequence[str] | None = None, method: str = "auto",
             dtype: str | Mapping[str, str] = "float32", compiled: bool | None = None, limits: Limits = LIMITS,
             order: int = 1) -> GradResult | HessianResult:
    """The derivatives of the function ``outputs`` (text) at ``inputs``: per-element gradients, or Hessians.

    Returns NumPy (plain data, on no tape): called while a ``tf.GradientTape`` records, it warns with
    ``gradlib.NotDifferentiableWarning``, since gradients of its answer with respect to weights are ``None``.

    Args:
        outputs: one expression in gradlib's language, such as ``"[x0*x1*x2, x0*x1*x2*x0]"``.
        inputs: input name -> number, nested list or array.
        watch: the inputs to differentiate with respect to; ``None`` watches every input.
        method: ``order=1``: one of ``METHODS``; ``order=2``: one of ``SECOND_METHODS`` giving whole Hessians.
            ``"auto"`` picks the fastest correct one.
        dtype: ``"float32"`` or ``"float64"``, or a mapping name -> dtype (``"int32"`` reproduces the
            integer-watch pitfall at the first order; the second order refuses a watched integer input).
        compiled: ``order=1``: run inside a cached ``tf.function``; ``None`` decides by the problem's size.
            ``order=2`` always runs a cached trace: leave it ``None``.
        limits: the bounds checked before anything is allocated (``max_jacobian``; ``max_hessian`` at order 2).
        order: 1, the Jacobian row by row (a ``GradResult``); 2, the Hessian of each output element (a
            ``HessianResult``, ``.hessian`` shaped ``(y.size, n, n)``).

    >>> evaluate("x*x", {"x": [1, 2]}).jacobian.tolist()
    [[2.0, 0.0], [0.0, 4.0]]
    >>> evaluate("[x0*x1*x2, x0*x1*x2*x0]", {"x0": 3, "x1": 4, "x2": 5}, order=2).hessian[1].tolist()
    [[40.0, 30.0, 24.0], [30.0, 0.0, 9.0], [24.0, 9.0, 0.0]]

    Raises:
        ExpressionError: the text, an input, an option, the order or a limit is not acceptable.
    """
    whole = isinstance(order, numbers.Integral) and not isinstance(order, bool)   # not 1.0, True or "1"
    if whole and order == 1:
        first_order = _load("._perelement._api", "evaluate")
        return first_order(outputs, inputs, watch=watch, method=method, dtype=dtype, compiled=compiled, limits=limits)
    if whole and order == 2:
        typed_hessians = _load("._second._typed", "typed_hessians")
        return typed_hessians(outputs, inputs, watch=watch, method=method, dtype=dtype, compiled=compiled,
                              limits=limits)
    raise ExpressionError(f"evaluate got order={order!r}; gradlib computes order=1 (the per-element gradients, a "
                          "GradResult) and order=2 (the Hessian of each output element, a HessianResult)")


#: (module, name) -> the object, once imported: a warm ``evaluate`` call runs no import statement (the sandbox
#: tests record every ``__import__`` while a user's text is evaluated)
_LOADED: dict[tuple[str, str], Any] = {}


def _load(module: str, attribute: str) -> Any:
    """``attribute`` of the private ``module`` (relative to gradlib), imported on first use and kept."""
    if (module, attribute) not in _LOADED:
        _LOADED[module, attribute] = getattr(importlib.import_module(module, __name__), attribute)
    return _LOADED[module, attribute]


def __getattr__(name: str) -> Any:
    """Import a heavy public name on first use, then keep it here (later lookups do not come back)."""
    if name in _LAZY_MODULES:
        return importlib.import_module(f".{name}", __name__)   # importing a submodule binds it here
    if name not in _LAZY:
        raise AttributeError(f"module 'gradlib' has no attribute {name!r}")
    module, attribute = _LAZY[name]
    value = getattr(importlib.import_module(module, __name__), attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY) | _LAZY_MODULES)
