"""Second order's refusals that no other test reads, each pinned by its first sentence, and what ``auto`` does where
a named method is refused (issue 38, item 6).

A function that defines its own gradient (``tf.custom_gradient``) is the sharpest case: here ``says_square`` is
``x^3`` whose gradient says ``x^2``, so nested tapes (which follow the gradient it defines) give a second derivative
of ``2x``, where forward mode over a tape would differentiate the operations and give another number. ``auto`` must
give what nested ``tape.gradient`` calls give (written here), and a forward method named outright is refused.
"""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

import gradlib
from gradlib import BatchMixingError, ExpressionError, GradlibError, Limits

X = np.array([[0.5, -1.0, 0.2], [1.5, 0.25, -0.75]], np.float64)


@tf.custom_gradient
def says_square(x):
    """x^3, whose gradient says x^2 (not 3 x^2): the derivative a user defined is the one nested tapes follow."""
    def grad(dy):
        return dy * x * x
    return x ** 3, grad


def summed(x):
    return tf.reduce_sum(says_square(x), axis=-1, keepdims=True)


def nested_tape_diagonal(fn, row):
    """d2/dx_i^2 of fn at one sample, by two plain nested tapes: the reference for a function with its own gradient."""
    x = tf.constant(row[None])
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = fn(x)[0, 0]
        g = inner.gradient(y, x)
    return tf.linalg.diag_part(outer.jacobian(g, x)[0, :, 0, :]).numpy()


# ---------------------------------------------------------------- a function that defines its own gradient


def test_auto_follows_the_gradient_fn_defines_as_nested_tapes_do():
    reference = np.array([nested_tape_diagonal(summed, row) for row in X])
    np.testing.assert_allclose(reference, 2 * X, rtol=1e-12)   # d/dx of the x^2 it says, not 6x
    lap = gradlib.laplacian(summed, X)
    assert lap.method in ("nested_tapes", "loop")
    np.testing.assert_allclose(lap.laplacian[:, 0], reference.sum(axis=1), rtol=1e-12)
    h = gradlib.hessians(lambda v: tf.reduce_sum(says_square(v)), tf.constant(X[0]))
    assert h.method in ("nested_tapes", "loop")
    np.testing.assert_allclose(h.hessian[0], np.diag(reference[0]), rtol=1e-12)


def test_hvp_auto_takes_reverse_over_reverse_for_a_function_with_its_own_gradient():
    v = np.array([1.0, -2.0, 0.5])
    r = gradlib.hvp(lambda t: tf.reduce_sum(says_square(t)), tf.constant(X[1]), tf.constant(v))
    assert r.method == "reverse_over_reverse"
    np.testing.assert_allclose(r.hvp[0], 2 * X[1] * v, rtol=1e-12)


@pytest.mark.parametrize("api, method, instead", [
    ("laplacian", "forward_over_reverse", "method='nested_tapes' or 'loop' (reverse over reverse)"),
    ("laplacian", "hutchinson", "method='nested_tapes' or 'loop' (reverse over reverse)"),
    ("per_sample_hessians", "forward_over_reverse", "method='nested_tapes' or 'loop' (reverse over reverse)"),
    ("hvp", "forward_over_reverse", "method='reverse_over_reverse'"),
])
def test_a_forward_method_named_on_a_function_with_its_own_gradient_is_refused(api, method, instead):
    calls = {"laplacian": lambda: gradlib.laplacian(summed, X, method=method),
             "per_sample_hessians": lambda: gradlib.per_sample_hessians(summed, X, method=method),
             "hvp": lambda: gradlib.hvp(lambda t: tf.reduce_sum(says_square(t)), tf.constant(X[0]),
                                        tf.constant(X[1]), method=method)}
    with pytest.raises(GradlibError) as refused:
        calls[api]()
    text = str(refused.value)
    assert text.startswith(f"{api} cannot use method={method!r} on this fn: it defines its own gradient "
                           "(tf.custom_gradient; op type 'CustomGradient-"), text
    assert text.endswith(f"Use {instead}, or method='auto', which keeps to reverse mode for such a function")


# ---------------------------------------------------------------- fn fails: eagerly on one sample, or as a graph


def below_one(x):
    """Runs on sample 0 (every element below 1), fails on sample 1 (1.5): an assertion only the batch trips."""
    tf.debugging.assert_less(x, tf.constant(1.0, x.dtype))
    return x ** 3


@pytest.mark.parametrize("api", ["laplacian", "divergence"])
def test_fn_that_fails_only_on_the_whole_batch_is_named_with_the_compiled_method_and_the_batch(api):
    fn = below_one if api == "divergence" else lambda x: tf.reduce_sum(below_one(x), axis=1, keepdims=True)
    with pytest.raises(GradlibError, match=rf"^fn failed inside {api}'s compiled loop on a batch of shape \(2, 3\): "
                                           r"InvalidArgumentError: assertion failed"):
        getattr(gradlib, api)(fn, X, method="loop")
    r = getattr(gradlib, api)(fn, X[:1], method="loop")   # sample 0 alone runs: the refusal was the batch's
    np.testing.assert_allclose(np.ravel(getattr(r, api)), [6 * X[0].sum()] if api == "laplacian"
                               else [3 * (X[0] ** 2).sum()], rtol=1e-12)


# ---------------------------------------------------------------- methods that do not serve this fn or this kind


def test_the_forward_laplacian_on_a_function_is_refused_with_what_it_needs():
    with pytest.raises(ExpressionError, match=r"^laplacian cannot use method='forward_laplacian': forward_laplacian "
                                              r"has layer rules only for a Keras Sequential of Dense layers with the "
                                              r"common activations \(fn is not a Keras model\)\. Use "
                                              r"method='auto'$"):
        gradlib.laplacian(lambda x: x[:, :1] ** 3, X, method="forward_laplacian")


@pytest.mark.parametrize("layers, reason", [
    (lambda k: [k.layers.Dense(4, activation="relu6", name="hidden"), k.layers.Dense(1)],
     "layer 'hidden' has the activation 'relu6', which has no forward rule"),
    (lambda k: [k.layers.Dense(4, activation="tanh"), k.layers.Dropout(0.1, name="drop"), k.layers.Dense(1)],
     "layer 'drop' is a Dropout, not a Dense layer"),
], ids=["activation", "layer"])
def test_the_forward_laplacian_refusal_names_the_layer_without_a_rule(layers, reason):
    import keras

    model = keras.Sequential([keras.Input((3,))] + layers(keras))
    with pytest.raises(ExpressionError) as info:
        gradlib.laplacian(model, X, method="forward_laplacian")
    assert str(info.value) == ("laplacian cannot use method='forward_laplacian': forward_laplacian has layer rules "
                               "only for a Keras Sequential of Dense layers with the common activations "
                               f"({reason}). Use method='auto'")
    assert gradlib.laplacian(model, X).method != "forward_laplacian"   # the advice, followed, is accepted


def test_only_the_layer_rules_refusal_says_why_the_rules_do_not_fit():
    """A refusal for another reason (here: hutchinson on a fn that takes one fixed input, as ``hessians`` passes it
    on) is not followed by ``(fn is not a Keras model)``: that reason belongs to the forward rules alone. No public
    call reaches this refusal today (``hessians`` refuses hutchinson first), so the runner is asked directly."""
    from gradlib._second._runner import Request, run

    req = Request("laplacian", cube, tf.constant(X), "laplacian", "hutchinson", None, tileable=False, probes=8)
    with pytest.raises(ExpressionError) as info:
        run(req, gradlib.LIMITS)
    assert str(info.value) == ("laplacian cannot use method='hutchinson': hutchinson runs fn on copies of the batch, "
                               "and this fn takes one fixed input. Use method='auto'")


@pytest.mark.parametrize("call, message", [
    (lambda: gradlib.hessians(lambda x: x ** 3, tf.constant([1.0]), method="forward_laplacian"),
     "hessians got method='forward_laplacian'; choose one of auto, nested_tapes, loop, forward_over_reverse"),
    (lambda: gradlib.divergence(lambda x: x ** 3, X, method="forward_laplacian"),
     "divergence got method='forward_laplacian'; choose one of auto, nested_tapes, loop, forward_over_reverse, "
     "hutchinson"),
    (lambda: gradlib.per_sample_hessians(lambda x: x ** 3, X, diagonal=True, method="hutchinson"),
     "per_sample_hessians got method='hutchinson'; choose one of auto, nested_tapes, loop, forward_over_reverse, "
     "forward_laplacian"),
    (lambda: gradlib.evaluate("x * x", {"x": 1.0}, order=2, method="hutchinson"),
     "evaluate(order=2) got method='hutchinson'; choose one of auto, nested_tapes, loop, forward_over_reverse"),
    (lambda: gradlib.laplacian(lambda x: x ** 3, X, method="Loop"),
     "laplacian got method='Loop'; choose one of auto, nested_tapes, loop, forward_over_reverse, forward_laplacian, "
     "hutchinson"),
])
def test_a_method_that_does_not_compute_what_the_api_returns_is_refused_naming_those_that_do(call, message):
    with pytest.raises(ExpressionError) as refused:
        call()
    assert str(refused.value) == message


# ---------------------------------------------------------------- the entries' limit: its advice, followed


def cube(x):
    return tf.reduce_sum(x ** 3, axis=-1, keepdims=True)


def test_a_laplacian_over_the_entries_limit_advises_a_batch_that_is_then_computed():
    with pytest.raises(ExpressionError) as refused:
        gradlib.laplacian(cube, X, limits=Limits(max_hessian=1))
    assert str(refused.value) == ("laplacian would return 2 second-order entries (2 x 1); at most 1 are allowed. It "
                                  "fits with a batch of at most 1")
    r = gradlib.laplacian(cube, X[:1], limits=Limits(max_hessian=1))
    np.testing.assert_allclose(r.laplacian, [[6 * X[0].sum()]], rtol=1e-12)


def test_a_request_that_no_smaller_batch_output_or_input_alone_fits_says_to_ask_for_less():
    with pytest.raises(ExpressionError) as refused:
        gradlib.per_sample_hessians(cube, X, diagonal=True, limits=Limits(max_hessian=1))
    assert str(refused.value) == ("per_sample_hessians would return 6 second-order entries (2 x 1 outputs x 3 "
                                  "inputs); at most 1 are allowed. Ask for less: no smaller batch, output or input "
                                  "alone fits")


def test_hessians_over_the_entries_limit_advise_the_diagonals_and_the_laplacian_that_fit():
    with pytest.raises(ExpressionError) as refused:
        gradlib.per_sample_hessians(cube, X, limits=Limits(max_hessian=17))   # 2 x 1 x 3 x 3 = 18
    assert str(refused.value).endswith("at most 17 are allowed. It fits with a batch of at most 1, or diagonal=True "
                                       "(the diagonals only), or gradlib.laplacian (the trace only)")
    r = gradlib.per_sample_hessians(cube, X, diagonal=True, limits=Limits(max_hessian=17))
    np.testing.assert_allclose(r.diagonal[:, 0], 6 * X, rtol=1e-12)


# ---------------------------------------------------------------- the batch mixes: the advice for a function


def test_a_function_that_mixes_the_batch_is_told_what_to_do_as_a_function_not_as_a_model():
    with pytest.raises(BatchMixingError) as refused:
        gradlib.per_sample_hessians(lambda x: x ** 2 - tf.reduce_mean(x, axis=0) ** 2, X)
    text = str(refused.value)
    assert text.startswith("per_sample_hessians: the samples of the batch are not independent: the input of sample ")
    assert text.endswith("(tensorflow#38428). If fn calls a model, call it with training=False, or use "
                         "gradlib.hessians on the whole batch")


# ---------------------------------------------------------------- typed functions: the text's refusals at order 2


@pytest.mark.parametrize("text, inputs, message", [
    ("x +* 2", {"x": 1.0}, "syntax error at column 4: invalid syntax\n    x +* 2\n       ^"),
    ("x * y", {"x": 1.0}, "unknown name 'y'. Inputs are: x. Define it as an input or fix the spelling (column 5)"),
])
def test_a_typed_function_s_text_is_refused_at_order_2_as_at_order_1(text, inputs, message):
    for order in (1, 2):
        with pytest.raises(ExpressionError) as refused:
            gradlib.evaluate(text, inputs, order=order)
        assert str(refused.value).startswith(message), (order, str(refused.value))
