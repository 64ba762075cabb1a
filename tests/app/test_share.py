"""Share links: what round-trips, and what a hostile or malformed link gets (an ExpressionError that says what)."""

from __future__ import annotations

import json
import re
from urllib.parse import parse_qsl, urlsplit

import pytest

from gradlib import ExpressionError, InputError
from dashboard import share
from dashboard.share import (MAX_LENGTHS, ShareState, check_state, decode, encode, from_rows, is_share_link, link,
                             parse_value, query_string, rows_of)

SEED = {"outputs": "[x0*x1*x2, x0*x1*x2*x0]", "inputs": '{"x0": 3, "x1": 4, "x2": 5}'}
DIMENSIONS = "; tensors have at most 4 dimensions"   # the end of every nesting refusal of the app's JSON


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
    ({"outputs": "x*x", "inputs": '{"x": ' + "[" * 5000 + "]" * 5000 + "}"},
     "nested 5,001 levels deep; at most 5 are allowed, and level 6 is at column 11"),
    ({"outputs": "x*x", "inputs": '{"x": ' + "[" * 6 + "1" + "]" * 6 + "}"}, "nested 7 levels deep; at most 5 are allowed"),
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
                                         ("[[[[[1]]]]]", "nested 5 levels deep; at most 4")])
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
    assert set(MAX_LENGTHS) == {"outputs", "inputs", "watch", "method", "dtype", "order"}


# ----------------------------------------------------------------------------------------------------
# Pins (joined from test_mutants_share.py)
# Share links, each refusal word for word and each edge of the parsing (`make mutate`: docs/mutation.md).
#
# tests/app/test_share.py checks what a link round-trips to and that bad links are refused with a matching part of the
# message; these pin the whole message (what is wrong, where, and what to do is the answer the reader gets) and the
# edges the mutation run found unpinned: the last of a repeated parameter, brackets inside JSON strings, blank rows.
# ----------------------------------------------------------------------------------------------------


import math

import pytest

from dashboard.share import (MAX_JSON_DEPTH, MAX_LENGTHS, MAX_VALUE_CHARS, ShareState, check_state, decode, encode,
                             from_rows, is_share_link, link, parse_inputs, parse_value, rows_of)
from gradlib import LIMITS, ExpressionError

X1 = '{"x": 1}'


def refusal(call, *args, **kwargs) -> str:
    with pytest.raises(ExpressionError) as info:
        call(*args, **kwargs)
    return str(info.value)


@pytest.mark.parametrize("params, message", [
    ({"outputs": " ", "inputs": "{}"},
     "share link: the 'outputs' parameter (the function) is missing or empty; a link looks like "
     "?outputs=x*x&inputs={\"x\": [1, 2]}"),
    ({"inputs": X1, "watch": "x"},
     "share link: the 'outputs' parameter (the function) is missing or empty; a link looks like "
     "?outputs=x*x&inputs={\"x\": [1, 2]}"),
    ({"outputs": "x"}, "share link: the 'inputs' parameter is missing; add inputs={\"x\": [1, 2]}"),
    ({"outputs": "x", "inputs": 3}, "share link: 'inputs' must be text; got int"),
    ({"outputs": "x", "inputs": "x" * 20_001},
     "share link: 'inputs' is 20,001 characters long; at most 20,000 are allowed"),
    ({"outputs": "x", "inputs": "[1]"},
     "share link: 'inputs' must be a JSON object of name -> value, like {\"x\": [1, 2]}; got a list"),
    ({"outputs": "x", "inputs": "true"},
     "share link: 'inputs' must be a JSON object of name -> value, like {\"x\": [1, 2]}; got a boolean"),
    ({"outputs": "x", "inputs": "null"},
     "share link: 'inputs' must be a JSON object of name -> value, like {\"x\": [1, 2]}; got a null"),
    ({"outputs": "x", "inputs": '"x"'},
     "share link: 'inputs' must be a JSON object of name -> value, like {\"x\": [1, 2]}; got a string"),
    ({"outputs": "x", "inputs": "2.5"},
     "share link: 'inputs' must be a JSON object of name -> value, like {\"x\": [1, 2]}; got a number"),
    ({"outputs": "x", "inputs": '{"x": 1, "x": 2}'}, "share link: 'inputs' names 'x' twice; each input needs its own name"),
    ({"outputs": "x", "inputs": '{"x": [1,}'},
     "share link: 'inputs' is not valid JSON: Expecting value at column 10. Write numbers and lists like [[1, 2], [3, 4]]"),
    ({"outputs": "x", "inputs": X1, "method": "naive,bogus"},
     "share link: method 'bogus' is not a method; choose from unstack, jacobian, forward, structured, naive, summed, auto"),
    ({"outputs": "x", "inputs": X1, "method": "naive, naive"}, "share link: a method is listed twice in 'method'"),
    ({"outputs": "x", "inputs": X1, "dtype": "float16"},
     "share link: dtype 'float16' is not accepted; use float32 or float64, or name:dtype pairs such as "
     "n:int32,x:float32"),
    ({"outputs": "x", "inputs": X1, "dtype": "x:int8"},
     "share link: dtype 'int8' of 'x' is not one of float32, float64, int32, int64"),
    ({"outputs": "x", "inputs": '{"x": [[[[[[1]]]]]]}'},
     "share link: 'inputs' is nested 7 levels deep; at most 5 are allowed, and level 6 is at column 11" + DIMENSIONS),
])
def test_each_bad_link_is_refused_with_this_message(params, message):
    assert refusal(decode, params) == message


def test_the_limits_are_the_documented_ones():
    assert MAX_LENGTHS == {"outputs": LIMITS.max_chars, "inputs": 20_000, "watch": 600, "method": 200, "dtype": 800,
                           "order": 8}
    assert MAX_VALUE_CHARS == 10_000 and MAX_JSON_DEPTH == 1 + LIMITS.max_rank == 5


def test_a_parameter_at_its_length_limit_is_read_and_one_over_is_refused():
    at = '{"x": [' + ", ".join(["1"] * 100) + "]}"
    padded = at + " " * (MAX_LENGTHS["inputs"] - len(at))
    assert decode({"outputs": "sum(x)", "inputs": padded}).inputs == {"x": [1] * 100}
    assert refusal(decode, {"outputs": "sum(x)", "inputs": padded + " "}) == (
        "share link: 'inputs' is 20,001 characters long; at most 20,000 are allowed")


def test_a_repeated_parameter_keeps_its_last_value_and_an_empty_repeat_is_empty():
    state = decode({"outputs": ["x*x", "x+x"], "inputs": [X1, '{"x": 2}'], "watch": ["", "x"]})
    assert (state.outputs, state.inputs, state.watch) == ("x+x", {"x": 2}, ("x",))
    assert refusal(decode, {"outputs": [], "inputs": X1}).startswith(
        "share link: the 'outputs' parameter (the function) is missing or empty")


def test_only_the_share_parameters_make_a_share_link():
    assert decode({"embed": "true", "page": "x"}) is None
    assert [is_share_link({key: ""}) for key in MAX_LENGTHS] == [True] * 6
    state = decode({"outputs": "x*y", "inputs": '{"x": 1, "y": [2, 3]}', "dtype": " float64 ", "embed": "true"})
    assert state == ShareState("x*y", {"x": 1, "y": [2, 3]}, None, (), "float64")


def test_watch_methods_and_per_input_dtypes_are_read_without_blanks():
    state = decode({"outputs": "n*x", "inputs": '{"n": 2, "x": 1.5}', "watch": " x , ,", "method": "naive, auto,",
                    "dtype": "n:int32, x : float64,"})
    assert state == ShareState("n*x", {"n": 2, "x": 1.5}, ("x",), ("naive", "auto"), {"n": "int32", "x": "float64"})


def test_brackets_inside_json_strings_do_not_count_as_nesting_but_outside_them_they_do():
    deep = "[" * 4 + "1" + "]" * 4
    assert parse_inputs('{"x": ' + deep + "}") == {"x": [[[[1]]]]}
    # a name full of brackets and escaped quotes is text, not nesting: the JSON reader then sees it
    name = '[[[[[[\\"{{{{'
    assert parse_inputs('{"' + name + '": 1}') == {'[[[[[["{{{{': 1}
    assert refusal(parse_inputs, '{"a": "\\\\", "x": [[[[[1]]]]]}') == (
        "share link: 'inputs' is nested 6 levels deep; at most 5 are allowed, and level 6 is at column 22" + DIMENSIONS)
    # closing brackets bring the depth back: five objects side by side are one level deep each
    assert parse_inputs('{"a": [1], "b": [[2]], "c": [[[3]]], "d": [[[[4]]]]}')["d"] == [[[[4]]]]


def test_a_typed_value_is_a_number_or_nested_lists_and_its_refusals_say_where():
    assert parse_value(" [[1, 2], [3, 4.5]] ", where="input 'W'") == [[1, 2], [3, 4.5]]
    assert math.isnan(parse_value("nan", where="w")) and math.isnan(parse_value("NaN", where="w"))
    assert parse_value(" -INF ", where="w") == -math.inf
    assert parse_value("+inf", where="w") == math.inf == parse_value("Infinity", where="w")
    assert refusal(parse_value, "  ", where="input 'W'") == (
        "input 'W' is empty: type a number such as 3.0, or a list such as [1, 2]")
    assert refusal(parse_value, None, where="input 'W'").startswith("input 'W' is empty")
    assert refusal(parse_value, "1" * 10_001, where="input 'W'") == (
        "input 'W' is 10,001 characters long; at most 10,000 are allowed")
    at_limit = " [" + ",".join(["1"] * 4999) + "]"
    assert len(at_limit) == MAX_VALUE_CHARS and parse_value(at_limit, where="w") == [1] * 4999
    assert refusal(parse_value, "[[[[[1]]]]]", where="input 'W'") == (
        "input 'W' is nested 5 levels deep; at most 4 are allowed, and level 5 is at column 5" + DIMENSIONS)
    assert parse_value("[[[[1]]]]", where="w") == [[[[1]]]]
    assert refusal(parse_value, '"a', where="w") == (
        "w is not valid JSON: Unterminated string starting at at column 1. Write numbers and lists like [[1, 2], "
        "[3, 4]]")


def test_the_share_link_of_a_state_leaves_its_defaults_out_and_drops_the_old_query():
    assert encode(ShareState("x*x", {"x": [1, 2]})) == {"outputs": "x*x", "inputs": '{"x":[1,2]}'}
    assert encode(ShareState("x*y", {"x": 1, "y": 2}, ("x",), ("naive", "auto"), {"x": "float64", "y": "int32"})) == {
        "outputs": "x*y", "inputs": '{"x":1,"y":2}', "watch": "x", "method": "naive,auto", "dtype": "x:float64,y:int32"}
    assert encode(ShareState("x", {"x": 1}, (), (), "float64")) == {
        "outputs": "x", "inputs": '{"x":1}', "watch": "", "dtype": "float64"}
    assert link(ShareState("x", {"x": 1}), "http://h:1/p?old=1#top") == "http://h:1/p?outputs=x&inputs=%7B%22x%22%3A1%7D"
    assert link(ShareState("x", {"x": 1}), "http://h:1/p#top") == "http://h:1/p?outputs=x&inputs=%7B%22x%22%3A1%7D"
    assert link(ShareState("x", {"x": 1}), None) == "?outputs=x&inputs=%7B%22x%22%3A1%7D"


def test_a_state_too_large_for_a_link_says_which_parameter_and_by_how_much():
    assert refusal(encode, ShareState("x", {"x": list(range(5000))})) == (
        "this state is too large to share: its 'inputs' would be 23,897 characters long; a link allows 20,000. "
        "Download the JSON instead")
    big = {f"x{i}": 1 for i in range(16)}
    watch = tuple(f"{'w' * 40}{i}" for i in range(15))
    assert refusal(encode, ShareState("x0", big, watch)).startswith(
        "this state is too large to share: its 'watch' would be 634 characters long; a link allows 600.")


def test_a_state_is_checked_with_gradlibs_rules_and_returned_unchanged():
    state = ShareState("x", {"x": 1.0}, ("x",), ("auto",), "float64")
    assert check_state(state) is state
    assert refusal(check_state, ShareState("x" * 2001, {"x": 1})) == "the function is 2,001 characters long; at most 2,000 are allowed"
    assert check_state(ShareState("x" * 2000, {"x": 1})).outputs == "x" * 2000
    assert refusal(check_state, ShareState(None, {"x": 1})) == "the function must be text; got NoneType"
    assert "method 'bogus' is not a method" in refusal(check_state, ShareState("x", {"x": 1}, None, ("bogus",)))
    assert "'y'" in refusal(check_state, ShareState("x", {"x": 1}, ("y",)))


def test_the_input_table_of_a_state_and_back():
    state = ShareState("a*b", {"a": 2, "b": [1, 2]}, ("a",), (), {"a": "float64", "b": "int32"})
    rows = rows_of(state)
    assert rows == [{"name": "a", "value": "2", "watched": True, "dtype": "float64"},
                    {"name": "b", "value": "[1, 2]", "watched": False, "dtype": "int32"}]
    assert from_rows("a*b", rows) == state
    assert rows_of(ShareState("a", {"a": 1}, None, (), "float64")) == [
        {"name": "a", "value": "1", "watched": True, "dtype": "float64"}]


def test_rows_from_the_table_skip_blank_ones_and_read_missing_cells_as_their_defaults():
    rows = [{"name": " x ", "value": "[1, 2]"}, {"name": None, "value": float("nan")}, {"name": "  ", "value": ""},
            {"name": "s", "value": "3", "watched": False, "dtype": None}]
    assert from_rows("x*s", rows, ["naive"]) == ShareState("x*s", {"x": [1, 2], "s": 3}, ("x",), ("naive",), "float32")
    every = from_rows("x", [{"name": "x", "value": "1", "dtype": "float64"}, {"name": "y", "value": "0", "dtype": "float64"}])
    assert (every.watch, every.dtype) == (None, "float64")
    mixed = from_rows("x", [{"name": "x", "value": "1", "dtype": "int32"}, {"name": "y", "value": "0", "dtype": "int32"}])
    assert mixed.dtype == {"x": "int32", "y": "int32"}


def test_each_bad_table_is_refused_with_this_message():
    assert refusal(from_rows, "x", []) == "define at least one input: a name such as x and a value such as [1, 2]"
    assert refusal(from_rows, "x", [{"name": None, "value": None}]) == (
        "define at least one input: a name such as x and a value such as [1, 2]")
    assert refusal(from_rows, "x", [{"name": "x", "value": "1"}, {"name": "", "value": "1"}]) == (
        "input row 2 has no name; give it one, like x0")
    assert refusal(from_rows, "x", [{"name": "a", "value": "1"}, {"name": "a", "value": "2"}]) == (
        "input name 'a' appears twice; each input needs its own name")
    assert refusal(from_rows, "x", [{"name": "a", "value": ""}, {"name": "b", "value": "1"}]) == (
        "the value of input 'a' is empty: type a number such as 3.0, or a list such as [1, 2]")
    most = [{"name": f"a{i}", "value": "1"} for i in range(LIMITS.max_inputs)]
    assert len(from_rows("a0", most).inputs) == LIMITS.max_inputs
    assert refusal(from_rows, "x", most + [{"name": "b", "value": "1"}]) == (
        f"too many inputs ({LIMITS.max_inputs + 1}); at most {LIMITS.max_inputs} are allowed")


def test_a_whole_number_is_a_number_too_when_inputs_is_not_an_object():
    assert refusal(decode, {"outputs": "x", "inputs": "3"}) == (
        "share link: 'inputs' must be a JSON object of name -> value, like {\"x\": [1, 2]}; got a number")


def test_a_state_exactly_at_a_links_length_limit_is_encoded():
    n = 9_995                        # '{"x":[' + n times '1,' + the last number + ']}': 2 n + 8 + its digits
    assert len(encode(ShareState("sum(x)", {"x": [1] * n + [1]}))["inputs"]) == MAX_LENGTHS["inputs"] - 1
    assert len(encode(ShareState("sum(x)", {"x": [1] * n + [12]}))["inputs"]) == MAX_LENGTHS["inputs"]
    assert refusal(encode, ShareState("sum(x)", {"x": [1] * n + [123]})).startswith(
        "this state is too large to share: its 'inputs' would be 20,001 characters long")


def test_the_link_drops_everything_after_the_first_question_mark_or_hash():
    state = ShareState("x", {"x": 1})
    query = "outputs=x&inputs=%7B%22x%22%3A1%7D"
    assert link(state, "http://h:1/p?a=1?b=2") == f"http://h:1/p?{query}"
    assert link(state, "http://h:1/p#top#more") == f"http://h:1/p?{query}"


def test_spaces_and_symbols_of_a_link_are_percent_encoded_never_plus():
    assert link(ShareState("x * x + 1", {"x": 1}), "") == (
        "?outputs=x%20%2A%20x%20%2B%201&inputs=%7B%22x%22%3A1%7D")


def test_an_input_a_dtype_mapping_leaves_out_is_float32_in_the_table():
    assert [row["dtype"] for row in rows_of(ShareState("x*y", {"x": 1, "y": 2}, None, (), {"x": "float64"}))] == [
        "float64", "float32"]


def test_an_escaped_quote_stays_inside_its_string_and_brackets_after_it_are_text():
    assert parse_inputs('{"a\\"[[[[[[": 1}') == {'a"[[[[[[': 1}
    # an empty first string closes at once: the brackets after it count
    assert refusal(parse_inputs, '{"": 1, "x": [[[[[1]]]]]}') == (
        "share link: 'inputs' is nested 6 levels deep; at most 5 are allowed, and level 6 is at column 18" + DIMENSIONS)


def test_only_brackets_and_braces_nest_and_each_closing_one_undoes_one_level():
    assert refusal(parse_inputs, "X[[[[[[1]]]]]]") == (
        "share link: 'inputs' is nested 6 levels deep; at most 5 are allowed, and level 6 is at column 7" + DIMENSIONS)
    assert refusal(parse_inputs, "XXXXXXX") == (
        "share link: 'inputs' is not valid JSON: Expecting value at column 1. Write numbers and lists like [[1, 2], "
        "[3, 4]]")
    assert refusal(parse_value, "[[[[1], [[1]]]]]", where="w") == (
        "w is nested 5 levels deep; at most 4 are allowed, and level 5 is at column 10" + DIMENSIONS)


def test_the_last_of_three_repeated_parameters_wins():
    assert decode({"outputs": ["a", "b", "x"], "inputs": X1}).outputs == "x"


def test_json_the_reader_cannot_hold_says_why_in_at_most_120_characters():
    message = refusal(parse_value, "1" * 5000, where="w")
    assert message.startswith("w cannot be read: Exceeds the limit (4300 digits) for integer string conversion")
    assert len(message) == len("w cannot be read: ") + 120


def test_inf_in_any_case_is_infinity():
    assert parse_value("inf", where="w") == parse_value("INF", where="w") == parse_value(" Inf ", where="w") == math.inf


def test_a_dtype_pair_splits_at_its_first_colon():
    assert refusal(decode, {"outputs": "x", "inputs": X1, "dtype": "x:float64:int8"}) == (
        "share link: dtype 'float64:int8' of 'x' is not one of float32, float64, int32, int64")


def test_long_names_in_refusals_are_cut_to_40_characters():
    k, n, m = "k" * 40, "n" * 40, "m" * 40
    assert refusal(decode, {"outputs": "x", "inputs": X1, "dtype": "f" * 50}) == (
        f"share link: dtype {'f' * 40!r} is not accepted; use float32 or float64, or name:dtype pairs such as "
        "n:int32,x:float32")
    assert refusal(decode, {"outputs": "x", "inputs": X1, "dtype": "n" * 50 + ":" + "k" * 50}) == (
        f"share link: dtype {k!r} of {n!r} is not one of float32, float64, int32, int64")
    assert refusal(decode, {"outputs": "x", "inputs": X1, "method": "m" * 50}) == (
        f"share link: method {m!r} is not a method; choose from unstack, jacobian, forward, structured, naive, summed, auto")
    assert refusal(decode, {"outputs": "x", "inputs": '{"' + "k" * 50 + '": 1, "' + "k" * 50 + '": 2}'}) == (
        f"share link: 'inputs' names {k!r} twice; each input needs its own name")


# ---------------------------------------------------------------- one limit set (issue 24)


def test_the_form_checks_with_the_limits_the_pages_compute_with(monkeypatch):
    """``check_state`` (the form's and a share link's check) and ``services`` use one set of limits: an input the
    form accepts is never refused later by ``compare`` under other numbers (it used gradlib's defaults)."""
    import gradlib
    from dashboard import limits, services, share

    assert share.APP_LIMITS is services.APP_LIMITS is limits.APP_LIMITS
    assert services.compare.__wrapped__.__defaults__[0] is limits.APP_LIMITS
    state = ShareState("x * x", {"x": [1.0, 2.0, 3.0, 4.0]}, None, ("jacobian",), "float32")
    assert check_state(state) is state
    monkeypatch.setattr(share, "APP_LIMITS", gradlib.Limits(max_elements=3))
    with pytest.raises(gradlib.InputError, match="4 elements.*at most 3"):
        check_state(state)


@pytest.mark.parametrize("text, order", [("1", 1), ("2", 2), (" 2 ", 2)])
def test_a_link_s_order_round_trips(text, order):
    state = decode({"outputs": "x*x", "inputs": '{"x": 1}', "order": text})
    assert state.order == order
    assert ("order" in encode(state)) == (order == 2)
    assert decode(encode(state)) == state


@pytest.mark.parametrize("text", ["0", "3", "1.0", "", "-1", "two"])
def test_a_link_s_order_other_than_1_or_2_is_refused_whole(text):
    with pytest.raises(ExpressionError, match=re.escape(
            f"share link: 'order' must be 1 (the per-element gradients) or 2 (the Hessians as well); got {text!r}")):
        decode({"outputs": "x*x", "inputs": '{"x": 1}', "order": text})


@pytest.mark.parametrize("order", [0, 3, True, 2.0])
def test_a_state_s_order_is_checked(order):
    with pytest.raises(ExpressionError, match=f"the order must be 1 or 2; got {order!r}"):
        check_state(ShareState("x", {"x": 1.0}, order=order))


# ---- the PDE page's link (dashboard.share.encode_pde / decode_pde)

def test_a_pde_link_round_trips_its_inputs():
    fields = {"equation": "heat", "residual": "u_t - k*(u_xx + u_yy)", "u": "sin(pi*x)*exp(-t)", "grid": 64, "t": 0.3}
    assert share.decode_pde(share.encode_pde(fields)) == fields


@pytest.mark.parametrize("params, message", [
    ({"grid": "abc"}, r"share link: 'grid' is 'abc'; give a whole number"),
    ({"grid": "9.5"}, r"share link: 'grid' is '9.5'; give a whole number"),
    ({"t": "nan"}, r"share link: 't' is 'nan'; give a finite number"),
    ({"t": "x"}, r"share link: 't' is 'x'; give a number"),
    ({"residual": "u" * (share.PDE_LENGTHS["residual"] + 1)}, r"'residual' must be text of at most"),
])
def test_a_bad_pde_link_is_refused_naming_the_parameter(params, message):
    with pytest.raises(ExpressionError, match=message):
        share.decode_pde(params)


def test_the_longest_pde_residual_a_link_takes():
    longest = "u" * share.PDE_LENGTHS["residual"]
    assert share.decode_pde({"residual": longest}) == {"residual": longest}
