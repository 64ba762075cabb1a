"""Tests written for the mutants of `make mutate` that survived in codegen (docs/mutation.md)."""
