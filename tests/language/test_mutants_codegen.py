"""The generated TensorFlow code, line by line (`make mutate` found parts of it unpinned: docs/mutation.md).

tests/language/test_codegen.py runs generated scripts in a fresh Python and compares their numbers with gradlib's; these
tests read the text itself, in milliseconds: each line the script must contain, in its place. Every expected
line here was checked by running the script (tests/language/test_codegen.py runs the same kinds of script).
"""

from __future__ import annotations

import inspect
import subprocess
import sys
import textwrap

import numpy as np

from gradlib import tensorflow_code
from gradlib._language._codegen import MAX_LITERAL_ELEMENTS, RESERVED, code_names
from gradlib._language._operations import clip, dot, matmul

TAIL = '''
# 1. One gradient per element: unstack INSIDE the tape (iterating y after the block gives zeros).
with tf.GradientTape(persistent=True) as tape:
    tape.watch(watched)
    y = f({params})
    y_elements = tf.unstack(tf.reshape(y, [-1]))
rows = [tape.gradient(y_i, watched, unconnected_gradients=tf.UnconnectedGradients.ZERO)
        for y_i in y_elements]
del tape

# 2. All at once, vectorized: the Jacobian, shape y.shape + x.shape for each watched x.
with tf.GradientTape() as tape:
    tape.watch(watched)
    y = f({params})
jacobian = tape.jacobian(y, watched, unconnected_gradients=tf.UnconnectedGradients.ZERO)

print("y:", y.numpy().tolist())
print("rows:", [[g.numpy().tolist() for g in row] for row in rows])
print("jacobian:", [j.numpy().tolist() for j in jacobian])'''


def source(function) -> str:
    """A helper as the script copies it: its own source, dedented, then a blank line."""
    return textwrap.dedent(inspect.getsource(function)).strip("\n") + "\n\n"


def test_the_script_of_x_times_x_is_exactly_this():
    assert tensorflow_code("x * x", {"x": [1.0, 2.0]}) == (
        "import tensorflow as tf\n"
        "\n"
        "x = tf.constant([1.0, 2.0], dtype=tf.float32)\n"
        "watched = [x]\n"
        "\n"
        "def f(x):\n"
        "    return x * x\n" + TAIL.format(params="x"))


def test_mixed_dtypes_renamed_inputs_operators_and_slices_are_written_as_gradlib_computes_them():
    code = tensorflow_code("[-(a + 1) ** 2, +a * y[1], (y @ W)[0] / 3 - y[0:2][1]]",
                           {"a": 3, "y": [1.0, 2.0, 3.0], "W": np.arange(6.0).reshape(3, 2)},
                           watch=["a", "W"], dtype={"a": "int32", "y": "float64", "W": "float32"})
    assert code == (
        "import tensorflow as tf\n"
        "\n"
        "a = tf.constant(3, dtype=tf.int32)\n"
        "y_in = tf.constant([1.0, 2.0, 3.0], dtype=tf.float64)\n"
        "W = tf.cast(tf.constant([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]], dtype=tf.float32), tf.float64)"
        "  # float32, promoted: TensorFlow computes in one dtype\n"
        "# input 'y' is called y_in here: this script uses the name y itself\n"
        "watched = [a, W]\n"
        "\n" + source(matmul) +
        "def f(a, y_in, W):\n"
        "    a = tf.cast(a, tf.float64)  # integer tensors get no gradient\n"
        "    return tf.stack([-((a + 1.0) ** 2.0), (a) * y_in[1], ((matmul(y_in, W))[0] / 3.0) - y_in[0:2][1]])\n"
        + TAIL.format(params="a, y_in, W"))


def test_a_large_input_is_a_random_placeholder_and_each_helper_called_is_copied_once_in_order():
    n = MAX_LITERAL_ELEMENTS + 1
    code = tensorflow_code("clip(dot(v, 2), 0, 9007199254740993) - 9007199254740992 + 4", {"v": np.ones(n)})
    assert code == (
        "import tensorflow as tf\n"
        "\n"
        f"v = tf.random.normal([{n}], dtype=tf.float32)  # your {n} values here\n"
        "watched = [v]\n"
        "\n" + source(matmul) + source(dot) + source(clip) +
        "def f(v):\n"
        # whole numbers below 2**53 are written as floats (TensorFlow will not add an int to a float tensor),
        # larger ones as they are: a float would round 2**53 + 1
        "    return (clip(dot(v, 2.0), 0.0, 9007199254740993) - 9007199254740992) + 4.0\n"
        + TAIL.format(params="v"))


def test_a_literal_input_is_written_up_to_the_limit_and_a_float32_input_in_float64_is_cast_with_its_values():
    at_limit = np.arange(MAX_LITERAL_ELEMENTS, dtype=float)
    code = tensorflow_code("v * w", {"v": at_limit, "w": 0.5}, dtype={"v": "float32", "w": "float64"})
    assert f"v = tf.cast(tf.constant({at_limit.tolist()!r}, dtype=tf.float32), tf.float64)  # float32, promoted: " \
           "TensorFlow computes in one dtype\n" in code
    assert "w = tf.constant(0.5, dtype=tf.float64)\n" in code
    over = tensorflow_code("v * w", {"v": np.append(at_limit, 1.0), "w": 0.5}, dtype={"v": "float32", "w": "float64"})
    assert (f"v = tf.cast(tf.random.normal([{MAX_LITERAL_ELEMENTS + 1}], dtype=tf.float32), tf.float64)  "
            f"# your {MAX_LITERAL_ELEMENTS + 1} values here; float32, promoted: TensorFlow computes in one dtype\n"
            ) in over


def test_an_integer_input_keeps_its_integer_values_and_a_float_input_its_float_ones():
    code = tensorflow_code("n * x", {"n": [2, 3], "x": [1.5, 2.0]}, watch=["x"], dtype={"n": "int64"})
    assert "n = tf.constant([2, 3], dtype=tf.int64)\n" in code
    assert "x = tf.constant([1.5, 2.0], dtype=tf.float32)\n" in code
    assert "    n = tf.cast(n, tf.float32)  # integer tensors get no gradient\n" in code
    assert "watched = [x]\n" in code


def test_every_input_named_like_the_scripts_own_variables_gets_a_free_name():
    code = tensorflow_code("y * tape + f", {"y": 1.0, "tape": 2.0, "f": 0.5, "y_in": 3.0})
    assert code.splitlines()[2:13] == [
        "y_in2 = tf.constant(1.0, dtype=tf.float32)",
        "tape_in = tf.constant(2.0, dtype=tf.float32)",
        "f_in = tf.constant(0.5, dtype=tf.float32)",
        "y_in = tf.constant(3.0, dtype=tf.float32)",
        "# input 'y' is called y_in2 here: this script uses the name y itself",
        "# input 'tape' is called tape_in here: this script uses the name tape itself",
        "# input 'f' is called f_in here: this script uses the name f itself",
        "watched = [y_in2, tape_in, f_in, y_in]",
        "",
        "def f(y_in2, tape_in, f_in, y_in):",
        "    return (y_in2 * tape_in) + f_in",
    ]


def test_code_names_keeps_free_names_and_numbers_the_renamed_ones_from_2():
    assert code_names(["x", "w"]) == {"x": "x", "w": "w"}
    assert code_names(["g", "g_in", "g_in2"]) == {"g": "g_in3", "g_in": "g_in", "g_in2": "g_in2"}
    assert code_names(["row"]) == {"row": "row_in"}
    assert {name: code_names([name])[name] for name in sorted(RESERVED)} == {
        name: f"{name}_in" for name in sorted(RESERVED)}


def test_dot_with_a_number_written_in_the_text_runs_in_the_generated_code(tmp_path):
    # Found writing these tests: the script writes a number as a Python float, which has no .shape, and the dot
    # helper read a.shape.rank to tell a scalar, so dot(2, x) crashed the script while gradlib computed it.
    code = tensorflow_code("dot(2, x) + dot(x, 3)", {"x": [1.0, 3.0]})
    assert "    return dot(2.0, x) + dot(x, 3.0)\n" in code
    script = tmp_path / "generated.py"
    script.write_text(code)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "y: [5.0, 15.0]\n" in done.stdout
    assert "jacobian: [[[5.0, 0.0], [0.0, 5.0]]]\n" in done.stdout


def test_whole_numbers_up_to_2_to_the_53_are_written_as_floats_so_a_list_of_them_is_a_float_tensor():
    # tf.stack([200, 300]) would be an int32 tensor, and int32 * float32 is a TypeError in TensorFlow
    code = tensorflow_code("[200, 300] * x + 9007199254740991", {"x": [1.0, 2.0]})
    assert "    return (tf.stack([200.0, 300.0]) * x) + 9007199254740991.0\n" in code
