"""The TensorFlow code gradlib writes for a function runs as is and gives gradlib's numbers."""

from __future__ import annotations

import ast
import subprocess
import sys

import numpy as np
import pytest

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
    script = tmp_path / "generated.py"
    script.write_text(code)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
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

# 1. One gradient per element: unstack INSIDE the tape (iterating y after the block gives zeros).
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
