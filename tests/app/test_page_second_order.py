"""AppTest of the "Second order" page: the seed's Hessians, each nested-tape mistake beside the right answer,
and the grid's Laplacians, all computed live."""

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from code_columns import lines_too_long


@pytest.fixture(scope="module")
def at() -> AppTest:
    at = AppTest.from_file("../../app.py", default_timeout=180)
    at.switch_page("pages/second_order.py").run()
    assert not at.exception
    return at


def test_no_error_and_the_title(at):
    assert not at.exception
    assert [t.value for t in at.title] == ["Second order"]


def test_the_seed_s_hessians_are_shown(at):
    tables = [t.value.values.tolist() for t in at.table]
    assert [["0", "5", "4"], ["5", "0", "3"], ["4", "3", "0"]] in tables
    assert [["40", "30", "24"], ["30", "0", "9"], ["24", "9", "0"]] in tables


def test_each_mistake_is_shown_broken_beside_right(at):
    tables = [t.value.values.tolist() for t in at.table]
    assert tables.count([["None"]]) == 2          # the gradient after the outer block; x watched by the inner tape
    assert tables.count([["6", "12"]]) == 2
    assert [["3", "3"]] in tables and [["2", "2"]] in tables
    assert any("not independent" in e.value for e in at.error)
    assert [["0", "2"]] in tables      # the Laplacians of [where(x0 > 0, sqrt|x0|, 0), x1^2] at x0 = 0, not NaN
    assert any("NaN from the branch of where() not taken" in m.value for m in at.markdown)


def test_the_relu_network_s_zero_laplacian_is_explained(at):
    assert any("piecewise linear" in w.value for w in at.warning)
    assert any("Poisson residual" in m.value for m in at.markdown)


# ---------------------------------------------------------------- Pins (found by the sampled mutation run)


def test_the_seed_s_hessians_are_the_closed_form():
    # y = [x0 x1 x2, x0^2 x1 x2] at (3, 4, 5), by hand; only the module's doctest read these numbers, and doctests
    # are not in the mutation run's selection (dashboard.second_order.x_seed__mutmut_3, _8, _14 and _18 survived)
    from dashboard import second_order

    a, b, c = 3.0, 4.0, 5.0
    r = second_order.seed()
    np.testing.assert_allclose(r.y, [a * b * c, a * a * b * c])
    np.testing.assert_allclose(r.hessian, [[[0, c, b], [c, 0, a], [b, a, 0]],
                                           [[2 * b * c, 2 * a * c, 2 * a * b], [2 * a * c, 0, a * a], [2 * a * b, a * a, 0]]])


def test_the_code_side_by_side_fits_its_column_on_a_laptop(at):
    """At 1366 px each code column holds 44 characters: on the Second order page lines of 45 to 66 scrolled sideways,
    their comments' ends (the very point of the example) out of sight."""
    too_long = lines_too_long(at)
    assert not too_long, too_long
