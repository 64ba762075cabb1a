"""The corpus files are snippets for gradlib.lint, and prove.py and outcomes.py are scripts: never collect or
import them (importing either would quiet TensorFlow's logger for the whole test session)."""

collect_ignore_glob = ["broken/*.py", "correct/*.py", "unseen/*/*.py", "prove.py", "outcomes.py"]
