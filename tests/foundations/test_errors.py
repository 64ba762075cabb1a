"""What a visitor reads when something fails: the useful line, without TensorFlow's internals."""

from __future__ import annotations

import logging

import pytest
import tensorflow as tf
from streamlit.testing.v1 import AppTest

from gradlib._foundations._errors import error_gist

WRAPPED = ("{{function_node __wrapped__AddV2_device_/job:localhost/replica:0/task:0/device:CPU:0}} "
           "Incompatible shapes: [2] vs. [3] [Op:AddV2] name: ")
OOM = ("{{function_node __wrapped__Fill_device_/job:localhost/replica:0/task:0/device:CPU:0}} OOM when allocating "
       "tensor with shape[100000,100000,100] and type float on /job:localhost/replica:0/task:0/device:CPU:0 by "
       "allocator mklcpu [Op:Fill] name: ")
GRAPH = ('Graph execution error:\n\nDetected at node add defined at (most recent call last):\n  File "<string>", '
         'line 11, in <module>\n\n  File "/srv/app/secret.py", line 10, in g\n\nIncompatible shapes: [2] vs. [3]\n'
         '\t [[{{node add}}]] [Op:__inference_g_15]')
TRACED = "Dimensions must be equal, but are 2 and 3 for '{{node add}} = AddV2[T=DT_FLOAT](a, b)' with input shapes: [2], [3]."
KERAS = "\x1b[1mException encountered when calling Dense.call().\x1b[0m\n\n\x1b[1mInput 0 is incompatible\x1b[0m"


@pytest.mark.parametrize("message, gist", [
    (WRAPPED, "Incompatible shapes: [2] vs. [3]"),
    (OOM, "out of memory allocating a tensor of shape [100000,100000,100] and type float"),
    (GRAPH, "Incompatible shapes: [2] vs. [3]"),
    (TRACED, "Dimensions must be equal, but are 2 and 3 with input shapes: [2], [3]."),
    (KERAS, "Input 0 is incompatible"),
    ("", "ValueError"),
])
def test_error_gist_keeps_the_useful_line_and_drops_tensorflows_internals(message, gist):
    assert error_gist(ValueError(message)) == gist


def test_a_real_tensorflow_error_reaches_compare_without_internals():
    import gradlib

    def boom(x):
        return x + tf.ones(3)   # shapes (2,) and (3,): TensorFlow refuses when it runs

    with pytest.raises(gradlib.GradlibError) as info:
        gradlib.per_element_gradients(boom, tf.ones(2))
    assert "Incompatible shapes: [2] vs. [3]" in str(info.value)
    assert "function_node" not in str(info.value) and "/job:" not in str(info.value)


def _page():
    import streamlit as st
    import tensorflow as tf

    from dashboard import render as _ui

    oom = tf.errors.ResourceExhaustedError(None, None, "OOM when allocating tensor by allocator mklcpu")
    _ui.attempt("Could not compute", lambda: (_ for _ in ()).throw(oom))
    _ui.attempt("Could not draw", lambda: {}["{{function_node __wrapped__x}}"])
    st.write("still running")


def test_unexpected_errors_show_visitors_a_plain_message_and_log_the_details(caplog):
    at = AppTest.from_function(_page, default_timeout=60)
    with caplog.at_level(logging.ERROR):
        at.run()
    assert not at.exception
    shown = [e.value for e in at.error]
    assert shown[0].startswith("**Could not compute**\n\nthe server ran out of memory for this computation; try "
                               "smaller inputs or fewer methods. The details are in the server's log.")
    assert shown[1].startswith("**Could not draw**\n\nsomething went wrong on the server while computing this")
    assert not any(word in text for text in shown for word in ("function_node", "allocator", "KeyError", "OOM"))
    assert "mklcpu" in caplog.text and "function_node" in caplog.text   # the details stay in the server log
