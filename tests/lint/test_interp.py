"""The abstract interpreter on issue 22's cases, each program proven under TensorFlow (conftest.py).

Broken programs: the linter flags exactly the marked (line, rule) pairs (plus the note on the gradient call's
line) and TensorFlow raises or gives None/zeros. Correct twins: no finding and a real gradient.
"""

from __future__ import annotations

import pytest

from gradlib import lint
from lint_programs import PROGRAMS, call_lines, marks

STEPS = ("mark", "all breaks", "late watch", "followed", "followed list", "new rules")   # new rules: test_rules_new.py
NAMES = [name for name, p in PROGRAMS.items() if p.step in STEPS]


@pytest.mark.parametrize("name", NAMES)
def test_tensorflow_agrees_with_the_label(name, tf_verdicts):
    verdict = tf_verdicts[name]
    if PROGRAMS[name].broken:
        assert verdict in ("none", "zeros") or verdict.startswith("raised"), verdict
    else:
        assert verdict == "real", verdict


@pytest.mark.parametrize("name", NAMES)
def test_the_linter_flags_exactly_the_marked_lines(name):
    program = PROGRAMS[name]
    result = lint(program.source)
    assert result.complete, result.reason
    found = {(f.line, f.rule) for f in result}
    expected = marks(program.source)
    assert bool(expected) == program.broken
    assert expected <= found, [str(f) for f in result]
    extra = {(line, rule) for line, rule in found - expected if line not in call_lines(program.source)}
    assert not extra, [str(f) for f in result]
    assert bool(found) == program.broken, [str(f) for f in result]


def test_a_python_number_target_is_said_to_raise_typeerror_and_a_tensor_target_to_give_none(tf_verdicts):
    """A Python number as the target: TensorFlow reads it as a dtype code first, so 36.0 raises TypeError and 3.0
    (a dtype's code) AttributeError; the linter cannot know the number, so it names both (test_outcomes.py)."""
    (cause,) = [f for f in lint(PROGRAMS["float_then_power"].source) if f.line == 7]
    assert "tape.gradient raises TypeError or AttributeError, since its target loss is a Python number" \
        in cause.message
    assert tf_verdicts["float_then_power"].startswith("raised: TypeError")
    (cause,) = [f for f in lint(PROGRAMS["square_of_float"].source) if f.line == 7]
    assert "the gradient with respect to x is None" in cause.message and tf_verdicts["square_of_float"] == "none"


@pytest.mark.parametrize("name", [name for name, p in PROGRAMS.items() if p.step == "followed"])
def test_every_gradient_call_of_these_programs_is_followed(name):
    """Function parameters, tf.data batches, x.shape[0], list.append, assert, tf.numpy_function and Keras
    subclass attributes no longer stop the check (issue 22: 147 of 736 real calls were checked)."""
    result = lint(PROGRAMS[name].source)
    assert result.calls >= 1 and result.checked == result.calls, result.not_checked


def test_code_it_cannot_follow_is_counted_not_flagged():
    source = """import tensorflow as tf
model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
def train_step(x, y, loss_fn):
    with tf.GradientTape() as tape:
        pred = model(x).numpy()
        loss = loss_fn(y, pred)
    return tape.gradient(loss, model.trainable_variables)
"""
    result = lint(source)
    assert result == [] and result.complete
    assert (result.calls, result.checked) == (1, 0)
    assert result.not_checked == ((7, "the target depends on code it cannot follow"),)
    assert result.coverage() == ("Nothing checked: none of the 1 gradient call could be followed (1 could not: 1 the "
                                 "target depends on code it cannot follow).")


def test_the_counts_survive_pickling_and_the_all_clear_claims_only_what_was_checked():
    import pickle
    source = PROGRAMS["function_parameters_ok"].source + (
        "\n\ndef other(variables, loss_fn, x):\n    with tf.GradientTape() as tape:\n        loss = loss_fn(x)\n"
        "    return tape.gradient(loss, variables)\n")
    result = lint(source)
    assert (result.calls, result.checked, len(result.not_checked)) == (2, 1, 1)
    assert result.coverage() == ("No GradientTape mistake of these kinds in the 1 of 2 gradient calls that could be "
                                 "followed (1 could not: 1 a source it cannot follow).")
    copy = pickle.loads(pickle.dumps(result))
    assert (copy.calls, copy.checked, copy.not_checked) == (result.calls, result.checked, result.not_checked)
    assert lint("x = 1\n").coverage() == "No gradient call (tape.gradient, jacobian or batch_jacobian) to check."


# ---------------------------------------------------------------- followed by an assumption (review of lint5)

_IMPORTED_SOURCE = """
import tensorflow as tf
from elsewhere import thing

x = thing()
with tf.GradientTape() as tape:
    y = x * 2.0
print(tape.gradient(y, x))
"""


def test_a_call_followed_only_by_assuming_an_unseen_value_is_watched_says_so():
    """``x = thing()`` from code the linter cannot see is taken to be a variable (or a watched tensor): the call
    is followed, but if ``thing()`` returns a plain tensor the gradient is None. The all-clear says what it assumed
    (it claimed the call was checked, with no word of the assumption)."""
    import pickle
    result = lint(_IMPORTED_SOURCE)
    assert result == [] and (result.calls, result.checked, result.assumed) == (1, 1, 1)
    assert result.coverage() == (
        "No GradientTape mistake of these kinds in the 1 of 1 gradient call that could be followed (1 of the 1 "
        "followed assumes that a value from code it cannot see, a parameter or what an imported function returns, "
        "is a variable or a watched tensor).")
    assert pickle.loads(pickle.dumps(result)).assumed == 1
    # what the assumption stands for: a variable the linter sees needs none, and one never watched is found
    seen = _IMPORTED_SOURCE.replace("from elsewhere import thing\n", "").replace("thing()", "tf.Variable(3.0)")
    assert (lint(seen).checked, lint(seen).assumed) == (1, 0) and "assume" not in lint(seen).coverage()
    constant = _IMPORTED_SOURCE.replace("from elsewhere import thing\n", "").replace("thing()", "tf.constant(3.0)")
    assert {f.rule for f in lint(constant)} == {"GT003"} and lint(constant).assumed == 0


def test_the_command_s_summary_counts_the_assumed_calls(tmp_path):
    import subprocess
    import sys
    path = tmp_path / "imported.py"
    path.write_text(_IMPORTED_SOURCE)
    done = subprocess.run([sys.executable, "-m", "gradlib.lint", str(path)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert "(1 of the 1 followed assumes that a value from code it cannot see" in done.stderr


# ---------------------------------------------------------------- Pins (the sampled mutation run of the lint room)


def test_the_reasons_of_equal_counts_are_listed_by_name_and_the_assumed_calls_are_added_to_them():
    from gradlib.lint._rules import coverage_sentence
    assert coverage_sentence(0, 4, 1, ["b reason", "a reason", "c reason"]) == (
        "No GradientTape mistake of these kinds in the 1 of 4 gradient calls that could be followed (3 could not: "
        "1 a reason; 1 b reason; 1 c reason).")
    assert coverage_sentence(0, 3, 2, ["x"], 1) == (
        "No GradientTape mistake of these kinds in the 2 of 3 gradient calls that could be followed (1 could not: 1 x) "
        "(1 of the 2 followed assumes that a value from code it cannot see, a parameter or what an imported function "
        "returns, is a variable or a watched tensor).")


def test_a_result_s_summary_counts_its_findings():
    assert lint("x = 1\n").summary() == "0 findings."


def test_the_command_s_summary_line_counts_the_assumed_calls_in_process(tmp_path, capsys):
    from gradlib.lint.__main__ import main
    path = tmp_path / "imported.py"
    path.write_text(_IMPORTED_SOURCE)
    assert main([str(path)]) == 0
    assert "(1 of the 1 followed assumes that a value from code it cannot see" in capsys.readouterr().err


# the second sample's survivors (docs/mutation.md): each program's verdict changed under its mutant, and no test read it

_INT_DTYPES = """import tensorflow as tf
x = tf.Variable([1, 2], dtype=tf.int32)
w = tf.Variable([1.0, 2.0])
with tf.GradientTape() as tape:
    y = tf.cast(x, tf.float32) * w
g = tape.gradient(y, [x, w])
"""


def test_an_integer_dtype_given_by_name_is_an_integer_variable_or_tensor():
    found = lint(_INT_DTYPES)
    assert [(f.rule, f.line) for f in found] == [("GT004", 2), ("GT004", 6)]
    assert found[0].message.startswith("the variable x has an integer dtype")
    watched = lint("import tensorflow as tf\nx = tf.constant([1, 2], dtype=\"int64\")\nwith tf.GradientTape() as tape:\n"
                   "    tape.watch(x)\n    y = x * x\ng = tape.gradient(y, x)\n")
    assert [(f.rule, f.line) for f in watched] == [("GT004", 2), ("GT004", 4), ("GT004", 6)]


def test_stop_gradient_is_a_deliberate_cut_and_a_round_trip_beside_it_is_still_found():
    beside = lint("import tensorflow as tf\nx = tf.Variable(2.0)\nwith tf.GradientTape() as tape:\n"
                  "    a = float(x.numpy())\n    y = tf.stop_gradient(x * x) * a\ng = tape.gradient(y, x)\n")
    assert [(f.rule, f.line) for f in beside] == [("GT002", 4), ("GT002", 6)]
    after = lint("import tensorflow as tf\nx = tf.Variable([1.0, 2.0])\nwith tf.GradientTape() as tape:\n"
                 "    y = tf.stop_gradient(x) * 2.0\n    z = tf.argmax(y)\ng = tape.gradient(z, x)\n")
    assert list(after) == [] and (after.calls, after.checked) == (1, 1)


def test_a_slice_after_the_block_is_said_to_slice():
    found = lint("import tensorflow as tf\nx = tf.Variable([1.0, 2.0])\nwith tf.GradientTape(persistent=True) as tape:\n"
                 "    y = x * x\ny0 = y[0]\ng = tape.gradient(y0, x)\n")
    assert found[0].rule == "GT001"
    assert found[0].message.startswith("`y[0]` slices a tensor after the `with` block of tape (line 3) ended")


def test_an_unwatched_tensor_and_a_variable_on_a_tape_that_watches_nothing_are_told_apart():
    found = lint("import tensorflow as tf\nx = tf.constant([1.0, 2.0])\nwith tf.GradientTape() as tape:\n"
                 "    y = x * x\ng = tape.gradient(y, x)\nv = tf.Variable([1.0, 2.0])\n"
                 "with tf.GradientTape(watch_accessed_variables=False) as tape2:\n    z = v * v\nh = tape2.gradient(z, v)\n")
    causes = [f.message for f in found if f.line in (3, 7)]
    assert causes == [
        "tape never watches x, and only trainable tf.Variables are watched automatically: the gradient with respect "
        "to x is None (zeros with unconnected_gradients=ZERO). Call tape.watch(x) first thing in this block, or make "
        "it a tf.Variable.",
        "tape2 never watches v, and the tape was made with watch_accessed_variables=False: the gradient with respect "
        "to v is None (zeros with unconnected_gradients=ZERO). Call tape2.watch(v) first thing in this block."]


def test_a_syntax_error_is_placed_on_its_own_line():
    from gradlib.lint import LintError
    with pytest.raises(LintError, match=r"could not parse the source: .* \(line 2, column 4\)") as info:
        lint("x = 1\ny = = 2\n")
    assert (info.value.line, info.value.col) == (2, 4)
