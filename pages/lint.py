"""Check your code: paste a snippet (or load a rule's example) and see each GradientTape mistake on its line.

The code is read by gradlib.lint, never run: nothing typed here is executed on the server.
"""

from __future__ import annotations

from dashboard import frame

TITLE = "Check your code"
INTRO = (
    "Paste the code that computes your gradients. `gradlib.lint` reads it — it never runs it — follows your "
    "names through the `with tf.GradientTape()` blocks, loops, helper functions and Keras models, and shows "
    "each mistake on its line: why the gradient comes out `None`, zeros or an error, and the fix. The same "
    "check runs from the command line: `python -m gradlib.lint your_file.py`."
)
if __name__ == "__main__":   # Streamlit runs a page as __main__: its head first, before the imports below load TensorFlow
    frame.ensure_routed(TITLE, INTRO)

import streamlit as st

from dashboard import lint_view, render, services
from gradlib.lint import RULES

EXAMPLES = {f"{rule.code}: {rule.title}": rule.example for rule in RULES}


def _load_example() -> None:
    st.session_state["lint_source"] = EXAMPLES[st.session_state["lint_example"]]


def main() -> None:
    st.session_state.setdefault("lint_source", RULES[0].example)
    st.selectbox("Load an example (one per rule)", list(EXAMPLES), key="lint_example", on_change=_load_example)
    with st.form("lint_form"):
        st.text_area("Your Python code", key="lint_source", height=300,
                     max_chars=services.LINT_LIMITS.max_source_chars)
        st.form_submit_button("Check", type="primary", key="lint_submit")
    source = st.session_state["lint_source"]
    findings = render.attempt("This code cannot be checked", lambda: services.lint(source))
    if findings is not None:
        lint_view.show(source, findings)


if __name__ == "__main__":   # Streamlit runs pages as __main__; tests import the helpers without running it
    main()
