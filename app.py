"""gradlib dashboard: the entry script is a router and a frame (the pages live in pages/, listed below)."""

import streamlit as st

st.set_page_config(page_title="gradlib: per-element gradients", page_icon=":material/functions:", layout="wide")

PAGES = [
    st.Page("pages/bug.py", title="The bug, side by side", icon=":material/bug_report:", url_path="bug", default=True),
    st.Page("pages/playground.py", title="Playground", icon=":material/science:", url_path="playground"),
    st.Page("pages/why_zeros.py", title="Why zeros?", icon=":material/help:", url_path="why_zeros"),
    st.Page("pages/strategies.py", title="Strategies", icon=":material/timer:", url_path="strategies"),
    st.Page("pages/models.py", title="Keras models", icon=":material/neurology:", url_path="models"),
]

page = st.navigation(PAGES)

with st.sidebar:
    st.markdown("**gradlib** — per-element gradients (the Jacobian, row by row) for TensorFlow, "
                "and why `for y_i in y: tape.gradient(y_i, x)` gives zeros.")
    st.caption("Every number is computed live by TensorFlow on this server; results are cached for an hour. "
               "Light or dark: choose in the ⋮ menu, Settings.")

page.run()
