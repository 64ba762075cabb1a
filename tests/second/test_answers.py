"""What second order hands back and says, as plain data: each result's frame holds every entry under its labels,
each kind of cell is named as a reader finds it, and the warnings about NaN cells and zero curvature say what
happened (gradlib._second._answers, ._poisoning, ._curvature; no TensorFlow runs here).

The frames are read back into arrays through their labels, so a frame that paired a value with the wrong label
(a transposed Hessian, a diagonal of another output) differs from the array it came from.
"""

from __future__ import annotations

import numpy as np
import pytest

from gradlib._second._answers import (DivergenceResult, HessianResult, HvpResult, LaplacianResult, PerSampleHessians,
                                      labels)
from gradlib._second._curvature import nonfinite_warnings, piecewise_warning
from gradlib._second._poisoning import SHOWN, Poisoning, cell_label, poisoned_mask, poisoning_warnings

RNG = np.random.default_rng(38)


def test_labels_are_each_element_in_c_order_by_its_indices():
    assert labels("s", ()) == ("s",)
    assert labels("v", (3,)) == ("v[0]", "v[1]", "v[2]")
    assert labels("T", (2, 1, 2)) == ("T[0,0,0]", "T[0,0,1]", "T[1,0,0]", "T[1,0,1]")
    assert len(labels("big", (4, 5))) == 20 and labels("big", (4, 5))[7] == "big[1,2]"


def test_a_hessian_frame_holds_every_entry_under_its_output_and_both_inputs():
    hessian = RNG.normal(size=(2, 3, 3))   # not symmetric: input_i and input_j must not be swapped
    r = HessianResult(y=np.zeros(2), jacobian=np.zeros((2, 3)), hessian=hessian, method="loop",
                      row_labels=("p", "q"), col_labels=("a", "b", "c"))
    frame = r.to_frame()
    assert list(frame.columns) == ["output", "input_i", "input_j", "value"] and len(frame) == 18
    back = np.zeros_like(hessian)
    for row in frame.itertuples():
        back[r.row_labels.index(row.output), r.col_labels.index(row.input_i), r.col_labels.index(row.input_j)] = \
            row.value
    np.testing.assert_array_equal(back, hessian)


def test_a_per_sample_frame_holds_each_sample_s_diagonal_under_its_output_and_input():
    diagonal = RNG.normal(size=(3, 2, 4))
    r = PerSampleHessians(y=np.zeros((3, 2)), jacobian=np.zeros((3, 2, 4)), hessians=None, diagonal=diagonal,
                          method="forward_laplacian", row_labels=("u", "v"), col_labels=("w", "x", "y", "z"))
    frame = r.to_frame()
    assert list(frame.columns) == ["sample", "output", "input", "value"] and len(frame) == 24
    back = np.zeros_like(diagonal)
    for row in frame.itertuples():
        back[row.sample, r.row_labels.index(row.output), r.col_labels.index(row.input)] = row.value
    np.testing.assert_array_equal(back, diagonal)


def test_laplacian_divergence_and_hvp_frames_hold_every_entry():
    lap = LaplacianResult(y=np.zeros((3, 2)), laplacian=RNG.normal(size=(3, 2)), standard_error=None, method="loop",
                          row_labels=("u", "v"))
    frame = lap.to_frame()
    assert frame["sample"].tolist() == [0, 0, 1, 1, 2, 2] and frame["output"].tolist() == ["u", "v"] * 3
    np.testing.assert_array_equal(frame.laplacian.to_numpy().reshape(3, 2), lap.laplacian)
    div = DivergenceResult(y=np.zeros((3, 2)), divergence=np.array([1.0, -2.0, 3.0]),
                           standard_error=np.array([0.1, 0.2, 0.3]), method="hutchinson", probes=8)
    assert div.to_frame().values.tolist() == [[0, 1.0, 0.1], [1, -2.0, 0.2], [2, 3.0, 0.3]]
    products = RNG.normal(size=(2, 3))
    hv = HvpResult(y=np.zeros(2), hvp=products, method="forward_over_reverse", row_labels=("p", "q"),
                   col_labels=("a", "b", "c"))
    back = np.zeros_like(products)
    for row in hv.to_frame().itertuples():
        back[hv.row_labels.index(row.output), hv.col_labels.index(row.input)] = row.value
    np.testing.assert_array_equal(back, products)


def test_results_are_plain_data_with_empty_cells_by_default():
    r = HessianResult(y=np.zeros(1), jacobian=np.zeros((1, 1)), hessian=np.zeros((1, 1, 1)), method="loop",
                      row_labels=("y",), col_labels=("x",))
    assert r.poisoned_cells.shape == (0, 3) and r.repaired_cells.shape == (0, 3) and r.warnings == ()
    with pytest.raises(AttributeError):
        r.method = "nested_tapes"   # frozen


# ---------------------------------------------------------------- cells named as a reader finds them


@pytest.mark.parametrize("kind, batch, cell, name", [
    ("hessian", True, (2, 1, 0, 2), "sample 2: y[1] at (a, c)"),
    ("hessian", False, (0, 0, 2, 1), "y[0] at (c, b)"),
    ("diagonal", True, (1, 0, 1), "sample 1: y[0] at (b, b)"),
    ("hvp", False, (0, 1, 2), "y[1] at c"),
    ("jacobian", True, (3, 1, 0), "sample 3: y[1] at a"),
    ("laplacian", True, (4, 1), "sample 4: y[1]"),
    ("divergence", True, (5,), "sample 5"),
])
def test_each_kind_of_cell_is_named_by_its_sample_output_and_inputs(kind, batch, cell, name):
    assert cell_label(kind, ("y[0]", "y[1]"), ("a", "b", "c"), batch)(cell) == name


def test_the_poisoned_cells_of_a_hessian_are_those_of_finite_samples_and_outputs():
    x = np.array([[0.0, 1.0], [np.nan, 1.0], [2.0, 3.0]])
    y = np.array([[1.0, 2.0], [1.0, 2.0], [np.inf, 2.0]])
    value = np.full((3, 2, 2, 2), np.nan)
    mask = poisoned_mask(x, y, value, "hessian")
    assert mask.shape == value.shape
    assert mask[0].all() and not mask[1].any()                  # sample 1's input is NaN: its NaN are its own
    assert not mask[2, 0].any() and mask[2, 1].all()            # output 0 of sample 2 is infinite, output 1 is not


# ---------------------------------------------------------------- the warnings about NaN cells


def _label(cell):
    return f"c{cell[0]}"


CAUSE = ("method 'loop' multiplies a zero derivative (a where() branch not taken, or another output's path) by one "
         "that is not finite there, and 0 x inf or 0 x NaN is NaN")


def test_no_poisoned_cell_no_warning():
    assert poisoning_warnings(Poisoning(), "the Laplacians", "loop", _label, True) == ()


def test_a_named_method_is_told_that_auto_repairs_such_cells():
    said = poisoning_warnings(Poisoning(np.array([[0], [2]])), "the Laplacians", "loop", _label, False)
    assert said == (f"NaN in 2 cell(s) (c0; c2) of the Laplacians, whose output is finite: {CAUSE}. method='auto' "
                    "recomputes such cells in forward over forward mode, which follows only the branch taken and each "
                    "output's own path",)


def test_auto_says_why_no_repair_ran():
    p = Poisoning(np.array([[1]]), why_not="fn defines its own gradient")
    assert poisoning_warnings(p, "the Laplacians", "loop", _label, True) == (
        f"NaN in 1 cell(s) (c1) of the Laplacians, whose output is finite: {CAUSE}; not repaired: fn defines its own "
        "gradient",)


def test_auto_names_the_cells_it_repaired_and_those_left_nan_apart():
    p = Poisoning(np.array([[0], [1], [2]]), repaired=np.array([[0], [2]]), ran=True)
    repaired, left = poisoning_warnings(p, "the Laplacians", "loop", _label, True)
    assert repaired.startswith(f"repaired NaN poisoning in 2 cell(s) (c0; c2) of the Laplacians: {CAUSE}; forward")
    assert left.startswith("NaN in 1 cell(s) (c1) of the Laplacians, whose output is finite, with loop: forward over "
                           "forward mode gives NaN there too")
    tried = Poisoning(np.array([[1]]), why_not="it failed", ran=True)
    assert poisoning_warnings(tried, "the Laplacians", "loop", _label, True)[0].endswith(
        "with loop: forward over forward mode was tried and it failed")


def test_many_cells_are_named_up_to_a_few_and_counted():
    cells = np.arange(SHOWN + 3)[:, None]
    said = poisoning_warnings(Poisoning(cells), "the Laplacians", "loop", _label, False)[0]
    shown = "; ".join(f"c{i}" for i in range(SHOWN))
    assert said.startswith(f"NaN in {SHOWN + 3:,} cell(s) ({shown}; and 3 more) of the Laplacians")


# ---------------------------------------------------------------- what a zero curvature or a non-finite batch says


def test_non_finite_inputs_are_named_before_non_finite_outputs():
    assert nonfinite_warnings(np.array([[np.inf]]), np.array([[np.nan]])) == (
        "x holds NaN or infinite values; the second derivatives there are not finite",)
    assert nonfinite_warnings(np.ones((1, 1)), np.array([[np.nan]])) == (
        "fn's output holds NaN or infinite values; its second derivatives there are not finite",)
    assert nonfinite_warnings(np.ones((1, 1)), np.ones((1, 1))) == ()


def test_piecewise_layers_are_named_even_when_other_layers_curve():
    acts = [("h", "relu"), ("t", "tanh"), ("o", "linear")]
    assert piecewise_warning(np.array([[0.3]]), acts, "the Laplacian") == (
        "layers 'h' are piecewise linear: their second derivative is 0 wherever it exists, so they add nothing to "
        "the Laplacian")
    assert piecewise_warning(np.array([[0.3]]), [("t", "tanh")], "the Laplacian") == ""
    # a zero from a model whose layers are all smooth (tanh at 0, say) blames no layer: fn, at these points
    assert piecewise_warning(np.zeros((1, 1)), [("t", "tanh")], "the Laplacian") == (
        "the Laplacian is exactly 0 everywhere here: either fn is linear or piecewise linear (ReLU, abs, max, ...), "
        "whose second derivative is 0 wherever it exists, so a PDE residual built on it loses its second-order terms "
        "(u_xx); or these points are special: where fn's curvature vanishes (tanh at 0), or on a kink (abs(x0) * x1 "
        "at x0 = 0: TensorFlow takes abs's slope there as 0, and the second derivative does not exist). Other points "
        "tell which")
    # a NaN result is not "exactly 0 everywhere"
    assert piecewise_warning(np.array([[0.0, np.nan]]), [], "the Hessian") == ""
