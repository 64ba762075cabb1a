"""Ordinary rewrites of corpus snippets: the same mistake with other names, another NumPy reduction, the call split
over lines, the step moved into a helper. Each must get the rule its corpus snippet gets, with the same claim about
what TensorFlow does (test_variants.py), and TensorFlow must agree (test_outcomes.py runs them with the corpus).

``VARIANTS`` maps a name to (the corpus snippet it rewrites, relative to lint_corpus/, the rewritten source). A
variant marks the line its finding belongs on with ``# <- GTnnn``, as the corpus does.
"""

from __future__ import annotations

__all__ = ["VARIANTS"]

_NP = "import numpy as np\nimport tensorflow as tf\n\n"
_TF = "import tensorflow as tf\n\n"

VARIANTS = {
    # ---- a NumPy value as the target: AttributeError
    "np_target_renamed": ("broken/np_mean_target.py", _NP + """
weights = tf.Variable([0.5, -1.5, 2.0])
with tf.GradientTape() as recorder:
    scores = weights * weights
result = recorder.gradient(np.mean(scores), weights)  # <- GT002
"""),
    "np_target_sum": ("broken/np_mean_target.py", _NP + """
x = tf.Variable([1.0, 2.0])
with tf.GradientTape() as tape:
    y = x * 3.0
result = tape.gradient(np.sum(y), x)  # <- GT002
"""),
    "np_target_max": ("broken/np_mean_target.py", _NP + """
x = tf.Variable([1.0, 2.0])
with tf.GradientTape() as tape:
    y = x * 3.0
result = tape.gradient(np.max(y), x)  # <- GT002
"""),
    "np_target_split_over_lines": ("broken/np_mean_target.py", _NP + """
x = tf.Variable([1.0, 2.0])
with tf.GradientTape() as tape:
    y = x * 3.0
result = tape.gradient(
    np.mean(y),  # <- GT002
    x,
)
"""),
    "np_target_from_a_helper": ("broken/np_mean_target.py", _NP + """
def summary(values):
    return np.mean(values)  # <- GT002


x = tf.Variable([1.0, 2.0])
with tf.GradientTape() as tape:
    y = x * 3.0
    loss = summary(y)
result = tape.gradient(loss, x)
"""),
    "numpy_loss_in_two_steps": ("broken/np_mean_target.py", _NP + """
x = tf.Variable([1.0, 2.0])
with tf.GradientTape() as tape:
    y = x * 3.0
    values = y.numpy()  # <- GT002
    loss = values.mean() * 2.0
result = tape.gradient(loss, x)
"""),
    # ---- the NumPy value wrapped back into a tensor: None (zeros when asked), never an error
    "wrapped_renamed": ("broken/np_mean_wrapped.py", _NP + """
theta = tf.Variable([0.25, 4.0])
with tf.GradientTape() as g:
    pred = theta * 3.0
    objective = tf.constant(np.mean(pred))  # <- GT002
result = g.gradient(objective, theta)
"""),
    "wrapped_sum": ("broken/np_mean_wrapped.py", _NP + """
x = tf.Variable([1.0, 2.0])
with tf.GradientTape() as tape:
    y = x * 3.0
    loss = tf.convert_to_tensor(np.sum(y))  # <- GT002
result = tape.gradient(loss, x)
"""),
    "wrapped_split_over_lines": ("broken/np_mean_wrapped.py", _NP + """
x = tf.Variable([1.0, 2.0])
with tf.GradientTape() as tape:
    y = x * 3.0
    loss = tf.constant(
        np.mean(y)  # <- GT002
    )
result = tape.gradient(
    loss,
    x,
)
"""),
    "wrapped_in_a_helper": ("broken/np_mean_wrapped.py", _NP + """
def mean_of(values):
    return tf.constant(np.mean(values))  # <- GT002


x = tf.Variable([1.0, 2.0])
with tf.GradientTape() as tape:
    y = x * 3.0
    loss = mean_of(y)
result = tape.gradient(loss, x)
"""),
    "wrapped_zeros_renamed": ("broken/np_mean_wrapped_zeros.py", _NP + """
bias = tf.Variable([1.0, 2.0])
with tf.GradientTape() as t:
    out = bias * 3.0
    cost = tf.convert_to_tensor(np.median(out))  # <- GT002
result = t.gradient(cost, bias, unconnected_gradients="zero")
"""),
    # ---- a Python number as the target: TypeError or AttributeError (the value decides)
    "float_renamed": ("broken/float_loss.py", _TF + """
scale = tf.Variable(5.0)
with tf.GradientTape() as tp:
    energy = float(scale * scale + 11.0)  # <- GT002
result = tp.gradient(energy, scale)
"""),
    "int_instead_of_float": ("broken/float_loss.py", _TF + """
w = tf.Variable(2.0)
with tf.GradientTape() as tape:
    loss = int(w * w + 1.0)  # <- GT002
result = tape.gradient(loss, w)
"""),
    "item_of_numpy_split": ("broken/float_loss.py", _TF + """
w = tf.Variable(2.0)
with tf.GradientTape() as tape:
    loss = (w * w + 77.0).numpy(  # <- GT002
    ).item()
result = tape.gradient(loss, w)
"""),
    # ---- never watched: None
    "unwatched_renamed": ("broken/constant_unwatched.py", _TF + """
inputs = tf.constant([1.0, -2.0])
with tf.GradientTape() as rec:  # <- GT003
    outputs = tf.reduce_sum(inputs ** 3)
result = rec.gradient(outputs, inputs)
"""),
    "unwatched_in_a_helper": ("broken/constant_unwatched.py", _TF + """
def cube(t):
    return tf.reduce_sum(t ** 3)


inputs = tf.constant([1.0, -2.0])
with tf.GradientTape() as rec:  # <- GT003
    outputs = cube(inputs)
result = rec.gradient(outputs, inputs)
"""),
    # ---- a non-persistent tape asked twice: RuntimeError
    "twice_renamed_split": ("broken/twice.py", _TF + """
kernel = tf.Variable(0.5)
with tf.GradientTape() as gt:  # <- GT006
    first = kernel * kernel
    second = first * kernel
d_first = gt.gradient(first, kernel)
d_second = gt.gradient(
    second,
    kernel,
)
result = [d_first, d_second]
"""),
    # ---- the target computed after the block: None
    "after_the_block_mean_split": ("broken/reduce_after.py", _TF + """
x = tf.Variable([1.0, 2.0])
with tf.GradientTape() as tape:
    y = x * x
loss = tf.reduce_mean(  # <- GT011
    y)
result = tape.gradient(loss, x)
"""),
    # ---- computed before the block: None
    "before_the_block_in_a_helper": ("broken/before_block.py", _TF + """
def square(v):
    return v * v


x = tf.Variable(3.0)
y = square(x)  # <- GT007
with tf.GradientTape() as tape:
    loss = y
result = tape.gradient(loss, x)
"""),
    # ---- iterated after the block, the call asking for zeros: zeros
    "seed_renamed_split": ("broken/seed_comprehension.py", _TF + """
a = [tf.constant(1.0), tf.constant(2.0)]
with tf.GradientTape(persistent=True) as tape:
    tape.watch(a)
    stacked = tf.stack([a[0] * a[1], a[0] + a[1]])
result = [
    tape.gradient(row, a, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    for row in stacked  # <- GT001
]
"""),
}
