"""AppTest of the charts the pages draw: one colour per meaning, and the right kind of scale for each quantity."""

import json

from streamlit.testing.v1 import AppTest

from gradlib import figures


def charts(page: str) -> dict[str, dict]:
    """The page's Plotly charts by their key (``st.plotly_chart(..., key=...)``), as Plotly JSON."""
    at = AppTest.from_file("../app.py", default_timeout=180)
    at.switch_page(page).run()
    assert not at.exception
    return {c.proto.id.split("-")[-1]: json.loads(c.proto.spec) for c in at.get("plotly_chart")}


def test_the_playground_draws_the_check_error_from_zero_and_the_wrong_methods_red():
    drawn = charts("pages/playground.py")
    error = drawn["pg_fd"]["data"][0]
    assert error["type"] == "heatmap" and error["zmin"] == 0 and "zmid" not in error   # an error is never negative
    jacobian = drawn["pg_heatmap"]["data"][0]
    assert jacobian["zmid"] == 0                                                    # a Jacobian has both signs
    timing = drawn["pg_timings"]
    methods, colours = timing["data"][0]["x"], timing["data"][0]["marker"]["color"]
    red = {m for m, c in zip(methods, colours) if c == figures.BROKEN}
    assert red == {"naive", "summed"}, dict(zip(methods, colours))
    broken = {t["name"]: t["marker"]["color"] for t in drawn["pg_broken_bars"]["data"] if t["type"] == "bar"}
    assert {name for name, colour in broken.items() if colour == figures.BROKEN} == {
        "naive: y[0]", "naive: y[1]", "summed: sum(y)"}


def test_the_models_page_draws_the_mean_absolute_jacobian_from_zero():
    mean = charts("pages/models.py")["models_mean"]["data"][0]
    assert mean["type"] == "heatmap" and mean["zmin"] == 0 and "zmid" not in mean
    assert mean["colorscale"][0][1] == figures.magnitude_heatmap([[0.0]], ["y"], ["x"]).data[0].colorscale[0][1]
