"""The frame around every page: the page list, the sidebar, and one way in, whatever the first URL.

Streamlit serves a ``pages/`` folder beside the entry script as pages of their own until the entry
script has called ``st.navigation`` once in the server process (and Streamlit's AppTest starts every
run in that mode). So on a freshly started server a visitor whose first request is a share link
(``/playground?...``) would get the folder's raw file names, no page config, and the page run outside
this frame. Every page therefore calls ``ensure_routed()`` first: when Streamlit ran the page file
directly, it puts up the same frame (config, page list, sidebar) around it, so the visitor lands
exactly as if the visit had started at ``/``, on the same page with the same query.

``ensure_routed(title, intro)`` also draws the page's head, and it runs at the very top of the page file, before
the page imports anything heavy: on a fresh server the visitor sees the title, the intro and a spinner while
TensorFlow loads (3-6 s), whether the visit began at ``/`` or at a deep link. Everything imported before that
call (streamlit, this module, ``gradlib`` itself) loads no TensorFlow.
"""

from __future__ import annotations

import importlib
import sys
import threading
import time
from pathlib import Path

import streamlit as st

import gradlib

__all__ = ["HEAD_PAUSE", "HEAVY", "PAGE_CONFIG", "SIDEBAR_CAPTION", "STYLE", "WARMING_UP", "ensure_routed", "pages", "route"]

PAGE_CONFIG = {"page_title": "gradlib: per-element gradients", "page_icon": ":material/functions:", "layout": "wide"}
SIDEBAR_TEXT = ("**gradlib** — per-element gradients (the Jacobian, row by row) for TensorFlow, "
                "and why `for y_i in y: tape.gradient(y_i, x)` gives zeros.")
SIDEBAR_CAPTION = ("Every number is computed live by TensorFlow on this server; results are cached for an hour. "
                   "Light or dark: open the ⋮ menu at the top right and choose System, Light or Dark.")
#: the few style rules of every page (at phone width: Markdown tables, forms); the colours are the theme's
STYLE = Path(__file__).with_name("style.css")
#: what takes seconds to import on a fresh server (gradlib loads it on first use)
HEAVY = "tensorflow"
WARMING_UP = "Starting TensorFlow: the first visit after the server starts takes a few seconds…"
#: seconds a browser session's first run waits after drawing the page's head, so that the head is sent and drawn
#: before the page's work takes the CPU (``_let_the_head_show``)
HEAD_PAUSE = 0.3
_HEAD_SHOWN = "_gradlib_head_shown"   # in a session's state once its first run has paused
_ROUTING = threading.local()   # Streamlit runs each session's script in its own thread


def pages() -> list[st.Page]:
    """The dashboard's pages, in the order of the sidebar (url paths match the file names).

    The first page is served at ``/``; Streamlit gives the default page no path of its own, so a hidden
    second entry serves the same file at ``/bug`` (an address the folder mode hands out, and people share).
    """
    return [
        st.Page("pages/bug.py", title="The bug, side by side", icon=":material/bug_report:", url_path="home",
                default=True),
        st.Page("pages/bug.py", title="The bug, side by side", url_path="bug", visibility="hidden"),
        st.Page("pages/playground.py", title="Playground", icon=":material/science:", url_path="playground"),
        st.Page("pages/why_zeros.py", title="Why zeros?", icon=":material/help:", url_path="why_zeros"),
        st.Page("pages/strategies.py", title="Strategies", icon=":material/timer:", url_path="strategies"),
        st.Page("pages/models.py", title="Keras models", icon=":material/neurology:", url_path="models"),
        st.Page("pages/per_example.py", title="Per-example gradients", icon=":material/label_off:",
                url_path="per_example"),
        st.Page("pages/second_order.py", title="Second order", icon=":material/stacked_line_chart:",
                url_path="second_order"),
        st.Page("pages/pde.py", title="PDE residuals", icon=":material/waves:", url_path="pde"),
        st.Page("pages/lint.py", title="Check your code", icon=":material/fact_check:", url_path="lint"),
    ]


def route() -> None:
    """The entry script's whole job: page config, navigation, the shared sidebar, then the chosen page.

    Nothing here loads TensorFlow: the page's first line (``ensure_routed``) draws its head, then loads it.
    """
    page = _frame()
    _ROUTING.active = True
    try:
        page.run()
    finally:
        _ROUTING.active = False


def ensure_routed(title: str, intro: str = "") -> None:
    """First line of every page, before its heavy imports: the frame if Streamlit ran the file without
    ``route()``, then the page's head (``title``, ``intro`` as Markdown), and TensorFlow loaded under it.

    ``st.navigation`` here replaces the folder's page list with the dashboard's (and leaves the folder mode
    for the whole server). On a session's first run the page then reruns through ``route()``: widgets drawn
    in the folder-mode run would not be the ones later runs see (a form's first submit lost its values).
    Other runs (Streamlit's AppTest runs every run in folder mode) put the frame around the page and go on.
    """
    routed = getattr(_ROUTING, "active", False)
    # A browser's first run of a session: no widget has been drawn yet, so a rerun loses nothing. (Streamlit's
    # AppTest has no HTTP connection, hence no headers, and runs every run in folder mode: there the frame
    # goes around the page each time and the run goes on, so its widgets stay the same from run to run.)
    first_run = not routed and not st.session_state.to_dict() and bool(st.context.headers)
    if not routed:
        _frame()
    st.title(title)
    if intro:
        st.markdown(intro)
    if first_run:
        # run again through route() at once, before TensorFlow loads: the page's widgets are then born where
        # later runs find them. Rerunning only after the seconds of the import let the browser act on the new
        # page list first, and a share link's query string was sometimes lost on a fresh server.
        st.rerun()
    _let_the_head_show()
    _warm_up()
    _serve_shared()


def _let_the_head_show() -> None:
    """On a browser session's first run, pause ``HEAD_PAUSE`` after the head, once: the page's work that follows
    (TensorFlow's import or its tracing, seconds of CPU and of the GIL) kept Streamlit's event loop from sending the
    head and the browser from drawing it. Measured on a warm server (load average 5-7, the browser on the same
    2 cores): the title reached the browser 0.5-1.5 s after ``st.title`` ran, 10 ms into the script; with a pause,
    0.16-0.34 s (docs/performance.md, issue 26). Later runs, and Streamlit's AppTest (no browser), do not pause."""
    if not st.context.headers or _HEAD_SHOWN in st.session_state:
        return
    st.session_state[_HEAD_SHOWN] = True
    time.sleep(HEAD_PAUSE)


def _warm_up() -> None:
    """On a fresh server, import TensorFlow under the page's head and a spinner, then clear the spinner: inside
    the page's own imports, the main area stayed blank for 3-6 s (on Streamlit Community Cloud, every wake-up
    from sleep), and a deep link's first visit showed nothing until the page was done."""
    if HEAVY in sys.modules:
        return
    holder = st.empty()
    with holder.container():
        with st.spinner(WARMING_UP):
            importlib.import_module(HEAVY)
    holder.empty()


def _serve_shared() -> None:
    """One process serves every visitor: cap TensorFlow's thread pools before its first computation (the library
    leaves them alone unless asked). Each run asks again; after the first, the call returns at once."""
    try:
        gradlib.configure_threads()
    except gradlib.GradlibError:
        pass   # TensorFlow already started in this process with settings of its own (a test run): keep them


def _frame() -> st.Page:
    st.set_page_config(**PAGE_CONFIG)
    st.html(STYLE)   # style tags only: Streamlit puts them in the page without taking any room
    page = st.navigation(pages())
    with st.sidebar:
        st.markdown(SIDEBAR_TEXT)
        st.caption(SIDEBAR_CAPTION)
    return page
