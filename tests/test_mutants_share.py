"""Tests written for the mutants of `make mutate` that survived in share (docs/mutation.md)."""
