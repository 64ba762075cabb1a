"""Plain-words explanations of each broken or surprising result, against the correct one."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np

from ._checks import FiniteDifferenceCheck, differing_cells
from ._format import format_number
from ._result import GradResult, nan_cause

__all__ = ["diagnose", "Finding"]


@dataclass(frozen=True)
class Finding:
    """One point of the diagnosis: which method it concerns, a title, the explanation, how bad it is."""

    method: str | None
    title: str
    text: str
    severity: str   # "error": a wrong answer; "warning": worth knowing; "info": all is well


def diagnose(results: Mapping[str, GradResult], best: GradResult, check: FiniteDifferenceCheck | None = None,
             used_names: frozenset[str] | None = None) -> tuple[Finding, ...]:
    """Explain every result in ``results`` against ``best``, the correct per-element Jacobian, cell by cell."""
    findings: list[Finding] = []
    unexplained: dict[str, np.ndarray] = {}
    for name, result in results.items():
        if result.broken or not result.per_element:
            findings.append(_EXPLAIN.get(result.method, _wrong)(name, result, best))
        elif result is not best and result.jacobian.shape == best.jacobian.shape:
            differ = differing_cells(result.jacobian, best.jacobian, result.dtype, best.dtype)
            finite_y = np.isfinite(best.y.reshape(-1))[:, None]   # other rows: "Output not finite" says why
            poisoned = np.isnan(result.jacobian) & np.isfinite(best.jacobian) & finite_y
            if poisoned.any():
                findings.append(_poisoned(name, result, best, poisoned))
            if (differ & ~poisoned & finite_y).any():
                unexplained[name] = differ & ~poisoned & finite_y
    findings += _cells(best)
    findings += _inputs(best, used_names)
    if check is not None:
        findings += _finite_differences(best, check)
    if unexplained:
        findings.append(_disagree(unexplained, results, best))
    if not any(f.severity != "info" for f in findings if f.method in (None, best.requested)):
        findings.append(Finding(best.requested, "The per-element gradients are right",
                                f"method {best.method!r} gives one gradient row per element of y"
                                + (", and it matches central finite differences." if check and check.passed else "."),
                                "info"))
    return tuple(findings)


def _naive(name: str, result: GradResult, best: GradResult) -> Finding:
    if np.allclose(best.jacobian, 0):
        return Finding(name, "The naive loop happens to agree here",
                       "Every true gradient is zero at this point, so the broken loop's zeros look right by accident.",
                       "warning")
    return Finding(name, "The naive loop returns zeros",
                   "`for y_i in y: tape.gradient(y_i, x)` iterates y after the tape stopped recording. Iterating a "
                   "tensor runs unstack/strided_slice, so each y_i is a new tensor the tape never saw: nothing "
                   "connects it to x, and the gradient is None (zeros with unconnected_gradients=ZERO). Unstack "
                   "inside the tape, or call tape.jacobian(y, x).", "error")


def _summed(name: str, result: GradResult, best: GradResult) -> Finding:
    sums = best.jacobian.sum(axis=0)
    if best.jacobian.shape[0] == 1:
        return Finding(name, "tape.gradient is the per-element gradient here",
                       "y has a single element, so the gradient of its sum is its gradient.", "info")
    column = best.jacobian[:, 0]
    terms = " + ".join(format_number(v) for v in column[:4]) + (" + ..." if column.size > 4 else "")
    shown = (", ".join(format_number(v) for v in result.jacobian[0, :6])
             + (", ..." if result.jacobian.shape[1] > 6 else ""))
    scale = max(1.0, float(np.abs(sums[np.isfinite(sums)]).max(initial=0.0)))
    same = np.allclose(result.jacobian[0], sums, rtol=1e-4, atol=1e-4 * scale, equal_nan=True)
    return Finding(name, "tape.gradient(y, x) sums over the elements of y",
                   f"tape.gradient(y, x) gave [{shown}]: the gradient of sum(y), which is the column sums of the "
                   f"Jacobian (for {best.col_labels[0]}: {terms} = {format_number(sums[0])})"
                   + ("" if same else " — up to rounding") + ". It is not the gradient of any single element.",
                   "error")


def _wrong(name: str, result: GradResult, best: GradResult) -> Finding:
    """A wrong method with no explanation of its own here: the reason its row of the methods table gives."""
    return Finding(name, f"{result.method} does not give the per-element gradients",
                   result.reason or "its row of the methods table marks it as not correct", "error")


#: the wrong methods explained in their own words, against the correct result; any other uses its table reason
_EXPLAIN = {"naive": _naive, "summed": _summed}


def _poisoned(name: str, result: GradResult, best: GradResult, mask: np.ndarray) -> Finding:
    shown = _cells_text(best, mask, lambda r, c: f"is NaN, true value {format_number(best.jacobian[r, c])}")
    return Finding(name, "NaN poisoning",
                   f"{name!r} gives NaN where the true value is finite: {shown}. The cause: {nan_cause(result.mode)}. "
                   f"{best.requested!r} gives the true values.", "warning")


def _cells(best: GradResult) -> list[Finding]:
    """What happened in each cell of the correct result that is not a plain finite number."""
    status = best.cell_status()
    mode, other = best.mode, "forward" if best.mode == "reverse" else "reverse"
    y = best.y.reshape(-1)
    texts = {  # status code -> (method, title, text, severity)
        1: (None, "Infinite derivative",
            "The output is finite but changes infinitely fast with the input here (like sqrt at 0): the "
            "derivative itself is infinite. This is not NaN poisoning", "info"),
        2: (best.requested, "NaN poisoning", f"The output is finite, but {nan_cause(mode)}. "
            "method='auto' recomputes such cells in the other mode", "warning"),
        3: (None, "No mode gives a number here",
            "NaN in both reverse and forward mode: 0 x inf within the output's own formula (like sqrt(x*x) at 0)",
            "warning"),
        4: (None, "Output not finite",
            "The output itself is not finite, so its gradient is not a meaningful number", "warning"),
        5: (best.requested, "NaN poisoning repaired",
            f"{mode.capitalize()} mode gave NaN here, and {other} mode gives the finite values shown. The cause: "
            f"{nan_cause(mode)}", "info"),
    }
    findings = []
    for code, (method, title, text, severity) in texts.items():
        mask = status == code
        if mask.any():
            value = (lambda r, c: f"where {best.row_labels[r]} = {format_number(y[r])}") if code == 4 else (
                lambda r, c: f"= {format_number(best.jacobian[r, c])}")
            findings.append(Finding(method, title, f"{_cells_text(best, mask, value)}. {text}.", severity))
    return findings


def _disagree(unexplained: Mapping[str, np.ndarray], results: Mapping[str, GradResult], best: GradResult) -> Finding:
    parts = []
    for name, mask in unexplained.items():
        jac = results[name].jacobian
        parts.append(f"{name} in {int(mask.sum())} cell(s), e.g. "
                     + _cells_text(best, mask, lambda r, c: f"gives {format_number(jac[r, c])} vs "
                                                            f"{format_number(best.jacobian[r, c])}", 2))
    return Finding(None, "Correct methods disagree",
                   f"These differ from {best.requested} beyond floating tolerance: {'; '.join(parts)}.", "error")


def _cells_text(result: GradResult, mask: np.ndarray, value, limit: int = 4) -> str:
    """``(y[0], x1) <value>, ...`` for the first ``limit`` cells of ``mask``, and how many more."""
    cells = np.argwhere(mask)
    shown = ", ".join(f"({result.row_labels[r]}, {result.col_labels[c]}) {value(r, c)}" for r, c in cells[:limit])
    return shown + (f" and {len(cells) - limit} more cell(s)" if len(cells) > limit else "")


def _inputs(best: GradResult, used_names: frozenset[str] | None) -> list[Finding]:
    findings = [Finding(None, "Input warning", w, "warning") for w in best.warnings
                if "integer" in w or "NaN or infinite" in w]
    grads = best.gradients()
    for name, _shape in best.watched:
        if used_names is not None and name not in used_names:
            findings.append(Finding(None, f"{name} does not reach any output",
                                    f"{name} is watched but the function does not use it, so every gradient with "
                                    "respect to it is zero (None unless unconnected_gradients=ZERO).", "warning"))
        elif np.all(grads[name] == 0) and not any(name in w and "integer" in w for w in best.warnings):
            findings.append(Finding(None, f"Every gradient with respect to {name} is zero here",
                                    f"{name} is used, but at this point no output changes with it (a flat region, "
                                    "for example relu below zero).", "info"))
    return findings


def _finite_differences(best: GradResult, check: FiniteDifferenceCheck) -> list[Finding]:
    if check.skipped:
        return [Finding(None, "Finite-difference check skipped", check.skipped, "info")]
    findings = []
    if check.bad_cells:
        findings.append(Finding(
            None, "Finite differences disagree",
            f"{len(check.bad_cells)} cell(s) differ from central finite differences, e.g. "
            f"{check.differences(best.row_labels, best.col_labels)}. This is expected at kinks (abs, relu, maximum "
            "at a tie) and where the function is not finite; elsewhere it points at a wrong gradient.", "warning"))
    if check.unchecked_cells:
        integer = bool((check.reason == 5).any())
        findings.append(Finding(None, "Cells the finite-difference check could not check",
                                " ".join(s + "." for s in check.unchecked(best.row_labels, best.col_labels)),
                                "warning" if integer else "info"))
    return findings

