"""The house rules that keep the three wings apart (docs/architecture.md), checked on the source itself."""

from __future__ import annotations

import ast
import importlib
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
    # ``from . import _runtime`` imports a module of the package; ``from ._api import _check`` reaches into one
    reaches = [f"{node.module}.{alias.name}" for node in _imports(path) if isinstance(node, ast.ImportFrom)
               and node.module not in (None, "__future__") for alias in node.names if alias.name.startswith("_")]
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
PUBLIC_SUBMODULES = {"figures", "keras_models", "lint", "scan"}


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


#: the engine behind the entry points, each module above the ones it imports (docs/architecture.md)
ENGINE = ["_engine", "_package", "_repair", "_probe", "_compute", "_problem", "_plan", "_cost", "_compiled", "_methods"]


def _library_modules(path: Path) -> set[str]:
    """The gradlib modules and names ``path`` imports: ``from ._x import y`` gives ``_x``, ``from . import y`` ``y``."""
    found = set()
    for node in _imports(path):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.split(".")[0] == "gradlib"}
        elif node.level == 1 and node.module is None:
            found |= {a.name for a in node.names}
        elif node.level == 1 or (node.module or "").split(".")[0] == "gradlib":
            found.add(node.module)
    return {module.removeprefix("gradlib.") for module in found}


@pytest.mark.parametrize("name", ENGINE)
def test_the_engine_never_imports_the_entry_points(name):
    imported = _library_modules(ROOT / "gradlib" / "_perelement" / f"{name}.py")
    assert not imported & {"_api", "_compare", "gradlib"}, f"gradlib/_perelement/{name}.py imports upwards: {sorted(imported)}"
    assert all(module.startswith("_") for module in imported), f"gradlib/_perelement/{name}.py imports a public name of gradlib"


@pytest.mark.parametrize("name", ENGINE)
def test_an_engine_module_never_imports_one_above_it(name):
    above = set(ENGINE[:ENGINE.index(name)])
    assert not _library_modules(ROOT / "gradlib" / "_perelement" / f"{name}.py") & above, f"gradlib/_perelement/{name}.py imports upwards"
