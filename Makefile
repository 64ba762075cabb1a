PYTHON ?= python3

.PHONY: app test test-fast bench bench-deps bench-compare mutate mutate-sample

# Set up and run the dashboard.
app:
	$(PYTHON) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	$(PYTHON) -m streamlit run app.py

# Set up and run the whole test suite (browser and load tests included): everything but the load test on every
# core (pytest-xdist; the browser tests are one xdist group, so one worker runs them against one server while the
# others run the library tests; each file with a module- or session-scoped fixture is one group too, tests/conftest.py,
# so that fixture runs once, not once per worker), then the load test alone, so that it times a server no other
# test loads. --durations=30: every run prints its 30 slowest test phases (setup, call, teardown), so a change
# that slows the suite shows where.
# PYTHONDONTWRITEBYTECODE is emptied for the tests: where the machine sets it, every process (each xdist worker, then
# the load test) compiled all ~470 modules and pytest rewrote every test module's asserts again, about 14 s of CPU a
# collection; the bytecode goes to __pycache__/, which git ignores.
# The load test's run collects tests/browser only (the load tests live there, tests/project/test_xdist_groups.py): a
# collection of the whole suite, ~7,900 items and TensorFlow's import, cost ~25 s of CPU to select one test.
test:
	PYTHON=$(PYTHON) bash scripts/setup-tests.sh
	PYTHONDONTWRITEBYTECODE= $(PYTHON) -m pytest -n auto --dist loadgroup -m "not load" --durations=30
	PYTHONDONTWRITEBYTECODE= $(PYTHON) -m pytest -m load tests/browser

# Everything but the browser and load tests (no Chromium needed): the quick loop while working.
test-fast:
	PYTHON=$(PYTHON) GRADLIB_NO_CHROMIUM=1 bash scripts/setup-tests.sh
	PYTHONDONTWRITEBYTECODE= $(PYTHON) -m pytest -n auto --dist loadgroup -m "not browser and not load"

# Benchmark the methods side by side in one process (ratios; absolute times drift on a shared machine):
# per-element Jacobians, per-example gradients of a training loss, scan, per-sample Jacobians, second order, PDE.
# Each appends its headline ratios, with the commit, to the tracked history (benchmarks/history.py);
# `make bench-compare` then names every ratio more than 20% worse than in the run before (exit code 1).
BENCH_HISTORY ?= benchmarks/history.jsonl
bench:
	BENCH_HISTORY=$(BENCH_HISTORY) $(PYTHON) -m benchmarks.mlp
	BENCH_HISTORY=$(BENCH_HISTORY) $(PYTHON) -m benchmarks.per_example
	BENCH_HISTORY=$(BENCH_HISTORY) $(PYTHON) -m benchmarks.scan
	BENCH_HISTORY=$(BENCH_HISTORY) $(PYTHON) -m benchmarks.per_sample
	BENCH_HISTORY=$(BENCH_HISTORY) $(PYTHON) -m benchmarks.second_order
	BENCH_HISTORY=$(BENCH_HISTORY) $(PYTHON) -m benchmarks.pde
	-$(PYTHON) -m benchmarks.compare --history $(BENCH_HISTORY)

bench-compare:
	$(PYTHON) -m benchmarks.compare --history $(BENCH_HISTORY)

# The benchmark-only extras (requirements-bench.txt: DeepXDE, which the PDE bench races; without them it skips
# DeepXDE with a line), then tf-keras, which DeepXDE's TensorFlow backend imports through tensorflow-probability:
# with --no-deps, since its requirement names the package `tensorflow` and pip would otherwise fetch a second
# TensorFlow beside tensorflow-cpu. Not run by `make bench`: `make bench-deps bench` runs both.
bench-deps:
	$(PYTHON) -m pip install --quiet --disable-pip-version-check -r requirements-bench.txt
	$(PYTHON) -m pip install --quiet --disable-pip-version-check --no-deps tf-keras==2.21.0

# Mutation testing (not part of `make test` or CI): mutate every module of gradlib/ and dashboard/, run the tests
# that reach each mutant, print the kill rate per module. Configured in setup.cfg ([mutmut]); CPU heavy and long
# (32,000 mutants: many hours, docs/mutation.md): MUTANTS narrows it to mutant-name patterns, MUTATE_JOBS=1 leaves
# a core free on a shared machine.
MUTATE_JOBS ?= 1
MUTANTS ?=
mutate:
	$(PYTHON) -m pip install --quiet --disable-pip-version-check -r requirements-mutate.txt
	rm -rf mutants
	$(PYTHON) -c "import sys; from mutmut.__main__ import cli; sys.exit(cli())" run --max-children $(MUTATE_JOBS) $(MUTANTS) \
		> mutation-run.log 2>&1 || (tail -c 3000 mutation-run.log; exit 1)
	$(PYTHON) scripts/mutation_score.py $(MUTANTS)

# The sampled run: SAMPLE mutants per module drawn with SEED, each module's run against its room of tests, the rate
# per module with its 95% interval (an estimate). MODULES narrows it to module-name patterns ("gradlib._second.*").
# Keeps mutants/ (mutmut mutates only a changed source again) and the verdicts already recorded for SAMPLE and SEED.
SAMPLE ?= 20
SEED ?= 1
MODULES ?=
mutate-sample:
	$(PYTHON) -m pip install --quiet --disable-pip-version-check -r requirements-mutate.txt
	$(PYTHON) scripts/mutation_sample.py --size $(SAMPLE) --seed $(SEED) --jobs $(MUTATE_JOBS) $(MODULES)
