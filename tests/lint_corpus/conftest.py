"""The corpus files are snippets for gradlib.lint, not tests: never collect or import them."""

collect_ignore_glob = ["broken/*.py", "correct/*.py", "unseen/*/*.py"]
