"""Memory and work bounds that hold for every method: estimated before allocating, refused with the numbers.

The reproductions of issue 10 run in a child process whose address space is capped (``RLIMIT_AS``): before
the cost model, each of them grew past 4 GB or crashed the process, so a regression fails the child, never
the test run. Each limit is pinned at its boundary: exactly at the estimate computes, one below refuses.
"""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from fresh_tf import run

import gradlib
from gradlib import ExpressionError, Limits
from gradlib._perelement import _cost
from gradlib._perelement import _plan
from gradlib._perelement import _problem
from gradlib._language._inputs import check_inputs
from gradlib._language._syntax import parse

ROOT = Path(__file__).resolve().parents[2]
#: the child's address-space cap: TensorFlow itself reserves about 1.6 GB; the reproductions needed 4-10 GB
CAP_BYTES = 3 * 2**30
APP_LIMITS = Limits(max_elements=250_000, max_jacobian=250_000, max_flops=1e9, max_bytes=5e8)   # as dashboard/services.py


def _in_capped_child(code: str, *, fresh: bool = False) -> dict:
    """Run ``code`` (which sets ``out``) in a child with ``CAP_BYTES`` of address space; return ``out``. The child is
    forked from a server that imported TensorFlow (tests/fresh_tf.py), or with ``fresh`` a new interpreter: a test
    that reads the process's peak resident memory (which a forked child starts from its server's) takes that."""
    script = textwrap.dedent(f"""
        import json, resource
        resource.setrlimit(resource.RLIMIT_AS, ({CAP_BYTES}, {CAP_BYTES}))
        import numpy as np
        import gradlib
        from gradlib import Limits
        out = {{}}
    """) + textwrap.dedent(code) + "\nprint('OUT' + json.dumps(out))\n"
    args = [sys.executable, "-c", script]
    proc = (subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=240) if fresh
            else run(args, cwd=ROOT, timeout=240))
    assert proc.returncode == 0, f"child failed with {proc.returncode}: {proc.stderr[-2000:]}"
    line = next(line for line in proc.stdout.splitlines() if line.startswith("OUT"))
    return json.loads(line[3:])


OUTER = {"a": [[1.0]] * 150, "b": [[1.0] * 150], "s": 2.0}   # a*b*s: m = 22,500 outputs, n = 1 watched


def test_a_22500_output_jacobian_is_refused_with_its_estimate_and_auto_takes_forward_mode():
    out = _in_capped_child("""
        inputs = {"a": [[1.0]] * 150, "b": [[1.0] * 150], "s": 2.0}
        try:
            gradlib.evaluate("a*b*s", inputs, watch=["s"], method="jacobian")
        except gradlib.ExpressionError as exc:
            out["refusal"] = str(exc)
        r = gradlib.evaluate("a*b*s", inputs, watch=["s"])
        out["auto"] = [r.method, r.jacobian.shape[0], float(r.jacobian.min()), float(r.jacobian.max())]
        try:
            gradlib.evaluate("a*b*s", {"a": [[1.0]] * 200, "b": [[1.0] * 200], "s": 2.0}, watch=["s"],
                             method="jacobian")
        except gradlib.ExpressionError as exc:
            out["40000"] = str(exc)
        from dashboard.services import APP_LIMITS
        c = gradlib.compare("a*b*s", inputs, watch=["s"], limits=APP_LIMITS)
        out["compare"] = sorted(c.results), c.skipped, c.best.method
        out["best_ones"] = bool((c.best.jacobian == 1.0).all()) and c.best.jacobian.shape == (22_500, 1)
        out["compare_errors"] = c.errors
    """)
    assert out["refusal"] == (
        "method 'jacobian' would need about 6.1 GB of memory at its peak (22,500 reverse passes vectorized: a "
        "22,500 x 22,500 identity and 22,500 copies of the pass's 45,002 values); at most 2 GB are allowed. Use "
        "method='forward' (about 541 kB, 1.1e+05 operations) or method='auto', which takes a method within the limits")
    assert out["auto"] == ["forward", 22_500, 1.0, 1.0]          # d(a*b*s)/ds = a*b = 1 everywhere
    assert out["40000"].startswith("method 'jacobian' would need about 19 GB of memory at its peak (40,000 reverse")
    results, errors, best = out["compare"]   # every method the playground runs for a link that names none
    assert results == ["auto", "forward", "structured", "summed"] and out["compare_errors"] == {}
    # auto runs forward mode eagerly until this problem's eager calls have cost TRACE_SECONDS (0.3 s), then
    # compiled, where the structured walk is cheaper: under load the evaluate above can reach that, so either is auto's
    assert best in ("forward", "structured") and out["best_ones"]
    assert sorted(errors) == ["jacobian", "naive", "unstack"]
    assert errors["jacobian"].startswith("method 'jacobian' would need about 6.1 GB of memory at its peak")
    assert errors["jacobian"].endswith("at most 500 MB are allowed. Use method='forward' (about 541 kB, 1.1e+05 "
                                       "operations) or method='auto', which takes a method within the limits")
    assert errors["unstack"].startswith("method 'unstack' runs one eager pass per output element: 22,500 here")


def test_auto_does_not_repair_poisoned_rows_with_a_jacobian_too_big_for_the_app():
    # Even in chunks (1,109 rows at a time within 500 MB), reverse mode over all 22,500 poisoned rows would
    # take about 3e9 operations: over the app's 1e9, so the rows stay poisoned and the warning says why.
    out = _in_capped_child("""
        from dashboard.services import APP_LIMITS
        inputs = {"a": [[1.0]] * 150, "b": [[2.0] * 150], "s": 2.0}
        r = gradlib.evaluate("a*b*s + sqrt(s - s)", inputs, watch=["s"], limits=APP_LIMITS)
        out["method"], out["poisoned"], out["repaired"] = r.method, len(r.poisoned_rows), len(r.repaired_rows)
        out["nan"] = bool(np.isnan(r.jacobian).all())
        out["warnings"] = r.warnings
    """, fresh=True)
    # sqrt(s - s) at s = 2 has an infinite derivative times (1 - 1) = 0: NaN in every row, finite y everywhere
    assert (out["method"], out["poisoned"], out["repaired"], out["nan"]) == ("forward", 22_500, 0, True)
    assert out["warnings"][0].startswith("NaN in the gradient of finite output(s) y[0,0], y[0,1], y[0,2], y[0,3], "
                                         "y[0,4], y[0,5], y[0,6], y[0,7] and 22,492 more: ")
    assert out["warnings"][1] == (
        "NaN poisoning not repaired: the other mode, 'jacobian' would need about 10 GB of memory at its peak (22,500 "
        "reverse passes vectorized: a 22,500 x 22,500 identity and 22,500 copies of the pass's 90,010 values); at "
        "most 500 MB are allowed.")


def test_the_share_link_that_crashed_the_app_refuses_forward_mode_and_answers_with_the_rest():
    # outputs=sum(tanh(a * x)), a 100x1, x 1x2500, watch=x, every method (a link naming none): SIGSEGV before
    out = _in_capped_child("""
        from dashboard.services import APP_LIMITS as app   # the dashboard's own limits
        rng = np.random.default_rng(0)
        a, x = rng.uniform(-1, 1, (100, 1)), rng.uniform(-1, 1, (1, 2500))
        c = gradlib.compare("sum(tanh(a * x))", {"a": a, "x": x}, watch=["x"], limits=app, dtype="float64")
        out["errors"] = c.skipped   # over its limits: left out with the refusal, not failed
        out["failed"] = c.errors
        out["methods"] = sorted(c.results)
        expected = (a * (1 - np.tanh(a * x) ** 2)).sum(axis=0)
        out["error"] = max(float(np.abs(r.jacobian[0] - expected).max()) for k, r in c.results.items()
                           if k not in ("naive", "summed"))
    """)
    assert out["methods"] == ["auto", "jacobian", "naive", "summed", "unstack"]
    assert list(out["errors"]) == ["forward", "structured"] and out["failed"] == {}
    assert out["errors"]["structured"].startswith("method 'structured' would need about ")
    assert out["errors"]["forward"].startswith(
        "method 'forward' would need about 20 GB of memory at its peak (2,500 forward-mode passes vectorized: a "
        "2,500 x 2,500 identity and 2,500 copies of the pass's 1,005,002 values); at most 500 MB are allowed. Use method='jacobian'")
    assert out["error"] < 1e-12


# ---------------------------------------------------------------- each limit at its boundary


def _profile(text: str, inputs: dict, watch: list[str], dtype: str = "float64") -> _cost.Profile:
    checked = check_inputs(inputs, watch=watch, dtype=dtype)
    program = parse(text, {i.name: i.shape for i in checked})
    return _problem.expression_problem(program, checked).profile


LAYER = {"a": np.linspace(-1, 1, 40)[:, None], "x": np.linspace(-1, 1, 30)[None, :]}


def _layer_jacobian() -> np.ndarray:
    a, x = LAYER["a"], LAYER["x"][0]
    d = a * (1 - np.tanh(a * x) ** 2)                           # (40, 30): d y[i, j] / d x[j]
    jac = np.zeros((40, 30, 30))
    jac[:, np.arange(30), np.arange(30)] = d
    return jac.reshape(1200, 30)


@pytest.mark.parametrize("method, compiled", [("jacobian", True), ("forward", True), ("unstack", False)])
def test_the_memory_limit_holds_at_its_boundary(method, compiled):
    text, inputs = ("tanh(a * x)", LAYER) if method != "unstack" else ("tanh(x)", {"x": np.linspace(-1, 1, 30)})
    cost = _cost.estimate(method, _profile(text, inputs, ["x"]), compiled)
    at = Limits(max_bytes=cost.bytes, max_flops=cost.work)
    r = gradlib.evaluate(text, inputs, watch=["x"], method=method, dtype="float64", compiled=compiled, limits=at)
    expected = _layer_jacobian() if method != "unstack" else np.diag(1 - np.tanh(inputs["x"]) ** 2)
    np.testing.assert_allclose(r.jacobian, expected, rtol=1e-12, atol=1e-12)
    with pytest.raises(ExpressionError, match=rf"^method '{method}' would need about .* of memory at its peak "
                                              rf"\(.*\); at most .* are allowed\. "):
        gradlib.evaluate(text, inputs, watch=["x"], method=method, dtype="float64", compiled=compiled,
                         limits=Limits(max_bytes=cost.bytes - 1, max_flops=cost.work))
    with pytest.raises(ExpressionError, match=rf"^method '{method}' would need about [0-9.e+]+ floating-point "
                                              r"operations \(.*\); at most [0-9.e+]+ are allowed for one request"):
        gradlib.evaluate(text, inputs, watch=["x"], method=method, dtype="float64", compiled=compiled,
                         limits=Limits(max_bytes=cost.bytes, max_flops=cost.work - 1))


def test_auto_takes_another_method_when_its_usual_choice_does_not_fit():
    # Eagerly, auto runs the seed's unstack loop for 200 outputs; with its work one operation over the limit
    # auto vectorizes the passes instead (eager pfor), and the answer is the same.
    x = np.linspace(-1.0, 1.0, 200)
    unstack = _cost.estimate("unstack", _profile("tanh(x)", {"x": x}, ["x"]), False)
    expected = np.diag(1 - np.tanh(x) ** 2)
    for max_flops, method in ((unstack.work, "unstack"), (unstack.work - 1, "jacobian")):
        r = gradlib.evaluate("tanh(x)", {"x": x}, dtype="float64", compiled=False, limits=Limits(max_flops=max_flops))
        assert (r.method, r.compiled) == (method, False)
        np.testing.assert_allclose(r.jacobian, expected, rtol=1e-12, atol=1e-12)


def test_auto_refuses_when_no_method_fits_with_the_cheapest_estimate():
    with pytest.raises(ExpressionError, match=(
            r"^no method fits the limits: the cheapest, 'forward', would need about 321 kB of memory at its peak \(30 "
            r"eager forward-mode passes of 3 operations each\); at most 1 kB are allowed\. Watch fewer inputs, "
            r"reduce the output \(for example with sum or mean\)")):
        gradlib.evaluate("tanh(a * x)", LAYER, watch=["x"], limits=Limits(max_bytes=1_000))


def test_an_eager_loop_s_dispatch_counts_as_work():
    # 256 outputs of a 34-term function: explicit unstack took 5.2-5.6 s here against 0.6 s for auto.
    text = "+".join(["sin(x)*x"] * 34)
    x = np.linspace(0.1, 1.0, 256)
    with pytest.raises(ExpressionError, match=(
            r"^method 'unstack' would need about 5.5e\+09 floating-point operations \(256 eager reverse passes of "
            r"425 operations each\); at most 1e\+09 are allowed for one request\. Use method='forward'")):
        gradlib.evaluate(text, {"x": x}, method="unstack", limits=APP_LIMITS)
    r = gradlib.evaluate(text, {"x": x}, limits=APP_LIMITS, dtype="float64")
    np.testing.assert_allclose(r.jacobian, np.diag(34 * (np.cos(x) * x + np.sin(x))), rtol=1e-10)


# ---------------------------------------------------------------- a caller's limits reach every method


def test_evaluate_passes_its_limits_to_the_method():
    few = Limits(max_eager_passes=2)
    with pytest.raises(ExpressionError, match=r"method 'unstack' runs one eager pass per output element: 3 here, "
                                              r"and at most 2 are allowed"):
        gradlib.evaluate("x * x", {"x": [1.0, 2.0, 3.0]}, method="unstack", limits=few)
    assert gradlib.evaluate("x * x", {"x": [1.0, 2.0]}, method="unstack", limits=few).jacobian.tolist() == [
        [2.0, 0.0], [0.0, 4.0]]


def test_compare_passes_its_limits_to_every_method():
    few = Limits(max_eager_passes=2)
    c = gradlib.compare("x * x", {"x": [1.0, 2.0, 3.0]}, methods=["unstack", "naive", "jacobian"], limits=few)
    assert set(c.skipped) == {"unstack", "naive"} and c.errors == {}   # left out over their limits, not failed
    assert c.skipped["unstack"].startswith("method 'unstack' runs one eager pass per output element: 3 here, and "
                                           "at most 2 are allowed")
    np.testing.assert_allclose(c.results["jacobian"].jacobian, np.diag([2.0, 4.0, 6.0]))


def test_the_finite_difference_check_counts_its_eager_evaluations():
    # 512 eager evaluations of a 170-node function dispatch about 87,000 operations (about 4 s): over 1e9
    text = "+".join(["sin(x)*x"] * 34)
    x = np.linspace(0.1, 1.0, 256)
    c = gradlib.compare(text, {"x": x}, methods=["auto"], limits=APP_LIMITS, dtype="float64")
    fit = re.fullmatch(r"512 evaluations of this function would exceed the work allowed for one request: "
                       r"at most (\d+) fit", c.check.skipped)
    assert fit and 0 < int(fit[1]) < 512
    np.testing.assert_allclose(c.best.jacobian, np.diag(34 * (np.cos(x) * x + np.sin(x))), rtol=1e-10)
    small = gradlib.compare("sin(x)*x", {"x": x[:8]}, methods=["auto"], limits=APP_LIMITS, dtype="float64")
    assert small.check.passed   # 16 evaluations of 4 nodes: well within the limit


def test_auto_falls_back_to_an_eager_loop_when_no_vectorized_method_fits():
    # 1,200 outputs and 30 inputs: auto compiles, and takes the Jacobian from the function's structure (cheaper
    # than compiled forward mode's 1.8 MB estimated in float64); with 1 MB allowed neither fits, and it runs
    # forward mode's eager loop of 30 passes instead (642 kB), and the answer is the same.
    profile = _profile("tanh(a * x)", LAYER, ["x"])
    assert _cost.estimate("forward", profile, True).bytes > 1e6 > _cost.estimate("forward", profile, False).bytes
    assert _cost.estimate("structured", profile, True).bytes > 1e6
    usual = gradlib.evaluate("tanh(a * x)", LAYER, watch=["x"], dtype="float64")
    squeezed = gradlib.evaluate("tanh(a * x)", LAYER, watch=["x"], dtype="float64", limits=Limits(max_bytes=1e6))
    assert (usual.method, usual.compiled, squeezed.method, squeezed.compiled) == ("structured", True, "forward", False)
    np.testing.assert_allclose(usual.jacobian, _layer_jacobian(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(squeezed.jacobian, _layer_jacobian(), rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------- chunks of vectorized passes

RNG = np.random.default_rng(1)
WIDE = {"A": RNG.standard_normal((300, 300)), "x": RNG.standard_normal(300)}   # sum(tanh(A * x), axis=1)
WIDE_J = WIDE["A"] * (1 - np.tanh(WIDE["A"] * WIDE["x"]) ** 2)


def test_auto_runs_a_vectorized_method_in_chunks_when_nothing_fits_at_once():
    # 300 outputs and 300 inputs (eager loops are over 256 passes); all 300 vectorized passes need about
    # 871 MB: with 100 MB allowed, auto runs them 33 at a time, compiled (eagerly each chunk would be
    # traced anew, and memory grew past the estimate), so compiled=False refuses.
    small = Limits(max_bytes=1e8)
    r = gradlib.evaluate("sum(tanh(A * x), axis=1)", WIDE, watch=["x"], dtype="float64", limits=small)
    np.testing.assert_allclose(r.jacobian, WIDE_J, rtol=1e-12, atol=1e-14)
    assert (r.method, r.compiled) == ("jacobian", True)
    assert r.warnings == ("computed in chunks of 33 vectorized passes, to keep the estimated peak memory within "
                          "100 MB",)
    with pytest.raises(ExpressionError, match=r"^method 'jacobian' would need about 871 MB of memory at its peak .*"
                                              r"Use method='auto', which can run 'jacobian' within the limits: 300 "
                                              r"reverse passes vectorized in 10 chunks of 33$"):
        gradlib.evaluate("sum(tanh(A * x), axis=1)", WIDE, watch=["x"], dtype="float64", limits=small,
                         method="jacobian")
    with pytest.raises(ExpressionError, match=r"^no method fits the limits: the cheapest, 'jacobian', would need "
                                              r"about 871 MB of memory at its peak"):
        gradlib.evaluate("sum(tanh(A * x), axis=1)", WIDE, watch=["x"], dtype="float64", limits=small,
                         compiled=False)


def test_chunks_keep_the_peak_memory_near_their_estimate():
    out = _in_capped_child("""
        import resource
        rng = np.random.default_rng(1)
        inputs = {"A": rng.standard_normal((300, 300)), "x": rng.standard_normal(300)}
        gradlib.evaluate("x * x", {"x": [1.0]})
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        r = gradlib.evaluate("sum(tanh(A * x), axis=1)", inputs, watch=["x"], dtype="float64",
                             limits=Limits(max_bytes=1e8))
        out["growth"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - before
        out["warnings"] = r.warnings
    """, fresh=True)
    assert out["warnings"][0].startswith("computed in chunks of 33 vectorized passes")
    assert out["growth"] < 1.5e8   # measured: 58 MB, against 457 MB for all 300 passes at once


def test_the_repair_of_poisoned_rows_runs_the_other_mode_in_chunks_when_it_must():
    # y[0] = exp(exp(10 x0)) overflows; reverse mode then puts 0 x inf = NaN into row y[1]. Forward mode over
    # all 300 inputs would need about 870 MB; with 100 MB allowed the repair runs it 33 columns at a time.
    text = "[exp(exp(10 * x[0])), sum(tanh(A * x))]"
    inputs = {"A": WIDE["A"], "x": np.concatenate([[1.0], WIDE["x"][1:]])}
    expected = (inputs["A"] * (1 - np.tanh(inputs["A"] * inputs["x"]) ** 2)).sum(axis=0)
    small = Limits(max_bytes=1e8)
    assert _plan.plan_repair("jacobian", True, _profile(text, inputs, ["x"]), 1, True, small) == ("forward", 33, "")
    r = gradlib.evaluate(text, inputs, watch=["x"], dtype="float64", compiled=True, limits=small)
    assert (r.method, r.poisoned_rows, r.repaired_rows) == ("jacobian", (), (1,))
    np.testing.assert_allclose(r.jacobian[1], expected, rtol=1e-12, atol=1e-14)
    plain = gradlib.evaluate(text, inputs, watch=["x"], dtype="float64", compiled=True, method="jacobian")
    assert plain.poisoned_rows == (1,) and np.isnan(plain.jacobian[1, 0])   # what the repair fixed


# ---------------------------------------------------------------- estimates pinned to an independent count


def test_compiled_unstack_holds_its_m_unrolled_passes_at_once():
    # tanh(x) with 30 float64 elements: the forward pass holds x and tanh(x) (60 values); one reverse pass holds
    # twice the watched part (120). Compiled, the 30 unrolled passes may run side by side: 30 x 120 values, plus
    # the 30 cotangents and the 30 x 30 Jacobian twice (the stacked rows and the result)
    p = _profile("tanh(x)", {"x": np.linspace(-1, 1, 30)}, ["x"])
    assert (p.m, p.n, p.itemsize, p.elements, p.watched_elements, p.watched_work) == (30, 30, 8, 60, 60, 60)
    compiled, eager = _cost.estimate("unstack", p, True), _cost.estimate("unstack", p, False)
    assert compiled.bytes == 8 * (60 + 30 * 120 + 30 + 2 * 30 * 30) == 43_920
    assert eager.bytes == 8 * (60 + 1 * 120 + 30 + 2 * 30 * 30) == 16_080   # one pass at a time
    assert compiled.work == 60 + 30 * (2 * 60 + 30 + 30) == 5_460          # forward, then 30 passes
    # the same passes vectorized (jacobian) hold the same, and the 30 x 30 identity of cotangents besides
    assert _cost.estimate("jacobian", p, True).bytes - compiled.bytes == 8 * (30 * 30 - 30)


TALL = {"A": np.linspace(-1.0, 1.0, 10)[:, None], "x": np.linspace(-2.0, 2.0, 300)[None, :]}   # m = 3,000, n = 300


def test_auto_chunks_the_direction_with_fewer_passes():
    # tanh(A * x): 3,000 outputs, 300 inputs, nothing fits 20 MB at once and no eager loop is allowed (over 256
    # passes). Forward mode in chunks runs 300 passes; reverse mode would run 3,000 (10x the work)
    p = _profile("tanh(A * x)", TALL, ["x"])
    small = Limits(max_bytes=2e7)
    assert (p.m, p.n) == (3_000, 300)
    assert not any(_cost.fits(_cost.estimate(k, p, True), small) for k in ("jacobian", "forward"))
    method, compiled, chunk = _plan.plan_auto(p, usual="jacobian", compiled=True, compilable=True, limits=small)
    fixed, per_pass = p.elements + 2 * 3_000 * 300, 300 + 2 * p.watched_elements   # what a chunk of k passes holds
    assert (method, compiled, chunk) == ("forward", True, int((2e7 / 8 - fixed) // per_pass))
    assert _plan.plan_auto(p, usual="forward", compiled=True, compilable=True, limits=small) == (method, True, chunk)
    wide = dataclasses.replace(p, m=300, n=3_000)   # the mirror: 300 outputs of 3,000 inputs, reverse mode
    assert _plan.plan_auto(wide, usual="forward", compiled=True, compilable=True, limits=small) == (
        "jacobian", True, int((2e7 / 8 - fixed) // per_pass))
    r = gradlib.evaluate("tanh(A * x)", TALL, watch=["x"], dtype="float64", limits=small)
    assert (r.method, r.compiled) == ("forward", True) and r.warnings[0].startswith(f"computed in chunks of {chunk} ")
    a, x = TALL["A"], TALL["x"][0]
    expected = np.zeros((10, 300, 300))
    expected[:, np.arange(300), np.arange(300)] = a * (1 - np.tanh(a * x) ** 2)
    np.testing.assert_allclose(r.jacobian, expected.reshape(3_000, 300), rtol=1e-12, atol=1e-14)
