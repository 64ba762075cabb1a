"""The project's benchmark commands (run as modules: ``python3 -m benchmarks.per_example``)."""
