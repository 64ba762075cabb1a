"""fn calls tf.py_function: every refusal gives advice that works where it is followed, and never the advice that
just failed (forward mode for a fn that also defines its own gradient; forward mode again to one who asked it).
The reference is one tf.GradientTape per output element, in a plain eager loop."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

import gradlib
from tape_reference import tape_rows

V = tf.constant([0.3, 1.7, 2.2])


@tf.custom_gradient
def ste(x):
    """Straight-through round: rounds, and passes the gradient through unchanged."""
    return tf.round(x), lambda dy: dy


def py_sin(v):
    return tf.py_function(lambda t: tf.sin(t), [v], tf.float32)


def tall(v):
    """More outputs (12) than inputs (3): compiled auto takes forward mode."""
    s = py_sin(v) * v
    return tf.concat([s, s * v, v * v, v], axis=0)


def with_ste(v):
    return py_sin(v) * ste(v)


in_a_tf_function = tf.function(lambda v: py_sin(v) * v)


def test_compiled_auto_falls_back_to_eager_forward_mode_where_compiled_forward_mode_failed():
    """auto chose compiled forward mode, which failed; the engine then read an unset variable: UnboundLocalError."""
    r = gradlib.per_element_gradients(tall, V, compiled=True)
    np.testing.assert_allclose(r.jacobian, tape_rows(tall, V), rtol=1e-5, atol=1e-6)
    assert r.method == "forward" and any(w.startswith("fn calls tf.py_function") for w in r.warnings)


def test_the_advice_to_a_reverse_method_is_eager_forward_mode_and_it_works():
    with pytest.raises(gradlib.GradlibError, match=r"which method='unstack' cannot differentiate here: .*Use "
                                                   r"method='forward' with compiled=False \(or method='auto'"):
        gradlib.per_element_gradients(tall, V, method="unstack")
    for method in ("forward", "auto"):
        r = gradlib.per_element_gradients(tall, V, method=method, compiled=False)
        np.testing.assert_allclose(r.jacobian, tape_rows(tall, V), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("method, compiled", [("auto", None), ("auto", True), ("unstack", False), ("jacobian", None)])
def test_with_a_gradient_of_its_own_too_no_method_is_offered_that_cannot_take_it(method, compiled):
    """The advice was method='forward' with compiled=False, which is refused for a fn with a custom gradient."""
    with pytest.raises(gradlib.GradlibError, match=r"cannot differentiate here: .*Eager forward mode, the one mode "
                                                   r"that takes it, does not follow the gradient fn also defines itself "
                                                   r".*a tf.GradientTape of its own") as caught:
        gradlib.per_element_gradients(with_ste, V, method=method, compiled=compiled)
    assert "Use method='forward'" not in str(caught.value)
    assert ("(auto's choice) cannot differentiate here" in str(caught.value)) == (method == "auto")


def test_forward_mode_on_such_a_fn_does_not_send_the_user_to_the_reverse_methods_that_fail():
    with pytest.raises(gradlib.GradlibError, match=r"method='forward' cannot differentiate this fn: it defines its own "
                                                   r"gradient .*No reverse method takes it either: fn also calls "
                                                   r"tf.py_function") as caught:
        gradlib.per_element_gradients(with_ste, V, method="forward", compiled=False)
    assert "Use method='jacobian'" not in str(caught.value)


def test_the_advice_for_such_a_fn_works_one_tape_per_output_element():
    x = V.numpy()
    np.testing.assert_allclose(tape_rows(with_ste, V), np.diag(np.cos(x) * np.round(x) + np.sin(x)), rtol=1e-5)


@pytest.mark.parametrize("method, compiled", [("forward", False), ("auto", None), ("unstack", False)])
def test_inside_a_tf_function_of_its_own_the_refusal_says_so_instead_of_a_raw_error(method, compiled):
    """The op sat in a function fn calls, which the detection did not read: TensorFlow's raw UnknownError came out
    (and eager forward mode, asked for, would have been advised again)."""
    with pytest.raises(gradlib.GradlibError, match=r"fn calls tf.py_function, .*It runs inside a tf.function of "
                                                   r"fn's own, where even eager forward mode fails") as caught:
        gradlib.per_element_gradients(in_a_tf_function, V, method=method, compiled=compiled)
    assert "Use method='forward'" not in str(caught.value)
    x = V.numpy()
    expected = np.diag(np.cos(x) * x + np.sin(x))
    # the advice followed: one tape per output element, or the same function outside the tf.function
    np.testing.assert_allclose(tape_rows(in_a_tf_function, V), expected, rtol=1e-5)
    outside = lambda v: py_sin(v) * v  # noqa: E731
    np.testing.assert_allclose(gradlib.per_element_gradients(outside, V).jacobian, expected, rtol=1e-5)


# ---------------------------------------------------------------- a custom gradient gradlib cannot see


@tf.function
def _ste_times(x):
    return ste(x) * x


def _hidden(x):
    """A custom gradient inside a tf.function, behind a step that cannot be traced: the detection finds nothing."""
    _ = float(tf.reduce_sum(x).numpy())
    y = _ste_times(x)
    return tf.concat([y, y * x, x * x], axis=0)


@pytest.mark.parametrize("method", ["forward", "auto", "unstack"])
def test_a_custom_gradient_hidden_from_the_trace_still_gets_the_tape_s_rows(method):
    """Eager forward mode follows the gradient the tape records (only a traced forward pass does not), so every
    method gives tape.gradient's rows; the check's warning says a custom gradient would explain the disagreement
    instead of only "its gradients are wrong"."""
    r = gradlib.per_element_gradients(_hidden, tf.constant([0.3, 1.7]), method=method, compiled=False)
    np.testing.assert_allclose(r.jacobian, tape_rows(_hidden, tf.constant([0.3, 1.7])), rtol=1e-6)
    disagreements = [w for w in r.warnings if w.startswith("the Jacobian disagrees")]
    assert all("If fn defines its own gradient (tf.custom_gradient" in w for w in disagreements), disagreements
