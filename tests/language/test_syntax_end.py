"""A function that stops mid-expression is pointed at where it stops, not at its first character."""

import pytest

import gradlib


@pytest.mark.parametrize("text, column", [("x0 +", 4), ("x0 ++", 5), ("x0 +   ", 4), ("sin(x0) *", 9)])
def test_an_unfinished_expression_points_at_its_end(text, column):
    """Python reports offset 0 for "x0 +" (it reached the end); the playground said 'syntax error at column 1:
    invalid syntax' with the caret under the x."""
    with pytest.raises(gradlib.ExpressionError, match=rf"^syntax error at column {column}: ") as caught:
        gradlib.evaluate(text, {"x0": 1.0, "x1": 2.0})
    message = str(caught.value)
    if column == len(text.rstrip()):
        assert "the text ends before the expression is complete" in message
    caret = message.splitlines()[-1]
    assert caret == "    " + " " * (column - 1) + "^", message


def test_an_error_inside_the_text_keeps_python_s_column():
    with pytest.raises(gradlib.ExpressionError, match=r"^syntax error at column 6: invalid syntax"):
        gradlib.evaluate("x0 + * 2", {"x0": 1.0})
