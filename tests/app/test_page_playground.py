"""AppTest of the playground: share links (valid and hostile), submitting, presets, and what survives an error."""

import base64
import functools
import io
import json
from urllib.parse import parse_qsl, urlsplit

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

import gradlib
from dashboard.share import decode

from playground_session import open_playground

SEED_TEXT = "[x0*x1*x2, x0*x1*x2*x0]"


@functools.cache
def opened(**params: str) -> AppTest:
    """``open_playground(**params)`` run once a process for the tests that only read the page (none of them sets a
    widget or runs it again): two tests of the seed, and two of 400 outputs, each ran the same page twice."""
    return open_playground(**params)


def errors(at: AppTest) -> str:
    return "\n".join(e.value for e in at.error)


def table(at: AppTest, index_name: str):
    """The st.table whose index is named ``index_name`` ("element" for y, "d output / d" for the gradients)."""
    return next(t.value for t in at.table if t.value.index.name == index_name)


def folded(at: AppTest) -> str:
    """The diagnosis's details, folded away in expanders (without the page's Markdown escapes)."""
    return "\n".join(m.value for e in at.expander for m in e.markdown).replace("\\", "")


def headings(at: AppTest) -> list[str]:
    return [m.value for m in at.markdown if m.value.startswith("#")]


def test_default_state_is_the_seed_with_every_method():
    at = opened()
    assert at.text_area(key="pg_outputs").value == SEED_TEXT
    assert table(at, "element")["y"].tolist() == ["60", "180"]
    gradients = table(at, "d output / d")
    assert gradients.loc["y[0]"].tolist() == ["20", "15", "12"] and gradients.loc["y[1]"].tolist() == ["120", "45", "36"]
    broken = table(at, "method")
    assert broken.loc["naive: y[0]"].tolist() == ["0", "0", "0"]
    assert broken.loc["summed: sum(y)"].tolist() == ["140", "60", "48"]
    for heading in ("## Results", "### Per-element gradients", "### Naive and summed beside the correct result",
                    "### Agreement across methods", "### Finite-difference check", "### Diagnosis", "### Timings",
                    "### TensorFlow code for your function", "### Downloads", "### Share this state"):
        assert heading in headings(at)
    assert "This share link cannot be opened" not in errors(at)
    assert any("Finite-difference check passed" in s.value for s in at.success)


def test_results_include_charts_downloads_and_the_tensorflow_code():
    at = opened()
    keys = {chart.proto.id.split("-")[-1] for chart in at.get("plotly_chart")}
    assert len(at.get("plotly_chart")) == 5, keys   # bars, heatmap, naive/summed bars, error heatmap, timings
    assert [b.key for b in at.get("download_button")] == ["pg_download_csv", "pg_download_json"]
    code = next(c.value for c in at.code if "GradientTape" in c.value)
    assert "tf.unstack" in code and "tape.jacobian" in code and "x0 = tf.constant(3.0" in code
    agreement = next(t.value for t in at.table if t.value.index.name == "method" and "agrees" in t.value.columns)
    assert agreement.loc["naive", "agrees"] == "NO" and agreement.loc["unstack", "agrees"] == "yes"


def test_a_share_link_opens_exactly_that_state():
    at = open_playground(outputs="x*x*s", inputs='{"x": [1, 2], "s": 3}', watch="x", method="unstack,naive",
                         dtype="float64")
    assert not errors(at).count("cannot")
    assert at.text_area(key="pg_outputs").value == "x*x*s"
    assert at.multiselect(key="pg_methods").value == ["unstack", "naive"]
    assert table(at, "element")["y"].tolist() == ["3", "12"]
    gradients = table(at, "d output / d")
    assert list(gradients.columns) == ["x[0]", "x[1]"]                  # s is not watched
    assert gradients.loc["y[0]"].tolist() == ["6", "0"] and gradients.loc["y[1]"].tolist() == ["0", "12"]


def test_the_page_offers_the_link_of_the_current_state():
    at = open_playground(outputs="sum(x**2)", inputs='{"x": [1.5, -2]}', method="jacobian")
    link = next(c.value for c in at.code if "outputs=" in c.value)
    state = decode(dict(parse_qsl(urlsplit(link).query)))
    assert (state.outputs, state.inputs, state.methods) == ("sum(x**2)", {"x": [1.5, -2]}, ("jacobian",))


def test_the_naive_loop_over_a_scalar_y_is_said_to_raise_as_tensorflow_does():
    """For y = x0*x1 (a scalar) the diagnosis said `for y_i in y` iterates y after the tape block and gives None:
    TensorFlow raises TypeError there ("Cannot iterate over a scalar tensor"); the row of zeros is the loop over
    tf.reshape(y, [-1])."""
    import tensorflow as tf
    x0, x1 = tf.constant(2.0), tf.constant(3.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x0, x1])
        y = x0 * x1
    with pytest.raises(TypeError, match="Cannot iterate over a scalar tensor"):
        [tape.gradient(y_i, [x0, x1]) for y_i in y]
    at = open_playground(outputs="x0*x1", inputs='{"x0": 2, "x1": 3}', method="unstack,naive")
    naive = next(e.value for e in at.error if "The naive loop returns zeros" in e.value)
    assert ("y is a scalar, and `for y_i in y` raises TypeError in TensorFlow (Cannot iterate over a scalar tensor)"
            in naive)
    assert "iterates y after the tape stopped recording" not in naive
    assert table(at, "method").loc["naive: y"].tolist() == ["0", "0"]


def test_the_summed_row_that_is_one_element_s_gradient_is_not_said_to_be_no_element_s():
    """abs(x) at [0, 1]: tape.gradient(y, x) gives [0, 1], which is y[1]'s row (y[0]'s is zero); the diagnosis said
    "It is not the gradient of any single element" under a table that shows it is."""
    import tensorflow as tf
    x = tf.constant([0.0, 1.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tf.abs(x)
        rows = [tape.gradient(y_i, x).numpy().tolist() for y_i in tf.unstack(y)]
    assert tape.gradient(y, x).numpy().tolist() == rows[1] == [0.0, 1.0] and rows[0] == [0.0, 0.0]
    at = open_playground(outputs="abs(x)", inputs='{"x": [0, 1]}', method="unstack,summed")
    summed = next(e.value for e in at.error if "sums over the elements of y" in e.value)
    assert summed.endswith("Here it equals the gradient of y[1] alone, the only row that is not zero; at another "
                           "point it need not be any single element's.")
    assert table(at, "method").loc["summed: sum(y)"].tolist() == table(at, "method").loc["correct: y[1]"].tolist()


@pytest.mark.parametrize("params, message", [
    ({"outputs": "x*x", "inputs": '{"x": [1, 2}'}, "not valid JSON"),
    ({"outputs": "x*x", "inputs": '{"x": 1}', "method": "magic"}, "method 'magic' is not a method"),
    ({"outputs": "x*x", "inputs": '{"x": [' + "0," * 15_000 + "0]}"}, "30,010 characters long; at most 20,000"),
    ({"outputs": "x*x", "inputs": '{"__builtins__": 1}'}, "starts with '_'"),
    ({"outputs": "x*x", "inputs": '{"\u03c7": 1}'}, "is not a valid name"),
    ({"outputs": "x" * 3000, "inputs": '{"x": 1}'}, "3,000 characters long"),
    ({"outputs": "x*x", "inputs": '{"x": 1}', "dtype": "float16"}, "dtype 'float16' is not accepted"),
    ({"outputs": "x*x", "inputs": '{"x": ' + "[" * 300 + "]" * 300 + "}"}, "nested 301 levels deep; at most 5"),
    ({"inputs": '{"x": 1}'}, "'outputs' parameter"),
])
def test_a_hostile_or_malformed_link_shows_an_error_and_loads_the_seed(params, message):
    at = open_playground(**params)
    assert "This share link cannot be opened" in errors(at)
    assert message in errors(at).replace("\\", "")
    assert at.text_area(key="pg_outputs").value == SEED_TEXT
    assert table(at, "element")["y"].tolist() == ["60", "180"]


@pytest.mark.parametrize("outputs, message", [
    ("().__class__.__bases__[0].__subclasses__()", "attribute access"),
    ("__import__('os').system('true')", "not part of the language"),
    ("x\u00d7x", "U+00D7"),
    ("(" * 40 + "x" + ")" * 40, "nests 40 levels deep; at most 32 are allowed"),
    ("sin(x) * sum(x)", "the Jacobian would have 1,000 x 1,000"),
])
def test_a_link_to_a_refused_function_keeps_the_text_and_says_where(outputs, message):
    inputs = json.dumps({"x": [0.5] * 1000}) if "sum(x)" in outputs else '{"x": [1, 2]}'
    at = open_playground(outputs=outputs, inputs=inputs)
    assert "This function cannot be computed" in errors(at)
    assert message in errors(at).replace("\\", "")
    assert at.text_area(key="pg_outputs").value == outputs
    assert "## Results" not in headings(at)


def test_editing_the_function_and_submitting_computes_the_new_rows():
    at = open_playground()
    at.text_area(key="pg_outputs").input("[x0*x1, x0 + x2]")
    at.button(key="pg_submit").click().run()
    assert not at.exception and "cannot" not in errors(at)
    assert table(at, "element")["y"].tolist() == ["12", "8"]
    gradients = table(at, "d output / d")
    assert gradients.loc["y[0]"].tolist() == ["4", "3", "0"] and gradients.loc["y[1]"].tolist() == ["1", "0", "1"]
    assert at.query_params["outputs"] == "[x0*x1, x0 + x2]"   # the address bar holds the new link


def test_an_error_on_submit_keeps_what_was_typed():
    at = open_playground()
    at.text_area(key="pg_outputs").input("x0 +* x1")
    at.button(key="pg_submit").click().run()
    assert not at.exception
    assert "This function cannot be computed" in errors(at) and "syntax error at column" in errors(at)
    assert at.text_area(key="pg_outputs").value == "x0 +* x1"
    at.multiselect(key="pg_methods").set_value([])
    at.button(key="pg_submit").click().run()
    assert "Nothing to compare" in errors(at)
    assert at.text_area(key="pg_outputs").value == "x0 +* x1"


def test_a_preset_fills_the_form_and_shows_its_pitfall():
    at = open_playground()
    at.selectbox(key="pg_preset").select("integer_watch").run()
    assert not at.exception
    assert at.text_area(key="pg_outputs").value == "x * n"
    assert at.selectbox(key="pg_preset").value is None                  # ready for the next choice
    said = [e.value for e in [*at.error, *at.warning]
            if ("int32" in e.value or "integer input" in e.value) and not e.value.startswith("Finite-difference check")]
    assert len(said) == 1 and said[0].startswith("**'n' is an integer input: no gradient**"), said   # said once
    assert any("Watching an integer tensor" in c.value for c in at.caption)


def test_the_nan_poisoning_preset_warns_and_auto_repairs():
    at = open_playground()
    at.selectbox(key="pg_preset").select("nan_poisoning").run()
    text = "\n".join(w.value for w in at.warning) + "\n".join(i.value for i in at.info)
    assert "NaN poisoning" in text and "repaired" in text.lower()
    assert table(at, "d output / d").loc["y[1]"].tolist() == ["0", "2"]


def test_the_state_survives_a_visit_to_another_page():
    at = open_playground()
    at.text_area(key="pg_outputs").input("x0 * x2")
    at.button(key="pg_submit").click().run()
    at.switch_page("pages/bug.py").run()
    at.switch_page("pages/playground.py").run()
    assert not at.exception
    assert at.text_area(key="pg_outputs").value == "x0 * x2"
    assert table(at, "d output / d").loc["y"].tolist() == ["5", "0", "3"]


def test_a_link_whose_only_method_is_refused_still_shows_results_and_no_exception():
    # unstack is refused above 256 eager passes; with nothing else chosen, the page used to crash on an
    # empty agreement table. It must show the refusal and the auto reference instead.
    at = open_playground(outputs="x*x", inputs=json.dumps({"x": list(range(300))}), method="unstack")
    assert not at.exception
    assert "### Agreement across methods" in headings(at)
    assert any("nothing to compare" in i.value for i in at.info)
    assert "The results cannot be shown" not in errors(at)
    assert "None of the chosen methods ran, so there is nothing to time." in [c.value for c in at.caption]
    said = [e.value for e in [*at.error, *at.warning, *at.info] if "one eager pass per output element: 300" in e.value]
    assert len(said) == 1 and said[0].startswith("**Left out: this problem is over its limits** — unstack"), said
    assert not at.error   # nothing went wrong: a method over its limit is left out, in a neutral box


def test_an_integer_input_draws_no_error_heatmap_for_cells_it_could_not_check():
    at = open_playground(outputs="n*n", inputs=json.dumps({"n": [1, 2]}), dtype="n:int32")
    assert [e.value.split("**")[1] for e in at.error] == ["'n' is an integer input: no gradient"]
    assert "fd" not in [c.proto.id.split("-")[-1][-2:] for c in at.get("plotly_chart")]


def test_a_valid_large_function_shows_no_red_box_for_the_methods_above_their_limits():
    """400-element x*x with every method (the default) showed two red "Method ... failed" boxes."""
    at = opened(outputs="x*x", inputs=json.dumps({"x": list(range(400))}))
    assert [e.value.split("**")[1] for e in at.error] == ["tape.gradient(y, x) sums over the elements of y"]
    left_out = sorted(i.value.split("** — ")[1].split("\n")[0] for i in at.info
                      if i.value.startswith("**Left out: this problem is over its limits**"))
    assert left_out == ["naive", "unstack"], left_out


def _tables_with_their_box(node, box=None):
    """Every st.table under ``node`` with the pixel height of the innermost fixed-height block around it."""
    for child in getattr(node, "children", {}).values():
        if type(child).__name__ == "Table":
            yield child.value, box
            continue
        proto = getattr(child, "proto", None)
        fixed = proto is not None and hasattr(proto, "height_config") and proto.height_config.HasField("pixel_height")
        yield from _tables_with_their_box(child, proto.height_config.pixel_height if fixed else box)


def test_a_long_output_scrolls_in_a_bounded_box_instead_of_pushing_the_jacobian_down():
    # 300 outputs and one watched scalar: y and the 300 x 1 Jacobian used to be plain tables ~8,000 px tall
    at = open_playground(outputs="x*s", inputs=json.dumps({"x": list(range(300)), "s": 2}), watch="s")
    found = list(_tables_with_their_box(at.main))
    tall = [(frame.index.name, box) for frame, box in found if len(frame) > 12]
    assert {name for name, _ in tall} >= {"element", "d output / d", "method"}
    assert all(box is not None and box <= 500 for _, box in tall), tall
    assert all(box is None for frame, box in found if len(frame) <= 12)   # short tables stay as they are
    assert table(at, "d output / d").loc["y[299]"].tolist() == ["299"]     # every row is still there


def test_a_preset_caption_goes_once_the_user_computes_a_function_of_their_own():
    at = open_playground()
    at.selectbox(key="pg_preset").select("tf_docs_square").run()
    loaded = [c.value for c in at.caption if c.value.startswith("Loaded:")]
    assert len(loaded) == 1 and gradlib.examples.PRESETS_BY_KEY["tf_docs_square"].title in loaded[0]
    at.button(key="pg_submit").click().run()                 # computing the preset as it is: still that preset
    assert [c.value for c in at.caption if c.value.startswith("Loaded:")] == loaded
    at.text_area(key="pg_outputs").input("x * x * x")
    at.button(key="pg_submit").click().run()
    assert not at.exception and "cannot" not in errors(at)
    assert not [c.value for c in at.caption if c.value.startswith("Loaded:")], "the preset's caption outlived it"
    assert table(at, "element")["y"].tolist() == ["27"]          # x = 3: the new function, computed


def test_the_downloads_carry_the_function_the_inputs_and_their_dtypes(monkeypatch):
    from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

    files: dict[str, bytes] = {}
    original = MemoryMediaFileStorage.load_and_get_id

    def keep(self, path_or_data, mimetype, kind, filename=None):
        files[filename] = path_or_data
        return original(self, path_or_data, mimetype, kind, filename)

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", keep)
    inputs = {"x": [0.5, 1.5], "n": 3}
    at = open_playground(outputs="x**2 * n", inputs=json.dumps(inputs), watch="x", dtype="x:float64,n:int32")
    assert "cannot" not in errors(at)
    csv = files["per_element_gradients.csv"].decode()
    header = dict(line[2:].split(": ", 1) for line in csv.splitlines() if line.startswith("# ") and ": " in line)
    assert json.loads(header["function"]) == "x**2 * n" and json.loads(header["inputs"]) == inputs
    assert json.loads(header["watched"]) == ["x"] and json.loads(header["dtypes"]) == {"x": "float64", "n": "int32"}
    frame = pd.read_csv(io.StringIO(csv), comment="#", index_col=0)
    assert frame.loc["y[1]", "x[1]"] == pytest.approx(2 * 1.5 * 3) and frame.loc["y[0]", "x[1]"] == 0
    fields = json.loads(files["per_element_gradients.json"])
    assert (fields["function"], fields["inputs"], fields["watched"]) == ("x**2 * n", inputs, ["x"])
    assert fields["dtypes"] == {"x": "float64", "n": "int32"}
    assert fields["jacobian"] == [[pytest.approx(3.0), 0], [0, pytest.approx(9.0)]]
    assert decode(dict(parse_qsl(fields["share_query"]))).inputs == inputs     # the state, reopened by its link


def test_an_infinite_derivative_is_shown_as_such_and_the_unchecked_cell_is_named():
    at = open_playground(outputs="[sqrt(x0-3), x1]", inputs='{"x0": 3, "x1": 4}')
    shown = "\n".join(box.value for kind in ("info", "warning", "error", "success") for box in getattr(at, kind))
    shown = shown.replace("\\", "")   # the Markdown escapes of the page
    assert "another output is infinite" not in shown
    assert "**Infinite derivative**\n\nThe output is finite but changes infinitely fast" in shown
    assert "'forward' gives NaN where the true value is finite (1 cell)" in shown
    assert "(y[0], x0) = inf." in folded(at) and "(y[0], x1) is NaN, true value 0." in folded(at)
    assert "(y[0], x0) = inf" not in shown and "(y[0], x1) is NaN, true value 0" not in shown   # folded away
    assert ("Finite-difference check: Central differences in float64 agree with all 3 checked cell(s)" in shown
            and "(y[0], x0) could not be checked: the function is not defined (NaN) just below x0" in shown)
    assert "Finite-difference check passed" not in shown and "tolerance nan" not in shown
    agreement = next(t.value for t in at.table if t.value.index.name == "method" and "agrees" in t.value.columns)
    assert agreement.loc["forward", "agrees"] == "NO"
    assert agreement.loc["forward", "cells that differ"] == "1: (y[0], x1): nan vs 0"
    # its finite cells agree exactly: a bare "0" beside NO read as a disagreement of nothing
    assert agreement.loc["forward", "max |difference|"] == "0 between finite cells; 1 cell differs in NaN or inf"
    assert agreement.loc["jacobian", "max |difference|"] == "0"
    assert agreement.loc["jacobian", "agrees"] == "yes"


@pytest.mark.parametrize("outputs, inputs, says, details, never", [
    ("log(x)", '{"x": -1}', ["**Output not finite**\n\nThe output is NaN: the function is not defined here",
                             "The finite gradient given here (-1)", "it means nothing"],
     ["(y, x) = -1 where y = nan."], ["The per-element gradients are right"]),
    ("relu(x)", '{"x": 0}', ["**Finite differences straddle a kink**\n\nIn 1 cell the function has a different slope",
                             "**Every gradient with respect to x is zero here, at a kink**"],
     ["(y, x) has slope 0 below x and 1 above"], ["flat region", "points at a wrong gradient"]),
    ("sin(1e6*x)", '{"x": [0.3, 0]}', ["**Finite differences disagree**\n\n2 cells differ from central finite "
                                       "differences", "so the finite-difference step is the likely cause, not the "
                                       "gradient: the step was 1e-06 at x[0]"],
     ["(y[0], x[0]) gives -994252 vs -836634"], ["points at a wrong gradient"]),
])
def test_the_diagnosis_says_what_the_evidence_supports(outputs, inputs, says, details, never):
    """The boxes say what happened and why; the cells, with their numbers, are folded away under them (issue 21.8)."""
    at = open_playground(outputs=outputs, inputs=inputs, dtype="float64")
    shown = "\n".join(box.value for kind in ("info", "warning", "error", "success") for box in getattr(at, kind))
    assert "### Diagnosis" in headings(at)
    for text in says:
        assert text in shown, text
    for text in details:
        assert text in folded(at) and text not in shown, text
    for text in never:
        assert text not in shown + folded(at), text


def test_the_guarded_square_root_preset_gives_finite_rows_and_explains_the_trap():
    at = open_playground()
    at.selectbox(key="pg_preset").select("guarded_sqrt").run()
    assert not at.exception
    assert at.text_area(key="pg_outputs").value == "where(x > 0, sqrt(x), 0)"
    gradients = table(at, "d output / d")
    assert gradients.loc["y[0]"].tolist() == ["0", "0", "0"] and gradients.loc["y[1]"].tolist() == ["0", "0", "0"]
    assert gradients.loc["y[2]"].tolist() == ["0", "0", "0.25"]
    [trap] = [w.value for w in at.warning if "branch not taken" in w.value]
    assert "y[0]" in trap and "y[1]" in trap and "118674" in trap
    assert "sqrt(where(x > 0, x, 1))" in trap
    code = next(c.value for c in at.code if "GradientTape" in c.value)
    assert "return tf.where(x > 0.0, tf.sqrt(tf.where(x > 0.0, x, 1.0)), 0.0)" in code
    assert any("where(): the guarded square root" in c.value for c in at.caption)


def test_the_page_shows_where_eager_graph_and_xla_differ(monkeypatch):
    """issue 21.2: where(x > 0, sqrt(x), 0) at x = [0, -1, 4]: XLA gives NaN in 6 cells where eager gives 0."""
    monkeypatch.setattr("gradlib._perelement._comparison._crosscheck._builds", 0)   # whatever XLA builds the test process spent before
    at = open_playground(outputs="where(x > 0, sqrt(x), 0)", inputs=json.dumps({"x": [0.0, -1.0, 4.0]}))
    assert "### Eager, graph and XLA" in headings(at)
    modes = table(at, "compared with eager")          # one column per mode (it fits a 390 px screen)
    assert modes.loc["agrees with eager"].to_dict() == {"eager": "reference", "graph": "yes", "xla": "NO"}
    assert modes.loc["NaN/inf here only", "xla"] == "6" and modes.loc["NaN/inf here only", "graph"] == "0"
    [box] = [w.value for w in at.warning if "Measured here: XLA" in w.value]
    assert box.startswith("**where(): the branch not taken has a non-finite derivative**")
    [details] = [e for e in at.expander if e.label.startswith("Details: where")]
    assert "eager 0, XLA nan" in details.markdown[0].value.replace("\\", "")


def test_the_seed_agrees_in_every_mode_and_says_so_in_the_caption(monkeypatch):
    monkeypatch.setattr("gradlib._perelement._comparison._crosscheck._builds", 0)
    at = open_playground()
    assert table(at, "compared with eager").loc["agrees with eager"].tolist() == ["reference", "yes", "yes"]
    assert any(c.value.endswith("agree \\(within 0.0001, relative to the largest finite gradient or to 1 if that is smaller, and NaN and "
                                "infinity in the same cells\\).") for c in at.caption)


def test_sqrt_outside_its_domain_shows_one_box_per_cause_and_folds_the_cells_away():
    """issue 21.8: sqrt(x0 - 3) gave 9 boxes, several repeating each other. One box per cause; the cells, with their
    numbers, in a folded expander under their box."""
    at = open_playground(outputs="sqrt(x0 - 3)", inputs=json.dumps({"x0": 1.0, "x1": 2.0, "x2": 3.0}))
    boxes = [box.value for kind in ("error", "warning", "info") for box in getattr(at, kind)
             if box.value.startswith("**")]   # the diagnosis's boxes (the check's own verdict has no bold title)
    titles = [b.split("**")[1] for b in boxes]
    assert sorted(titles) == ["Output not finite", "The naive loop returns zeros",
                              "tape.gradient is the per-element gradient here", "x1, x2 do not reach any output"]
    assert not [w.value for w in at.warning if "do not appear in the function" in w.value and not w.value.startswith("**")]
    [expander] = [e for e in at.expander if e.label == "Details: Output not finite"]
    assert not expander.proto.expanded                                   # folded until opened
    cells = "(y, x0) = nan where y = nan, (y, x1) = 0 where y = nan, (y, x2) = 0 where y = nan."
    assert folded(at) == cells
    assert not [b for b in boxes if "where y = nan" in b]                # the box has the cause, not the cells


# ---------------------------------------------------------------- the second-order view


def _heatmaps(at: AppTest) -> dict[str, np.ndarray]:
    """The Hessian heatmaps drawn: title -> the matrix in the figure's data (plotly may send it as typed bytes)."""
    found = {}
    for chart in at.get("plotly_chart"):
        spec = json.loads(chart.proto.spec)
        title = spec["layout"]["title"]["text"]
        if title.startswith("Hessian of"):
            z = spec["data"][0]["z"]
            if isinstance(z, dict):
                shape = [int(n) for n in str(z["shape"]).split(",")]   # plotly writes it as "3, 3"
                z = np.frombuffer(base64.b64decode(z["bdata"]), dtype=z["dtype"]).reshape(shape)
            found[title] = np.array(z, dtype=float)
    return found


def test_the_second_order_toggle_draws_the_seed_s_hessian_per_output_and_its_code():
    at = open_playground()
    assert not _heatmaps(at) and "## Second order" not in headings(at)    # off: the first-order view as it was
    assert len(at.get("plotly_chart")) == 5
    at.toggle(key="pg_second").set_value(True).run()
    assert not at.exception and "cannot" not in errors(at)
    heatmaps = _heatmaps(at)
    assert list(heatmaps) == ["Hessian of y[0]", "Hessian of y[1]"]
    np.testing.assert_array_equal(heatmaps["Hessian of y[0]"], [[0, 5, 4], [5, 0, 3], [4, 3, 0]])
    np.testing.assert_array_equal(heatmaps["Hessian of y[1]"], [[40, 30, 24], [30, 0, 9], [24, 9, 0]])
    assert len(at.get("plotly_chart")) == 7                                 # the first order's five are still there
    assert "## Second order" in headings(at) and "### TensorFlow code for the Hessians" in headings(at)
    code = next(c.value for c in at.code if "outer.jacobian" in c.value)
    assert "x0 = tf.constant(3.0" in code and "inner.gradient(" in code


def test_the_second_order_view_draws_at_most_twelve_heatmaps_and_says_so():
    at = open_playground(outputs="x * x * s", inputs=json.dumps({"x": list(range(1, 14)), "s": 1.5}), watch="x")
    at.toggle(key="pg_second").set_value(True).run()
    assert not at.exception and "cannot" not in errors(at)
    heatmaps = _heatmaps(at)
    assert len(heatmaps) == 12
    np.testing.assert_array_equal(heatmaps["Hessian of y[11]"], np.diag([0.0] * 11 + [3.0] + [0.0]))
    assert any("the first 12 of 13 elements are drawn" in c.value for c in at.caption)


def test_a_second_order_refusal_is_an_error_beside_the_first_order_results():
    at = open_playground(outputs="x * x * n", inputs='{"x": [1, 2], "n": 3}', dtype="x:float32,n:int32")
    at.toggle(key="pg_second").set_value(True).run()
    assert not at.exception
    assert "The Hessians cannot be computed" in errors(at) and "input 'n': it is int32" in errors(at)
    assert table(at, "element")["y"].tolist() == ["3", "12"]


def test_the_second_order_toggle_is_in_the_share_link_and_a_link_opens_it():
    """The Hessian view is part of what a link shares: on, the address bar gets order=2; such a link opens with
    the toggle on and the seed's Hessians drawn; off again, the parameter goes."""
    at = open_playground()
    assert "order" not in at.query_params
    at.toggle(key="pg_second").set_value(True).run()
    assert at.query_params["order"] == ["2"] or at.query_params["order"] == "2"
    link = next(c.value for c in at.code if "?outputs=" in c.value)
    params = dict(parse_qsl(urlsplit(link).query))
    assert params["order"] == "2" and decode(params).order == 2
    opened = open_playground(**params)
    assert opened.toggle(key="pg_second").value is True
    heatmaps = _heatmaps(opened)
    np.testing.assert_array_equal(heatmaps["Hessian of y[0]"], [[0, 5, 4], [5, 0, 3], [4, 3, 0]])
    opened.toggle(key="pg_second").set_value(False).run()
    assert "order" not in opened.query_params and not _heatmaps(opened)


@pytest.mark.parametrize("order", ["3", "two", "", "1.0"])
def test_a_link_with_an_order_that_does_not_exist_opens_the_seed_and_says_why(order):
    at = open_playground(outputs="x*x", inputs='{"x": [1, 2]}', order=order)
    assert "This share link cannot be opened" in errors(at) and "'order' must be 1" in errors(at)
    assert at.text_area(key="pg_outputs").value == SEED_TEXT


def test_a_method_that_failed_is_shown_with_its_reason_not_dropped(monkeypatch):
    """Issue 35, item 3: a structured rule that cannot place a piece fails 'structured' alone; the page says so, with
    the reason, beside the tape methods' table (here the rule is broken on purpose, at shapes no other test traces)."""
    from gradlib._perelement import _structured

    def misplacing(walker, values, axis):   # concat's rule as it was: every piece at the first piece's shape
        shape = tuple(values[0][0].shape)
        joined = [walker.tensor(j, shape) for _, j in values]
        return walker.flat(joined[0]), walker.flat(joined[0])

    monkeypatch.setitem(_structured.RULES, "concat", misplacing)
    at = open_playground(outputs="concat([tanh(W @ x), x])", inputs='{"W": [[1, 2, 3, 4, 5, 6, 7, 8, 9]], '
                         '"x": [1, 2, 3, 4, 5, 6, 7, 8, 9]}', watch="x", method="jacobian,structured", dtype="float64")
    shown = errors(at).replace("\\", "")   # without the page's Markdown escapes
    assert "Method structured failed" in shown
    assert "the structured rule of concat() could not place the Jacobians of its arguments" in shown
    agreement = next(t.value for t in at.table if t.value.index.name == "method" and "agrees" in t.value.columns)
    assert agreement.loc["jacobian", "agrees"] == "yes" and agreement.loc["structured", "agrees"] == "failed"
    assert agreement.loc["structured", "why"].startswith("the structured rule of concat() could not place")


def test_the_code_for_more_outputs_than_gradlib_loops_over_is_the_vectorized_jacobian_only():
    """400 outputs: gradlib leaves 'unstack' out as over its limit (256 passes), and the code section offered that
    same loop, captioned 'one gradient per element (unstack inside the tape)'. It now offers tape.jacobian only."""
    at = opened(outputs="x*x", inputs=json.dumps({"x": list(range(400))}))
    code = next(c.value for c in at.code if "GradientTape" in c.value)
    assert "tf.unstack" not in code and "tape.jacobian" in code
    assert any(c.value.startswith("Runnable as is: tape.jacobian, every element's gradient at once")
               for c in at.caption)
    assert not any("unstack inside the tape), then tape.jacobian" in c.value for c in at.caption)
