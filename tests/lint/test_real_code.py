"""gradlib.lint on small excerpts of public repositories (docs/lint.md lists the whole real-code corpus and its counts).

Each excerpt is a few lines cited by repository, path and commit, trimmed to what the finding is about (names
kept; bodies that do not matter left out). The teaching examples are real GradientTape mistakes that the authors
show on purpose: they must stay flagged on their line. The TF1 graph-mode excerpts are correct code on which a new
rule (GT013, a loss tensor passed to minimize, on the lintcore branch) gave false positives in the corpus run of
docs/lint.md: they must stay silent. Where GT013 (lintcore's commit 5e453fd) still fires, the test is
xfail(strict=True) while the rule exists, so it flips to a failure once the rule is fixed (then drop the mark); on a
branch without GT013 it runs as a plain test.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import sys
from pathlib import Path

import pytest

from gradlib.lint import RULES_BY_CODE, lint

# ageron/handson-ml2 @ 1e2115277b50f6c584cd668fa30e3af309a5b136,
# 12_custom_models_and_training_with_tensorflow.ipynb, code cells 173 and 176 (f from the cells before).
HANDSON_TWICE = """\
import tensorflow as tf
def f(w1, w2):
    return 3 * w1 ** 2 + 2 * w1 * w2
w1, w2 = tf.Variable(5.), tf.Variable(3.)
with tf.GradientTape() as tape:
    z = f(w1, w2)

dz_dw1 = tape.gradient(z, w1)
try:
    dz_dw2 = tape.gradient(z, w2)
except RuntimeError as ex:
    print(ex)
"""

HANDSON_CONSTANTS = """\
import tensorflow as tf
def f(w1, w2):
    return 3 * w1 ** 2 + 2 * w1 * w2
c1, c2 = tf.constant(5.), tf.constant(3.)
with tf.GradientTape() as tape:
    z = f(c1, c2)

gradients = tape.gradient(z, [c1, c2])
"""

# tensorflow/docs @ 7c3650212740204359d4ceae481abc79345541be, site/en/guide/autodiff.ipynb, code cell 27.
GUIDE_REBIND = """\
import tensorflow as tf
x = tf.Variable(2.0)

for epoch in range(2):
  with tf.GradientTape() as tape:
    y = x+1

  print(type(x).__name__, ":", tape.gradient(y, x))
  x = x + 1   # This should be `x.assign_add(1)`
"""

# tensorflow/docs @ 7c3650212740204359d4ceae481abc79345541be, site/en/guide/migrate/early_stopping.ipynb, code
# cell 3 (the same model_fn in migrating_estimator.ipynb, multi_worker_cpu_gpu_training.ipynb, tpu_estimator.ipynb):
# an Estimator runs model_fn in graph mode, where a tf1 optimizer's minimize(loss_tensor) is right.
ESTIMATOR_MODEL_FN = """\
import tensorflow as tf
import tensorflow.compat.v1 as tf1

def _model_fn(features, labels, mode):
  flatten = tf1.layers.Flatten()(features)
  features = tf1.layers.Dense(128, 'relu')(flatten)
  logits = tf1.layers.Dense(10)(features)

  loss = tf1.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
  optimizer = tf1.train.AdagradOptimizer(0.005)
  train_op = optimizer.minimize(loss, global_step=tf1.train.get_global_step())

  return tf1.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)
"""

# tensorflow/docs @ 7c3650212740204359d4ceae481abc79345541be, site/en/r1/guide/distribute_strategy.ipynb, code
# cells 15 and 17 (TensorFlow 1 guide: graph mode, minimize(loss) inside a strategy's step function is right).
R1_STEP_FN = """\
import tensorflow as tf

mirrored_strategy = tf.distribute.MirroredStrategy()
with mirrored_strategy.scope():
  model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(1,))])
  optimizer = tf.train.GradientDescentOptimizer(0.1)

def train_step(dist_inputs):
  def step_fn(inputs):
    features, labels = inputs
    logits = model(features)
    cross_entropy = tf.nn.softmax_cross_entropy_with_logits(
        logits=logits, labels=labels)
    loss = tf.reduce_sum(cross_entropy) * (1.0 / global_batch_size)
    train_op = optimizer.minimize(loss)
    with tf.control_dependencies([train_op]):
      return tf.identity(loss)

  per_replica_losses = mirrored_strategy.run(
      step_fn, args=(dist_inputs,))
  return per_replica_losses
"""

# tensorflow/graphics @ ad932c3e609ba77c74a61bd83880e730aaab4eeb,
# tensorflow_graphics/nn/layer/tests/graph_convolution_test.py lines 165-193 (trimmed): the graph-mode branch.
GRAPHICS_GRAPH_BRANCH = """\
import numpy as np
import tensorflow as tf

def test_training(gc_layer, data, neighbors):
    labels = np.reshape([-1.0, -0.5, 0.5, 1.0], (-1, 1))
    if tf.executing_eagerly():
      with tf.GradientTape(persistent=True) as tape:
        layer = gc_layer.FeatureSteeredConvolutionKerasLayer(num_output_channels=1)
        output = layer(inputs=[data, neighbors], sizes=None)
        loss = tf.nn.l2_loss(output - labels)
      grads = tape.gradient(loss, layer.trainable_variables)
    else:
      output = gc_layer.feature_steered_convolution_layer(data=data, neighbors=neighbors)
      train_op = tf.compat.v1.train.GradientDescentOptimizer(1e-4).minimize(
          tf.nn.l2_loss(output - labels))
      with tf.compat.v1.Session() as sess:
        sess.run(train_op)
"""


@pytest.mark.parametrize("source, expected", [
    (HANDSON_TWICE, {(5, "GT006"), (10, "GT006")}),
    (HANDSON_CONSTANTS, {(5, "GT003")}),
    (GUIDE_REBIND, {(9, "GT005")}),
], ids=["handson-ml2-twice", "handson-ml2-constants", "tf-docs-autodiff-rebind"])
def test_the_teaching_examples_are_flagged_on_their_lines(source, expected):
    assert expected <= {(f.line, f.rule) for f in lint(source)}


_GT013_FIRES = pytest.mark.xfail("GT013" in RULES_BY_CODE, strict=True,
                                 reason="GT013 flags minimize(loss_tensor) in TF1 graph-mode code (model_fn, step_fn)")


@pytest.mark.parametrize("source", [
    pytest.param(ESTIMATOR_MODEL_FN, id="tf-docs-estimator-model-fn"),
    pytest.param(R1_STEP_FN, id="tf-docs-r1-step-fn", marks=_GT013_FIRES),
    pytest.param(GRAPHICS_GRAPH_BRANCH, id="tf-graphics-graph-branch"),
])
def test_tf1_graph_mode_minimize_of_a_loss_tensor_is_not_flagged(source):
    assert lint(source) == []


def _corpus_script():
    path = Path(__file__).resolve().parents[2] / "scripts" / "lint_corpus.py"
    spec = importlib.util.spec_from_file_location("lint_corpus_script", path)   # tests/lint/lint_corpus is a folder
    script = sys.modules[spec.name] = importlib.util.module_from_spec(spec)     # its dataclass looks itself up
    spec.loader.exec_module(script)
    return script


def test_the_corpus_script_gives_one_reason_for_each_call_not_checked(tmp_path):
    """The reasons add up to the calls not checked: the corpus run counted 29 more reasons than calls (one-argument
    ``f.gradient(x)`` methods of an autodiff class counted by the linter only, a refused file's calls by the script
    only)."""
    head = "import tensorflow as tf\n"
    (tmp_path / "autodiff.py").write_text(head + (
        "x = tf.Variable(1.0)\nwith tf.GradientTape() as tape:\n    y = x * x\nprint(tape.gradient(y, x))\n"
        "class Const:\n    def gradient(self, var):\n        return 0.0\nprint(Const().gradient(x), Const().gradient(y))\n"))
    (tmp_path / "unseen.py").write_text(head + (
        "def step(model, loss_fn, x):\n    with tf.GradientTape() as tape:\n        loss = loss_fn(model(x)).numpy()\n"
        "    return tape.gradient(loss, model.trainable_variables)\n"))
    (tmp_path / "large.py").write_text(head + "# GradientTape\n" + "pad = 0\n" * 30_000 + (
        "with tf.GradientTape() as tape:\n    pass\ntape.gradient(1, 2)\ntape.jacobian(1, 2)\n"))
    repo = _corpus_script().lint_repo(tmp_path)
    assert (repo.files, repo.calls, repo.checked) == (3, 4, 1)
    assert sum(repo.not_checked.values()) == repo.calls - repo.checked == 3
    assert repo.not_checked["the file was not linted: gradlib.lint got _,_ characters; at most _,_ are che"] == 2


def test_the_corpus_script_reads_notebook_code_cells_line_for_line():
    notebook_code = _corpus_script().notebook_code
    cells = [{"cell_type": "markdown", "source": ["# title\n"]},
             {"cell_type": "code", "source": ["try:\n", "    %tensorflow_version 2.x\n", "except Exception:\n",
                                              "    pass\n", "print('%d'\n", "      % (1,))\n", "!pip install \\\n",
                                              "    foo\n"]},
             {"cell_type": "code", "source": "%%writefile x.py\n  import os\nx = 1"}]
    code, where = notebook_code(json.dumps({"cells": cells}))
    lines = code.splitlines()
    assert lines[1] == "    pass  # %tensorflow_version 2.x" and lines[5] == "      % (1,))"
    assert lines[6] == "pass  # !pip install \\" and lines[7] == "#     foo"
    assert lines[9:12] == ["# %%writefile x.py", "#   import os", "# x = 1"]
    assert where[1] == (1, 2) and where[10] == (2, 2)
    ast.parse(code)
