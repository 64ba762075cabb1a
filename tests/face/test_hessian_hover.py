"""A Hessian heatmap's hover names a second derivative."""

import math

from gradlib import figures


def test_hessian_cells_hover_as_second_derivatives_including_the_nan_marks():
    """The Hessian heatmap reused the Jacobian's hover, 'd x[1] / d x[0] = 5': the derivative of one input with
    respect to another, for a cell that is d²y / dx[1] dx[0]."""
    fig = figures.hessian_heatmap([[0.0, 5.0], [5.0, math.nan]], ["x[0]", "x[1]"], title="Hessian of y[0]")
    assert len(fig.data) == 2   # the heatmap and the marks of the cells that are not finite
    for trace in fig.data:
        assert trace.hovertemplate == "∂² / ∂%{y} ∂%{x} = %{customdata}<extra></extra>"
    assert list(fig.data[0].customdata[0]) == ["0", "5"]


def test_the_jacobian_heatmap_keeps_its_own_hover():
    fig = figures.jacobian_heatmap([[1.0, 2.0]], ["y[0]"], ["x[0]", "x[1]"])
    assert fig.data[0].hovertemplate.startswith("d %{y} / d %{x}")


def test_a_column_with_no_number_is_drawn_as_whole_red_cells_named_in_the_legend():
    """where(x > 0, sqrt(x), 0) at [0, -1, 4]: the Hessian of y[2] is NaN in its whole first two columns. The
    heatmap left those cells empty and put a small red square on each: the chart looked like markers on a blank
    grid. Each such cell is now filled whole in red, its value written in it, named on hover and in the legend."""
    nan = math.nan
    hessian = [[nan, nan, 0.0], [nan, nan, 0.0], [nan, nan, -0.03125]]
    labels = ["x[0]", "x[1]", "x[2]"]
    values, cells = figures.hessian_heatmap(hessian, labels).data
    assert (values.type, cells.type) == ("heatmap", "heatmap")
    assert (list(cells.x), list(cells.y)) == (labels, labels)   # the same grid as the values, cell for cell
    filled = [[not math.isnan(v) for v in row] for row in cells.z]
    assert filled == [[True, True, False]] * 3
    assert [list(row) for row in cells.text] == [["nan", "nan", ""]] * 3 and cells.texttemplate == "%{text}"
    assert {colour for _, colour in cells.colorscale} == {figures.BROKEN} and not cells.showscale
    assert cells.showlegend and cells.name == figures.NOT_FINITE == "not a number (nan) or infinite (inf)"
    assert cells.hovertemplate == "∂² / ∂%{y} ∂%{x} = %{customdata}<extra></extra>"
    assert cells.customdata[1][0] == "nan" and values.customdata[2][2] == "-0.03125"
    assert values.hoverongaps is False   # the empty cells hover from the red ones only, once


def test_the_legend_of_the_red_cells_sits_below_the_axis_title_and_a_heatmap_with_no_number_has_no_scale():
    """At 390 px the legend (at y = -0.2 of the plot) was drawn over the x axis title 'watched element'."""
    fig = figures.hessian_heatmap([[math.nan]], ["x[0]"])
    values, cells = fig.data
    assert values.showscale is False   # no finite value: a colour bar would show a scale of nothing
    assert (fig.layout.legend.yref, fig.layout.legend.y, fig.layout.legend.yanchor) == ("container", 0, "bottom")
    assert fig.layout.margin.b >= 40 and fig.layout.height == figures.hessian_heatmap([[1.0]], ["x[0]"]).layout.height + 34
    plain = figures.hessian_heatmap([[1.0]], ["x[0]"])   # no red cells: no legend, and no room kept for one
    assert len(plain.data) == 1 and plain.layout.margin.b == 10


def test_each_hessian_value_is_written_in_its_cell_up_to_the_limit_and_the_hover_names_row_and_column():
    """The Second order page's heatmaps carried no values: each finite value is now written in its cell, as the
    charts write numbers (the red marks write their own 'nan'), up to HESSIAN_VALUES_SHOWN elements a side."""
    import numpy as np

    nan = math.nan
    values, marks = figures.hessian_heatmap([[0.0, 5.0], [5.0, nan]], ["x[0]", "x[1]"]).data
    assert values.texttemplate == "%{text}" and [list(r) for r in values.text] == [["0", "5"], ["5", ""]]
    assert [list(r) for r in marks.text] == [["", ""], ["", "nan"]]
    assert values.hovertemplate == "∂² / ∂%{y} ∂%{x} = %{customdata}<extra></extra>"   # row and column named
    n = figures.HESSIAN_VALUES_SHOWN
    last = figures.hessian_heatmap(np.eye(n) * 0.25, [f"x[{k}]" for k in range(n)]).data[0]
    assert last.texttemplate == "%{text}" and last.text[n - 1][n - 1] == "0.25" and last.text[0][1] == "0"
    first = figures.hessian_heatmap(np.eye(n + 1), [f"x[{k}]" for k in range(n + 1)]).data[0]
    assert first.text is None and not first.texttemplate                # too many cells to write in: hover only
    assert first.customdata[0][0] == "1"
