"""Figures: the right trace types, the data equal to the input arrays, the titles and axis labels."""

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio
import pytest

from gradlib import figures

SEED = np.array([[20.0, 15.0, 12.0], [120.0, 45.0, 36.0]])
ROWS, COLS = ["y[0]", "y[1]"], ["x0", "x1", "x2"]


def test_gradient_bars_are_grouped_one_trace_per_row():
    fig = figures.gradient_bars(SEED, ROWS, COLS, title="Seed")
    assert isinstance(fig, go.Figure) and fig.layout.barmode == "group"
    assert [type(t) for t in fig.data] == [go.Bar, go.Bar]
    assert [t.name for t in fig.data] == ROWS
    assert all(list(t.x) == COLS for t in fig.data)
    np.testing.assert_array_equal([t.y for t in fig.data], SEED)
    assert fig.layout.title.text == "Seed"
    assert fig.layout.xaxis.title.text == "watched element" and fig.layout.yaxis.title.text == "gradient"


def test_heatmap_holds_the_matrix_centred_at_zero_with_outputs_top_down():
    fig = figures.jacobian_heatmap(SEED, ROWS, COLS)
    (trace,) = fig.data
    assert isinstance(trace, go.Heatmap)
    np.testing.assert_array_equal(trace.z, SEED)
    assert list(trace.x) == COLS and list(trace.y) == ROWS and trace.zmid == 0
    assert fig.layout.yaxis.autorange == "reversed"
    assert fig.layout.xaxis.title.text == "watched element" and fig.layout.yaxis.title.text == "output element"
    assert fig.layout.title.text.startswith("Jacobian")


def test_error_heatmap_is_titled_as_the_check():
    fig = figures.error_heatmap(SEED * 0 + 1e-6, ROWS, COLS)
    assert isinstance(fig.data[0], go.Heatmap) and "Finite-difference" in fig.layout.title.text


def test_table_has_a_label_column_then_one_column_per_watched_element():
    fig = figures.gradient_table(SEED, ["naive", "summed"], COLS, title="T")
    (trace,) = fig.data
    assert isinstance(trace, go.Table)
    assert list(trace.header.values) == ["", "x0", "x1", "x2"]
    cells = [list(col) for col in trace.cells.values]
    assert cells[0] == ["naive", "summed"]
    np.testing.assert_array_equal(np.array(cells[1:]).T, SEED)
    assert fig.layout.title.text == "T"


def test_table_names_non_finite_values_instead_of_leaving_them_blank():
    fig = figures.gradient_table([[np.nan, np.inf, 1.0]], ["y"], COLS)
    assert [list(col)[0] for col in fig.data[0].cells.values[1:]] == ["nan", "inf", 1.0]


def test_table_fills_are_transparent_so_both_themes_read():
    trace = figures.gradient_table(SEED, ROWS, COLS).data[0]
    assert trace.header.fill.color == trace.cells.fill.color == "rgba(0, 0, 0, 0)"


def test_no_figure_fixes_a_template_a_background_or_a_text_colour():
    # Streamlit swaps in its light or dark template; a fixed colour here would vanish on one of them.
    default = pio.templates[pio.templates.default]
    for fig in (figures.gradient_bars(SEED, ROWS, COLS), figures.jacobian_heatmap(SEED, ROWS, COLS),
                figures.gradient_table(SEED, ROWS, COLS)):
        assert fig.layout.template == default
        assert fig.layout.paper_bgcolor is None and fig.layout.plot_bgcolor is None and fig.layout.font.color is None
        assert fig.layout.font.size >= 14


def test_timing_bars_one_bar_per_method():
    fig = figures.timing_bars({"unstack": 0.01, "jacobian": 0.03})
    (trace,) = fig.data
    assert list(trace.x) == ["unstack", "jacobian"] and list(trace.y) == [0.01, 0.03]
    assert fig.layout.yaxis.title.text == "seconds"


def test_scaling_chart_is_log_log_one_line_per_method():
    frame = pd.DataFrame({"size": [4, 4, 64, 64, 4], "outputs": [4, 4, 64, 64, 4], "inputs": [4] * 5,
                          "method": ["unstack", "jacobian", "unstack", "jacobian", "unstack"],
                          "seconds": [0.01, 0.02, 0.5, 0.1, 0.03], "ratio": [1.0] * 5})
    fig = figures.scaling_chart(frame, x="outputs")
    assert [t.name for t in fig.data] == ["unstack", "jacobian"]
    assert all(isinstance(t, go.Scatter) for t in fig.data)
    assert list(fig.data[0].x) == [4.0, 64.0]
    assert list(fig.data[0].y) == [0.02, 0.5]                  # the median of the repeated size-4 timings
    assert list(fig.data[1].y) == [0.02, 0.1]
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"
    assert fig.layout.xaxis.title.text == "number of outputs (log scale)"


def test_scaling_chart_marks_each_point_compiled_or_eager():
    frame = pd.DataFrame({"size": [4, 4, 64, 64], "outputs": [4, 4, 64, 64], "inputs": [4] * 4,
                          "method": ["auto", "jacobian", "auto", "jacobian"], "compiled": [False, True, True, True],
                          "seconds": [0.01, 0.001, 0.002, 0.002], "ratio": [1.0] * 4})
    fig = figures.scaling_chart(frame)
    auto, jacobian = fig.data
    assert list(auto.marker.symbol) == ["circle-open", "circle"] and list(auto.customdata) == ["eager", "compiled"]
    assert list(jacobian.marker.symbol) == ["circle", "circle"]
    assert "%{customdata}" in auto.hovertemplate


def test_labels_that_do_not_match_the_matrix_are_refused():
    with pytest.raises(ValueError, match=r"shape \(2, 3\), but there are 2 row labels and 2 column labels"):
        figures.gradient_bars(SEED, ROWS, COLS[:2])
