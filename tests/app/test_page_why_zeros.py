"""AppTest of the "Why zeros?" page: every pitfall shown, each backed by what TensorFlow returned live."""

import pytest
from streamlit.testing.v1 import AppTest

import gradlib
from code_columns import lines_too_long


@pytest.fixture(scope="module")
def at() -> AppTest:
    at = AppTest.from_file("../../app.py", default_timeout=120)
    at.switch_page("pages/why_zeros.py").run()
    assert not at.exception
    return at


def demo_tables(at: AppTest) -> dict[str, list]:
    """Heading of each demo -> the tables under it (broken first, then fixed)."""
    out, current = {}, None
    for node in _walk(at.main):
        if node.type == "markdown" and node.value.startswith("### "):
            current = node.value[4:]
            out[current] = []
        elif node.type == "table" and current:
            out[current].append(node.value.values.tolist())
    return out


def _walk(node):
    yield node
    for child in getattr(node, "children", {}).values():
        yield from _walk(child)


def test_no_error_and_one_section_per_demo(at):
    assert not at.error
    assert [t.value for t in at.title] == ["Why zeros?"]
    titles = [gradlib.examples.demonstrate(name).title for name in gradlib.examples.DEMOS]
    assert list(demo_tables(at)) == titles


def test_iterating_outside_the_tape_gives_none_and_unstacking_inside_gives_the_rows(at):
    """The table under the broken code showed zeros while the printed code returns None: what is shown is what the
    printed code returns, and the zeros (with unconnected_gradients=ZERO) are named as such in the note."""
    broken, fixed = demo_tables(at)["Iterating y after the tape block"]
    assert broken == [["None", "None", "None"], ["None", "None", "None"]]
    assert fixed == [["20", "15", "12"], ["120", "45", "36"]]
    assert any("unconnected_gradients=tf.UnconnectedGradients.ZERO the broken loop gives [[0, 0, 0], [0, 0, 0]] "
               "instead of None" in i.value for i in at.info)


def _run_printed(code: str, **extra) -> list:
    """Run a demo's printed code (our own constant text, never a user's) on the seed: ``[...]`` is the seed's
    stack, and the last line's value is what the code returns."""
    import tensorflow as tf
    scope = {"tf": tf, "x": [tf.constant(3.0), tf.constant(4.0), tf.constant(5.0)], **extra}
    *body, last = code.replace("[...]", "[x[0] * x[1] * x[2], x[0] * x[1] * x[2] * x[0]]").splitlines()
    exec("\n".join(body), scope)   # noqa: S102 - the page's own snippet, the point of the test
    return eval(last, scope)       # noqa: S307


def test_the_tables_are_what_the_printed_code_returns_in_tensorflow():
    demo = gradlib.examples.demonstrate("iterate_outside")
    for code, shown in ((demo.broken_code, demo.broken), (demo.fixed_code, demo.fixed)):
        returned = _run_printed(code)
        as_rows = [[None if g is None else float(g) for g in row] for row in returned]
        assert as_rows == shown, code
    assert "None for every x" in demo.broken_code


def test_a_numpy_round_trip_shows_none(at):
    broken, fixed = demo_tables(at)["A NumPy round trip inside the tape"]
    assert broken == [["None", "None"]]
    assert fixed == [["1", "0.540302"]]


def test_tf_stack_is_shown_to_be_differentiable(at):
    (shown,) = demo_tables(at)["tf.stack is differentiable"]
    assert shown == [["4", "3"], ["1", "1"]]


def test_integer_watch_and_replaced_variable_give_none(at):
    tables = demo_tables(at)
    assert tables["Watching an integer tensor"][0] == [["None", "None"]]
    assert tables["A variable replaced by a tensor"] == [[["None"]], [["8"]]]


def test_the_code_side_by_side_fits_its_column_on_a_laptop(at):
    """At 1366 px each code column holds 44 characters: on the Why zeros? page lines of 45 to 66 scrolled sideways,
    their comments' ends (the very point of the example) out of sight."""
    too_long = lines_too_long(at)
    assert not too_long, too_long


def test_each_row_is_named_as_the_printed_code_names_its_target(at):
    """The slicing demo's rows said "y" while its code takes g.gradient(y0, x): the gradient of y[0] alone ([4, 0]
    at x = [2, 3]), not of y (whose summed gradient is [4, 6])."""
    rows = {}
    current = None
    for node in _walk(at.main):
        if node.type == "markdown" and node.value.startswith("### "):
            current = node.value[4:]
        elif node.type == "table" and current:
            rows.setdefault(current, []).append(node.value.index.tolist())
    assert rows["Slicing y outside the tape"] == [["y0"], ["y0"]]
    assert rows["A variable replaced by a tensor"] == [["y"], ["y"]]
    assert rows["Iterating y after the tape block"] == [["y[0]", "y[1]"], ["y[0]", "y[1]"]]
