"""The corpus files are snippets for gradlib.lint, and outcomes.py is a script: never collect or
import them (importing it would quiet TensorFlow's logger for the whole test session)."""

collect_ignore_glob = ["broken/*.py", "correct/*.py", "unseen/*/*.py", "outcomes.py"]
