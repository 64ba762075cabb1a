PYTHON ?= python3

.PHONY: app test bench

# Set up and run the dashboard.
app:
	$(PYTHON) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	$(PYTHON) -m streamlit run app.py

# Set up and run the whole test suite (browser and load tests included).
test:
	PYTHON=$(PYTHON) bash scripts/setup-tests.sh
	$(PYTHON) -m pytest

# Benchmark the methods side by side in one process (ratios; absolute times drift on a shared machine):
# per-element Jacobians, then per-example gradients of a training loss.
bench:
	$(PYTHON) -m benchmarks.mlp
	$(PYTHON) -m benchmarks.per_example
	$(PYTHON) -m benchmarks.scan
