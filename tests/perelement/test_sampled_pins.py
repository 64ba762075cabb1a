"""Pins from the sampled mutation run of the perelement and language rooms (2026-12-02, docs/mutation.md): each
test fails on one surviving mutant, named in its docstring, and passes on the code as it is."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

import gradlib
from gradlib._foundations._errors import ExpressionError, GradlibError
from gradlib._perelement._cost import Profile, size_text
from gradlib._perelement._result import index_labels


def test_a_size_under_ten_units_has_two_significant_digits():
    """``_cost.x_size_text__mutmut_19`` (three digits)."""
    assert size_text(1_234_567) == "1.2 MB" and size_text(6.07e9) == "6.1 GB" and size_text(12_345) == "12 kB"


def test_a_callable_s_profile_is_a_lower_bound_not_a_known_cost():
    """``_cost.xǁProfileǁof_callable__mutmut_18`` (``known`` left at its default)."""
    profile = Profile.of_callable(3, 4, 4)
    assert profile.known is False and (profile.m, profile.n, profile.elements) == (3, 4, 7)


def test_the_labels_of_a_large_tensor_are_indexed_past_the_cache():
    """``_result.x_index_labels__mutmut_10`` (the uncached labels called without the name)."""
    labels = index_labels("x", (5000,))
    assert len(labels) == 5000 and labels[0] == "x[0]" and labels[-1] == "x[4999]"


def test_an_integer_output_is_refused_with_what_to_do():
    """``_problem.x__as_output__mutmut_11`` (the advice's wording)."""
    with pytest.raises(GradlibError, match=r"fn returned a int32 tensor: only floating-point outputs have gradients\. "
                                           r"Return a float tensor \(cast with tf\.cast\(y, tf\.float32\) if you must\)"):
        gradlib.per_element_gradients(lambda x: tf.cast(x, tf.int32), tf.constant([1.0, 2.0]))


def test_the_dead_branch_finding_s_details_start_with_one_capital():
    """``_guard.x_dead_branches__mutmut_52`` (the details' first two letters made capitals, the second repeated)."""
    c = gradlib.compare("where(x > 0, sqrt(x), 0)", {"x": [0.0, -1.0, 4.0]}, methods=["jacobian"], crosscheck=True)
    details = [f for f in c.diagnosis if "XLA" in f.text][0].details
    assert details.startswith("At y[0], x > 0 is false, and the branch not taken, sqrt(x), has derivative inf")


def test_a_refused_comparison_shows_the_text_with_a_caret():
    """``_syntax.x__check_comparison__mutmut_10`` (the refusal without its text: no excerpt, no caret)."""
    with pytest.raises(ExpressionError) as info:
        gradlib.evaluate("where(x is s, x, s)", {"x": [1.0, 2.0], "s": 1.0})
    assert str(info.value) == ("operator 'is' is not supported; compare with > < >= <= == or != (column 9)\n"
                               "    where(x is s, x, s)\n            ^")


def test_the_second_order_script_explains_the_outer_jacobian():
    """``_codegen.x__hessian__mutmut_37`` (the script's comment in lower case)."""
    code = gradlib.tensorflow_code("x*x*x", {"x": [1.0, 2.0]}, order=2)
    assert "# The outer tape's Jacobian of the gradients, taken after its block: one block per watched x" in code


def _py_function_of_a_static_length(v):
    """Python branches on v's static length: traced with shapeless specs it cannot be."""
    n = v.shape[0]
    return tf.py_function(lambda t: tf.sin(t), [v], tf.float32) * tf.reshape(v, [n])


def test_py_function_is_found_in_a_function_that_needs_its_inputs_static_shape():
    """``_compute.x_calls_py_function__mutmut_2`` (the trace that looks for tf.py_function made with shapeless specs:
    fn cannot be traced so, the py_function is not found, and auto's fallback to eager forward mode never comes)."""
    v = tf.constant([1.0, 2.0, 3.0])
    r = gradlib.per_element_gradients(_py_function_of_a_static_length, v)
    x = v.numpy()
    np.testing.assert_allclose(r.jacobian, np.diag(np.cos(x) * x + np.sin(x)), rtol=1e-5)
    assert r.method == "forward" and any(w.startswith("fn calls tf.py_function") for w in r.warnings)


def test_the_check_against_fn_moves_each_input_by_its_own_part_of_the_step(monkeypatch):
    """``_probe.x__call__mutmut_14`` (the offset into the step walked backwards: the second input's part was empty,
    the check could not run, and a function hiding work from the tape in its second input went unnamed)."""
    from gradlib._foundations._cache import LRUCache
    from gradlib._perelement import _probe

    monkeypatch.setattr(_probe, "_SHARES", LRUCache(maxsize=4))
    a, b = tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])
    good = gradlib.per_element_gradients(lambda xs: xs[0] * xs[1], [a, b], compiled=False)
    assert not [w for w in good.warnings if "fn itself" in w], good.warnings
    hidden = gradlib.per_element_gradients(lambda xs: xs[0] * tf.constant(np.sin(xs[1].numpy())), [a, b],
                                           compiled=False)
    assert [w for w in hidden.warnings if w.startswith("the Jacobian disagrees with fn itself")], hidden.warnings


def test_a_failed_mode_s_text_ends_with_one_full_stop(monkeypatch):
    """``_crosscheck.x_crosscheck_problem__mutmut_106`` (the error's own full stop kept before the sentence's)."""
    from gradlib._perelement._comparison import _crosscheck

    def fails(problem):
        raise ValueError("the graph broke.")

    monkeypatch.setitem(_crosscheck._RUNNERS, "graph", fails)
    c = gradlib.crosscheck(lambda v: v * v, tf.constant([1.0, 2.0]), modes=("eager", "graph"))
    assert c.mode("graph").status == "failed"
    assert c.mode("graph").text.endswith("failed where eager ran: ValueError: the graph broke.")


def test_a_compiled_run_s_note_joins_the_warnings_before_it():
    """``_package.x_package__mutmut_22`` (the note of a compiled run replaced the problem's own warnings)."""
    import dataclasses

    from gradlib._perelement._compute import CompiledRun
    from gradlib._perelement._package import package
    from gradlib._perelement._problem import callable_problem
    from gradlib._perelement._repair import Repair

    problem = dataclasses.replace(callable_problem(lambda v: v * v, tf.constant([1.0, 2.0])), warnings=("earlier",))
    r = package(problem, "jacobian", "auto", np.array([1.0, 4.0]), np.diag([2.0, 4.0]),
                CompiledRun("graph", True, "XLA was dropped"), (), Repair(), 0.01)
    assert r.warnings == ("earlier", "XLA was dropped")
