"""Tests written for the mutants of `make mutate` that survived in language (docs/mutation.md)."""
