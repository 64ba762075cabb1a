"""GradResult's exports (README: ``to_csv()``, ``to_json()``) carry the numbers, non-finite ones by name."""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd

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
