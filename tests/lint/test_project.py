"""gradlib.lint reads a project as a whole (issue 37, item 1): imports between its own modules, base classes in
other modules, ``super().__init__`` and ``Base.__init__(self)``, tf.Module-style classes; never runs the code, and
what it cannot resolve stays "can't tell". Each finding's claim is checked by running the project under
TensorFlow, as in a fresh interpreter (tests/fresh_tf.py: a child of a fork server, one TensorFlow import for the
file's three runs, not one each)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from fresh_tf import run
from gradlib.lint import Project, lint

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "TF_CPP_MIN_LOG_LEVEL": "3"}

NETS = """
import tensorflow as tf


class Critic(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = tf.keras.layers.Dense(1)

    def call(self, x):
        return self.dense(x)
"""
UTILS = """
import numpy as np


def mean_loss(t):
    return np.mean(t.numpy())
"""
TRAIN = """
import tensorflow as tf
from .nets import Critic
from . import utils

critic = Critic()
x = tf.random.normal((4, 2))
with tf.GradientTape() as tape:
    loss = utils.mean_loss(critic(x))
grads = tape.gradient(loss, critic.trainable_variables)
"""


def _write(folder: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return folder


def _gan(tmp_path: Path) -> Path:
    return _write(tmp_path, {"gan/__init__.py": "", "gan/nets.py": NETS, "gan/utils.py": UTILS, "gan/train.py": TRAIN})


def test_a_helper_of_another_module_is_followed_and_its_line_named_by_file(tmp_path):
    root = _gan(tmp_path)
    source = (root / "gan" / "train.py").read_text()
    assert [f.rule for f in lint(source)] == []                     # alone: utils.mean_loss is code it cannot see
    found = lint(source, project=Project(root), path=str(root / "gan" / "train.py"))
    assert [(f.line, f.rule) for f in found] == [(9, "GT002")]
    message = found[0].message
    assert "raises AttributeError" in message and "the cause is on line 5 of gan/utils.py." in message
    assert "see the GT002 finding there" not in message and "100000" not in message
    assert found[0].fixed is None                                    # an edit of another file is not offered
    done = run([sys.executable, "-m", "gan.train"], cwd=root, timeout=300, env=ENV)
    assert done.returncode != 0 and "AttributeError: 'numpy.float32' object has no attribute '_id'" in done.stderr
    assert 'train.py", line 9' in done.stderr


DISC_BASE = """
import tensorflow as tf


class DiscriminatorBase(tf.keras.Model):
    def __init__(self, units):
        super().__init__()
        self.l1 = tf.keras.layers.Dense(units)

    def call(self, x):
        return self.l1(x)
"""
AGENT = """
import tensorflow as tf
from algos.base import DiscriminatorBase


class Discriminator(DiscriminatorBase):
    pass


class Agent:
    def __init__(self):
        self.disc = Discriminator(4)

    def train(self, states):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(self.disc(states))
        return tape.gradient(loss, self.disc.trainable_variables)

    def penalty(self, states):
        with tf.GradientTape() as tape:
            score = self.disc.predict(states, verbose=0)
            loss = tf.reduce_mean(score)
        return tape.gradient(loss, self.disc.trainable_variables)


if __name__ == "__main__":
    agent = Agent()
    print(agent.train(tf.ones((2, 3)))[0].shape)
    print(agent.penalty(tf.ones((2, 3))))
"""


def test_a_keras_base_class_in_another_module_makes_its_subclass_a_model(tmp_path):
    root = _write(tmp_path, {"algos/__init__.py": "", "algos/base.py": DISC_BASE, "algos/agent.py": AGENT})
    source = (root / "algos" / "agent.py").read_text()
    assert list(lint(source)) == []                  # alone: Discriminator's base, and so its predict, is unseen
    whole = lint(source, project=Project(root), path="algos/agent.py")
    assert (whole.calls, whole.checked) == (2, 2)
    assert [(f.line, f.rule) for f in whole] == [(20, "GT002"), (22, "GT002")]
    assert "predict" in whole[0].message and "is None" in whole[1].message
    done = run([sys.executable, "-m", "algos.agent"], cwd=root, timeout=300, env=ENV)
    assert done.stdout.split() == ["(3,", "4)", "[None,", "None]"], done.stdout + done.stderr[-2000:]


SUPER = """
import tensorflow as tf


class Base:
    def __init__(self):
        self.w = tf.Variable(2.0, trainable=False)


class Net(Base):
    def __init__(self):
        super().__init__()
        self.v = tf.Variable(3.0)


class Other(Base):
    def __init__(self):
        Base.__init__(self)


net, other = Net(), Other()
with tf.GradientTape(persistent=True) as tape:
    y = net.v * net.w
    z = other.w * 3.0
gw = tape.gradient(y, net.w)
gv = tape.gradient(z, other.w)
print(gw, gv)
"""


def test_super_init_and_base_init_set_the_attributes_the_subclass_reads(tmp_path):
    found = lint(SUPER)
    lines = SUPER.splitlines()
    at = [lines.index(text) + 1 for text in ("        self.w = tf.Variable(2.0, trainable=False)",
                                             "gw = tape.gradient(y, net.w)", "gv = tape.gradient(z, other.w)")]
    assert [(f.line, f.rule) for f in found] == [(at[0], "GT009"), (at[1], "GT009"), (at[2], "GT009")]
    assert all("None" in f.message for f in found)
    path = _write(tmp_path, {"prog.py": SUPER}) / "prog.py"
    done = run([sys.executable, str(path)], timeout=300, env=ENV)
    assert done.returncode == 0 and done.stdout.split() == ["None", "None"], done.stderr[-2000:]


MODULE = """
import tensorflow as tf


class Dense(tf.Module):
    def __init__(self, n):
        super().__init__()
        self.n = n

    def __call__(self, x):
        if not hasattr(self, "w"):
            self.w = make_weight(x.shape[-1], self.n)
        return x @ self.w


class MLP(tf.Module):
    def __init__(self):
        super().__init__()
        self.layers = [Dense(3), Dense(1)]

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


mlp = MLP()
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(mlp(tf.ones((2, 4))))
grads = tape.gradient(loss, mlp.trainable_variables)
"""


def test_a_tf_module_holds_the_variables_its_layers_make_where_the_linter_cannot_see():
    result = lint(MODULE)
    assert (result.calls, result.checked, list(result)) == (1, 1, [])


def test_the_command_reads_a_directory_as_one_project_a_script_beside_its_modules(tmp_path):
    root = _write(tmp_path, {"nets.py": NETS, "helpers.py": UTILS,
                             "train.py": TRAIN.replace("from .nets", "from nets").replace("from . import", "import")})
    done = subprocess.run([sys.executable, "-m", "gradlib.lint", "."], cwd=root, capture_output=True, text=True,
                          timeout=120, env=ENV)
    assert done.returncode == 0, done.stdout + done.stderr               # `import utils` is not helpers.py: unseen
    _write(root, {"utils.py": UTILS})
    done = subprocess.run([sys.executable, "-m", "gradlib.lint", "."], cwd=root, capture_output=True, text=True,
                          timeout=120, env=ENV)
    assert done.returncode == 1 and done.stdout.startswith("train.py:9:") and "line 5 of utils.py" in done.stdout


def test_an_import_cycle_and_a_module_that_does_not_parse_stay_unseen(tmp_path):
    root = _write(tmp_path, {"a.py": "from b import g\n\ndef f(x):\n    return g(x)\n",
                             "b.py": "from a import f\n\ndef g(x):\n    return f(x)\n",
                             "c.py": "def broken(:\n", "train.py": TRAIN.replace("from .nets import Critic",
                                                                                  "from a import f as Critic")
                             .replace("from . import utils", "import c as utils")})
    result = lint((root / "train.py").read_text(), project=Project(root), path="train.py")
    assert result.complete and list(result) == []


def test_a_relative_import_above_the_root_and_a_path_outside_it_are_not_read(tmp_path):
    project = Project(tmp_path / "inner", {"nets.py": NETS})
    assert project.resolve("nets.py", "nets", 2) is None
    assert project.resolve("train.py", "nets", 0) == "nets.py"


def _synthetic_project(folder: Path, modules: int = 25) -> int:
    """``modules`` modules of about 200 lines each: Keras classes importing each other, training steps with tapes."""
    lines = 0
    for k in range(modules):
        parts = ["import tensorflow as tf", f"from pkg.m{k - 1} import Net{k - 1}" if k else "", ""]
        for j in range(6):
            parts += [f"class Net{k}_{j}({f'Net{k - 1}' if k else 'tf.keras.Model'}):",
                      "    def __init__(self):", "        super().__init__()",
                      "        self.d = tf.keras.layers.Dense(2)", "", "    def call(self, x):",
                      "        return self.d(x) * 2.0", "",
                      "    def train_step(self, data):", "        x, y = data",
                      "        with tf.GradientTape() as tape:", "            pred = self(x)",
                      "            loss = tf.reduce_mean((pred - y) ** 2)",
                      "        grads = tape.gradient(loss, self.trainable_variables)",
                      "        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))",
                      "        return {'loss': loss}", "", ""]
        parts += [f"Net{k} = Net{k}_5", ""]
        parts += [f"def helper_{i}(x):\n    return tf.reduce_sum(x * {i}.0)\n" for i in range(20)]
        text = "\n".join(parts) + "\n"
        (folder / "pkg").mkdir(exist_ok=True)
        (folder / "pkg" / f"m{k}.py").write_text(text)
        lines += text.count("\n")
    (folder / "pkg" / "__init__.py").write_text("")
    return lines


@pytest.mark.parametrize("modules", [30])
def test_a_5000_line_project_directory_takes_under_10_seconds_and_loads_no_tensorflow(tmp_path, modules):
    lines = _synthetic_project(tmp_path, modules)
    assert lines >= 5_000
    probe = ("import sys, time\nstart = time.process_time()\nfrom gradlib.lint.__main__ import main\n"
             "status = main(['-q', 'pkg'])\nheavy = [m for m in ('tensorflow', 'keras', 'numpy') if m in sys.modules]\n"
             "print('RESULT', status, round(time.process_time() - start, 2), heavy)\n")
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env=ENV)
    wall = time.perf_counter() - start
    status, seconds, heavy = done.stdout.strip().splitlines()[-1].split(" ", 3)[1:]
    assert (status, heavy) == ("0", "[]"), done.stdout[-2000:] + done.stderr[-2000:]
    # The bound is the linter's CPU time (import included): on this shared 2-core machine wall time at load 12 was
    # 10.25 s for 2.5 s of CPU. Wall time stays bounded, as a guard against a hang.
    assert float(seconds) < 10 and wall < 60, (seconds, wall)


# What real training code needs followed (issue 37's measurement): each was "not checked" before.
COVERAGE = {
    "unpacked output of an unseen model": """
import tensorflow as tf


def step(generator, z):
    with tf.GradientTape() as tape:
        images, w = generator(z)
        loss = tf.reduce_mean(images)
    return tape.gradient(loss, generator.trainable_variables)
""",
    "a watched tensor made from unseen values (gradient penalty)": """
import tensorflow as tf


def penalty(f, real, fake):
    alpha = tf.random.uniform([4, 1])
    x = real + alpha * (fake - real)
    with tf.GradientTape() as t:
        t.watch(x)
        pred = f(x)
    return t.gradient(pred, x)
""",
    "a loss bound on one branch only": """
import tensorflow as tf

log_alpha = tf.Variable(0.0)


def step(auto, log_probs):
    with tf.GradientTape() as tape:
        if auto:
            alpha_loss = -tf.reduce_mean(log_alpha * tf.stop_gradient(log_probs))
    if auto:
        return tape.gradient(alpha_loss, [log_alpha])
""",
    "variables a layer's build makes, read by its call": """
import tensorflow as tf


class Scale(tf.keras.layers.Layer):
    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1],), initializer="ones")
        self.b = self.add_weight(shape=(input_shape[-1],), initializer="zeros")

    def call(self, x):
        return x * self.w + self.b


layer = Scale()
x = tf.ones((2, 3))
with tf.GradientTape() as tape:
    y = tf.reduce_sum(layer(x))
grads = tape.gradient(y, [layer.w, layer.b])
""",
    "arguments before a starred one": """
import tensorflow as tf


def compute_loss(logger, agent, *args):
    return tf.reduce_mean(agent(*args))


def minimize(logger, agent, args):
    with tf.GradientTape() as tape:
        loss = compute_loss(logger, agent, *args)
    return tape.gradient(loss, agent.trainable_variables)
""",
}


@pytest.mark.parametrize("name", list(COVERAGE))
def test_real_code_patterns_are_followed(name):
    result = lint(COVERAGE[name])
    assert (result.calls, result.checked, list(result), result.complete) == (1, 1, [], True), result.not_checked


def test_a_folder_the_script_adds_to_sys_path_by_name_is_searched(tmp_path):
    script = AGENT.replace("from algos.base import DiscriminatorBase", "import sys\nsys.path.append('lib')\n"
                                                                       "from base import DiscriminatorBase")
    root = _write(tmp_path, {"lib/base.py": DISC_BASE, "scripts/agent.py": script})
    project = Project(root)
    assert project.resolve("scripts/agent.py", "base", 0) is None
    result = lint(script, project=project, path="scripts/agent.py")
    assert [f.rule for f in result] == ["GT002", "GT002"] and result.checked == 2
    unrelated = lint(script.replace("sys.path.append('lib')", "sys.path.append('elsewhere')"), project=project,
                     path="scripts/agent.py")
    assert list(unrelated) == []
