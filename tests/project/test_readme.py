"""The README's seed example, and the guide's examples that moved there from the README (docs/guide/), run as
written and print what the text says they print."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from fresh_tf import run

README = Path(__file__).resolve().parents[2] / "README.md"
GUIDE = README.parent / "docs" / "guide"


def _block_after(heading: str, page: Path = README) -> str:
    """The first ```python block after ``heading`` in the README (or a page of the guide)."""
    text = page.read_text()
    start = text.index(heading)
    return re.search(r"```python\n(.*?)```", text[start:], re.S).group(1)


def test_the_readme_keeps_the_two_commands_and_points_to_the_guide():
    text = README.read_text()
    two = text[text.index("## The two commands"):].split("\n## ")[0]
    assert "pip install -r requirements.txt && streamlit run app.py      # or: make app" in two
    assert "```bash\nmake test\n```" in two
    assert "mkdocs serve" in text
    for page in re.findall(r"\]\((docs/[\w/.-]+\.md)\)", text):
        assert (README.parent / page).is_file(), page
    assert len(text.splitlines()) < 150   # the first five minutes; the rest is in the guide


def _run(code: str) -> str:
    """What ``python -c code`` prints in the repository's folder, run as in a fresh interpreter (tests/fresh_tf.py:
    a child of a fork server that imported TensorFlow)."""
    done = run([sys.executable, "-c", code], timeout=300, cwd=README.parent)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_the_seed_example_prints_the_rows_the_sums_and_the_zeros():
    out = _run(_block_after("## The seed example"))
    assert "[[ 20.  15.  12.]\n [120.  45.  36.]]" in out
    assert "unstack" in out
    assert "[[140.  60.  48.]]" in out
    assert "[[0. 0. 0.]\n [0. 0. 0.]]" in out
    assert "error The naive loop returns zeros" in out
    assert "error tape.gradient(y, x) sums over the elements of y" in out


# Run after the README's Keras example: its result against a per-sample tape.jacobian loop on the same model.
_PER_SAMPLE_REFERENCE = """
import tensorflow as tf
reference = []
for b in range(len(x)):
    xb = tf.constant(x[b:b + 1])
    with tf.GradientTape() as tape:
        tape.watch(xb)
        yb = model(xb)
    reference.append(tape.jacobian(yb, xb).numpy().reshape(3, 8))
reference = np.stack(reference)
print("largest difference:", float(np.abs(result.jacobian - reference).max()))
print("largest entry:", float(np.abs(reference).max()))
print("samples differ:", bool(np.abs(reference[0] - reference[1]).max() > 1e-3))
"""


def test_the_keras_example_prints_the_per_sample_shape_of_the_right_jacobians():
    out = _run(_block_after("## Each sample's Jacobian", GUIDE / "per-example.md") + _PER_SAMPLE_REFERENCE)
    lines = out.splitlines()
    assert lines[0] == "(5, 3, 8)"
    assert float(lines[1].split(": ")[1]) < 1e-5
    assert float(lines[2].split(": ")[1]) > 0.05   # not all zeros
    assert lines[3] == "samples differ: True"     # each sample's own Jacobian, not one repeated


def test_the_per_example_example_prints_its_shapes_and_the_ghost_norms_agree():
    out = _run(_block_after("## Each example's loss gradient", GUIDE / "per-example.md"))
    assert "(32,) (32,)\n" in out
    assert "[(32, 4, 8), (32, 8), (32, 8, 3), (32, 3)]\n" in out
    assert "ghost True\n" in out


def test_the_scan_example_prints_the_shapes_and_writes_the_csv(tmp_path):
    code = _block_after("## On one machine", GUIDE / "scan.md")
    done = run([sys.executable, "-c", code], timeout=300, cwd=tmp_path,
               env={**os.environ, "PYTHONPATH": str(README.parent)})
    assert done.returncode == 0, done.stderr[-2000:]
    assert "(1000,) (1000,)" in done.stdout and "norm" in done.stdout
    assert (tmp_path / "norms.csv").read_text().startswith("index,loss,norm\n")


def test_the_second_order_example_prints_the_seed_s_hessians_and_a_zero_laplacian():
    out = _run(_block_after("# Second order", GUIDE / "second-order.md"))
    assert "[[ 0.  5.  4.]\n  [ 5.  0.  3.]\n  [ 4.  3.  0.]]" in out
    assert "[[40. 30. 24.]\n  [30.  0.  9.]\n  [24.  9.  0.]]" in out
    last = "".join("".join(out.splitlines()[-2:]).split()).replace("-0.", "0.")
    assert last == "[[0.][0.]]", out   # sin(a) e^b is harmonic: its Laplacian is 0 at every sample


# ---------------------------------------------------------------- the pre-commit snippets


def _yaml_blocks_after(heading: str, page: Path = README) -> list[str]:
    text = page.read_text()
    return re.findall(r"```yaml\n(.*?)```", text[text.index(heading):], re.S)


def _field(block: str, name: str) -> list[str]:
    """Every value of ``name:`` in a YAML block (a list item's too), without its comment."""
    return re.findall(rf"^\s*(?:- )?{name}:\s*(\S+)", block, re.M)


def _hooks(manifest: str) -> dict[str, str]:
    """``.pre-commit-hooks.yaml``'s hooks: id -> entry."""
    return dict(zip(_field(manifest, "id"), _field(manifest, "entry")))


def _git(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=README.parent, capture_output=True, text=True, timeout=60)


def _scripts(pyproject: str) -> set[str]:
    return set(tomllib.loads(pyproject)["project"]["scripts"])


#: where a pre-commit snippet stands: the README's short one and the guide's
PRE_COMMIT = ((README, "## Check your code in pre-commit"), (GUIDE / "lint.md", "## In pre-commit"))


def test_the_pre_commit_snippet_s_rev_is_a_commit_or_tag_of_this_repository_with_its_hook():
    """It said rev: v0.1.0, a tag that does not exist: pre-commit failed to check it out."""
    for page, heading in PRE_COMMIT:
        _check_rev(_yaml_blocks_after(heading, page)[0])


def _check_rev(remote: str) -> None:
    (rev,), ids = _field(remote, "rev"), _field(remote, "id")
    if _git("rev-parse", "--git-dir").returncode != 0:
        raise AssertionError("the README's rev is checked against the repository's history: run in a git checkout")
    if _git("rev-parse", "--is-shallow-repository").stdout.strip() == "true":
        pytest.skip("a shallow clone lacks the history the rev is checked against (git fetch --unshallow)")
    assert _git("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}").returncode == 0, f"no tag or commit {rev!r}"
    tag = _git("tag", "--list", rev).stdout.strip() == rev
    assert tag or re.fullmatch(r"[0-9a-f]{40}", rev), f"rev {rev!r} must be a tag or a full commit id (not a branch)"
    assert _git("merge-base", "--is-ancestor", rev, "HEAD").returncode == 0, f"{rev} is not in this branch's history"
    then = _hooks(_git("show", f"{rev}:.pre-commit-hooks.yaml").stdout)
    scripts = _scripts(_git("show", f"{rev}:pyproject.toml").stdout)
    assert ids and all(i in then and then[i] in scripts for i in ids), (ids, then, scripts)


def test_the_pre_commit_snippets_use_the_hooks_this_repository_publishes():
    (readme, readme_heading), (guide, guide_heading) = PRE_COMMIT
    remote, local = _yaml_blocks_after(guide_heading, guide)[:2]
    hooks = _hooks((README.parent / ".pre-commit-hooks.yaml").read_text())
    scripts = _scripts((README.parent / "pyproject.toml").read_text())
    for snippet in (remote, _yaml_blocks_after(readme_heading, readme)[0]):
        assert _field(snippet, "id") == ["gradlib-lint"] and all(i in hooks for i in _field(snippet, "id"))
    assert _field(local, "repo") == ["local"] and _field(local, "id") == ["gradlib-lint"]
    assert _field(local, "entry") == [hooks["gradlib-lint"]] and hooks["gradlib-lint"] in scripts


def test_the_pde_example_trains_a_burgers_residual_inside_tf_function():
    out = _run(_block_after("# PDE residuals for physics-informed networks", GUIDE / "pde.md"))
    assert out.splitlines() == ["()", "True", "{'u': (1000,), 'u_x': (1000,), 'u_xx': (1000,), 'u_xt': (1000,)}"]
