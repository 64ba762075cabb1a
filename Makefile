PYTHON ?= python3

.PHONY: app test test-fast bench mutate

# Set up and run the dashboard.
app:
	$(PYTHON) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	$(PYTHON) -m streamlit run app.py

# Set up and run the whole test suite (browser and load tests included).
test:
	PYTHON=$(PYTHON) bash scripts/setup-tests.sh
	$(PYTHON) -m pytest

# Everything but the browser and load tests (no Chromium needed): the quick loop while working.
test-fast:
	$(PYTHON) -m pip install --quiet --disable-pip-version-check -r requirements-test.txt
	$(PYTHON) -m pytest -m "not browser and not load"

# Benchmark the methods side by side in one process (ratios; absolute times drift on a shared machine):
# per-element Jacobians, then per-example gradients of a training loss.
bench:
	$(PYTHON) -m benchmarks.mlp
	$(PYTHON) -m benchmarks.per_example
	$(PYTHON) -m benchmarks.scan

# Mutation testing (not part of `make test` or CI): mutate the language, checks, code generation, share links,
# inputs and the engine's choice and repair, run their tests against each mutant, print the kill rate per module.
# Configured in setup.cfg ([mutmut]); CPU heavy: MUTATE_JOBS=1 leaves a core free on a shared machine.
MUTATE_JOBS ?= 2
MUTANTS = "gradlib._language._syntax.*" "gradlib._perelement._checks.*" "gradlib._language._codegen.*" "gradlib._language._operations.*" "dashboard.share.*" "gradlib._language._inputs.*" \
	"gradlib._perelement._engine.x__choose__*" "gradlib._perelement._engine.x__use_compiled__*" \
	"gradlib._perelement._repair.x_poisoned_rows__*" "gradlib._perelement._repair.x__merge__*"
mutate:
	$(PYTHON) -m pip install --quiet --disable-pip-version-check -r requirements-mutate.txt
	rm -rf mutants
	$(PYTHON) -c "import sys; from mutmut.__main__ import cli; sys.exit(cli())" run --max-children $(MUTATE_JOBS) $(MUTANTS) \
		> mutation-run.log 2>&1 || (tail -c 3000 mutation-run.log; exit 1)
	$(PYTHON) scripts/mutation_score.py $(MUTANTS)
