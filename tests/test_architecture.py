"""The house rules that keep the three wings apart (docs/architecture.md), checked on the source itself."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LIBRARY = sorted((ROOT / "gradlib").rglob("*.py"))
APP = sorted((ROOT / "dashboard").glob("*.py"))


def _imports(path: Path) -> list[ast.ImportFrom | ast.Import]:
    return [n for n in ast.walk(ast.parse(path.read_text())) if isinstance(n, (ast.Import, ast.ImportFrom))]


@pytest.mark.parametrize("path", [p for p in LIBRARY + APP if p.name not in ("__init__.py", "__main__.py")],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_every_module_declares_its_public_names(path):
    tree = ast.parse(path.read_text())
    declared = [n for n in tree.body if isinstance(n, ast.Assign) and any(
        isinstance(t, ast.Name) and t.id == "__all__" for t in n.targets)]
    assert declared, f"{path.relative_to(ROOT)} has no __all__"


@pytest.mark.parametrize("path", LIBRARY + APP, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_imports_another_modules_underscore_names(path):
    # ``from . import _runtime`` imports a module of the package; ``from ._api import _check`` reaches into one
    reaches = [f"{node.module}.{alias.name}" for node in _imports(path) if isinstance(node, ast.ImportFrom)
               and node.module not in (None, "__future__") for alias in node.names if alias.name.startswith("_")]
    assert not reaches, f"{path.relative_to(ROOT)} reaches into private names: {reaches}"


@pytest.mark.parametrize("path", LIBRARY, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_library_never_imports_the_app(path):
    modules = {(n.module or "").split(".")[0] for n in _imports(path) if isinstance(n, ast.ImportFrom)}
    modules |= {a.name.split(".")[0] for n in _imports(path) if isinstance(n, ast.Import) for a in n.names}
    assert not modules & {"streamlit", "dashboard", "pages"}, path.relative_to(ROOT)


#: the engine behind the entry points, each module above the ones it imports (docs/architecture.md)
ENGINE = ["_engine", "_package", "_repair", "_compute", "_problem", "_plan", "_cost", "_compiled", "_methods"]


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
    imported = _library_modules(ROOT / "gradlib" / f"{name}.py")
    assert not imported & {"_api", "_compare", "gradlib"}, f"gradlib/{name}.py imports upwards: {sorted(imported)}"
    assert all(module.startswith("_") for module in imported), f"gradlib/{name}.py imports a public name of gradlib"


@pytest.mark.parametrize("name", ENGINE)
def test_an_engine_module_never_imports_one_above_it(name):
    above = set(ENGINE[:ENGINE.index(name)])
    assert not _library_modules(ROOT / "gradlib" / f"{name}.py") & above, f"gradlib/{name}.py imports upwards"
