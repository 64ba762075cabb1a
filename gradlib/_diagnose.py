"""Plain-words explanations of each broken or surprising result, against the correct one."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np

from ._checks import FiniteDifferenceCheck
from ._result import GradResult


@dataclass(frozen=True)
class Finding:
    """One point of the diagnosis: which method it concerns, a title, the explanation, how bad it is."""

    method: str | None
    title: str
    text: str
    severity: str   # "error": a wrong answer; "warning": worth knowing; "info": all is well


def diagnose(results: Mapping[str, GradResult], best: GradResult, check: FiniteDifferenceCheck | None = None,
             used_names: frozenset[str] | None = None) -> tuple[Finding, ...]:
    """Explain every result in ``results`` against ``best``, the correct per-element Jacobian."""
    findings: list[Finding] = []
    for name, result in results.items():
        if result.broken:
            findings.append(_naive(name, result, best))
        elif not result.per_element:
            findings.append(_summed(name, result, best))
        if result.poisoned_rows:
            findings.append(_poisoned(name, result))
    if best.repaired_rows:
        rows = ", ".join(best.row_labels[r] for r in best.repaired_rows)
        findings.append(Finding(best.requested, "NaN poisoning repaired",
                                f"{rows}: reverse mode turned 0 x inf into NaN; these rows were recomputed in the "
                                "other mode, where the infinite output does not leak into them.", "info"))
    findings += _inputs(best, used_names)
    if check is not None:
        findings += _finite_differences(best, check)
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
    terms = " + ".join(_fmt(v) for v in column[:4]) + (" + ..." if column.size > 4 else "")
    shown = ", ".join(_fmt(v) for v in result.jacobian[0, :6]) + (", ..." if result.jacobian.shape[1] > 6 else "")
    scale = max(1.0, float(np.abs(sums[np.isfinite(sums)]).max(initial=0.0)))
    same = np.allclose(result.jacobian[0], sums, rtol=1e-4, atol=1e-4 * scale, equal_nan=True)
    return Finding(name, "tape.gradient(y, x) sums over the elements of y",
                   f"tape.gradient(y, x) gave [{shown}]: the gradient of sum(y), which is the column sums of the "
                   f"Jacobian (for {best.col_labels[0]}: {terms} = {_fmt(sums[0])})"
                   + ("" if same else " — up to rounding") + ". It is not the gradient of any single element.",
                   "error")


def _poisoned(name: str, result: GradResult) -> Finding:
    rows = ", ".join(result.row_labels[r] for r in result.poisoned_rows)
    return Finding(name, "NaN poisoning",
                   f"{rows} {'is' if len(result.poisoned_rows) == 1 else 'are'} finite, but {name!r} gives NaN in "
                   "the gradient row: another output is infinite, and the backward pass multiplies its zero upstream "
                   "gradient by an infinite local derivative (0 x inf = NaN). method='auto' repairs these rows.",
                   "warning")


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
    if check.passed:
        return []
    cells = ", ".join(f"({best.row_labels[r]}, {best.col_labels[c]})" for r, c in check.bad_cells[:4])
    return [Finding(None, "Finite differences disagree",
                    f"{len(check.bad_cells)} cell(s) differ from central finite differences, e.g. {cells} "
                    f"(largest error {check.max_error:.3g}). This is expected at kinks (abs, relu, maximum at a tie) "
                    "and where the function is not finite; elsewhere it points at a wrong gradient.", "warning")]


def _fmt(value: float) -> str:
    return f"{value:.6g}"
