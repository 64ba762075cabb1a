"""The house rules that keep the three wings apart (docs/architecture.md), checked on the source itself."""

from __future__ import annotations

import ast
import importlib
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LIBRARY = sorted((ROOT / "gradlib").rglob("*.py"))
APP = sorted((ROOT / "dashboard").glob("*.py"))
PAGES = sorted((ROOT / "pages").glob("*.py")) + [ROOT / "app.py"]
TOOLS = sorted((ROOT / "benchmarks").glob("*.py"))


def _imports(path: Path) -> list[ast.ImportFrom | ast.Import]:
    return [n for n in ast.walk(ast.parse(path.read_text())) if isinstance(n, (ast.Import, ast.ImportFrom))]


def _module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)


@pytest.mark.parametrize("path", [p for p in LIBRARY + APP + TOOLS if p.name not in ("__init__.py", "__main__.py")],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_every_module_declares_its_public_names_once_and_has_them(path):
    tree = ast.parse(path.read_text())
    declared = [n for n in tree.body if isinstance(n, ast.Assign) and any(
        isinstance(t, ast.Name) and t.id == "__all__" for t in n.targets)]
    assert len(declared) == 1, f"{path.relative_to(ROOT)} declares __all__ {len(declared)} times"
    module = importlib.import_module(_module_name(path))
    missing = [name for name in module.__all__ if not hasattr(module, name)]
    assert not missing, f"{path.relative_to(ROOT)} lists names it does not define in __all__: {missing}"


@pytest.mark.parametrize("path", LIBRARY + APP + PAGES + TOOLS, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_imports_another_modules_underscore_names(path):
    # ``from .._foundations import _runtime`` imports a module of a package; ``from ._api import _check`` reaches
    # into one
    reaches = [f"{node.module}.{alias.name}" for node in _imports(path) if isinstance(node, ast.ImportFrom)
               and node.module not in (None, "__future__") for alias in node.names if alias.name.startswith("_")
               and not _is_module(f"{_absolute(path, node)}.{alias.name}")]
    assert not reaches, f"{path.relative_to(ROOT)} reaches into private names: {reaches}"


def _private_reaches(path: Path) -> list[str]:
    """Where ``path`` reaches a private module of gradlib (``gradlib._perelement._api``, ``gradlib.lint._rules``)."""
    def private(module: str) -> bool:
        parts = module.split(".")
        return parts[0] == "gradlib" and any(p.startswith("_") and not p.startswith("__") for p in parts[1:])

    tree = ast.parse(path.read_text())
    reaches = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            reaches += [a.name for a in node.names if private(a.name)]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            reaches += [node.module] if private(node.module) else [
                f"{node.module}.{a.name}" for a in node.names if private(f"{node.module}.{a.name}")]
    return reaches + [ast.unparse(n) for n in ast.walk(tree) if isinstance(n, ast.Attribute) and private(ast.unparse(n))
                      and not private(ast.unparse(n.value))]


@pytest.mark.parametrize("path", APP + PAGES + TOOLS, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_app_and_the_tools_use_the_library_s_public_face_only(path):
    assert not _private_reaches(path), f"{path.relative_to(ROOT)} reaches into gradlib: {_private_reaches(path)}"


#: gradlib's public submodules: a name the app or the bench takes from gradlib is in ``__all__`` or one of these
PUBLIC_SUBMODULES = {"examples", "figures", "keras_models", "lint", "pde", "scan"}


@pytest.mark.parametrize("path", APP + PAGES + TOOLS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_name_the_app_and_the_tools_take_from_gradlib_is_a_public_one(path):
    import gradlib

    taken = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] == "gradlib":
            public = set(importlib.import_module(node.module).__all__)
            public |= PUBLIC_SUBMODULES if node.module == "gradlib" else set()
            taken += [f"{node.module}.{a.name}" for a in node.names if a.name not in public]
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "gradlib":
            taken += [] if node.attr in set(gradlib.__all__) | PUBLIC_SUBMODULES else [f"gradlib.{node.attr}"]
    assert not taken, f"{path.relative_to(ROOT)} uses names gradlib does not export: {taken}"


def test_the_public_face_check_sees_a_private_reach(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("import gradlib\nfrom gradlib._api import run\nfrom gradlib import _engine\n"
                      "from gradlib.lint import RULES\nx = gradlib._cost.COSTS\n")
    assert _private_reaches(sample) == ["gradlib._api", "gradlib._engine", "gradlib._cost"]


@pytest.mark.parametrize("path", LIBRARY, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_library_never_imports_the_app(path):
    modules = {(n.module or "").split(".")[0] for n in _imports(path) if isinstance(n, ast.ImportFrom)}
    modules |= {a.name.split(".")[0] for n in _imports(path) if isinstance(n, ast.Import) for a in n.names}
    assert not modules & {"streamlit", "dashboard", "pages"}, path.relative_to(ROOT)


#: the foundations every room may use; they import nothing of gradlib but each other
FOUNDATIONS = {"gradlib._foundations._errors", "gradlib._foundations._limits", "gradlib._foundations._format", "gradlib._foundations._cache", "gradlib._foundations._runtime"}
#: the callable contract (a user's function and its inputs): a room of the foundations' floor, which every room
#: that takes a user's function may import
CALLABLE = "gradlib._callable"
#: each private room (docs/architecture.md) and the other rooms it may import besides the foundations
ROOMS = {CALLABLE: set(), "gradlib._language": set(), "gradlib.lint": set(), "gradlib._perexample": {CALLABLE},
         "gradlib._perelement": {CALLABLE, "gradlib._language"},
         "gradlib._second": {CALLABLE, "gradlib._language", "gradlib._perelement"},
         "gradlib._pde": {CALLABLE, "gradlib._language", "gradlib._perelement", "gradlib._second"}}
#: the public face: what users import. No module of a room or a foundation imports it.
FACE = {"gradlib", "gradlib.examples", "gradlib.figures", "gradlib.keras_models", "gradlib.lint", "gradlib.pde",
        "gradlib.scan"}


def _absolute(path: Path, node: ast.ImportFrom) -> str:
    """The absolute name of the module ``node`` imports from: ``from .. import x`` in gradlib/_second/_api.py gives
    ``gradlib``."""
    if not node.level:
        return node.module or ""
    parts = _module_name(path).rsplit(".", 1)[0].split(".")   # gradlib.lint.__init__ is in package gradlib.lint
    return ".".join(parts[:len(parts) - node.level + 1] + ([node.module] if node.module else []))


def _resolve(path: Path) -> set[str]:
    """The gradlib modules ``path`` imports, as absolute names: ``from .._foundations._errors import X`` gives
    ``gradlib._foundations._errors``, ``from . import _cost`` ``gradlib._perelement._cost``."""
    name = _module_name(path)
    found = set()
    for node in _imports(path):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.split(".")[0] == "gradlib"}
            continue
        base = _absolute(path, node)
        if base.split(".")[0] != "gradlib":
            continue
        modules = {f"{base}.{a.name}" for a in node.names if _is_module(f"{base}.{a.name}")}
        found |= modules if modules and len(modules) == len(node.names) else modules | {base}
    return found - {name}


def _is_module(name: str) -> bool:
    where = ROOT.joinpath(*name.split("."))
    return where.with_suffix(".py").exists() or (where / "__init__.py").exists()


def _room(module: str) -> str | None:
    return next((room for room in ROOMS if module == room or module.startswith(room + ".")), None)


@pytest.mark.parametrize("path", LIBRARY, ids=lambda p: str(p.relative_to(ROOT)))
def test_each_room_imports_only_the_foundations_and_the_rooms_it_may(path):
    module, imported = _module_name(path).removesuffix(".__init__"), _resolve(path)
    if module in FOUNDATIONS:
        assert imported <= FOUNDATIONS, f"{module}, a foundation, imports {sorted(imported - FOUNDATIONS)}"
    room = _room(module)
    if room is None:
        return
    allowed = ROOMS[room] | {room}
    outside = sorted(m for m in imported if m not in FOUNDATIONS and _room(m) not in allowed)
    assert not outside, f"{module} (room {room}) imports {outside}: it may use the foundations and {sorted(allowed)}"


@pytest.mark.parametrize("path", [p for p in LIBRARY if p.parent.name != "gradlib" or p.name != "__init__.py"],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_nothing_in_the_library_imports_its_public_face(path):
    module = _module_name(path).removesuffix(".__init__")
    own = {f for f in FACE if module == f or module.startswith(f + ".")}
    reached = sorted(m for m in _resolve(path) if m in FACE and m not in own)
    assert not reached, f"{module} imports the public face {reached}: import the room's module instead"


def test_the_room_rules_see_a_forbidden_import(tmp_path, monkeypatch):
    # a planted import from the language into the engine must be caught by the rule above
    planted = ROOT / "gradlib" / "_language" / "_syntax.py"
    sample = tmp_path / "_syntax.py"
    sample.write_text(planted.read_text() + "\nfrom .._perelement._api import run\n")
    monkeypatch.setattr(sys.modules[__name__], "_module_name", lambda p: "gradlib._language._syntax")
    assert "gradlib._perelement._api" in _resolve(sample)
    with pytest.raises(AssertionError, match="gradlib._perelement._api"):
        test_each_room_imports_only_the_foundations_and_the_rooms_it_may(sample)


def _tf_function_calls(path: Path) -> list[str]:
    """The functions of ``path`` that call ``tf.function`` (or ``tensorflow.function``), by qualified name."""
    found = []

    def visit(node: ast.AST, where: str) -> None:
        for child in ast.iter_child_nodes(node):
            name = f"{where}.{child.name}".lstrip(".") if isinstance(
                child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) else where
            if isinstance(child, ast.Call) and ast.unparse(child.func) in ("tf.function", "tensorflow.function"):
                found.append(where or "<module>")
            visit(child, name)

    visit(ast.parse(path.read_text()), "")
    return found


#: the one module that calls ``tf.function`` on a user's function (``trace``, ``polymorphic``): every room asks it
TRACE = ROOT / "gradlib" / "_callable" / "_trace.py"
#: calls of ``tf.function`` elsewhere in gradlib, each on a function of gradlib's own that reaches no user code,
#: with the reason it may stay where it is ((module, function) -> why); empty today
TF_FUNCTION_ALLOWED: dict[tuple[str, str], str] = {}


@pytest.mark.parametrize("path", [p for p in LIBRARY if p != TRACE], ids=lambda p: str(p.relative_to(ROOT)))
def test_only_the_callable_room_traces_a_user_s_function(path):
    calls = [(_module_name(path), where) for where in _tf_function_calls(path)]
    stray = [call for call in calls if call not in TF_FUNCTION_ALLOWED]
    assert not stray, (f"{stray} call tf.function: ask gradlib._callable._trace (trace, polymorphic) for the variant "
                       "needed, or allow-list gradlib's own function in TF_FUNCTION_ALLOWED with its reason")


def test_the_trace_rule_sees_a_tf_function_call(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("import tensorflow as tf\nclass A:\n    def f(self, g):\n        return tf.function(g)\n"
                      "h = tf.function(len)\n")
    assert _tf_function_calls(sample) == ["A.f", "<module>"]
    assert _tf_function_calls(TRACE) == ["trace", "polymorphic"]


def test_the_library_shows_few_entries_and_no_two_modules_share_a_file_name():
    entries = sorted(p.name for p in (ROOT / "gradlib").iterdir() if p.name != "__pycache__")
    assert len(entries) <= 15, entries   # the foundations are one package, _foundations/ (issue 38)
    names = [p.name for p in LIBRARY if not p.name.startswith("__")]
    assert len(names) == len(set(names)), sorted({n for n in names if names.count(n) > 1})


def test_every_package_of_the_library_has_a_tests_folder_of_its_name():
    packages = [p.parent for p in LIBRARY if p.name == "__init__.py" and p.parent.name != "gradlib"]
    missing = [p.name for p in packages if not (ROOT / "tests" / p.name.lstrip("_")).is_dir()]
    assert not missing, f"packages without tests/<name>/: {missing}"


#: the per-element engine behind its door (``_api``), each module above the ones it imports
ENGINE = ["_engine", "_package", "_repair", "_probe", "_compute", "_problem", "_plan", "_cost", "_compiled", "_methods"]


@pytest.mark.parametrize("name", ENGINE)
def test_an_engine_module_never_imports_its_door_or_one_above_it(name):
    imported = {m.removeprefix("gradlib._perelement.") for m in _resolve(ROOT / "gradlib" / "_perelement" / f"{name}.py")}
    above = set(ENGINE[:ENGINE.index(name)]) | {"_api"}
    assert not imported & above, f"gradlib/_perelement/{name}.py imports upwards: {sorted(imported & above)}"


#: the per-element room's upper floor: the comparison and its checks (``compare``, the finite-difference check and
#: the agreement, the diagnosis, the dead-branch guard, ``crosscheck``, the seed's demonstrations). It imports the
#: engine (``_api`` and the methods); no module of the engine imports it, so a call goes down and never comes back up
UPPER_FLOOR = "gradlib._perelement._comparison"
#: the upper floor's modules, each above the ones it imports (``_demos`` uses the engine only)
FLOOR = ["_compare", "_crosscheck", "_guard", "_findings", "_checks", "_demos"]


def _on_upper_floor(module: str) -> bool:
    return module == UPPER_FLOOR or module.startswith(UPPER_FLOOR + ".")


@pytest.mark.parametrize("path", [p for p in LIBRARY if p.parts[-2] == "_perelement"],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_the_engine_never_imports_the_floor_above_it(path):
    reached = sorted(m for m in _resolve(path) if _on_upper_floor(m))
    assert not reached, (f"{_module_name(path)} (the engine) imports {reached}: the comparison sits above the engine; "
                         "move what both need down into the engine")


@pytest.mark.parametrize("name", FLOOR)
def test_a_module_of_the_upper_floor_never_imports_one_above_it(name):
    path = ROOT.joinpath(*UPPER_FLOOR.split("."), f"{name}.py")
    imported = {m.removeprefix(UPPER_FLOOR + ".") for m in _resolve(path)}
    above = set(FLOOR[:FLOOR.index(name)])
    assert not imported & above, f"{UPPER_FLOOR}.{name} imports upwards: {sorted(imported & above)}"


def test_the_floor_rule_sees_the_engine_import_the_comparison(tmp_path, monkeypatch):
    # a planted import of the finite-difference check into the engine, one at call time as well: both are caught
    planted = ROOT / "gradlib" / "_perelement" / "_engine.py"
    sample = tmp_path / "_engine.py"
    sample.write_text(planted.read_text() + "\nfrom ._comparison._checks import agreement\n\n\n"
                      "def late():\n    from ._comparison import _guard\n    return _guard\n")
    monkeypatch.setattr(sys.modules[__name__], "_module_name", lambda p: "gradlib._perelement._engine")
    assert {f"{UPPER_FLOOR}._checks", f"{UPPER_FLOOR}._guard"} <= _resolve(sample)
    with pytest.raises(AssertionError, match=r"_comparison\._checks.*_comparison\._guard"):
        test_the_engine_never_imports_the_floor_above_it(sample)


def _walk() -> list[tuple[str, str]]:
    """The stops of docs/architecture.md's walk from the playground form to the table: (file, function) each."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    section = text.split("**The walk from the playground form to the table**")[1].split("\n**")[0]
    return re.findall(r"^\d+\. `([\w/]+\.py)` `(\w+)`", section, re.M)


def test_the_walk_from_the_playground_to_the_table_names_real_functions_in_at_most_20_stops():
    stops = _walk()
    assert 10 <= len(stops) <= 20, stops
    missing = [f"{path} {name}" for path, name in stops if not any(
        isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name
        for node in ast.walk(ast.parse((ROOT / path).read_text())))]
    assert not missing, f"docs/architecture.md's walk names functions that are not there: {missing}"
    floors = [path for path, _ in stops if path.startswith("gradlib/_perelement/")]
    # once the walk has reached the comparison's own checks, it never goes back into the engine below
    first_check = floors.index("gradlib/_perelement/_comparison/_checks.py")
    assert all("/_comparison/" in path for path in floors[first_check:]), floors


def test_the_floor_order_names_every_module_of_the_upper_floor():
    assert sorted(p.stem for p in ROOT.joinpath(*UPPER_FLOOR.split(".")).glob("_[!_]*.py")) == sorted(FLOOR)


def test_no_two_test_files_share_a_file_name():
    # pytest imports test files by their base name (no __init__.py in tests/): a repeated name fails collection
    names = [p.name for p in (ROOT / "tests").rglob("*.py") if p.name not in ("__init__.py", "conftest.py")]
    assert len(names) == len(set(names)), sorted({n for n in names if names.count(n) > 1})


#: the longest a function of the library or the app may be, its docstring included (issue 38, item 5)
MAX_FUNCTION_LINES = 60


def _long_functions(path: Path) -> list[str]:
    return [f"{node.name} (line {node.lineno}): {node.end_lineno - node.lineno + 1} lines"
            for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES]


@pytest.mark.parametrize("path", LIBRARY + APP, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_function_of_the_library_and_the_app_is_at_most_60_lines(path):
    assert not _long_functions(path), f"{path.relative_to(ROOT)}: split by meaning {_long_functions(path)}"


def test_the_length_rule_sees_a_long_function_and_counts_its_last_good_length(tmp_path):
    sample = tmp_path / "sample.py"
    body = "".join(f"    x{k} = {k}\n" for k in range(MAX_FUNCTION_LINES - 1))
    sample.write_text(f"def fits():\n{body}\n\ndef long():\n{body}    return 0\n")
    assert _long_functions(sample) == [f"long (line {MAX_FUNCTION_LINES + 3}): {MAX_FUNCTION_LINES + 1} lines"]
