"""``random_op`` names each of TensorFlow's common draws in a trace, and ``is_random`` says random from the trace
alone where two calls cannot (a draw the output multiplies by 0 gives the same output at every call). Plant 47: a
wrong op name in ``RANDOM_OPS`` (``RandomNormal`` for ``RandomStandardNormal``) let ``tf.random.normal`` through
the trace, and the two calls then caught it only when it changed the output."""

from __future__ import annotations

import keras
import pytest
import tensorflow as tf
from tensorflow.python.framework import op_def_registry

from gradlib._callable._random import RANDOM_OPS, is_random, random_op
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


SEED = tf.Variable([1, 2], dtype=tf.int64)   # a seed the user's function advances at every call


@tf.function(autograph=False)
def _seeded_draw(x, seed):   # a nested function: the seed (a value or the variable) is its argument
    value = seed.read_value() if isinstance(seed, tf.Variable) else seed
    return x + 0.0 * tf.random.stateless_normal(tf.shape(x), seed=value)


def _read_outside(x):   # the variable read in the outer graph, the draw in the nested one
    value = SEED.read_value()
    SEED.assign_add([1, 0])
    return _seeded_draw(x, value)


def _read_inside(x):   # the variable itself passed in, read in the nested graph
    SEED.assign_add([1, 0])
    return _seeded_draw(x, SEED)


def _read_in_a_loop(x):   # the seed passed through a while_loop's body into the nested function
    value = SEED.read_value()
    SEED.assign_add([1, 0])
    return tf.while_loop(lambda i, a: i < 1, lambda i, a: (i + 1, _seeded_draw(a, value)), (0, x))[1]


def _read_in_a_cond(x):   # the seed passed into a tf.cond's branch: the If op's first input is its predicate
    value = SEED.read_value()
    SEED.assign_add([1, 0])
    return tf.cond(tf.reduce_sum(x) > -1e9, lambda: _seeded_draw(x, value), lambda: x)


@tf.function(autograph=False)
def _advance(seed):   # the variable passed in and written in a nested graph
    seed.assign_add([1, 0])
    return tf.constant(0.0)


def _written_inside(x):   # the draw's seed read outside, the variable advanced only inside a nested function
    return _seeded_draw(x, SEED.read_value()) + _advance(SEED)


# plant 48: _read_in_a_cond fails a Flow that passes a branch op's predicate as the branch's first argument,
# _written_inside one whose written variables are not followed to the graph's own (the argument counted as written)
@pytest.mark.parametrize("fn", [_read_outside, _read_inside, _read_in_a_loop, _read_in_a_cond, _written_inside],
                         ids=lambda f: f.__name__)
def test_a_seed_the_function_advances_is_followed_into_a_nested_function(fn):
    """Found by hunt 48: each body of the trace was read alone, so a stateless draw in a nested tf.function whose
    seed came in as an argument (read from a variable the outer graph writes) was not random to random_op; with the
    draw scaled by 0 the two calls agree too, and is_random said False."""
    graph = trace(fn, [tf.TensorSpec([4, 3])]).graph
    found = random_op(graph)
    assert found.startswith("stateless_random_normal/"), found
    x = tf.ones([4, 3])
    assert tf.reduce_all(fn(x) == fn(x))   # the premise: the calls cannot tell
    assert is_random(fn, x, key=None)


FIXED_SEED = tf.Variable([3, 4], dtype=tf.int64)   # read, never written


@pytest.mark.parametrize("how", ["value", "variable"])
def test_a_seed_no_one_writes_is_not_random_through_a_nested_function(how):
    """The same nested draw seeded from a variable nothing writes gives the same numbers at every call."""
    fn = lambda x: x + _seeded_draw(x, FIXED_SEED.read_value() if how == "value" else FIXED_SEED)  # noqa: E731
    assert random_op(trace(fn, [tf.TensorSpec([4, 3])]).graph) == ""
    x = tf.ones([4, 3])
    assert not is_random(fn, x, key=None)


# ---------------------------------------------------------------- every name of RANDOM_OPS, by the public API making it

G2 = tf.random.Generator.from_seed(2)
KERAS_DROPOUT = keras.layers.Dropout(0.5)   # made once, outside any trace (a layer holds a SeedGenerator)
KERAS_SEEDS = keras.random.SeedGenerator(5)
#: a public draw of TensorFlow and the op of RANDOM_OPS it runs (the op random_op must name)
PUBLIC = {
    "tf.random.normal": (lambda x: tf.random.normal(tf.shape(x)), "RandomStandardNormal"),
    "tf.random.uniform": (lambda x: tf.random.uniform(tf.shape(x)), "RandomUniform"),
    "tf.random.uniform int": (lambda x: tf.random.uniform(tf.shape(x), maxval=5, dtype=tf.int32), "RandomUniformInt"),
    "tf.random.truncated_normal": (lambda x: tf.random.truncated_normal(tf.shape(x)), "TruncatedNormal"),
    "tf.random.gamma": (lambda x: tf.random.gamma(tf.shape(x), 2.0), "RandomGamma"),
    "tf.random.poisson": (lambda x: tf.random.poisson(tf.shape(x), 2.0), "RandomPoissonV2"),
    "tf.random.categorical": (lambda x: tf.random.categorical(tf.zeros([4, 3]), 3), "Multinomial"),
    "tf.random.shuffle": (lambda x: tf.random.shuffle(x), "RandomShuffle"),
    "tf.image.random_crop": (lambda x: tf.image.random_crop(x, [2, 3]), "RandomUniformInt"),
    "tf.nn.dropout": (lambda x: tf.nn.dropout(x, 0.5), "RandomUniform"),
    "tf.image.sample_distorted_bounding_box": (lambda x: tf.image.sample_distorted_bounding_box(
        tf.constant([8, 8, 3]), tf.zeros([1, 0, 4]), min_object_covered=0.1,
        use_image_if_no_bounding_boxes=True)[0], "SampleDistortedBoundingBoxV2"),
    "tf.raw_ops.ParameterizedTruncatedNormal": (lambda x: tf.raw_ops.ParameterizedTruncatedNormal(
        shape=[4], means=0.0, stdevs=1.0, minvals=-1.0, maxvals=1.0), "ParameterizedTruncatedNormal"),
    "tf.random.Generator.normal": (lambda x: G2.normal(tf.shape(x)), "RngReadAndSkip"),
    "tf.random.Generator.uniform": (lambda x: G2.uniform(tf.shape(x)), "RngReadAndSkip"),
    "tf.random.Generator.binomial": (lambda x: G2.binomial(tf.shape(x), counts=5.0, probs=0.5),
                                     "StatefulRandomBinomial"),
    "tf.random.Generator.skip": (lambda x: (G2.skip(1), x)[1], "RngReadAndSkip"),
    "tf.raw_ops.NonDeterministicInts": (lambda x: tf.raw_ops.NonDeterministicInts(shape=[2]), "NonDeterministicInts"),
}
#: names of RANDOM_OPS no public TensorFlow 2 API above makes (older ops, kept for graphs that hold them): each must
#: be an op TensorFlow registers (a misspelt one matches nothing)
RAW_ONLY = {"RandomPoisson", "RandomCrop", "RngSkip", "StatefulUniform", "StatefulUniformInt", "StatefulUniformFullInt",
            "StatefulStandardNormal", "StatefulStandardNormalV2", "StatefulTruncatedNormal",
            "SampleDistortedBoundingBox"}


def _op_type(graph, name):
    graph_def = graph.as_graph_def()
    for nodes in (graph_def.node, *(f.node_def for f in graph_def.library.function)):
        for node in nodes:
            if node.name == name:
                return node.op
    return None


def _ignored(draw):   # the draw scaled by 0: only the trace can say random
    return lambda x: x + 0.0 * tf.cast(tf.reduce_sum(draw(x)), x.dtype)


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_each_public_draw_is_named_by_its_own_op_in_random_ops(name):
    """Plant 47 misspelt one name of RANDOM_OPS and the covering tests passed: here each name a public API makes is
    asked for by that API, and a misspelt one is not in the set."""
    draw, op = PUBLIC[name]
    assert op in RANDOM_OPS
    fn = _ignored(draw)
    graph = trace(fn, [tf.TensorSpec([4, 3])]).graph
    found = random_op(graph)
    assert _op_type(graph, found) == op, (name, found, _op_type(graph, found))
    x = tf.reshape(tf.range(12, dtype=tf.float32), [4, 3])
    assert is_random(fn, x, key=None)


def test_every_name_of_random_ops_is_made_by_a_public_draw_or_registered():
    assert RANDOM_OPS == {op for _, op in PUBLIC.values()} | RAW_ONLY
    missing = sorted(name for name in RANDOM_OPS if op_def_registry.get(name) is None)
    assert not missing, missing


SEED_WRITTEN = tf.Variable([7, 8], dtype=tf.int64)
#: the stateless draws (each prefix of _STATELESS), random only when seeded from a variable the function writes
STATELESS = {
    "stateless_normal": lambda s: tf.random.stateless_normal([4], seed=s),
    "stateless_uniform": lambda s: tf.random.stateless_uniform([4], seed=s),
    "stateless_truncated_normal": lambda s: tf.random.stateless_truncated_normal([4], seed=s),
    "stateless_categorical": lambda s: tf.random.stateless_categorical(tf.zeros([2, 3]), 3, seed=s),
    "stateless_gamma": lambda s: tf.random.stateless_gamma([4], seed=s, alpha=2.0),
    "stateless_poisson": lambda s: tf.random.stateless_poisson([4], seed=s, lam=2.0),
    "stateless_binomial": lambda s: tf.random.stateless_binomial([4], seed=s, counts=5.0, probs=0.5),
    "stateless_parameterized_truncated_normal": lambda s: tf.random.stateless_parameterized_truncated_normal(
        [4], seed=s),
}


@pytest.mark.parametrize("name", sorted(STATELESS))
def test_a_stateless_draw_is_random_when_its_seed_advances_and_not_when_constant(name):
    draw = STATELESS[name]

    def advancing(x):
        seed = SEED_WRITTEN.read_value()
        SEED_WRITTEN.assign_add([1, 0])
        return x + 0.0 * tf.cast(tf.reduce_sum(draw(seed)), x.dtype)

    spec = [tf.TensorSpec([4, 3])]
    assert random_op(trace(advancing, spec).graph) != "", name
    assert random_op(trace(_ignored(lambda x: draw(tf.constant([1, 2], tf.int64))), spec).graph) == "", name


@pytest.mark.parametrize("draw", ["dropout", "keras.random.normal"])
def test_keras_draws_through_a_seed_generator_are_random_by_the_trace(draw):
    fn = (lambda x: x + 0.0 * KERAS_DROPOUT(x, training=True)) if draw == "dropout" else \
        _ignored(lambda x: keras.random.normal(tf.shape(x), seed=KERAS_SEEDS))
    assert random_op(trace(fn, [tf.TensorSpec([4, 3])]).graph) != ""
    assert is_random(fn, tf.ones([4, 3]), key=None)
