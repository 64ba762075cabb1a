"""Run a Python script as if in a fresh interpreter, without paying TensorFlow's import each time: a fork server.

Shared by the tests that run a script gradlib wrote (tests/generated_code.py), an example of the docs in a new Python
(tests/project/test_readme.py) or a user's program (``python -m package.module``, tests/lint/test_project.py). Each
such run used to start an interpreter that imported TensorFlow again, ~5 s of CPU each, ~27 of them a suite. Here
``run`` does what ``subprocess.run(args, capture_output=True, text=True)`` does for ``[sys.executable, script, ...]``,
``[sys.executable, "-c", code, ...]`` and ``[sys.executable, "-m", module, ...]``, in a child forked
from a server that has imported TensorFlow and nothing of the project:

- one server per test process (xdist worker) and start-up environment, started on the first run and ended with the
  process (it reads its requests from a pipe: at the end of the file it exits);
- the server imports TensorFlow and runs NO op: TensorFlow's runtime (the eager context, its thread pools) does not
  exist yet, so the fork copies no thread and no lock of it; each child builds its own on its first op, as a fresh
  interpreter does. At import the server holds two threads besides its own, both made to survive fork: OpenBLAS's
  (numpy; it registers pthread_atfork handlers) and pyarrow's jemalloc background thread (jemalloc's atfork too);
- the child is the script's interpreter: a fresh ``__main__``, ``sys.argv`` and ``sys.path[0]`` as Python sets
  them, the request's working directory and environment, stdin from /dev/null, stdout and stderr (file descriptors
  1 and 2, so TensorFlow's C++ logs too) captured to files; an uncaught exception prints Python's own traceback
  (the server's frame left out) and exits 1, ``SystemExit`` exits with its code, a crash gives ``-signal``.

What differs from a fresh interpreter: modules the server imported (TensorFlow and what it imports) are already
imported, so their import-time output (TensorFlow's banner on stderr) is not printed again; the hash seed is the
server's. ``GRADLIB_TESTS_NO_FORK=1`` runs every script with ``subprocess.run`` instead, and anything but those three
argument forms always does. tests/project/test_fresh_tf.py holds the server to ``subprocess.run``.
"""

from __future__ import annotations

import atexit
import builtins
import io
import json
import locale
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path

__all__ = ["run"]

#: environment variables that change from test to test and decide nothing at start-up: not part of a server's key
_PER_TEST = ("PYTEST_CURRENT_TEST",)
#: at most this many servers per test process (one per start-up environment); the oldest is ended first
_MAX_SERVERS = 3
_servers: dict[tuple, _Server] = {}


def run(args: list[str], *, cwd=None, env: dict | None = None, timeout: float | None = None,
        check: bool = False) -> subprocess.CompletedProcess:
    """``subprocess.run(args, capture_output=True, text=True, cwd=cwd, env=env, timeout=timeout, check=check)`` for
    ``[sys.executable, script, ...]``, ``[sys.executable, "-c", code, ...]`` or ``[sys.executable, "-m", module,
    ...]``, in a child of the fork server."""
    args = [str(a) for a in args]
    forkable = (len(args) >= 2 and args[0] == sys.executable and (args[1] in ("-c", "-m") and len(args) >= 3
                                                                   or not args[1].startswith("-")))
    if os.environ.get("GRADLIB_TESTS_NO_FORK") == "1" or not forkable or not hasattr(os, "fork"):
        return subprocess.run(args, capture_output=True, text=True, cwd=cwd, env=env, timeout=timeout, check=check)
    env = dict(os.environ if env is None else env)
    key = tuple(sorted((k, v) for k, v in env.items() if k not in _PER_TEST))
    server = _servers.get(key)
    if server is None or not server.alive():
        while len(_servers) >= _MAX_SERVERS:
            _servers.pop(next(iter(_servers))).close()
        server = _servers[key] = _Server(env)
    returncode, stdout, stderr, timed_out = server.run(args[1:], cwd=os.path.abspath(cwd or os.getcwd()), env=env,
                                                       timeout=timeout)
    if timed_out:
        raise subprocess.TimeoutExpired(args, timeout, output=stdout, stderr=stderr)
    done = subprocess.CompletedProcess(args, returncode, stdout, stderr)
    if check:
        done.check_returncode()
    return done


def _text(data: bytes) -> str:
    """Bytes as ``text=True`` decodes them: the locale's encoding, universal newlines."""
    return data.decode(locale.getpreferredencoding(False)).replace("\r\n", "\n").replace("\r", "\n")


class _Server:
    """The client's side: the server process, its pipes and a folder for the children's output."""

    def __init__(self, env: dict):
        self.folder = Path(tempfile.mkdtemp(prefix="gradlib-fresh-tf-"))
        self.log = open(self.folder / "server.log", "wb")
        self.process = subprocess.Popen([sys.executable, __file__, "--serve"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=self.log, env=env, cwd=self.folder)
        if self.process.stdout.readline() != b"ready\n":
            raise RuntimeError(f"the fork server did not start: {self._log_tail()}")
        self.count = 0

    def alive(self) -> bool:
        return self.process.poll() is None

    def run(self, argv: list[str], *, cwd: str, env: dict, timeout: float | None):
        self.count += 1
        out, err = self.folder / f"{self.count}.out", self.folder / f"{self.count}.err"
        request = {"argv": argv, "cwd": cwd, "env": env, "timeout": timeout, "out": str(out), "err": str(err)}
        self.process.stdin.write(json.dumps(request).encode() + b"\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the fork server ended: {self._log_tail()}")
        answer = json.loads(line)
        stdout, stderr = _text(out.read_bytes()), _text(err.read_bytes())
        out.unlink()
        err.unlink()
        return answer["returncode"], stdout, stderr, answer["timed_out"]

    def _log_tail(self) -> str:
        self.log.flush()
        return (self.folder / "server.log").read_text(errors="replace")[-2000:]

    def close(self) -> None:
        if self.alive():
            self.process.stdin.close()   # the server reads the end of its requests and exits
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process.stdout.close()
        self.log.close()
        shutil.rmtree(self.folder, ignore_errors=True)


@atexit.register
def _close_all() -> None:
    while _servers:
        _servers.popitem()[1].close()


# ---------------------------------------------------------------- the server's side


def _serve() -> None:
    """Import TensorFlow (no op), say ready, then fork one child per request, one at a time, until the requests
    end (the client closed them or ended); the server runs in its folder, and removes it as it ends."""
    requests, answers = sys.stdin.buffer, os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)   # what the server itself might print goes to its log, not into the answers
    del sys.path[0]   # this file's folder: the child sets its script's own
    import tensorflow  # noqa: F401  (imported, no op run: see the module's docstring)

    answers.write(b"ready\n")
    answers.flush()
    for line in requests:
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            _child(request, answers.fileno())   # never returns
        returncode, timed_out = _wait(pid, request["timeout"])
        answers.write(json.dumps({"returncode": returncode, "timed_out": timed_out}).encode() + b"\n")
        answers.flush()
    shutil.rmtree(os.getcwd(), ignore_errors=True)   # its folder (the client's may end without closing: xdist)


def _wait(pid: int, timeout: float | None) -> tuple[int, bool]:
    """The child's exit code (``-signal`` for a signal, as ``subprocess`` gives it), and whether it was killed for
    running past ``timeout``."""
    end = None if timeout is None else time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status), False
        if end is not None and time.monotonic() > end:
            os.killpg(pid, signal.SIGKILL)
            _, status = os.waitpid(pid, 0)
            return os.waitstatus_to_exitcode(status), True
        time.sleep(0.005)


def _child(request: dict, answers: int) -> None:
    """Become the script's interpreter, run it, and exit with its code (``answers``: the server's pipe, closed)."""
    code = 1
    try:
        os.setpgid(0, 0)   # its own group: a timeout ends it and whatever it started
        os.close(answers)
        for fd, opened in ((0, os.open(os.devnull, os.O_RDONLY)),
                           (1, os.open(request["out"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)),
                           (2, os.open(request["err"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600))):
            os.dup2(opened, fd)
            os.close(opened)
        sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False))
        sys.stdout = io.TextIOWrapper(io.BufferedWriter(io.FileIO(1, "w", closefd=False)))
        sys.stderr = io.TextIOWrapper(io.BufferedWriter(io.FileIO(2, "w", closefd=False)),
                                      errors="backslashreplace", line_buffering=True)
        sys.__stdin__, sys.__stdout__, sys.__stderr__ = sys.stdin, sys.stdout, sys.stderr
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        code = _main(request["argv"])
        atexit._run_exitfuncs()
    except BaseException:   # the runner itself failed: say so where the test will read it
        import traceback
        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                code = code or 120   # as Python exits when it cannot flush its output
        os._exit(code)


def _main(argv: list[str]) -> int:
    """Run ``argv`` (what follows ``python``) as ``__main__``; the exit code Python would give."""
    if argv[0] == "-m":
        return _main_module(argv[1], argv[2:])
    main = types.ModuleType("__main__")
    main.__builtins__ = builtins
    if argv[0] == "-c":
        source, filename, sys.path[0:0], sys.argv = argv[1], "<string>", [""], ["-c", *argv[2:]]
    else:
        filename = argv[0]
        with open(filename, "rb") as fh:
            source = fh.read()
        sys.path[0:0], sys.argv = [os.path.dirname(os.path.abspath(filename))], list(argv)
        main.__file__ = filename
    sys.modules["__main__"] = main
    try:
        exec(compile(source, filename, "exec"), main.__dict__)
    except SystemExit as e:
        return _exit_code(e.code)
    except BaseException:
        kind, value, tb = sys.exc_info()
        value.__traceback__ = tb.tb_next   # Python's own traceback, from the script's first frame on
        sys.excepthook(kind, value, tb.tb_next)
        return 1
    return 0


def _main_module(name: str, args: list[str]) -> int:
    """``python -m name args``: the working directory first on sys.path, ``sys.argv[0]`` the module's file (runpy
    sets it, and ``__main__``), Python's traceback from runpy's frames on."""
    import runpy

    sys.path[0:0], sys.argv = [os.getcwd()], ["-m", *args]
    sys.modules["__main__"] = types.ModuleType("__main__")   # runpy runs the module in __main__'s namespace
    sys.modules["__main__"].__builtins__ = builtins
    try:
        runpy._run_module_as_main(name, alter_argv=True)
    except SystemExit as e:
        return _exit_code(e.code)
    except BaseException:
        kind, value, tb = sys.exc_info()
        value.__traceback__ = tb.tb_next
        sys.excepthook(kind, value, tb.tb_next)
        return 1
    return 0


def _exit_code(code) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


if __name__ == "__main__" and sys.argv[1:] == ["--serve"]:
    _serve()
