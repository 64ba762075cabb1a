"""Plain-words explanations of each broken or surprising result, against the correct one."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Mapping

import numpy as np

from ._checks import KINK_TITLE, FiniteDifferenceCheck, differing_cells
from ..._foundations._format import format_number
from .._problem import UNUSED_IN_TENSORFLOW
from .._result import GradResult, nan_cause, output_not_finite

__all__ = ["DETAIL_CELLS", "diagnose", "Finding"]

#: the cells a finding's details list at most (its text says how many there are)
DETAIL_CELLS = 20


@dataclass(frozen=True)
class Finding:
    """One point of the diagnosis: which method it concerns, a title, the explanation, how bad it is.

    ``text`` is short: what happened and what to do. ``details`` holds what backs it up (the cells, one by one,
    with their numbers): the app folds it away, and ``full`` joins both.
    """

    method: str | None
    title: str
    text: str
    severity: str   # "error": a wrong answer; "warning": worth knowing; "info": all is well
    explains: tuple[str, ...] = ()   # the results' warnings this finding says in full (shown once, here)
    details: str = ""                # the evidence, cell by cell ("" when the text says it all)

    @property
    def full(self) -> str:
        """The text followed by the details."""
        return f"{self.text} {self.details}" if self.details else self.text


def diagnose(results: Mapping[str, GradResult], best: GradResult, check: FiniteDifferenceCheck | None = None,
             used_names: frozenset[str] | None = None) -> tuple[Finding, ...]:
    """Explain every result in ``results`` against ``best``, the correct per-element Jacobian, cell by cell."""
    findings: list[Finding] = []
    unexplained: dict[str, np.ndarray] = {}
    integer = _integer_columns(best, check)
    for name, result in results.items():
        if (result.broken or not result.per_element) and integer.all():
            continue   # every column is an integer input: every method gives 0 there, for the reason said below
        if result.broken or not result.per_element:
            findings.append(_EXPLAIN.get(result.method, _wrong)(name, result, best, integer))
        elif result is not best and result.jacobian.shape == best.jacobian.shape:
            differ = differing_cells(result.jacobian, best.jacobian, result.dtype, best.dtype)
            finite_y = np.isfinite(best.y.reshape(-1))[:, None]   # other rows: "Output not finite" says why
            poisoned = np.isnan(result.jacobian) & np.isfinite(best.jacobian) & finite_y
            if poisoned.any():
                findings.append(_poisoned(name, result, best, poisoned))
            if (differ & ~poisoned & finite_y).any():
                unexplained[name] = differ & ~poisoned & finite_y
    findings += _cells(best)
    findings += _integer_inputs(best, check, integer)
    findings += _inputs(best, used_names, check)
    if check is not None:
        findings += _finite_differences(best, check, _confirmed(results, best))
    if unexplained:
        findings.append(_disagree(unexplained, results, best))
    if not any(f.severity != "info" for f in findings if f.method in (None, best.requested)):
        findings.append(Finding(best.requested, "The per-element gradients are right",
                                f"method {best.method!r} gives one gradient row per element of y"
                                + (", and it matches central finite differences." if check and check.passed else "."),
                                "info"))
    return tuple(findings)


def _integer_columns(best: GradResult, check: FiniteDifferenceCheck | None) -> np.ndarray:
    """Per column of ``best``: whether it belongs to a watched integer input (TensorFlow gives it no gradient)."""
    columns = np.zeros(best.jacobian.shape[1], bool)
    start = 0
    for name, shape in best.watched:
        size = math.prod(shape)
        columns[start:start + size] = any(w.startswith(f"input {name!r} is int") for w in best.warnings)
        start += size
    return columns


def _integer_inputs(best: GradResult, check: FiniteDifferenceCheck | None, integer: np.ndarray) -> list[Finding]:
    """The one finding about watched integer inputs: the cause of their zero columns, headlined when it is the
    only thing there is to see."""
    if not integer.any():
        return []
    names = _names_of(best, integer)
    measured, details = "", ""
    if check is not None and check.reason is not None and not check.skipped:
        cells = np.argwhere((check.reason == 5) & integer[None, :])
        if len(cells):
            measured = " The function's own derivative there is not zero."
            details = ("Finite differences give " + ", ".join(
                f"({best.row_labels[r]}, {best.col_labels[c]}) {format_number(check.numeric[r, c])}"
                for r, c in cells[:DETAIL_CELLS]) + (f" and {len(cells) - DETAIL_CELLS} more" if len(cells) > DETAIL_CELLS
                                                     else "") + ".")
    return [Finding(None, f"{names} {'is an integer input' if ',' not in names else 'are integer inputs'}: no gradient",
                    f"TensorFlow's tape does not watch integer tensors, so every method gives 0 for {names} (None "
                    f"without unconnected_gradients=ZERO).{measured} Use float32 or float64 to differentiate with "
                    "respect to it.", "error" if integer.all() else "warning",
                    tuple(w for w in best.warnings if w.startswith("input ") and " is int" in w), details)]


def _names_of(best: GradResult, columns: np.ndarray) -> str:
    """The watched inputs whose columns are all in ``columns``, as ``'a', 'b'``."""
    names, start = [], 0
    for name, shape in best.watched:
        size = math.prod(shape)
        if columns[start:start + size].all():
            names.append(repr(name))
        start += size
    return ", ".join(names)


def _naive(name: str, result: GradResult, best: GradResult, integer: np.ndarray) -> Finding:
    if np.allclose(best.jacobian[:, ~integer], 0):
        return Finding(name, "The naive loop happens to agree here",
                       "Every true gradient is zero at this point, so the broken loop's zeros look right by accident.",
                       "warning")
    if best.y.ndim == 0:   # TensorFlow refuses the loop itself: a scalar tensor is not iterable
        return Finding(name, "The naive loop returns zeros",
                       "y is a scalar, and `for y_i in y` raises TypeError in TensorFlow (Cannot iterate over a scalar "
                       "tensor). Iterated as tf.reshape(y, [-1]) after the tape stopped recording (this row), each y_i "
                       "is a new tensor the tape never saw, and the gradient is None (zeros with "
                       "unconnected_gradients=ZERO). With one element, tape.gradient(y, x) is its gradient.", "error")
    return Finding(name, "The naive loop returns zeros",
                   "`for y_i in y: tape.gradient(y_i, x)` iterates y after the tape stopped recording. Iterating a "
                   "tensor runs unstack/strided_slice, so each y_i is a new tensor the tape never saw: nothing "
                   "connects it to x, and the gradient is None (zeros with unconnected_gradients=ZERO). Unstack "
                   "inside the tape, or call tape.jacobian(y, x).", "error")


def _summed(name: str, result: GradResult, best: GradResult, integer: np.ndarray) -> Finding:
    sums = best.jacobian.sum(axis=0)
    if best.jacobian.shape[0] == 1:
        return Finding(name, "tape.gradient is the per-element gradient here",
                       "y has a single element, so the gradient of its sum is its gradient.", "info")
    if np.allclose(best.jacobian[:, ~integer], 0):
        return Finding(name, "tape.gradient happens to agree here",
                       "Every true gradient is zero at this point, so the gradient of sum(y) is zero too and looks "
                       "like each element's by accident: elsewhere it is the column sums of the Jacobian.", "warning")
    column = best.jacobian[:, 0]
    terms = " + ".join(format_number(v) for v in column[:4]) + (" + ..." if column.size > 4 else "")
    shown = (", ".join(format_number(v) for v in result.jacobian[0, :6])
             + (", ..." if result.jacobian.shape[1] > 6 else ""))
    scale = max(1.0, float(np.abs(sums[np.isfinite(sums)]).max(initial=0.0)))
    same = np.allclose(result.jacobian[0], sums, rtol=1e-4, atol=1e-4 * scale, equal_nan=True)
    return Finding(name, "tape.gradient(y, x) sums over the elements of y",
                   f"tape.gradient(y, x) gave [{shown}]: the gradient of sum(y), which is the column sums of the "
                   f"Jacobian (for {best.col_labels[0]}: {terms} = {format_number(sums[0])})"
                   + ("" if same else " — up to rounding") + ". " + _one_row(best), "error")


def _one_row(best: GradResult) -> str:
    """Whether the column sums are one element's gradient here: they are when every other row is zero."""
    nonzero = [k for k in range(best.jacobian.shape[0]) if not np.allclose(best.jacobian[k], 0)]
    if len(nonzero) == 1:
        return (f"Here it equals the gradient of {best.row_labels[nonzero[0]]} alone, the only row that is not zero; "
                "at another point it need not be any single element's.")
    return "It is not the gradient of any single element."


def _wrong(name: str, result: GradResult, best: GradResult, integer: np.ndarray) -> Finding:
    """A wrong method with no explanation of its own here: the reason its row of the methods table gives."""
    return Finding(name, f"{result.method} does not give the per-element gradients",
                   result.reason or "its row of the methods table marks it as not correct", "error")


#: the wrong methods explained in their own words, against the correct result; any other uses its table reason
_EXPLAIN = {"naive": _naive, "summed": _summed}


def _poisoned(name: str, result: GradResult, best: GradResult, mask: np.ndarray) -> Finding:
    shown = _cells_text(best, mask, lambda r, c: f"is NaN, true value {format_number(best.jacobian[r, c])}",
                        DETAIL_CELLS)
    return Finding(name, "NaN poisoning",
                   f"{name!r} gives NaN where the true value is finite ({_count(mask)}). The cause: "
                   f"{nan_cause(result.mode)}. {best.requested!r} gives the true values.", "warning", details=shown + ".")


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
        4: (None, "Output not finite", _not_finite(y, best.jacobian), "warning"),
        5: (best.requested, "NaN poisoning repaired",
            f"{mode.capitalize()} mode gave NaN here, and {other} mode gives the finite values shown. The cause: "
            f"{nan_cause(mode)}", "info"),
    }
    findings = []
    for code, (method, title, text, severity) in texts.items():
        mask = status == code
        if mask.any():
            value = (lambda r, c: f"= {format_number(best.jacobian[r, c])}"
                     + (f" where {best.row_labels[r]} = {format_number(y[r])}" if code == 4 else ""))
            findings.append(Finding(method, title, f"{text}.", severity,
                                    details=_cells_text(best, mask, value, DETAIL_CELLS) + "."))
    return findings


def _disagree(unexplained: Mapping[str, np.ndarray], results: Mapping[str, GradResult], best: GradResult) -> Finding:
    parts, cells = [], []
    for name, mask in unexplained.items():
        jac = results[name].jacobian
        parts.append(f"{name} in {_count(mask)}")
        cells.append(f"{name}: " + _cells_text(best, mask, lambda r, c: f"gives {format_number(jac[r, c])} vs "
                                                                     f"{format_number(best.jacobian[r, c])}", DETAIL_CELLS))
    return Finding(None, "Correct methods disagree",
                   f"These differ from {best.requested} beyond floating tolerance: {'; '.join(parts)}.", "error",
                   details="; ".join(cells) + ".")


def _count(mask: np.ndarray) -> str:
    """``1 cell`` or ``3 cells``: how many cells a finding is about (its details list them)."""
    n = int(np.count_nonzero(mask))
    return f"{n:,} cell" + ("" if n == 1 else "s")


def _cells_text(result: GradResult, mask: np.ndarray, value, limit: int = 4) -> str:
    """``(y[0], x1) <value>, ...`` for the first ``limit`` cells of ``mask``, and how many more."""
    cells = np.argwhere(mask)
    shown = ", ".join(f"({result.row_labels[r]}, {result.col_labels[c]}) {value(r, c)}" for r, c in cells[:limit])
    return shown + (f" and {len(cells) - limit} more cell(s)" if len(cells) > limit else "")


def _not_finite(y: np.ndarray, jacobian: np.ndarray) -> str:
    """What outputs that are not finite mean for their gradients: a sentence for NaN (naming a finite, nonzero
    gradient there if there is one: a 0 may only say the output does not use that input), one for inf."""
    sentences = []
    for rows in (np.isnan(y), np.isinf(y)):
        if rows.any():
            cells = jacobian[rows]
            shown = cells[np.isfinite(cells) & (cells != 0)]
            sentences.append(output_not_finite(float(y[rows][0]), "The output", float(shown[0]) if shown.size
                                               else math.nan))
    return ". ".join(sentences)


def _confirmed(results: Mapping[str, GradResult], best: GradResult) -> np.ndarray | None:
    """Cells where reverse and forward mode, independent computations, both ran and every correct method agrees.

    None when only one mode ran: then agreement between methods confirms nothing.
    """
    same = [r for r in results.values() if r.correct and r.jacobian.shape == best.jacobian.shape]
    if {r.mode for r in same} != {"forward", "reverse"}:
        return None
    agree = np.ones(best.jacobian.shape, bool)
    for r in same:
        agree &= ~differing_cells(r.jacobian, best.jacobian, r.dtype, best.dtype)
    return agree


def _inputs(best: GradResult, used_names: frozenset[str] | None,
            check: FiniteDifferenceCheck | None = None) -> list[Finding]:
    findings = [Finding(None, "Input warning", w, "warning") for w in best.warnings if "NaN or infinite" in w]
    unused = [name for name, _ in best.watched if used_names is not None and name not in used_names]
    if unused:   # one finding for all of them, in the words of the results' own warning (so it is said once)
        said = [w for w in best.warnings if w.startswith("watched input(s) ")]
        findings.append(Finding(None, f"{', '.join(unused)} {'does' if len(unused) == 1 else 'do'} not reach any output",
                                said[0] if said else f"{', '.join(map(repr, unused))} are watched but not used: "
                                f"their gradients are zero ({UNUSED_IN_TENSORFLOW})", "warning"))
    finite_y = np.isfinite(best.y.reshape(-1)) if best.per_element else np.ones(best.jacobian.shape[0], bool)
    kinks = check.kinks if check is not None and check.kinks is not None else np.zeros(best.jacobian.shape, bool)
    start = 0
    for name, shape in best.watched:
        columns = slice(start, start + math.prod(shape))
        start = columns.stop
        jac, kinked = best.jacobian[:, columns], kinks[:, columns]
        if used_names is not None and name not in used_names:
            continue   # said above, for all of them at once
        elif not finite_y.any() or np.any(jac != 0) or any(name in w and "integer" in w for w in best.warnings):
            continue   # no output to be flat (all are NaN or inf), or some output changes with it
        elif kinked.any():
            where = ", ".join(f"({best.row_labels[r]}, {best.col_labels[columns.start + c]})"
                              for r, c in np.argwhere(kinked)[:4])
            findings.append(Finding(None, f"Every gradient with respect to {name} is zero here, at a kink",
                                    f"{name} is used, and the function is not flat here: at {where} it has a kink "
                                    "(a different slope on each side, see \"Finite differences straddle a kink\"), "
                                    "where TensorFlow takes the derivative as 0 (as relu'(0) = 0)"
                                    + (". Elsewhere no output changes with it." if kinked.sum() < jac.size else "."),
                                    "info"))
        else:
            findings.append(Finding(None, f"Every gradient with respect to {name} is zero here",
                                    f"{name} is used, but at this point no output changes with it (a flat region, "
                                    "for example relu below zero).", "info"))
    return findings


#: why finite differences may disagree with a gradient none of the findings has explained
_UNEXPLAINED_ADVICE = ("This is expected at kinks (abs, relu, maximum at a tie) and where the function is not finite; "
                       "elsewhere it points at a wrong gradient.")


def _finite_differences(best: GradResult, check: FiniteDifferenceCheck,
                        confirmed: np.ndarray | None = None) -> list[Finding]:
    if check.skipped:
        return [Finding(None, "Finite-difference check skipped", check.skipped, "info")]
    findings = []
    bad = np.zeros(check.numeric.shape, bool)
    bad[tuple(np.array(check.bad_cells, int).reshape(-1, 2).T)] = True
    kinks = check.kinks if check.kinks is not None else np.zeros_like(bad)
    if kinks.any():
        findings.append(_kinks(best, check, kinks))
    rest = bad & ~kinks
    if rest.any():
        findings.append(Finding(
            None, "Finite differences disagree",
            f"{_count(rest)} differ{'s' if rest.sum() == 1 else ''} from central finite differences. "
            + _advice(best, check, rest, confirmed), "warning",
            details=check.differences(best.row_labels, best.col_labels, DETAIL_CELLS,
                                      cells=[tuple(c) for c in np.argwhere(rest)]) + "."))
    finite_y = np.isfinite(best.y.reshape(-1))[:, None] if best.per_element else np.ones((1, 1), bool)
    reason = check.reason if check.reason is not None else np.zeros(check.numeric.shape, np.int8)
    # integer cells are the integer inputs' finding; a row whose output is not finite is "Output not finite"
    rest = np.where((reason != 5) & finite_y, reason, 0)
    if rest.any():
        sentences = replace(check, reason=rest).unchecked(best.row_labels, best.col_labels)
        findings.append(Finding(None, "Cells the finite-difference check could not check",
                                " ".join(s + "." for s in sentences), "info"))
    return findings


def _advice(best: GradResult, check: FiniteDifferenceCheck, cells: np.ndarray, confirmed: np.ndarray | None) -> str:
    """What the evidence says about cells that differ from finite differences and are not at a kink."""
    finite_y = np.isfinite(best.y.reshape(-1))[:, None] if best.per_element else np.ones((1, 1), bool)
    undefined = cells & ~finite_y
    if not (cells & finite_y).any():
        return "The output is not finite there (see \"Output not finite\"): there is no derivative to compare with."
    if check.slopes is None or confirmed is None or (cells & finite_y & ~confirmed).any():
        return _UNEXPLAINED_ADVICE
    c = int(np.argwhere(cells & finite_y)[0][1])
    return ("Reverse and forward mode compute the gradient independently and agree on these cells, so the "
            "finite-difference step is the likely cause, not the gradient: the step was "
            f"{format_number(check.steps[c])} at {best.col_labels[c]} ({format_number(check.step)} x max(1, |x|)), "
            "and the function varies on a smaller scale than that (a fast oscillation, a kink or jump within the "
            "step) or rounding swamps the difference."
            + (" Where the output is not finite there is no derivative to compare with." if undefined.any() else ""))


def _kinks(best: GradResult, check: FiniteDifferenceCheck, kinks: np.ndarray) -> Finding:
    below, above = check.slopes
    lo, hi = np.minimum(below, above), np.maximum(below, above)
    jac = best.jacobian
    between = bool(np.all(((jac >= lo - check.tolerance) & (jac <= hi + check.tolerance))[kinks]))
    shown = _cells_text(best, kinks, lambda r, c: (
        f"has slope {format_number(below[r, c])} below {best.col_labels[c]} and {format_number(above[r, c])} above "
        f"(TensorFlow gives {format_number(jac[r, c])}, central differences {format_number(check.numeric[r, c])})"),
        DETAIL_CELLS)
    convention = ("a value between the one-sided slopes by convention (relu'(0) = 0, a subgradient)" if between else
                  "a value its gradient function defines by convention, outside the one-sided slopes")
    return Finding(None, KINK_TITLE,
                   f"In {_count(kinks)} the function has a different slope on each side of this point, so it has no "
                   f"derivative there: central differences average the two sides, and TensorFlow takes {convention}. "
                   "This is not a wrong gradient.", "warning", details=shown + ".")
