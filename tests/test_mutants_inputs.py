"""Tests written for the mutants of `make mutate` that survived in inputs (docs/mutation.md)."""
