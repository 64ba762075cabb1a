"""The language sandbox, attacked: known escape and abuse payloads by family, each refused with an
ExpressionError and no side effect; then hypothesis feeds random text and random syntax trees, and the
outcome must always be a GradResult or an ExpressionError, never another exception or a hang."""

from __future__ import annotations

import ast
import builtins
import contextlib
import os
import signal
import subprocess
import time

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from gradlib import ExpressionError, GradResult, evaluate
from gradlib._language._syntax import FUNCTIONS, _check_tree, _ShapeChecker
from gradlib._foundations._limits import LIMITS

INPUTS = {"x0": 1.0, "x1": 2.0}
MARK = "MARKER"   # replaced by a path in tmp_path: a payload that wrote a file would create it

STRINGS = r"quotes \(strings\) at column \d+ is not part of the language"
ATTRIBUTE = r"attribute access \(a '\.' after a value\) is not allowed; call functions by name"
UNDERSCORE = r"names starting with '_' are not allowed"
UNKNOWN = r"unknown function '{}'; functions are abs, acos, asin, atan, atan2, clip, concat, cos, cosh"
SYNTAX = r"syntax error at column \d+"
BRACES = r"'\{' \(dicts and sets\) at column 1 is not part of the language"
EQUALS = r"'=' \(assignment or comparison\) at column \d+ is not part of the language"
NON_ASCII = r"character .* \(U\+{}, [^)]+\) at column \d+ is not allowed; use "

PAYLOADS = {
    "dunder chains": [
        ("().__class__.__bases__[0].__subclasses__()", ATTRIBUTE),
        ("[].__class__.__mro__[1].__subclasses__()[0]", ATTRIBUTE),
        ("x0.__class__", ATTRIBUTE),
        ("x0.__init__.__globals__", ATTRIBUTE),
        ("sin.__globals__", ATTRIBUTE),
        ("(x0).__dict__", ATTRIBUTE),
        ("__builtins__", UNDERSCORE),
        ("__import__", UNDERSCORE),
        ("__debug__", UNDERSCORE),
        ("__name__", UNDERSCORE),
    ],
    "attribute calls on tensors": [
        (f"x0.numpy().tofile('{MARK}')", STRINGS),
        ("x0.numpy().tofile(x1)", ATTRIBUTE),
        ("x0.numpy", ATTRIBUTE),
        ("x0.shape", ATTRIBUTE),
        ("sin(x0).numpy()", ATTRIBUTE),
        ("(x0 + 1).__add__(x0)", ATTRIBUTE),
    ],
    "builtins": [
        (f"__import__('os').system('touch {MARK}')", STRINGS),
        ("__import__(x0)", UNKNOWN.format("__import__")),
        ("eval('1')", STRINGS),
        ("eval(x0)", UNKNOWN.format("eval")),
        ("exec(x0)", UNKNOWN.format("exec")),
        (f"open('{MARK}', 'w')", STRINGS),
        ("open(x0, x1)", UNKNOWN.format("open")),
        ("getattr(x0, 'numpy')()", STRINGS),
        ("getattr(x0, x1)", UNKNOWN.format("getattr")),
        ("globals()", UNKNOWN.format("globals")),
        ("locals()", UNKNOWN.format("locals")),
        ("vars()", UNKNOWN.format("vars")),
        ("breakpoint()", UNKNOWN.format("breakpoint")),
        ("compile(x0, x0, x0)", UNKNOWN.format("compile")),
        ("print(x0)", UNKNOWN.format("print")),
        ("input()", UNKNOWN.format("input")),
        ("exit()", UNKNOWN.format("exit")),
        ("help()", UNKNOWN.format("help")),
        ("type(x0)", UNKNOWN.format("type")),
        ("setattr(x0, x1, x0)", UNKNOWN.format("setattr")),
        ("x0(1)", UNKNOWN.format("x0")),
        ("sin(x0)(x1)", r"only the language's functions can be called, by name, like sin\(x\)"),
    ],
    "lambdas": [
        ("lambda x0: x0", r"lambda is not allowed; write the expression itself"),
        ("(lambda: 1)()", r"only the language's functions can be called, by name"),
        ("(lambda f: f(f))(lambda f: f(f))", r"only the language's functions can be called, by name"),
        ("[lambda: 1][0]", r"lambda is not allowed"),
    ],
    "comprehensions": [
        ("[x0 for x0 in [1]]", r"comprehensions are not allowed; write the list out, like \[x\[0\], x\[1\]\]"),
        ("sum(x for x in [x0])", r"generator expressions are not allowed \(column 4\)"),
        ("{k: 1 for k in [1]}", BRACES),
        ("{x0 for y in [1]}", BRACES),
    ],
    "f-strings and format": [
        ("f'{x0}'", STRINGS),
        ("f'{__import__(\"os\").system(\"id\")}'", STRINGS),
        ("'{}'.format(x0)", STRINGS),
        ("'%s' % x0", STRINGS),
        ("'{0.__class__}'.format(x0)", STRINGS),
    ],
    "walrus": [
        ("(y := x0)", EQUALS),
        ("[y := 1, y]", EQUALS),
    ],
    "statements": [
        ("x0; __import__('os')", r"';' \(more than one statement\) at column 3"),
        ("x0;x1", r"';' \(more than one statement\) at column 3"),
        ("import os", SYNTAX),
        ("from os import system", SYNTAX),
        ("x0 = 1", EQUALS),
        ("x0 @= x1", EQUALS),
        ("del x0", SYNTAX),
        ("assert x0", SYNTAX),
        ("def f(): pass", SYNTAX),
        ("class A: pass", SYNTAX),
        ("while 1: pass", SYNTAX),
        ("raise SystemExit", SYNTAX),
        ("global x0", SYNTAX),
        ("yield x0", SYNTAX),
        ("await x0", r"'await' is not allowed"),
        ("@sin\ndef f(): pass", SYNTAX),
        ("x0\nimport os", SYNTAX),
        ("x0\nx1", SYNTAX),
        ("x0 + \\\n x1", r"'\\\\' at column 6 is not part of the language"),
        ("x0 # comment", r"'#' \(comments\) at column 4"),
    ],
    "unicode look-alikes": [
        ("\uff45\uff56\uff41\uff4c(x0)", NON_ASCII.format("FF45")),          # fullwidth 'eval'
        ("\U0001d452\U0001d465\U0001d452\U0001d450(x0)", NON_ASCII.format("1D452")),   # italic 'exec'
        ("\uff58" "0.__class__", NON_ASCII.format("FF58")),
        ("x0.\uff3f\uff3fclass\uff3f\uff3f", NON_ASCII.format("FF3F")),   # fullwidth low lines: '__class__'
        ("\u212fval(x0)", NON_ASCII.format("212F")),                      # script e
        ("\u2028x0", NON_ASCII.format("2028")),                           # line separator
        ("x0 \u037e x1", NON_ASCII.format("037E")),                       # Greek question mark, NFKC ';'
    ],
    "bytes": [
        ("b'\\x00'", STRINGS),
        ('b"x0"', STRINGS),
    ],
    "dicts and sets": [
        ("{'a': x0}", BRACES),
        ("{x0, x1}", BRACES),
        ("{}", BRACES),
    ],
    "starred and keywords": [
        ("[*x0]", r"'\*' unpacking is not allowed \(column 2\)"),
        ("sum(*[x0])", r"'\*' unpacking is not allowed \(column 5\)"),
        ("sum(x0, **x1)", r"'\*\*' unpacking is not allowed; the only keyword is axis="),
        ("sum(x0, keepdims=1)", EQUALS),
        ("sum(x0, axis=0, out=x1)", EQUALS),
        ("maximum(x0, x1, name=1)", EQUALS),
        ("sin(x0, axis=0)", r"sin\(\) takes no keyword arguments"),
    ],
    "control characters": [
        ("x0\x00", r"control character U\+0000 at column 3 is not allowed"),
        ("\x00import os", r"control character U\+0000 at column 1 is not allowed"),
        ("x0\x0cimport os", r"control character U\+000C at column 3 is not allowed"),
        ("x0\x1b[2J", r"control character U\+001B at column 3 is not allowed"),
    ],
    "other syntax": [
        ("x0 if 1 else x1", r"'if \.\.\. else' is not supported"),
        ("x0 is x1", r"operator 'is' is not supported; compare with > < >= <= == or !="),
        ("x0 > exit()", r"a comparison \('>'\) is true or false and has no gradient"),
        ("not x0", r"operator 'not' is not supported; use unary - or \+"),
        ("x0 or exit()", r"'and'/'or' are not supported"),
        ("...", r"Ellipsis is not a number"),
        ("x0[...]", r"Ellipsis is not a number"),
        ("`x0`", r"'`' at column 1 is not part of the language"),
        ("x0 $ x1", r"'\$' at column 4"),
    ],
}
#: payloads refused by the character screen whose syntax tree is harmless (a line continuation, a comment)
HARMLESS_TREES = {"x0 + \\\n x1", "x0 # comment"}
CASES = [(family, text, pattern) for family, items in PAYLOADS.items() for text, pattern in items]


@pytest.fixture(scope="module", autouse=True)
def _libraries_loaded():
    """NumPy and TensorFlow import some of their own modules on first use (``numpy._core._methods``): do that
    once before any recording, so a recorded ``__import__`` can only come from the text under test."""
    evaluate("[x0 + x1, cos(x1)]", INPUTS)   # not the text test_the_language_never_compiles... parses anew
    with pytest.raises(ExpressionError):
        evaluate("().__class__", INPUTS)


@contextlib.contextmanager
def _recording_builtins(monkeypatch):
    """Record calls of dangerous builtins while the block runs, as (name, first argument, flags).

    ``compile`` is recorded too: ``ast.parse`` calls it, and the flags show whether it only built a tree.
    """
    calls: list[tuple] = []
    active = []

    def spy_for(name, real):
        def spy(*args, **kwargs):
            if active:
                flags = kwargs.get("flags", args[3] if name == "compile" and len(args) > 3 else 0)
                calls.append((name, repr(args[0])[:60] if args else "", flags))
            return real(*args, **kwargs)
        return spy

    for name in ("eval", "exec", "open", "__import__", "breakpoint", "input", "print", "compile"):
        monkeypatch.setattr(builtins, name, spy_for(name, getattr(builtins, name)))
    monkeypatch.setattr(os, "system", spy_for("os.system", lambda *a: 1))
    monkeypatch.setattr(subprocess, "Popen", spy_for("Popen", lambda *a, **k: None))
    active.append(True)
    try:
        yield calls
    finally:
        active.clear()
        monkeypatch.undo()


def _dangerous(calls):
    """Every recorded call except ``compile`` to an abstract syntax tree only (what ``ast.parse`` does)."""
    return [c for c in calls if not (c[0] == "compile" and c[2] & ast.PyCF_ONLY_AST)]


def test_the_corpus_is_large_and_covers_every_family():
    assert len(CASES) >= 40
    assert len(PAYLOADS) >= 12 and all(len(items) >= 2 for items in PAYLOADS.values())


@pytest.mark.parametrize("family, text, pattern", CASES, ids=[f"{f}: {t!r}"[:70] for f, t, _ in CASES])
def test_payload_is_refused_without_side_effects(family, text, pattern, tmp_path, monkeypatch):
    marker = tmp_path / "pwned"
    text = text.replace(MARK, str(marker))
    with pytest.raises(ExpressionError, match=pattern) as info:
        with _recording_builtins(monkeypatch) as calls:
            evaluate(text, INPUTS)
    assert _dangerous(calls) == [], f"{family}: {text!r} called {_dangerous(calls)}"
    assert not marker.exists()
    assert info.value.column is None or 1 <= info.value.column <= len(text)


@pytest.mark.parametrize("family, text, pattern", CASES, ids=[f"{f}: {t!r}"[:70] for f, t, _ in CASES])
def test_the_tree_check_alone_also_refuses_what_parses(family, text, pattern):
    """Defence in depth: without the character screen, the allow-list of node types still refuses."""
    try:
        tree = ast.parse(text.replace(MARK, "p"), mode="eval").body
    except SyntaxError:
        return   # Python itself refuses it: nothing to walk
    def tree_check():
        _check_tree(tree, text, LIMITS)
        _ShapeChecker(text, {"x0": (), "x1": ()}, LIMITS).visit(tree)

    if text in HARMLESS_TREES:   # refused for their characters only: the tree itself is a plain sum
        tree_check()
        return
    with pytest.raises(ExpressionError):
        tree_check()


def test_the_language_never_compiles_user_text_to_code(monkeypatch):
    with _recording_builtins(monkeypatch) as calls:
        r = evaluate("[x0*x1, sin(x0)]", INPUTS, method="summed")
    assert isinstance(r, GradResult)
    # TensorFlow imports its own modules lazily; what matters is what happens to the user's text.
    with_text = [c for c in calls if "x0*x1" in c[1]]
    assert with_text == [("compile", repr("[x0*x1, sin(x0)]"), ast.PyCF_ONLY_AST)]   # ast.parse, to a tree
    assert [c for c in calls if c[0] in ("eval", "exec", "open", "os.system", "Popen")] == []


# ---------------------------------------------------------------- hypothesis fuzz


class _Hang(Exception):
    pass


@contextlib.contextmanager
def _time_limit(seconds: int):
    """A per-example guard: fail (do not hang the suite) if one evaluation takes longer than ``seconds``."""
    def on_alarm(signum, frame):
        raise _Hang(f"evaluate took longer than {seconds} s")

    # pytest-timeout may already use SIGALRM for the whole test: put its timer back afterwards.
    previous = signal.signal(signal.SIGALRM, on_alarm)
    outer_remaining, outer_interval = signal.setitimer(signal.ITIMER_REAL, seconds)
    start = time.monotonic()
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer_remaining:
            left = max(outer_remaining - (time.monotonic() - start), 0.001)
            signal.setitimer(signal.ITIMER_REAL, left, outer_interval)


FUZZ_INPUTS = {"x0": 1.5, "x1": [0.5, 2.0], "W": [[1.0, 2.0], [3.0, 4.0]]}


def _assert_says_what_and_where(exc: ExpressionError, text: str) -> None:
    """A refusal's first line says what is wrong (and at which column); short texts are quoted with a caret.

    The column counts in the text as checked: without its surrounding whitespace, line breaks and tabs as spaces.
    """
    first = str(exc).splitlines()[0]
    assert len(first) > 20 and "Traceback" not in str(exc), str(exc)
    if exc.column is None:
        return
    stripped = text.strip(" \t\n\r\f\v")
    assert exc.text in (stripped, stripped.replace("\n", " ").replace("\t", " ").replace("\r", " ")), (exc.text, text)
    assert 1 <= exc.column <= len(exc.text) + 1
    assert f"column {exc.column}" in first, str(exc)
    if len(exc.text) <= 120 and "\n" not in exc.text:
        assert str(exc).endswith(f"\n    {exc.text}\n    {' ' * (exc.column - 1)}^"), str(exc)


def _assert_right(result: GradResult, text: str, method: str) -> None:
    """A result is the right one: the naive loop's zeros, or the same cells as forward mode in float64."""
    assert result.jacobian.shape == (max(result.y.size, 1) if result.per_element else 1, 1 + 2 + 4)
    if method == "naive":
        assert result.broken and not result.jacobian.any()
        return
    mine = evaluate(text, FUZZ_INPUTS, method=method, dtype="float64").jacobian
    other = evaluate(text, FUZZ_INPUTS, method="forward", dtype="float64").jacobian
    both = np.isfinite(mine) & np.isfinite(other)   # NaN poisoning differs by mode; those cells are tested elsewhere
    scale = max(1.0, float(np.abs(other[both]).max(initial=0.0)))
    np.testing.assert_allclose(mine[both], other[both], rtol=1e-6, atol=1e-9 * scale, err_msg=text)


def _outcome(text: str, method: str = "auto") -> str:
    with _time_limit(30):
        try:
            result = evaluate(text, FUZZ_INPUTS, method=method)
        except ExpressionError as exc:
            _assert_says_what_and_where(exc, text)
            event("refused")
            return "refused"
        assert isinstance(result, GradResult)
        _assert_right(result, text, method)
    event("result")
    return "result"


FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
TOKENS = (sorted(FUNCTIONS) + ["x0", "x1", "W", "axis", "axis=", "=", "_", "__class__", ".", ",", ":", ";"]
          + list("()[]{}+-*/@%<>~!'\"#\\\n\t ") + ["**", "//", "==", "1", "0", "2.5", "1e308", "9" * 30, "-1", "j",
          "lambda", "for", "in", "if", "else", "not", "and", "import", "\x00", "\uff45", "\u2212"])


@FUZZ
@given(st.text(max_size=80))
def test_random_text_gives_a_result_or_an_expression_error(text):
    _outcome(text)


@FUZZ
@given(st.lists(st.sampled_from(TOKENS), max_size=25).map("".join), st.sampled_from(("auto", "jacobian", "naive")))
def test_random_token_soup_gives_a_result_or_an_expression_error(text, method):
    _outcome(text, method)


# Random syntax trees: every kind of expression node, and statements around them, unparsed to text.

_NAMES = st.sampled_from(["x0", "x1", "W", "sin", "sum", "axis", "eval", "__import__", "_x", "os", "tf"])
_CONSTANTS = st.one_of(st.integers(-10, 10), st.integers(), st.floats(), st.complex_numbers(max_magnitude=5),
                       st.text(max_size=3), st.binary(max_size=3), st.booleans(), st.none(), st.just(...))
_BINOPS = [ast.Add, ast.Sub, ast.Mult, ast.MatMult, ast.Div, ast.Mod, ast.Pow, ast.LShift, ast.RShift,
           ast.BitOr, ast.BitXor, ast.BitAnd, ast.FloorDiv]
_UNARYOPS = [ast.Invert, ast.Not, ast.UAdd, ast.USub]
_CMPOPS = [ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Is, ast.IsNot, ast.In, ast.NotIn]
_LOAD = ast.Load()


def _args():
    return ast.arguments(posonlyargs=[], args=[ast.arg("x0")], kwonlyargs=[], kw_defaults=[], defaults=[])


def _comp(child):
    return st.builds(lambda cond, it, has_if: [ast.comprehension(ast.Name("x0", ast.Store()), it,
                                                                 [cond] if has_if else [], 0)],
                     child, child, st.booleans())


def _expr_nodes(child):
    """One strategy per kind of ``ast.expr``: the keys name them, so coverage can be checked."""
    lists = st.lists(child, min_size=0, max_size=3)
    return {
        "BoolOp": st.builds(lambda op, vs: ast.BoolOp(op(), vs), st.sampled_from([ast.And, ast.Or]),
                            st.lists(child, min_size=2, max_size=3)),
        "NamedExpr": st.builds(lambda n, v: ast.NamedExpr(ast.Name(n, ast.Store()), v), _NAMES, child),
        "BinOp": st.builds(lambda a, op, b: ast.BinOp(a, op(), b), child, st.sampled_from(_BINOPS), child),
        "UnaryOp": st.builds(lambda op, a: ast.UnaryOp(op(), a), st.sampled_from(_UNARYOPS), child),
        "Lambda": st.builds(lambda b: ast.Lambda(_args(), b), child),
        "IfExp": st.builds(ast.IfExp, child, child, child),
        "Dict": st.builds(lambda ks, vs: ast.Dict(ks[:len(vs)], vs[:len(ks)]), lists, lists),
        "Set": st.builds(ast.Set, st.lists(child, min_size=1, max_size=3)),
        "ListComp": st.builds(ast.ListComp, child, _comp(child)),
        "SetComp": st.builds(ast.SetComp, child, _comp(child)),
        "DictComp": st.builds(ast.DictComp, child, child, _comp(child)),
        "GeneratorExp": st.builds(ast.GeneratorExp, child, _comp(child)),
        "Await": st.builds(ast.Await, child),
        "Yield": st.builds(ast.Yield, child),
        "YieldFrom": st.builds(ast.YieldFrom, child),
        "Compare": st.builds(lambda a, op, b: ast.Compare(a, [op()], [b]), child, st.sampled_from(_CMPOPS), child),
        "Call": st.builds(
            lambda f, a, kw: ast.Call(f, a, [ast.keyword(k, v) for k, v in kw]),
            st.one_of(_NAMES.map(lambda n: ast.Name(n, _LOAD)), child), lists,
            st.lists(st.tuples(st.sampled_from(["axis", "keepdims", None]), child), max_size=2)),
        "FormattedValue": st.builds(lambda v: ast.JoinedStr([ast.FormattedValue(v, -1, None)]), child),
        "JoinedStr": st.builds(lambda v: ast.JoinedStr([ast.Constant("a"), ast.FormattedValue(v, 114, None)]), child),
        "Constant": _CONSTANTS.map(ast.Constant),
        "Attribute": st.builds(lambda v, a: ast.Attribute(v, a, _LOAD), child,
                               st.sampled_from(["__class__", "numpy", "shape", "T", "__globals__"])),
        "Subscript": st.builds(lambda v, s: ast.Subscript(v, s, _LOAD), child, child),
        "Slice": st.builds(lambda v, lo, hi, step: ast.Subscript(v, ast.Slice(lo, hi, step), _LOAD), child,
                           st.none() | child, st.none() | child, st.none() | child),
        "Starred": st.builds(lambda v: ast.List([ast.Starred(v, _LOAD)], _LOAD), child),
        "Name": _NAMES.map(lambda n: ast.Name(n, _LOAD)),
        "List": st.builds(lambda es: ast.List(es, _LOAD), lists),
        "Tuple": st.builds(lambda es: ast.Tuple(es, _LOAD), lists),
    }


_LEAVES = st.one_of(_NAMES.map(lambda n: ast.Name(n, _LOAD)), st.integers(-3, 3).map(ast.Constant),
                    st.floats(-10, 10).map(ast.Constant))
EXPRESSIONS = st.recursive(_LEAVES, lambda child: st.one_of(*_expr_nodes(child).values()), max_leaves=12)
STATEMENTS = st.one_of(
    EXPRESSIONS.map(ast.Expr),
    st.builds(lambda v: ast.Assign([ast.Name("x0", ast.Store())], v, lineno=1), EXPRESSIONS),
    st.builds(lambda v: ast.AugAssign(ast.Name("x0", ast.Store()), ast.Add(), v), EXPRESSIONS),
    st.just(ast.Import([ast.alias("os")])),
    st.just(ast.ImportFrom("os", [ast.alias("system")], 0)),
    st.just(ast.Delete([ast.Name("x0", ast.Del())])),
    st.just(ast.Global(["x0"])),
    st.just(ast.Pass()),
    st.builds(ast.Return, EXPRESSIONS),
    st.builds(lambda v: ast.FunctionDef("f", _args(), [ast.Return(v)], [ast.Name("sin", _LOAD)], None, lineno=1),
              EXPRESSIONS),
)


def _all_expression_kinds() -> set[str]:
    deprecated = {"Num", "Str", "Bytes", "NameConstant", "Ellipsis"}
    found, todo = set(), [ast.expr]
    while todo:
        for sub in todo.pop().__subclasses__():
            todo.append(sub)
            if sub.__name__ not in deprecated and sub.__module__ == "ast":
                found.add(sub.__name__)
    return found


def test_the_tree_generator_covers_every_kind_of_expression():
    assert _all_expression_kinds() <= set(_expr_nodes(_LEAVES))


def _unparse(node: ast.AST) -> str | None:
    try:
        return ast.unparse(ast.fix_missing_locations(node))
    except Exception:   # the generator can build trees ast.unparse cannot print: not a text to test
        return None


@FUZZ
@given(EXPRESSIONS)
def test_random_expression_trees_give_a_result_or_an_expression_error(tree):
    text = _unparse(ast.Expression(tree))
    assume(text is not None)
    _outcome(text)


@FUZZ
@given(st.lists(STATEMENTS, min_size=1, max_size=3))
def test_random_statements_are_refused(statements):
    text = _unparse(ast.Module(statements, type_ignores=[]))
    assume(text is not None)
    assert _outcome(text) in ("refused", "result")
    # the language reads line breaks as spaces (a long formula may span lines): "0\n-1" is the expression "0 -1"
    try:
        ast.parse(text.replace("\n", " ").strip(), mode="eval")
        one_expression = True
    except SyntaxError:
        one_expression = False
    if (not isinstance(statements[0], ast.Expr) or len(statements) > 1) and not one_expression:
        with pytest.raises(ExpressionError):
            evaluate(text, FUZZ_INPUTS)
