"""``evaluate`` checks a request once and reuses it: a warm call neither parses, checks nor converts its inputs
again (issue 26: that work made ``evaluate`` 1.24-1.36x the callable path on the 256-wide tanh MLP). The values
decide, never the arrays' identity: an array changed in place is a new request."""

from __future__ import annotations

import numpy as np
import pytest

import gradlib
from gradlib._perelement import _api, _request

W = np.array([[1.0, 2.0], [-1.0, 0.5], [0.0, 3.0]], np.float32)


def _jacobian(w: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The Jacobian of tanh(W @ x) with respect to x, by hand: diag(1 - y**2) W."""
    y = np.tanh(w.astype(np.float64) @ x.astype(np.float64))
    return (1 - y ** 2)[:, None] * w


@pytest.fixture
def prepared(monkeypatch):
    """Counts the checked requests ``evaluate`` makes (parse, input checks, tensors)."""
    count = [0]
    prepare = _api.prepare

    def counted(*args, **kwargs):
        count[0] += 1
        return prepare(*args, **kwargs)

    monkeypatch.setattr(_api, "prepare", counted)
    _request._REQUESTS.clear()
    return count


def test_a_warm_call_reuses_the_checked_request(prepared):
    x = np.array([0.3, -0.2], np.float32)
    first = gradlib.evaluate("tanh(W @ x)", {"W": W, "x": x}, watch=["x"])
    again = gradlib.evaluate("tanh(W @ x)", {"W": W, "x": x}, watch=["x"])
    assert prepared[0] == 1
    np.testing.assert_allclose(again.jacobian, _jacobian(W, x), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(again.jacobian, first.jacobian)
    gradlib.evaluate("tanh(W @ x)", {"W": W, "x": x.copy()}, watch=["x"])   # equal values, another array: reused
    assert prepared[0] == 1


def test_an_array_changed_in_place_is_a_new_request(prepared):
    w, x = W.copy(), np.array([0.3, -0.2], np.float32)
    gradlib.evaluate("tanh(W @ x)", {"W": w, "x": x}, watch=["x"])
    w[1, 0], x[0] = 4.0, 1.5
    got = gradlib.evaluate("tanh(W @ x)", {"W": w, "x": x}, watch=["x"])
    assert prepared[0] == 2
    np.testing.assert_allclose(got.jacobian, _jacobian(w, x), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("change", ["text", "watch", "dtype", "limits", "lists"])
def test_anything_else_that_decides_the_request_makes_a_new_one(prepared, change):
    x = np.array([0.3, -0.2], np.float32)
    gradlib.evaluate("tanh(W @ x)", {"W": W, "x": x}, watch=["x"])
    args = {"text": ("tanh(W @ x) * 2", {"W": W, "x": x}, {"watch": ["x"]}),
            "watch": ("tanh(W @ x)", {"W": W, "x": x}, {"watch": ["W", "x"]}),
            "dtype": ("tanh(W @ x)", {"W": W, "x": x}, {"watch": ["x"], "dtype": "float64"}),
            "limits": ("tanh(W @ x)", {"W": W, "x": x}, {"watch": ["x"], "limits": gradlib.Limits(max_inputs=4)}),
            "lists": ("tanh(W @ x)", {"W": W.tolist(), "x": x.tolist()}, {"watch": ["x"]})}[change]
    got = gradlib.evaluate(args[0], args[1], **args[2])
    got = gradlib.evaluate(args[0], args[1], **args[2])   # lists are checked on every call
    assert prepared[0] == (3 if change == "lists" else 2)
    factor = 2 if change == "text" else 1
    np.testing.assert_allclose(got.jacobian[:, -2:],   # the columns of x (the last ones when W is watched too)
                               factor * _jacobian(W, x), rtol=1e-5, atol=1e-6)


def test_a_bad_method_or_input_is_refused_on_a_warm_request_too(prepared):
    x = np.array([0.3, -0.2], np.float32)
    gradlib.evaluate("tanh(W @ x)", {"W": W, "x": x}, watch=["x"])
    with pytest.raises(gradlib.ExpressionError, match=r"evaluate got method='fast'; choose one of"):
        gradlib.evaluate("tanh(W @ x)", {"W": W, "x": x}, watch=["x"], method="fast")
    x[1] = np.nan   # not finite: the request is checked again, and says so
    got = gradlib.evaluate("tanh(W @ x)", {"W": W, "x": x}, watch=["x"])
    assert prepared[0] == 2 and any("not finite" in w or "NaN" in w for w in got.warnings), got.warnings


def test_large_requests_are_not_kept(prepared, monkeypatch):
    monkeypatch.setattr(_request, "REUSED_BYTES", 16)
    x = np.array([0.3, -0.2], np.float32)
    for _ in range(2):
        gradlib.evaluate("tanh(W @ x)", {"W": W, "x": x}, watch=["x"])
    assert prepared[0] == 2
