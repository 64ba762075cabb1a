"""A callable that reads a value through an object, a container or a method: changing it must not leave the
compiled graph answering with the old value.

Before the fingerprint read them, each case below kept its first trace after the change (``tanh(x @ self.W)`` after
``net.W = ...``: the Jacobian was off by up to 2.9, silently). Each test compiles (``compiled=True``), changes one
value the way a user would, and compares the next answer with an eager tape's.
"""

from __future__ import annotations

import functools
import importlib
import linecache
import sys

import keras
import numpy as np
import pytest
import tensorflow as tf

import gradlib
from gradlib._callable import _state
from gradlib._callable._state import MAX_DEPTH, MAX_ITEMS, fingerprint

RNG = np.random.default_rng(0)
X = tf.constant(RNG.normal(size=(1, 8)).astype(np.float32))


def _w() -> np.ndarray:
    return RNG.normal(size=(8, 16)).astype(np.float32)


class Net:
    def __init__(self) -> None:
        self.W = _w()
        self._hidden = _w()

    def __call__(self, x):
        return tf.tanh(x @ self.W)

    def method(self, x):
        return tf.tanh(x @ self.W)

    @property
    def weights(self):
        return self._hidden

    def through_property(self, x):
        return tf.tanh(x @ self.weights)

    def helper(self, x):
        return x @ self._hidden

    def through_helper(self, x):
        return tf.tanh(self.helper(x))


class Config:
    W = _w()


class Slotted:
    __slots__ = ("W",)

    def __init__(self) -> None:
        self.W = _w()

    def __call__(self, x):
        return tf.tanh(x @ self.W)


class Holder:
    pass


CFG = Holder()
CFG.W = _w()
NESTED = Holder()
NESTED.inner = Holder()
NESTED.inner.W = _w()
LIST = [_w()]
DICT = {"W": tf.constant(_w())}
ACT = tf.tanh
DEEP_W = _w()
PARTS = {"encoder": _w(), "decoder": _w()}
SHARED = Holder()
SHARED.W = _w()
SHARED.b = np.float32(0.5)
INPLACE = Holder()
INPLACE.W = _w()
MODEL = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16, activation="tanh")])


class Wrapped(keras.layers.Layer):
    def __init__(self) -> None:
        super().__init__()
        self.scale = np.float32(1.0)

    def call(self, x):
        return tf.tanh(x * self.scale)


def by_config(x):
    return tf.tanh(x @ Config.W)


def by_object(x):
    return tf.tanh(x @ CFG.W)


def by_nested_object(x):
    return tf.tanh(x @ NESTED.inner.W)


def by_list(x):
    return tf.tanh(x @ LIST[0])


def by_dict(x):
    return tf.tanh(x @ DICT["W"])


def by_global_function(x):
    return ACT(x @ Config.W)


def by_global_model(x):
    return MODEL(x)


def _level3(x):
    return tf.tanh(x @ DEEP_W)


def _level2(x):
    return _level3(x)


def _level1(x):
    return _level2(x)


def through_three_functions(x):
    # the callable is depth 0, so _level3 is reached at depth MAX_DEPTH: what it reads is read
    return _level1(x)


def by_named_part(x):
    return tf.tanh(x @ PARTS["encoder"])


def with_a_record_of_its_own(x):
    record = Holder()
    record.W = x.shape[-1]   # an attribute of its own object: no change of the INPLACE.W it reads
    return tf.tanh(x @ INPLACE.W)


def _projected(x):
    return x @ SHARED.W


def by_shared_object(x):
    # reads SHARED.b itself and SHARED.W through _projected: the object is met first with this function's names
    return tf.tanh(_projected(x) + SHARED.b)


NET = Net()
WRAPPED = Wrapped()
SLOTTED = Slotted()


def _set(obj, name, value):
    return lambda: setattr(obj, name, value() if callable(value) else value)


def _global(name, value):
    return lambda: globals().__setitem__(name, value())


CASES = {
    "callable object's attribute": (NET, _set(NET, "W", _w)),
    "bound method's attribute": (NET.method, _set(NET, "W", _w)),
    "attribute behind a property": (NET.through_property, _set(NET, "_hidden", _w)),
    "attribute read by a helper method": (NET.through_helper, _set(NET, "_hidden", _w)),
    "class attribute": (by_config, _set(Config, "W", _w)),
    "__slots__ field": (SLOTTED, _set(SLOTTED, "W", _w)),
    "object's attribute": (by_object, _set(CFG, "W", _w)),
    "attribute of an attribute": (by_nested_object, _set(NESTED.inner, "W", _w)),
    "array in a list": (by_list, lambda: LIST.__setitem__(0, _w())),
    "array in a list, in place": (by_list, lambda: np.negative(LIST[0], out=LIST[0])),
    "tensor in a dict": (by_dict, lambda: DICT.__setitem__("W", tf.constant(_w()))),
    "global function rebound": (by_global_function, _global("ACT", lambda: tf.sin)),
    "global model rebound": (by_global_model, _global(
        "MODEL", lambda: keras.Sequential([keras.Input((8,)), keras.layers.Dense(16, activation="tanh")]))),
    "Keras layer's own attribute": (WRAPPED, _set(WRAPPED, "scale", np.float32(3.0))),
    "function reached at MAX_DEPTH": (through_three_functions, _global("DEEP_W", _w)),
    "dict rebuilt with its keys swapped": (by_named_part, _global(
        "PARTS", lambda: {"decoder": PARTS["encoder"], "encoder": PARTS["decoder"]})),
    "object read by two functions": (by_shared_object, _set(SHARED, "W", _w)),
    "attribute in place, beside the function's own": (with_a_record_of_its_own,
                                                       lambda: np.negative(INPLACE.W, out=INPLACE.W)),
}


def _tape(f) -> np.ndarray:
    with tf.GradientTape() as tape:
        tape.watch(X)
        y = tf.reshape(f(X), [-1])
    return tape.jacobian(y, X).numpy().reshape(y.shape[0], -1)


@pytest.mark.parametrize("case", list(CASES))
def test_a_value_read_through_an_object_or_container_changed_gives_the_new_jacobian(case):
    f, change = CASES[case]
    first = gradlib.per_element_gradients(f, X, compiled=True)
    assert first.compiled
    np.testing.assert_allclose(first.jacobian.reshape(-1, 8), _tape(f), atol=1e-5)
    before = fingerprint(f)
    change()
    assert fingerprint(f) != before
    after = gradlib.per_element_gradients(f, X, compiled=True)
    reference = _tape(f)
    assert np.abs(first.jacobian.reshape(-1, 8) - reference).max() > 1e-3   # the change changes the answer
    np.testing.assert_allclose(after.jacobian.reshape(-1, 8), reference, atol=1e-5)


@pytest.mark.parametrize("case", list(CASES))
def test_an_unchanged_callable_keeps_its_fingerprint(case):
    f, _ = CASES[case]
    gradlib.per_element_gradients(f, X, compiled=True)   # a call may build a model or a layer: then stable
    assert fingerprint(f) == fingerprint(f)


def test_a_list_is_read_by_content_up_to_the_item_budget():
    for n, read in ((MAX_ITEMS - 1, True), (MAX_ITEMS, False)):   # the partial's argument itself is one item
        values = [0.0] * n
        f = functools.partial(lambda x, v: x, v=values)
        before = fingerprint(f)
        values[-1] = 1.0
        assert (fingerprint(f) != before) is read, n
        values.append(2.0)   # past the budget the list still counts by identity: another list is another key
        assert (fingerprint(functools.partial(f.func, v=list(values))) != fingerprint(f))


def _chain(length: int) -> Holder:
    root = node = Holder()
    for _ in range(length):
        node.next = Holder()
        node = node.next
    node.W = np.zeros(3)
    return root


def test_objects_are_read_into_up_to_max_depth():
    # f reads CHAIN.next...next.W: the root is read at depth 0, so an array MAX_DEPTH attributes down is read
    for length, read in ((MAX_DEPTH - 1, True), (MAX_DEPTH, False)):
        chain = _chain(length)
        f = (lambda x: x * chain.next.next.W) if length == 2 else (lambda x: x * chain.next.next.next.W)
        assert length in (2, 3) and MAX_DEPTH == 3
        before = fingerprint(f)
        node = chain
        for _ in range(length):
            node = node.next
        node.W[0] = 1.0
        assert (fingerprint(f) != before) is read, length


def test_an_object_counts_by_identity_and_is_held_weakly():
    a, b = Holder(), Holder()
    assert _state._Same(a) == _state._Same(a) and _state._Same(a) != _state._Same(b)
    key = _state._Same(b)
    del b
    import gc
    gc.collect()
    assert key != key   # a dead object equals nothing: a new object at its address is a new key


def test_library_objects_are_not_read_into():
    # a Keras model's own call is the library's: its identity counts, which layers it holds (by identity: hunt 51's
    # model.add) and their settings (hunt 52's dense.activation), its code and other attributes are not followed
    f = lambda x: MODEL(x)   # noqa: E731
    summaries = [entry for entry in fingerprint(f) if entry[1] == "global MODEL"]
    assert len(summaries) == 1 and summaries[0][2][0] == "object" and len(summaries[0][2]) == 3
    assert [kind for kind, _ in summaries[0][2][2]] == ["layers", "settings"]   # no custom layer: nothing read into


# ---------------------------------------------------------------- values the function changes itself

RUNS = {"graph": 0}
COUNT = [0]
LOG: list = []


def counts_in_a_dict(x):
    if not tf.executing_eagerly():
        RUNS["graph"] += 1
    return tf.tanh(x @ Config.W)


def counts_in_a_list(x):
    if not tf.executing_eagerly():
        COUNT[0] += 1
    return tf.tanh(x @ Config.W)


def logs(x):
    if not tf.executing_eagerly():
        LOG.append(x.shape)
    return tf.tanh(x @ Config.W)


class Counting:
    def __init__(self) -> None:
        self.calls = 0
        self.W = _w()

    def __call__(self, x):
        if not tf.executing_eagerly():
            self.calls += 1
        return tf.tanh(x @ self.W)


COUNTING = Counting()


class Lazy:
    """Makes its weight on its first call (the function assigns self.W itself)."""

    def __init__(self) -> None:
        self.W = None

    def __call__(self, x):
        if self.W is None:
            self.W = tf.Variable(_w())
        return tf.tanh(x @ self.W)


def test_a_weight_the_function_makes_itself_and_the_user_replaces_gives_the_new_jacobian():
    lazy = Lazy()
    first = gradlib.per_element_gradients(lazy, X, compiled=True)
    np.testing.assert_allclose(first.jacobian.reshape(-1, 8), _tape(lazy), atol=1e-5)
    lazy.W = tf.Variable(_w())   # another variable: the trace captured the first one
    after = gradlib.per_element_gradients(lazy, X, compiled=True)
    assert np.abs(first.jacobian.reshape(-1, 8) - _tape(lazy)).max() > 1e-3
    np.testing.assert_allclose(after.jacobian.reshape(-1, 8), _tape(lazy), atol=1e-5)
COUNTERS = {"dict item": (counts_in_a_dict, lambda: RUNS["graph"]), "list item": (counts_in_a_list, lambda: COUNT[0]),
            "appended list": (logs, lambda: len(LOG)), "own attribute": (COUNTING, lambda: COUNTING.calls)}


@pytest.mark.parametrize("case", list(COUNTERS))
def test_a_function_that_counts_its_own_traces_is_traced_once(case):
    # the count changes when TensorFlow traces the function: read by content, it made a new key after every trace
    f, graph_runs = COUNTERS[case]
    first = gradlib.per_element_gradients(f, X, compiled=True)
    traced = graph_runs()
    assert traced >= 1
    for _ in range(3):
        r = gradlib.per_element_gradients(f, X, compiled=True)
        np.testing.assert_allclose(r.jacobian, first.jacobian, rtol=1e-6)
    assert graph_runs() == traced
    np.testing.assert_allclose(first.jacobian.reshape(-1, 8), _tape(f), atol=1e-5)


def test_a_counting_object_still_sees_a_changed_weight():
    before = fingerprint(COUNTING)
    COUNTING.calls += 5   # what the function changes itself: not read
    assert fingerprint(COUNTING) == before
    COUNTING.W = _w()   # what it only reads: read
    assert fingerprint(COUNTING) != before


def _changes(x):
    global REBOUND
    A["k"] = 1
    del B[0]
    C.d[0], (E.f, G[1]) = 1, (2, 3)
    H.append(x)
    I.j.update({})
    REBOUND = x
    local = x   # a local name: not a value the function reads from outside
    local += 1
    own = Holder()   # an object the function makes: what it changes on it is no change of L.m or of a global log
    own.m = x
    own.log[0] = x
    own.log.append(x)
    return x * K * L.m * N[0]


def test_mutated_names_each_way_a_function_changes_a_value_and_nothing_it_only_reads():
    assert _state.mutated(_changes.__code__) == {"A", "B", "C.d", "E.f", "G", "H", "I.j", "REBOUND"}


def test_mutated_reads_the_source_without_searching_every_module(monkeypatch):
    # inspect.getsourcelines looks for the code's module through every loaded module: 0.7 s on a first call with
    # TensorFlow loaded, paid by the first fingerprint of every process
    def counts(x):
        TALLY.append(x)
        return x

    def searched(*args, **kwargs):
        raise AssertionError("inspect.getmodule was called")

    monkeypatch.setattr("inspect.getmodule", searched)
    assert _state.mutated(counts.__code__) == {"TALLY"}


def test_mutated_reads_nothing_from_lines_that_are_no_longer_the_function(tmp_path, monkeypatch):
    # a file edited after its module was loaded: the lines at the code's first line are another function's
    def counts(x):
        TALLY.append(x)
        return x

    other = ["def another(x):\n", "    SCALE.append(x)\n", "    return x\n"]
    path = counts.__code__.co_filename
    lines = linecache.getlines(path)
    first = counts.__code__.co_firstlineno - 1
    monkeypatch.setattr(linecache, "getlines", lambda name, *a: lines[:first] + other + lines[first + 3:]
                        if name == path else [])
    _state.mutated.cache_clear()
    try:
        assert _state.mutated(counts.__code__) == frozenset()
    finally:
        _state.mutated.cache_clear()


# ---------------------------------------------------------------- a tensor rebound in a loop

SCALE = tf.constant(1.0)


def by_scale(x):
    return tf.tanh(x * SCALE)


def test_a_tensor_rebound_in_a_loop_changes_the_fingerprint_each_time():
    # the old tensor dies when the name is rebound, so a new one is often made at its address: a digest cached by
    # address alone gave the new tensor the old one's digest, and a cache keyed on it the old scale's graph
    addresses, fingerprints = [], []
    for scale in range(1, 9):
        globals()["SCALE"] = tf.constant(float(scale))
        addresses.append(id(SCALE))
        fingerprints.append(fingerprint(by_scale))
    assert len(set(fingerprints)) == len(fingerprints)   # eight values, eight keys
    assert len(set(addresses)) < len(addresses)   # an address was reused: the case a cache by address alone gets wrong


# ---------------------------------------------------------------- an object met twice

def test_an_object_met_deep_first_is_read_again_where_it_is_met_near_the_top():
    # f meets BOX first two levels down (DEEP.p.box: its own attributes then count by identity, at MAX_DEPTH) and
    # then as the global NEAR itself: BOX.inner.v must be read there, not skipped as seen
    box = Holder()
    box.inner = Holder()
    box.inner.v = 1.0
    deep = Holder()
    deep.p = Holder()
    deep.p.box = box
    f = lambda x: x * DEEP.p.box.inner.v + x * NEAR.inner.v   # noqa: E731
    f.__globals__["DEEP"], f.__globals__["NEAR"] = deep, box   # sorted: DEEP is read before NEAR
    try:
        before = fingerprint(f)
        box.inner.v = 2.0
        assert fingerprint(f) != before
    finally:
        del f.__globals__["DEEP"], f.__globals__["NEAR"]


# ---------------------------------------------------------------- a function met deep first, then near the top

HCFG = Holder()
HCFG.W = np.zeros(3)


def _reads_hcfg(x):
    return x * HCFG.W


def _chain_two(x):
    return _chain_one(x)


def _chain_one(x):
    return _reads_hcfg(x)


def test_a_function_met_at_max_depth_first_is_followed_again_where_it_is_met_near_the_top():
    # f names _reads_hcfg itself (depth 1) and through _chain_two -> _chain_one (depth 3, where the objects it reads
    # count by identity alone); the globals are read in sorted order, so it was first followed at depth 3 and then
    # skipped at depth 1: HCFG.W changed in place was missed
    f = lambda x: _chain_two(x) + _reads_hcfg(x)   # noqa: E731
    assert sorted(n for n in f.__code__.co_names if n.startswith("_")) == ["_chain_two", "_reads_hcfg"]
    before = fingerprint(f)
    HCFG.W[0] = 1.0
    try:
        assert fingerprint(f) != before
    finally:
        HCFG.W[0] = 0.0


# ---------------------------------------------------------------- a value that cannot be read


class _BadKey:
    def __repr__(self):
        raise RuntimeError("no repr")

    def __hash__(self):
        return 1


UNREADABLE = {_BadKey(): 1.0}
SCALED = np.array([2.0], np.float32)


def by_unreadable(x):
    return tf.tanh(x * SCALED) + 0.0 * len(UNREADABLE)


def test_a_value_that_cannot_be_read_makes_a_key_no_call_equals_and_the_answer_stays_right():
    assert fingerprint(by_unreadable) != fingerprint(by_unreadable)   # never answered from an old trace
    x = tf.constant([0.5, -0.25])
    first = gradlib.per_element_gradients(by_unreadable, x, compiled=True)
    SCALED[0] = 3.0   # not read by the key: the next call traces anew, so it is seen anyway
    try:
        after = gradlib.per_element_gradients(by_unreadable, x, compiled=True)
        np.testing.assert_allclose(np.diag(first.jacobian), 2.0 / np.cosh(2.0 * x.numpy()) ** 2, rtol=1e-5)
        np.testing.assert_allclose(np.diag(after.jacobian), 3.0 / np.cosh(3.0 * x.numpy()) ** 2, rtol=1e-5)
    finally:
        SCALED[0] = 2.0


# ---------------------------------------------------------------- the same attribute name on two objects

OTHER = Holder()
OTHER.weights = _w()


class LogsItsWeights:
    """Logs the weights it was called with in its own list and reads another object's weights: only its own list is
    what it changes."""

    def __init__(self) -> None:
        self.weights: list = []

    def __call__(self, x):
        self.weights.append(OTHER.weights.shape)
        return tf.tanh(x @ OTHER.weights)


def test_what_a_method_changes_on_self_is_not_the_same_name_on_another_object():
    # matched by attribute name alone, self.weights.append(...) made OTHER.weights count by identity, so changing it in
    # place kept the old trace
    assert _state.mutated(LogsItsWeights.__call__.__code__) == {"self.weights"}
    f = LogsItsWeights()
    first = gradlib.per_element_gradients(f, X, compiled=True)
    assert first.compiled
    np.testing.assert_allclose(first.jacobian.reshape(-1, 8), _tape(f), atol=1e-5)
    np.negative(OTHER.weights, out=OTHER.weights)
    after = gradlib.per_element_gradients(f, X, compiled=True)
    assert np.abs(first.jacobian.reshape(-1, 8) - _tape(f)).max() > 1e-3
    np.testing.assert_allclose(after.jacobian.reshape(-1, 8), _tape(f), atol=1e-5)


# What one function changes is named from the object it starts at, not by a bare path that another object shares:
# matched by name, each case below made the model's own number ``scale`` count as changed by the function, so not
# at all, and changing it kept the old compiled Jacobian (silently: 4 and 8 where 6 and 12 were right).
class _SetsItsScale:
    def __init__(self) -> None:
        self.scale = 0.0

    def __call__(self, y):
        self.scale = 1.0   # a hook's own state, the same attribute name as the model's
        return y

    def forward(self, y):
        self.scale = 1.0
        return y


class _ScaledByHooks:
    def __init__(self, how: str) -> None:
        self.scale = 2.0
        hook = _SetsItsScale()
        self.hooks = [hook] if how == "list" else {"h": hook}
        self.act = hook.forward   # a bound method of another object, stored on this one

    def __call__(self, x):
        hooks = list(self.hooks.values()) if isinstance(self.hooks, dict) else self.hooks
        y = self.scale * x * x
        for hook in hooks:
            y = hook(y)
        return y

    def through_act(self, x):
        return self.act(self.scale * x * x)


def _through_module(tmp_path, monkeypatch):
    """Two modules, each with its own ``cfg``: one's helper changes its ``cfg.scale``, the other reads its own."""
    (tmp_path / "_fp_marks.py").write_text(   # add_mark sorts before cfg: followed before the model's cfg is read
        "import types\ncfg = types.SimpleNamespace(scale=0.0)\n\n\ndef add_mark(y):\n    cfg.scale = 1.0\n    return y\n")
    (tmp_path / "_fp_model.py").write_text(
        "import types\nfrom _fp_marks import add_mark\ncfg = types.SimpleNamespace(scale=2.0)\n\n\n"
        "def model(x):\n    return add_mark(cfg.scale * x * x)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("_fp_model")
    return module.model, lambda: setattr(module.cfg, "scale", 3.0)


@pytest.mark.parametrize("case", ["a hook in a list", "a hook in a dict", "another object's bound method",
                                  "another module's global of the same name"])
def test_what_another_object_changes_by_the_same_path_does_not_hide_a_changed_number(case, tmp_path, monkeypatch):
    if case == "another module's global of the same name":
        f, change = _through_module(tmp_path, monkeypatch)
    else:
        model = _ScaledByHooks("dict" if "dict" in case else "list")
        f = model.through_act if "bound" in case else model
        change = functools.partial(setattr, model, "scale", 3.0)
    x = tf.constant([1.0, 2.0])
    for _ in range(2):   # the first call's hook changes its own scale: the second call's key is the settled one
        np.testing.assert_allclose(gradlib.per_element_gradients(f, x, compiled=True).jacobian, np.diag([4.0, 8.0]))
    change()
    after = gradlib.per_element_gradients(f, x, compiled=True)
    assert after.compiled
    np.testing.assert_allclose(after.jacobian, np.diag([6.0, 12.0]))
    # what the hook changes on itself is named as the hook's own attributes are read: not in the key, so a hook
    # that sets another value on each run does not trace again on each call
    first = fingerprint(f)
    hook = sys.modules["_fp_marks"].cfg if "module" in case else _hook(model)
    hook.scale = 5.0
    assert fingerprint(f) == first


def _hook(model: _ScaledByHooks) -> _SetsItsScale:
    return model.act.__self__


class _MarksItself:
    """A model whose activation is the bound method of another object of its own class, which sets that object's
    ``scale`` (read where it has no name of its own: by its identity, not by its class, which the model shares)."""

    def __init__(self, scale: float, act=None) -> None:
        self.scale = scale
        self.act = act

    def __call__(self, x):
        return self.act(self.scale * x * x)

    def forward(self, y):
        self.scale = 1.0
        return y


def test_what_another_object_of_the_same_class_changes_on_itself_does_not_hide_the_model_s_changed_number():
    other = _MarksItself(0.0)
    model = _MarksItself(2.0, act=other.forward)
    x = tf.constant([1.0, 2.0])
    for _ in range(2):   # the first call sets other.scale: the second call's key is the settled one
        np.testing.assert_allclose(gradlib.per_element_gradients(model, x, compiled=True).jacobian,
                                   np.diag([4.0, 8.0]))   # d(2 x^2)/dx = 4x
    model.scale = 3.0
    after = gradlib.per_element_gradients(model, x, compiled=True)
    assert after.compiled
    np.testing.assert_allclose(after.jacobian, np.diag([6.0, 12.0]))   # d(3 x^2)/dx = 6x
