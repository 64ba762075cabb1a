"""The TensorFlow code gradlib writes for a function runs as is and gives gradlib's numbers."""

from __future__ import annotations

import ast
import subprocess
import sys

import numpy as np
import pytest
from fresh_tf import run
from generated_code import assert_script_matches

import gradlib

CASES = {
    "seed": ("[x0*x1*x2, x0*x1*x2*x0]", {"x0": 3.0, "x1": 4.0, "x2": 5.0}, None, "float32"),
    "matmul, dot, slices, reductions": (
        "tanh(W @ x + b)[0:2] * -sum(x, axis=0) + x[1] ** 2 + dot(x, x)",
        {"W": [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], "x": [0.1, 0.2], "b": [1.0, 2.0, 3.0]}, ["x"], "float64"),
}


PRECEDENCE = {
    "a / (b * c) - -(a + b) ** 2": lambda a, b, c, s: a / (b * c) - -((a + b) ** 2),
    "(a - s) * (a + s)": lambda a, b, c, s: (a - s) * (a + s),
    "-a ** 2 + (-a) ** 3 * s": lambda a, b, c, s: -(a ** 2) + ((-a) ** 3) * s,
    "2 ** a ** 2 - (2 ** a) ** 2": lambda a, b, c, s: 2 ** (a ** 2) - (2 ** a) ** 2,
    "a ** -b + a ** (-b * c)": lambda a, b, c, s: a ** (-b) + a ** (-b * c),
    "a - (b - c) - (a - b) - c": lambda a, b, c, s: a - (b - c) - (a - b) - c,
    "a / b / c + a / (b / c)": lambda a, b, c, s: a / b / c + a / (b / c),
    "-(a + b)[0:2] * (a - b)[::1]": lambda a, b, c, s: -(a + b) * (a - b),
    "+a - -b * -c": lambda a, b, c, s: a - (-b * -c),
}
PRECEDENCE_INPUTS = {"a": [0.5, 1.5], "b": [2.0, -1.0], "c": 0.75, "s": 0.25}


def _run(code: str, tmp_path) -> dict[str, list]:
    """What the script prints, run as in a fresh interpreter (tests/fresh_tf.py: a child of a fork server that
    imported TensorFlow, ~0.5 s instead of ~5 s)."""
    script = tmp_path / "generated.py"
    script.write_text(code)
    done = run([sys.executable, str(script)], timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    printed = {}
    for line in done.stdout.splitlines():
        key, _, value = line.partition(": ")
        printed[key] = ast.literal_eval(value)
    return printed


@pytest.mark.parametrize("outputs, inputs, watch, dtype", CASES.values(), ids=CASES.keys())
def test_generated_code_runs_and_matches_gradlib(outputs, inputs, watch, dtype, tmp_path):
    result = gradlib.evaluate(outputs, inputs, watch=watch, dtype=dtype)
    printed = _run(gradlib.tensorflow_code(outputs, inputs, watch=watch, dtype=dtype), tmp_path)
    np.testing.assert_allclose(printed["y"], result.y, rtol=1e-6)
    rows = np.array([np.concatenate([np.ravel(g) for g in row]) for row in printed["rows"]])
    np.testing.assert_allclose(rows, result.jacobian, rtol=1e-5, atol=1e-6)
    # tape.jacobian gives one array per watched input, shaped y.shape + x.shape
    m = result.y.size
    jacobian = np.concatenate([np.reshape(j, (m, -1)) for j in printed["jacobian"]], axis=1)
    np.testing.assert_allclose(jacobian, result.jacobian, rtol=1e-5, atol=1e-6)


def test_generated_code_uses_the_matmul_gradlib_runs():
    code = gradlib.tensorflow_code("W @ x", {"W": [[1.0, 2.0]], "x": [3.0, 4.0]})
    assert "def matmul(a, b):" in code and "tf.linalg.matvec(a, b)" in code
    assert "matmul(W, x)" in code


def test_mixed_dtypes_code_declares_each_input_as_the_table_does_and_prints_gradlibs_exact_numbers(tmp_path):
    inputs, dtype = {"x0": 0.1, "x1": [0.1, 0.3], "n": 3}, {"x0": "float64", "n": "int32"}
    code = gradlib.tensorflow_code("x0 * x1 * n", inputs, dtype=dtype)
    assert "x0 = tf.constant(0.1, dtype=tf.float64)\n" in code
    assert ("x1 = tf.cast(tf.constant([0.10000000149011612, 0.30000001192092896], dtype=tf.float32), tf.float64)"
            "  # float32, promoted: TensorFlow computes in one dtype") in code
    assert "n = tf.constant(3, dtype=tf.int32)" in code
    result = gradlib.evaluate("x0 * x1 * n", inputs, dtype=dtype, method="jacobian")
    printed = _run(code, tmp_path)
    # to float64 rounding: the same float32 values, promoted the same way (unrounded 0.3 would differ by 4e-8)
    np.testing.assert_allclose(printed["y"], result.y, rtol=1e-15, atol=0)
    jacobian = np.concatenate([np.reshape(j, (2, -1)) for j in printed["jacobian"]], axis=1)
    np.testing.assert_allclose(jacobian, result.jacobian, rtol=1e-15, atol=0)


SCRIPT_NAMES = ["y", "tf", "watched", "f", "tape", "rows", "print", "y_elements", "y_i", "jacobian", "g"]


def test_inputs_named_like_the_script_s_own_variables_are_renamed_and_right(tmp_path):
    # Before: an input named y printed zeros (the second tape re-read y after y = f(...)), and tf, watched, f,
    # tape, rows, print or y_elements crashed the script. One script holds them all (and y_in, the first name
    # a renamed y would take), so a single TensorFlow start checks every one.
    inputs = {name: [1.0 + k, -0.5 * k] for k, name in enumerate(SCRIPT_NAMES)} | {"y_in": 3.0}
    outputs = "[" + ", ".join(f"{a} * {b} * y_in" for a, b in zip(SCRIPT_NAMES, SCRIPT_NAMES[1:] + ["y"])) + "]"
    result = gradlib.evaluate(outputs, inputs, dtype="float64")
    printed = _run(gradlib.tensorflow_code(outputs, inputs, dtype="float64"), tmp_path)
    np.testing.assert_allclose(printed["y"], result.y, rtol=1e-12)
    rows = np.array([np.concatenate([np.ravel(g) for g in row]) for row in printed["rows"]])
    np.testing.assert_allclose(rows, result.jacobian, rtol=1e-12)
    jacobian = np.concatenate([np.reshape(j, (result.y.size, -1)) for j in printed["jacobian"]], axis=1)
    np.testing.assert_allclose(jacobian, result.jacobian, rtol=1e-12)
    assert result.jacobian[0, 0] == 6.0   # d(y[0] * tf[0] * y_in) / d y[0] = 2 * 3: the y the old code zeroed


def test_a_renamed_input_is_said_in_the_script():
    code = gradlib.tensorflow_code("y * y_in", {"y": 2.0, "y_in": 3.0})
    assert "# input 'y' is called y_in2 here: this script uses the name y itself" in code
    assert "y_in2 = tf.constant(2.0, dtype=tf.float32)" in code and "return y_in2 * y_in" in code


def test_generated_code_keeps_precedence_unary_minus_and_powers(tmp_path):
    outputs = "[" + ", ".join(PRECEDENCE) + "]"
    inputs = PRECEDENCE_INPUTS
    result = gradlib.evaluate(outputs, inputs, dtype="float64")
    values = {name: np.asarray(value, dtype=np.float64) for name, value in inputs.items()}
    np.testing.assert_allclose(result.y, [f(**values) for f in PRECEDENCE.values()], rtol=1e-12)
    code = gradlib.tensorflow_code(outputs, inputs, dtype="float64")
    assert "(a - s) * (a + s)" in code and "-((a + b) ** 2.0)" in code and "-(a ** 2.0)" in code
    printed = _run(code, tmp_path)
    np.testing.assert_allclose(printed["y"], result.y, rtol=1e-12)
    m = result.y.size
    jacobian = np.concatenate([np.reshape(j, (m, -1)) for j in printed["jacobian"]], axis=1)
    np.testing.assert_allclose(jacobian, result.jacobian, rtol=1e-10, atol=1e-12)



SEED_CODE = """import tensorflow as tf

x0 = tf.constant(3.0, dtype=tf.float32)
x1 = tf.constant(4.0, dtype=tf.float32)
x2 = tf.constant(5.0, dtype=tf.float32)
watched = [x0, x1, x2]

def f(x0, x1, x2):
    return tf.stack([(x0 * x1) * x2, ((x0 * x1) * x2) * x0])

# 1. Per element: unstack INSIDE the tape (iterating y after the block gives zeros).
with tf.GradientTape(persistent=True) as tape:
    tape.watch(watched)
    y = f(x0, x1, x2)
    y_elements = tf.unstack(tf.reshape(y, [-1]))
rows = [tape.gradient(y_i, watched, unconnected_gradients=tf.UnconnectedGradients.ZERO)
        for y_i in y_elements]
del tape

# 2. All at once, vectorized: the Jacobian, shape y.shape + x.shape for each watched x.
with tf.GradientTape() as tape:
    tape.watch(watched)
    y = f(x0, x1, x2)
jacobian = tape.jacobian(y, watched, unconnected_gradients=tf.UnconnectedGradients.ZERO)

print("y:", y.numpy().tolist())
print("rows:", [[g.numpy().tolist() for g in row] for row in rows])
print("jacobian:", [j.numpy().tolist() for j in jacobian])"""


def test_the_code_for_the_seed_is_exactly_the_code_to_copy():
    assert gradlib.tensorflow_code("[x0*x1*x2, x0*x1*x2*x0]", {"x0": 3, "x1": 4, "x2": 5}) == SEED_CODE


def test_integer_inputs_large_inputs_and_matmul_are_written_as_they_run():
    inputs = {"W": [[1.0, 2.0]], "x": [3.0, 4.0], "n": 2, "big": np.ones(65)}
    code = gradlib.tensorflow_code("sum(W @ x, axis=0) + n * big[64]", inputs, dtype={"n": "int32"}, watch=["x", "n"])
    lines = code.splitlines()
    assert lines[2:8] == ["W = tf.constant([[1.0, 2.0]], dtype=tf.float32)",
                          "x = tf.constant([3.0, 4.0], dtype=tf.float32)",
                          "n = tf.constant(2, dtype=tf.int32)",
                          "big = tf.random.normal([65], dtype=tf.float32)  # your 65 values here",
                          "watched = [x, n]", ""]
    assert lines[8] == "def matmul(a, b):" and lines[16].startswith("    return tf.linalg.matmul(a, b)")
    body = lines[lines.index("def f(W, x, n, big):") + 1:][:2]
    assert body == ["    n = tf.cast(n, tf.float32)  # integer tensors get no gradient",
                    "    return tf.reduce_sum(matmul(W, x), axis=0) + (n * big[64])"]
    assert gradlib.tensorflow_code("x", {"x": np.ones(64)}).splitlines()[2].startswith("x = tf.constant([1.0, 1.0")


@pytest.mark.parametrize("outputs, body", [
    ("mean(x, 0) + prod(x)", "tf.reduce_mean(x, axis=0) + tf.reduce_prod(x)"),
    ("maximum(x, 0.5) - minimum(x, 2)", "tf.maximum(x, 0.5) - tf.minimum(x, 2.0)"),
    ("dot(x, 2 * x) + matmul(2 * x, x)", "dot(x, 2.0 * x) + matmul(2.0 * x, x)"),
    ("log(x) + sqrt(x) + relu(x) + softplus(x) + sigmoid(x)",
     "(((tf.math.log(x) + tf.sqrt(x)) + tf.nn.relu(x)) + tf.nn.softplus(x)) + tf.sigmoid(x)"),
    ("x[::2] * 1e300 ** 2 + 10 ** 20", "(x[::2] * (1e+300 ** 2.0)) + (10.0 ** 20.0)"),
    ("x * 9007199254740993 + 1000", "(x * 9007199254740993) + 1000.0"),   # floats where exact, ints beyond
])
def test_each_function_is_written_with_its_tensorflow_name(outputs, body):
    code = gradlib.tensorflow_code(outputs, {"x": [1.0, 2.0]})
    assert f"    return {body}" in code.splitlines(), code


def test_inputs_are_written_as_typed_in_the_dtype_the_function_runs_in():
    code = gradlib.tensorflow_code("a * b", {"a": 0.1, "b": [2.5, 1e-3]}, dtype="float64")
    # the numbers appear as typed (0.1, not float32's 0.10000000149011612); mixed dtypes: see the test above
    assert code.splitlines()[2:4] == ["a = tf.constant(0.1, dtype=tf.float64)",
                                      "b = tf.constant([2.5, 0.001], dtype=tf.float64)"]


# ----------------------------------------------------------------------------------------------------
# Pins (joined from test_mutants_codegen.py)
# The generated TensorFlow code, line by line (`make mutate` found parts of it unpinned: docs/mutation.md).
#
# tests/language/test_codegen.py runs generated scripts in a fresh Python and compares their numbers with gradlib's; these
# tests read the text itself, in milliseconds: each line the script must contain, in its place. Every expected
# line here was checked by running the script (tests/language/test_codegen.py runs the same kinds of script).
# ----------------------------------------------------------------------------------------------------


import inspect
import subprocess
import sys
import textwrap

import numpy as np

from gradlib import tensorflow_code
from gradlib._language._codegen import MAX_LITERAL_ELEMENTS, CODE_NAMES, code_names
from gradlib._language._operations import clip, dot, matmul

TAIL = '''
# 1. Per element: unstack INSIDE the tape (iterating y after the block gives zeros).
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
    assert {name: code_names([name])[name] for name in sorted(CODE_NAMES)} == {
        name: f"{name}_in" for name in sorted(CODE_NAMES)}


def test_dot_with_a_number_written_in_the_text_runs_in_the_generated_code(tmp_path):
    # Found writing these tests: the script writes a number as a Python float, which has no .shape, and the dot
    # helper read a.shape.rank to tell a scalar, so dot(2, x) crashed the script while gradlib computed it.
    # Deliberately a real fresh interpreter (subprocess, not tests/fresh_tf.py): the script runs from a clean process.
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



def test_a_number_given_to_a_function_or_a_list_by_itself_is_float64_in_a_float64_script(tmp_path):
    # Hunt 59: written as a Python float, TensorFlow made tf.sqrt(2.0) float32, and the float64 script crashed on
    # 'cannot compute Mul as input #1(zero-based) was expected to be a float tensor but is a double tensor'
    outputs = "sqrt(2) * x + maximum(1, 2 * 3) * [exp(-0.5), x[0]][0] + sum([1, 2]) + where(x > 0, 1, x)"
    inputs = {"x": [1.0, -3.0]}
    code = tensorflow_code(outputs, inputs, dtype="float64")
    assert "tf.sqrt(tf.constant(2.0, dtype=tf.float64)) * x" in code
    assert "tf.constant(2.0 * 3.0, dtype=tf.float64)" in code and "tf.exp(tf.constant(-0.5, dtype=tf.float64))" in code
    result = gradlib.evaluate(outputs, inputs, dtype="float64")
    x = np.array([1.0, -3.0])
    np.testing.assert_allclose(result.y, np.sqrt(2) * x + 6 * np.exp(-0.5) + 3 + np.where(x > 0, 1, x), rtol=1e-12)
    assert_script_matches(code, result, tmp_path)
    assert "tf.sqrt(2.0) * x" in tensorflow_code(outputs, inputs)   # float32: TensorFlow's default, left as typed

def test_the_code_meets_the_limits_it_is_given():
    # one request, one limit set whichever door it takes (issue 24): a server's limits reach the code writer too
    big = {"x": np.ones(11, np.float32)}
    assert "tape" in gradlib.tensorflow_code("x * x", big)
    with pytest.raises(gradlib.ExpressionError, match="11"):
        gradlib.tensorflow_code("x * x", big, limits=gradlib.Limits(max_elements=10))


# ---------------------------------------------------------------- order=2: the Hessians, nested tapes


HESSIAN_CASES = {
    "seed": ("[x0*x1*x2, x0*x1*x2*x0]", {"x0": 3.0, "x1": 4.0, "x2": 5.0}, None, "float32"),
    # a matrix and a vector watched together, a constant (not watched) with an integer one, float64
    "matrix, vector, constants": ("tanh(W @ x) * c * n + [sum(x ** 3), x[0] * W[1, 0]]",
                                  {"W": [[0.3, -1.2], [0.8, 0.5]], "x": [0.4, -0.9], "c": 1.5, "n": 2},
                                  ["W", "x"], {"W": "float64", "x": "float64", "c": "float64", "n": "int32"}),
}


@pytest.mark.parametrize("outputs, inputs, watch, dtype", HESSIAN_CASES.values(), ids=HESSIAN_CASES.keys())
def test_the_order_2_script_runs_and_prints_gradlib_s_hessians(outputs, inputs, watch, dtype, tmp_path):
    result = gradlib.evaluate(outputs, inputs, watch=watch, dtype=dtype, order=2)
    printed = _run(gradlib.tensorflow_code(outputs, inputs, watch=watch, dtype=dtype, order=2), tmp_path)
    assert np.abs(result.hessian).max() > 1   # not a Hessian of zeros, which a wrong script would also print
    np.testing.assert_allclose(printed["y"], np.ravel(result.y), rtol=1e-6)
    np.testing.assert_allclose(printed["gradients"], result.jacobian, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(printed["hessian"], result.hessian, rtol=1e-6, atol=1e-6)
    if outputs.startswith("[x0"):
        assert printed["hessian"] == [[[0, 5, 4], [5, 0, 3], [4, 3, 0]], [[40, 30, 24], [30, 0, 9], [24, 9, 0]]]


def test_the_order_2_script_takes_the_inner_gradient_inside_the_outer_block_and_the_jacobian_after_it():
    lines = gradlib.tensorflow_code("x * x", {"x": [1.0, 2.0]}, order=2).splitlines()
    outer = lines.index("with tf.GradientTape() as outer:")
    assert lines[outer + 1] == "    outer.watch(watched)"   # watched by both tapes: by the inner only gives None
    assert lines[outer + 2] == "    with tf.GradientTape(persistent=True) as inner:"
    assert lines[outer + 3] == "        inner.watch(watched)"
    gradients = lines.index("    gradients = tf.stack([")   # indented: inside the outer block
    jacobian = next(k for k, line in enumerate(lines) if line.startswith("hessian = outer.jacobian(gradients"))
    assert outer < gradients < jacobian
    assert "inner.gradient(" in lines[gradients + 1]
    # the first-order script is unchanged by the option
    assert gradlib.tensorflow_code("x * x", {"x": [1.0, 2.0]}, order=1) == gradlib.tensorflow_code(
        "x * x", {"x": [1.0, 2.0]})


def test_the_order_2_script_refuses_other_orders_and_a_watched_integer():
    with pytest.raises(gradlib.ExpressionError, match=r"tensorflow_code got order=3; it writes order=1 .* order=2 "):
        gradlib.tensorflow_code("x * x", {"x": 1.0}, order=3)
    with pytest.raises(gradlib.ExpressionError, match=r"tensorflow_code got order=2.0; it writes order=1 "):
        gradlib.tensorflow_code("x * x", {"x": 1.0}, order=2.0)
    with pytest.raises(gradlib.ExpressionError, match=r"order=2\) cannot differentiate input 'n': it is int32"):
        gradlib.tensorflow_code("x * n", {"x": 1.0, "n": 2}, dtype={"x": "float32", "n": "int32"}, order=2)


def test_the_seed_s_script_fits_the_playground_s_code_box_on_a_laptop():
    """At 1366 px the playground's code box holds about 94 characters a line; the script's first comment had 97,
    and its end ('gives zeros)', the point of the comment) scrolled out of sight."""
    code = gradlib.tensorflow_code("[x0*x1*x2, x0*x1*x2*x0]", {"x0": 3.0, "x1": 4.0, "x2": 5.0})
    assert max(len(line) for line in code.splitlines()) <= 94, max(code.splitlines(), key=len)


def test_the_per_element_loop_is_offered_only_for_as_many_outputs_as_gradlib_would_loop_over(tmp_path):
    """The playground offered the unstack loop (one eager backward pass per element) for 400 outputs, which gradlib
    itself refuses as method 'unstack' (over max_eager_passes): the script now gives the vectorized Jacobian only,
    and says why. At the limit (256) the loop is still written; one past it, it is not."""
    limits = gradlib.Limits(max_eager_passes=256)
    at_limit = tensorflow_code("x*x", {"x": list(range(256))}, limits=limits)
    over = tensorflow_code("x*x", {"x": [float(i) for i in range(257)]}, limits=limits)
    assert "tf.unstack" in at_limit and "rows" in at_limit
    assert "tf.unstack" not in over and "rows" not in over and "tape.jacobian" in over
    assert "# y has 257 elements: one backward pass per element (unstack inside the tape) would run" in over
    with pytest.raises(gradlib.ExpressionError, match="method 'unstack' runs one eager pass per output element: 257"):
        gradlib.evaluate("x*x", {"x": [float(i) for i in range(257)]}, method="unstack", limits=limits)
    script = tmp_path / "vectorized.py"
    script.write_text(over)
    done = run([sys.executable, str(script)], timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    printed = dict(line.partition(": ")[::2] for line in done.stdout.splitlines())
    jacobian, y = np.array(ast.literal_eval(printed["jacobian"])[0]), np.array(ast.literal_eval(printed["y"]))
    # x is a random placeholder (over MAX_LITERAL_ELEMENTS): d(x*x)/dx = 2x on the diagonal, so its square is 4y
    np.testing.assert_allclose(jacobian - np.diag(np.diag(jacobian)), 0.0)
    np.testing.assert_allclose(np.diag(jacobian) ** 2, 4 * y, rtol=1e-5)
