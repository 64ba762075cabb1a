"""Property tests: random small expressions, written as text from the language's own pieces, over
inputs of random small shapes. The correct methods agree with each other, the column sums of the
Jacobian equal the summed row, the naive loop gives zeros, and central finite differences agree with
the Jacobian along random directions (every generated function is smooth: no kinks, no log or sqrt of negatives)."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from gradlib import evaluate

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
RTOL, ATOL = 1e-9, 1e-9     # float64: the methods differ only by rounding
SHAPES = [(), (1,), (2,), (3,), (2, 2), (1, 3), (3, 2)]

#: one-argument pieces, smooth everywhere on the real line
SMOOTH_UNARY = ["sin({})", "cos({})", "tanh({})", "sigmoid({})", "square({})", "softplus({})", "exp(0.5 * {})",
                "log(1 + square({}))", "sqrt(2 + sin({}))", "-{}", "+{}", "({}) ** 2", "({}) ** 3", "(s * {})",
                "({} + 1.5)", "(0.5 - {})"]
#: two-argument pieces, smooth everywhere (the divisor stays in [1, 3])
SMOOTH_BINARY = ["({} + {})", "({} - {})", "({} * {})", "{} / (2 + cos({}))"]


def _elementwise(depth: int):
    """Text of a smooth elementwise function of the inputs a and b (both of the drawn shape) and the scalar s."""
    leaves = st.sampled_from(["a", "b"])
    if depth == 0:
        return leaves
    child = _elementwise(depth - 1)
    return st.one_of(
        leaves,
        st.builds(lambda f, e: f.format(e), st.sampled_from(SMOOTH_UNARY), child),
        st.builds(lambda f, e1, e2: f.format(e1, e2), st.sampled_from(SMOOTH_BINARY), child, child),
    )


@st.composite
def _wrapped(draw, shape: tuple[int, ...]):
    """A top-level piece that may change the shape: reductions, indexing, slicing, stacking, @."""
    e, e2 = draw(_elementwise(3)), draw(_elementwise(2))
    forms = ["{e}", "sum({e})", "mean({e})", "prod(1 + 0.25 * tanh({e}))", "[{e}, {e2}]", "logsumexp({e})",
             "transpose({e})", "reshape({e}, [-1])"]
    if shape:
        rank = len(shape)
        axis = draw(st.integers(-rank, rank - 1))
        index = draw(st.integers(-shape[0], shape[0] - 1))
        forms += [f"sum({{e}}, axis={axis})", f"mean({{e}}, axis={axis})", f"({{e}})[{index}]", "({e})[::2]",
                  "({e})[1:]" if shape[0] > 1 else "({e})[:1]", "W @ ({e})" if rank == 1 else "({e}) @ W",
                  "dot({e}, {e2})" if rank == 1 else "matmul({e}, W)", f"softmax({{e}}, axis={axis})",
                  "log_softmax({e})", f"logsumexp({{e}}, axis={axis})", f"concat([{{e}}, {{e2}}], axis={axis})",
                  f"cross_entropy(softmax({{e2}}), {{e}}, axis={axis})"]
    return draw(st.sampled_from(forms)).format(e=e, e2=e2)


@st.composite
def problems(draw):
    """``(text, inputs)``: a smooth random function and float64 inputs in a small range."""
    shape = draw(st.sampled_from(SHAPES))
    # no subnormal numbers: TensorFlow flushes them to 0, so gradlib refuses them (tests/language/test_numbers_held.py)
    values = hnp.arrays(np.float64, shape, elements=st.floats(-1.5, 1.5, allow_nan=False, allow_subnormal=False,
                                                              width=64))
    inputs = {"a": draw(values), "b": draw(values), "s": draw(st.floats(0.5, 1.5))}
    text = draw(_wrapped(shape))
    if "W" in text:
        k = shape[-1]
        inputs["W"] = draw(hnp.arrays(np.float64, (k, k), elements=st.floats(-1.0, 1.0, allow_subnormal=False, width=64)))
    return text, inputs


def _scale(j: np.ndarray) -> float:
    return 1.0 + float(np.max(np.abs(j))) if j.size else 1.0


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])   # each traces a graph
@given(problems())
def test_correct_methods_agree(problem):
    text, inputs = problem
    results = {m: evaluate(text, inputs, method=m, dtype="float64", compiled=False)
               for m in ("unstack", "jacobian", "forward")}
    results["compiled jacobian"] = evaluate(text, inputs, method="jacobian", dtype="float64", compiled=True)
    reference = results["unstack"]
    assert reference.jacobian.shape == (reference.y.size, sum(np.size(v) for v in inputs.values()))
    assert np.isfinite(reference.jacobian).all()
    for name, r in results.items():
        np.testing.assert_allclose(r.y, reference.y, rtol=RTOL, atol=ATOL, err_msg=f"{text}: y of {name}")
        np.testing.assert_allclose(r.jacobian, reference.jacobian, rtol=RTOL, atol=ATOL * _scale(reference.jacobian),
                                   err_msg=f"{text}: Jacobian of {name}")


@SETTINGS
@given(problems())
def test_column_sums_equal_the_summed_row_and_naive_is_zero(problem):
    text, inputs = problem
    jac = evaluate(text, inputs, method="jacobian", dtype="float64").jacobian
    summed = evaluate(text, inputs, method="summed", dtype="float64")
    assert summed.jacobian.shape == (1, jac.shape[1]) and not summed.per_element
    np.testing.assert_allclose(summed.jacobian[0], jac.sum(axis=0), rtol=RTOL, atol=ATOL * _scale(jac) * jac.shape[0],
                               err_msg=text)
    naive = evaluate(text, inputs, method="naive", dtype="float64")
    assert naive.broken
    if naive.y.ndim:   # iterating a tensor outside the tape: every row is unconnected
        np.testing.assert_array_equal(naive.jacobian, np.zeros_like(jac))


def _directional_difference(text: str, inputs: dict, direction: dict, h: float = 1e-5) -> np.ndarray:
    """J v by central differences: (f(x + h v) - f(x - h v)) / 2h, flattened like the rows of J."""
    ys = []
    for step in (h, -h):
        moved = {name: np.asarray(value, dtype=np.float64) + step * direction[name] for name, value in inputs.items()}
        ys.append(np.reshape(evaluate(text, moved, method="summed", dtype="float64").y, -1))
    return (ys[0] - ys[1]) / (2 * h)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(), st.integers(0, 2**32 - 1))
def test_finite_differences_agree_with_the_jacobian(problem, seed):
    # Random directions v: a single wrong entry of J changes J v, so three directions check every column.
    text, inputs = problem
    r = evaluate(text, inputs, method="auto", dtype="float64")
    rng = np.random.default_rng(seed)
    for _ in range(3):
        direction = {name: rng.normal(size=np.shape(value)) for name, value in inputs.items()}
        v = np.concatenate([np.reshape(direction[name], -1) for name in inputs])
        np.testing.assert_allclose(r.jacobian @ v, _directional_difference(text, inputs, direction),
                                   rtol=1e-5, atol=1e-6 * _scale(r.jacobian) * (1 + np.abs(v).sum()), err_msg=text)


def test_the_grammar_only_writes_valid_smooth_text():
    # Every piece of the grammar is in the language, so a refusal here would be a bug in the language.
    for piece in SMOOTH_UNARY:
        evaluate(piece.format("a"), {"a": [0.5, -1.0], "s": 1.0}, method="summed")
    for piece in SMOOTH_BINARY:
        evaluate(piece.format("a", "a"), {"a": [0.5, -1.0]}, method="summed")
    assert math.isfinite(evaluate("sqrt(2 + sin(a))", {"a": -1.5}, method="jacobian").jacobian[0, 0])
