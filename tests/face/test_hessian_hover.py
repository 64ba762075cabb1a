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
