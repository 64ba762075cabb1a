"""The gradient methods on the seed question, on examples from the TensorFlow and JAX documentation,
and on NaN poisoning. Every reference is computed independently, with NumPy and the analytic formula."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

import gradlib
from gradlib import evaluate, per_element_gradients
from gradlib._perelement import _methods

SEED_ROWS = np.array([[20.0, 15.0, 12.0], [120.0, 45.0, 36.0]])
PER_ELEMENT = ("unstack", "jacobian", "forward", "auto")
DTYPES = ("float32", "float64")
TOL = {"float32": dict(rtol=1e-5, atol=1e-5), "float64": dict(rtol=1e-12, atol=1e-12)}


def _seed_fn(x):
    return tf.stack([x[0] * x[1] * x[2], x[0] * x[1] * x[2] * x[0]], axis=0)


# ---------------------------------------------------------------- the seed question


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("method", PER_ELEMENT)
def test_seed_rows_are_the_per_element_gradients(seed, method, dtype):
    text, inputs = seed
    r = evaluate(text, inputs, method=method, dtype=dtype)
    np.testing.assert_allclose(r.y, [60.0, 180.0], **TOL[dtype])
    np.testing.assert_allclose(r.jacobian, SEED_ROWS, **TOL[dtype])
    assert r.jacobian.shape == (2, 3)
    assert r.dtype == dtype
    assert r.row_labels == ("y[0]", "y[1]") and r.col_labels == ("x0", "x1", "x2")
    assert r.correct and not r.broken and r.per_element
    assert r.requested == method
    assert r.method in gradlib.CORRECT_METHODS


@pytest.mark.parametrize("dtype", DTYPES)
def test_seed_summed_is_the_column_sums(seed, dtype):
    text, inputs = seed
    r = evaluate(text, inputs, method="summed", dtype=dtype)
    np.testing.assert_allclose(r.jacobian, [[140.0, 60.0, 48.0]], **TOL[dtype])
    np.testing.assert_allclose(r.jacobian[0], SEED_ROWS.sum(axis=0))
    assert not r.per_element and not r.correct
    assert r.row_labels == ("sum(y)",)
    assert r.reason == ("tape.gradient(y, x) differentiates the sum of y's elements: this row is the column sums "
                        "of the Jacobian, not the gradient of any one element")


@pytest.mark.parametrize("dtype", DTYPES)
def test_seed_naive_gives_zeros_and_says_why(seed, dtype):
    text, inputs = seed
    r = evaluate(text, inputs, method="naive", dtype=dtype)
    np.testing.assert_array_equal(r.jacobian, np.zeros((2, 3)))
    np.testing.assert_allclose(r.y, [60.0, 180.0])
    assert r.broken and not r.correct and r.method == "naive"
    assert r.reason == ("the loop `for y_i in y` ran after the tape stopped recording, so the slices y_i are new "
                        "tensors the tape never saw: every gradient is unconnected (zero, or None by default)")


@pytest.mark.parametrize("compiled, chosen", [(False, "unstack"), (True, "structured"), (None, None)])
def test_auto_on_the_seed_runs_the_seeds_own_answer_eagerly_and_its_structure_compiled(seed, compiled, chosen):
    # 2 outputs, 3 watched elements: eagerly the seed's unstack (outputs <= 3 x inputs); compiled, the Jacobian
    # assembled from the function's structure (cheaper than 2 reverse passes). Left to decide, auto starts eagerly and compiles once its eager calls cost a trace.
    text, inputs = seed
    r = evaluate(text, inputs, compiled=compiled)
    if compiled is None:
        assert (r.method, r.compiled) in {("unstack", False), ("structured", True)}
    else:
        assert (r.method, r.compiled) == (chosen, compiled)
    assert r.requested == "auto"
    np.testing.assert_allclose(r.jacobian, SEED_ROWS, **TOL["float32"])
    np.testing.assert_allclose(r.y, [60.0, 180.0], **TOL["float32"])
    assert r.per_element and r.correct and not r.broken and r.reason == ""
    assert r.poisoned_rows == () and r.repaired_rows == () and r.warnings == ()


@pytest.mark.parametrize("method", PER_ELEMENT)
def test_per_element_gradients_on_the_seed_lambda(method):
    x = [tf.constant(3.0), tf.constant(4.0), tf.constant(5.0)]
    r = per_element_gradients(_seed_fn, x, method=method)
    np.testing.assert_allclose(r.jacobian, SEED_ROWS, rtol=1e-6)
    assert r.col_labels == ("x0", "x1", "x2")


def test_per_element_gradients_summed_and_naive_reproduce_the_question():
    x = [tf.constant(3.0), tf.constant(4.0), tf.constant(5.0)]
    np.testing.assert_allclose(per_element_gradients(_seed_fn, x, method="summed").jacobian, [[140.0, 60.0, 48.0]])
    naive = per_element_gradients(_seed_fn, x, method="naive")
    np.testing.assert_array_equal(naive.jacobian, np.zeros((2, 3)))
    assert naive.broken


@pytest.mark.parametrize("method", ("unstack", "jacobian", "forward"))
def test_compiled_and_eager_agree(method):
    x = [tf.constant(3.0, tf.float64), tf.constant(4.0, tf.float64), tf.constant(5.0, tf.float64)]
    fn = lambda x: tf.stack([x[0] * x[1] * x[2], x[0] * x[1] * x[2] * x[0]])  # noqa: E731 (one per test)
    eager = per_element_gradients(fn, x, method=method, compiled=False)
    graph = per_element_gradients(fn, x, method=method, compiled=True)
    assert not eager.compiled and graph.compiled
    np.testing.assert_allclose(graph.jacobian, eager.jacobian, rtol=1e-12)
    np.testing.assert_allclose(graph.jacobian, SEED_ROWS, rtol=1e-12)
    assert graph.dtype == "float64"


class _Unhashable:
    """A callable that cannot key a cache (like an object defining __eq__ without __hash__)."""

    __hash__ = None

    def __init__(self, k: float):
        self.k = k

    def __call__(self, x):
        return x * self.k


def test_callables_that_cannot_be_hashed_run_eagerly_and_never_share_a_compiled_function():
    x = tf.constant([1.0, 2.0])
    for k in (2.0, 3.0):
        r = per_element_gradients(_Unhashable(k), x, method="jacobian", compiled=True)
        assert r.compiled is False
        np.testing.assert_array_equal(r.jacobian, k * np.eye(2))


def test_a_single_tensor_xs_is_labelled_x():
    r = per_element_gradients(lambda x: x * x, tf.constant([1.0, 2.0]))
    np.testing.assert_allclose(r.jacobian, [[2.0, 0.0], [0.0, 4.0]])
    assert r.col_labels == ("x[0]", "x[1]")


def test_integer_tensors_are_refused_by_per_element_gradients():
    with pytest.raises(gradlib.GradlibError, match=r"requires floating-point inputs, but xs\[0\] is int32"):
        per_element_gradients(lambda x: x[0] * 2, [tf.constant(3)])


@pytest.mark.parametrize("method", PER_ELEMENT)
def test_an_empty_input_is_refused_as_evaluate_refuses_one(method):
    # it failed deep inside NumPy: AxisError (auto, unstack), UnboundLocalError (forward), a matmul ValueError
    with pytest.raises(gradlib.InputError, match=r"per_element_gradients got an empty xs\[1\]: shape \(2, 0\); "
                                                 "give it at least one element"):
        per_element_gradients(lambda x: x[0] * tf.reduce_sum(x[1]), [tf.constant([1.0]), tf.zeros((2, 0))],
                              method=method)


@pytest.mark.parametrize("method", PER_ELEMENT)
@pytest.mark.parametrize("compiled", [False, True])
def test_a_function_returning_an_empty_tensor_is_refused(method, compiled):
    with pytest.raises(gradlib.GradlibError, match="fn returned an empty tensor: there is no element to "
                                                   "differentiate. Return at least one element"):
        per_element_gradients(lambda x: x[:0] * 2.0, tf.constant([1.0, 2.0]), method=method, compiled=compiled)


def test_crosscheck_of_a_function_returning_an_empty_tensor_is_refused_not_said_to_agree():
    with pytest.raises(gradlib.GradlibError, match="crosscheck: fn returned an empty tensor: there is no element"):
        gradlib.crosscheck(lambda x: x[:0] * 2.0, tf.constant([1.0, 2.0]))


# ---------------------------------------------------------------- TensorFlow documentation examples
# (guides "Introduction to gradients and automatic differentiation" and "Advanced automatic differentiation")


@pytest.mark.parametrize("method", PER_ELEMENT)
def test_tf_guide_x_squared(method):
    # x = tf.Variable(3.0); y = x**2; dy_dx = 6
    r = evaluate("x**2", {"x": 3.0}, method=method)
    np.testing.assert_allclose(r.jacobian, [[6.0]])


@pytest.mark.parametrize("method", PER_ELEMENT)
def test_tf_guide_jacobian_scalar_source(method):
    # y = tf.nn.sigmoid(x + delta); tape.jacobian(y, delta) is sigmoid'(x)
    x = np.linspace(-10.0, 10.0, 21)
    r = evaluate("sigmoid(x + delta)", {"x": x, "delta": 0.0}, watch=["delta"], method=method, dtype="float64")
    s = 1.0 / (1.0 + np.exp(-x))
    np.testing.assert_allclose(r.y, s, rtol=1e-12)
    np.testing.assert_allclose(r.jacobian[:, 0], s * (1.0 - s), rtol=1e-10, atol=1e-15)
    assert r.col_labels == ("delta",)


@pytest.mark.parametrize("method", PER_ELEMENT)
def test_tf_guide_gradient_of_a_mean_squared_layer(method):
    # y = x @ w + b; loss = tf.reduce_mean(y**2): dl/dw = x^T (dl/dy), dl/db = dl/dy, dl/dy = 2y / y.size
    rng = np.random.default_rng(0)
    w, b, x = rng.normal(size=(3, 2)), np.array([0.5, -0.25]), np.array([[1.0, 2.0, 3.0]])
    r = evaluate("mean((x @ w + b)**2)", {"x": x, "w": w, "b": b}, watch=["w", "b"], method=method, dtype="float64")
    y = x @ w + b
    dl_dy = 2.0 * y / y.size
    np.testing.assert_allclose(r.y, np.mean(y**2), rtol=1e-12)
    grads = r.gradients()
    np.testing.assert_allclose(grads["w"], x.T @ dl_dy, rtol=1e-10)
    np.testing.assert_allclose(grads["b"], dl_dy.sum(axis=0), rtol=1e-10)


@pytest.mark.parametrize("method", PER_ELEMENT)
def test_tf_guide_dense_layer_jacobian_wrt_kernel(method):
    # y = sigmoid(x @ W + b), jacobian with respect to the kernel: dy[i,j]/dW[k,l] = s'(z[i,j]) x[i,k] [j == l]
    rng = np.random.default_rng(1)
    x, W, b = rng.normal(size=(4, 3)), rng.normal(size=(3, 2)), rng.normal(size=2)
    r = evaluate("sigmoid(x @ W + b)", {"x": x, "W": W, "b": b}, watch=["W"], method=method, dtype="float64")
    s = 1.0 / (1.0 + np.exp(-(x @ W + b)))
    expected = np.einsum("ij,ik,jl->ijkl", s * (1 - s), x, np.eye(2))
    np.testing.assert_allclose(r.gradients()["W"], expected, rtol=1e-10, atol=1e-14)
    assert r.jacobian.shape == (8, 6)


@pytest.mark.parametrize("method", PER_ELEMENT)
def test_tf_guide_batch_jacobian_is_block_diagonal(method):
    # Samples of a batch are independent: d y[b] / d x[b'] is zero for b != b' (tape.batch_jacobian's premise).
    rng = np.random.default_rng(2)
    x, W = rng.normal(size=(3, 4)), rng.normal(size=(4, 2))
    r = evaluate("tanh(x @ W)", {"x": x, "W": W}, watch=["x"], method=method, dtype="float64")
    t = np.tanh(x @ W)
    expected = np.einsum("bj,kj,bc->bjck", 1 - t**2, W, np.eye(3))   # (batch, out, batch, in)
    np.testing.assert_allclose(r.gradients()["x"], expected, rtol=1e-10, atol=1e-14)
    assert np.count_nonzero(r.jacobian) == 3 * 2 * 4


# ---------------------------------------------------------------- JAX documentation examples


@pytest.mark.parametrize("method", PER_ELEMENT)
def test_jax_jacfwd_docstring_example(method):
    # jax.jacfwd / jax.jacrev docstring: f(x) = [x0, 5 x2, 4 x1^2 - 2 x2, x2 sin(x0)] at x = (1, 2, 3)
    r = evaluate("[x[0], 5*x[2], 4*x[1]**2 - 2*x[2], x[2]*sin(x[0])]", {"x": [1.0, 2.0, 3.0]},
                 method=method, dtype="float64")
    expected = [[1, 0, 0], [0, 0, 5], [0, 16, -2], [3 * np.cos(1.0), 0, np.sin(1.0)]]
    np.testing.assert_allclose(r.jacobian, expected, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(r.jacobian[3], [1.6209, 0.0, 0.84147], atol=1e-4)   # the printed values


@pytest.mark.parametrize("method", PER_ELEMENT)
def test_jax_elementwise_sin_gives_diag_cos(method):
    x = np.array([-1.5, -0.2, 0.0, 0.7, 2.9])
    r = evaluate("sin(x)", {"x": x}, method=method, dtype="float64")
    np.testing.assert_allclose(r.jacobian, np.diag(np.cos(x)), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("method", PER_ELEMENT)
def test_jax_tanh_layer_jacobian(method, dtype):
    # d tanh(W @ x + b) / dx = diag(1 - tanh^2) @ W
    rng = np.random.default_rng(3)
    W, x, b = rng.normal(size=(3, 4)), rng.normal(size=4), rng.normal(size=3)
    r = evaluate("tanh(W @ x + b)", {"W": W, "x": x, "b": b}, watch=["x"], method=method, dtype=dtype)
    t = np.tanh(W @ x + b)
    np.testing.assert_allclose(r.jacobian, np.diag(1 - t**2) @ W, **TOL[dtype])


@pytest.mark.parametrize("method", PER_ELEMENT)
def test_jax_cookbook_logistic_predict_wrt_W(method):
    # autodiff cookbook: predict(W, b, inputs) = sigmoid(dot(inputs, W) + b)
    rng = np.random.default_rng(4)
    inputs, W, b = rng.normal(size=(4, 3)), rng.normal(size=3), 0.3
    r = evaluate("sigmoid(dot(inputs, W) + b)", {"inputs": inputs, "W": W, "b": b}, watch=["W", "b"],
                 method=method, dtype="float64")
    s = 1.0 / (1.0 + np.exp(-(inputs @ W + b)))
    np.testing.assert_allclose(r.gradients()["W"], (s * (1 - s))[:, None] * inputs, rtol=1e-10)
    np.testing.assert_allclose(r.gradients()["b"], s * (1 - s), rtol=1e-10)


# ---------------------------------------------------------------- NaN poisoning

POISON = "[exp(exp(10*x0)), 2*x1]"


REVERSE_POISONING = ("NaN in the gradient of finite output(s) y[1]: 0 x inf = NaN in reverse mode: an infinite local "
                     "derivative (sqrt at 0, an exp that overflows) met a zero, often the gradient the backward pass "
                     "sends through the other outputs' ops (NaN poisoning: the true value is finite). method='auto' "
                     "recomputes such cells in the other mode")


@pytest.mark.parametrize("compiled", [None, False, True])
def test_auto_repairs_the_poisoned_row(compiled):
    r = evaluate(POISON, {"x0": 1.0, "x1": 1.0}, compiled=compiled)
    assert r.method == "jacobian" or (compiled is not True and r.method == "unstack")
    np.testing.assert_array_equal(r.jacobian, [[np.inf, 0.0], [0.0, 2.0]])
    assert r.repaired_rows == (1,) and r.poisoned_rows == () and r.repaired_cells.tolist() == [[1, 0]]
    assert r.other_mode == "forward"
    assert r.warnings == ("repaired NaN poisoning in y[1]: forward mode gives these cells finite values",)


@pytest.mark.parametrize("method", ["unstack", "jacobian", "forward"])
def test_only_reverse_mode_is_poisoned_and_each_method_points_at_auto(method):
    # reverse mode sends y[0]'s zero cotangent through exp's infinite derivative into y[1]'s row; forward mode's
    # x0 tangent never reaches y[1] = 2 * x1, and its NaN in (y[0], x1) belongs to an infinite output
    r = evaluate(POISON, {"x0": 1.0, "x1": 1.0}, method=method)
    if method == "forward":
        np.testing.assert_array_equal(r.jacobian, [[np.inf, np.nan], [0.0, 2.0]])
        assert r.poisoned_rows == () and r.warnings == ()
    else:
        np.testing.assert_array_equal(r.jacobian, [[np.inf, 0.0], [np.nan, 2.0]])
        assert r.poisoned_rows == (1,) and r.warnings == (REVERSE_POISONING,)
    assert r.repaired_rows == ()


def test_auto_says_when_the_other_mode_would_take_too_many_eager_passes_to_repair():
    # one eager pass allowed: auto runs eager jacobian (unstack would take 2), and forward mode would take 2 passes
    few = gradlib.Limits(max_eager_passes=1)
    r = evaluate(POISON, {"x0": 1.0, "x1": 1.0}, compiled=False, limits=few)
    assert (r.method, r.compiled) == ("jacobian", False)
    assert r.poisoned_rows == (1,) and r.repaired_rows == () and np.isnan(r.jacobian[1, 0])
    assert r.warnings == (REVERSE_POISONING,
                          "NaN poisoning not repaired: the other mode, 'forward', would run 2 eager passes (at most 1)")
    compiled = evaluate(POISON, {"x0": 1.0, "x1": 1.0}, compiled=True, limits=few)   # compiled: no eager passes
    assert compiled.repaired_rows == (1,) and compiled.jacobian[1].tolist() == [0.0, 2.0]


def test_the_diagnosis_reports_the_poisoning_and_the_repair_with_the_cells_named():
    c = gradlib.compare(POISON, {"x0": 1.0, "x1": 1.0}, methods=["jacobian", "auto"])
    assert [(f.method, f.title, f.severity) for f in c.diagnosis] == [
        ("jacobian", "NaN poisoning", "warning"),
        (None, "Output not finite", "warning"),
        ("auto", "NaN poisoning repaired", "info")]   # y[0]'s unchecked cells: said once, as "Output not finite"
    poisoned, infinite, repaired = (f.full for f in c.diagnosis)
    assert poisoned.startswith("'jacobian' gives NaN where the true value is finite (1 cell). "
                               "The cause: 0 x inf = NaN in reverse mode")
    assert poisoned.endswith("'auto' gives the true values. (y[1], x0) is NaN, true value 0.")
    assert infinite == ("The output is inf: the function has no finite value here (like 1/x or log(x) at 0), or one "
                        "too large for the dtype (an exp that overflows; float32 holds up to about 3.4e38, float64 "
                        "1.8e308), so its gradient is not a meaningful number. (y[0], x0) = inf where y[0] = inf, "
                        "(y[0], x1) = 0 where y[0] = inf.")
    assert repaired.startswith("Reverse mode gave NaN here, and forward mode gives the finite values shown.")
    assert repaired.endswith(" (y[1], x0) = 0.")
    assert c.check.unchecked(c.best.row_labels, c.best.col_labels) == [
        "(y[0], x0), (y[0], x1) could not be checked: the function is infinite just beside x0, x1"]


def test_finite_outputs_report_no_poisoning(seed):
    text, inputs = seed
    r = evaluate(text, inputs, method="jacobian")
    assert r.poisoned_rows == () and r.repaired_rows == ()


def test_a_callable_that_fails_on_the_inputs_gets_a_clear_gradlib_error():
    model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(3)])
    with pytest.raises(gradlib.GradlibError, match=r"fn failed on inputs of shape \(4,\): ValueError: .*Expected shape "
                                           r"\(None, 4\), but input has incompatible shape \(4,\)"):
        per_element_gradients(model, tf.zeros(4))


def test_xs_of_mixed_float_dtypes_are_refused_with_the_dtypes_named():
    with pytest.raises(gradlib.GradlibError, match=r"xs of one dtype .* got float32, float64"):
        per_element_gradients(lambda x: x[0] * tf.cast(x[1], tf.float32),
                              [tf.constant(1.0), tf.constant(2.0, tf.float64)])


def test_an_integer_output_is_refused_rather_than_reported_as_zero_gradients():
    with pytest.raises(gradlib.GradlibError, match=r"fn returned a int32 tensor: only floating-point outputs"):
        per_element_gradients(lambda x: tf.cast(x * 10, tf.int32), tf.constant([1.0, 2.0]))


def test_any_error_raised_by_the_users_function_becomes_a_gradlib_error():
    def fn(x):
        raise ZeroDivisionError("boom")

    with pytest.raises(gradlib.GradlibError, match=r"fn failed on inputs of shape \(2,\): ZeroDivisionError: boom"):
        per_element_gradients(fn, tf.constant([1.0, 2.0]))


def test_the_per_sample_reference_loop_is_bounded():
    with pytest.raises(gradlib.GradlibError, match=r"method 'loop' runs one eager GradientTape per sample: 300"):
        gradlib.per_sample_gradients(lambda x: x * 2.0, np.ones((300, 2), np.float32), method="loop")


def test_the_finite_difference_check_is_skipped_when_it_would_exceed_the_work_limit():
    small = gradlib.Limits(max_flops=5_000)   # W @ x costs ~2,300: the check (2 x 20 evaluations) is not allowed
    c = gradlib.compare("sum(W @ x)", {"W": np.ones((20, 20)), "x": np.ones(20)}, watch=["x"],
                        methods=["auto"], limits=small)
    assert c.check.skipped.startswith("40 evaluations of this function would exceed")
    np.testing.assert_allclose(c.best.jacobian, np.full((1, 20), 20.0))


def test_a_row_no_mode_can_compute_is_not_reported_repaired_and_says_why():
    # Issue 15, survivor 1: marking every poisoned row "repaired", even one still NaN, passed every test.
    # y[1] = 1/exp(exp(10*x0)) + x1 holds 0 x inf in its own formula: NaN in reverse and in forward mode.
    r = gradlib.evaluate("[exp(exp(10*x0)), 1/exp(exp(10*x0)) + x1]", {"x0": 1.0, "x1": 1.0})
    assert np.isnan(r.jacobian[1, 0]) and r.jacobian[1, 1] == 1.0
    assert r.repaired_rows == () and len(r.repaired_cells) == 0 and r.other_mode == "forward"   # auto did try
    assert r.warnings == ("NaN in both reverse and forward mode in y[1]: 0 x inf within the output's own formula, "
                          "so no mode gives a number there",)
    assert gradlib.CELL_STATUS[r.cell_status()[1, 0]] == "undefined"


@pytest.mark.parametrize("method", PER_ELEMENT)
def test_a_function_reading_its_variable_directly_is_told_why_its_jacobian_is_zero(method):
    """tape.jacobian(v * v, v) is 2v; per_element_gradients(lambda x: v * v, v) hands fn a copy of v's value,
    which fn ignores: a Jacobian of zeros, said nowhere."""
    v = tf.Variable([1.0, 2.0])
    r = per_element_gradients(lambda x: v * v, v, method=method)
    np.testing.assert_array_equal(r.jacobian, np.zeros((2, 2)))
    assert any(w.startswith("no path the tape can follow leads from 'x' to fn's output, so every gradient with "
                            "respect to it is 0") and "a tf.Variable as a copy of its value" in w for w in r.warnings)
    used = per_element_gradients(lambda x: x[0] * x[0] + 0.0 * tf.reduce_sum(x[1]), [v, tf.constant([3.0])],
                                 method=method)   # reached, with a zero gradient: nothing to say
    np.testing.assert_allclose(used.jacobian, [[2.0, 0.0, 0.0], [0.0, 4.0, 0.0]])
    assert not any(w.startswith("no path") for w in used.warnings)
    unused = per_element_gradients(lambda x: x["a"] * x["a"], {"a": v, "b": tf.constant([3.0])}, method=method)
    assert [w[:52] for w in unused.warnings if w.startswith("no path")] == ["no path the tape can follow leads from 'b' to fn's o"]
