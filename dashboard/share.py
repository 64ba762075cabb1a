"""Share links: the playground's state as URL query parameters, and back, refusing what is not acceptable.

A link is ``?outputs=<function>&inputs=<JSON object name -> value>``, optionally with
``&watch=a,b`` (the inputs to differentiate; all by default), ``&method=unstack`` (or several,
comma-separated) and ``&dtype=float64`` (or per input: ``n:int32,x:float32``). Everything in a link
is untrusted: each parameter is bounded in length, the JSON in depth, and the names, values,
methods and dtypes are checked with gradlib's own rules before anything reaches TensorFlow. The
function text itself is checked when it is computed (so its error can point at the column).

>>> state = decode({"outputs": "x*x", "inputs": '{"x": [1, 2]}'})
>>> state.outputs, state.inputs, state.watch
('x*x', {'x': [1, 2]}, None)
>>> encode(state)
{'outputs': 'x*x', 'inputs': '{"x":[1,2]}'}
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence
from urllib.parse import quote, urlencode

from gradlib import DTYPES, FLOAT_DTYPES, METHODS, ExpressionError, InputError, check_inputs

from .limits import APP_LIMITS

__all__ = ["MAX_JSON_DEPTH", "MAX_LENGTHS", "MAX_VALUE_CHARS", "ORDERS", "PDE_LENGTHS", "check_state", "decode",
           "decode_pde", "encode", "encode_pde", "from_rows", "link_pde", "is_share_link", "link", "parse_inputs", "parse_value", "query_string", "rows_of", "ShareState"]

#: the query parameters a share link may carry, and the longest value each may have
MAX_LENGTHS = {"outputs": APP_LIMITS.max_chars, "inputs": 20_000, "watch": 600, "method": 200, "dtype": 800, "order": 8}
#: the orders a link may open: 1, the per-element gradients; 2, the Hessians as well
ORDERS = (1, 2)
#: the longest value text of one input typed in the playground
MAX_VALUE_CHARS = 10_000
#: JSON nesting allowed in ``inputs``: the object itself, then at most ``max_rank`` levels of lists
MAX_JSON_DEPTH = 1 + APP_LIMITS.max_rank


@dataclass(frozen=True)
class ShareState:
    """What a share link holds: the function, its inputs and the options, validated.

    ``inputs`` maps name -> number or nested list, as written; ``watch`` is ``None`` to watch every
    input; ``methods`` is empty when the link does not choose; ``dtype`` is a float dtype name or a
    mapping name -> dtype, exactly as ``gradlib.evaluate`` takes it; ``order`` is 2 when the link opens the
    second-order view (the Hessians) too.
    """

    outputs: str
    inputs: dict[str, Any]
    watch: tuple[str, ...] | None = None
    methods: tuple[str, ...] = ()
    dtype: str | dict[str, str] = field(default="float32")
    order: int = 1


def is_share_link(params: Mapping[str, Any]) -> bool:
    """True when ``params`` carries any share-link parameter.

    >>> is_share_link({"embed": "true"}), is_share_link({"outputs": "x"})
    (False, True)
    """
    return any(key in params for key in MAX_LENGTHS)


def decode(params: Mapping[str, Any]) -> ShareState | None:
    """The state a share link describes, or ``None`` when ``params`` holds no share-link parameter.

    Args:
        params: the page's query parameters (``st.query_params``): name -> text (a list: the last text).

    Raises:
        ExpressionError: a parameter is missing, too long, not valid JSON, or names something gradlib refuses.

    >>> decode({"outputs": "x0*x1", "inputs": '{"x0": 3, "x1": 4}', "watch": "x0", "method": "unstack,naive"})
    ShareState(outputs='x0*x1', inputs={'x0': 3, 'x1': 4}, watch=('x0',), methods=('unstack', 'naive'), dtype='float32', order=1)
    """
    if not is_share_link(params):
        return None
    raw = {key: _check_param(key, params[key]) for key in MAX_LENGTHS if key in params}
    if "outputs" not in raw or not raw["outputs"].strip():
        raise ExpressionError("share link: the 'outputs' parameter (the function) is missing or empty; "
                              "a link looks like ?outputs=x*x&inputs={\"x\": [1, 2]}")
    if "inputs" not in raw:
        raise ExpressionError("share link: the 'inputs' parameter is missing; add inputs={\"x\": [1, 2]}")
    inputs = parse_inputs(raw["inputs"])
    watch = _split_names(raw["watch"]) if "watch" in raw else None
    dtype = _parse_dtype(raw.get("dtype", "float32"))
    state = ShareState(raw["outputs"], inputs, watch, _split_names(raw.get("method", "")), dtype,
                       _parse_order(raw.get("order", "1")))
    return check_state(state)


def encode(state: ShareState) -> dict[str, str]:
    """The query parameters of ``state`` (defaults left out), the inverse of ``decode``.

    Raises:
        ExpressionError: the state is too large to fit in a link.

    >>> encode(ShareState("x*x", {"x": 2.0}, ("x",), ("naive",), {"x": "float64"}, order=2))
    {'outputs': 'x*x', 'inputs': '{"x":2.0}', 'watch': 'x', 'method': 'naive', 'dtype': 'x:float64', 'order': '2'}
    """
    params = {"outputs": state.outputs, "inputs": json.dumps(state.inputs, separators=(",", ":"))}
    if state.watch is not None:
        params["watch"] = ",".join(state.watch)
    if state.methods:
        params["method"] = ",".join(state.methods)
    if state.dtype != "float32":
        params["dtype"] = state.dtype if isinstance(state.dtype, str) else ",".join(
            f"{name}:{kind}" for name, kind in state.dtype.items())
    if state.order != 1:
        params["order"] = str(state.order)
    for key, value in params.items():
        if len(value) > MAX_LENGTHS[key]:
            raise ExpressionError(f"this state is too large to share: its {key!r} would be {len(value):,} characters "
                                  f"long; a link allows {MAX_LENGTHS[key]:,}. Download the JSON instead")
    return params


def query_string(state: ShareState) -> str:
    """``encode(state)`` as the text after ``?`` in a URL.

    >>> query_string(ShareState("x*x", {"x": [1, 2]}))
    'outputs=x%2Ax&inputs=%7B%22x%22%3A%5B1%2C2%5D%7D'
    """
    return urlencode(encode(state), quote_via=quote, safe="")


def link(state: ShareState, base: str | None) -> str:
    """The full share link of ``state`` on the page at ``base`` (its URL without a query), or just ``?...``.

    >>> link(ShareState("x", {"x": 1}), "http://localhost:8501/playground?old=1")
    'http://localhost:8501/playground?outputs=x&inputs=%7B%22x%22%3A1%7D'
    """
    prefix = (base or "").split("?", 1)[0].split("#", 1)[0]
    return f"{prefix}?{query_string(state)}"


def check_state(state: ShareState) -> ShareState:
    """Check the inputs, watch list, methods, dtype and order of ``state`` with gradlib's rules under the app's limits
    (``APP_LIMITS``, the ones the pages compute with); return it unchanged."""
    if not isinstance(state.outputs, str):
        raise ExpressionError(f"the function must be text; got {type(state.outputs).__name__}")
    if len(state.outputs) > MAX_LENGTHS["outputs"]:
        raise ExpressionError(f"the function is {len(state.outputs):,} characters long; at most "
                              f"{MAX_LENGTHS['outputs']:,} are allowed")
    check_inputs(state.inputs, watch=None if state.watch is None else list(state.watch), dtype=state.dtype,
                 limits=APP_LIMITS)
    _check_methods(tuple(state.methods))
    if isinstance(state.order, bool) or not isinstance(state.order, int) or state.order not in ORDERS:
        raise ExpressionError(f"the order must be 1 or 2; got {state.order!r}")
    return state


def parse_value(text: str, *, where: str) -> Any:
    """One input value typed as JSON: a number (``3``), a vector (``[1, 2]``) or a matrix (``[[1, 2], [3, 4]]``).

    ``NaN``, ``Infinity`` and the spellings ``nan`` and ``inf`` are accepted (gradlib flags them).

    >>> parse_value("[[1, 2], [3, 4.5]]", where="input 'W'")
    [[1, 2], [3, 4.5]]
    """
    if not isinstance(text, str) or not text.strip():
        raise InputError(f"{where} is empty: type a number such as 3.0, or a list such as [1, 2]")
    if len(text) > MAX_VALUE_CHARS:
        raise InputError(f"{where} is {len(text):,} characters long; at most {MAX_VALUE_CHARS:,} are allowed")
    text = text.strip()
    spelled = {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity", "+inf": "Infinity"}
    return _loads(spelled.get(text.lower(), text), where, MAX_JSON_DEPTH - 1)


def parse_inputs(text: str) -> dict[str, Any]:
    """The JSON object of a share link's ``inputs`` parameter: name -> number or nested list.

    >>> parse_inputs('{"x": [1, 2], "s": 0.5}')
    {'x': [1, 2], 's': 0.5}
    """
    value = _loads(text, "share link: 'inputs'", MAX_JSON_DEPTH)
    if not isinstance(value, dict):
        raise InputError(f"share link: 'inputs' must be a JSON object of name -> value, like "
                         f"{{\"x\": [1, 2]}}; got a {_json_kind(value)}")
    return value


def rows_of(state: ShareState) -> list[dict[str, Any]]:
    """The playground's input table for ``state``: one row per input (name, value text, watched, dtype).

    >>> rows_of(ShareState("a*b", {"a": 2, "b": [1, 2]}, ("a",)))
    [{'name': 'a', 'value': '2', 'watched': True, 'dtype': 'float32'}, {'name': 'b', 'value': '[1, 2]', 'watched': False, 'dtype': 'float32'}]
    """
    dtypes = state.dtype if isinstance(state.dtype, dict) else {}
    default = state.dtype if isinstance(state.dtype, str) else "float32"
    return [{"name": name, "value": json.dumps(value), "watched": state.watch is None or name in state.watch,
             "dtype": dtypes.get(name, default)} for name, value in state.inputs.items()]


def from_rows(outputs: str, rows: Sequence[Mapping[str, Any]], methods: Sequence[str] = ()) -> ShareState:
    """The state the playground's widgets describe: the function, the input table and the methods.

    Raises:
        ExpressionError: a row has no name, a repeated name or a value that is not a number or a list.

    >>> from_rows("x*s", [{"name": "x", "value": "[1, 2]", "watched": True, "dtype": "float64"},
    ...                   {"name": "s", "value": "3", "watched": False, "dtype": "float64"}])
    ShareState(outputs='x*s', inputs={'x': [1, 2], 's': 3}, watch=('x',), methods=(), dtype='float64', order=1)
    """
    rows = [row for row in rows if any(_blank_to_none(row.get(k)) is not None for k in ("name", "value"))]
    _check_rows(rows)
    inputs: dict[str, Any] = {}
    for k, row in enumerate(rows, start=1):
        name = str(row.get("name") or "").strip()
        if not name:
            raise ExpressionError(f"input row {k} has no name; give it one, like x0")
        if name in inputs:
            raise ExpressionError(f"input name {name!r} appears twice; each input needs its own name")
        inputs[name] = parse_value(str(row.get("value") or ""), where=f"the value of input {name!r}")
    watched = tuple(name for name, row in zip(inputs, rows) if bool(row.get("watched", True)))
    watch = None if len(watched) == len(inputs) else watched
    kinds = {name: str(row.get("dtype") or "float32") for name, row in zip(inputs, rows)}
    return check_state(ShareState(outputs, inputs, watch, tuple(methods), _one_dtype(kinds)))


def _one_dtype(kinds: dict[str, str]) -> str | dict[str, str]:
    """One float dtype name when every input shares it, else the mapping name -> dtype."""
    shared = set(kinds.values())
    return shared.pop() if len(shared) == 1 and shared <= set(FLOAT_DTYPES) else kinds


# ---------------------------------------------------------------- checks


def _check_param(key: str, value: Any) -> str:
    if isinstance(value, (list, tuple)):
        value = value[-1] if value else ""   # repeated parameters: the last one wins, as in st.query_params
    if not isinstance(value, str):
        raise ExpressionError(f"share link: {key!r} must be text; got {type(value).__name__}")
    if len(value) > MAX_LENGTHS[key]:
        raise ExpressionError(f"share link: {key!r} is {len(value):,} characters long; "
                              f"at most {MAX_LENGTHS[key]:,} are allowed")
    return value


def _parse_order(text: str) -> int:
    if text.strip() not in {str(k) for k in ORDERS}:
        raise ExpressionError(f"share link: 'order' must be 1 (the per-element gradients) or 2 (the Hessians as "
                              f"well); got {text!r}")
    return int(text)


def _check_rows(rows: Sequence[Mapping[str, Any]]) -> None:
    if not rows:
        raise ExpressionError("define at least one input: a name such as x and a value such as [1, 2]")
    if len(rows) > APP_LIMITS.max_inputs:
        raise ExpressionError(f"too many inputs ({len(rows)}); at most {APP_LIMITS.max_inputs} are allowed")


def _check_depth(text: str, where: str, limit: int) -> None:
    """Refuse JSON nested deeper than ``limit`` before ``json`` sees it (it recurses once per level).

    The text (bounded in length before) is read to its end, so the message names the depth it reaches.
    """
    depth = deepest = 0
    first, in_string, escaped = None, False, False      # first: the column of the first level past the limit
    for col, char in enumerate(text, start=1):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
            continue
        if char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
            if first is None and depth > limit:
                first = col
        elif char in "]}":
            depth -= 1
    if first is not None:
        raise InputError(f"{where} is nested {deepest:,} levels deep; at most {limit} are allowed, and level "
                         f"{limit + 1} is at column {first}; tensors have at most {APP_LIMITS.max_rank} dimensions")


def _loads(text: str, where: str, depth: int) -> Any:
    _check_depth(text, where, depth)
    try:
        return json.loads(text, object_pairs_hook=lambda pairs: _unique_keys(pairs, where))
    except json.JSONDecodeError as exc:
        raise InputError(f"{where} is not valid JSON: {exc.msg} at column {exc.colno}. "
                         "Write numbers and lists like [[1, 2], [3, 4]]") from None
    except (ValueError, RecursionError, MemoryError) as exc:
        if isinstance(exc, ExpressionError):
            raise
        raise InputError(f"{where} cannot be read: {str(exc)[:120]}") from None


def _unique_keys(pairs: list[tuple[str, Any]], where: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ExpressionError(f"{where} names {key[:40]!r} twice; each input needs its own name")
        out[key] = value
    return out


def _split_names(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(",") if part.strip())


def _check_methods(methods: tuple[str, ...]) -> None:
    """Each method once, and a method of gradlib's (the one check of them, in ``check_state``)."""
    for method in methods:
        if method not in METHODS:
            raise ExpressionError(f"share link: method {method[:40]!r} is not a method; choose from {', '.join(METHODS)}")
    if len(set(methods)) != len(methods):
        raise ExpressionError("share link: a method is listed twice in 'method'")


def _parse_dtype(text: str) -> str | dict[str, str]:
    text = text.strip()
    if ":" not in text:
        if text not in FLOAT_DTYPES:
            raise ExpressionError(f"share link: dtype {text[:40]!r} is not accepted; use {' or '.join(FLOAT_DTYPES)}, "
                                  "or name:dtype pairs such as n:int32,x:float32")
        return text
    out: dict[str, str] = {}
    for part in _split_names(text):
        name, _, kind = (p.strip() for p in part.partition(":"))
        if kind not in DTYPES:
            raise ExpressionError(f"share link: dtype {kind[:40]!r} of {name[:40]!r} is not one of {', '.join(DTYPES)}")
        out[name] = kind
    return out


def _json_kind(value: Any) -> str:
    kinds = {bool: "boolean", int: "number", float: "number", list: "list", str: "string", type(None): "null"}
    return kinds.get(type(value), type(value).__name__)


def _blank_to_none(value: Any) -> Any:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return value if str(value).strip() else None


#: the "PDE residuals" page's link: its parameters and the longest value each may have
PDE_LENGTHS = {"equation": 40, "residual": APP_LIMITS.max_chars, "u": APP_LIMITS.max_chars, "grid": 4, "t": 32}


def encode_pde(fields: Mapping[str, Any]) -> dict[str, str]:
    """The PDE page's query parameters from its inputs (``equation``, ``residual``, ``u``, ``grid``, ``t``); empty
    texts are left out.

    >>> encode_pde({"equation": "heat", "residual": "", "u": "sin(x)", "grid": 9, "t": 0.25})
    {'equation': 'heat', 'u': 'sin(x)', 'grid': '9', 't': '0.25'}
    """
    params = {key: str(fields[key]) for key in PDE_LENGTHS if key in fields and str(fields[key]).strip()}
    for key, value in params.items():
        if len(value) > PDE_LENGTHS[key]:
            raise ExpressionError(f"this state is too large to share: its {key!r} would be {len(value):,} characters "
                                  f"long; a link allows {PDE_LENGTHS[key]:,}")
    return params


def link_pde(fields: Mapping[str, Any], base: str | None) -> str:
    """The PDE page's share link on the page at ``base`` (its URL without a query).

    >>> link_pde({"equation": "heat", "grid": 9}, "http://localhost:8501/pde?old=1")
    'http://localhost:8501/pde?equation=heat&grid=9'
    """
    prefix = (base or "").split("?", 1)[0].split("#", 1)[0]
    return f"{prefix}?{urlencode(encode_pde(fields), quote_via=quote, safe='')}"


def decode_pde(params: Mapping[str, Any]) -> dict[str, Any]:
    """The PDE page's inputs a link carries (only those it carries), bounded and typed; the page checks the rest.

    >>> decode_pde({"equation": "heat", "grid": "9", "t": "0.25", "embed": "true"})
    {'equation': 'heat', 'grid': 9, 't': 0.25}

    Raises:
        ExpressionError: a parameter is too long, or ``grid`` / ``t`` is not a number (the message names it).
    """
    found = {}
    for key, longest in PDE_LENGTHS.items():
        if key not in params:
            continue
        value = params[key][-1] if isinstance(params[key], (list, tuple)) and params[key] else params[key]
        if not isinstance(value, str) or len(value) > longest:
            raise ExpressionError(f"share link: {key!r} must be text of at most {longest:,} characters")
        found[key] = _pde_number(key, value) if key in ("grid", "t") else value
    return found


def _pde_number(key: str, text: str) -> int | float:
    try:
        number = int(text) if key == "grid" else float(text)
    except ValueError:
        raise ExpressionError(f"share link: {key!r} is {text!r}; give a "
                              f"{'whole number' if key == 'grid' else 'number'}") from None
    if key == "t" and not math.isfinite(number):
        raise ExpressionError(f"share link: 't' is {text!r}; give a finite number")
    return number
