"""The fingerprint's quick path (``_state._Fixed``): a plain function whose every value read is summed up by which
object it is (a closure's tensors, a number, a module) keeps its fingerprint while each of those is the same object.
Every way such a value can be another object must take the walk again and give the walk's answer."""

from __future__ import annotations

import types

import numpy as np
import pytest
import tensorflow as tf

from gradlib._callable import _state
from gradlib._callable._state import fingerprint

SCALE = 2.0
W = tf.constant([1.0, 2.0])


def by_globals(x):
    return tf.tanh(x * W) * SCALE


def _walked(fn) -> tuple:
    """The fingerprint by the whole walk (nothing kept)."""
    _state._FIXED.pop(id(fn), None)
    return fingerprint(fn)


def _quick_equals_walk(fn) -> tuple:
    quick = fingerprint(fn)
    assert id(fn) in _state._FIXED, "the quick path was not taken"
    assert quick == _walked(fn)
    return quick


def test_a_closure_of_tensors_is_kept_and_a_rebound_cell_is_seen():
    t = tf.constant([1.0, 2.0])
    f = lambda x: tf.tanh(x * t)   # noqa: E731
    before = fingerprint(f)
    assert _quick_equals_walk(f) == before
    t = tf.constant([1.0, 3.0])   # noqa: F841 - the closure's cell now holds another tensor
    after = fingerprint(f)
    assert after != before and after == _walked(f)
    t = tf.constant([1.0, 2.0])   # noqa: F841 - equal content: the same key, as the walk says
    assert fingerprint(f) == before


def test_a_rebound_global_is_seen():
    global SCALE, W
    before = fingerprint(by_globals)
    assert _quick_equals_walk(by_globals) == before
    old_scale, old_w = SCALE, W
    try:
        SCALE = 3.0
        assert fingerprint(by_globals) != before
        SCALE = old_scale
        assert fingerprint(by_globals) == before
        W = tf.constant([1.0, 5.0])
        assert fingerprint(by_globals) != before
    finally:
        SCALE, W = old_scale, old_w
    assert fingerprint(by_globals) == before


def test_a_global_defined_after_the_first_fingerprint_is_seen():
    namespace = {"tf": tf}
    f = types.FunctionType((lambda x: x * LATER).__code__, namespace)   # noqa: F821 - LATER is defined below
    before = fingerprint(f)
    assert _quick_equals_walk(f) == before
    namespace["LATER"] = 4.0
    assert fingerprint(f) != before and fingerprint(f) == _walked(f)


def test_replaced_defaults_keyword_defaults_and_code_are_seen():
    def f(x, a=1.0, *, b=2.0):
        return x * a * b

    before = fingerprint(f)
    assert _quick_equals_walk(f) == before
    f.__defaults__ = (5.0,)
    assert fingerprint(f) != before and fingerprint(f) == _walked(f)
    f.__defaults__ = (1.0,)
    assert fingerprint(f) == before
    f.__kwdefaults__["b"] = 7.0   # changed in place: the same dict
    assert fingerprint(f) != before and fingerprint(f) == _walked(f)
    f.__kwdefaults__["b"] = 2.0
    assert fingerprint(f) == before
    f.__code__ = (lambda x, a=1.0, *, b=2.0: x * a * b * SCALE).__code__
    assert fingerprint(f) != before and fingerprint(f) == _walked(f)


@pytest.mark.parametrize("value", [np.array([1.0, 2.0]), [1.0, 2.0], {"a": 1.0}, np.float32(2.0)],
                         ids=["ndarray", "list", "dict", "numpy scalar"])
def test_a_value_read_by_content_is_not_kept(value):
    f = lambda x: x * value   # noqa: E731
    fingerprint(f)
    assert id(f) not in _state._FIXED


def test_an_array_changed_in_place_after_a_quick_call_is_seen():
    scale = np.array([1.0, 2.0])
    t = tf.constant([1.0, 2.0])
    f = lambda x: x * t   # noqa: E731
    fingerprint(f)
    assert id(f) in _state._FIXED
    g = lambda x: x * t * scale   # noqa: E731 - reads an array: the walk every time
    before = fingerprint(g)
    scale[0] = 9.0
    assert fingerprint(g) != before


def test_a_function_that_changes_what_it_reads_is_not_kept():
    calls = {"n": 0}

    def f(x):
        calls["n"] += 1
        return x

    fingerprint(f)
    assert id(f) not in _state._FIXED


def test_a_dead_function_leaves_nothing_kept():
    t = tf.constant([1.0])
    f = lambda x: x * t   # noqa: E731
    fingerprint(f)
    key = id(f)
    assert key in _state._FIXED
    del f
    assert key not in _state._FIXED


class _Scales:
    def __init__(self) -> None:
        self.scale = 2.0

    def apply(self, x):
        return self.scale * x * x


def test_a_bound_method_read_from_a_cell_is_not_kept_and_its_object_s_changed_number_gives_the_new_jacobian():
    import gradlib

    obj = _Scales()
    act = obj.apply
    f = lambda x: act(x)   # noqa: E731 - its one value is a user's bound method: read into on every call
    x = tf.constant([1.0, 2.0])
    for _ in range(2):
        np.testing.assert_allclose(gradlib.per_element_gradients(f, x, compiled=True).jacobian, np.diag([4.0, 8.0]))
    obj.scale = 3.0
    after = gradlib.per_element_gradients(f, x, compiled=True)
    assert after.compiled
    np.testing.assert_allclose(after.jacobian, np.diag([6.0, 12.0]))   # d(3 x^2)/dx = 6x
    assert id(f) not in _state._FIXED
