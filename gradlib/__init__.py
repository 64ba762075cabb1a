"""gradlib: per-element gradients (the Jacobian, row by row) for TensorFlow, with the pitfalls shown.

>>> import gradlib
>>> gradlib.evaluate("[x0*x1*x2, x0*x1*x2*x0]", {"x0": 3, "x1": 4, "x2": 5}).jacobian.tolist()
[[20.0, 15.0, 12.0], [120.0, 45.0, 36.0]]
"""

from ._api import evaluate, per_element_gradients
from ._checks import Agreement, FiniteDifferenceCheck
from ._codegen import tensorflow_code
from ._compare import Comparison, compare
from ._demos import DEMOS, Demo, demonstrate
from ._diagnose import Finding
from ._errors import BatchMixingError, ExpressionError, GradlibError, InputError, error_gist
from ._format import format_number, format_ratio
from ._inputs import DTYPES, FLOAT_DTYPES, check_inputs
from ._language import FUNCTIONS
from ._limits import LIMITS, Limits
from ._methods import CORRECT_METHODS, METHODS, TABLE as METHOD_TABLE, Method
from ._perexample import PerExampleResult, per_example_gradients
from .lint import LintError, LintFinding, LintResult, lint
from ._persample import PER_SAMPLE_METHODS, PerSampleResult, per_sample_gradients
from ._presets import PRESETS, PRESETS_BY_KEY, Preset
from ._result import CELL_STATUS, GradResult
from .scan import ScanResult, scan

__all__ = [
    "Agreement", "BatchMixingError", "CELL_STATUS", "CORRECT_METHODS", "Comparison", "DEMOS", "DTYPES", "Demo", "ExpressionError",
    "FLOAT_DTYPES", "FUNCTIONS", "FiniteDifferenceCheck", "Finding", "GradResult", "GradlibError", "InputError", "LIMITS", "Limits",
    "LintError", "LintFinding", "LintResult", "METHODS", "METHOD_TABLE", "Method", "PER_SAMPLE_METHODS", "PRESETS", "PRESETS_BY_KEY", "PerExampleResult",
    "PerSampleResult", "Preset", "ScanResult", "check_inputs", "compare", "demonstrate", "error_gist", "evaluate", "format_number",
    "format_ratio", "lint", "per_element_gradients", "per_example_gradients", "per_sample_gradients", "scan", "tensorflow_code",
]
