"""Tests written for the mutants of `make mutate` that survived in operations (docs/mutation.md)."""
