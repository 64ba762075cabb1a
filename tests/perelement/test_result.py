"""GradResult's exports (README: ``to_csv()``, ``to_json()``) carry the numbers, non-finite ones by name."""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pytest

import gradlib


def _refuse(token: str):
    raise AssertionError(f"to_json wrote the bare token {token}, which strict JSON parsers reject")


def test_to_json_holds_the_seed_rows_and_names_what_is_not_finite():
    r = gradlib.evaluate("[x0 * x1, log(x1)]", {"x0": 3.0, "x1": 0.0})
    data = json.loads(r.to_json(), parse_constant=_refuse)  # strict JSON: no bare NaN or Infinity tokens
    assert data["requested"] == "auto" and data["per_element"] is True and data["broken"] is False
    assert data["y_shape"] == [2] and data["row_labels"] == ["y[0]", "y[1]"] and data["col_labels"] == ["x0", "x1"]
    assert data["y"] == [0.0, "-inf"]
    # d(x0*x1) = [x1, x0] = [0, 3]; d(log x1) = [0, 1/x1] = [0, inf]. Reverse mode poisons row 0 with 0 * inf
    # through log's backward pass; auto repairs it in forward mode and says so.
    assert data["jacobian"] == [[0.0, 3.0], [0.0, "inf"]]
    assert data["repaired_rows"] == [0] and data["poisoned_rows"] == []
    assert data["warnings"] == ["repaired NaN poisoning in y[0]: forward mode gives these cells finite values"]
    assert json.loads(json.dumps(data)) == data


def test_to_csv_reads_back_as_the_values_and_the_jacobian():
    r = gradlib.evaluate("x * x", {"x": [1.0, 2.0]}, method="unstack")
    frame = pd.read_csv(io.StringIO(r.to_csv()), index_col="output")
    assert list(frame.index) == ["y[0]", "y[1]"] and list(frame.columns) == ["y (value)", "x[0]", "x[1]"]
    np.testing.assert_array_equal(frame["y (value)"].to_numpy(), [1.0, 4.0])
    np.testing.assert_array_equal(frame[["x[0]", "x[1]"]].to_numpy(), [[2.0, 0.0], [0.0, 4.0]])


# ---------------------------------------------------------------- issue 35, item 6: a row's label is never a column's

Y = {"y": np.array([0.0, 1.0])}
Y_BATCH = {"y": np.array([[1.0, 0.5], [2.0, -1.0]])}
#: every API that labels an output's rows and its inputs' columns, on an input named y (the output's usual name)
LABELLED = {
    "evaluate": lambda: gradlib.evaluate("log(y) * 2", Y),
    "evaluate summed": lambda: gradlib.evaluate("log(y) * 2", Y, method="summed"),
    "evaluate(order=2)": lambda: gradlib.evaluate("y * y * 2", Y, order=2),
    "per_element_gradients": lambda: gradlib.per_element_gradients(lambda d: d["y"] * 2.0, Y),
    "per_sample_gradients": lambda: gradlib.per_sample_gradients(lambda d: d["y"] ** 3, Y_BATCH),
    "hessians": lambda: gradlib.hessians(lambda d: d["y"] ** 3, Y),
    "hvp": lambda: gradlib.hvp(lambda d: d["y"] ** 3, Y, Y),
    "per_sample_hessians": lambda: gradlib.per_sample_hessians(lambda d: d["y"] ** 3, Y_BATCH),
    "laplacian": lambda: gradlib.laplacian(lambda d: d["y"] ** 3, Y_BATCH),
}


@pytest.mark.parametrize("api", list(LABELLED))
def test_an_input_named_y_gets_other_labels_than_the_output_s_rows(api):
    r = LABELLED[api]()
    assert all(label.startswith(("out", "sum(out)")) for label in r.row_labels), r.row_labels
    assert not set(r.row_labels) & set(getattr(r, "col_labels", ("y[0]", "y[1]")))


def test_crosscheck_names_a_cell_by_the_output_s_row_and_the_input_s_column():
    """It printed "(y[0], y[0]) eager inf": the output's row and the input's column under one name."""
    cross = gradlib.crosscheck("log(y) * 2", Y, modes=["eager", "forward"])
    details = next(m.details for m in cross.modes if m.mode == "forward")
    assert details.startswith("(out[0], y[0]) eager inf, forward mode nan")
    assert "(y[" not in details


def test_the_output_keeps_its_name_y_unless_an_input_takes_it_and_then_the_next_free_one():
    assert gradlib.evaluate("x * 2", {"x": [1.0]}).row_labels == ("y[0]",)
    taken = {"y": 1.0, "out": 2.0, "output": 3.0, "f": 4.0, "out2": 5.0}
    r = gradlib.evaluate("[y * out, output * f * out2]", taken)
    assert r.row_labels == ("out3[0]", "out3[1]") and r.col_labels == ("y", "out", "output", "f", "out2")
