"""tests/fresh_tf.py's fork server against ``subprocess.run``: the same stdout, exit code and stderr, on a script that
passes, one that fails, one that writes to stderr and one that crashes (the server lives on). The passing script is
one gradlib wrote, run by both in a real fresh interpreter too: it runs from a clean process."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import fresh_tf
import gradlib


@pytest.fixture(autouse=True)
def _the_server(monkeypatch):
    """These tests hold the server itself to subprocess.run, even in a run that turned it off for the others."""
    monkeypatch.delenv("GRADLIB_TESTS_NO_FORK", raising=False)


def _both(args: list[str], **kwargs) -> tuple[subprocess.CompletedProcess, subprocess.CompletedProcess]:
    """(a fresh interpreter's run, the fork server's run) of the same arguments."""
    fresh = subprocess.run(args, capture_output=True, text=True, timeout=300, **kwargs)
    return fresh, fresh_tf.run(args, timeout=300, **kwargs)


def _server_pid() -> int:
    """The pid of the server that runs a script here (its children's parent)."""
    return int(fresh_tf.run([sys.executable, "-c", "import os; print(os.getppid())"], timeout=60).stdout)


def test_a_generated_script_prints_the_same_in_a_fresh_interpreter_and_in_a_forked_child(tmp_path):
    script = tmp_path / "generated.py"
    script.write_text(gradlib.tensorflow_code("[x0*x1*x2, x0*x1*x2*x0]", {"x0": 3.0, "x1": 4.0, "x2": 5.0}))
    fresh, forked = _both([sys.executable, str(script)])
    assert fresh.returncode == forked.returncode == 0, (fresh.stderr[-2000:], forked.stderr[-2000:])
    assert "y: [60.0, 180.0]\n" in fresh.stdout   # the seed's values: a script that printed nothing fails here
    assert forked.stdout == fresh.stdout
    # TensorFlow's import-time banner is the server's; whatever the child logs, a fresh interpreter logs too
    assert set(forked.stderr.splitlines()) <= set(fresh.stderr.splitlines()), forked.stderr


def test_the_child_starts_as_a_fresh_interpreter_does(tmp_path, monkeypatch):
    # __main__, argv, path[0], cwd and this test's environment (PYTEST_CURRENT_TEST names it: not the server's) as
    # Python sets them; nothing of the project imported; TensorFlow imported but its runtime not started (the
    # server ran no op before forking)
    code = ("import os, sys\nprint(__name__, sys.argv, sys.path[0], os.getcwd(), os.environ['PYTEST_CURRENT_TEST'])\n"
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'gradlib', 'dashboard', 'pytest', 'fresh_tf'}))\n"
            "if 'tensorflow' in sys.modules:\n"
            "    from tensorflow.python.eager import context\n"
            "    print('runtime started:', context.context()._initialized)\n")
    script = tmp_path / "probe.py"
    script.write_text(code)
    monkeypatch.chdir(tmp_path.parent)   # a relative cwd is this process's, not the server's
    for args, cwd in (([sys.executable, str(script), "a", "b"], tmp_path), ([sys.executable, "-c", code, "a"],
                                                                           tmp_path.name)):
        fresh, forked = _both(args, cwd=cwd)
        assert fresh.returncode == forked.returncode == 0, forked.stderr
        lines = forked.stdout.splitlines()
        assert lines[:2] == fresh.stdout.splitlines()[:2] and lines[1] == "[]"
        assert lines[2:] == ["runtime started: False"]


def test_a_failing_script_gives_the_same_exit_code_output_and_traceback(tmp_path):
    script = tmp_path / "fails.py"
    script.write_text("print('before')\ndef f():\n    return 1 / 0\nf()\n")
    for args in ([sys.executable, str(script)], [sys.executable, "-c", "import sys\nprint('out')\nsys.exit(3)"],
                 [sys.executable, "-c", "raise SystemExit('said why')"], [sys.executable, "-c", "x = ("]):
        fresh, forked = _both(args)
        assert fresh.returncode != 0
        assert (forked.returncode, forked.stdout, forked.stderr) == (fresh.returncode, fresh.stdout, fresh.stderr)
    assert "ZeroDivisionError" in _both([sys.executable, str(script)])[1].stderr


def test_a_module_run_with_dash_m_starts_and_fails_as_in_a_fresh_interpreter(tmp_path):
    # python -m: the working directory first on sys.path (the package is found there), __name__ "__main__", argv[0]
    # the module's file; a failure gives Python's traceback, runpy's frames included, and exit code 1
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "main.py").write_text(
        "import os, sys\nprint(__name__, sys.argv, sys.path[0] == os.getcwd(), __spec__.name)\n"
        "if sys.argv[1:] == ['fail']:\n    {}['missing']\n")
    for argv in (["a", "b"], ["fail"]):
        fresh, forked = _both([sys.executable, "-m", "pkg.main", *argv], cwd=tmp_path)
        assert (forked.returncode, forked.stdout, forked.stderr) == (fresh.returncode, fresh.stdout, fresh.stderr)
        assert forked.stdout == f"__main__ {[str(tmp_path / 'pkg' / 'main.py'), *argv]} True pkg.main\n"
    assert forked.returncode == 1 and forked.stderr.endswith("KeyError: 'missing'\n")
    assert "<frozen runpy>" in forked.stderr
    fresh, forked = _both([sys.executable, "-m", "pkg.absent"], cwd=tmp_path)
    assert (forked.returncode, forked.stderr) == (fresh.returncode, fresh.stderr) == (1, forked.stderr)
    assert "No module named pkg.absent" in forked.stderr


def test_what_a_script_writes_to_stderr_is_captured_python_s_and_c_s():
    code = "import os, sys\nprint('to err', file=sys.stderr)\nos.write(2, b'fd 2\\n')\nprint('to out')\n"
    fresh, forked = _both([sys.executable, "-c", code])
    assert (forked.returncode, forked.stdout, forked.stderr) == (fresh.returncode, fresh.stdout, fresh.stderr)
    assert forked.stderr == "to err\nfd 2\n" and forked.stdout == "to out\n"


@pytest.mark.parametrize("crash", ["import os; os.abort()", "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"])
def test_a_child_s_crash_gives_its_signal_and_the_server_lives_on(crash):
    server = _server_pid()
    fresh, forked = _both([sys.executable, "-c", f"print('up', flush=True); {crash}"])
    assert forked.returncode == fresh.returncode < 0 and forked.stdout == fresh.stdout == "up\n"
    assert _server_pid() == server


def test_a_timeout_ends_the_child_and_raises_as_subprocess_does():
    server = _server_pid()
    with pytest.raises(subprocess.TimeoutExpired):
        fresh_tf.run([sys.executable, "-c", "import time; time.sleep(60)"], timeout=0.5)
    assert _server_pid() == server


def test_gradlib_tests_no_fork_runs_a_real_subprocess(monkeypatch):
    # the variable is read at each run (the autouse fixture removed it for this test's first call)
    args = [sys.executable, "-c", "import os; print(os.getppid())"]
    assert int(fresh_tf.run(args).stdout) != os.getpid()   # the server's child
    monkeypatch.setenv("GRADLIB_TESTS_NO_FORK", "1")
    assert int(fresh_tf.run(args).stdout) == os.getpid()   # this process's own child
