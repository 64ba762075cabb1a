"""`@`, `matmul` and `dot` for every rank pair the language accepts, values and Jacobians, against NumPy.

Inner dimension 3, outer dimensions 2 and 4 and batch dimensions 5 and 6: every size differs, so a transpose or a
swapped operand gives a wrong shape or wrong numbers. The Jacobian reference uses only that matmul is bilinear:
column j of d(a @ b)/da is np.matmul(e_j, b) for the unit tensor e_j, computed with NumPy.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from gradlib import ExpressionError, evaluate

RNG = np.random.default_rng(7)
#: operand shapes by rank: the left operand is (..., 2, 3), the right one (..., 3, 4)
LEFT = {1: (3,), 2: (2, 3), 3: (5, 2, 3), 4: (6, 5, 2, 3)}
RIGHT = {1: (3,), 2: (3, 4), 3: (5, 3, 4), 4: (6, 5, 3, 4)}
#: batch dimensions that broadcast against each other (1 against 5 and 6, a missing one against 6)
BROADCAST = [((1, 2, 3), (5, 3, 4)), ((6, 1, 2, 3), (5, 3, 4)), ((5, 2, 3), (6, 1, 3, 4)), ((3,), (6, 5, 3, 4)),
             ((6, 5, 2, 3), (3,)), ((1, 5, 2, 3), (6, 1, 3, 4))]
CASES = [(LEFT[ra], RIGHT[rb]) for ra, rb in itertools.product(range(1, 5), repeat=2)] + BROADCAST


def _values(shape: tuple[int, ...]) -> np.ndarray:
    return np.round(RNG.uniform(-2, 2, size=shape), 2)


def _bilinear_jacobian(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """d(a @ b) / d(a, b) as (outputs, a.size + b.size), from unit tensors: exact, since matmul is bilinear."""
    columns = []
    for operand, other, left in ((a, b, True), (b, a, False)):
        for j in range(operand.size):
            unit = np.zeros(operand.size)
            unit[j] = 1.0
            unit = unit.reshape(operand.shape)
            columns.append(np.ravel(np.matmul(unit, other) if left else np.matmul(other, unit)))
    return np.stack(columns, axis=1)


@pytest.mark.parametrize("spelling", ["a @ b", "matmul(a, b)"])
@pytest.mark.parametrize("left, right", CASES, ids=[f"{l}@{r}" for l, r in CASES])
def test_matmul_of_every_rank_pair_matches_numpy(left, right, spelling):
    a, b = _values(left), _values(right)
    expected = np.matmul(a, b)
    r = evaluate(spelling, {"a": a, "b": b}, dtype="float64")
    assert r.y.shape == expected.shape
    np.testing.assert_allclose(r.y, expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(r.jacobian, _bilinear_jacobian(a, b).reshape(max(expected.size, 1), -1),
                               rtol=1e-12, atol=1e-12)


def test_a_vector_times_a_stack_of_matrices_is_a_stack_of_row_vectors():
    # (3,) @ (2, 3, 4): the vector multiplies each of the two 3 x 4 matrices from the left, giving (2, 4)
    v = np.array([1.0, 2.0, 3.0])
    stack = np.arange(24.0).reshape(2, 3, 4)
    r = evaluate("v @ S", {"v": v, "S": stack}, watch=["v"], dtype="float64")
    np.testing.assert_array_equal(r.y, [[32.0, 38.0, 44.0, 50.0], [104.0, 110.0, 116.0, 122.0]])
    np.testing.assert_array_equal(r.y, v @ stack)
    # d y[i, j] / d v[k] = S[i, k, j]
    np.testing.assert_array_equal(r.gradients()["v"], np.transpose(stack, (0, 2, 1)))


@pytest.mark.parametrize("left, right", list(itertools.product(range(3), repeat=2)))
def test_dot_of_every_rank_pair_up_to_matrices_matches_numpy(left, right):
    shapes = {0: (), 1: (3,), 2: (3, 3)}
    a, b = _values(shapes[left]), _values(shapes[right])
    r = evaluate("dot(a, b)", {"a": a, "b": b}, dtype="float64")
    np.testing.assert_allclose(r.y, np.dot(a, b), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("text, shapes, message", [
    ("a @ b", ((), (3,)), r"@ needs vectors or matrices, not scalars \(shapes \(\) and \(3,\)\); use \* for scaling"),
    ("matmul(a, b)", ((3,), ()), r"matmul needs vectors or matrices, not scalars"),
    ("a @ b", ((2, 3), (4, 3)), r"@ cannot multiply shapes \(2, 3\) and \(4, 3\): 3 != 4"),
    ("a @ b", ((3,), (2,)), r"@ cannot multiply shapes \(3,\) and \(2,\): 3 != 2"),
    ("a @ b", ((5, 2, 3), (6, 3, 4)), r"shapes \(5,\) and \(6,\) cannot be broadcast together for '@'"),
    ("dot(a, b)", ((2, 2, 3), (3,)), r"dot supports scalars, vectors and matrices; use @ for stacks of matrices"),
])
def test_operands_matmul_cannot_take_are_refused_with_their_shapes(text, shapes, message):
    inputs = {"a": np.ones(shapes[0]), "b": np.ones(shapes[1])}
    with pytest.raises(ExpressionError, match=message):
        evaluate(text, inputs)
