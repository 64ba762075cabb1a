"""NaN poisoning at second order (issue 35, item 2): every second-order API repairs it under auto, or names the cells.

``[where(x0 > 0, sqrt(abs(x0)), 0), x1**2]`` at ``x0 = 0``: the Hessian of ``x1**2`` is exactly ``diag(0, 2)``, and
nested tapes gave NaN in its ``x0`` column with ``.warnings`` empty. References: the closed forms, and nested tapes
(float64, eagerly, per sample) on each output's own formula, which no other output's path can reach.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
import tensorflow as tf

import gradlib
from gradlib._second._poisoning import poisoned_mask

TEXT = "[where(x0 > 0, sqrt(abs(x0)), 0), x1**2]"
HESSIAN_METHODS = ("nested_tapes", "loop", "forward_over_reverse")
TINY = 1e-6      # x0 just past the kink: the sqrt branch is taken, its second derivative -x0**-1.5 / 4 is finite


def closed_form(x0: float, x1: float) -> np.ndarray:
    """The Hessians of [where(x0 > 0, sqrt|x0|, 0), x1^2]: the taken branch's (0 at and below the kink)."""
    h = np.zeros((2, 2, 2))
    h[0, 0, 0] = -0.25 * x0 ** -1.5 if x0 > 0 else 0.0
    h[1, 1, 1] = 2.0
    return h


def batch_field(x):
    """The same function as a callable on a batch (B, 2), tf.where with sqrt in the branch not taken."""
    a = x[:, 0]
    return tf.stack([tf.where(a > 0, tf.sqrt(tf.abs(a)), tf.zeros_like(a)), x[:, 1] ** 2], axis=1)


def own_output_tapes(x: np.ndarray) -> np.ndarray:
    """Per sample and per output, nested tapes on that output's own formula only (the where() output unguarded
    and evaluated in its taken branch only): (B, 2, 2, 2)."""
    formulas = [lambda v: tf.sqrt(tf.abs(v[0])) if float(v[0]) > 0 else tf.constant(0.0, tf.float64) * v[0],
                lambda v: v[1] ** 2]
    out = np.zeros((len(x), 2, 2, 2))
    for b, row in enumerate(x):
        for k, formula in enumerate(formulas):
            v = tf.constant(row, tf.float64)
            with tf.GradientTape() as outer:
                outer.watch(v)
                with tf.GradientTape() as inner:
                    inner.watch(v)
                    y = formula(v)
                g = inner.gradient(y, v, unconnected_gradients=tf.UnconnectedGradients.ZERO)
            out[b, k] = outer.jacobian(g, v, unconnected_gradients=tf.UnconnectedGradients.ZERO).numpy()
    return out


X = np.array([[0.0, 3.0], [TINY, 2.0], [1.0, -1.5], [-2.0, 0.5]])


@functools.cache
def reference() -> np.ndarray:
    """``own_output_tapes(X)``, read-only, computed once per process: eager TensorFlow alone, no gradlib cache
    between it and the tests that compare with it (each ran the same tapes again, ~0.4 s apiece)."""
    out = own_output_tapes(X)
    out.flags.writeable = False
    return out


def test_reference_agrees_with_the_closed_form():
    assert np.allclose(reference(), [closed_form(*row) for row in X], rtol=1e-12)


# ---------------------------------------------------------------- typed functions: evaluate(order=2)


@pytest.mark.parametrize("x0", [0.0, TINY, -1.0])
def test_evaluate_order_2_auto_repairs_the_dead_branch(x0):
    r = gradlib.evaluate(TEXT, {"x0": x0, "x1": 3.0}, order=2, dtype="float64")
    assert np.allclose(r.hessian, closed_form(x0, 3.0), rtol=1e-9), r.hessian
    if x0 == 0:   # the kink exactly (at -1, sqrt(abs(x0)) has finite derivatives: nothing to repair)
        assert any("repaired NaN poisoning" in w and "y[1] at (x0, x0)" in w for w in r.warnings), r.warnings
        assert any("comes from where(): where(x0 > 0, sqrt(abs(x0)), 0) at column 2" in w for w in r.warnings)
        assert r.poisoned_cells.tolist() == r.repaired_cells.tolist() != []


@pytest.mark.parametrize("method", HESSIAN_METHODS)
def test_evaluate_order_2_an_explicit_method_names_the_cells_and_the_where(method):
    r = gradlib.evaluate(TEXT, {"x0": 0.0, "x1": 3.0}, order=2, dtype="float64", method=method)
    nan = np.isnan(r.hessian)
    assert nan[1].any() and np.allclose(r.hessian[~nan], closed_form(0.0, 3.0)[~nan])   # TensorFlow's numbers kept
    text = "\n".join(r.warnings)
    assert f"method {method!r} multiplies a zero derivative" in text and "method='auto' recomputes" in text
    assert "y[1] at (x0, x0)" in text or "y[1] at (x0, x1)" in text
    assert "where(x0 > 0, sqrt(abs(x0)), 0) at column 2, guarded where(x0 > 0, sqrt(where(x0 > 0, abs(x0), 1)), 0)" \
        in text
    assert sorted(map(tuple, r.poisoned_cells.tolist())) == sorted(map(tuple, np.argwhere(nan).tolist()))


def test_evaluate_order_2_float32_at_the_kink():
    r = gradlib.evaluate(TEXT, {"x0": 0.0, "x1": 3.0}, order=2, dtype="float32")
    assert np.array_equal(r.hessian, closed_form(0.0, 3.0))


def test_a_genuine_nan_stays_nan_and_is_reported():
    """sqrt(x0) at x0 < 0 in the branch taken: y[0] is NaN, so are its second derivatives; y[1]'s are repaired."""
    r = gradlib.evaluate("[where(x0 < 1, sqrt(x0), 0), x1**2]", {"x0": -1.0, "x1": 3.0}, order=2, dtype="float64")
    assert np.isnan(r.y[0]) and np.isnan(r.hessian[0]).any()
    assert np.array_equal(r.hessian[1], [[0.0, 0.0], [0.0, 2.0]])
    assert any("fn's output holds NaN" in w for w in r.warnings)
    assert r.repaired_cells.tolist() and all(k == 1 for k, _, _ in r.repaired_cells.tolist())


def test_a_nan_on_the_outputs_own_path_is_left_and_said_so():
    """sqrt(x0) + x1^3 at x0 = 0: its output is finite, its mixed derivative NaN in every mode: left, reported."""
    r = gradlib.evaluate("[sqrt(x0) + x1**3, x1**2]", {"x0": 0.0, "x1": 3.0}, order=2, dtype="float64")
    assert np.array_equal(r.hessian[1], [[0.0, 0.0], [0.0, 2.0]]) and r.hessian[0, 1, 1] == 18.0
    left = [w for w in r.warnings if w.startswith("NaN in")]
    assert np.isnan(r.hessian[0]).any() and left and "forward over forward mode gives NaN there too" in left[0]
    assert "y[0] at" in left[0] and not any("comes from where()" in w for w in r.warnings)


# ---------------------------------------------------------------- callables: every API


@pytest.mark.parametrize("method", ["auto", *HESSIAN_METHODS])
def test_per_sample_hessians(method):
    r = gradlib.per_sample_hessians(batch_field, tf.constant(X), method=method)
    expected = reference()
    if method == "auto":
        assert np.allclose(r.hessians, expected, rtol=1e-9)
        assert any("repaired NaN poisoning" in w and "sample 0: y[1]" in w for w in r.warnings), r.warnings
    else:
        nan = np.isnan(r.hessians)
        assert nan[0, 1].any() and np.allclose(r.hessians[~nan], expected[~nan], rtol=1e-9)
        assert any(w.startswith("NaN in") and "sample 0: y[1]" in w for w in r.warnings), r.warnings
        assert len(r.poisoned_cells) == nan.sum() and not len(r.repaired_cells)


def test_per_sample_hessians_diagonal():
    r = gradlib.per_sample_hessians(batch_field, tf.constant(X), diagonal=True)
    assert np.allclose(r.diagonal, np.diagonal(reference(), axis1=-2, axis2=-1), rtol=1e-9)


@pytest.mark.parametrize("method", ["auto", *HESSIAN_METHODS])
def test_laplacian(method):
    r = gradlib.laplacian(batch_field, tf.constant(X), method=method)
    expected = np.trace(reference(), axis1=-2, axis2=-1)
    if method == "auto":
        assert np.allclose(r.laplacian, expected, rtol=1e-9) and r.laplacian[0].tolist() == [0.0, 2.0]
        assert r.repaired_cells.tolist() == [[0, 0], [0, 1]]
    else:
        assert np.isnan(r.laplacian[0]).all() and np.allclose(r.laplacian[1:], expected[1:], rtol=1e-9)
        assert any("sample 0: y[0]; sample 0: y[1]" in w for w in r.warnings), r.warnings


def test_hessians_and_hvp_of_a_function_of_one_input():
    def fn(x):
        return tf.stack([tf.where(x[0] > 0, tf.sqrt(tf.abs(x[0])), tf.zeros_like(x[0])), x[1] ** 2])

    x = tf.constant([0.0, 3.0], tf.float64)
    for method in ("auto", *HESSIAN_METHODS):
        r = gradlib.hessians(fn, x, method=method)
        if method == "auto":
            assert np.array_equal(r.hessian, closed_form(0.0, 3.0)), r.hessian
        else:
            assert np.isnan(r.hessian[1]).any() and any("y[1] at (x[0]" in w for w in r.warnings), r.warnings
    v = tf.constant([1.0, -2.0], tf.float64)
    r = gradlib.hvp(fn, x, v)
    assert np.array_equal(r.hvp, closed_form(0.0, 3.0) @ v.numpy()), r.hvp
    assert any("repaired NaN poisoning" in w and "y[1] at x[0]" in w for w in r.warnings), r.warnings
    r = gradlib.hvp(fn, x, v, method="reverse_over_reverse")
    assert np.isnan(r.hvp[1, 0]) and any("y[1] at x[0]" in w for w in r.warnings), r.warnings


def test_divergence():
    def fn(x):   # log in the branch not taken: NaN already in the first derivative's reverse pass
        a = x[:, 0]
        return tf.stack([tf.where(a > 0, tf.math.log(tf.abs(a)), tf.zeros_like(a)) + a, x[:, 1] ** 2], axis=1)

    x = tf.constant([[0.0, 3.0], [1.0, 2.0]], tf.float64)
    r = gradlib.divergence(fn, x)
    assert r.divergence.tolist() == [1.0 + 6.0, 1.0 + 1.0 + 4.0]
    assert r.repaired_cells.tolist() == [[0]]
    r = gradlib.divergence(fn, x, method="nested_tapes")
    assert np.isnan(r.divergence[0]) and any("(sample 0) of the divergences" in w for w in r.warnings)


def test_a_function_with_its_own_gradient_is_not_repaired_in_forward_mode():
    @tf.custom_gradient
    def square(v):
        return v * v, lambda dy: dy * 2 * v

    def fn(x):
        a = x[:, 0]
        return tf.stack([tf.where(a > 0, tf.sqrt(tf.abs(a)), tf.zeros_like(a)), square(x[:, 1])], axis=1)

    r = gradlib.laplacian(fn, tf.constant([[0.0, 3.0]], tf.float64))
    assert np.isnan(r.laplacian).all() and not len(r.repaired_cells)
    assert any("sample 0: y[1]" in w and "not repaired: fn defines its own gradient" in w for w in r.warnings)


def test_poisoned_mask_leaves_out_nonfinite_outputs_and_inputs():
    x = np.array([[0.0, 1.0], [np.nan, 1.0]])
    y = np.array([[1.0, np.nan], [1.0, 1.0]])
    value = np.full((2, 2), np.nan)
    assert poisoned_mask(x, y, value, "laplacian").tolist() == [[True, False], [False, False]]
    assert poisoned_mask(x, y, np.full(2, np.nan), "divergence").tolist() == [False, False]


def test_the_first_derivatives_each_hessian_result_carries_are_repaired_too():
    """log in the branch not taken: reverse mode's first derivative is NaN already (0 x inf), in .jacobian."""
    def fn(x):
        a = x[:, 0]
        return tf.stack([tf.where(a > 0, tf.math.log(tf.abs(a)), tf.zeros_like(a)) + a, x[:, 1] ** 2], axis=1)

    x = np.array([[0.0, 3.0], [2.0, -1.0]])
    jacobian = [[[1.0, 0.0], [0.0, 6.0]], [[1.5, 0.0], [0.0, -2.0]]]   # d/dx0 (log x0 + x0) = 1/x0 + 1
    r = gradlib.per_sample_hessians(fn, tf.constant(x))
    assert np.allclose(r.jacobian, jacobian, rtol=1e-12), r.jacobian
    assert any(w.startswith("repaired NaN poisoning") and "of the first derivatives (.jacobian)" in w
               and "sample 0: y[0] at x[0]" in w for w in r.warnings), r.warnings
    r = gradlib.per_sample_hessians(fn, tf.constant(x), method="nested_tapes")
    assert np.isnan(r.jacobian[0]).any()
    assert any(w.startswith("NaN in") and "of the first derivatives (.jacobian)" in w for w in r.warnings)
    r = gradlib.evaluate("[where(x0 > 0, log(abs(x0)), 0) + x0, x1**2]", {"x0": 0.0, "x1": 3.0}, order=2,
                         dtype="float64")
    assert np.array_equal(r.jacobian, jacobian[0]) and np.array_equal(r.hessian[1], [[0.0, 0.0], [0.0, 2.0]])


def test_a_repair_over_max_unrolled_is_not_run_and_said_so():
    """The repair's passes are bounded as a method's are: a batch of one needs one pass per input for its Laplacian
    (3 here): refused at max_unrolled=2, run at 3, the last good value."""
    def fn(x):
        a = x[:, 0]
        return tf.stack([tf.where(a > 0, tf.sqrt(tf.abs(a)), tf.zeros_like(a)), x[:, 1] ** 2 + x[:, 2]], axis=1)

    x = tf.constant([[0.0, 3.0, 1.0]], tf.float64)
    r = gradlib.laplacian(fn, x, limits=gradlib.Limits(max_unrolled=3))
    assert r.laplacian.tolist() == [[0.0, 2.0]]
    r = gradlib.laplacian(fn, x, method="nested_tapes")
    assert np.isnan(r.laplacian).all()
    from gradlib._second._poisoning import cell_label, poisoning_warnings, repair   # the bound itself

    value, p = repair(fn, x, r.laplacian, np.isnan(r.laplacian), "laplacian", True, gradlib.Limits(max_unrolled=2))
    assert np.isnan(value).all() and not p.ran and "would take 3 passes, and at most 2 are allowed" in p.why_not
    said = poisoning_warnings(p, "the Laplacians", "loop", cell_label("laplacian", ("y[0]", "y[1]"), (), True), True)
    assert len(said) == 1 and "(sample 0: y[0]; sample 0: y[1]) of the Laplacians" in said[0]
    assert said[0].endswith("not repaired: forward over forward would take 3 passes, and at most 2 are allowed")


def test_a_keras_model_with_the_where_in_a_lambda_layer():
    import keras

    inp = keras.Input((2,), dtype="float64")
    model = keras.Model(inp, keras.layers.Lambda(batch_field, dtype="float64")(inp))
    r = gradlib.per_sample_hessians(model, X)
    assert np.allclose(r.hessians, reference(), rtol=1e-9)
    name = model.output_names[0]   # a functional model's single output is labelled by its name (as Keras names it)
    assert r.row_labels == (f"{name}[0]", f"{name}[1]")
    assert any(w.startswith("repaired NaN poisoning") and f"sample 0: {name}[1]" in w for w in r.warnings), r.warnings


# ---------------------------------------------------------------- repairs with cross terms (planted-bug survivors)
# The cases above put x1**2 beside the where(): each poisoned output depends on one input, and vs == 1. A repair
# that summed the wrong axis of the forward-over-forward block, or took x instead of vs as the direction, still gave
# them right; here the poisoned output also depends on x0 (a cross term and a second derivative of its own).


def crossed(x):
    """y0 = where(x0 > 0, sqrt|x0|, 0); y1 = x1**2 + x0*x1 + 3*x0**2: Hessian of y1 [[6, 1], [1, 2]] everywhere."""
    x0, x1 = x[..., 0], x[..., 1]
    return tf.stack([tf.where(x0 > 0, tf.sqrt(tf.abs(x0)), tf.zeros_like(x0)), x1 ** 2 + x0 * x1 + 3 * x0 ** 2], -1)


CROSSED_H1 = np.array([[6.0, 1.0], [1.0, 2.0]])


def test_a_repaired_laplacian_keeps_the_poisoned_output_s_own_second_derivatives_and_cross_terms():
    x = np.array([[0.0, 1.0], [0.0, -2.0]])
    r = gradlib.laplacian(crossed, x)
    np.testing.assert_allclose(r.laplacian, [[0.0, 8.0], [0.0, 8.0]], atol=1e-12)   # trace of CROSSED_H1
    assert any(w.startswith("repaired NaN poisoning") for w in r.warnings), r.warnings
    h = gradlib.per_sample_hessians(crossed, x)
    np.testing.assert_allclose(h.hessians[:, 1], [CROSSED_H1, CROSSED_H1], atol=1e-12)
    np.testing.assert_allclose(h.hessians[:, 0], np.zeros((2, 2, 2)), atol=1e-12)


@pytest.mark.parametrize("vs", [[1.0, 2.0], [-0.5, 3.0]])
def test_a_repaired_hvp_is_taken_along_vs_not_along_x(vs):
    x = tf.constant([0.0, 3.0], tf.float64)
    r = gradlib.hvp(crossed, x, tf.constant(vs, tf.float64))
    np.testing.assert_allclose(r.hvp, [[0.0, 0.0], CROSSED_H1 @ np.array(vs)], atol=1e-12)
    assert any(w.startswith("repaired NaN poisoning") for w in r.warnings), r.warnings
