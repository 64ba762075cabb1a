"""The per-example page's work on scikit-learn's digits: flipped labels, the ranking by norm, DP-SGD clipping."""

import dataclasses

import numpy as np
import pytest
import tensorflow as tf

import gradlib
from dashboard import digits


@pytest.fixture(scope="module")
def training():
    return digits.train(10, 0, epochs=6)


def test_exactly_the_share_is_flipped_each_to_another_digit_and_the_seed_decides_which():
    data = digits.load(20, 3)
    assert data.x.shape == (1797, 64) and 0 <= data.x.min() and data.x.max() == 1
    assert int(data.flipped.sum()) == round(1797 * 0.2)
    assert (data.given[data.flipped] != data.true[data.flipped]).all()
    assert (data.given[~data.flipped] == data.true[~data.flipped]).all()
    assert np.array_equal(digits.load(20, 3).given, data.given)
    assert not np.array_equal(digits.load(20, 4).flipped, data.flipped)
    assert digits.load(0, 0).flipped.sum() == 0


@pytest.mark.parametrize("flip", [-1, 41, 2.5, "10"])
def test_a_share_outside_the_offered_range_is_refused(flip):
    with pytest.raises(gradlib.GradlibError, match=r"flip_percent must be a whole number from 0 to 40, got"):
        digits.load(flip, 0)


def test_the_norms_are_gradlibs_on_the_trained_weights_and_rank_the_flipped_labels_first(training):
    model = digits.build_model(0)
    model.set_weights(list(training.weights))
    data = training.data
    again = gradlib.per_example_gradients(model, data.x, data.given, loss=digits.LOSS, norms_only=True)
    np.testing.assert_allclose(training.norms, again.norms, rtol=1e-5)
    assert training.method == "ghost" and training.accuracy(data.true) > 0.85
    order = training.order
    assert (np.diff(training.norms[order]) <= 0).all()
    assert training.caught(100) == int(data.flipped[order[:100]].sum())
    assert training.caught(100) >= 70      # at random about 10 of 100 would be flipped
    assert training.caught(1797) == int(data.flipped.sum())


def test_clipping_counts_the_norms_above_c_and_keeps_the_clipped_mean_within_c(training):
    clip = float(np.median(training.norms))
    result = digits.clipping(training, clip)
    assert result.clipped == int((training.norms > clip).sum()) and result.total == 1797
    assert 0 < result.clipped < 1797
    assert result.clipped_total <= clip * (1 + 1e-6)   # a mean of vectors of norm at most C
    assert result.clipped_total < result.plain_total and -1 <= result.cosine <= 1
    assert result.variable_names == training.variable_names and len(result.plain_norms) == 4
    huge = digits.clipping(training, 1e9)
    assert huge.clipped == 0 and huge.cosine == pytest.approx(1.0)
    np.testing.assert_allclose(huge.clipped_norms, huge.plain_norms, rtol=1e-6)


def test_ranking_by_loss_counts_the_flipped_labels_among_the_k_largest_losses(training):
    # independent: Python's sort by loss, largest first (ties by index, as a stable sort)
    by_loss = sorted(range(len(training.losses)), key=lambda i: (-float(training.losses[i]), i))
    for k in (10, 100, 400):
        assert training.caught_by_loss(k) == sum(bool(training.data.flipped[i]) for i in by_loss[:k])
    assert training.caught_by_loss(100) >= 70   # the largest losses are mostly flipped labels; the smallest never
    smallest = np.argsort(training.losses)[:100]
    assert training.caught_by_loss(100) > int(training.data.flipped[smallest].sum()) + 50


def _subset(training, n: int):
    """The training with its data cut to ``n`` examples (some of them flipped): few enough for a plain loop."""
    data = training.data
    keep = np.sort(np.concatenate([np.flatnonzero(data.flipped)[: n // 3], np.flatnonzero(~data.flipped)[: n - n // 3]]))
    cut = digits.Digits(**{name: getattr(data, name)[keep] for name in ("x", "images", "true", "given", "flipped")})
    return dataclasses.replace(training, data=cut)


def test_clipping_matches_a_plain_loop_over_the_examples(training):
    # one GradientTape per example: the plain mean, each gradient scaled by min(1, C / norm), their mean
    small = _subset(training, 30)
    model = digits.build_model(0)
    model.set_weights(list(training.weights))
    grads = []
    for x, y in zip(small.data.x, small.data.given):
        with tf.GradientTape() as tape:
            loss = digits.LOSS(y[None], model(x[None]))
        grads.append([g.numpy().astype(np.float64) for g in tape.gradient(loss, model.trainable_variables)])
    norms = np.array([np.sqrt(sum((g ** 2).sum() for g in gs)) for gs in grads])
    clip = float(np.median(norms))
    factors = np.minimum(1.0, clip / norms)
    plain = [np.mean([gs[v] for gs in grads], axis=0) for v in range(4)]
    clipped = [np.mean([f * gs[v] for f, gs in zip(factors, grads)], axis=0) for v in range(4)]
    flat_p, flat_c = np.concatenate([g.ravel() for g in plain]), np.concatenate([g.ravel() for g in clipped])

    result = digits.clipping(small, clip)
    assert result.total == 30 and result.clipped == int((norms > clip * (1 + 1e-6)).sum()) and result.clipped >= 10
    assert result.variable_names == tuple(v.path for v in model.trainable_variables)
    np.testing.assert_allclose(result.plain_norms, [np.linalg.norm(g) for g in plain], rtol=1e-4)
    np.testing.assert_allclose(result.clipped_norms, [np.linalg.norm(g) for g in clipped], rtol=1e-4)
    assert result.plain_total == pytest.approx(np.linalg.norm(flat_p), rel=1e-4)
    assert result.clipped_total == pytest.approx(np.linalg.norm(flat_c), rel=1e-4)
    assert result.cosine == pytest.approx(flat_p @ flat_c / np.linalg.norm(flat_p) / np.linalg.norm(flat_c), abs=1e-5)
    assert result.cosine < 0.999   # clipping turned the mean: a cosine of 1 would not tell the two apart


def test_the_rank_correlation_is_spearmans_and_the_disagreements_are_the_set_differences(training):
    from scipy.stats import spearmanr
    assert training.rank_correlation() == pytest.approx(spearmanr(training.norms, training.losses).statistic, abs=1e-6)
    for k in (10, 100, 400):
        norm_only, loss_only = training.disagreements(k)
        by_norm = sorted(range(len(training.norms)), key=lambda i: -training.norms[i])[:k]
        by_loss = sorted(range(len(training.losses)), key=lambda i: -training.losses[i])[:k]
        assert norm_only.tolist() == [i for i in by_norm if i not in set(by_loss)]
        assert loss_only.tolist() == [i for i in by_loss if i not in set(by_norm)]
        assert len(norm_only) == len(loss_only)


def test_training_holds_a_work_slot_and_is_refused_past_its_wall_clock_bound(monkeypatch):
    """Digits training ran outside the server's work slots, with no time bound (issue 20.6)."""
    import contextlib
    held = []

    @contextlib.contextmanager
    def slot():
        held.append("in")
        yield
        held.append("out")

    monkeypatch.setattr(gradlib, "work_slot", slot)
    data = digits.load(10, 0)
    digits.fit(digits.build_model(0), data.x[:64], data.given[:64], epochs=1, batch_size=32)
    assert held == ["in", "out"]
    monkeypatch.setattr(digits, "TRAIN_SECONDS", 0.0)
    with pytest.raises(gradlib.GradlibError, match=r"training stopped after \d+ s, past the server's bound of 0 s"):
        digits.fit(digits.build_model(0), data.x[:64], data.given[:64], epochs=50, batch_size=32)


def test_the_cosine_of_a_zero_mean_gradient_is_none_not_one():
    """A zero vector has no angle: the page said 1.000 (a made-up number, found in a review); now NaN, shown as
    "none"."""
    assert digits.cosine(np.array([3.0, 4.0]), np.array([4.0, 3.0])) == pytest.approx(24 / 25)
    assert digits.cosine(np.array([1.0, 0.0]), np.array([-2.0, 0.0])) == pytest.approx(-1.0)
    assert np.isnan(digits.cosine(np.zeros(3), np.ones(3))) and np.isnan(digits.cosine(np.ones(3), np.zeros(3)))
