"""One error type per kind of mistake, in every API (issue 11): a bad option or a request over the limits is an
``ExpressionError`` whichever entry point refuses it, bad input data an ``InputError``, and both are kinds of
``GradlibError``, so a handler written for any of the three keeps working."""

from __future__ import annotations

import keras
import numpy as np
import pytest
import tensorflow as tf

import gradlib

CCE = keras.losses.SparseCategoricalCrossentropy(from_logits=True)


def _classifier() -> keras.Model:
    keras.utils.set_random_seed(0)
    return keras.Sequential([keras.Input((4,)), keras.layers.Dense(5, activation="tanh"), keras.layers.Dense(3)])


def _batch(n: int = 8) -> tuple[np.ndarray, np.ndarray]:
    return np.random.default_rng(0).normal(size=(n, 4)).astype("float32"), np.arange(n) % 3


X3 = tf.constant([1.0, 2.0, 3.0])


@pytest.mark.parametrize("call, message", [
    (lambda: gradlib.evaluate("x*x", {"x": 1.0}, method="fast"), "evaluate got method='fast'; choose one of"),
    (lambda: gradlib.compare("x*x", {"x": 1.0}, methods=["fast"]), "compare got method='fast'; choose one of"),
    (lambda: gradlib.per_element_gradients(lambda x: x, X3, method="fast"),
     "per_element_gradients got method='fast'; choose one of"),
    (lambda: gradlib.per_sample_gradients(lambda x: x, np.ones((2, 3), np.float32), method="fast"),
     "per_sample_gradients got method='fast'; choose one of auto, pfor, while_loop, tiled, loop"),
    (lambda: gradlib.examples.demonstrate("fast"), "demonstrate got 'fast'; choose one of"),
], ids=["evaluate", "compare", "per_element_gradients", "per_sample_gradients", "demonstrate"])
def test_a_bad_method_or_name_is_the_same_error_in_every_api(call, message):
    with pytest.raises(gradlib.ExpressionError, match=message) as info:
        call()
    assert not isinstance(info.value, gradlib.InputError)


SMALL = gradlib.Limits(max_jacobian=10, max_eager_passes=2)


@pytest.mark.parametrize("call, message", [
    (lambda: gradlib.evaluate("x*x", {"x": [1.0, 2.0, 3.0, 4.0]}, limits=SMALL),
     r"the Jacobian would have 4 x 4 = 16 entries; at most 10 are allowed"),
    (lambda: gradlib.per_element_gradients(lambda x: x * x, tf.ones([4]), limits=SMALL),
     r"the Jacobian would have 4 x 4 = 16 entries; at most 10 are allowed"),
    (lambda: gradlib.evaluate("x*x", {"x": [1.0, 2.0, 3.0]}, method="unstack", limits=SMALL),
     r"method 'unstack' runs one eager pass per output element: 3 here, and at most 2 are allowed"),
    (lambda: gradlib.per_sample_gradients(lambda x: x, np.ones((3, 2), np.float32), limits=SMALL),
     r"the per-sample Jacobians would have 12 entries \(batch 3 x 2 outputs x 2 inputs\); at most 10 are allowed"),
    (lambda: gradlib.per_sample_gradients(lambda x: x, np.ones((3, 1), np.float32), method="loop", limits=SMALL),
     r"method 'loop' runs one eager GradientTape per sample: 3 here, and at most 2 are allowed"),
    (lambda: gradlib.per_example_gradients(_classifier(), *_batch(), loss=CCE, limits=SMALL),
     r"per_example_gradients would allocate about [\d,]+ floats for this batch \([\d,]+ per example, method .*\); "
     r"at most 10 are allowed"),
    (lambda: gradlib.scan(_classifier(), _batch(), loss=CCE, batch_size=4, limits=SMALL),
     r"gradlib.scan would allocate about [\d,]+ floats per replica and batch .*; at most 10 are allowed"),
], ids=["evaluate", "per_element_gradients", "eager passes", "per_sample_gradients", "per-sample loop",
        "per_example_gradients", "scan"])
def test_a_request_over_the_limits_is_the_same_error_in_every_api_and_states_its_numbers(call, message):
    with pytest.raises(gradlib.ExpressionError, match=message) as info:
        call()
    assert not isinstance(info.value, gradlib.InputError)


@pytest.mark.parametrize("call, message", [
    (lambda: gradlib.per_example_gradients(_classifier(), *_batch(), loss=CCE, norms_only=True).clipped_mean(-1.0),
     r"clip_norm must be a positive number \(np.inf for no clipping\), got -1.0"),
    (lambda: gradlib.scan(_classifier(), _batch(), loss=CCE, batch_size=0),
     r"gradlib.scan needs batch_size= a positive integer, got 0"),
], ids=["clip_norm", "batch_size"])
def test_a_bad_number_for_an_option_is_an_expression_error(call, message):
    with pytest.raises(gradlib.ExpressionError, match=message):
        call()


def test_the_bench_reports_a_failing_contender_by_the_public_useful_line_of_its_error(monkeypatch):
    from benchmarks import per_example as bench

    def broken(model):
        raise ValueError("{{function_node __wrapped__AddV2_device_/job:localhost/replica:0/task:0/device:CPU:0}} "
                         "Incompatible shapes: [2] vs. [3] [Op:AddV2] name: ")
    monkeypatch.setitem(bench.CONTENDERS, "tf.vectorized_map (compiled)", broken)
    problem = bench.Problem("tiny", "Dense 3-2", lambda: keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)]),
                            (3,), 2, 4)
    rows = bench.run_problem(problem, rounds=1, contenders=[bench.PLAIN, "tf.vectorized_map (compiled)"])
    assert rows[1].error == "ValueError: Incompatible shapes: [2] vs. [3]" and "error_gist" in gradlib.__all__


def test_the_app_s_own_model_work_is_held_to_the_limits_it_is_given():
    from dashboard import model_report, scaling

    tiny = gradlib.Limits(max_jacobian=3, max_eager_passes=1)
    with pytest.raises(gradlib.ExpressionError, match="the Jacobian would have 2 x 2 = 4 entries; at most 3"):
        model_report.pitfalls("classifier", {"features": 2, "classes": 2}, np.array([0.5, -1.0]), limits=tiny)
    # a side timing over the limits is not run, and named; the gradients still stand
    r = model_report.report("classifier", {"features": 2, "classes": 2}, np.ones((2, 2)),
                            limits=gradlib.Limits(max_eager_passes=1))
    assert r.result.jacobian.shape == (2, 2, 2) and r.loop_samples == 0 and np.isnan(r.loop_seconds)
    assert r.missing[0].startswith("the per-sample loop: ExpressionError: ")
    assert "one eager tape.jacobian per sample: 2 here, and at most 1" in r.missing[0]
    with pytest.raises(gradlib.ExpressionError, match="the Jacobian would have 4 x 4 = 16 entries; at most 3"):
        scaling.scaling([4], methods=["auto"], limits=tiny)
