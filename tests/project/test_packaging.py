"""gradlib as a package a user installs: what the wheel holds, what its commands do from another folder, what
``import gradlib`` costs and what it leaves alone (TensorFlow's threads and logger), and pyproject.toml against
the app's pinned requirements.txt.

Each check of the import's manners runs in a fresh interpreter: this test process has long since imported
TensorFlow and gradlib.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"


def _python(code: str, *, env: dict[str, str] | None = None, cwd: Path = ROOT, stream: str = "stdout") -> str:
    """Run ``code`` in a fresh interpreter; its stdout (or stderr) as text (the run must succeed)."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=cwd,
                          env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2", **(env or {})})
    assert done.returncode == 0, done.stderr[-3000:]
    return getattr(done, stream)


# ---------------------------------------------------------------- pyproject.toml against requirements.txt


def _declared() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = [r for group in project.get("optional-dependencies", {}).values() for r in group]
    return [Requirement(r) for r in project["dependencies"] + extras]


def _pinned() -> list[Requirement]:
    lines = (ROOT / "requirements.txt").read_text().splitlines()
    return [Requirement(line) for line in lines if line.strip() and not line.lstrip().startswith(("#", "-"))]


def disagreements(declared: list[Requirement], pinned: list[Requirement]) -> list[str]:
    """What the library's declared ranges say that the app's pins contradict (an empty list: they agree)."""
    pins = {(p.name.lower(), str(p.marker)): p for p in pinned}
    problems = []
    for req in declared:
        pin = pins.get((req.name.lower(), str(req.marker)))
        if pin is None:
            problems.append(f"{req.name} ({req.marker or 'no marker'}) is declared but not pinned in requirements.txt")
            continue
        version = re.fullmatch(r"==([\w.]+)", str(pin.specifier))
        if version is None:
            problems.append(f"{pin} is not an exact pin (==)")
        elif not req.specifier.contains(version.group(1), prereleases=True):
            problems.append(f"requirements.txt pins {pin.name}=={version.group(1)}, outside the declared {req.specifier}")
    return problems


def test_the_declared_dependencies_admit_the_apps_pins():
    assert disagreements(_declared(), _pinned()) == []
    declared = {r.name.lower() for r in _declared()}
    assert {"tensorflow", "tensorflow-cpu", "keras", "numpy", "pandas", "plotly"} <= declared
    assert not declared & {"streamlit", "scikit-learn"}       # the app's, not the library's


def test_the_agreement_check_sees_a_pin_outside_a_range_a_missing_pin_and_a_marker_mismatch():
    pinned = [Requirement("numpy==1.25.0"), Requirement('tensorflow==2.21.0; sys_platform != "linux"')]
    assert disagreements([Requirement("numpy>=2.0,<3"), Requirement("pandas>=2.2"),
                          Requirement('tensorflow>=2.21; sys_platform == "linux"')], pinned) == [
        "requirements.txt pins numpy==1.25.0, outside the declared <3,>=2.0",
        "pandas (no marker) is declared but not pinned in requirements.txt",
        'tensorflow (sys_platform == "linux") is declared but not pinned in requirements.txt']


def test_plotly_is_an_extra_and_only_gradlib_figures_imports_it():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert [Requirement(r).name for r in project["optional-dependencies"]["figures"]] == ["plotly"]
    assert not any(Requirement(r).name == "plotly" for r in project["dependencies"])
    importers = {p.relative_to(ROOT).as_posix() for p in (ROOT / "gradlib").rglob("*.py")
                 if re.search(r"^\s*(import|from) plotly", p.read_text(), re.M)}
    assert importers == {"gradlib/figures.py"}


# ---------------------------------------------------------------- import cost and manners


def test_import_gradlib_lint_and_its_command_load_no_tensorflow():
    """``import gradlib.lint`` loaded gradlib's __init__, and with it TensorFlow: 10-20 s before a file was read."""
    out = _python("import sys, io, contextlib\n"
                  "heavy = lambda: sorted(m for m in ('tensorflow', 'keras', 'numpy', 'pandas') if m in sys.modules)\n"
                  "import gradlib.lint\n"
                  "from gradlib.lint.__main__ import main as lint\n"
                  "with contextlib.redirect_stdout(io.StringIO()):\n"
                  "    print(lint(['--quiet', 'tests/lint/lint_corpus/broken/seed_comprehension.py']), heavy(), file=sys.stderr)\n"
                  "from gradlib.scan.__main__ import main as scan\n"
                  "with contextlib.redirect_stdout(io.StringIO()):\n"
                  "    try:\n"
                  "        scan(['--help'])\n"
                  "    except SystemExit as exc:\n"
                  "        print(exc.code, heavy(), file=sys.stderr)\n", stream="stderr")
    assert out.splitlines() == ["1 []", "0 ['numpy']"]     # the scan command's --help: no TensorFlow either


def test_import_gradlib_lint_takes_milliseconds():
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", "import gradlib.lint"], capture_output=True,
                          text=True, timeout=60, cwd=ROOT)
    microseconds = int(done.stderr.strip().splitlines()[-1].split("|")[1])
    assert microseconds < 2_000_000, done.stderr[-2000:]     # about 0.1 s (under load); with TensorFlow 10-20 s


def test_every_public_name_resolves_and_tensorflows_threads_and_logger_stay_as_they_were():
    """gradlib capped both thread pools at import and put a filter on TensorFlow's logger, for every program."""
    out = _python("import tensorflow as tf, gradlib, gradlib.lint, gradlib.scan, gradlib.scan._cli\n"
                  "from gradlib._perelement import _methods\n"
                  "print(sorted(n for n in gradlib.__all__ if not hasattr(gradlib, n)))\n"
                  "print(callable(gradlib.scan), callable(gradlib.lint), type(gradlib.scan).__name__)\n"
                  "print(set(gradlib.__all__) <= set(dir(gradlib)), gradlib.METHOD_TABLE is _methods.TABLE,\n"
                  "      gradlib.__version__)\n"
                  "r = gradlib.evaluate('x*x', {'x': [1.0, 2.0]}, method='jacobian', compiled=True)\n"
                  "t = tf.config.threading\n"
                  "print(t.get_intra_op_parallelism_threads(), t.get_inter_op_parallelism_threads(),\n"
                  "      tf.get_logger().filters, r.jacobian.tolist())")
    assert out.splitlines() == ["[]", "True True function", "True True 0.1.0", "0 0 [] [[2.0, 0.0], [0.0, 4.0]]"]


def test_the_app_caps_tensorflows_threads_at_its_start_and_configure_threads_refuses_a_change_later():
    """The dashboard is the shared server: its first run sets the pools (the library alone no longer does)."""
    out = _python("from streamlit.testing.v1 import AppTest\n"
                  "import gradlib, tensorflow as tf\n"
                  "at = AppTest.from_file('app.py', default_timeout=240).run()\n"
                  "assert not at.exception, at.exception\n"
                  "t = tf.config.threading\n"
                  "print(t.get_intra_op_parallelism_threads(), t.get_inter_op_parallelism_threads())\n"
                  "print(gradlib.configure_threads(), gradlib.configure_threads(3))\n"
                  "for bad in (2, 0, 1.5, True):\n"
                  "    try:\n"
                  "        gradlib.configure_threads(bad)\n"
                  "    except gradlib.GradlibError as exc:\n"
                  "        print(exc)", env={"GRADLIB_TF_THREADS": "3"})
    assert out.splitlines() == [
        "3 3", "3 3",
        "configure_threads: TensorFlow's runtime already started with 3 intra-op and 3 inter-op threads, which "
        "cannot change in this process any more; call gradlib.configure_threads(2) before the first computation",
        "configure_threads: threads must be a whole number of at least 1, got 0",
        "configure_threads: threads must be a whole number of at least 1, got 1.5",
        "configure_threads: threads must be a whole number of at least 1, got True"]


# ---------------------------------------------------------------- the wheel, installed, used from elsewhere


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel built from a copy of what the build reads (the checkout gets no build/ or egg-info folders)."""
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "gradlib", source / "gradlib", ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q",
                    "-w", str(out), str(source)], check=True, capture_output=True, timeout=300)
    return next(out.glob("gradlib-*.whl"))


def test_the_wheel_holds_gradlib_alone_and_both_commands(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    modules = {n for n in names if not n.startswith("gradlib-")}
    assert modules == {p.relative_to(ROOT).as_posix() for p in (ROOT / "gradlib").rglob("*.py")}
    entry_points = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("entry_points.txt"))).decode()
    assert "gradlib-lint = gradlib.lint.__main__:main" in entry_points
    assert "gradlib-scan = gradlib.scan.__main__:main" in entry_points


def test_installed_from_the_wheel_the_seed_example_and_both_commands_work_from_another_folder(wheel, tmp_path):
    target, elsewhere = tmp_path / "site", tmp_path / "elsewhere"
    elsewhere.mkdir()
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "-q", "--target", str(target),
                    str(wheel)], check=True, capture_output=True, timeout=300)
    env = {**os.environ, "PYTHONPATH": str(target), "TF_CPP_MIN_LOG_LEVEL": "2"}
    env.pop("PYTHONSTARTUP", None)

    def run(*argv: str) -> subprocess.CompletedProcess:
        return subprocess.run(argv, capture_output=True, text=True, timeout=300, cwd=elsewhere, env=env)

    text = README.read_text()
    seed = re.search(r"```python\n(.*?)```", text[text.index("## The seed example"):], re.S).group(1)
    where = run(sys.executable, "-c", "import gradlib; print(gradlib.__file__)")
    assert where.stdout.startswith(str(target)), where.stdout + where.stderr
    done = run(sys.executable, "-c", seed)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "[[ 20.  15.  12.]\n [120.  45.  36.]]" in done.stdout and "[[0. 0. 0.]\n [0. 0. 0.]]" in done.stdout

    (elsewhere / "train.py").write_text((ROOT / "tests/lint/lint_corpus/broken/seed_comprehension.py").read_text())
    lint = run(str(target / "bin" / "gradlib-lint"), "train.py")
    assert (lint.returncode, lint.stderr) == (
        1, "gradlib.lint: 1 finding; 1 of 1 gradient call could be followed. 1 file checked.\n")
    assert lint.stdout.startswith("train.py:9:92: GT001 ")
    clean = run(str(target / "bin" / "gradlib-lint"), "--help")
    assert clean.returncode == 0 and "FILE" in clean.stdout
    scan = run(str(target / "bin" / "gradlib-scan"), "--help")
    assert (scan.returncode, scan.stderr) == (0, "") and "--model MODULE:FUNCTION" in scan.stdout

    # TensorFlow starts (the data is good), then the model's module is not found: the command's one line on
    # stderr, without absl's "All log messages before absl::InitializeLog()" and oneDNN's note before it
    import numpy as np
    np.savez(elsewhere / "d.npz", x=np.ones((4, 3), np.float32), y=np.zeros(4, np.float32))
    del env["TF_CPP_MIN_LOG_LEVEL"]
    scan = run(str(target / "bin" / "gradlib-scan"), "--model", "no_such_module:f", "--data", "d.npz", "--loss", "mse",
               "--out", "r.csv")
    assert scan.returncode == 2 and len(scan.stderr.splitlines()) == 1, scan.stderr[-2000:]
    assert scan.stderr.startswith("gradlib-scan: error: --model: could not import 'no_such_module'")
