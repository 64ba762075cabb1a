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
    titles = [gradlib.demonstrate(name).title for name in gradlib.DEMOS]
    assert list(demo_tables(at)) == titles


def test_iterating_outside_the_tape_gives_zeros_and_unstacking_inside_gives_the_rows(at):
    broken, fixed = demo_tables(at)["Iterating y after the tape block"]
    assert broken == [["0", "0", "0"], ["0", "0", "0"]]
    assert fixed == [["20", "15", "12"], ["120", "45", "36"]]


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
