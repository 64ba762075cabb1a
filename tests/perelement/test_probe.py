"""What users bring as a callable: answers checked against the callable itself (gradlib._perelement._probe), tf.py_function, xs as a dict."""

from __future__ import annotations

import keras
import numpy as np
import pytest
import tensorflow as tf

import gradlib
from gradlib._perelement import _probe
from gradlib._foundations._cache import LRUCache
from gradlib._perelement._problem import callable_problem

V = tf.constant([1.0, 2.0, 3.0, 4.0])


@pytest.fixture(autouse=True)
def fresh_shares(monkeypatch):
    monkeypatch.setattr(_probe, "_SHARES", LRUCache(maxsize=16))


def _leaves_tensorflow(v):
    return tf.constant(np.sin(v.numpy())) * v      # the tape sees sin(v) as a constant


def test_a_function_that_leaves_tensorflow_gets_its_wrong_jacobian_named():
    """J[0, 0] = sin(1) = 0.841 where the derivative of sin(v) * v is cos(1) + sin(1) = 1.382: said, not silent."""
    r = gradlib.per_element_gradients(_leaves_tensorflow, V)
    np.testing.assert_allclose(np.diag(r.jacobian), np.sin([1.0, 2.0, 3.0, 4.0]), rtol=1e-6)   # the tape's answer
    (warning,) = [w for w in r.warnings if "fn itself" in w]
    d = _probe.direction([V])
    predicted = np.sin([1.0, 2, 3, 4]) * d
    true = (np.cos([1.0, 2, 3, 4]) * [1, 2, 3, 4] + np.sin([1.0, 2, 3, 4])) * d
    assert warning.startswith("the Jacobian disagrees with fn itself: along a random direction v, ")
    i = int(np.argmax(np.abs(predicted - true)))
    assert f"(output {i}: J @ v = {gradlib.format_number(predicted[i])}, fn's own finite difference = " in warning
    shown = float(warning.split("finite difference = ")[1].split(")")[0])
    assert shown == pytest.approx(true[i], rel=1e-2)
    assert "NumPy or .numpy()/float() on a watched tensor" in warning and "check=False" in warning


@pytest.mark.parametrize("name, fn", [
    ("stop_gradient", lambda v: tf.stop_gradient(v) * v),
    ("numpy_function", lambda v: tf.numpy_function(np.sin, [v], tf.float32) * v),
    ("float()", lambda v: tf.stack([float(v[0]) * v[0], v[1] * v[2]])),
])
def test_other_ways_of_hiding_work_from_the_tape_are_named(name, fn):
    r = gradlib.per_element_gradients(fn, V, compiled=False)
    assert any(w.startswith("the Jacobian disagrees with fn itself") for w in r.warnings), name


@pytest.mark.parametrize("name, fn, x", [
    ("the seed", lambda x: tf.stack([x[0] * x[1] * x[2], x[0] * x[1] * x[2] * x[0]]),
     [tf.constant(3.0), tf.constant(4.0), tf.constant(5.0)]),
    ("tanh layer", lambda x: tf.tanh(tf.constant(np.random.default_rng(1).standard_normal((6, 4)), tf.float32)
                                     @ x[:, None])[:, 0], V),
    ("exp of large inputs", lambda x: tf.exp(x), tf.constant([10.0, 20.0, -30.0, 0.0])),
    ("relu exactly at its kink", tf.nn.relu, tf.constant([0.0, -1.0, 2.0, 0.0])),
    ("abs at zero", tf.abs, tf.constant([0.0, 0.0, 1.0, -3.0])),
    ("x * x at zero", lambda x: x * x, tf.zeros([4])),
    ("float64 polynomial", lambda x: x ** 3 - 2 * x, tf.constant([1e3, 1e-3, -7.0, 0.5], tf.float64)),
    ("sqrt near its edge", tf.sqrt, tf.constant([1e-3, 1.0, 4.0, 100.0])),
    ("log of the output's sum", lambda x: tf.math.log(tf.reduce_sum(x * x))[None], V),
])
def test_correct_jacobians_are_never_called_wrong(name, fn, x, monkeypatch):
    monkeypatch.setattr(_probe, "MAX_SHARE", np.inf)   # check every call, eager and compiled
    for compiled in (False, True):
        r = gradlib.per_element_gradients(fn, x, compiled=compiled)
        assert not [w for w in r.warnings if "disagrees" in w or "random" in w], (name, compiled, r.warnings)


def test_a_keras_relu_network_is_not_called_wrong(monkeypatch):
    monkeypatch.setattr(_probe, "MAX_SHARE", np.inf)
    model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(64, activation="relu"),
                              keras.layers.Dense(64, activation="relu"), keras.layers.Dense(5)])
    x = tf.constant(np.random.default_rng(0).standard_normal((1, 8)), tf.float32)
    for _ in range(3):
        r = gradlib.per_element_gradients(model, x)
        assert not [w for w in r.warnings if "disagrees" in w], r.warnings


def _tanh_mlp(policy: str = "float32"):
    keras.mixed_precision.set_global_policy(policy)
    try:
        keras.utils.set_random_seed(0)
        return keras.Sequential([keras.Input((3,)), keras.layers.Dense(8, activation="tanh"),
                                 keras.layers.Dense(2, dtype="float32")])
    finally:
        keras.mixed_precision.set_global_policy("float32")


@pytest.mark.parametrize("policy, dtype", [("float32", tf.float64), ("mixed_float16", tf.float32),
                                           ("mixed_float16", tf.float64)])
def test_a_model_computing_in_less_precision_than_its_input_is_not_called_wrong(policy, dtype, monkeypatch):
    """NumPy's float64 batch into a float32 Keras model: float64's step of 6e-6 measured float32's rounding, and a
    right Jacobian was said to have "part of fn invisible to the tape" (output 6: J @ v = -0.236651, its finite
    difference -0.229726); the step and tolerance are now the model's own precision's."""
    monkeypatch.setattr(_probe, "MAX_SHARE", np.inf)
    model = _tanh_mlp(policy)
    x = tf.constant(np.random.default_rng(0).normal(size=(4, 3)), dtype)
    r = gradlib.per_element_gradients(model, x)
    assert not [w for w in r.warnings if "disagrees" in w], r.warnings
    with tf.GradientTape() as tape:   # and the Jacobian is the tape's: nothing was hidden by skipping
        tape.watch(x)
        y = tf.reshape(model(x), [-1])
    np.testing.assert_allclose(r.jacobian, tf.reshape(tape.jacobian(y, x), (8, 12)).numpy(), rtol=1e-6, atol=1e-7)


def test_work_hidden_from_the_tape_of_a_float32_model_given_float64_is_still_named():
    """Checked at float32's step, a model's output times a constant the tape cannot see is still found."""
    model = _tanh_mlp()
    fn = lambda v: model(v) * tf.stop_gradient(tf.cast(v[:, :2], tf.float32) ** 2)   # noqa: E731
    r = gradlib.per_element_gradients(fn, tf.constant(np.random.default_rng(0).normal(size=(4, 3))))
    assert any(w.startswith("the Jacobian disagrees with fn itself") for w in r.warnings), r.warnings


def test_a_random_function_is_said_to_be_random():
    dropout = keras.layers.Dropout(0.5)
    r = gradlib.per_element_gradients(lambda v: dropout(v, training=True) * v, tf.ones([64]), compiled=False)
    (warning,) = [w for w in r.warnings if "random" in w]
    assert warning.startswith("fn is random: two calls at the same point gave different outputs")
    assert not [w for w in r.warnings if "fn itself" in w]


def test_check_false_turns_it_off_and_a_non_bool_is_refused():
    r = gradlib.per_element_gradients(_leaves_tensorflow, V, check=False)
    assert not [w for w in r.warnings if "fn itself" in w]
    with pytest.raises(gradlib.ExpressionError, match=r"per_element_gradients got check='yes'; pass True or False"):
        gradlib.per_element_gradients(_leaves_tensorflow, V, check="yes")


def test_typed_functions_and_broken_methods_are_not_probed(monkeypatch):
    calls = []
    monkeypatch.setattr(_probe, "check", lambda *a: calls.append(a) or "")
    gradlib.evaluate("x * x", {"x": [1.0, 2.0]})
    gradlib.per_element_gradients(lambda v: v * v, V, method="naive")
    gradlib.per_element_gradients(lambda v: v * v, V, method="summed")
    assert calls == []
    gradlib.per_element_gradients(lambda v: v * v, V, method="jacobian")
    assert len(calls) == 1


def test_once_the_check_costs_more_than_its_share_it_stops_and_says_so_once(monkeypatch):
    monkeypatch.setattr(_probe, "MAX_SHARE", 0.0)     # any cost is too much
    def clean(v):
        return v * v * 3.0

    first, second, third = (gradlib.per_element_gradients(clean, V) for _ in range(3))
    assert not [w for w in first.warnings if "fn itself" in w]
    assert [w for w in second.warnings if "fn itself" in w] == [
        w for w in second.warnings if w.startswith("the Jacobian was checked against fn itself on earlier calls only")]
    assert len([w for w in second.warnings if "fn itself" in w]) == 1
    assert not [w for w in third.warnings if "fn itself" in w]


def test_what_the_check_found_is_said_with_every_later_result_once_it_stops(monkeypatch):
    """Found by hunt 42: the second call said only that earlier calls were checked, the third nothing, while each
    returned the same wrong Jacobian of a function whose NumPy round trip the tape cannot see."""
    monkeypatch.setattr(_probe, "MAX_SHARE", 0.0)
    results = [gradlib.per_element_gradients(_leaves_tensorflow, V) for _ in range(4)]
    found = [[w for w in r.warnings if "fn itself" in w] for r in results]
    assert all(len(f) == 1 and "disagrees" in f[0] for f in found) and found[1:] == found[:-1]


def test_a_function_that_fails_beside_the_point_says_the_check_could_not_run():
    def fn(v):
        if float(tf.reduce_sum(v)) != 10.0:
            raise ValueError("only at the point itself")
        return v * v
    problem = callable_problem(fn, V)
    warning = _probe.check(problem, fn(V).numpy(), np.diag([2.0, 4, 6, 8]))
    assert warning == ("the Jacobian could not be checked against fn itself: ValueError: only at the point itself")


def _py_function(v):
    return tf.py_function(lambda t: tf.sin(t), [v], tf.float32) * v


def test_py_function_under_auto_is_computed_by_eager_forward_mode_and_said():
    """Every other method ended in TensorFlow's raw "UnknownError: KeyError: b'pyfunc_1'" or a shape error."""
    r = gradlib.per_element_gradients(_py_function, V)
    x = V.numpy()
    np.testing.assert_allclose(r.jacobian, np.diag(np.cos(x) * x + np.sin(x)), rtol=1e-5)
    assert r.method == "forward" and not r.compiled
    assert any(w.startswith("fn calls tf.py_function") for w in r.warnings)
    assert not [w for w in r.warnings if "fn itself" in w]


@pytest.mark.parametrize("method, compiled", [("unstack", False), ("jacobian", None), ("forward", True)])
def test_py_function_under_a_method_that_cannot_take_it_is_refused_with_the_way_out(method, compiled):
    with pytest.raises(gradlib.GradlibError, match=rf"fn calls tf.py_function, which method='{method}' cannot "
                       r"differentiate here: .* Use method='forward' with compiled=False"):
        gradlib.per_element_gradients(_py_function, V, method=method, compiled=compiled)


def test_xs_as_a_dict_is_taken_as_tape_gradient_takes_it_with_columns_named_by_its_keys():
    xs = {"w": tf.constant([1.0, 2.0]), "b": tf.constant(3.0)}
    r = gradlib.per_element_gradients(lambda d: tf.stack([d["w"][0] * d["b"], d["w"][1] ** 2 + d["b"]]), xs)
    np.testing.assert_allclose(r.jacobian, [[3.0, 0.0, 1.0], [0.0, 4.0, 1.0]])
    assert r.col_labels == ("w[0]", "w[1]", "b")
    with tf.GradientTape(persistent=True) as tape:   # the reference: tape.gradient with the same dict
        tape.watch(xs)
        y = tf.unstack(tf.stack([xs["w"][0] * xs["b"], xs["w"][1] ** 2 + xs["b"]]))
    for i, yi in enumerate(y):
        g = tape.gradient(yi, xs)
        np.testing.assert_allclose(r.jacobian[i], np.concatenate([g["w"].numpy(), [g["b"].numpy()]]))
    swapped = gradlib.per_element_gradients(lambda d: d["w"] * d["b"], {"b": xs["b"], "w": xs["w"]})
    assert swapped.col_labels == ("b", "w[0]", "w[1]")
    np.testing.assert_allclose(swapped.jacobian, [[1.0, 3.0, 0.0], [2.0, 0.0, 3.0]])


def test_a_dict_with_a_bad_key_or_value_says_which():
    with pytest.raises(gradlib.InputError, match=r"xs as a dict with names \(non-empty strings\) as keys; got keys \[1\]"):
        gradlib.per_element_gradients(lambda d: d[1], {1: tf.constant(1.0)})
    with pytest.raises(gradlib.InputError, match=r"requires floating-point inputs, but xs\['n'\] is int32"):
        gradlib.per_element_gradients(lambda d: d["n"], {"n": tf.constant([1, 2])})
    with pytest.raises(gradlib.InputError, match=r"at least one tensor in xs; got an empty dict"):
        gradlib.per_element_gradients(lambda d: 1.0, {})
