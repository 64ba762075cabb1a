"""A sampled mutation run (`make mutate-sample`): a seeded random sample of mutants per module, run by name.

Usage: python scripts/mutation_sample.py [--size N] [--seed S] [--jobs J] [MODULE_PATTERN ...]

Running every mutant of every module (`make mutate`, 32,000 mutants) takes many hours on 2 cores. This runs
``--size`` mutants per module instead, drawn by ``scripts/mutation_score.sample`` (seeded, per module), and
scripts/mutation_score.py --sample prints each module's rate with its 95% interval: an estimate, not a count.

1. mutmut generates every mutant (mutants/; kept between runs, so only a changed source is mutated again).
2. The sample is drawn from the generated names, and grouped by the room of tests that mirrors each module
   (``ROOMS``: gradlib/_second/ -> tests/second/, dashboard/ -> tests/app/, ...).
3. For each room, one mutmut run (a fresh process) whose test selection is that room's tests: its stats run
   (every test of the room under mutmut's instrumentation, to learn which tests reach which function) costs the
   room's test time once, instead of the whole suite's. The mutants named are run against the tests that reach them.
4. Each mutant mutmut counted as detected is run again alone, in a fresh interpreter (``_confirm``: mutmut's
   forked children cannot be trusted where TensorFlow's thread pools were started before the fork), and that
   verdict is kept; ``--confirm`` does this alone, for the verdicts already recorded of the chosen modules, and
   ``--alone`` runs every mutant so from the start (mutmut runs its stats only): faster where most forked children
   would spin until mutmut's CPU limit stops them.
5. Each room's verdicts are added to mutants/mutation-sample.json as it ends (mutmut clears its own results when
   the selection changes), so a run stopped part-way keeps the rooms done; a mutant already recorded is not run
   again unless ``--rerun`` is given. The file keeps each module's size and seed: modules can be sampled in
   separate runs, with different sizes; a module drawn again with another size or seed starts afresh.

A module pattern (fnmatch, e.g. ``"gradlib._second.*"``) limits the run to the modules it matches.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import fnmatch
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import mutation_score  # noqa: E402  (this folder is not a package)

__all__ = ["ROOMS", "main", "room_of"]

ROOT = Path(__file__).resolve().parents[1]

# module prefix -> the test folders that mirror it (the first prefix that matches wins)
ROOMS = [
    ("gradlib._language.", ["tests/language"]),
    ("gradlib._perelement._comparison._demos", ["tests/app"]),   # the seed's demonstrations: the bug page's tests
    ("gradlib._perelement._comparison.", ["tests/comparison", "tests/perelement"]),   # the floor above the engine
    ("gradlib._perelement.", ["tests/perelement", "tests/comparison"]),   # compare's tests run the engine too
    ("gradlib._perexample._scan", ["tests/scan"]),
    ("gradlib._perexample.", ["tests/perexample"]),
    ("gradlib._second.", ["tests/second"]),
    ("gradlib.lint", ["tests/lint"]),
    ("gradlib.scan", ["tests/scan"]),
    ("gradlib.figures", ["tests/face"]),
    ("gradlib.keras_models", ["tests/face"]),
    ("dashboard.", ["tests/app"]),
    ("gradlib._", ["tests/foundations"]),
    ("gradlib", ["tests/face"]),
]
# not in any room's selection: slow tests of no module's logic (the soak, the benchmark tables), and
# tests/language/test_sandbox.py, one of whose cases fails when its file runs alone (docs/mutation.md)
IGNORED = ["tests/perelement/test_soak.py", "tests/perelement/test_bench_side_by_side.py",
           "tests/language/test_sandbox.py"]
# tests that read the source text of the modules, which mutants/ holds mutated: "allow_pickle=True" is in a mutant of
# gradlib/scan/_files.py, and the st.Page calls of dashboard/frame.py's mutants no longer name a page
DESELECTED = ["tests/face/test_keras_models.py::test_no_user_model_file_is_ever_loaded",
              "tests/app/test_page_bug.py::test_pages_and_the_entry_script_never_import_tensorflow_or_rely_on_auto_discovery",
              # a bound on the analysis time: mutmut's trampolines slow every call of the mutated modules past it
              "tests/lint/test_lint_cli.py::test_the_command_never_imports_tensorflow_and_answers_well_under_a_second",
              # a child process started in a temporary folder: it inherits mutmut's stats switch, and mutmut's
              # instrumentation in it, looking for its configuration in that folder, stops the child (and the stats
              # run with it); mutmut cannot see into a child process anyway
              "tests/scan/test_scan_cli.py::test_the_issues_reproducers_in_a_fresh_process_within_time_and_memory",
              # runs the script tensorflow_code writes, which copies gradlib's helpers by their source text:
              # mutants/ holds that text with mutmut's decorators, which the script cannot resolve
              "tests/language/test_functions.py::test_generated_code_of_the_new_functions_runs_and_matches_gradlib"]


def room_of(module: str) -> tuple[str, ...]:
    """The test folders of a module: ``gradlib._second._tapes`` -> ``("tests/second",)``."""
    for prefix, folders in ROOMS:
        if module == prefix.rstrip(".") or module.startswith(prefix):
            return tuple(folders)
    raise ValueError(f"no test room for module {module!r}: add its prefix to ROOMS in scripts/mutation_sample.py")


def _mutmut(args: list[str], log) -> int:
    code = "import sys; from mutmut.__main__ import cli; sys.exit(cli())"
    return subprocess.call([sys.executable, "-c", code, *args], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)


def _generate(log) -> None:
    """Make mutmut generate every mutant without running any: a run of a name that matches nothing would fail, so
    this calls mutmut's own generation step (the first step of its ``run``)."""
    # a generation stopped part-way leaves an empty file newer than its source, which mutmut takes as up to date
    for copy in (ROOT / "mutants").rglob("*.py"):
        source = ROOT / copy.relative_to(ROOT / "mutants")
        if copy.stat().st_size == 0 and source.exists() and source.stat().st_size > 0:
            copy.unlink()
    code = ("import os; from mutmut.__main__ import create_mutants; "
            "from mutmut.utils.file_utils import copy_src_dir, copy_also_copy_files, setup_source_paths; "
            "from mutmut.mutation.trampoline import set_mutant_under_test; os.makedirs('mutants', exist_ok=True); "
            "set_mutant_under_test('mutant_generation'); copy_src_dir(); copy_also_copy_files(); "
            "setup_source_paths(); print(create_mutants(1))")
    subprocess.check_call([sys.executable, "-c", code], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)


def _run_room(folders: tuple[str, ...], names: list[str], jobs: int, log, alone: bool = False) -> dict[str, int | None]:
    """Run ``names`` with mutmut, its test selection set to ``folders``; their exit codes as mutmut recorded them.
    With ``alone``, mutmut runs its stats only (which tests reach which function), and each mutant is run alone."""
    selection = [*folders, *(f"--ignore={path}" for path in IGNORED), *(f"--deselect={t}" for t in DESELECTED),
                 "-m", "not browser and not load"]
    # mutmut's stats run (a changed selection: every test of the room; the same selection: only tests new since)
    # runs with no mutant active and stops the run if a test fails; the "clean" run mutmut does right after it,
    # of the tests that reach the named mutants, so runs passing tests again (minutes per room) and is skipped.
    code = ("import sys, json; from mutmut.configuration import config; "
            f"config().pytest_add_cli_args_test_selection = {selection!r}; "
            "from mutmut.workers import isolation; "
            "isolation.ForkServerRunner.run_clean_tests = lambda self, tests: 0; "
            "import mutmut.__main__ as m; "
            # the step right after the stats and the clean run: stopping there runs no mutant
            + ("m.run_forced_fail_test = lambda runner: sys.exit(0); " if alone else "") +
            f"m._run({names!r}, {jobs})")
    subprocess.call([sys.executable, "-c", code], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    if alone:  # fresh interpreters, ``jobs`` at a time
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(jobs, 1)) as pool:
            return dict(zip(names, pool.map(lambda name: _alone(name, log), names)))
    codes: dict[str, int | None] = {}
    for meta in (ROOT / "mutants").rglob("*.py.meta"):
        for name, exit_code in json.loads(meta.read_text())["exit_code_by_key"].items():
            if name in names:
                codes[name] = exit_code
    return codes


def _alone(name: str, log) -> int | None:
    """Run the tests that reach mutant ``name`` (mutmut's stats) in a fresh interpreter, the mutant switched on:
    pytest's exit code (0 survived, 1 killed), -24 past the time allowed (a timeout), 33 when no test reaches it."""
    stats = json.loads((ROOT / "mutants" / "mutmut-stats.json").read_text())
    tests = sorted(stats["tests_by_mangled_function_name"].get(name.partition("__mutmut_")[0], ()))  # mutmut's key
    if not tests:
        return 33
    timeout = 120 + 10 * sum(stats["duration_by_test"].get(test, 0) for test in tests)
    env = {**os.environ, "MUTANT_UNDER_TEST": name}
    try:
        return subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests],
                              cwd=ROOT / "mutants", env=env, stdout=log, stderr=subprocess.STDOUT,
                              timeout=timeout).returncode
    except subprocess.TimeoutExpired:
        return -24


def _confirm(codes: dict[str, int | None], log) -> dict[str, int | None]:
    """Run again alone (``_alone``) every mutant mutmut counted as detected (killed or timed out).

    mutmut runs a mutant's tests in a child forked from a process that has imported the tests; where that process
    has started TensorFlow's thread pools (a test module building tensors when imported), the forked child spins in
    them: mutmut's CPU limit stops it, and the mutant is counted as a timeout, as detected, whatever the mutant
    does. (In the perelement room, 12 of its first 19 verdicts were such timeouts; the first one run again alone
    passed its test: a survivor.) A fresh interpreter has no such state, and its verdict is kept. A survivor in
    the forked child is already a survivor: a broken child can fail a test, never make one pass."""
    confirmed = dict(codes)
    for name, code in codes.items():
        if code in (None, 0, 5, 33, 34):
            continue
        confirmed[name] = _alone(name, log)
        if confirmed[name] != code:
            print(f"    {name}: {mutation_score.STATUS.get(code, code)} in mutmut's forked child, "
                  f"{mutation_score.STATUS.get(confirmed[name], confirmed[name])} alone", flush=True)
    return confirmed


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=20, help="mutants per module (default 20)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1,
                        help="mutmut's --max-children, and with --alone the mutants run at once (default 1)")
    parser.add_argument("--rerun", action="store_true", help="run mutants already recorded again")
    parser.add_argument("--list", action="store_true", help="print the sample and run nothing")
    parser.add_argument("--alone", action="store_true",
                        help="run each mutant alone in a fresh interpreter, not in mutmut's forked children (rooms "
                             "whose tests start TensorFlow when imported: the forked children spin)")
    parser.add_argument("--confirm", action="store_true",
                        help="run mutmut nothing: run the recorded detected mutants of the chosen modules again alone")
    parser.add_argument("modules", nargs="*", help="fnmatch patterns of module names (default: every module)")
    args = parser.parse_args(argv)
    os.chdir(ROOT)
    with open(ROOT / "mutation-run.log", "a") as log:
        _generate(log)
        sizes = mutation_score.generated()
        names = [name for meta in (ROOT / "mutants").rglob("*.py.meta")
                 for name in json.loads(meta.read_text())["exit_code_by_key"]]
        chosen = {module: members for module, members in mutation_score.sample(names, args.size, args.seed).items()
                  if not args.modules or any(fnmatch.fnmatch(module, p) for p in args.modules)}
        if args.list:
            for module, members in chosen.items():
                print(f"{module} ({len(members)} of {sizes[module]}): {' '.join(members)}")
            return 0
        results = mutation_score.SAMPLE_RESULTS
        recorded = mutation_score.load_sample()
        for module in chosen:   # a module drawn again with another size or seed starts afresh
            if recorded["samples"].get(module) != [args.size, args.seed]:
                recorded["exit_codes"] = {name: code for name, code in recorded["exit_codes"].items()
                                          if mutation_score.module_of(name) != module}
                recorded["samples"][module] = [args.size, args.seed]
        if args.confirm:
            mine = {name: code for name, code in recorded["exit_codes"].items()
                    if mutation_score.module_of(name) in chosen}
            print(f"confirming {sum(code not in (None, 0, 5, 33, 34) for code in mine.values())} detected mutants",
                  flush=True)
            recorded["exit_codes"].update(_confirm(mine, log))
            results.write_text(json.dumps(recorded, indent=1, sort_keys=True))
            return mutation_score.print_sample(show=False)
        by_room: dict[tuple[str, ...], list[str]] = {}
        for module, members in chosen.items():
            todo = [m for m in members if args.rerun or recorded["exit_codes"].get(m) is None]
            if todo:
                by_room.setdefault(room_of(module), []).extend(todo)
        for folders, todo in by_room.items():
            print(f"{' '.join(folders)}: {len(todo)} mutants", flush=True)
            start = time.monotonic()
            codes = _run_room(folders, todo, args.jobs, log, alone=args.alone)
            if not args.alone:
                codes = _confirm(codes, log)
            recorded["exit_codes"].update(codes)
            room = " ".join(folders)
            recorded["seconds_by_room"][room] = recorded["seconds_by_room"].get(room, 0) + time.monotonic() - start
            results.write_text(json.dumps(recorded, indent=1, sort_keys=True))
            print(f"    {time.monotonic() - start:.0f} s", flush=True)
    return mutation_score.print_sample(show=False)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
