"""The second-order cost model (gradlib._second._orders) at its edges: which row serves which request, what each
estimate counts, auto's choice at the last good and first bad value of each limit, and the advice of a refusal
followed to the letter (the advised batch fits, one more sample does not).

Most tests read the table alone (no TensorFlow runs); the last ones run the public API at a limit's last good and
first bad value, against the closed form of ``cube`` (each sample's Laplacian is ``6 sum(x)``).
"""

from __future__ import annotations

import math
import re
from dataclasses import replace

import numpy as np
import pytest
import tensorflow as tf

import gradlib
from gradlib import ExpressionError, Limits
from gradlib._second import _orders

EXACT_TAPES = ("nested_tapes", "loop", "forward_over_reverse")
WIDE = Limits(max_bytes=1e18, max_unrolled=10 ** 9)   # nothing is over these: the estimates alone decide


def shape(batch=1024, inputs=50, outputs=1, kind="laplacian", *, dense=True, tileable=True, probes=0, layers=4):
    """A Dense tanh network's request (50 -> 256 -> 256 -> 1 by default), as ``_runner.shape_of`` would measure it."""
    return _orders.Shape(batch=batch, inputs=inputs, outputs=outputs, kind=kind, itemsize=4, macs=144_128.0,
                         floats=769.0, layers=layers, tileable=tileable, dense=dense, probes=probes, widest=256)


def cube(x):
    return tf.reduce_sum(x ** 3, axis=-1, keepdims=True)


# ---------------------------------------------------------------- which row serves which request


@pytest.mark.parametrize("kind, names", [
    ("hessian", "auto, nested_tapes, loop, forward_over_reverse"),
    ("diagonal", "auto, nested_tapes, loop, forward_over_reverse, forward_laplacian"),
    ("laplacian", "auto, nested_tapes, loop, forward_over_reverse, forward_laplacian, hutchinson"),
    ("divergence", "auto, nested_tapes, loop, forward_over_reverse, hutchinson"),
])
def test_each_kind_names_exactly_the_methods_that_compute_it(kind, names):
    for name in names.split(", "):
        _orders.check_method("api", name, kind)
    with pytest.raises(ExpressionError, match=rf"^api got method='nope'; choose one of {names}$"):
        _orders.check_method("api", "nope", kind)


def test_a_row_says_first_what_it_does_not_compute_then_the_model_it_needs_then_the_copies():
    laplace, hutch = _orders.row("forward_laplacian"), _orders.row("hutchinson")
    assert laplace.applicable(shape(kind="hessian", dense=False)) == (
        "forward_laplacian does not compute hessian (it computes diagonal, laplacian)")
    assert laplace.applicable(shape(dense=False)) == ("forward_laplacian has layer rules only for a Keras Sequential "
                                                      "of Dense layers with the common activations")
    assert laplace.applicable(shape(tileable=False)) == ""   # one pass on the batch itself: no copies
    assert hutch.applicable(shape(tileable=False)) == ("hutchinson runs fn on copies of the batch, and this fn takes "
                                                       "one fixed input")
    for name in EXACT_TAPES:   # the tape methods serve every kind, one fixed input or not
        for kind in _orders.KINDS:
            assert _orders.row(name).applicable(shape(kind=kind, dense=False, tileable=False)) == ""


def test_only_hutchinson_is_an_estimate_and_only_it_is_opt_in():
    assert [(r.name, r.exact, r.opt_in) for r in _orders.TABLE if not r.exact or r.opt_in] == [
        ("hutchinson", False, True)]
    assert _orders.SECOND_METHODS == ("auto",) + tuple(r.name for r in _orders.TABLE)


# ---------------------------------------------------------------- what each estimate counts


def test_the_passes_written_into_the_graph_are_those_each_kernel_writes():
    # loop: one backward pass per output and input element (a divergence: per input); nested_tapes: none (pfor)
    for kind, loops in [("hessian", 3 * 50), ("diagonal", 3 * 50), ("laplacian", 3 * 50), ("divergence", 50)]:
        s = shape(outputs=3, kind=kind)
        assert _orders.row("loop").cost(s).unrolled == loops
        assert _orders.row("nested_tapes").cost(s).unrolled == 0
    # forward over reverse on copies of the batch: 16,384 rows per pass hold 16 copies of 1,024, so 50 elements
    # take 4 passes, per output (a divergence: one JVP for all outputs)
    assert _orders.row("forward_over_reverse").cost(shape(outputs=3)).unrolled == 4 * 3
    assert _orders.row("forward_over_reverse").cost(shape(outputs=50, kind="divergence")).unrolled == 4
    # one fixed input: one Hessian-vector product per input and output element, vectorized in passes of 16,384
    # pairs: 3 x 50 = 150 pairs are one pass, 400 x 50 = 20,000 two; each pair holds the input's activations once,
    # as a tiled row does (150 pairs: 150 rows' worth)
    one = shape(batch=1, outputs=3, tileable=False)
    assert _orders.row("forward_over_reverse").cost(one).unrolled == 1
    assert _orders.row("forward_over_reverse").cost(shape(batch=1, outputs=400, tileable=False)).unrolled == 2
    tiled = shape(batch=150, outputs=3, inputs=1)
    assert _orders.row("forward_over_reverse").cost(one).bytes - _orders._result_bytes(one) == \
        _orders.row("forward_over_reverse").cost(tiled).bytes - _orders._result_bytes(tiled)
    # Hutchinson: 100 probes in passes of 16 copies = 7 passes; the forward Laplacian: one pass
    assert _orders.row("hutchinson").cost(shape(outputs=2, probes=100)).unrolled == 7 * 2
    assert _orders.row("forward_laplacian").cost(shape(outputs=9)).unrolled == 1


def test_a_small_batch_is_copied_as_often_as_one_pass_holds_and_a_huge_one_once_per_pass():
    fwd = _orders.row("forward_over_reverse")
    assert fwd.cost(shape(batch=16_384, inputs=5)).unrolled == 5          # one copy per pass
    assert fwd.cost(shape(batch=100_000, inputs=5)).unrolled == 5         # over a pass's rows: still one copy
    assert fwd.cost(shape(batch=1, inputs=5)).unrolled == 1               # all 5 copies in one pass


def test_the_result_held_grows_with_what_each_kind_returns():
    # the loop's estimate is its activations plus the result and the Jacobian beside it, plus its trace (a base and
    # a part per unrolled pass and layer): kinds differ by the result, and a divergence by its fewer passes
    loop = _orders.row("loop")
    s = shape(batch=8, inputs=5, outputs=2)
    per_kind = {kind: loop.cost(replace(s, kind=kind)).bytes for kind in _orders.KINDS}
    itemsize_cells = 4 * 8 * 2
    assert per_kind["hessian"] - per_kind["diagonal"] == itemsize_cells * (25 - 5)
    assert per_kind["diagonal"] - per_kind["laplacian"] == itemsize_cells * (5 - 1)
    assert per_kind["laplacian"] - per_kind["divergence"] == pytest.approx(0.2e6 * (10 - 5) * s.layers)


def test_every_estimate_is_linear_in_the_batch_where_its_passes_do_not_change():
    # the advice "a batch of at most N" rests on this: the estimates are per sample
    for r in _orders.TABLE:
        one, two = (r.cost(shape(batch=b, inputs=4, probes=8)) for b in (64, 128))
        assert two.flops == pytest.approx(2 * one.flops), r.name
        assert two.unrolled == one.unrolled, r.name


def test_seconds_are_the_work_at_the_rate_plus_the_first_call():
    c = _orders.Cost(flops=3e10, bytes=1.0, unrolled=2, trace_seconds=0.5)
    assert c.seconds == pytest.approx(3e10 / _orders.RATE + 0.5)


# ---------------------------------------------------------------- auto's choice at the limits


def _candidates(s):
    return {r.name: r.cost(s) for r in _orders.TABLE if not r.opt_in and not r.applicable(s)}


def test_auto_takes_the_fastest_candidate_and_never_an_excluded_one():
    s = shape()
    costs = _candidates(s)
    quick = {n: c for n, c in costs.items() if c.trace_seconds <= _orders.FIRST_CALL_SECONDS}
    assert _orders.choose(s, WIDE) == min(quick, key=lambda n: quick[n].seconds) == "forward_laplacian"
    second = _orders.choose(s, WIDE, exclude=("forward_laplacian",))
    assert second != "forward_laplacian" and second in quick
    assert _orders.choose(s, WIDE, exclude=("forward_laplacian", second)) not in ("forward_laplacian", second)


def test_auto_takes_a_slow_first_call_only_when_every_candidate_is_slow():
    s = shape(dense=False, layers=200)   # deep: every tape method's first call is estimated long
    costs = _candidates(s)
    assert all(c.trace_seconds > _orders.FIRST_CALL_SECONDS for c in costs.values())
    assert _orders.choose(s, WIDE) == min(costs, key=lambda n: costs[n].seconds)


def test_auto_at_the_last_good_and_first_bad_number_of_unrolled_passes():
    s = shape()
    assert _orders.choose(s, replace(WIDE, max_unrolled=1)) == "forward_laplacian"   # it writes 1 pass
    assert _orders.choose(s, replace(WIDE, max_unrolled=0)) == "nested_tapes"        # the only one that writes none


def test_auto_at_the_last_good_and_first_bad_byte_of_the_leanest_method():
    s = shape(dense=False)
    costs = _candidates(s)
    leanest = min(costs, key=lambda n: costs[n].bytes)
    need = costs[leanest].bytes
    assert _orders.choose(s, replace(WIDE, max_bytes=need)) == leanest
    with pytest.raises(ExpressionError) as refused:
        _orders.choose(s, replace(WIDE, max_bytes=need - 1))
    text = str(refused.value)
    assert text.startswith(f"no exact second-order method fits this request (1,024 samples x 1 output x 50 inputs): "
                           f"the leanest, {leanest}, needs {costs[leanest].text()}")
    assert text.endswith(", or method='hutchinson' for an estimate")   # a Laplacian has an estimate to offer
    with pytest.raises(ExpressionError) as hessian:
        _orders.choose(replace(s, kind="hessian"), Limits(max_bytes=1.0))
    assert "hutchinson" not in str(hessian.value)                      # a Hessian has none


# ---------------------------------------------------------------- the advice: followed, it is accepted


def test_the_advised_batch_fits_and_one_more_sample_does_not():
    s = shape(batch=4096, dense=False)
    need = _orders.row("nested_tapes").cost(s).bytes
    limits = replace(WIDE, max_bytes=need / 3)
    with pytest.raises(ExpressionError, match=r"Use a batch of at most ([\d,]+), or method='auto'$") as refused:
        _orders.check_budget("nested_tapes", s, limits)
    advised = int(re.search(r"at most ([\d,]+), or", str(refused.value))[1].replace(",", ""))
    assert 1 < advised < 4096
    _orders.check_budget("nested_tapes", replace(s, batch=advised), limits)
    with pytest.raises(ExpressionError, match=rf"would need ~.* MB at its peak here \({advised + 1:,} samples x"):
        _orders.check_budget("nested_tapes", replace(s, batch=advised + 1), limits)


def test_when_one_sample_is_over_no_batch_is_advised_nor_auto_that_would_be_refused_too():
    s = shape(batch=8, dense=False)
    least = min(r.cost(replace(s, batch=1)).bytes for r in _orders.TABLE if not r.applicable(s))
    with pytest.raises(ExpressionError) as refused:
        _orders.check_budget("loop", s, replace(WIDE, max_bytes=least / 2))
    assert str(refused.value).endswith("Even one sample is over: return fewer outputs per sample")


def test_one_function_s_request_is_told_to_watch_fewer_elements_not_to_use_a_smaller_batch():
    s = shape(batch=1, outputs=3, tileable=False, dense=False, kind="hessian")
    assert _orders.smaller(s) == "Watch fewer elements or return fewer outputs"
    assert _orders.sizes(s) == "3 outputs x 50 inputs" and _orders.sizes(replace(s, outputs=1)) == "1 output x 50 inputs"
    assert _orders.sizes(shape(batch=2, inputs=1)) == "2 samples x 1 output x 1 input"


@pytest.mark.parametrize("auto_fits", [True, False])
def test_too_many_unrolled_passes_advise_auto_only_when_a_method_auto_takes_fits(auto_fits):
    s = shape(batch=16, outputs=3, dense=False)
    loops = _orders.row("loop").cost(s).unrolled                       # 150
    limits = replace(WIDE, max_unrolled=loops - 1) if auto_fits else Limits(max_bytes=1.0, max_unrolled=loops - 1)
    _orders.check_budget("loop", s, replace(limits, max_unrolled=loops, max_bytes=1e18))   # the last good number
    with pytest.raises(ExpressionError) as refused:
        _orders.check_budget("loop", s, limits)
    text = str(refused.value)
    if auto_fits:
        assert text == (f"method 'loop' would write {loops:,} passes one by one into its graph here; at most "
                        f"{loops - 1:,} are allowed (each costs trace time). Use method='auto'")
    else:   # the memory bound is passed first, and auto fits nothing: the batch is the advice
        assert text.startswith("method 'loop' would need ~") and "method='auto'" not in text


# ---------------------------------------------------------------- through the public API


X = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], np.float64)


def test_a_named_method_at_its_last_good_and_first_bad_number_of_passes():
    # the loop writes one pass per output and input element: 1 x 3
    r = gradlib.laplacian(cube, X, method="loop", limits=Limits(max_unrolled=3))
    np.testing.assert_allclose(r.laplacian[:, 0], 6 * X.sum(axis=1), rtol=1e-12)
    with pytest.raises(ExpressionError, match=r"^method 'loop' would write 3 passes one by one into its graph here; "
                                              r"at most 2 are allowed \(each costs trace time\)\. Use method='auto'$"):
        gradlib.laplacian(cube, X, method="loop", limits=Limits(max_unrolled=2))


def test_following_the_advised_batch_through_laplacian_computes_it():
    x = np.random.default_rng(3).normal(size=(64, 3))
    from gradlib._second._runner import Request, shape_of

    need = _orders.row("nested_tapes").cost(shape_of(Request("laplacian", cube, tf.constant(x), "laplacian",
                                                             "nested_tapes", None), 1)).bytes
    limits = Limits(max_bytes=need / 5)
    with pytest.raises(ExpressionError, match=r"Use a batch of at most ([\d,]+)") as refused:
        gradlib.laplacian(cube, x, method="nested_tapes", limits=limits)
    advised = int(re.search(r"at most ([\d,]+)", str(refused.value).split("allowed.")[1])[1].replace(",", ""))
    assert advised == math.floor(64 / 5) or advised == math.floor(64 / 5) - 1   # the estimate is nearly linear
    r = gradlib.laplacian(cube, x[:advised], method="nested_tapes", limits=limits)
    np.testing.assert_allclose(r.laplacian[:, 0], 6 * x[:advised].sum(axis=1), rtol=1e-12)
    with pytest.raises(ExpressionError, match=r"would need ~"):
        gradlib.laplacian(cube, x[:advised + 1], method="nested_tapes", limits=limits)
