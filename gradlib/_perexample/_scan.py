"""Per-example losses and gradient norms over a whole data set, streamed by tf.data and split by tf.distribute.

The data set is read once, in batches: ``tf.data`` numbers the examples (a ``range`` zipped with them), fills the
last batch to the full size with copies of the first example numbered ``-1`` (dropped from the result), batches,
and reads ahead; all with tf.data's own ops, so building the pipeline traces nothing (a map function traced on
every call was most of a warm small scan's time: docs/performance.md). Arrays on one device (no strategy) are
sliced into the same numbered batches in Python, without a pipeline to build on every call.
Each batch runs through one compiled step: ``strategy.run`` gives each replica its share of the batch, each
replica computes its examples' losses and norms with ``per_example_terms`` (the per-batch computation of
``per_example_gradients``: ghost norms where a layer has a rule), and ``strategy.gather`` brings the numbered
results back from every replica and every worker. Every batch has the same shape, so the step is traced once.
Only the two result vectors grow with the data set; they are put in the data set's order by the numbers, so
the result does not depend on how the batches were split. Every batch's losses are compared with its examples'
losses computed alone (``check_independent``): a model that mixes examples is refused whichever batch shows it.

>>> import keras
>>> model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1, use_bias=False)])
>>> model.set_weights([np.array([[1.0], [2.0]], np.float32)])
>>> x = np.array([[1, 0], [0, 3], [1, 1]], np.float32)
>>> r = scan(model, (x, np.zeros(3, np.float32)), loss=lambda y, p: 0.5 * p[:, 0] ** 2, batch_size=2)
>>> r.losses.tolist(), (r.norms ** 2).round(3).tolist()    # loss p^2 / 2, gradient p * x, p = x @ [1, 2]
([0.5, 18.0, 4.5], [1.0, 324.0, 18.0])
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass
from typing import Any, Callable, Hashable, Iterator

import keras
import numpy as np
import pandas as pd
import tensorflow as tf

from .._foundations._cache import LRUCache
from .._foundations._errors import ExpressionError, GradlibError, InputError, error_gist, error_sentence
from .._foundations._limits import LIMITS, Limits
from .._foundations._runtime import returns_numpy
from ._gradients import PROBE_EXAMPLES, Route, check_first_examples, check_floats, check_independent, per_example_terms
from .._callable._forms import refuse_composite, refuse_stateful
from .._callable._updates import refuse_updating
from .._callable._trace import trace
from .._foundations._runtime import work_slot
from ._structure import batch_size as count_examples, given_model, leaves, loss_state, model_state, resolve_loss, signature
from ._tokens import GATHER_HINT, GATHER_OUT_OF_RANGE, check_token_ids, token_id_error, token_id_faults, token_tables

__all__ = ["PREFETCH", "PROBE_EXAMPLES", "ScanResult", "scan"]

#: batches read ahead while a step runs. Not ``tf.data.AUTOTUNE``: its buffer keeps growing as a scan goes on
#: (docs/performance.md, "Where the constants come from")
PREFETCH = 2
#: compiled steps kept per process, so that scanning again (each epoch, say) does not trace again
_COMPILED = LRUCache(maxsize=8)
#: the models, losses and example signatures whose first examples were probed: a warm scan does not probe
#: again (its step compares every batch's losses with its examples' alone, ``check_independent``)
_PROBED = LRUCache(maxsize=8)


@dataclass(frozen=True, eq=False)
class ScanResult:
    """Each example's loss and gradient norm over a whole data set, in the data set's order.

    ``norms[i]`` is the L2 norm of example ``i``'s loss gradient over all of ``model.trainable_variables``.
    ``method`` is what computed it (as in ``PerExampleResult``), ``replicas`` how many replicas shared the work,
    ``batch_size`` the global batch each step read.
    """

    losses: np.ndarray
    norms: np.ndarray
    method: str
    replicas: int
    batch_size: int
    seconds: float

    def __len__(self) -> int:
        return int(self.losses.shape[0])

    def to_frame(self) -> pd.DataFrame:
        """One row per example: ``index`` (its position in the data set), ``loss``, ``norm``."""
        return pd.DataFrame({"index": np.arange(len(self)), "loss": self.losses, "norm": self.norms})

    def to_csv(self, path: Any) -> None:
        """Write ``to_frame()`` as CSV (columns index, loss, norm)."""
        self.to_frame().to_csv(path, index=False)

    def to_parquet(self, path: Any) -> None:
        """Write ``to_frame()`` as Parquet; needs ``pyarrow`` (Streamlit brings it)."""
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise GradlibError("ScanResult.to_parquet needs pyarrow (pip install pyarrow); or use to_csv") from None
        self.to_frame().to_parquet(path, index=False)


@returns_numpy("gradlib.scan")
def scan(model: Any, data: Any, *, loss: Any = None, loss_weights: Any = None, batch_size: int = 256,
         strategy: tf.distribute.Strategy | None = None,
         progress: Callable[[int, int | None], None] | None = None, limits: Limits = LIMITS) -> ScanResult:
    """Each example's loss and gradient norm over a whole data set: streamed, compiled once, optionally distributed.
    Returns NumPy, on no tape (under a recording tape it warns: ``gradlib.NotDifferentiableWarning``).

    Args:
        model: a built Keras model (built in ``strategy.scope()`` when there is a strategy, as Keras requires).
        data: a ``tf.data.Dataset`` of ``(x, y)`` examples, not batched, finite and in the same order every time
            it is read (not reshuffled: refused); or a pair ``(x, y)`` of arrays with the examples along the first
            axis. As for ``model.fit``, ``x`` (``y``) may be a list or a dict of arrays for a model with several
            inputs (outputs): a data set of ``(dict of features, label)`` pairs, as Keras pipelines yield, is read.
        loss, loss_weights: a Keras loss object, a callable ``(y_true, y_pred) -> (B,)``, a Keras loss name, or
            one per output with weights; ``None``: the model's compiled loss (as for ``per_example_gradients``).
        batch_size: the global batch each step reads, split evenly across the replicas (rounded up to a
            multiple of their number). Memory grows with it, not with the size of the data set.
        strategy: a ``tf.distribute.Strategy`` (``MirroredStrategy``, ``MultiWorkerMirroredStrategy``); by
            default the one in scope (``tf.distribute.get_strategy()``), which is a single device outside any.
            Every worker of a multi-worker strategy must call ``scan`` alike; each gets the whole result.
        progress: called after every batch as ``progress(examples_done, examples_total)``, the total ``None``
            when the data set does not know its length.
        limits: ``max_jacobian`` bounds the floats one replica's batch allocates.

    Returns:
        A ``ScanResult``: ``losses`` and ``norms``, one per example, in the data set's order. As for
        ``per_example_gradients``, an example's loss is the loss function's: the model's weight regularization
        depends on no example and is in none of them; a loss the model adds during its call (an
        ``activity_regularizer``) is refused.

    Example:
        >>> import keras
        >>> model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
        >>> loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        >>> r = scan(model, (np.ones((10, 3), np.float32), np.zeros(10, np.int32)), loss=loss, batch_size=4)
        >>> r.losses.shape, r.norms.shape, list(r.to_frame().columns)
        ((10,), (10,), ['index', 'loss', 'norm'])

    Raises:
        ExpressionError: a bad option (batch size, strategy, progress callback), or a batch over the limits.
        GradlibError: a bad model, data set or loss.
        BatchMixingError: an example's loss depends on other examples of its batch (every batch's losses are
            compared with its examples' losses alone).
    """
    strategy = _check_strategy(strategy)
    _check_model(model, strategy)
    replicas = strategy.num_replicas_in_sync
    batch = _check_batch_size(batch_size, replicas)
    _check_progress(progress)
    dataset, total, arrays = _as_dataset(data, _workers(strategy), _one_shape(batch, replicas))
    example = dataset.element_spec if arrays is None else _example_spec(arrays)
    _check_unbatched(example, model)
    loss = _resolved_loss(model, loss, loss_weights, example)
    with work_slot():
        start = time.perf_counter()
        first = _probe(model, dataset if arrays is None else arrays, loss)
        batches, spec = _batched(strategy, dataset, arrays, total, example, batch, first)
        step, plans, tables = _checked_step(model, loss, strategy, spec, batch, limits)
        losses, norms = _in_order(*_run(step, batches, total, progress, tables, loss, batch, replicas))
    return ScanResult(losses=losses, norms=norms, method=plans[0].method, replicas=replicas,
                      batch_size=batch, seconds=time.perf_counter() - start)


# ---------------------------------------------------------------- the input pipeline


def _as_dataset(data: Any, workers: int = 1, shapes: str = "use batch_size=1"
                ) -> tuple[tf.data.Dataset | None, int | None, tuple[Any, Any] | None]:
    """The examples as an unbatched ``(x, y)`` data set and how many there are when that is known; or, when
    ``data`` was arrays, no data set yet, their number, and the checked arrays ``(x, y)``. ``workers``: how many
    processes read the data set, each its own copy (``_workers``); ``shapes``: ``_check_dataset``'s."""
    if isinstance(data, tf.data.Dataset):
        _check_dataset(data, workers, shapes)
        count = int(data.cardinality())
        return data, (count if count >= 0 else None), None
    x, y, count = _check_arrays(data)
    return None, count, (x, y)


def _resolved_loss(model: Any, loss: Any, loss_weights: Any, example: Any) -> Any:
    """The loss as ``resolve_loss`` reads it against the specs of a batch of the examples' targets."""
    targets = tf.nest.map_structure(lambda s: tf.TensorSpec((None,) + tuple(s.shape), s.dtype), example[1])
    return resolve_loss(model, loss, loss_weights, targets, "gradlib.scan")


def _checked_step(model: Any, loss: Any, strategy: tf.distribute.Strategy, spec: Any, batch: int, limits: Limits):
    """The compiled step for this model, loss, strategy and batch spec (``_compile``), refused when one replica's
    batch would allocate more floats than ``limits`` allow."""
    step, plans, tables = _compile(model, loss, strategy, spec)
    check_floats(plans[0], batch // strategy.num_replicas_in_sync, limits, "gradlib.scan",
                 "per replica and batch", "Use batch_size={n} or less", scale=strategy.num_replicas_in_sync)
    return step, plans, tables


def _batched(strategy: tf.distribute.Strategy, dataset: Any, arrays: Any, total: int | None, example: Any,
             batch: int, first: Any) -> tuple[Any, Any]:
    """The batches a step reads and their spec: sliced from the arrays on one worker (no ``tf.data``), else the
    data set batched and distributed by ``strategy`` (its first examples, already read by the probe, included)."""
    if arrays is not None and _local(strategy):
        return _array_batches(arrays, total, batch), _batch_spec(example, batch)
    distributed = strategy.experimental_distribute_dataset(_batches(
        dataset if dataset is not None else _slices(arrays), batch, first))
    return distributed, distributed.element_spec


def _slices(arrays: tuple[Any, Any]) -> tf.data.Dataset:
    """Checked arrays as a data set of examples, for a ``tf.distribute`` strategy to split."""
    return tf.data.Dataset.from_tensor_slices(arrays)


def _example_spec(arrays: tuple[Any, Any]) -> Any:
    """The ``(x, y)`` specs of one example of checked arrays (what ``from_tensor_slices`` would give)."""
    return tf.nest.map_structure(lambda a: tf.TensorSpec(a.shape[1:], tf.as_dtype(a.dtype)), arrays)


def _batch_spec(example: Any, batch: int) -> Any:
    """The ``(index, (x, y))`` specs of a batch of ``batch`` numbered examples."""
    shaped = tf.nest.map_structure(lambda s: tf.TensorSpec((batch,) + tuple(s.shape), s.dtype), example)
    return tf.TensorSpec((batch,), tf.int64), shaped


def _local(strategy: tf.distribute.Strategy) -> bool:
    """Whether ``strategy`` is the default one (one device, no scope): then arrays need no ``tf.data`` at all."""
    return not tf.distribute.has_strategy() and strategy is tf.distribute.get_strategy()


def _array_batches(arrays: tuple[Any, Any], total: int, batch: int) -> Iterator[tuple[tf.Tensor, Any]]:
    """``(index, (x, y))`` batches of exactly ``batch`` examples sliced from arrays in memory, as ``_batches`` makes
    them from a data set: the last one filled with copies of the first example, numbered ``-1``.

    For arrays on one device a ``tf.data`` pipeline only added set-up to every call: building its ops (``enumerate``
    rewrites the graph), making its iterator and starting its read-ahead thread took 30-60 ms of a 100 ms warm scan
    of 2,000 examples, and most of its variation under load (docs/performance.md, issue 26)."""
    for begin in range(0, total, batch):
        stop = min(begin + batch, total)
        index = np.arange(begin, begin + batch, dtype=np.int64)
        index[stop - begin:] = -1
        fill = begin + batch - stop
        part = tf.nest.map_structure(
            lambda a: a[begin:stop] if not fill else np.concatenate([a[begin:stop], np.repeat(a[:1], fill, axis=0)]),
            arrays)
        yield tf.constant(index), tf.nest.map_structure(tf.convert_to_tensor, part)


def _batches(dataset: tf.data.Dataset, batch: int, first: Any) -> tf.data.Dataset:
    """``(index, (x, y))`` batches of exactly ``batch`` examples; the last one filled with copies of ``first`` (the
    data set's first example, a valid input for any model) numbered ``-1``.

    ``batch - 1`` filler examples follow the data set and the remainder is dropped: the last batch holds the last
    real examples and just enough filler, and no batch is filler only. tf.data's own ops (no ``map``): nothing
    is traced here, however often the data set is scanned. The numbers come from a ``range`` zipped with the data
    set: ``enumerate`` does the same and also rewrites the graph to replicate the range for tf.data service's
    splits (``replicate_on_split``), which took 8-14 ms of every call here.
    """
    options = tf.data.Options()
    options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.DATA
    options.deterministic = True
    numbers = tf.data.Dataset.range(np.iinfo(np.int64).max)
    numbered = tf.data.Dataset.zip((numbers, dataset))
    if all(s.shape.is_fully_defined() for s in tf.nest.flatten(dataset.element_spec)):
        filler = tf.data.Dataset.from_tensors((tf.constant(-1, tf.int64), first)).repeat(batch - 1)
        numbered = numbered.concatenate(filler).batch(batch, drop_remainder=True)
    else:   # examples of a free length (one per batch): the first example would not fit the last batch
        numbered = numbered.batch(batch).map(lambda index, example: _filled(batch, index, example))
    return numbered.with_options(options).prefetch(PREFETCH)


def _filled(batch: int, index: tf.Tensor, example: Any) -> tuple[tf.Tensor, Any]:
    """A batch of numbered examples filled to ``batch`` rows with copies of its own first example, numbered ``-1``.

    For a data set whose examples have a free length (``TensorSpec((None,))``), batched by length beforehand: the
    data set's first example (``_batches``' filler) has the first batch's length, and the last batch failed to
    batch with it ("Cannot batch tensors with different shapes") whenever its length was another."""
    fill = batch - tf.shape(index)[0]
    rows = lambda t, pad: tf.ensure_shape(tf.concat([t, pad], 0), [batch, *t.shape[1:]])  # noqa: E731
    example = tf.nest.map_structure(lambda t: rows(t, tf.repeat(t[:1], fill, axis=0)), example)
    return rows(index, tf.fill([fill], tf.constant(-1, tf.int64))), example


# ---------------------------------------------------------------- the compiled step


def _compile(model: Any, loss: Any, strategy: tf.distribute.Strategy, spec: Any) -> tuple[Any, list[Route], list]:
    """The step for this model, loss, strategy and batch signature: traced once, kept for the next scan (bounded)."""
    create = lambda: _trace(model, loss, strategy, spec)  # noqa: E731
    try:
        key: Hashable | None = (model, model_state(model), loss, loss_state(loss), strategy, signature(spec),
                                tuple(map(id, model.trainable_variables)))
        hash(key)
    except TypeError:
        return create()
    return _COMPILED.get_or_create(key, create)


def _trace(model: Any, loss: Any, strategy: tf.distribute.Strategy, spec: Any) -> tuple[Any, list[Route], list]:
    """The step, traced for the batch signature: each replica's share, then every replica's results.

    Each replica first checks the token ids of every Embedding that reads a model input (``token_id_faults``):
    on GPU an id outside the table gathers a row of zeros, silently. The step returns each example's faults
    after its results, and ``_run`` refuses the batch; ``tables`` says which Embedding each fault is about.
    """
    plans: list[Route] = []
    tables: list = []

    def replica(index: tf.Tensor, example: Any) -> tuple[tf.Tensor, ...]:
        x, y = example
        tables[:] = token_tables(model, x)
        x, faults = token_id_faults(tables, x)
        losses, norms, _, plan, (joint, alone) = per_example_terms(model, loss, x, y, api="gradlib.scan")
        plans.append(plan)
        return (index, losses, norms, joint, alone, *faults)

    def step(batch: Any) -> tuple[tf.Tensor, ...]:
        out = strategy.run(replica, args=batch)
        return tuple(strategy.gather(t, axis=0) for t in out)

    try:
        concrete = trace(step, [spec])
    except GradlibError:
        raise
    except (TypeError, ValueError, NotImplementedError, tf.errors.OpError) as exc:
        raise GradlibError(f"gradlib.scan could not compile its step for batches of {spec!r}: {error_gist(exc)}") from exc
    return concrete, plans, tables


def _run(step: Any, distributed: Any, total: int | None, progress: Callable[[int, int | None], None] | None,
         tables: list, loss: Any = None, batch: int = 1, replicas: int = 1
         ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every batch through the step; the numbered results of the real (not padding) rows, as they came. ``batch``
    and ``replicas``: the global batch and how many replicas share it, for the advice of a refusal (``_one_shape``).

    Each batch's token ids must be in their Embeddings' tables (``_check_faults``), and its losses must equal
    its examples' losses alone (``check_independent``, which names a Circle ``loss`` as the cause), on every batch.
    """
    chunks: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    done = 0
    try:
        for batch in distributed:
            index, losses, norms, joint, alone, *faults = (t.numpy() for t in step(batch))
            real = index >= 0
            _check_faults(tables, [f[real] for f in faults], index[real])
            check_independent(joint[real], alone[real], "gradlib.scan", numbers=index[real], loss=loss)
            chunks.append((index[real], losses[real], norms[real]))
            done += int(real.sum())
            if progress is not None:
                progress(done, total)
    except tf.errors.OpError as exc:
        hint = (f" Check that {GATHER_HINT}" if GATHER_OUT_OF_RANGE.search(str(exc)) else
                " Check that y holds labels below the number of classes" if "label value" in str(exc) else
                f" The examples of one batch need one shape: {_one_shape(batch, replicas)}"
                if "different shapes" in str(exc) else "")
        said = error_sentence(exc) + hint if hint else error_gist(exc)   # "[2,3].. The" where the gist had its period
        raise GradlibError(f"gradlib.scan failed after {done:,} examples: {said}") from exc
    if not chunks:
        raise GradlibError("gradlib.scan got an empty data set: there is no example to scan")
    return tuple(np.concatenate(parts) for parts in zip(*chunks))  # type: ignore[return-value]


def _one_shape(batch: int, replicas: int) -> str:
    """What to do about examples of different shapes in one batch of ``batch`` on ``replicas``: on one replica a
    batch of one; on several, every batch holds one example per replica at least (batch_size=1 became 2 on two
    replicas, and "use batch_size=1" failed there as before)."""
    if replicas == 1:
        return ("use batch_size=1, or order the examples by length in runs of batch_size (here "
                f"{batch}), or pad them to one length with a mask")
    return (f"on {replicas} replicas every batch holds at least {replicas} examples (batch_size={batch} here, a "
            f"multiple of the replicas): order the examples by length in runs of {batch}, or pad them to one length "
            "with a mask")


def _check_faults(tables: list, faults: list[np.ndarray], numbers: np.ndarray) -> None:
    """Refuse a batch with a token id outside its Embedding's table: the first such example in the data set's
    order, with its number there. ``faults[k]`` is ``token_id_faults``' ``(B, 3 + axes)`` for ``tables[k]``."""
    for (_, path, layer), fault in zip(tables, faults):
        bad = np.flatnonzero(fault[:, 0])
        if bad.size:
            i = bad[np.argmin(numbers[bad])]
            where = (int(numbers[i]), *(int(j) for j in fault[i, 3:]))
            raise token_id_error("gradlib.scan", path, where, int(fault[i, 1]), int(fault[bad, 0].sum()),
                                 f"in this batch of {len(numbers):,} examples", layer, int(fault[bad, 2].max()))


def _in_order(index: np.ndarray, losses: np.ndarray, norms: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Put the results in the data set's order; every example must have come back exactly once."""
    n = int(index.shape[0])
    seen = np.zeros(n, bool)
    valid = (index >= 0) & (index < n)
    seen[index[valid]] = True
    if not valid.all() or not seen.all():
        raise GradlibError(f"gradlib.scan got {n:,} results but not one for each of the examples 0..{n - 1:,}; "
                           "every worker must read the same data set in the same order")
    out_losses, out_norms = np.empty_like(losses), np.empty_like(norms)
    out_losses[index], out_norms[index] = losses, norms
    return out_losses, out_norms


def _empty(data: tf.data.Dataset) -> bool:
    """Whether ``data`` has no element (``get_single_element`` refuses an empty data set and a bad read alike)."""
    try:
        return not int(data.take(1).reduce(0, lambda n, _: n + 1))
    except (tf.errors.OpError, TypeError, ValueError):
        return False


def _probe(model: Any, data: Any, loss: Any) -> Any:
    """Check the first examples eagerly (the batch's structure, the model and loss running on it, their losses
    alone and together: ``check_first_examples``), tracing nothing; returns the first example ``(x, y)``.
    ``data``: the checked arrays ``(x, y)``, or the data set."""
    if isinstance(data, tf.data.Dataset):
        first = _first_examples(data)
    else:   # arrays: their first rows, without a data set to read them through
        first = tf.nest.map_structure(lambda a: a[:PROBE_EXAMPLES], tuple(data))
    _PROBED.get_or_create(_probe_key(model, loss, first), lambda: _check_first(model, loss, first))
    return tf.nest.map_structure(lambda t: t[0], first)


def _first_examples(data: tf.data.Dataset) -> Any:
    """The data set's first ``PROBE_EXAMPLES`` examples as one batch; of a free length (``TensorSpec((None,))``),
    the first ones of the first example's shape (a scan of such examples takes ``batch_size=1``, or batches made
    by length: before, their first examples of different lengths refused the scan at any batch size)."""
    # one op, no iterator: making an iterator (its graph rewrites, its thread) took 17-41 ms of a warm scan
    head = data.take(PROBE_EXAMPLES).batch(PROBE_EXAMPLES)
    try:
        return head.get_single_element()
    except (tf.errors.OpError, TypeError, ValueError) as exc:
        if isinstance(exc, tf.errors.InvalidArgumentError) and _empty(head):
            raise GradlibError("gradlib.scan got an empty data set: there is no example to scan") from None
        if not (isinstance(exc, tf.errors.InvalidArgumentError) and "different shapes" in str(exc)):
            raise GradlibError(f"gradlib.scan could not read the data set: {error_gist(exc)}") from exc
    examples = list(data.take(PROBE_EXAMPLES))
    shapes = [[t.shape for t in tf.nest.flatten(e)] for e in examples]
    same = examples[:next((i for i, s in enumerate(shapes) if s != shapes[0]), len(examples))]
    return tf.nest.map_structure(lambda *rows: tf.stack(rows), *same)


def _check_first(model: Any, loss: Any, first: Any) -> bool:
    refuse_updating(lambda xb: model(xb, training=False), first[0], "gradlib.scan", None, "model")   # before any call
    check_token_ids(model, first[0], "gradlib.scan", f"in the data set's first {PROBE_EXAMPLES} examples")
    try:
        check_first_examples(model, loss, first[0], first[1], "gradlib.scan")
    except GradlibError as exc:   # its kind kept: a BatchMixingError stays one
        raise type(exc)(f"{exc} (on the data set's first {count_examples(first[0])} examples, which gradlib.scan checks "
                        "before it scans)") from exc
    return True


def _probe_key(model: Any, loss: Any, first: Any) -> Hashable:
    """The model, loss, examples' signature and weights a probe checked (an unhashable loss: a key never seen
    again, so the probe runs)."""
    try:
        key = (model, model_state(model), loss, loss_state(loss), signature(tf.nest.map_structure(
            lambda t: tf.TensorSpec((None,) + tuple(t.shape[1:]), t.dtype), first)),
            tuple(map(id, model.trainable_variables)))
        hash(key)
    except TypeError:
        return object()
    return key


# ---------------------------------------------------------------- checks


def _check_strategy(strategy: Any) -> tf.distribute.Strategy:
    if strategy is None:
        return tf.distribute.get_strategy()
    if not isinstance(strategy, tf.distribute.Strategy):
        raise ExpressionError(f"gradlib.scan needs strategy= a tf.distribute.Strategy (e.g. tf.distribute.MirroredStrategy()) "
                              f"or None, got {type(strategy).__name__}")
    return strategy


def _check_model(model: Any, strategy: tf.distribute.Strategy) -> None:
    if not isinstance(model, keras.layers.Layer):
        raise GradlibError(f"gradlib.scan needs a Keras model, got {given_model(model)}")
    refuse_stateful(model, "gradlib.scan")
    if not model.built or not model.trainable_variables:
        raise GradlibError("gradlib.scan needs a built model with trainable weights: give it a keras.Input (or call it "
                           "on one batch) before scanning")
    in_scope = strategy.extended.variable_created_in_scope
    outside = [v.path for v in model.variables if not in_scope(getattr(v, "value", v))]   # Keras 3 wraps tf.Variable
    if outside:
        raise GradlibError(f"gradlib.scan: the model's variable {outside[0]!r} was not created in the strategy's scope; "
                           "build the model inside `with strategy.scope():`")


def _check_batch_size(batch_size: Any, replicas: int) -> int:
    if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) or batch_size < 1:
        raise ExpressionError(f"gradlib.scan needs batch_size= a positive integer, got {batch_size!r}")
    return int(math.ceil(int(batch_size) / replicas) * replicas)


def _check_progress(progress: Any) -> None:
    if progress is not None and not callable(progress):
        raise ExpressionError(f"gradlib.scan needs progress= a callable (examples_done, examples_total) or None, "
                              f"got {progress!r}")


def _workers(strategy: tf.distribute.Strategy) -> int:
    """How many worker processes ``strategy`` spans: 1 on one machine; 2 (at least) where it does not say."""
    extended = strategy.extended
    multi = getattr(extended, "_in_multi_worker_mode", None)
    if not callable(multi):
        return 2
    return max(int(getattr(extended, "_num_workers", 2)), 2) if multi() else 1


def _check_dataset(data: tf.data.Dataset, workers: int = 1, shapes: str = "use batch_size=1") -> None:
    """Refuse a data set that is not of ``(x, y)`` pairs of dense tensors, endless, or read in a new order each time
    (``workers``: the processes that read it, ``_workers``); ``shapes`` is what to do about examples of different
    shapes on the strategy in use (``_one_shape``)."""
    spec = data.element_spec
    if isinstance(spec, tuple) and len(spec) == 3:
        raise GradlibError(f"gradlib.scan needs a data set of (x, y) pairs, but its elements have three parts "
                           f"{spec!r}: sample weights are not supported; map it to (x, y), e.g. "
                           "data.map(lambda x, y, w: (x, y))")
    specs = tf.nest.flatten(spec)
    if isinstance(spec, tuple) and len(spec) == 2 and any(_composite(s) for s in specs):
        padded = any(isinstance(s, tf.RaggedTensorSpec) and s.ragged_rank > 0 for s in specs)
        raise GradlibError(
            f"gradlib.scan needs a data set of (x, y) pairs of dense tensors, but its elements are {spec!r}. Make "
            f"each example's ragged (or sparse) parts dense: data.map(lambda x, y: ({_dense('x', spec[0])}, "
            f"{_dense('y', spec[1])}))" + ("; to_tensor() pads an example's shorter rows with zeros: mask them "
                                          "(keras.layers.Masking)" if padded else "")
            + f". Examples of different lengths then need batches of one shape: {shapes}")
    if not (isinstance(spec, tuple) and len(spec) == 2 and specs and all(isinstance(s, tf.TensorSpec) for s in specs)):
        raise GradlibError(f"gradlib.scan needs a data set of (x, y) pairs of tensors (x and y may be lists or dicts "
                           f"of tensors, as model.fit takes them), but its elements are {spec!r}; map it to (x, y), "
                           "e.g. data.map(lambda d: (d['image'], d['label']))")
    cardinality = int(data.cardinality())
    if cardinality == int(tf.data.INFINITE_CARDINALITY) or (cardinality < 0 and _endless(data)):
        raise GradlibError("gradlib.scan needs a finite data set, but this one repeats forever; drop .repeat() or "
                           "use .take(n)")
    why = _reordered(data, workers)
    if why:
        raise GradlibError(f"gradlib.scan needs a data set in the same order every time it is read, but this one "
                           f"{why}: a result's index would name another example than your next read of it")


def _composite(spec: Any) -> bool:
    return isinstance(spec, (tf.RaggedTensorSpec, tf.SparseTensorSpec))


def _dense(name: str, spec: Any) -> str:
    """A Python expression that makes ``name`` (of ``spec``) dense where it is ragged or sparse, for the advice of a
    refusal: ``tf.convert_to_tensor(x)``, ``{**x, 'tokens': x['tokens'].to_tensor()}``, ``(x[0],
    tf.sparse.to_dense(x[1]))``. One example sliced from a ragged matrix (ragged rank 0) is a dense tensor already:
    a ``map`` hands it to its function as one (TF 2.21: ``x.to_tensor()`` there raised "'SymbolicTensor' object
    has no attribute 'to_tensor'"), and only its spec says ragged; a deeper one's ``to_tensor()`` pads its rows."""
    if isinstance(spec, tf.RaggedTensorSpec):
        return f"tf.convert_to_tensor({name})" if spec.ragged_rank == 0 else f"{name}.to_tensor()"
    if isinstance(spec, tf.SparseTensorSpec):
        return f"tf.sparse.to_dense({name})"
    if isinstance(spec, dict):
        parts = [f"{k!r}: {_dense(f'{name}[{k!r}]', v)}" for k, v in spec.items()
                 if any(map(_composite, tf.nest.flatten(v)))]
        return "{**" + name + ", " + ", ".join(parts) + "}" if parts else name
    if isinstance(spec, (tuple, list)) and any(map(_composite, tf.nest.flatten(spec))):
        inner = ", ".join(_dense(f"{name}[{i}]", v) for i, v in enumerate(spec))
        return f"({inner}{',' if len(spec) == 1 else ''})"
    return name


#: tf.data's classes of one input that read it to its end, whatever they do with its elements: under them a
#: ``repeat()`` without a count never ends (a filter or interleave makes tf.data's cardinality unknown instead)
_READ_TO_THE_END = ("_FilterDataset", "_MapDataset", "_ParallelMapDataset", "_PrefetchDataset", "_OptionsDataset",
                    "_ShuffleDataset", "_UnbatchDataset", "_BatchDataset", "_PaddedBatchDataset",
                    "_IgnoreErrorsDataset", "_FlatMapDataset", "_InterleaveDataset", "_ParallelInterleaveDataset",
                    "_CacheDataset")


def _endless(data: tf.data.Dataset) -> bool:
    """Whether ``data`` is a ``repeat()`` without a count under ops that read it to its end (``_READ_TO_THE_END``):
    ``data.repeat().filter(f)`` has an unknown cardinality, and a scan of it ran until killed. An op that may
    stop early (``take``, ``take_while``, ``zip``) or one not listed ends the walk: such a data set is scanned."""
    while type(data).__name__ in _READ_TO_THE_END + ("_RepeatDataset",):
        if type(data).__name__ == "_RepeatDataset":
            return int(getattr(data, "_count", 0)) < 0
        try:
            data = data._inputs()[0]
        except Exception:  # noqa: BLE001 - a data set class without the method: nothing more to see
            return False
    return False


def _reordered(data: tf.data.Dataset, workers: int = 1) -> str:
    """Why ``data`` is read in a new order every time ("" when it is not seen to be): a ``Dataset.shuffle`` that
    reshuffles on every read (``reshuffle_each_iteration``, on by default; ``list_files`` makes one), or a parallel
    ``map`` (``batch``, reader) with ``deterministic=False``, which hands out its elements as they finish and
    overrides the scan's ``options.deterministic``. Its results would be numbered in an order no other read gives:
    a 12-example shuffled data set's norm #9 was 0.985, the next read's example #9 had 2.99; a parallel map's #15
    was 1.19, example #15 had 3.26. The walk follows tf.data's own (private) ``_inputs()``, and reads the graphs of
    the functions given to ``interleave``, ``flat_map`` (and ``map``, ``filter``...: ``_inside``). On ``workers``
    > 1, an unseeded shuffle is refused too: each worker shuffles in its own order (``_unseeded``). Not seen: a
    top-level ``interleave``'s own ``deterministic=False``, which tf.data does not keep on the Python object."""
    stack, seen = [data], set()
    while stack:
        d = stack.pop()
        if id(d) in seen:
            continue
        seen.add(id(d))
        # ``shuffle(reshuffle_each_iteration=None)`` reshuffles too: None is the op's default, True
        if hasattr(d, "_reshuffle_each_iteration") and d._reshuffle_each_iteration is not False:
            return ("is shuffled anew on every read (Dataset.shuffle with reshuffle_each_iteration=True, the default; "
                    "Dataset.list_files shuffles too). A scan needs no shuffle: drop it, or pass "
                    "reshuffle_each_iteration=False (list_files: shuffle=False)")
        if getattr(d, "_deterministic", None) == "false":
            return (f"has a {_op_name(type(d).__name__)} with deterministic=False, "
                    "which hands out the examples in the order they finish. Drop deterministic=False (the scan "
                    "asks tf.data for a deterministic order otherwise)")
        why = (_unseeded(d) if workers > 1 else "") or _inside(d)
        if why:
            return why
        try:
            stack.extend(d._inputs())
        except Exception:  # noqa: BLE001 - a data set class without the method: nothing more to see
            continue
    return ""


def _op_name(name: str) -> str:
    """``ParallelMap`` of ``_ParallelMapDataset`` or ``ParallelMapDatasetV2``."""
    return re.sub(r"(Dataset)?(V\d+)?$", "", name.strip("_"))


def _unseeded(d: tf.data.Dataset) -> str:
    """Why ``d``, a shuffle without a seed, is numbered differently on each worker of a cluster ("" otherwise)."""
    if not hasattr(d, "_reshuffle_each_iteration") or int(getattr(d, "_seed", 1)) or int(getattr(d, "_seed2", 1)):
        return ""
    return ("is shuffled without a seed (Dataset.shuffle(..., reshuffle_each_iteration=False) and no seed, nor "
            "tf.random.set_seed): each worker of the cluster shuffles in its own order, so the results would be "
            "numbered from several orders. Give the shuffle a seed, the same on every worker: "
            ".shuffle(n, seed=0, reshuffle_each_iteration=False), or drop it")


def _inside(d: tf.data.Dataset) -> str:
    """Why the functions ``d`` was given (``interleave``'s, ``flat_map``'s, ...) read their data sets in a new order
    on every read ("" when not seen): a ``Dataset.shuffle`` without a seed, or an op with ``deterministic=False``,
    in their graphs or in the functions those call. Such a function makes its data sets anew for each element, on
    every read, so a shuffle in it draws a new order each time whatever ``reshuffle_each_iteration`` says (TF
    2.21: flat_map(lambda i: range(10).shuffle(10, reshuffle_each_iteration=False)) read twice gave 0, 9, 3, 6, 8
    and 9, 7, 6, 2, 5); a seeded one gives the same order on every read."""
    for wrapper in vars(d).values():
        graph = getattr(getattr(wrapper, "function", None), "graph", None)
        if graph is None:
            continue
        definition = graph.as_graph_def()
        for nodes in [definition.node, *(f.node_def for f in definition.library.function)]:
            what, fix = _reordering_node(nodes)
            if what:
                return f"has, inside the function given to {_op_name(type(d).__name__)}, {what}. {fix}"
    return ""


def _reordering_node(nodes: Any) -> tuple[str, str]:
    """What in one graph's ``nodes`` (``NodeDef``s) hands out its elements in a new order on each read, and the fix
    (``("", "")`` when nothing does)."""
    by_name = {n.name: n for n in nodes}
    for node in nodes:
        if node.op.startswith("Shuffle") and _zero_seeds(node, by_name):
            return ("a Dataset.shuffle without a seed: the function makes its data sets anew on every read, so they "
                    "are shuffled anew whatever reshuffle_each_iteration says", "Give that shuffle a seed, "
                    ".shuffle(n, seed=0) (the same order on every read), or drop it")
        if "deterministic" in node.attr and node.attr["deterministic"].s == b"false":
            return (f"a {_op_name(node.op)} with deterministic=False, which hands out the examples in the order "
                    "they finish", "Drop deterministic=False there")
    return "", ""


def _zero_seeds(node: Any, by_name: dict) -> bool:
    """Whether a shuffle ``node``'s ``seed`` and ``seed2`` inputs are the constant 0 (no seed: TensorFlow draws one
    when the op runs), or it has none."""
    if len(node.input) < 4:
        return True
    sources = [by_name.get(name.lstrip("^").split(":")[0]) for name in node.input[2:4]]
    return all(s is not None and s.op == "Const" and not tf.make_ndarray(s.attr["value"].tensor).any()
               for s in sources)


def _check_arrays(data: Any) -> tuple[Any, Any, int]:
    """``(x, y, examples)``: ``x`` and ``y`` arrays, or lists (made tuples: tf.data keeps those apart) and dicts."""
    if not (isinstance(data, (tuple, list)) and len(data) == 2):
        several = isinstance(data, (tuple, list)) and len(data) > 2
        raise GradlibError(
            "gradlib.scan needs data= a tf.data.Dataset of (x, y) examples or a pair of arrays (x, y), got "
            + (f"a {type(data).__name__} of {len(data)} items; for a model with several inputs, give x as a list or "
               "dict of arrays: data=([x1, x2], y)" if several else type(data).__name__))
    x, y = (_arrays(value, name) for name, value in zip("xy", data))
    every = list(leaves(x, "x")) + list(leaves(y, "y"))
    (first, a), rest = every[0], every[1:]
    for name, b in rest:
        if b.shape[0] != a.shape[0]:
            what = "targets in y" if (first, name) == ("x", "y") else f"in {name} (shape {b.shape})"
            raise InputError(f"gradlib.scan got {a.shape[0]:,} examples in {first} but {b.shape[0]:,} {what}; "
                             + ("pass one target per example" if name == "y" and first == "x" else
                                "every input and target needs one row per example"))
    return x, y, int(a.shape[0])


def _arrays(value: Any, path: str) -> Any:
    if isinstance(value, dict):
        return {k: _arrays(v, f"{path}[{k!r}]") for k, v in value.items()}
    if isinstance(value, (list, tuple)) and any(hasattr(v, "__array__") or isinstance(v, dict) for v in value):
        return tuple(_arrays(v, f"{path}[{i}]") for i, v in enumerate(value))
    refuse_composite(value, "gradlib.scan", path)
    try:
        array = np.asarray(value)
    except ValueError as exc:   # a ragged nested list
        raise InputError(f"gradlib.scan could not turn {path} into an array: {exc}. Give {path} as an array of "
                         "numbers with the examples along the first axis") from None
    if array.ndim == 0 or array.shape[0] == 0 or not (np.issubdtype(array.dtype, np.number) or array.dtype == bool):
        raise InputError(f"gradlib.scan needs {path} as an array of numbers with the examples along the first axis, "
                         f"got shape {array.shape} of {array.dtype}")
    return array


def _check_unbatched(example: Any, model: Any) -> None:
    """A batched data set has one axis too many for the model's inputs: say so instead of failing in the model.

    ``example``: the ``(x, y)`` specs of one example. Each of ``x``'s parts is matched with the model's input: by
    name from a dict, by position from a tuple."""
    inputs = getattr(model, "inputs", None)
    if not inputs:
        return
    spec = example[0]
    if isinstance(spec, dict):
        by_name = {t.name: t for t in inputs}
        pairs = [(f"x[{k!r}]", s, by_name[k]) for k, s in spec.items() if k in by_name]
    else:
        parts = tf.nest.flatten(spec)
        names = ["x"] if len(parts) == 1 else [f"x[{i}]" for i in range(len(parts))]
        pairs = list(zip(names, parts, inputs)) if len(parts) == len(inputs) else []
    batched = [(n, s, t) for n, s, t in pairs if s.shape.rank is not None and s.shape.rank == len(t.shape)]
    if pairs and len(batched) == len(pairs):
        name, s, t = batched[0]
        raise GradlibError(f"gradlib.scan needs a data set of single examples, but its {name} has shape {s.shape} for "
                           f"a model that takes {tuple(t.shape)}: it looks batched already. Pass it before .batch(), "
                           "or call .unbatch(); scan batches it itself")
