"""gradlib.lint's command line fit for pre-commit (issue 22, item 6): no TensorFlow, fast, big files skipped
with a note, a budget cut said, and the console script's own name in --help."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "lint" / "lint_corpus"
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "TF_CPP_MIN_LOG_LEVEL": "3"}

# Imports the command, lints, and says which heavy libraries were loaded and how long it took (after start-up).
_PROBE = """
import sys, time
start = time.process_time()   # CPU time: a shared machine's load stretches wall time (0.64 s at a load of 9)
from gradlib.lint.__main__ import main
status = main(sys.argv[1:])
seconds = time.process_time() - start
heavy = sorted(m for m in ("tensorflow", "keras", "numpy", "pandas", "streamlit") if m in sys.modules)
print("RESULT", status, round(seconds, 3), ",".join(heavy) or "-")
"""


def _run(args, **kwargs):
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=300, cwd=ROOT, env=ENV,
                          **kwargs)


def test_the_command_never_imports_tensorflow_and_answers_well_under_a_second():
    files = [str(CORPUS / "broken" / "argmax.py"), str(CORPUS / "correct" / "keras_subclass.py")]
    done = _run(["-c", _PROBE, *files])
    status, seconds, heavy = done.stdout.strip().splitlines()[-1].split()[1:]
    assert (status, heavy) == ("1", "-"), done.stdout + done.stderr
    assert float(seconds) < 0.5, seconds


def test_python_m_gradlib_lint_imports_no_tensorflow():
    done = _run(["-X", "importtime", "-m", "gradlib.lint", str(CORPUS / "broken" / "argmax.py")])
    assert done.returncode == 1 and "GT010" in done.stdout
    imported = {line.split("|")[-1].strip().split(".")[0] for line in done.stderr.splitlines() if "|" in line}
    assert "gradlib" in imported and not imported & {"tensorflow", "keras", "numpy", "pandas"}, sorted(imported)


def test_the_console_script_shows_its_own_name_in_help(tmp_path):
    script = tmp_path / "gradlib-lint"         # what pip writes for [project.scripts]
    script.write_text("import sys\nfrom gradlib.lint.__main__ import main\nsys.exit(main())\n")
    done = _run([str(script), "--help"])
    assert done.returncode == 0 and done.stdout.startswith("usage: gradlib-lint [-h]"), done.stdout
    done = _run(["-m", "gradlib.lint", "--help"])
    assert done.stdout.startswith("usage: python -m gradlib.lint [-h]")
    assert "\nFind GradientTape mistakes in Python files without running them.\n" in done.stdout


def test_help_says_what_the_command_does_in_process(capsys):
    from gradlib.lint.__main__ import main
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "\nFind GradientTape mistakes in Python files without running them.\n" in capsys.readouterr().out


def _big_valid_module(chars: int) -> str:
    """A valid module of about ``chars`` characters (like Keras' own 468,278-character numpy_test.py)."""
    block = "def test_{k}():\n    value = [{k}, {k} + 1, {k} + 2]\n    assert sum(value) == 3 * {k} + 3\n\n\n"
    parts, size, k = [], 0, 0
    while size < chars:
        parts.append(block.format(k=k))
        size += len(parts[-1])
        k += 1
    return "".join(parts)


def test_a_valid_file_over_the_size_limit_is_skipped_with_a_note_not_an_error(tmp_path):
    big = tmp_path / "numpy_test.py"
    big.write_text(_big_valid_module(468_278))
    broken = CORPUS / "broken" / "twice.py"
    done = _run(["-m", "gradlib.lint", str(big)])
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    assert re.search(rf"^{re.escape(str(big))}: skipped \(not checked\): gradlib.lint got 4\d\d,\d\d\d characters; "
                     r"at most 200,000 are checked at once", done.stderr, re.M), done.stderr
    done = _run(["-m", "gradlib.lint", str(big), str(broken)])
    assert done.returncode == 1 and "GT006" in done.stdout and "skipped (not checked)" in done.stderr


def test_a_syntax_error_is_still_exit_2(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("def f(:\n")
    assert _run(["-m", "gradlib.lint", str(bad)]).returncode == 2


def test_a_budget_cut_is_reported_and_exits_3(tmp_path):
    body = ("import tensorflow as tf\nx = tf.constant(1.0)\nwith tf.GradientTape() as t:\n    y = x * x\n"
            "g = t.gradient(y, x)\n" + "".join(f"for i{k} in range(8):\n" + "    " * (k + 1) for k in range(7))
            + "z = 1\n")
    path = tmp_path / "long.py"
    path.write_text(body)
    done = _run(["-m", "gradlib.lint", str(path)])
    assert done.returncode == 3, done.stderr
    assert f"{path}:3:0: GT003" in done.stdout
    assert re.search(r"incomplete gradlib.lint could not check this file completely: the analysis stopped on line "
                     r"\d+ after 50,000 steps", done.stderr), done.stderr


def test_the_summary_line_says_how_many_gradient_calls_were_followed(tmp_path):
    unknown = tmp_path / "step.py"
    unknown.write_text("import tensorflow as tf\n\ndef step(model, variables, x, y):\n"
                       "    with tf.GradientTape() as tape:\n        loss = tf.reduce_sum(y - model(x))\n"
                       "    return tape.gradient(loss, variables)\n")
    clean = CORPUS / "correct" / "persistent_twice.py"
    done = _run(["-m", "gradlib.lint", str(clean), str(unknown)])
    assert done.returncode == 0 and done.stdout == ""
    assert done.stderr.splitlines()[-1] == (
        "gradlib.lint: No GradientTape mistake of these kinds in the 2 of 3 gradient calls that could be followed "
        "(1 could not: 1 a source it cannot follow). 2 files checked.")
    done = _run(["-m", "gradlib.lint", str(CORPUS / "broken" / "argmax.py")])
    assert done.stderr.splitlines()[-1] == ("gradlib.lint: 2 findings; 1 of 1 gradient call could be followed. "
                                            "1 file checked.")
    assert _run(["-m", "gradlib.lint", "--quiet", str(clean)]).stderr == ""


@pytest.mark.parametrize("args, status", [(["--rules"], 0), ([str(CORPUS / "broken" / "argmax.py")], 3)])
def test_a_reader_that_stops_early_ends_the_command_quietly(args, status):
    """`gradlib-lint --rules | head -1`: the reader closes the pipe before the command writes. No BrokenPipeError
    traceback (issue 39); --rules has done its job (0), a lint cut short did not print everything (3)."""
    child = subprocess.Popen([sys.executable, "-m", "gradlib.lint", *args], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, cwd=ROOT, env=ENV)
    child.stdout.close()                     # before the command has started up, let alone written
    err = child.stderr.read().decode()
    assert child.wait(timeout=60) == status
    assert "Traceback" not in err and "BrokenPipeError" not in err and "Exception ignored" not in err, err


def test_head_of_the_rules_in_a_shell_pipeline_prints_one_line_and_nothing_on_standard_error():
    done = subprocess.run(["bash", "-c", f"set -o pipefail; {sys.executable} -m gradlib.lint --rules | head -1"],
                          capture_output=True, text=True, timeout=60, cwd=ROOT, env=ENV)
    assert done.returncode == 0 and done.stdout.startswith("GT001  ") and done.stdout.count("\n") == 1
    assert done.stderr == ""


def test_a_missing_file_is_one_line_on_standard_error_and_exit_2(tmp_path):
    missing = tmp_path / "missing.py"
    done = _run(["-m", "gradlib.lint", str(missing)])
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [f"{missing}: error cannot read the file: No such file or directory"]


@pytest.mark.parametrize("text, first", [("def f(:\n", ":1:6: error gradlib.lint could not parse the source"),
                                         (None, ": error cannot read the file")])
def test_the_summary_counts_only_the_files_that_were_checked(tmp_path, text, first):
    bad = tmp_path / "bad.py"
    if text is not None:
        bad.write_text(text)
    done = _run(["-m", "gradlib.lint", str(bad)])
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1 and first in done.stderr, done.stderr
    assert "gradient call" not in done.stderr
    done = _run(["-m", "gradlib.lint", str(bad), str(CORPUS / "broken" / "argmax.py")])
    assert done.returncode == 2 and done.stderr.splitlines()[-1] == (
        "gradlib.lint: 2 findings; 1 of 1 gradient call could be followed. 1 file checked.")


def test_a_closed_pipe_in_process_with_no_file_descriptor_is_quiet_too(monkeypatch, capsys):
    """Called as a function (a pre-commit framework, a test) with a standard output that has no descriptor."""
    from gradlib.lint import __main__ as cli

    class Closed:
        def write(self, text):
            raise BrokenPipeError(32, "Broken pipe")

        def flush(self):
            raise BrokenPipeError(32, "Broken pipe")

        def fileno(self):
            raise ValueError("no descriptor")

    for args, status in ((["--rules"], 0), ([str(CORPUS / "broken" / "argmax.py")], 3)):
        monkeypatch.setattr(sys, "stdout", Closed())
        assert cli.main(args) == status
        assert sys.stdout.name == os.devnull        # what Python flushes at exit goes nowhere
        sys.stdout.close()
    assert "Traceback" not in capsys.readouterr().err
