"""A function that defines its own gradient (``tf.custom_gradient``, a straight-through estimator): gradlib gives what
``tape.gradient`` gives, by every method and compilation, or refuses (a reviewer's finding, issue 'custom gradient').

Forward mode inside a ``tf.function`` differentiates the operations fn runs, not the gradient fn defines: on
``ste(x) = round(x)`` with the gradient ``dy -> dy`` it gave 0 where the tape gives 1, silently, and
``crosscheck`` never ran forward mode compiled, so it said every mode agreed. The reference here is one
``tf.GradientTape`` per output element in a plain loop (and nested tapes for second order).
"""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

import gradlib
from tape_reference import tape_rows


@tf.custom_gradient
def ste(x):
    """Straight-through round: the forward pass rounds, the gradient passes through unchanged."""
    return tf.round(x), lambda dy: dy


@tf.custom_gradient
def cube_ste(x):
    """round(x)**3 forward, with the gradient of x**3 (3 x^2): its gradient is not constant, so second order sees it."""
    return tf.round(x) ** 3, lambda dy: dy * 3.0 * x * x


X = tf.constant([0.3, 1.7])


def _tall(x):
    """More outputs (6) than inputs (2): compiled auto takes forward mode for such a function."""
    return tf.concat([ste(x) * x, ste(x) * x * x, x * x], axis=0)


def nested_tape_hessians(fn, x):
    """The reference Hessians: a tape's gradient of each element, differentiated again by an outer tape."""
    out = []
    for k in range(int(tf.size(fn(x)))):
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                inner.watch(x)
                y_k = tf.reshape(fn(x), [-1])[k]
            grad = inner.gradient(y_k, x)
        out.append(outer.jacobian(grad, x).numpy())
    return np.array(out)


def test_the_reference_follows_the_custom_gradient():
    np.testing.assert_allclose(tape_rows(lambda x: ste(x) * x, X), np.diag([0.3 + 0.0, 1.7 + 2.0]), rtol=1e-6)


@pytest.mark.parametrize("compiled", [True, None, False])
def test_auto_agrees_with_the_tape_where_it_would_take_forward_mode(compiled):
    r = gradlib.per_element_gradients(_tall, X, compiled=compiled, check=False)
    np.testing.assert_allclose(r.jacobian, tape_rows(_tall, X), rtol=1e-6)
    assert r.method in ("jacobian", "unstack")


@pytest.mark.parametrize("method", ["unstack", "jacobian"])
@pytest.mark.parametrize("compiled", [True, False])
def test_reverse_methods_agree_with_the_tape(method, compiled):
    r = gradlib.per_element_gradients(_tall, X, method=method, compiled=compiled, check=False)
    np.testing.assert_allclose(r.jacobian, tape_rows(_tall, X), rtol=1e-6)


@pytest.mark.parametrize("compiled", [True, False, None])
def test_forward_mode_is_refused_and_says_why_and_what_to_use(compiled):
    with pytest.raises(gradlib.GradlibError, match=r"method='forward' cannot differentiate this fn: it defines its own "
                                                   r"gradient \(tf.custom_gradient; op type 'CustomGradient-\d+'\).*"
                                                   r"Use method='jacobian' or 'unstack'"):
        gradlib.per_element_gradients(_tall, X, method="forward", compiled=compiled)


def test_a_custom_gradient_inside_a_tf_function_is_found():
    fn = tf.function(lambda x: ste(x) * x)
    with pytest.raises(gradlib.GradlibError, match="defines its own gradient"):
        gradlib.per_element_gradients(fn, X, method="forward", compiled=True)
    np.testing.assert_allclose(gradlib.per_element_gradients(fn, X, compiled=True).jacobian,
                               tape_rows(fn, X), rtol=1e-6)


def test_forward_mode_still_runs_on_a_function_without_one():
    r = gradlib.per_element_gradients(lambda x: tf.round(x) * x, X, method="forward", compiled=True)
    np.testing.assert_allclose(r.jacobian, np.diag([0.0, 2.0]), rtol=1e-6)   # round has derivative 0


def test_check_names_the_custom_gradient_instead_of_blaming_numpy():
    r = gradlib.per_element_gradients(lambda x: ste(x) * x, tf.constant([0.3, 1.7, 2.2]), method="unstack",
                                      compiled=False)
    assert any("fn defines its own gradient (tf.custom_gradient" in w and "NumPy" not in w for w in r.warnings)


def test_crosscheck_reports_forward_mode_as_a_graph():
    c = gradlib.crosscheck(lambda x: ste(x) * x, tf.constant([0.3, 1.7, 2.2]))
    assert c.differing == ("forward_graph",)
    assert c.mode("forward").agrees
    np.testing.assert_allclose(c.mode("forward_graph").jacobian, np.diag([0.0, 2.0, 2.0]))
    assert "fn defines its own gradient (tf.custom_gradient" in c.mode("forward_graph").text
    assert "refuses method='forward'" in c.summary


def test_hessians_follow_the_custom_gradient_like_nested_tapes():
    fn = lambda x: cube_ste(x) * x  # noqa: E731
    expected = nested_tape_hessians(fn, X)
    np.testing.assert_allclose(expected[1, 1, 1], 12 * 1.7 ** 2, rtol=1e-5)   # 9 x^2 + the custom 3 x^2
    for method in ("auto", "nested_tapes", "loop"):
        np.testing.assert_allclose(gradlib.hessians(fn, X, method=method).hessian, expected, rtol=1e-5)
    with pytest.raises(gradlib.GradlibError, match=r"hessians cannot use method='forward_over_reverse' on this fn: it "
                                                   r"defines its own gradient .* Use method='nested_tapes' or 'loop'"):
        gradlib.hessians(fn, X, method="forward_over_reverse")


def test_hvp_auto_takes_reverse_over_reverse_and_forward_over_reverse_is_refused():
    fn = lambda x: cube_ste(x) * x  # noqa: E731
    v = tf.constant([1.0, -2.0])
    r = gradlib.hvp(fn, X, v)
    np.testing.assert_allclose(r.hvp, nested_tape_hessians(fn, X) @ v.numpy(), rtol=1e-5)
    assert r.method == "reverse_over_reverse"
    with pytest.raises(gradlib.GradlibError, match=r"hvp cannot use method='forward_over_reverse'.*Use "
                                                   r"method='reverse_over_reverse'"):
        gradlib.hvp(fn, X, v, method="forward_over_reverse")


def test_second_order_auto_chooses_again_without_forward_over_reverse(monkeypatch):
    """Where auto's cost table prefers forward_over_reverse (forced here), it takes a reverse-over-reverse method."""
    from gradlib._second import _orders
    choose = _orders.choose
    monkeypatch.setattr(_orders, "choose", lambda s, limits, exclude=(): (
        "forward_over_reverse" if not exclude else choose(s, limits, exclude)))
    fn = lambda x: cube_ste(x) * x  # noqa: E731
    r = gradlib.hessians(fn, X)
    assert r.method in ("nested_tapes", "loop")
    np.testing.assert_allclose(r.hessian, nested_tape_hessians(fn, X), rtol=1e-5)


def test_nan_poisoned_rows_are_not_repaired_in_forward_mode_and_say_why():
    """auto repairs a NaN-poisoned row in forward mode, which would not follow fn's own gradient: the rows stay as
    the tape gives them, and a note says why."""
    fn = lambda x: tf.where(x > 0, 1.0 / x, 1.0) + ste(x)  # noqa: E731
    x = tf.constant([0.0, 4.0])
    r = gradlib.per_element_gradients(fn, x, check=False)
    expected = tape_rows(fn, x)
    assert np.isnan(expected[0, 0])   # 0 x inf in the tape's own pass (the branch not taken)
    np.testing.assert_allclose(r.jacobian, expected, rtol=1e-6)
    assert any("would not follow the gradient fn defines itself" in w for w in r.warnings)
