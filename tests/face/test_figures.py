"""Figures: the right trace types, the data equal to the input arrays, the titles and axis labels."""

import math

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
    # the default title, as the pages show it (mutation run: no test read it)
    assert figures.gradient_bars(SEED, ROWS, COLS).layout.title.text == "Per-element gradients"
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


def test_error_heatmap_holds_the_errors_cell_by_cell_under_the_checks_title():
    errors = np.array([[1e-6, 0.0, 3e-7], [0.5, 2e-6, np.nan]])   # one bad cell, one cell the check left out
    fig = figures.error_heatmap(errors, ROWS, COLS)
    heat, marks = fig.data
    assert isinstance(heat, go.Heatmap) and isinstance(marks, go.Heatmap)
    np.testing.assert_array_equal(heat.z, errors)   # the NaN cell stays empty in the heatmap ...
    assert list(heat.x) == COLS and list(heat.y) == ROWS
    assert [list(r) for r in heat.customdata] == [["1e-06", "0", "3e-07"], ["0.5", "2e-06", "nan"]]
    # ... and is filled in red where it is, named on hover
    assert _filled(marks) == {("x2", "y[1]"): "nan"}
    assert {colour for _, colour in marks.colorscale} == {figures.BROKEN}
    assert (heat.zmin, heat.zmax, heat.zmid) == (0, 0.5, None)   # an error is never negative: zero to the largest
    assert fig.layout.title.text == "Finite-difference check: absolute error"
    assert fig.layout.xaxis.title.text == "watched element" and fig.layout.yaxis.title.text == "output element"
    assert fig.layout.yaxis.autorange == "reversed"   # y[0] on top, as in the Jacobian heatmap beside it
    assert figures.error_heatmap(errors, ROWS, COLS, title="T").layout.title.text == "T"


def test_error_heatmap_names_the_cells_the_check_left_out_apart_from_errors_that_are_not_finite():
    """A cell the check left out was passed as NaN and drawn as a red 'nan', as if the error itself were NaN."""
    errors = np.array([[np.nan, 1e-9, np.inf], [2e-9, 0.0, 3e-9]])
    left_out = np.array([[True, False, False], [False, False, False]])
    fig = figures.error_heatmap(errors, ROWS, COLS, unchecked=left_out)
    heat, red, grey = fig.data
    assert _filled(red) == {("x2", "y[0]"): "inf"} and red.name == figures.NOT_FINITE   # a real inf error stays red
    assert _filled(grey) == {("x0", "y[0]"): "not checked"} and grey.name == figures.NOT_CHECKED
    assert {c for _, c in grey.colorscale} == {figures.PALETTE[5]} != {figures.BROKEN}
    assert heat.customdata[0][0] == "not checked" and np.isnan(heat.z[0][0]) and heat.z[1][2] == 3e-9
    assert (heat.zmin, heat.zmax) == (0, 3e-9)


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
    assert trace.orientation == "h" and list(trace.y) == ["unstack", "jacobian"] and list(trace.x) == [0.01, 0.03]
    assert fig.layout.xaxis.title.text == "seconds" and fig.layout.yaxis.autorange == "reversed"   # first on top
    assert fig.layout.xaxis.type is None and trace.text is None


def test_timing_bars_on_a_log_axis_label_each_bar_with_its_own_time():
    """A 4 ms bar beside a 3 s one vanished on a linear axis: the log axis and the labels keep it readable."""
    fig = figures.timing_bars({"gradlib": 0.0042, "loop": 3.5, "jacobian": 0.25}, log=True)
    (trace,) = fig.data
    assert fig.layout.xaxis.type == "log" and fig.layout.xaxis.title.text == "seconds (log scale)"
    assert list(zip(trace.y, trace.x, trace.text)) == [("gradlib", 0.0042, "4.2 ms"), ("loop", 3.5, "3.5 s"),
                                                        ("jacobian", 0.25, "250 ms")]
    assert trace.textposition == "outside" and trace.hovertemplate == "%{y}: %{customdata} s<extra></extra>"


def test_timing_labels_are_never_shrunk_below_the_label_size():
    """Standing bars on the Models page at 390 px: Plotly shrank each label to its bar's width, '0.996 ms' to about
    6 px tall, beside method names turned 30 degrees. The bars lie down (a label runs along its bar, whose
    thickness is far above the font's), no label is drawn under LABEL_SIZE, and long names break over lines."""
    seconds = {"gradlib (one compiled call)": 0.00159, "tf.function tape.batch_jacobian (while_loop)": 0.000996,
               "eager tape.batch_jacobian": 0.542, "per-sample tape.jacobian loop": 9.37}
    fig = figures.timing_bars(seconds, log=True)
    (trace,) = fig.data
    assert trace.orientation == "h" and figures.LABEL_SIZE >= 12
    assert (fig.layout.uniformtext.minsize, fig.layout.uniformtext.mode) == (figures.LABEL_SIZE, "show")
    # a bar is thicker than its label: the plot's height shared by the bars, 80% of each row (Plotly's bargap 0.2)
    plot = fig.layout.height - 140   # less the title and the time axis
    assert 0.8 * plot / len(seconds) >= 2 * figures.FONT_SIZE
    assert list(fig.layout.yaxis.tickvals) == list(seconds)   # the data keep the names; the axis shows them broken
    assert list(fig.layout.yaxis.ticktext) == ["gradlib (one<br>compiled call)",
                                               "tf.function<br>tape.batch_jacobian<br>(while_loop)",
                                               "eager<br>tape.batch_jacobian", "per-sample<br>tape.jacobian<br>loop"]
    assert figures.timing_bars({f"m{i}": 0.1 for i in range(7)}).layout.height > fig.layout.height   # a row each


def test_a_log_timing_axis_is_ticked_once_per_power_of_ten_in_the_bars_unit():
    """Plotly's own log ticks on the models page read '10, 5, 2, 1, 5, 2, 0.1, 5, 2, 0.01' downwards: a '5' under
    '10' and no unit. One tick per power of ten, named as the bars are ('1 ms', '1 s'); over more than four powers,
    every other one named (at 390 px '10 ms' and '100 ms' side by side ran together), the others a tick mark."""
    fig = figures.timing_bars({"gradlib": 0.00155, "tf.function": 0.000787, "eager": 0.292, "loop": 3.01}, log=True)
    axis = fig.layout.xaxis
    assert list(axis.tickvals) == [1e-3, 1e-1, 10.0] and list(axis.ticktext) == ["1 ms", "100 ms", "10 s"]
    assert list(axis.minor.tickvals) == [1e-2, 1.0]
    low, high = axis.range   # log10 units: every bar, and the label beyond the longest one, inside
    assert low < np.log10(0.000787) - 0.3 and high > np.log10(3.01) + 0.3
    # the label's room grows with the axis: a third of a 230 px phone plot is about 70 px
    assert (high - np.log10(3.01)) / (high - low) >= 0.2
    short = figures.timing_bars({"a": 0.0042, "b": 3.5}, log=True).layout.xaxis   # four powers: each one named
    assert list(short.ticktext) == ["10 ms", "100 ms", "1 s", "10 s"] and list(short.minor.tickvals) == []
    close = figures.timing_bars({"a": 0.002, "b": 0.003}, log=True).layout.xaxis   # within one decade
    assert len(close.tickvals) >= 1 and close.range[1] - close.range[0] >= 1
    assert figures.timing_bars({"a": 0.002, "b": 0.003}).layout.xaxis.tickvals is None   # linear: Plotly's ticks


def test_a_colour_bar_names_a_hundred_100_not_1e2():
    """The seed's Jacobian (up to 120) had a colour bar reading '1e+2, 0, -1e+2' (d3's '.2~g' cannot write 100 in two
    digits) beside a table of 20, 45, 120. Three significant digits write the ticks as the table does."""
    for fig in (figures.jacobian_heatmap(SEED, ROWS, COLS), figures.field_heatmap([[0, 120]], [0, 1], [0], title="u")):
        fmt = fig.data[0].colorbar.tickformat
        assert fmt == ".3~g"
        # Python's format has d3's meaning for "g" (d3's "~" only drops trailing zeros)
        assert [format(v, fmt.replace("~", "")) for v in (100, -100, 50, 0.25, 1e-9)] == ["100", "-100", "50", "0.25", "1e-09"]


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


def test_scaling_chart_draws_a_single_call_apart_from_the_warm_lines():
    """A first call (tracing included) joined a warm line as if it were a warm time: it is a cross of its own,
    named so, and the line holds only the warm points."""
    frame = pd.DataFrame({"size": [4, 4, 64, 64], "method": ["unstack", "jacobian", "unstack", "jacobian"],
                          "compiled": [False, True, False, True], "seconds": [0.01, 0.002, 4.2, 0.003],
                          "timed": [figures.WARM_TIMED, figures.WARM_TIMED, "one call, tracing included",
                                    figures.WARM_TIMED]})
    fig = figures.scaling_chart(frame)
    assert [t.name for t in fig.data] == ["unstack", "jacobian", "unstack: one call, tracing included"]
    unstack, jacobian, single = fig.data
    assert list(unstack.x) == [4.0, 64.0] and unstack.y[0] == 0.01 and np.isnan(unstack.y[1])
    assert list(jacobian.y) == [0.002, 0.003]
    assert (list(single.x), list(single.y), single.mode, single.marker.symbol) == ([64.0], [4.2], "markers", "x")
    assert "one call, tracing included" in single.hovertemplate
    alone = figures.scaling_chart(frame[frame["timed"] != figures.WARM_TIMED])   # no warm point at all
    assert [t.name for t in alone.data][-1] == "unstack: one call, tracing included"


def test_labels_that_do_not_match_the_matrix_are_refused():
    with pytest.raises(ValueError, match=r"shape \(2, 3\), but there are 2 row labels and 2 column labels"):
        figures.gradient_bars(SEED, ROWS, COLS[:2])


# ---------------------------------------------------------------- marks, colours and scales (issue 9, items 8 and 9)


def _luminance(hex_colour: str) -> float:
    channels = [int(hex_colour.lstrip("#")[k:k + 2], 16) / 255 for k in (0, 2, 4)]
    r, g, b = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _contrast(a: str, b: str) -> float:
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def _is_red(hex_colour: str) -> bool:
    import colorsys
    r, g, b = (int(hex_colour.lstrip("#")[k:k + 2], 16) / 255 for k in (0, 2, 4))
    hue, lightness, saturation = colorsys.rgb_to_hls(r, g, b)
    return saturation > 0.4 and (hue < 20 / 360 or hue > 340 / 360)


def test_bars_mark_inf_and_nan_where_the_bar_would_be_and_name_them_on_hover():
    fig = figures.gradient_bars([[np.inf, 2.0, np.nan], [1.0, -np.inf, 3.0]], ROWS, COLS)
    bars = [t for t in fig.data if t.type == "bar"]
    marks = {t.name: t for t in fig.data if t.type == "scatter"}
    assert [b.name for b in bars] == ROWS and set(marks) == set(ROWS)
    assert np.isnan(bars[0].y[0]) and np.isnan(bars[0].y[2]) and bars[0].y[1] == 2.0   # no bar of infinite height
    assert list(bars[0].customdata) == ["inf", "2", "nan"]                               # the hover says what it is
    first = marks["y[0]"]
    assert list(first.x) == ["x0", "x2"] and list(first.y) == [0, 0] and list(first.text) == ["inf", "nan"]
    assert list(first.marker.symbol) == ["x", "x"] and list(first.marker.color) == [figures.BROKEN] * 2
    assert first.offsetgroup == bars[0].offsetgroup and first.legendgroup == bars[0].legendgroup
    assert list(marks["y[1]"].x) == ["x1"] and list(marks["y[1]"].text) == ["-inf"]
    assert fig.layout.scattermode == "group"     # each mark sits on its own bar's place in the group


def test_bars_of_height_zero_are_marked_on_the_axis_in_their_row_colour():
    fig = figures.gradient_bars([[0.0, 0.0, 0.0], [20.0, 0.0, 12.0]], ["naive: y[0]", "correct: y[0]"], COLS,
                                broken=["naive: y[0]"])
    bars = {t.name: t for t in fig.data if t.type == "bar"}
    marks = {t.name: t for t in fig.data if t.type == "scatter"}
    assert list(marks["naive: y[0]"].x) == COLS and list(marks["correct: y[0]"].x) == ["x1"]
    assert set(marks["naive: y[0]"].marker.symbol) == {"line-ew-open"}
    assert list(marks["naive: y[0]"].customdata) == ["0", "0", "0"]
    for name in marks:
        assert set(marks[name].marker.color) == {bars[name].marker.color}
    assert not any(t.type == "scatter" for t in figures.gradient_bars(SEED, ROWS, COLS).data)   # nothing to mark


def test_red_means_broken_in_every_chart_and_nothing_else_is_red():
    assert _is_red(figures.BROKEN) and not any(_is_red(c) for c in figures.PALETTE)
    labels = ["naive: y[0]", "summed: sum(y)", "correct: y[0]", "correct: y[1]"]
    fig = figures.gradient_bars(np.arange(12.0).reshape(4, 3) + 1, labels, COLS, broken=labels[:2])
    colours = [t.marker.color for t in fig.data if t.type == "bar"]
    assert colours[:2] == [figures.BROKEN] * 2 and not any(_is_red(c) for c in colours[2:])
    patterns = [t.marker.pattern.shape for t in fig.data if t.type == "bar"]
    assert patterns[0] != patterns[1]                 # two broken rows, both red, told apart by their fill
    many = figures.gradient_bars(np.ones((12, 3)), [f"y[{i}]" for i in range(12)], COLS)
    assert not any(_is_red(t.marker.color) for t in many.data)   # Plotly's default colours put red third
    timing = figures.timing_bars({"unstack": 0.1, "naive": 0.01, "summed": 0.01}, broken={"naive", "summed"})
    assert list(timing.data[0].marker.color) == [figures.PALETTE[0], figures.BROKEN, figures.BROKEN]
    diverging = [colour for _, colour in figures.jacobian_heatmap(SEED, ROWS, COLS).data[0].colorscale]
    assert not any(_is_red(c) for c in diverging)    # a negative derivative is not an error


def test_every_meaningful_colour_reads_on_a_light_and_on_a_dark_background():
    for colour in (figures.BROKEN, *figures.PALETTE):
        for background in ("#ffffff", "#0e1117", "#171614"):
            assert _contrast(colour, background) >= 3, (colour, background)


def _lab(colour: str) -> tuple[float, float, float]:
    """CIELAB (D65) of an sRGB hex colour: distances in it follow how different two colours look."""
    def linear(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (linear(int(colour[i:i + 2], 16) / 255) for i in (1, 3, 5))
    x, y, z = ((0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047, 0.2126 * r + 0.7152 * g + 0.0722 * b,
               (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883)
    f = [v ** (1 / 3) if v > 0.008856 else 7.787 * v + 16 / 116 for v in (x, y, z)]
    return 116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])


def test_the_first_six_series_colours_are_told_apart_at_a_glance():
    """The Strategies chart draws five methods: its fifth colour (cyan #0891b2) was 28 CIELAB units from the second
    (teal), so the auto and jacobian lines looked the same; every pair of the first six is now 30 or more apart."""
    first = figures.PALETTE[:6]
    gaps = {(a, b): math.dist(_lab(a), _lab(b)) for i, a in enumerate(first) for b in first[i + 1:]}
    assert min(gaps.values()) >= 30, min(gaps.items(), key=lambda kv: kv[1])
    assert math.dist(_lab("#0d9488"), _lab("#0891b2")) < 30   # the pair that was confused, by this measure


def test_heatmaps_mark_cells_that_are_not_finite_and_name_them_on_hover():
    z = [[1.0, np.inf, -2.0], [np.nan, 0.5, -np.inf]]
    for fig in (figures.jacobian_heatmap(z, ROWS, COLS), figures.error_heatmap(np.abs(z), ROWS, COLS)):
        heat, marks = fig.data
        assert heat.type == "heatmap" and marks.type == "heatmap"
        assert np.isnan(heat.z[0][1]) and heat.z[0][0] == 1.0
        assert heat.customdata[0][1] == "inf" and heat.customdata[1][0] == "nan"
        named = _filled(marks)
        assert sorted(named) == sorted([("x1", "y[0]"), ("x0", "y[1]"), ("x2", "y[1]")])
        assert named[("x0", "y[1]")] == "nan" and named[("x1", "y[0]")] == "inf"
        assert {colour for _, colour in marks.colorscale} == {figures.BROKEN}
        assert "%{customdata}" in marks.hovertemplate and "%{customdata}" in heat.hovertemplate
    assert list(_filled(marks).values()).count("inf") == 2   # |-inf| is inf


def _filled(cells: go.Heatmap) -> dict[tuple[str, str], str]:
    """The cells a heatmap fills (its z is a number there), by (column, row), with the text it writes in them."""
    return {(cells.x[j], cells.y[i]): cells.text[i][j]
            for i, row in enumerate(cells.z) for j, v in enumerate(row) if not np.isnan(v)}


def test_quantities_that_cannot_be_negative_use_a_sequential_scale_from_zero():
    error = np.array([[1e-9, 4e-9, 0.0], [2e-9, 0.0, 3e-9]])
    for fig, top in ((figures.error_heatmap(error, ROWS, COLS), 4e-9), (figures.magnitude_heatmap(error * 1e9, ROWS, COLS), 4)):
        (trace,) = fig.data
        assert trace.zmin == 0 and trace.zmid is None and trace.zmax == pytest.approx(top)
        luminance = [_luminance(colour) for _, colour in trace.colorscale]
        assert luminance == sorted(luminance, reverse=True), "the scale runs one way: light at zero, darker above"
    (jacobian,) = figures.jacobian_heatmap([[1.0, -2.0, 0.5], [0.0, 3.0, -1.0]], ROWS, COLS).data
    assert jacobian.zmid == 0 and jacobian.zmin is None          # the Jacobian has both signs: diverging


@pytest.mark.parametrize("rows", [1, 2, 3, 12, 40])
def test_colour_bar_labels_have_room_to_stand_apart(rows):
    fig = figures.jacobian_heatmap(np.arange(rows * 3.0).reshape(rows, 3) - 4, [f"y[{i}]" for i in range(rows)], COLS)
    bar = fig.data[0].colorbar
    plot_height = fig.layout.height - fig.layout.margin.t - fig.layout.margin.b - 60   # minus the x axis
    assert bar.nticks >= 2 and bar.nticks * 2.5 * figures.FONT_SIZE <= plot_height


def test_norm_histogram_overlays_one_histogram_per_group_with_the_clip_line():
    norms = np.array([0.5, 1.5, 2.5, 9.0])
    fig = figures.norm_histogram(norms, ["kept", "kept", "flipped", "flipped"], clip_norm=2.0)
    assert [t.name for t in fig.data] == ["kept", "flipped"] and fig.layout.barmode == "overlay"
    np.testing.assert_array_equal(fig.data[1].x, [2.5, 9.0])
    assert fig.layout.shapes[0].x0 == 2.0 and fig.layout.annotations[0].text == "clip norm 2"
    with pytest.raises(ValueError, match="4 norms but 3 group labels"):
        figures.norm_histogram(norms, ["a", "b", "c"])


def _plotly_counts(fig) -> np.ndarray:
    """The bar heights Plotly draws, summed over the traces: bins [start + i size, start + (i + 1) size) for each
    bin that starts below ``end``; a value outside every bin (at ``end`` exactly, say) is not drawn (plotly.js#6556)."""
    bins = fig.data[0].xbins
    assert all(t.xbins == bins for t in fig.data)   # one set of bins for every group, or the overlay misleads
    count = 0
    while bins.start + count * bins.size < bins.end:
        count += 1
    edges = bins.start + bins.size * np.arange(count + 1)
    values = np.concatenate([np.asarray(t.x, float) for t in fig.data])
    inside = (values >= edges[0]) & (values < edges[-1]) & (values < bins.end)
    return np.bincount(np.searchsorted(edges, values[inside], side="right") - 1, minlength=count)


@pytest.mark.parametrize("norms", [[0.5, 1.5, 2.5, 9.0], [1.0, 2.0, 40.0], [0.0, 0.0], [3.0], [7.0, 7.0, 7.0],
                                   np.random.default_rng(0).gamma(2.0, size=500).tolist(), [1e-8, 2e-8], [2.5e6, 1.0]])
def test_norm_histogram_counts_every_norm_the_largest_included(norms):
    fig = figures.norm_histogram(norms, ["kept", "flipped"] * (len(norms) // 2) + ["kept"] * (len(norms) % 2))
    counts = _plotly_counts(fig)
    assert counts.sum() == len(norms)   # the largest norm sat on the last edge and was not drawn
    assert len(counts) in (40, 41)   # 40 bins (a 41st, empty, when rounding leaves 40 x size just below the end)
    if max(norms) > 0:   # the largest norm is in the last bin that holds a norm: the 40th
        assert np.flatnonzero(counts)[-1] == 39
    reference = sorted(norms)
    assert counts[0] == sum(v < fig.data[0].xbins.start + fig.data[0].xbins.size for v in reference)


def test_image_grid_draws_each_image_under_its_title():
    images = np.arange(3 * 2 * 2).reshape(3, 2, 2) / 12
    fig = figures.image_grid(images, ["a", "b", "c"], columns=2)
    assert [type(t) for t in fig.data] == [go.Heatmap] * 3
    np.testing.assert_array_equal(fig.data[2].z, images[2])
    assert [a.text for a in fig.layout.annotations] == ["a", "b", "c"]
    assert fig.layout.yaxis.autorange == "reversed"
    with pytest.raises(ValueError, match="one title each"):
        figures.image_grid(images, ["a"])


def test_the_clip_norm_is_named_above_the_histogram_not_over_its_bars():
    """On the per-example page the label 'clip norm 1' was drawn inside the plot, over the tallest bars."""
    fig = figures.norm_histogram([0.5, 0.9, 1.2, 3.0], ["a", "a", "a", "b"], clip_norm=1.0)
    (label,) = fig.layout.annotations
    assert label.text == "clip norm 1" and label.x == 1.0
    assert (label.yref, label.y, label.yanchor) == ("y domain", 1, "bottom")   # its bottom on the plot's top edge


def test_every_image_of_the_grid_keeps_its_square_pixels():
    """The per-example page's 16 digits: every y axis was scaled to the first x axis, so only the first digit was
    square and the other 15 were drawn about 1.6 times too wide."""
    fig = figures.image_grid(np.zeros((6, 8, 8)), [f"d{k}" for k in range(6)], columns=4)
    for trace in fig.data:   # each image's y axis is tied to the image's own x axis, one unit for one unit
        yaxis = fig.layout["yaxis" + trace.yaxis.removeprefix("y")]
        assert yaxis.scaleanchor == trace.xaxis and yaxis.scaleratio in (None, 1), (trace.xaxis, yaxis.scaleanchor)
    assert len({t.xaxis for t in fig.data}) == 6


def test_mean_gradient_bars_put_plain_beside_clipped_per_variable():
    fig = figures.mean_gradient_bars([1.0, 2.0], [0.5, 0.25], ["kernel", "bias"], clip_norm=1.0)
    assert [t.name for t in fig.data] == ["plain mean", "clipped mean (C = 1)"]
    np.testing.assert_array_equal(fig.data[1].y, [0.5, 0.25])
    assert list(fig.data[0].x) == ["kernel", "bias"]


def test_mean_gradient_bars_say_the_variables_shared_path_once_in_the_axis_title():
    """The Per-example page's four variables all begin 'logits_classifier/': at 390 px the names in full were
    turned 30 degrees and took half the chart's height and a third of its width. The shared path is said once."""
    names = ["logits_classifier/hidden/kernel", "logits_classifier/hidden/bias", "logits_classifier/logits/kernel",
             "logits_classifier/logits/bias"]
    fig = figures.mean_gradient_bars([1.0, 2.0, 3.0, 4.0], [0.5, 0.25, 0.5, 0.25], names, clip_norm=1.0)
    assert list(fig.data[0].x) == names and list(fig.layout.xaxis.tickvals) == names   # hover keeps the full path
    assert list(fig.layout.xaxis.ticktext) == ["hidden/kernel", "hidden/bias", "logits/kernel", "logits/bias"]
    assert fig.layout.xaxis.title.text == "variable (in logits_classifier/)"
    apart = figures.mean_gradient_bars([1.0, 2.0], [0.5, 0.5], ["a/kernel", "b/kernel"], clip_norm=1.0)
    assert list(apart.layout.xaxis.ticktext) == ["a/kernel", "b/kernel"] and apart.layout.xaxis.title.text == "variable"
    near = figures.mean_gradient_bars([1.0, 2.0], [0.5, 0.5], ["m/dense/kernel", "m/dense_1/kernel"], clip_norm=1.0)
    assert list(near.layout.xaxis.ticktext) == ["dense/kernel", "dense_1/kernel"]   # cut at a '/', not mid-name


LONG_TITLE = "Jacobian of sample 0: d output / d input feature"   # the Models page's, cut at 390 px


def _every_chart(title: str) -> dict[str, go.Figure]:
    frame = pd.DataFrame({"method": ["a", "a"], "size": [4, 16], "seconds": [0.01, 0.02]})
    return {
        "gradient_bars": figures.gradient_bars(SEED, ROWS, COLS, title=title),
        "jacobian_heatmap": figures.jacobian_heatmap(SEED, ROWS, COLS, title=title),
        "hessian_heatmap": figures.hessian_heatmap(np.eye(3), COLS, title=title),
        "field_heatmap": figures.field_heatmap(np.eye(2), [0, 1], [0, 1], title=title),
        "magnitude_heatmap": figures.magnitude_heatmap(SEED, ROWS, COLS, title=title),
        "error_heatmap": figures.error_heatmap(SEED, ROWS, COLS, title=title),
        "gradient_table": figures.gradient_table(SEED, ROWS, COLS, title=title),
        "timing_bars": figures.timing_bars({"a": 0.01, "b": 0.1}, title=title, log=True),
        "scaling_chart": figures.scaling_chart(frame, title=title),
        "norm_histogram": figures.norm_histogram([1.0, 2.0], ["a", "b"], title=title),
        "clipped_histogram": figures.norm_histogram([1.0, 2.0], ["a", "b"], clip_norm=1.5, title=title),
        "image_grid": figures.image_grid(np.zeros((2, 2, 2)), ["a", "b"], title=title),
        "mean_gradient_bars": figures.mean_gradient_bars([1.0], [0.5], ["w"], clip_norm=1.0, title=title),
    }


def test_a_title_longer_than_a_phone_is_wide_breaks_over_lines_in_every_chart():
    """Plotly never wraps a title: at 390 px the Models page's 48-character title ran past the chart's right edge.
    Every chart breaks a long title (after its colon when that fits) and grows its top margin and its height by a
    line, so the plot keeps its room; a short title stays on one line."""
    assert figures.TITLE_CHARS <= 40   # about 350 px of 17 px bold: the width of a chart at 390 px
    short, long = _every_chart("Short"), _every_chart(LONG_TITLE)
    for name, fig in long.items():
        # Plotly writes a title's second line downwards from the middle of the top margin: the image grid's
        # captions and the clip norm's label stand in that margin, so there a line takes twice its height
        added = 48 if name in ("image_grid", "clipped_histogram") else 24
        assert fig.layout.title.text == "Jacobian of sample 0:<br>d output / d input feature", name
        assert fig.layout.margin.t == short[name].layout.margin.t + added, name
        assert fig.layout.height == short[name].layout.height + added, name
        assert short[name].layout.title.text == "Short", name
    no_colon = "Naive and summed against the correct rows, and more of them"
    lines = figures.gradient_bars(SEED, ROWS, COLS, title=no_colon).layout.title.text.split("<br>")
    assert all(len(line) <= figures.TITLE_CHARS for line in lines) and len(lines) == 2
    assert " ".join(lines) == "Naive and summed against the correct rows, and more of them"


def test_every_legend_sits_under_the_whole_chart_not_over_its_axis():
    """At 390 px the Per-example page's legend, at y = -0.2 of the plot, was drawn over the variable names (turned
    to fit) and the axis title; so were the Models page's pitfall bars' over 'watched element'. Every legend now
    sits at the chart's bottom edge (Plotly keeps the plot, its tick labels and axis title above it), and a chart
    with a legend is taller by a line, so its plot keeps its height."""
    charts = _every_chart("Short")
    charts["error_heatmap"] = figures.error_heatmap(SEED, ROWS, COLS, unchecked=[[True, False, False]] * 2)
    for name in ("gradient_bars", "error_heatmap", "scaling_chart", "norm_histogram", "mean_gradient_bars"):
        legend = charts[name].layout.legend
        assert (legend.yref, legend.y, legend.yanchor, legend.orientation) == ("container", 0, "bottom", "h"), name
    one_row = figures.gradient_bars(SEED[:1], ROWS[:1], COLS)   # one row: no legend, no room kept for it
    assert charts["gradient_bars"].layout.height == one_row.layout.height + 34


def test_no_chart_writes_text_smaller_than_the_label_size():
    """Text on a chart is read on a phone too: the Per-example page's digit captions were 11 px, and Plotly shrank
    the timing bars' labels to about 6 px. Every annotation, every trace's text and every bar label (Plotly's floor,
    uniformtext) is LABEL_SIZE px or more."""
    charts = _every_chart("Short")
    charts["marks"] = figures.gradient_bars([[0.0, math.inf, 1.0]], ["y"], COLS)
    charts["cells"] = figures.error_heatmap(SEED, ROWS, COLS, unchecked=[[True, False, False]] * 2)
    charts["timing_bars"] = figures.timing_bars({"a": 0.01, "b": 0.1}, log=True)
    for name, fig in charts.items():
        default = fig.layout.font.size
        for note in fig.layout.annotations:
            assert (note.font.size or default) >= figures.LABEL_SIZE, (name, note.text)
        for trace in fig.data:
            if getattr(trace, "text", None) is not None and trace.type != "table":
                assert (trace.textfont.size or default) >= figures.LABEL_SIZE, (name, trace.name)
                if trace.type == "bar":   # Plotly shrinks a bar's label to its bar unless told a floor
                    assert fig.layout.uniformtext.minsize >= figures.LABEL_SIZE, name
    assert any(note.text for note in charts["image_grid"].layout.annotations)
    assert charts["cells"].data[1].text is not None and charts["marks"].data[1].text is not None
