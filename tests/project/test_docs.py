"""The documentation site (mkdocs.yml, docs/): it builds with --strict, documents every public name, and every
Python example in the guide runs."""

from __future__ import annotations

import ast
import dataclasses
import html
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import griffe   # with mkdocstrings (requirements-docs.txt, which requirements-test.txt includes)
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
SUBMODULES = ("examples", "figures", "keras_models", "lint", "scan")
#: the pages whose ```python blocks are examples (the API pages are generated; the background pages have none)
GUIDE = [DOCS / "index.md", *sorted((DOCS / "guide").glob("*.md"))]
_ENV = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONPATH": str(ROOT)}


def _build(config: Path, site: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(site)],
                          capture_output=True, text=True, timeout=300, cwd=ROOT, env=_ENV)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    site = tmp_path_factory.mktemp("site")
    done = _build(ROOT / "mkdocs.yml", site)
    assert done.returncode == 0, done.stderr[-3000:]
    return site


def test_the_site_builds_with_strict(site):
    assert (site / "index.html").is_file() and (site / "api" / "gradlib" / "index.html").is_file()


def test_a_broken_reference_fails_the_strict_build(tmp_path):
    """The same configuration on one page that names an object that does not exist: --strict refuses it."""
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Broken\n\nSee [`evaluate`][gradlib.no_such_name].\n")
    config.update(docs_dir=str(tmp_path / "docs"), nav=["index.md"], hooks=[str(ROOT / h) for h in config["hooks"]])
    python = config["plugins"][1]["mkdocstrings"]["handlers"]["python"]
    python.update(paths=[str(ROOT)])
    python["options"]["extensions"] = [str(ROOT / e) for e in python["options"]["extensions"]]
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(config))
    done = _build(tmp_path / "mkdocs.yml", tmp_path / "site")
    assert done.returncode != 0
    assert "gradlib.no_such_name" in done.stderr


# ---------------------------------------------------------------- every public name, documented and on a page

def _public_names() -> list[str]:
    """``gradlib.X`` for gradlib.__all__ and ``gradlib.sub.X`` for each public submodule's ``__all__``."""
    names = [f"gradlib.{n}" for n in _all(ROOT / "gradlib" / "__init__.py")]
    for sub in SUBMODULES:
        path = ROOT / "gradlib" / (f"{sub}/__init__.py" if (ROOT / "gradlib" / sub).is_dir() else f"{sub}.py")
        names += [f"gradlib.{sub}.{n}" for n in _all(path)]
    return names


def _all(path: Path) -> list[str]:
    """A module's ``__all__``, read from its source (importing the submodules would load TensorFlow and Plotly)."""
    match = re.search(r"^__all__ = (\[.*?\])", path.read_text(), re.S | re.M)
    return ast.literal_eval(match.group(1))


@pytest.fixture(scope="module")
def package():
    sys.path.insert(0, str(DOCS / "hooks"))
    try:
        from comments import CommentDocstrings
    finally:
        sys.path.remove(str(DOCS / "hooks"))
    return griffe.load("gradlib", search_paths=[str(ROOT)], resolve_aliases=True, resolve_external=False,
                       extensions=griffe.load_extensions(CommentDocstrings()))


def _where(name: str) -> str:
    """The object path the API pages render ``name`` from (a lazy name is rendered from its defining module;
    ``gradlib.scan.scan`` and ``ScanResult`` are ``gradlib.scan`` and ``gradlib.ScanResult``)."""
    if name.startswith("gradlib.scan."):
        name = "gradlib." + name.removeprefix("gradlib.scan.")
    for page in sorted((DOCS / "api").glob("*.md")):
        for path, heading in re.findall(r"^::: (\S+)\n    options:\n      heading: (\S+)", page.read_text(), re.M):
            if heading == name:
                return path
    return name


@pytest.mark.parametrize("name", _public_names())
def test_every_public_name_has_a_docstring(package, name):
    obj = package[_where(name).removeprefix("gradlib.")]
    assert obj.docstring is not None and obj.docstring.value.strip(), f"{name} has no docstring"


@pytest.mark.parametrize("name", _public_names())
def test_every_public_name_is_in_the_api_reference(site, name):
    parts = name.split(".")
    page = "gradlib" if len(parts) == 2 else parts[1]
    headings = re.findall(r'<h[23] id="([^"]*)"[^>]*>(.*?)</h[23]>', (site / "api" / page / "index.html").read_text(),
                          re.S)
    shown = {hid for hid, _ in headings} | {_text(heading) for _, heading in headings}
    assert name in shown, f"{name} has no heading on api/{page}"


def _text(heading: str) -> str:
    """A heading's text without its labels (``dataclass``, ``module-attribute``) and permalink."""
    heading = re.sub(r'<span class="doc doc-labels">.*?</span>', "", heading, flags=re.S)
    return re.sub(r"<[^>]+>|\s", "", html.unescape(heading)).removesuffix("¶")


def test_the_limits_table_gives_every_limit_with_its_default():
    from gradlib import LIMITS

    text = (DOCS / "guide" / "limits-and-errors.md").read_text()
    rows = dict(re.findall(r"^\| `(max_\w+)` \| ([\d.,e]+) \|", text, re.M))
    defaults = {f.name: getattr(LIMITS, f.name) for f in dataclasses.fields(LIMITS)}
    assert set(rows) == set(defaults)
    assert {k: float(v.replace(",", "")) for k, v in rows.items()} == defaults


# ---------------------------------------------------------------- every example of the guide runs

#: an example that must not run is marked: ```python title="not run" (a signature, an excerpt of a table row)
_BLOCK = re.compile(r"^```python([^\n]*)\n(.*?)^```", re.S | re.M)


def _examples(page: Path) -> list[str]:
    text = page.read_text()
    return [code for match in _BLOCK.finditer(text) for info, code in [match.groups()]
            if "not run" not in info and not text[:match.start()].rstrip().endswith("<!-- skip -->")]


_RUNNER = """
import contextlib, io, json, runpy, sys, traceback
results = {}
for page, script in json.load(sys.stdin).items():
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            runpy.run_path(script, run_name="__main__")
        results[page] = None
    except BaseException:
        results[page] = traceback.format_exc()[-3000:]
print(json.dumps(results))
"""


@pytest.fixture(scope="module")
def example_runs(tmp_path_factory) -> dict:
    """Every guide page's blocks, in order, as one script per page run in a fresh namespace (runpy); one
    interpreter for all of them (one TensorFlow import), in a scratch directory (the scan example writes a CSV)."""
    scratch = tmp_path_factory.mktemp("examples")
    pages = {}
    for page in GUIDE:
        script = scratch / (page.stem + ".py")
        script.write_text("\n".join(f"# block {i + 1}\n{code}" for i, code in enumerate(_examples(page))))
        pages[str(page.relative_to(DOCS))] = str(script)
    done = subprocess.run([sys.executable, "-c", _RUNNER], input=json.dumps(pages), capture_output=True, text=True,
                          timeout=420, cwd=scratch, env=_ENV)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.parametrize("page", GUIDE, ids=lambda p: str(p.relative_to(DOCS)))
def test_every_python_example_of_the_guide_runs(example_runs, page):
    assert example_runs[str(page.relative_to(DOCS))] is None, example_runs[str(page.relative_to(DOCS))]


def test_the_guide_has_examples_and_few_are_not_run():
    counted = [(len(_examples(p)), len(_BLOCK.findall(p.read_text()))) for p in GUIDE]
    assert sum(run for run, _ in counted) >= 15
    assert sum(total - run for run, total in counted) <= 6
