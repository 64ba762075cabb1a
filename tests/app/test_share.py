"""Share links: what round-trips, and what a hostile or malformed link gets (an ExpressionError that says what)."""

import json
from urllib.parse import parse_qsl, urlsplit

import pytest

from gradlib import ExpressionError, InputError
from dashboard.share import (MAX_LENGTHS, ShareState, check_state, decode, encode, from_rows, is_share_link, link,
                             parse_value, query_string, rows_of)

SEED = {"outputs": "[x0*x1*x2, x0*x1*x2*x0]", "inputs": '{"x0": 3, "x1": 4, "x2": 5}'}


def test_no_share_parameters_means_no_state():
    assert decode({}) is None
    assert decode({"embed": "true", "page": "x"}) is None
    assert not is_share_link({"embed": "true"})


def test_seed_link_decodes_to_its_state():
    state = decode(SEED)
    assert state == ShareState("[x0*x1*x2, x0*x1*x2*x0]", {"x0": 3, "x1": 4, "x2": 5})


def test_every_option_decodes():
    state = decode({**SEED, "watch": "x0, x2", "method": "unstack,naive,summed", "dtype": "float64"})
    assert state.watch == ("x0", "x2")
    assert state.methods == ("unstack", "naive", "summed")
    assert state.dtype == "float64"


def test_per_input_dtype_decodes_to_a_mapping():
    state = decode({"outputs": "x*n", "inputs": '{"x": [1.5], "n": 2}', "dtype": "n:int32,x:float32"})
    assert state.dtype == {"n": "int32", "x": "float32"}


@pytest.mark.parametrize("state", [
    ShareState("x*x", {"x": [1, 2]}),
    ShareState("[x0*x1*x2, x0*x1*x2*x0]", {"x0": 3.0, "x1": 4.0, "x2": 5.0}, ("x0", "x1"), ("unstack", "naive")),
    ShareState("matmul(W, v)", {"W": [[1, 2], [3, 4]], "v": [0.5, -1]}, None, ("jacobian",), "float64"),
    ShareState("x*n", {"x": [1.5, 2.5], "n": 3}, None, (), {"x": "float32", "n": "int32"}),
])
def test_encode_then_decode_gives_the_same_state(state):
    assert decode(encode(state)) == state


def test_query_string_survives_url_parsing():
    state = ShareState("sum(x**2) + 1/x[0]", {"x": [1, -2.5e-3]}, None, ("forward",))
    url = link(state, "http://127.0.0.1:8501/playground")
    parts = urlsplit(url)
    assert parts.path == "/playground"
    assert decode(dict(parse_qsl(parts.query))) == state
    assert "&" not in query_string(state).split("&", 1)[0]   # the function's own characters are escaped


def test_link_drops_an_old_query_from_the_base():
    assert link(ShareState("x", {"x": 1}), "http://h/p?outputs=old#frag").startswith("http://h/p?outputs=x&")


def test_repeated_parameter_takes_the_last_value():
    assert decode({**SEED, "outputs": ["x0", "x1*x2"]}).outputs == "x1*x2"


@pytest.mark.parametrize("params, match", [
    ({"inputs": '{"x": 1}'}, r"'outputs' parameter \(the function\) is missing"),
    ({"outputs": "   ", "inputs": '{"x": 1}'}, "missing or empty"),
    ({"outputs": "x*x"}, "'inputs' parameter is missing"),
    ({"outputs": "x*x", "inputs": '{"x": [1, 2}'}, r"'inputs' is not valid JSON: .* at column"),
    ({"outputs": "x*x", "inputs": "[1, 2]"}, "must be a JSON object of name -> value.*got a list"),
    ({"outputs": "x*x", "inputs": '"x"'}, "got a string"),
    ({"outputs": "x*x", "inputs": '{"x": "1"}'}, "a string"),
    ({"outputs": "x*x", "inputs": '{"x": true}'}, "a boolean"),
    ({"outputs": "x*x", "inputs": '{"x": null}'}, r"None \(null\)"),
    ({"outputs": "x*x", "inputs": '{"x": [[1, 2], [3]]}'}, "ragged"),
    ({"outputs": "x*x", "inputs": '{"x": 1, "x": 2}'}, "names 'x' twice"),
    ({"outputs": "x*x", "inputs": '{"x": []}'}, "empty list"),
    ({"outputs": "x*x", "inputs": "{}"}, "inputs is empty"),
    ({**SEED, "method": "magic"}, "method 'magic' is not a method; choose from unstack"),
    ({**SEED, "method": "naive,naive"}, "listed twice"),
    ({**SEED, "dtype": "float16"}, "dtype 'float16' is not accepted; use float32 or float64"),
    ({**SEED, "dtype": "x0:complex64"}, "dtype 'complex64' of 'x0' is not one of"),
    ({**SEED, "dtype": "zz:int32"}, "dtype names 'zz', which is not an input"),
    ({**SEED, "watch": "x0,zz"}, "watch names 'zz', which is not an input"),
    ({**SEED, "watch": ""}, "watch is empty"),
])
def test_malformed_links_say_what_is_wrong(params, match):
    with pytest.raises(ExpressionError, match=match):
        decode(params)


@pytest.mark.parametrize("params, match", [
    ({"outputs": "x*x", "inputs": '{"__class__": 1}'}, "starts with '_'"),
    ({"outputs": "x*x", "inputs": '{"__import__(\'os\')": 1}'}, "is not a valid name"),
    ({"outputs": "x*x", "inputs": '{"import": 1}'}, "is not a valid name"),
    ({"outputs": "x*x", "inputs": '{"sum": 1}'}, "is the name of a function"),
    ({"outputs": "x*x", "inputs": '{"\u0445": 1}'}, "is not a valid name"),            # Cyrillic look-alike of x
    ({"outputs": "x*x", "inputs": '{"x\u00e9": 1}'}, "is not a valid name"),
    ({"outputs": "x" * 2001, "inputs": '{"x": 1}'}, "'outputs' is 2,001 characters long; at most 2,000"),
    ({"outputs": "x*x", "inputs": '{"x": [' + "0," * 20_000 + "0]}"}, "'inputs' is 40,010 characters long"),
    ({"outputs": "x*x", "inputs": '{"x": ' + "[" * 5000 + "]" * 5000 + "}"}, "nested more than 5 levels deep at column 11"),
    ({"outputs": "x*x", "inputs": '{"x": ' + "[" * 6 + "1" + "]" * 6 + "}"}, "nested more than 5 levels deep"),
    ({"outputs": "x*x", "inputs": '{"x": 1' + "0" * 5000 + "}"}, "cannot be read"),      # int too long to convert
    ({"outputs": "x*x", "inputs": '{"x": 1}', "watch": "x," * 400}, "'watch' is 800 characters long"),
    ({"outputs": "x*x", "inputs": '{"x": 1}', "method": "__class__"}, "method '__class__' is not a method"),
    ({"outputs": "x*x", "inputs": json.dumps({f"x{k}": 1 for k in range(17)})}, "too many inputs"),
    ({"outputs": 42, "inputs": '{"x": 1}'}, "must be text"),
])
def test_hostile_links_are_refused(params, match):
    with pytest.raises(ExpressionError, match=match):
        decode(params)


def test_dunder_payload_in_the_function_is_left_for_gradlib_to_refuse():
    # The function text is only checked for length here: gradlib refuses it with a column when it is computed.
    state = decode({"outputs": "().__class__.__bases__[0].__subclasses__()", "inputs": '{"x": 1}'})
    assert state.outputs.startswith("().__class__")


def test_brackets_inside_a_json_name_do_not_count_as_nesting():
    with pytest.raises(ExpressionError, match="is not a valid name"):
        decode({"outputs": "x", "inputs": '{"[[[[[[": 1}'})


def test_non_finite_values_are_accepted_for_gradlib_to_flag():
    assert decode({"outputs": "x", "inputs": '{"x": [NaN, Infinity]}'}).inputs["x"][1] == float("inf")


def test_encode_refuses_a_state_too_large_for_a_link():
    with pytest.raises(ExpressionError, match="too large to share: its 'inputs' would be"):
        encode(ShareState("x", {"x": [0.123456789] * 5000}))


@pytest.mark.parametrize("text, value", [("3", 3), (" [1, 2.5] ", [1, 2.5]), ("[[1, 2], [3, 4]]", [[1, 2], [3, 4]]),
                                         ("-inf", float("-inf")), ("1e-3", 0.001)])
def test_parse_value_reads_numbers_vectors_and_matrices(text, value):
    assert parse_value(text, where="x") == value


@pytest.mark.parametrize("text, match", [("", "is empty"), ("[1, 2", "is not valid JSON"), ("1" * 10_001, "10,001 characters"),
                                         ("[[[[[1]]]]]", "nested more than 4 levels")])
def test_parse_value_refuses_what_is_not_a_value(text, match):
    with pytest.raises(InputError, match=match):
        parse_value(text, where="the value of input 'x'")


def test_rows_round_trip_through_the_input_table():
    state = ShareState("a*b*n", {"a": 2, "b": [1, 2], "n": 3}, ("a", "n"), ("unstack",),
                       {"a": "float64", "b": "float64", "n": "int32"})
    rows = rows_of(state)
    assert [r["watched"] for r in rows] == [True, False, True]
    assert [r["dtype"] for r in rows] == ["float64", "float64", "int32"]
    assert from_rows(state.outputs, rows, state.methods) == state


def test_from_rows_uses_one_dtype_name_when_all_inputs_share_a_float_dtype():
    rows = [{"name": "x", "value": "1", "watched": True, "dtype": "float64"},
            {"name": "n", "value": "2", "watched": True, "dtype": "float64"}]
    assert from_rows("x*n", rows).dtype == "float64"
    assert from_rows("x*n", [dict(r, dtype="int32") for r in rows]).dtype == {"x": "int32", "n": "int32"}


def test_from_rows_skips_blank_rows_that_the_table_editor_adds():
    rows = [{"name": "x", "value": "[1, 2]", "watched": True, "dtype": "float32"},
            {"name": None, "value": None, "watched": None, "dtype": None}, {"name": " ", "value": ""}]
    assert from_rows("x*x", rows).inputs == {"x": [1, 2]}


@pytest.mark.parametrize("rows, match", [
    ([], "define at least one input"),
    ([{"name": "", "value": "1"}], "input row 1 has no name"),
    ([{"name": "x", "value": "1"}, {"name": "x", "value": "2"}], "input name 'x' appears twice"),
    ([{"name": "x", "value": "one"}], "the value of input 'x' is not valid JSON"),
    ([{"name": "x", "value": "1", "watched": False}], "watch is empty"),
    ([{"name": f"x{k}", "value": "1"} for k in range(17)], r"too many inputs \(17\)"),
])
def test_from_rows_refuses_a_bad_table(rows, match):
    with pytest.raises(ExpressionError, match=match):
        from_rows("x", rows)


def test_a_function_too_long_for_a_link_states_its_length_and_the_limit():
    with pytest.raises(ExpressionError, match=r"^the function is 2,001 characters long; at most 2,000 are allowed$"):
        from_rows("x" * 2001, [{"name": "x", "value": "1"}])
    assert from_rows("x" * 2000, [{"name": "x", "value": "1"}]).outputs == "x" * 2000
    with pytest.raises(ExpressionError, match=r"^the function must be text; got int$"):
        check_state(ShareState(3, {"x": 1}))


def test_bounds_cover_every_share_parameter():
    assert set(MAX_LENGTHS) == {"outputs", "inputs", "watch", "method", "dtype"}
