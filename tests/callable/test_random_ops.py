"""``random_op`` names each of TensorFlow's common draws in a trace, and ``is_random`` says random from the trace
alone where two calls cannot (a draw the output multiplies by 0 gives the same output at every call). Plant 47: a
wrong op name in ``RANDOM_OPS`` (``RandomNormal`` for ``RandomStandardNormal``) let ``tf.random.normal`` through
the trace, and the two calls then caught it only when it changed the output."""

from __future__ import annotations

import pytest
import tensorflow as tf

from gradlib._callable._random import is_random, random_op
from gradlib._callable._trace import trace

GENERATOR = tf.random.Generator.from_seed(1)   # made once, outside any trace
DRAWS = {"normal": (lambda s: tf.random.normal(s), "RandomStandardNormal"),
         "uniform": (lambda s: tf.random.uniform(s), "RandomUniform"),
         "truncated_normal": (lambda s: tf.random.truncated_normal(s), "TruncatedNormal"),
         "generator": (lambda s: GENERATOR.normal(s), "")}


@pytest.mark.parametrize("name", sorted(DRAWS))
def test_random_op_names_the_draw_in_the_trace(name):
    draw, op = DRAWS[name]
    graph = trace(lambda x: x + draw(tf.shape(x)), [tf.TensorSpec([4, 3])]).graph
    found = random_op(graph)
    assert found, name
    if op:   # the op random_op named is the draw's own
        assert graph.get_operation_by_name(found).type == op, (found, graph.get_operation_by_name(found).type)


@pytest.mark.parametrize("name", ["normal", "uniform", "truncated_normal"])
def test_a_draw_the_output_ignores_is_random_by_its_trace(name):
    """Two calls give the same output (``0 * draw``): only the trace says random, and a refusal is the rule."""
    draw = DRAWS[name][0]
    fn = lambda x: x + 0.0 * draw(tf.shape(x))   # noqa: E731
    x = tf.reshape(tf.range(12, dtype=tf.float32), [4, 3])
    assert tf.reduce_all(fn(x) == fn(x))   # the premise: the calls agree
    assert is_random(fn, x, key=None)


def test_a_constant_seed_stateless_draw_is_not_random():
    fn = lambda x: x + 0.0 * tf.random.stateless_normal(tf.shape(x), seed=[1, 2])   # noqa: E731
    x = tf.ones([4, 3])
    assert random_op(trace(fn, [tf.TensorSpec([4, 3])]).graph) == ""
    assert not is_random(fn, x, key=None)
