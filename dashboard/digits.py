"""The per-example gradients page's work: find flipped labels in scikit-learn's digits by gradient norm.

scikit-learn ships the data (1,797 8x8 images of handwritten digits, ``load_digits``): nothing is downloaded.
A share of the labels is flipped on purpose (each to a different digit, chosen at random with a seed), a small
Keras classifier is trained on the noisy labels for a few seconds, and ``gradlib.per_example_gradients`` gives
each example's loss and gradient norm with respect to the weights. An example the model cannot fit (most often
a flipped label) has a large gradient: ranking by norm finds them. DP-SGD clips each example's gradient to a
norm ``C`` before averaging; ``clipping`` shows how many are clipped and the clipped mean beside the plain one.

The model is built and trained here, with Keras (the app's only Keras code besides ``model_report``'s
baseline); the gradients come from gradlib. The page calls this module only through ``dashboard.services``.
Results are plain data.

>>> data = load(flip_percent=10, seed=0)
>>> data.images.shape, int(data.flipped.sum()), bool((data.given[data.flipped] != data.true[data.flipped]).all())
((1797, 8, 8), 180, True)
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

import keras
import numpy as np
from sklearn.datasets import load_digits

import gradlib

__all__ = ["Clipping", "Digits", "EPOCHS", "FLIP_PERCENTS", "LOSS", "Training", "build_model", "clipping", "cosine",
           "fit", "load", "train"]

#: the share of labels that may be flipped, in percent
FLIP_PERCENTS = range(0, 41)
EPOCHS = 12
#: training is stopped and refused past this many seconds (a few seconds normally): a shared server's bound
TRAIN_SECONDS = 60.0
BATCH = 128
HIDDEN = 64
#: the classifier outputs logits
LOSS = keras.losses.SparseCategoricalCrossentropy(from_logits=True)


@dataclass(frozen=True, eq=False)
class Digits:
    """The digits with a share of labels flipped: ``x`` (N, 64) in [0, 1], images (N, 8, 8), labels."""

    x: np.ndarray
    images: np.ndarray
    true: np.ndarray
    given: np.ndarray
    flipped: np.ndarray


@dataclass(frozen=True, eq=False)
class Training:
    """A classifier trained on the noisy labels, and every example's loss and gradient norm under it."""

    data: Digits
    weights: tuple[np.ndarray, ...]
    predicted: np.ndarray
    losses: np.ndarray
    norms: np.ndarray
    method: str
    variable_names: tuple[str, ...]
    train_seconds: float
    gradient_seconds: float
    seed: int

    @property
    def order(self) -> np.ndarray:
        """Example indices, largest gradient norm first."""
        return np.argsort(-self.norms, kind="stable")

    def caught(self, k: int) -> int:
        """How many of the ``k`` examples with the largest gradient norms have a flipped label."""
        return int(self.data.flipped[self.order[:k]].sum())

    def caught_by_loss(self, k: int) -> int:
        """The same count when ranking by loss instead (the usual heuristic, for comparison)."""
        return int(self.data.flipped[np.argsort(-self.losses, kind="stable")[:k]].sum())

    def accuracy(self, labels: np.ndarray) -> float:
        return float((self.predicted == labels).mean())

    def rank_correlation(self) -> float:
        """Spearman's rank correlation of the gradient norms and the losses over all examples (ties broken by
        index): how alike the two rankings are."""
        ranks = [np.argsort(np.argsort(-v, kind="stable"), kind="stable") for v in (self.norms, self.losses)]
        return float(np.corrcoef(ranks[0], ranks[1])[0, 1])

    def disagreements(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        """``(by norm only, by loss only)``: the examples in the top ``k`` by gradient norm but not by loss (a
        large gradient at a modest loss), and the reverse; each largest first by its own ranking."""
        by_loss = np.argsort(-self.losses, kind="stable")
        norm_top, loss_top = self.order[:k], by_loss[:k]
        return norm_top[~np.isin(norm_top, loss_top)], loss_top[~np.isin(loss_top, norm_top)]


@dataclass(frozen=True)
class Clipping:
    """DP-SGD's clipping at ``clip_norm``: how many examples are clipped, the clipped and the plain mean gradient."""

    clip_norm: float
    clipped: int
    total: int
    variable_names: tuple[str, ...]
    plain_norms: tuple[float, ...]      # per variable: L2 norm of the plain mean gradient
    clipped_norms: tuple[float, ...]    # per variable: L2 norm of the clipped mean gradient
    cosine: float                       # between the two mean gradients, all variables together
    plain_total: float
    clipped_total: float


def load(flip_percent: int, seed: int) -> Digits:
    """The digits, with ``flip_percent`` percent of the labels changed to another digit (chosen with ``seed``)."""
    if flip_percent not in FLIP_PERCENTS:
        raise gradlib.GradlibError(f"flip_percent must be a whole number from 0 to {FLIP_PERCENTS[-1]}, got "
                                   f"{flip_percent!r}")
    digits = load_digits()
    true = digits.target.astype(np.int32)
    rng = np.random.default_rng(seed)
    flipped = np.zeros(len(true), dtype=bool)
    flipped[rng.choice(len(true), size=round(len(true) * flip_percent / 100), replace=False)] = True
    given = true.copy()
    given[flipped] = (true[flipped] + rng.integers(1, 10, size=int(flipped.sum()))) % 10   # never the true digit
    images = (digits.images / 16.0).astype(np.float32)
    return Digits(x=images.reshape(len(true), -1), images=images, true=true, given=given, flipped=flipped)


def build_model(seed: int) -> keras.Model:
    """The Keras classifier: 64 pixels -> Dense(64, relu) -> Dense(10) logits, with weights drawn from ``seed``.

    >>> build_model(0).output_shape
    (None, 10)
    """
    init = keras.initializers.GlorotUniform
    return keras.Sequential([
        keras.Input((64,)),
        keras.layers.Dense(HIDDEN, activation="relu", kernel_initializer=init(seed=seed), name="hidden"),
        keras.layers.Dense(10, kernel_initializer=init(seed=seed + 1), name="logits"),
    ], name="logits_classifier")


def fit(model: keras.Model, x: np.ndarray, y: np.ndarray, *, epochs: int, batch_size: int = BATCH,
        learning_rate: float = 1e-2, seed: int = 0, progress: Callable[[float, str], None] | None = None) -> float:
    """Train ``model`` with Adam on ``LOSS``, the examples in an order drawn from ``seed``; the seconds it took.

    ``progress(fraction, text)`` is called after each epoch.
    """
    model.compile(optimizer=keras.optimizers.Adam(learning_rate), loss=LOSS)
    report = [keras.callbacks.LambdaCallback(on_epoch_end=lambda epoch, logs: progress(
        (epoch + 1) / epochs, f"Training: epoch {epoch + 1} of {epochs}, loss {logs['loss']:.3f}"))] if progress else []
    order = np.random.default_rng(seed).permutation(len(x))   # fit's own shuffle would draw from a global seed
    bound = _Deadline(TRAIN_SECONDS)
    with gradlib.work_slot():   # one of the server's computations at a time, like every gradlib call
        start = time.perf_counter()
        model.fit(x[order], y[order], epochs=epochs, batch_size=batch_size, shuffle=False, verbose=0,
                  callbacks=report + [bound])
        seconds = time.perf_counter() - start
    if bound.stopped:
        raise gradlib.GradlibError(f"training stopped after {seconds:.0f} s, past the server's bound of "
                                   f"{TRAIN_SECONDS:.0f} s (the server is busy); try again in a moment")
    return seconds


class _Deadline(keras.callbacks.Callback):
    """Stops training once ``seconds`` have passed since it began (checked after every batch)."""

    def __init__(self, seconds: float):
        super().__init__()
        self.seconds, self.stopped, self._end = seconds, False, None

    def on_train_begin(self, logs=None):
        self._end = time.perf_counter() + self.seconds

    def on_train_batch_end(self, batch, logs=None):
        if time.perf_counter() > self._end:
            self.stopped = self.model.stop_training = True


def train(flip_percent: int, seed: int, *, epochs: int = EPOCHS,
          progress: Callable[[float, str], None] | None = None) -> Training:
    """Train on the noisy labels (``progress(fraction, text)`` after each epoch), then per-example gradients."""
    data = load(flip_percent, seed)
    model = build_model(seed)
    train_seconds = fit(model, data.x, data.given, epochs=epochs, seed=seed, progress=progress)
    if progress:
        progress(1.0, "Computing each example's gradient norm…")
    result = gradlib.per_example_gradients(model, data.x, data.given, loss=LOSS, norms_only=True)
    predicted = np.asarray(model(data.x, training=False)).argmax(axis=1)
    return Training(data=data, weights=tuple(model.get_weights()), predicted=predicted, losses=result.losses,
                    norms=result.norms, method=result.method, variable_names=result.variable_names,
                    train_seconds=train_seconds, gradient_seconds=result.seconds, seed=seed)


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    """The cosine of the angle between two vectors; NaN when either is zero (no angle: not 1, nor any number).

    >>> cosine(np.array([1.0, 0.0]), np.array([1.0, 1.0])), cosine(np.zeros(2), np.ones(2))
    (0.7071067811865475, nan)
    """
    denominator = float(np.linalg.norm(a) * np.linalg.norm(b))
    return float(a @ b) / denominator if denominator else float("nan")


def clipping(training: Training, clip_norm: float) -> Clipping:
    """Clip each example's gradient to ``clip_norm`` (DP-SGD, no noise) and compare the mean with the plain mean."""
    model = build_model(training.seed)
    model.set_weights(list(training.weights))
    data = training.data
    result = gradlib.per_example_gradients(model, data.x, data.given, loss=LOSS, norms_only=True)
    clipped, plain = result.clipped_mean(clip_norm), result.mean()
    flat_c, flat_p = np.concatenate([g.ravel() for g in clipped]), np.concatenate([g.ravel() for g in plain])
    return Clipping(
        clip_norm=float(clip_norm), clipped=int((result.clip_factors(clip_norm) < 1).sum()), total=result.batch_size,
        variable_names=result.variable_names, plain_norms=tuple(float(np.linalg.norm(g)) for g in plain),
        clipped_norms=tuple(float(np.linalg.norm(g)) for g in clipped),
        cosine=cosine(flat_c, flat_p),
        plain_total=float(np.linalg.norm(flat_p)), clipped_total=float(np.linalg.norm(flat_c)))
