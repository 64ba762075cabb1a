"""Small programs for the lint tests, each run under TensorFlow (conftest.py's ``tf_verdicts``) to prove its label.

A broken program marks each line the linter must flag with ``# <- GTnnn`` (several codes allowed) and must
raise, or give a None or all-zero gradient, under TensorFlow; a correct twin must give a real gradient and no
finding. Each leaves its gradient(s) in ``result``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["PROGRAMS", "Program", "call_lines", "marks"]

_MARK = re.compile(r"# <- ((?:GT\d{3}\s*)+)")


@dataclass(frozen=True)
class Program:
    source: str
    broken: bool
    step: str            # which part of issue 22 it pins


def marks(source: str) -> set[tuple[int, str]]:
    """The (line, rule) pairs a program marks."""
    return {(i, code) for i, line in enumerate(source.splitlines(), start=1)
            for m in [_MARK.search(line)] if m for code in m.group(1).split()}


def call_lines(source: str) -> set[int]:
    """The lines that ask a tape or an optimizer for gradients: the note on a gradient call's line is not marked."""
    return {i for i, line in enumerate(source.splitlines(), start=1)
            if any(m in line for m in (".gradient(", ".jacobian(", ".batch_jacobian(", ".minimize("))}


_HEAD = "import tensorflow as tf\nimport numpy as np\n\n"


_NETS = """import sys
import types

sys.modules["nets"] = types.SimpleNamespace(Regressor=lambda: tf.keras.Sequential([tf.keras.layers.Dense(1)]))
"""


# What unseen code makes (a factory's model, a distribution built on a variable, a namespace holding a net):
# `lib` stands for a library or the project's own module, made here so that each program runs alone.
_LIB = """import sys
import types


def _dist(v):
    return types.SimpleNamespace(log_prob=lambda x: -(x - v) ** 2)


class _Linear(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable([[1.0], [2.0], [3.0]])

    def __call__(self, x):
        return tf.matmul(x, self.w)


sys.modules["lib"] = types.SimpleNamespace(make_model=lambda: tf.keras.Sequential([tf.keras.layers.Dense(1)]),
                                           make_module=_Linear,
                                           make_dist=_dist, namespace=types.SimpleNamespace,
                                           variables_of=lambda model: model.trainable_variables,
                                           square_watched=lambda holder, x: (holder.tape.watch(x), x * x)[1])
"""


def _p(body: str, broken: bool, step: str) -> Program:
    return Program(_HEAD + body.lstrip("\n"), broken, step)


PROGRAMS = {
    # ---- step 2: a value that left TensorFlow keeps its mark through later arithmetic and TensorFlow ops
    "float_numpy_then_power": _p("""
x = tf.Variable(2.0)
with tf.GradientTape() as tape:
    pred = x * 3.0
    loss = float(pred.numpy()) ** 2  # <- GT002
result = tape.gradient(loss, x)
""", True, "mark"),
    "float_then_power": _p("""
x = tf.Variable(2.0)
with tf.GradientTape() as tape:
    pred = x * 3.0
    loss = float(pred) ** 2  # <- GT002
result = tape.gradient(loss, x)
""", True, "mark"),
    "square_of_float": _p("""
x = tf.Variable(2.0)
with tf.GradientTape() as tape:
    pred = x * 3.0
    loss = tf.square(float(pred))  # <- GT002
result = tape.gradient(loss, x)
""", True, "mark"),
    "numpy_then_several_ops": _p("""
x = tf.Variable([1.0, 2.0])
with tf.GradientTape() as tape:
    pred = x * 3.0
    value = pred.numpy()  # <- GT002
    scaled = value * 2.0 + 1.0
    loss = tf.reduce_sum(tf.exp(tf.constant(scaled))) * 0.5
result = tape.gradient(loss, x)
""", True, "mark"),
    "power_stays_a_tensor": _p("""
x = tf.Variable(2.0)
with tf.GradientTape() as tape:
    pred = x * 3.0
    logged = float(pred.numpy()) ** 2
    loss = tf.square(pred) + pred ** 2
result = tape.gradient(loss, x)
""", False, "mark"),
    # ---- step 2: every break on a path is reported, not only the first (issue 21's planted bug)
    "numpy_then_argmax": _p("""
x = tf.Variable([0.2, 0.7, 0.1])
with tf.GradientTape() as tape:
    probs = tf.constant(x.numpy())  # <- GT002
    best = tf.cast(tf.argmax(probs), tf.float32)  # <- GT010
    loss = best * 2.0
result = tape.gradient(loss, x)
""", True, "all breaks"),
    "round_trip_fixed_argmax_left": _p("""
x = tf.Variable([0.2, 0.7, 0.1])
with tf.GradientTape() as tape:
    probs = x
    best = tf.cast(tf.argmax(probs), tf.float32)  # <- GT010
    loss = best * 2.0
result = tape.gradient(loss, x)
""", True, "all breaks"),
    "numpy_then_round_in_a_helper_chain": _p("""
x = tf.Variable([0.4, 1.6])
with tf.GradientTape() as tape:
    a = x.numpy() * 2.0  # <- GT002
    b = tf.round(tf.constant(a))  # <- GT010
    loss = tf.reduce_sum(b)
result = tape.gradient(loss, x)
""", True, "all breaks"),
    "both_fixed_softmax": _p("""
x = tf.Variable([0.2, 0.7, 0.1])
with tf.GradientTape() as tape:
    probs = tf.nn.softmax(x)
    loss = tf.reduce_sum(probs * tf.range(3, dtype=tf.float32))
result = tape.gradient(loss, x)
""", False, "all breaks"),
    "comparison_behind_numpy_but_a_branch_connects": _p("""
x = tf.Variable([-1.0, 2.0])
with tf.GradientTape() as tape:
    a = x.numpy()
    loss = tf.reduce_sum(tf.where(a > 0.0, x * x, -3.0 * x))
result = tape.gradient(loss, x)
""", False, "all breaks"),
    # ---- step 3: a watch after an op that also read a trainable variable is not too late (TF recorded the op)
    "watch_after_op_with_variable": _p("""
x = tf.constant(2.0)
v = tf.Variable(3.0)
with tf.GradientTape() as tape:
    y = x * v
    tape.watch(x)
    z = y * 2.0
result = tape.gradient(z, x)
""", False, "late watch"),
    "watch_after_model_call": _p("""
images = tf.ones((2, 3))
model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
with tf.GradientTape() as tape:
    out = model(images)
    tape.watch(images)
    loss = tf.reduce_sum(out)
result = tape.gradient(loss, images)
""", False, "late watch"),
    "watch_after_op_without_variable": _p("""
x = tf.constant(2.0)
v = tf.Variable(3.0)
with tf.GradientTape() as tape:
    y = x * 2.0
    tape.watch(x)  # <- GT003
    z = y * v
result = tape.gradient(z, x)
""", True, "late watch"),
    "op_with_variable_never_watched": _p("""
x = tf.constant(2.0)
v = tf.Variable(3.0)
with tf.GradientTape() as tape:  # <- GT003
    y = x * v
result = tape.gradient(y, x)
""", True, "late watch"),
    # ---- step 4: parts the linter used to give up on are followed (every call here is checked)
    "shape_as_int": _p("""
x = tf.Variable(tf.ones((3, 2)))
with tf.GradientTape() as tape:
    n = x.shape[0]
    loss = tf.reduce_sum(tf.round(x)) / n  # <- GT010
result = tape.gradient(loss, x)
""", True, "followed"),
    "shape_as_int_ok": _p("""
x = tf.Variable(tf.ones((3, 2)))
with tf.GradientTape() as tape:
    n = x.shape[0]
    loss = tf.reduce_sum(x * x) / n
result = tape.gradient(loss, x)
""", False, "followed"),
    "list_append": _p("""
x = tf.Variable([1.0, 2.0])
losses = []
with tf.GradientTape() as tape:
    for i in range(3):
        losses.append(tf.reduce_sum(x.numpy() * i))  # <- GT002
    loss = tf.add_n(losses)
result = tape.gradient(loss, x)
""", True, "followed"),
    "list_append_ok": _p("""
x = tf.Variable([1.0, 2.0])
losses = []
with tf.GradientTape() as tape:
    for i in range(3):
        losses.append(tf.reduce_sum(x * float(i + 1)))
    loss = tf.add_n(losses)
result = tape.gradient(loss, x)
""", False, "followed"),
    "assert_on_gradient": _p("""
x = tf.constant([1.0, 2.0])
with tf.GradientTape() as tape:  # <- GT003
    y = tf.reduce_sum(x * x)
result = tape.gradient(y, x)
assert result is None or result is not None
""", True, "followed"),
    "data_batches": _p("""
model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
ds = tf.data.Dataset.from_tensor_slices((tf.ones((8, 2)), tf.ones((8, 1)))).batch(4)
for xb, yb in ds:
    with tf.GradientTape() as tape:
        pred = model(xb)
        loss = tf.reduce_mean(tf.round(pred - yb))  # <- GT010
    result = tape.gradient(loss, model.trainable_variables)
""", True, "followed"),
    "data_batches_ok": _p("""
model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
ds = tf.data.Dataset.from_tensor_slices((tf.ones((8, 2)), tf.ones((8, 1)))).batch(4)
for xb, yb in ds:
    with tf.GradientTape() as tape:
        pred = model(xb)
        loss = tf.reduce_mean((pred - yb) ** 2)
    result = tape.gradient(loss, model.trainable_variables)
""", False, "followed"),
    "numpy_function_output": _p("""
x = tf.Variable([1.0, 2.0])
with tf.GradientTape() as tape:
    y = tf.numpy_function(np.sin, [x], tf.float32)  # <- GT002
    loss = tf.reduce_sum(y)
result = tape.gradient(loss, x)
""", True, "followed"),
    "function_parameters": _p("""
model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])


def train_step(x, y):
    with tf.GradientTape() as tape:
        pred = model(x)
        loss = tf.reduce_mean(tf.square(y - pred.numpy()))  # <- GT002
    return tape.gradient(loss, model.trainable_variables)


result = train_step(tf.ones((2, 2)), tf.ones((2, 1)))
""", True, "followed"),
    "function_parameters_ok": _p("""
model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])


def train_step(x, y):
    with tf.GradientTape() as tape:
        pred = model(x)
        loss = tf.reduce_mean(tf.square(y - pred))
    return tape.gradient(loss, model.trainable_variables)


result = train_step(tf.ones((2, 2)), tf.ones((2, 1)))
""", False, "followed"),
    "keras_subclass_method": _p("""
class Net(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = tf.keras.layers.Dense(1)
        self.w = tf.Variable(2.0)

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            pred = self.dense(x) * self.w
            loss = tf.reduce_mean(tf.square(pred.numpy() - y))  # <- GT002
        return tape.gradient(loss, self.trainable_variables)


result = Net().train_step((tf.ones((2, 3)), tf.ones((2, 1))))
""", True, "followed"),
    "keras_subclass_method_ok": _p("""
class Net(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = tf.keras.layers.Dense(1)
        self.w = tf.Variable(2.0)

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            pred = self.dense(x) * self.w
            loss = tf.reduce_mean(tf.square(pred - y))
        return tape.gradient(loss, self.trainable_variables)


result = Net().train_step((tf.ones((2, 3)), tf.ones((2, 1))))
""", False, "followed"),
    # ---- step 6: new rules, each with a correct twin
    "assign_on_the_path": _p("""
x = tf.Variable(2.0)
w = tf.Variable(1.0)
with tf.GradientTape() as tape:
    w.assign(x * 3.0)  # <- GT012
    loss = w * w
result = tape.gradient(loss, x)
""", True, "new rules"),
    "assign_add_on_the_path": _p("""
x = tf.Variable(2.0)
total = tf.Variable(0.0)
with tf.GradientTape() as tape:
    for k in range(2):
        total.assign_add(x * float(k + 1))  # <- GT012
    loss = total * 2.0
result = tape.gradient(loss, x)
""", True, "new rules"),
    "assign_only_updates_state": _p("""
x = tf.Variable(2.0)
w = tf.Variable(1.0)
with tf.GradientTape() as tape:
    w_new = x * 3.0
    loss = w_new * w_new
w.assign(w_new)
result = tape.gradient(loss, x)
""", False, "new rules"),
    "minimize_a_tensor": _p("""
v = tf.Variable(2.0)
opt = tf.compat.v1.train.GradientDescentOptimizer(0.1)
loss = v * v
opt.minimize(loss, var_list=[v])  # <- GT013
result = [v.read_value()]
""", True, "new rules"),
    "minimize_keras_optimizer": _p("""
v = tf.Variable(2.0)
opt = tf.keras.optimizers.SGD(0.1)
loss = v * v
opt.minimize(loss, [v])  # <- GT013
result = [v.read_value()]
""", True, "new rules"),
    "minimize_a_callable": _p("""
v = tf.Variable(2.0)
opt = tf.compat.v1.train.GradientDescentOptimizer(0.1)
opt.minimize(lambda: v * v, var_list=[v])
result = [v.read_value()]
""", False, "new rules"),
    "gradient_in_block_in_a_loop": _p("""
w = tf.Variable([1.0, 2.0])
opt = tf.keras.optimizers.SGD(0.1)
with tf.GradientTape() as tape:  # <- GT014
    for step in range(3):
        loss = tf.reduce_sum(w * w)
        grads = tape.gradient(loss, [w])
        opt.apply_gradients(zip(grads, [w]))
result = grads
""", True, "new rules"),
    "new_tape_each_pass": _p("""
w = tf.Variable([1.0, 2.0])
opt = tf.keras.optimizers.SGD(0.1)
for step in range(3):
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(w * w)
        grads = tape.gradient(loss, [w])
    opt.apply_gradients(zip(grads, [w]))
result = grads
""", False, "new rules"),
    "inner_gradient_after_outer_block": _p("""
x = tf.Variable(2.0)
with tf.GradientTape() as outer:
    with tf.GradientTape() as inner:
        y = x ** 3
dy = inner.gradient(y, x)  # <- GT008
result = outer.gradient(dy, x)
""", True, "new rules"),
    "inner_gradient_inside_outer_block": _p("""
x = tf.Variable(2.0)
with tf.GradientTape() as outer:
    with tf.GradientTape() as inner:
        y = x ** 3
    dy = inner.gradient(y, x)
result = outer.gradient(dy, x)
""", False, "new rules"),
    "watched_only_by_the_inner_tape": _p("""
x = tf.constant(2.0)
with tf.GradientTape() as outer:  # <- GT015
    with tf.GradientTape() as inner:
        inner.watch(x)
        y = x ** 3
    dy = inner.gradient(y, x)
result = outer.gradient(dy, x)
""", True, "new rules"),
    "watched_by_both_tapes": _p("""
x = tf.constant(2.0)
with tf.GradientTape() as outer:
    outer.watch(x)
    with tf.GradientTape() as inner:
        inner.watch(x)
        y = x ** 3
    dy = inner.gradient(y, x)
result = outer.gradient(dy, x)
""", False, "new rules"),
    "batch_jacobian_rows_interact": _p("""
x = tf.constant([[1.0, 2.0], [3.0, 4.0], [0.5, -1.0]])
with tf.GradientTape(persistent=True) as outer:
    outer.watch(x)
    with tf.GradientTape() as inner:
        inner.watch(x)
        y = tf.reduce_sum(x ** 2 * tf.reduce_mean(x, axis=0))
    g = inner.gradient(y, x)
h = outer.batch_jacobian(g, x)  # <- GT016
full = outer.jacobian(g, x)
blocks = tf.stack([full[i, :, i, :] for i in range(3)])
result = tf.cast(tf.reduce_all(tf.abs(h - blocks) < 1e-5), tf.float32)
""", True, "new rules"),
    "batch_jacobian_rows_independent": _p("""
x = tf.constant([[1.0, 2.0], [3.0, 4.0], [0.5, -1.0]])
with tf.GradientTape(persistent=True) as outer:
    outer.watch(x)
    with tf.GradientTape() as inner:
        inner.watch(x)
        y = tf.reduce_sum(x ** 3 * tf.reduce_mean(x, axis=1, keepdims=True))
    g = inner.gradient(y, x)
h = outer.batch_jacobian(g, x)
full = outer.jacobian(g, x)
blocks = tf.stack([full[i, :, i, :] for i in range(3)])
result = tf.cast(tf.reduce_all(tf.abs(h - blocks) < 1e-5), tf.float32)
""", False, "new rules"),
    "watched_parameter": _p("""
def slope(x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.round(x * x))  # <- GT010
    return tape.gradient(y, x)


result = slope(tf.constant([1.0, 2.0]))
""", True, "followed"),
    "watched_parameter_list": _p("""
def slopes(inputs):
    with tf.GradientTape() as tape:
        tape.watch(inputs)
        y = inputs[0] * inputs[1]
    return tape.gradient(y, inputs[0])


result = slopes([tf.constant(2.0), tf.constant(3.0)])
""", False, "followed list"),
    "minimize_a_tensor_inside_tf_function": _p("""
v = tf.Variable(2.0)
opt = tf.compat.v1.train.GradientDescentOptimizer(0.1)


@tf.function
def step():
    loss = v * v
    opt.minimize(loss, var_list=[v])


step()
result = [v.read_value()]
""", False, "new rules"),
    "dict_of_losses": _p("""
x = tf.Variable([1.0, 2.0])
with tf.GradientTape() as tape:
    losses = {"fit": tf.reduce_sum(x * x)}
    losses["penalty"] = tf.reduce_sum(tf.round(x))  # <- GT010
    loss = losses["penalty"] * 2.0
result = tape.gradient(loss, x)
""", True, "followed"),
    "dict_of_losses_ok": _p("""
x = tf.Variable([1.0, 2.0])
with tf.GradientTape() as tape:
    losses = {"fit": tf.reduce_sum(x * x)}
    losses["penalty"] = tf.reduce_sum(tf.abs(x))
    loss = tf.add_n(list(losses.values()))
result = tape.gradient(loss, x)
""", False, "followed"),
    "compat_v1_names": _p("""
import tensorflow.compat.v1 as tf1

x = tf1.ones((2, 2))
with tf1.GradientTape() as t:  # <- GT003
    y = tf1.reduce_sum(x)
result = t.gradient(y, x)
""", True, "followed"),
    "python_list_times_variable_ok": _p("""
w = tf.Variable(tf.ones((3, 2)))
b = tf.Variable(tf.zeros(2))
data = [[1.0, 2.0, 3.0]]
with tf.GradientTape() as tape:
    y = data @ w + b
    loss = tf.reduce_mean(y ** 2)
result = tape.gradient(loss, [w, b])
""", False, "followed"),
    # ---- issue 22 item 3: a source the target is not computed from (GT017); its twins, and the programs where
    # a naive reading of the code sees no path but TensorFlow finds one (the rule must say nothing there)
    "unconnected_target_constant": _p("""
x = tf.ones([2, 2])
with tf.GradientTape() as tape:
    tape.watch(x)
    y = tf.constant([4.4]) * 2.0
result = tape.gradient(y, x)  # <- GT017
""", True, "unconnected"),
    "unconnected_other_variable_jacobian": _p("""
w = tf.Variable([1.0, 2.0])
v = tf.Variable([3.0, 4.0])
with tf.GradientTape() as tape:
    y = tf.sin(v) * 2.0
result = tape.jacobian(y, w)  # <- GT017
""", True, "unconnected"),
    "unconnected_one_of_two_sources": _p("""
w = tf.Variable([1.0, 2.0])
b = tf.Variable(0.5)
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(w * w)
result = tape.gradient(loss, [w, b])  # <- GT017
""", True, "unconnected"),
    "connected_twin": _p("""
w = tf.Variable([1.0, 2.0])
b = tf.Variable(0.5)
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(w * w) + b
result = tape.gradient(loss, [w, b])
""", False, "unconnected"),
    "unconnected_asks_for_zeros": _p("""
w = tf.Variable([1.0, 2.0])
b = tf.Variable(0.5)
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(w * w)
result = tape.gradient(loss, b, unconnected_gradients=tf.UnconnectedGradients.ZERO)
""", False, "unconnected zeros"),
    "connected_before_a_break": _p("""
x = tf.Variable(2.0)
with tf.GradientTape() as tape:
    for h in [x * 3.0, tf.constant(1.0)]:
        break
result = tape.gradient(h, x)
""", False, "unconnected guard"),
    "connected_in_a_long_list": _p("""
x = tf.Variable(2.0)
c = tf.constant(1.0)
with tf.GradientTape() as tape:
    total = tf.constant(0.0)
    for part in [c, c, c, c, c, c, c, c, c, x * 3.0]:
        total = total + part
result = tape.gradient(total, x)
""", False, "unconnected guard"),
    "connected_by_code_it_cannot_see": _p("""
import functools

x = tf.Variable(2.0)
state = [tf.constant(0.0)]


def put():
    state[0] = x * 3.0


with tf.GradientTape() as tape:
    functools.partial(put)()
    y = state[0] * 2.0
result = tape.gradient(y, x)
""", False, "unconnected guard"),
    "connected_in_map_fn": _p("""
x = tf.Variable(2.0)
with tf.GradientTape() as tape:
    y = tf.reduce_sum(tf.map_fn(lambda r: r * x, tf.ones(3)))
result = tape.gradient(y, x)
""", False, "unconnected guard"),
    "connected_by_keyword": _p("""
x = tf.Variable(2.0)
with tf.GradientTape() as tape:
    y = tf.cast(x=x * 3.0, dtype=tf.float32) ** 2
result = tape.gradient(y, x)
""", False, "unconnected guard"),
    "connected_in_one_branch": _p("""
x = tf.Variable(2.0)
holder = {"h": x * 3.0}
with tf.GradientTape() as tape:
    holder["h"] = x * 2.0
    if x.numpy() > 5.0:
        holder["h"] = tf.constant(1.0)
    y = holder["h"] * 2.0
result = tape.gradient(y, x)
""", False, "unconnected guard"),
    "connected_through_a_layer": _p("""
x = tf.Variable([[2.0]])
layer = tf.keras.layers.Lambda(lambda t: t * x)
with tf.GradientTape() as tape:
    y = tf.reduce_sum(layer(tf.ones((1, 1))))
result = tape.gradient(y, x)
""", False, "unconnected guard"),
    "connected_through_a_cast_to_its_own_dtype": _p("""
x = tf.constant([1.0, 2.0])
xf = tf.cast(x, tf.float32)
with tf.GradientTape() as tape:
    tape.watch(xf)
    y = x * x
result = tape.gradient(y, xf)
""", False, "unconnected guard"),
    "connected_by_a_default_argument": _p("""
a = tf.Variable(1.0)
b = tf.Variable(2.0)
doubles = []
for v in [a, b]:
    doubles.append(lambda v=v: v * 2.0)
with tf.GradientTape() as tape:
    y = doubles[0]()
result = tape.gradient(y, a)
""", False, "unconnected guard"),
    "connected_by_exec": _p("""
w = tf.Variable(1.0)
b = tf.Variable(2.0)
y = w * 3.0
with tf.GradientTape() as tape:
    exec("y = b * 3.0")
result = tape.gradient(y, b)
""", False, "unconnected guard"),
    "unconnected_asks_for_zeros_by_splat": _p("""
w = tf.Variable(1.0)
b = tf.Variable(2.0)
options = {"unconnected_gradients": tf.UnconnectedGradients.ZERO}
with tf.GradientTape() as tape:
    y = w * 3.0
result = tape.gradient(y, b, **options)
""", False, "unconnected zeros"),
    # ---- GT004's message: a float variable times integer data raises, so the data it meets must be made float too
    "int_variable_made_float_alone": _p("""
w = tf.Variable(2.0)
b = tf.Variable(1.0)
x = tf.constant(3)
with tf.GradientTape() as tape:
    y = w * x + b
result = tape.gradient(y, [w, b])
""", True, "gt004 message"),
    "int_variable_and_its_data_made_float": _p("""
w = tf.Variable(2.0)
b = tf.Variable(1.0)
x = tf.constant(3.0)
with tf.GradientTape() as tape:
    y = w * x + b
result = tape.gradient(y, [w, b])
""", False, "gt004 message"),
    # ---- more calls followed (issue 22's "at least half"): a model class from a module the linter cannot see, and
    # model.losses. `nets` stands for the project's own module (models.py): made here so the program runs alone.
    "unseen_class_model_inside_block": _p(_NETS + """
from nets import Regressor

model = Regressor()
x = tf.ones((2, 3))
with tf.GradientTape() as tape:
    pred = model(x)
    loss = tf.reduce_mean(pred ** 2)
result = tape.gradient(loss, model.trainable_variables)
""", False, "followed more"),
    "unseen_class_model_before_block": _p(_NETS + """
from nets import Regressor

model = Regressor()
x = tf.ones((2, 3))
pred = model(x)  # <- GT007
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(pred ** 2)
result = tape.gradient(loss, model.trainable_variables)
""", True, "followed more"),
    "regularization_losses_inside_block": _p("""
model = tf.keras.Sequential([tf.keras.layers.Dense(1, kernel_regularizer="l2")])
x = tf.ones((2, 3))
with tf.GradientTape() as tape:
    main = tf.reduce_mean(model(x) ** 2)
    loss = tf.add_n([main] + model.losses)
result = tape.gradient(loss, model.trainable_variables)
""", False, "followed more"),
    "regularization_losses_after_block": _p("""
model = tf.keras.Sequential([tf.keras.layers.Dense(1, kernel_regularizer="l2")])
x = tf.ones((2, 3))
with tf.GradientTape() as tape:
    main = tf.reduce_mean(model(x) ** 2)
loss = tf.add_n([main] + model.losses)  # <- GT011
result = tape.gradient(loss, model.trainable_variables)
""", True, "followed more"),
    "branch_in_a_loop_inside_block": _p("""
x = tf.Variable(2.0)
with tf.GradientTape() as tape:
    out = x * 1.0
    for i in range(4):
        if i > 1:
            out = out * x
    loss = out * 2.0 if i > 2 else out
result = tape.gradient(loss, x)
""", False, "followed more"),
    "branch_in_a_loop_loss_after_block": _p("""
x = tf.Variable(2.0)
with tf.GradientTape() as tape:
    out = x * 1.0
    for i in range(4):
        if i > 1:
            out = out * x
loss = out * 2.0  # <- GT011
result = tape.gradient(loss, x)
""", True, "followed more"),
    # ---- values the linter cannot see into (issue 22's "at least half"): a factory's model, a parameter, an object
    # built on a variable. The call is checked when the target was recorded from the source; a rule fires only where
    # the path it reasons about is known; where the break is behind unseen code, silent and not checked.
    "unseen_factory_model_inside_block": _p(_LIB + """
from lib import make_model

model = make_model()
x = tf.ones((2, 3))
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(model(x) ** 2)
result = tape.gradient(loss, model.trainable_variables)
""", False, "unseen values"),
    "unseen_factory_model_before_block": _p(_LIB + """
from lib import make_model

model = make_model()
x = tf.ones((2, 3))
pred = model(x)
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(pred ** 2)
result = tape.gradient(loss, model.trainable_variables)
""", True, "unseen values"),
    "unseen_model_input_watched": _p(_LIB + """
from lib import make_model

model = make_model()
x = tf.ones((2, 3))
with tf.GradientTape() as tape:
    tape.watch(x)
    loss = tf.reduce_mean(model(x) ** 2)
result = tape.gradient(loss, x)
""", False, "unseen values"),
    "unseen_model_input_never_watched": _p(_LIB + """
from lib import make_model

model = make_model()
x = tf.ones((2, 3))
with tf.GradientTape() as tape:  # <- GT003
    loss = tf.reduce_mean(model(x) ** 2)
result = tape.gradient(loss, x)
""", True, "unseen values"),
    "unseen_object_on_a_trainable_variable": _p(_LIB + """
from lib import make_dist

scale = tf.Variable(2.0)
dist = make_dist(scale)
with tf.GradientTape() as tape:
    loss = dist.log_prob(0.5)
result = tape.gradient(loss, scale)
""", False, "unseen values"),
    "unseen_object_on_a_frozen_variable": _p(_LIB + """
from lib import make_dist

scale = tf.Variable(2.0, trainable=False)  # <- GT009
dist = make_dist(scale)
with tf.GradientTape() as tape:
    loss = dist.log_prob(0.5)
result = tape.gradient(loss, scale)
""", True, "unseen values"),
    "unseen_model_and_a_frozen_variable": _p(_LIB + """
from lib import make_model

model = make_model()
bias = tf.Variable(1.0, trainable=False)  # <- GT009
x = tf.ones((2, 3))
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(model(x) ** 2) + bias
result = tape.gradient(loss, [bias, model.trainable_variables])
""", True, "unseen values"),
    "parameters_model_and_its_net": _p(_LIB + """
from lib import namespace, make_model


def train(agent, x):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(agent.net(x) ** 2)
    return tape.gradient(loss, agent.net.trainable_variables)


result = train(namespace(net=make_model()), tf.ones((2, 3)))
""", False, "unseen values"),
    "parameters_loss_after_block": _p(_LIB + """
from lib import namespace, make_model


def train(agent, x):
    with tf.GradientTape() as tape:
        out = agent.net(x)
    loss = tf.reduce_mean(out ** 2)
    return tape.gradient(loss, agent.net.trainable_variables)


result = train(namespace(net=make_model()), tf.ones((2, 3)))
""", True, "unseen values"),
    "parameters_variables_apart": _p(_LIB + """
from lib import make_model, variables_of


def train(model, variables, x):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(model(x) ** 2)
    return tape.gradient(loss, variables)


model = make_model()
model.build((None, 3))
result = train(model, variables_of(model), tf.ones((2, 3)))
""", False, "unseen values"),
    "unseen_model_output_to_numpy": _p(_LIB + """
from lib import make_model

model = make_model()
x = tf.ones((2, 3))
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(model(x).numpy())
result = tape.gradient(loss, model.trainable_variables)
""", True, "unseen values"),
    "unseen_model_accessed_variables_not_watched": _p(_LIB + """
from lib import make_model

model = make_model()
x = tf.ones((2, 3))
with tf.GradientTape(watch_accessed_variables=False) as tape:
    loss = tf.reduce_mean(model(x) ** 2)
result = tape.gradient(loss, model.trainable_variables)
""", True, "unseen values"),
    "unseen_model_variables_watched": _p(_LIB + """
from lib import make_module

model = make_module()
x = tf.ones((2, 3))
with tf.GradientTape(watch_accessed_variables=False) as tape:
    tape.watch(model.trainable_variables)
    loss = tf.reduce_mean(model(x) ** 2)
result = tape.gradient(loss, model.trainable_variables)
""", False, "unseen values"),
    "tape_stored_on_an_unseen_object": _p(_LIB + """
from lib import namespace, square_watched

x = tf.constant(2.0)
holder = namespace()
with tf.GradientTape() as tape:
    holder.tape = tape
    y = square_watched(holder, x)
result = tape.gradient(y, x)
""", False, "unseen values"),
    "branch_connected_on_one_side": _p("""
x = tf.Variable(2.0)
with tf.GradientTape() as tape:
    if x.numpy() > 1.0:
        y = x * 3.0
    else:
        y = tf.constant(1.0)
result = tape.gradient(y, x)
""", False, "unconnected guard"),
    # ---- issue 37: minimize(lambda: self.loss), the loss computed before in a method: every gradient None
    "minimize_lambda_of_an_attribute": _p("""
class Trainer:
    def __init__(self):
        self.w = tf.Variable([0.5, -0.5])
        self.opt = tf.compat.v1.train.AdamOptimizer(0.1)

    def step(self):
        self.loss = tf.reduce_sum(tf.square(self.w - 1.0))
        self.opt.minimize(lambda: self.loss, var_list=[self.w])  # <- GT013
        return [self.w.read_value()]


result = Trainer().step()
""", True, "issue 37 minimize"),
    # ---- issue 37: minimize(lambda: loss) with a Keras optimizer (Keras 3 has no minimize: AttributeError)
    "minimize_lambda_keras": _p("""
w = tf.Variable([0.5, -0.5])
opt = tf.keras.optimizers.SGD(0.1)
loss = tf.reduce_sum(tf.square(w - 1.0))
opt.minimize(lambda: loss, var_list=[w])  # <- GT013
result = [w.read_value()]
""", True, "issue 37 minimize"),
    "connected_by_a_list_changed_out_of_sight": _p("""
import operator

x = tf.Variable(2.0)
parts = [tf.constant(1.0)]
with tf.GradientTape() as tape:
    operator.setitem(parts, 0, x * 3.0)
    y = parts[0] * 2.0
result = tape.gradient(y, x)
""", False, "unconnected guard"),
}
