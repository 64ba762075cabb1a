"""The lint page's excerpt of a finding: its caret under the finding's character, on a phone's screen too."""

import gradlib
from dashboard import lint_view
from dashboard.lint_view import excerpt

EXCERPT_WIDTH = 36   # characters a code block shows whole at 390 px (dashboard.lint_view.EXCERPT_WIDTH)

LONG = """import tensorflow as tf

x = tf.constant([1.0, 2.0, 3.0])
with tf.GradientTape(persistent=True) as tape:
    tape.watch(x)
    y = x * x
all_the_per_element_gradients_of_the_model_outputs = [tape.gradient(y_i, x, unconnected_gradients=tf.UnconnectedGradients.ZERO) for y_i in y]
"""


def under_caret(text: str) -> str:
    """The character of the finding's line (the excerpt's last line but one) that the caret points at."""
    *_, shown, caret = text.splitlines()
    return shown[caret.index("^")]


def only_finding(source: str) -> gradlib.LintFinding:
    (finding,) = gradlib.lint(source)
    return finding


def test_a_long_line_is_cut_around_the_column_so_the_caret_shows_on_a_phone():
    """At 390 px the code block shows about 36 characters: the caret of `for y_i in y` at column 139 of a 141-character
    line was off the screen, and the excerpt showed only the start of the line."""
    finding = only_finding(LONG)
    assert (finding.line, finding.col) == (7, 139)
    text = excerpt(LONG, finding.line, finding.col)
    assert all(len(row) <= EXCERPT_WIDTH for row in text.splitlines()), text
    assert text.splitlines()[1] == "7 | …dGradients.ZERO) for y_i in y]"
    assert under_caret(text) == "y" and text.splitlines()[1].endswith("y_i in y]")
    assert text.splitlines()[0] == "6 | …"   # the line before lies wholly left of the cut: said, not dropped


def test_a_cut_in_the_middle_of_a_line_marks_both_ends_and_keeps_the_column():
    text = excerpt(LONG, 7, 54, width=40)   # col 54: the `t` of `tape.gradient`
    rows = text.splitlines()
    assert all(len(row) <= 40 for row in rows) and rows[1].startswith("7 | …") and rows[1].endswith("…")
    assert under_caret(text) == "t" and rows[1][rows[2].index("^"):].startswith("tape.gradient")


def test_a_short_line_is_shown_whole_as_before():
    text = excerpt("y = f(x)\nrows = [g(v) for v in y]", 2, 21)
    assert text == "1 | y = f(x)\n2 | rows = [g(v) for v in y]\n  |                      ^"


def test_the_caret_of_a_line_with_accented_names_sits_under_its_character():
    """``col`` counts UTF-8 bytes (as ``ast`` does): two ``é`` before it put the caret 3 characters too far right."""
    source = LONG.replace(LONG.splitlines()[-1], "dérivées_é = [tape.gradient(y_i, x) for y_i in y]")
    finding = only_finding(source)
    assert finding.col == 50   # bytes; the `y` is the 48th character
    assert under_caret(excerpt(source, finding.line, finding.col)) == "y"


def test_the_caret_of_a_line_indented_with_a_tab_sits_under_its_character():
    """A tab counts one column in ``col`` but is drawn 8 wide: the caret stood 7 places left of the finding."""
    source = ("import tensorflow as tf\nx = tf.constant([1.0, 2.0])\nwith tf.GradientTape(persistent=True) as tape:\n"
              "\ttape.watch(x)\n\ty = x * x\nif True:\n\trows = [tape.gradient(y_i, x) for y_i in y]\n")
    finding = only_finding(source)
    assert (finding.line, finding.col) == (7, 42)
    text = excerpt(source, finding.line, finding.col)
    assert "\t" not in text and under_caret(text) == source.splitlines()[finding.line - 1][finding.col]


def test_the_style_shows_one_cut_of_a_long_excerpt_by_the_screens_width():
    css = lint_view.__file__.replace("lint_view.py", "style.css")
    text = open(css, encoding="utf-8").read()
    assert '[class*="st-key-lint_excerpt_wide_"] { display: none; }' in text.split("@media (max-width: 640px)")[-1]
    assert '[class*="st-key-lint_excerpt_phone_"] { display: none; }' in text.split("@media (min-width: 641px)")[-1]
    assert (lint_view.WIDE_KEY, lint_view.PHONE_KEY) == ("lint_excerpt_wide_", "lint_excerpt_phone_")
    assert lint_view.EXCERPT_WIDTH == EXCERPT_WIDTH
