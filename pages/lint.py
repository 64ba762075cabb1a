"""Check your code: paste a snippet (or load a rule's example), or upload a small project (several .py files or a
.zip), and see each GradientTape mistake on its line, file by file.

The code is read by gradlib.lint, never run: nothing typed or uploaded here is executed, imported or written to disk
on the server.
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

from dashboard import lint_project, lint_view, render, services
from dashboard.limits import LINT_PROJECT
from gradlib.lint import RULES

EXAMPLES = {f"{rule.code}: {rule.title}": rule.example for rule in RULES}


def _load_example() -> None:
    st.session_state["lint_source"] = EXAMPLES[st.session_state["lint_example"]]


MODES = ("Paste code", "Upload files or a .zip")


def upload_help() -> str:
    limits = LINT_PROJECT
    return (f"Up to {limits.max_files} Python files of at most {limits.max_file_bytes // 1000} kB each "
            f"({limits.max_total_bytes // 1000} kB together), as files or in .zip archives; other files in an "
            "archive are skipped. Imports between the files are followed; nothing is run.")


def check_project() -> None:
    uploads = st.file_uploader("Your project's Python files, or a .zip of them", type=["py", "zip"],
                               accept_multiple_files=True, key="lint_files", help=upload_help())
    if not uploads:
        st.info(upload_help())
        return
    project = render.attempt("These files cannot be checked", lambda: lint_project.read_project(
        [(upload.name, upload.getvalue()) for upload in uploads]))
    if project is None:
        return
    results = render.attempt("These files cannot be checked",
                             lambda: services.lint_project(tuple(sorted(project.texts.items()))))
    if results is not None:
        lint_view.show_project(project.texts, results, project.skipped)


def check_pasted() -> None:
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


def main() -> None:
    mode = st.radio("What to check", MODES, horizontal=True, key="lint_mode", label_visibility="collapsed")
    if mode == MODES[0]:
        check_pasted()
    else:
        check_project()


if __name__ == "__main__":   # Streamlit runs pages as __main__; tests import the helpers without running it
    main()
