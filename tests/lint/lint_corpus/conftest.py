"""The corpus files are snippets for gradlib.lint and prove.py is a script: never collect or import them
(importing prove.py would quiet TensorFlow's logger for the whole test session)."""

collect_ignore_glob = ["broken/*.py", "correct/*.py", "unseen/*/*.py", "prove.py"]
