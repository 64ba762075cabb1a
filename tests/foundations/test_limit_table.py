"""Every field of ``Limits``, one row: at a small value N of that limit the input of exactly N is accepted and the
input of N + 1 refused, with a message that names the limit and (where it states it) the count reached.

The boundary input is derived from N in each row (N characters, N inputs, an estimate of exactly N). A limit that
stops the linter's analysis rather than refusing (steps, work, seconds) is pinned the same way on the result:
complete at the least value that lets it finish, incomplete one below, saying so. ``test_every_limit_has_a_row``
reads ``dataclasses.fields(Limits)``, so a new limit without a row fails. tests/perelement/test_limit_boundaries.py
pins the default values and the exact wording of each refusal.
"""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest
import tensorflow as tf

import gradlib
from gradlib import ExpressionError, Limits, LintError, evaluate, lint

X = {"x": 1.5}
SOURCE = ("import tensorflow as tf\nx = tf.constant([1.0, 2.0])\nwith tf.GradientTape() as tape:\n"
          "    tape.watch(x)\n    y = x * x\nfor y_i in y:\n    print(tape.gradient(y_i, x))\n")


def _inputs(k: int) -> dict:
    return {f"x{i}": float(i) for i in range(k)}


def _nodes(k: int) -> str:
    """A text of exactly k syntax nodes (k even, at least 4): a list of names, 2 + 2 per element."""
    return "[" + ", ".join(["x"] * ((k - 2) // 2)) + "]"


def _cubes(n):
    return lambda x: x * x * x * tf.ones([n])


#: field -> (N, accepted(N), refused(N), the error, a pattern of its message with {n} and {m} = N + 1)
ROWS = {
    "max_chars": (10, lambda n: evaluate("x" + " " * (n - 3) + "+x", X, limits=Limits(max_chars=n)),
                  lambda n: evaluate("x" + " " * (n - 2) + "+x", X, limits=Limits(max_chars=n)), ExpressionError,
                  r"is {m} characters long; at most {n} are allowed"),
    "max_nodes": (10, lambda n: evaluate(_nodes(n), X, limits=Limits(max_nodes=n)),
                  lambda n: evaluate(_nodes(n)[:-1] + ", 1]", X, limits=Limits(max_nodes=n)), ExpressionError,
                  r"has {m} parts; at most {n} are allowed"),
    "max_depth": (3, lambda n: evaluate("(" * n + "x" + ")" * n, X, limits=Limits(max_depth=n)),
                  lambda n: evaluate("(" * (n + 1) + "x" + ")" * (n + 1), X, limits=Limits(max_depth=n)),
                  ExpressionError, r"nests {m} levels deep; at most {n} are allowed, and level {m} is at column {m};"),
    "max_tree_depth": (6, lambda n: evaluate("x" + " + x" * (n - 2), X, limits=Limits(max_tree_depth=n)),
                       lambda n: evaluate("x" + " + x" * (n - 1), X, limits=Limits(max_tree_depth=n)),
                       ExpressionError,
                       r"nests {m} levels deep; at most {n} are allowed, and level {m} is at column 1;"),
    "max_inputs": (3, lambda n: evaluate("x0", _inputs(n), limits=Limits(max_inputs=n)),
                   lambda n: evaluate("x0", _inputs(n + 1), limits=Limits(max_inputs=n)), ExpressionError,
                   r"too many inputs \({m}\); at most {n} are allowed"),
    "max_rank": (2, lambda n: evaluate("sum(x)", {"x": np.ones((1,) * n)}, limits=Limits(max_rank=n)),
                 lambda n: evaluate("sum(x)", {"x": np.ones((1,) * (n + 1))}, limits=Limits(max_rank=n)),
                 ExpressionError, r"has {m} dimensions; at most {n} are allowed"),
    "max_elements": (6, lambda n: evaluate("sum(x)", {"x": np.ones(n)}, limits=Limits(max_elements=n)),
                     lambda n: evaluate("sum(x)", {"x": np.ones(n + 1)}, limits=Limits(max_elements=n)),
                     ExpressionError, r"has {m} elements; at most {n} are allowed"),
    "max_jacobian": (9, lambda n: evaluate("x * 2", {"x": np.ones(3)}, limits=Limits(max_jacobian=n)),
                     lambda n: evaluate("x * 2", {"x": np.ones(3)}, limits=Limits(max_jacobian=n - 1)),
                     ExpressionError, r"would have 3 x 3 = {n} entries; at most {p} are allowed"),
    "max_eager_passes": (4, lambda n: evaluate("x * 2", {"x": np.ones(n)}, method="unstack", compiled=False,
                                               limits=Limits(max_eager_passes=n)),
                         lambda n: evaluate("x * 2", {"x": np.ones(n + 1)}, method="unstack", compiled=False,
                                            limits=Limits(max_eager_passes=n)),
                         ExpressionError, r"one eager pass per output element: {m} here, and at most {n} are "
                                          r"allowed"),
    # x * x over 3 elements, method jacobian: 9 operations forward, 90 with its 3 reverse passes
    "max_flops": (90, lambda n: evaluate("x * x", {"x": np.ones(3)}, method="jacobian", limits=Limits(max_flops=n)),
                  lambda n: evaluate("x * x", {"x": np.ones(3)}, method="jacobian", limits=Limits(max_flops=n - 1)),
                  ExpressionError, r"about {n} floating-point operations .*; at most {p} are allowed"),
    # the same, float32: 3 x 3 identity (36 bytes) and 3 copies of 18 values (216 bytes)... estimated 360 in all
    "max_bytes": (360, lambda n: evaluate("x * x", {"x": np.ones(3)}, method="jacobian",
                                          limits=Limits(max_bytes=n)),
                  lambda n: evaluate("x * x", {"x": np.ones(3)}, method="jacobian", limits=Limits(max_bytes=n - 1)),
                  ExpressionError, r"about {n} bytes of memory .*; at most {p} bytes are allowed"),
    # 2 outputs x 2 x 2 inputs
    "max_hessian": (8, lambda n: evaluate("x * x", {"x": [1.0, 2.0]}, order=2, limits=Limits(max_hessian=n)),
                    lambda n: evaluate("x * x", {"x": [1.0, 2.0]}, order=2, limits=Limits(max_hessian=n - 1)),
                    ExpressionError, r"would return {n} second-order entries .*; at most {p} are allowed"),
    # method loop writes one pass per output and input element: 3 x 3
    "max_unrolled": (9, lambda n: gradlib.hessians(_cubes(3), tf.constant([1.0, 2.0, 3.0]), method="loop",
                                                   limits=Limits(max_unrolled=n)),
                     lambda n: gradlib.hessians(_cubes(3), tf.constant([1.0, 2.0, 3.0]), method="loop",
                                                limits=Limits(max_unrolled=n - 1)),
                     ExpressionError, r"would write {n} passes one by one into its graph here; at most {p} are "
                                      r"allowed"),
    "max_source_chars": (len(SOURCE), lambda n: lint(SOURCE[:n], limits=Limits(max_source_chars=n)),
                         lambda n: lint(SOURCE + "#", limits=Limits(max_source_chars=n)), LintError,
                         r"got {m} characters; at most {n} are checked"),
    "max_source_lines": (SOURCE.count("\n"), lambda n: lint(SOURCE, limits=Limits(max_source_lines=n)),
                         lambda n: lint(SOURCE + "x = 1\n", limits=Limits(max_source_lines=n)), LintError,
                         r"got {m} lines; at most {n} are checked"),
    "max_source_depth": (3, lambda n: lint("x = " + "(" * n + "1" + ")" * n + "\n", limits=Limits(max_source_depth=n)),
                         lambda n: lint("x = " + "(" * (n + 1) + "1" + ")" * (n + 1) + "\n",
                                        limits=Limits(max_source_depth=n)), LintError,
                         r"brackets nest {m} deep; at most {n} levels are allowed, and level {m} opens on line 1;"),
}
#: a limit checked in a second place too (another kind of input reaches it), one row each in the same form
MORE_ROWS = {
    # a run of signs nests one level per sign, as brackets do
    ("max_depth", "signs"): (3, lambda n: evaluate("-" * n + "x", X, limits=Limits(max_depth=n)),
                             lambda n: evaluate("-" * (n + 1) + "x", X, limits=Limits(max_depth=n)), ExpressionError,
                             r"nests {m} levels deep; at most {n} are allowed, and level {m} is at column {m};"),
    # x = a + a + ... of k terms: the module, the assignment, k - 1 additions, a name and its Load: k + 2 levels
    ("max_source_depth", "syntax tree"): (
        6, lambda n: lint("x = " + " + ".join(["a"] * (n - 2)) + "\n", limits=Limits(max_source_depth=n)),
        lambda n: lint("x = " + " + ".join(["a"] * (n - 1)) + "\n", limits=Limits(max_source_depth=n)), LintError,
        r"the code nests {m} levels deep; at most {n} are allowed, and level {m} is on line 1 "),
}
#: the limits that stop the analysis and report it (the result is incomplete), with what its reason says
STOPPING = {"max_source_steps": r"after {n} steps \(the limit, max_source_steps\)",
            "max_source_work": r"more than {n} .*\(the limit, max_source_work\)"}


def _fmt(value: float) -> str:
    return re.escape(f"{value:,}" if value >= 1000 else f"{value:g}")


def test_every_limit_has_a_row():
    fields = {f.name for f in dataclasses.fields(Limits)}
    assert set(ROWS) | set(STOPPING) | {"max_source_seconds"} == fields


@pytest.mark.parametrize("field", sorted(ROWS) + sorted(MORE_ROWS))
def test_the_last_good_value_is_accepted_and_the_first_bad_refused(field):
    n, accepted, refused, error, pattern = {**ROWS, **MORE_ROWS}[field]
    accepted(n)
    with pytest.raises(error) as info:
        refused(n)
    expected = pattern.format(n=_fmt(n), m=_fmt(n + 1), p=_fmt(n - 1))
    assert re.search(expected, str(info.value)), f"{field}: {str(info.value)!r} does not match {expected!r}"


def _least_complete(field: str, source: str) -> int:
    """The least value of ``field`` at which the analysis of ``source`` completes (it is monotone in the limit)."""
    low, high = 0, 1
    while not lint(source, limits=Limits(**{field: high})).complete:
        low, high = high, high * 2
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (middle, high) if not lint(source, limits=Limits(**{field: middle})).complete else (low, middle)
    return high


@pytest.mark.parametrize("field", sorted(STOPPING))
def test_an_analysis_limit_completes_at_its_least_value_and_stops_one_below(field):
    n = _least_complete(field, SOURCE)
    assert n > 1 and lint(SOURCE, limits=Limits(**{field: n})).complete
    stopped = lint(SOURCE, limits=Limits(**{field: n - 1}))
    assert not stopped.complete and re.search(STOPPING[field].format(n=_fmt(n - 1)), stopped.reason), stopped.reason


#: an analysis long enough to reach a check of the clock (8 x 8 x 8 loop steps on the tape)
LOOPS = ("import tensorflow as tf\nx = tf.constant(1.0)\nwith tf.GradientTape() as t:\n    t.watch(x)\n    y = x\n"
         "    for i in range(8):\n        for j in range(8):\n            for k in range(8):\n"
         "                y = y * 1.01\ng = t.gradient(y, x)\n")


def test_the_analysis_time_limit_stops_at_zero_and_not_with_room():
    assert lint(LOOPS, limits=Limits(max_source_seconds=30.0)).complete
    stopped = lint(LOOPS, limits=Limits(max_source_seconds=0.0))
    assert not stopped.complete and "(the limit, max_source_seconds)" in stopped.reason


# ---------------------------------------------------------------- the app's own values, through its services

#: the app's fields that differ from gradlib's defaults -> (accepted at the app's value, refused one past it, pattern)
APP_ROWS = {
    ("APP_LIMITS", "max_elements"): (
        lambda n: _app_compare("sum(x) * s", {"x": np.ones(n).tolist(), "s": 1.0}, ("s",)),
        lambda n: _app_compare("sum(x) * s", {"x": np.ones(n + 1).tolist(), "s": 1.0}, ("s",)),
        r"has (at least )?{m} elements; at most {n} are allowed"),
    ("APP_LIMITS", "max_jacobian"): (   # 500 x 500 entries, then 500 x 501
        lambda n: _app_compare("x[0] * y", {"x": np.ones(500).tolist(), "y": np.ones(n // 500).tolist()}, ("x",)),
        lambda n: _app_compare("x[0] * y", {"x": np.ones(500).tolist(), "y": np.ones(n // 500 + 1).tolist()},
                               ("x",)),
        r"would have 501 x 500 = {q} entries; at most {n} are allowed"),
    ("APP_LIMITS", "max_hessian"): (   # one output, 500 x 500 inputs, then 501 x 501
        lambda n: _app_hessians(int(n ** 0.5)), lambda n: _app_hessians(int(n ** 0.5) + 1),
        r"would return {r} second-order entries .*; at most {n} are allowed"),
    ("LINT_LIMITS", "max_source_chars"): (
        lambda n: _app_lint("#" * (n - 1) + "\n"), lambda n: _app_lint("#" * n + "\n"),
        r"got {m} characters; at most {n} are checked"),
    ("LINT_LIMITS", "max_source_lines"): (
        lambda n: _app_lint("x = 1\n" * n), lambda n: _app_lint("x = 1\n" * (n + 1)),
        r"got {m} lines; at most {n} are checked"),
}


def _app_compare(text, inputs, watch):
    from dashboard import services
    return services.compare.__wrapped__(text, inputs, watch, "float32", ("jacobian",))


def _app_hessians(k):
    from dashboard import services
    return services.hessians.__wrapped__("sum(x * x)", {"x": np.ones(k).tolist()}, None, "float32")


def _app_lint(source):
    from dashboard import services
    return services.lint.__wrapped__(source)


def test_every_app_limit_that_differs_from_the_default_has_a_row():
    from dashboard import limits
    differing = {(name, f.name) for name in ("APP_LIMITS", "LINT_LIMITS") for f in dataclasses.fields(Limits)
                 if getattr(getattr(limits, name), f.name) != getattr(gradlib.LIMITS, f.name)}
    assert differing - {("LINT_LIMITS", "max_source_seconds")} == set(APP_ROWS) | set(COST_ROWS)


@pytest.mark.parametrize("name, field", sorted(APP_ROWS))
def test_the_app_accepts_its_last_good_value_and_refuses_the_first_bad(name, field):
    from dashboard import limits
    n = getattr(getattr(limits, name), field)
    accepted, refused, pattern = APP_ROWS[(name, field)]
    result = accepted(n)
    assert not getattr(result, "errors", None), result.errors   # compare keeps a method's refusal: none here
    with pytest.raises((ExpressionError, LintError)) as info:
        refused(n)
    root = int(n ** 0.5) + 1
    expected = pattern.format(n=_fmt(n), m=_fmt(n + 1), q=_fmt(501 * 500), r=_fmt(root * root))
    assert re.search(expected, str(info.value)), f"{field}: {str(info.value)!r} does not match {expected!r}"


# ---------------------------------------------------------------- the app's work and memory bounds, at its values

def _flops_family(q: int, p: int = 100, r: int = 100):
    """sum(A @ (B * x), axis=1), A p x q, B q x r, x watched (r): method jacobian's work, by the cost model's closed
    form (gradlib/_perelement/_cost.py: forward + m (2 watched work + m + m + n)), and the request."""
    forward = p * q + q * r + r + q * r + (2 * p * q * r + p * r) + p     # A, B, x, B * x, the product, the sum
    watched_work = r + q * r + (2 * p * q * r + p * r) + p
    work = forward + p * (2 * watched_work + p + p + r)
    inputs = {"A": np.ones((p, q)).tolist(), "B": np.ones((q, r)).tolist(), "x": np.ones(r).tolist()}
    return work, ("sum(A @ (B * x), axis=1)", inputs, ("x",))


def _bytes_family(q: int, r: int = 250):
    """sum(x * B, axis=1), B q x r, x watched (r): method jacobian's peak memory in float32, by the closed form
    (4 bytes x (elements + m (m + 2 watched elements) + 2 m n)), and the request."""
    elements, watched = r + 2 * q * r + q, r + q * r + q                   # x, B, x * B, the sum; all but B
    nbytes = 4 * (elements + q * (q + 2 * watched) + 2 * q * r)
    return nbytes, ("sum(x * B, axis=1)", {"x": np.ones(r).tolist(), "B": np.ones((q, r)).tolist()}, ("x",))


#: the app's estimate bounds -> the family of requests whose estimate grows with q, and how the refusal writes it
COST_ROWS = {("APP_LIMITS", "max_flops"): (_flops_family, r"about ([\d.e+]+) floating-point operations .*; at most "
                                                          r"([\d.e+]+) are allowed"),
             ("APP_LIMITS", "max_bytes"): (_bytes_family, r"about ([\d.]+) MB of memory .*; at most ([\d.]+) MB are "
                                                          r"allowed")}


def _last_good(family, limit: float) -> int:
    q = 1
    while family(q + 1)[0] <= limit:
        q += 1
    return q


def _jacobian_refusal(request) -> str:
    """The app's refusal of method jacobian for ``request``: raised (nothing fits) or kept beside the others."""
    try:
        result = _app_compare(*request)
    except ExpressionError as exc:
        return str(exc)
    refused = {**result.errors, **result.skipped}
    assert "jacobian" in refused, "the first bad value was accepted"
    return str(refused["jacobian"])


@pytest.mark.parametrize("name, field", sorted(COST_ROWS))
def test_the_app_runs_the_last_request_its_estimate_bounds_allow_and_refuses_the_next(name, field):
    from dashboard import limits
    limit = getattr(getattr(limits, name), field)
    family, pattern = COST_ROWS[(name, field)]
    q = _last_good(family, limit)
    assert family(q)[0] <= limit < family(q + 1)[0]
    result = _app_compare(*family(q)[1])
    assert not result.errors and not result.skipped, (result.errors, result.skipped)
    assert result.results["jacobian"].jacobian.shape == result.best.jacobian.shape
    message = _jacobian_refusal(family(q + 1)[1])
    found = re.search(pattern, message)
    assert found, message
    need, most = (float(v) for v in found.groups())
    scale = 1e6 if "MB" in pattern else 1.0
    assert need != most and need * scale > limit and most * scale == limit, message   # both numbers, told apart
    digits = len(found[1].split("e")[0].replace(".", "").lstrip("0"))
    assert need * scale == pytest.approx(family(q + 1)[0], rel=10.0 ** (1 - digits)), message
