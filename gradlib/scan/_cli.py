"""``python -m gradlib.scan``: each example's loss and gradient norm over a data set in files, to a results file.

The model comes from the user's own code: ``--model package.module:function`` is imported (``importlib``, from
the current directory, which the command puts on the import path as ``python -m`` does, or ``PYTHONPATH``) and
called with no arguments, inside the strategy's scope; it returns a built Keras model (and may load the user's
weights itself). No model file is ever loaded by this command.

    python -m gradlib.scan --model mymodels:classifier --data train.npz --loss sparse_categorical_crossentropy \\
        --from-logits --out norms.csv
    python -m gradlib.scan ... --strategy mirrored                  # every local GPU (or --cpu-devices 2)
    TF_CONFIG='{...}' python -m gradlib.scan ... --strategy multiworker   # on every machine; the chief writes

Exit status (one line on stderr for every failure, never a traceback):
  0    done: the results are written. Warnings on stderr, with counts, when some losses or norms are not finite
  1    anything else failed (a bug, out of memory): the error's type and message
  2    bad arguments, data file (truncated, corrupt, not numbers, wrong shape or labels, over a limit), model or
       loss: what is wrong, where, and what to do; said before the data is loaded where the file allows
  130  interrupted (Ctrl-C)
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any, Callable, Sequence, TextIO

import numpy as np

from .._foundations._errors import GradlibError, error_gist
from . import _files

__all__ = ["LOSSES", "Progress", "main"]

#: ``--loss`` names: the Keras loss classes (``--from-logits`` for the cross-entropies)
LOSSES = {
    "sparse_categorical_crossentropy": ("SparseCategoricalCrossentropy", True),
    "categorical_crossentropy": ("CategoricalCrossentropy", True),
    "binary_crossentropy": ("BinaryCrossentropy", True),
    "mse": ("MeanSquaredError", False),
    "mae": ("MeanAbsoluteError", False),
    "huber": ("Huber", False),
}
_SPEC = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")
PROG = "python -m gradlib.scan"


class Progress:
    """A progress bar on a terminal (``\\r``-updated, at most 10 times a second), plain lines elsewhere (every 10 s)."""

    def __init__(self, stream: TextIO, clock: Callable[[], float] = time.monotonic):
        self.stream, self.clock = stream, clock
        self.tty = bool(getattr(stream, "isatty", lambda: False)())
        self.start = self.last = clock()
        self.shown = 0

    def __call__(self, done: int, total: int | None) -> None:
        now = self.clock()
        if now - self.last < (0.1 if self.tty else 10.0):
            return
        self.last, self.shown = now, done
        self.stream.write(("\r" if self.tty else "") + self.line(done, total, now - self.start) + ("" if self.tty else "\n"))
        self.stream.flush()

    def finish(self, done: int) -> None:
        """The final line (the total is known by now)."""
        self.stream.write(("\r" if self.tty else "") + self.line(done, done, self.clock() - self.start) + "\n")
        self.stream.flush()

    @staticmethod
    def line(done: int, total: int | None, seconds: float) -> str:
        """``[#####---------------] 25% 1,000/4,000 examples, 500/s, 0:06 left`` (no bar when the total is unknown).

        >>> Progress.line(1000, 4000, 2.0)
        '[#####---------------]  25% 1,000/4,000 examples, 500/s, 0:06 left'
        >>> Progress.line(1000, None, 2.0)
        '1,000 examples, 500/s'
        """
        rate = done / seconds if seconds > 0 else 0.0
        if total is None or total <= 0:
            return f"{done:,} examples, {rate:,.0f}/s"
        filled = min(20, int(20 * done / total))
        left = int((total - done) / rate) if rate > 0 else 0
        return (f"[{'#' * filled}{'-' * (20 - filled)}] {100 * done // total:3d}% {done:,}/{total:,} examples, "
                f"{rate:,.0f}/s, {left // 60}:{left % 60:02d} left")


def main(argv: Sequence[str] | None = None, *, stdout: TextIO = sys.stdout, stderr: TextIO = sys.stderr,
         prog: str = PROG) -> int:
    """Run the command; ``prog`` is its name as the user typed it (``gradlib-scan`` or ``python -m gradlib.scan``),
    which its help and every message on stderr open with."""
    args = _parser(prog).parse_args(argv)
    try:
        out = _check_out(args.out)
        loss_name = _check_loss_flags(args)
        source = _files.source(args.data, targets=args.targets, x_key=args.x_key, y_key=args.y_key, target=args.target,
                               x_columns=args.x_columns, max_bytes=_check_max_data(args.max_data_gb))
        config = _check_tf_config(os.environ.get("TF_CONFIG")) if args.strategy == "multiworker" else None
        strategy = _strategy(args.strategy, args.cpu_devices)   # the first TensorFlow work: after every file check
        model = _call_user(args.model, "--model", strategy)
        source = _files.match_inputs(source, _input_names(model))
        _check_examples_fit(source, model)
        classes = _classes(model) if loss_name == "sparse_categorical_crossentropy" else None
        if classes is not None:
            _files.check_labels(source, classes)
        loss = _loss(loss_name, args.from_logits, strategy, _float64(model, 'outputs'))
        result = _scan(model, source, loss, args, strategy, stderr, classes)
    except GradlibError as exc:
        stderr.write(f"{prog}: error: {exc}\n")
        return 2
    except KeyboardInterrupt:
        stderr.write(f"{prog}: interrupted\n")
        return 130
    except Exception as exc:   # noqa: BLE001 - not a traceback: what failed, and its message
        stderr.write(f"{prog}: failed: {type(exc).__name__}: {error_gist(exc)}\n")
        return 1
    if config is not None and not _is_chief(config):
        stdout.write(f"scanned {len(result):,} examples; the chief writes {str(out)!r}\n")
        return 0
    try:
        result.to_parquet(out) if out.suffix == ".parquet" else result.to_csv(out)
    except (OSError, GradlibError) as exc:
        stderr.write(f"{prog}: error: could not write {str(out)!r}: {exc}\n")
        return 2
    stderr.write(_warnings(result))
    stdout.write(_summary(result, out))
    return 0


def _parser(prog: str = PROG) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0].replace("``", ""),
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="\n\n".join(__doc__.split("\n\n")[1:]).replace("``", ""))
    p.add_argument("--model", required=True, metavar="MODULE:FUNCTION",
                   help="your function that returns a built Keras model, e.g. mymodels:classifier")
    p.add_argument("--data", required=True, action="append", metavar="FILE",
                   help="examples: a .npz (x and y), a .npy (x) or a .csv; for a model with several inputs, one .npy "
                        "per input, once per input in model.inputs order: --data a.npy --data b.npy --targets y.npy")
    p.add_argument("--targets", metavar="FILE.npy", help="the targets y, when --data is a .npy of x (or several)")
    p.add_argument("--x-key", default="x", metavar="KEY[,KEY...]",
                   help="the array of x in a .npz (default: x); for a model with several inputs one array per input, "
                        "comma-separated, in model.inputs order or by input name: --x-key a,b")
    p.add_argument("--y-key", default="y", help="the array of y in a .npz (default: y)")
    p.add_argument("--target", help="the CSV column of y (default: the last); the other columns are x")
    p.add_argument("--x-columns", action="append", metavar="COL[,COL...]",
                   help="for a model with several inputs, one input's CSV columns; once per input, in model.inputs "
                        "order: --x-columns a,b --x-columns c")
    p.add_argument("--loss", required=True, metavar="NAME|MODULE:FUNCTION",
                   help=f"one of {', '.join(LOSSES)}, or your loss: a Keras loss, or (y_true, y_pred) -> (B,)")
    p.add_argument("--from-logits", action="store_true", help="the model outputs logits (cross-entropy losses)")
    p.add_argument("--batch-size", type=int, default=256, help="the global batch (default: 256)")
    p.add_argument("--strategy", choices=("none", "mirrored", "multiworker"), default="none",
                   help="tf.distribute: one device, MirroredStrategy (local devices) or MultiWorkerMirroredStrategy "
                        "(TF_CONFIG)")
    p.add_argument("--cpu-devices", type=int, default=0, metavar="N",
                   help="split the CPU into N logical devices for --strategy mirrored (to try it on one machine)")
    p.add_argument("--max-data-gb", type=float, default=_files.MAX_DATA_BYTES / 2**30, metavar="G",
                   help=f"the most x and y of a .npz or .npy may take in memory, in GiB (default: "
                        f"{_files.MAX_DATA_BYTES / 2**30:g}); a CSV is streamed, its columns at most "
                        f"{_files.MAX_COLUMNS:,}")
    p.add_argument("--out", required=True, metavar="FILE", help="where the results go: .csv or .parquet")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    return p


def _scan(model: Any, source: _files.Source, loss: Any, args: argparse.Namespace, strategy: Any, stderr: TextIO,
          classes: int | None) -> Any:
    from .._perexample._scan import scan

    progress = None if args.quiet else Progress(stderr)
    try:
        data = _files.dataset(source, classes, _float64(model, "inputs"))
        result = scan(model, data, loss=loss, batch_size=args.batch_size, strategy=strategy, progress=progress)
    except GradlibError:
        _files.check_records(source, classes)   # a CSV's bad record stops the stream: say which row and column
        raise
    if progress is not None:
        progress.finish(len(result))
    return result


def _strategy(name: str, cpu_devices: int) -> Any:
    import tensorflow as tf

    if cpu_devices:
        cpu = tf.config.list_physical_devices("CPU")[0]
        try:
            tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * cpu_devices)
        except RuntimeError as exc:   # TensorFlow's devices already started (main() called in a running program)
            raise GradlibError(f"--cpu-devices must be set before TensorFlow starts its devices: {exc}") from None
    if name == "mirrored":
        devices = [d.name for d in tf.config.list_logical_devices("CPU")] if cpu_devices else None
        return tf.distribute.MirroredStrategy(devices)
    if name == "multiworker":
        return tf.distribute.MultiWorkerMirroredStrategy()
    return tf.distribute.get_strategy()


def _call_user(spec: str, flag: str, strategy: Any) -> Any:
    """Import ``module:function`` (the user's own code) and call it with no arguments in the strategy's scope."""
    function = _import(spec, flag)
    try:
        with strategy.scope():
            return function()
    except Exception as exc:   # noqa: BLE001 - the user's function failed: say which and why, without a traceback
        raise GradlibError(f"{flag} {spec!r} raised {type(exc).__name__}: {exc}") from None


def _import(spec: str, flag: str) -> Any:
    if not _SPEC.match(spec):
        raise GradlibError(f"{flag} {spec!r} must be package.module:function, e.g. mymodels:classifier")
    module_name, attribute = spec.split(":")
    _current_directory_importable()
    try:
        target: Any = importlib.import_module(module_name)
    except ImportError as exc:
        raise GradlibError(f"{flag}: could not import {module_name!r} ({exc}); run from the directory that holds it "
                           "or add that directory to PYTHONPATH") from None
    except Exception as exc:   # noqa: BLE001 - the user's module failed while importing
        raise GradlibError(f"{flag}: importing {module_name!r} raised {type(exc).__name__}: {exc}") from None
    for part in attribute.split("."):
        if not hasattr(target, part):
            raise GradlibError(f"{flag}: {module_name!r} has no {attribute!r}")
        target = getattr(target, part)
    if not callable(target):
        raise GradlibError(f"{flag}: {spec!r} is a {type(target).__name__}, not a function")
    return target


def _current_directory_importable() -> None:
    """Put the current directory first on ``sys.path``, as ``python -m`` does (and uvicorn, gunicorn).

    The ``gradlib-scan`` console script starts with its own folder (the environment's ``bin``) on ``sys.path``,
    not the current directory, so ``--model mymodels:build`` run beside ``mymodels.py`` would not be found.
    """
    here = os.getcwd()
    if not any(os.path.abspath(entry or os.curdir) == here for entry in sys.path):
        sys.path.insert(0, here)


def _loss(name: str, from_logits: bool, strategy: Any, wide: bool = False) -> Any:
    """The loss of ``--loss``: a named one computes in float64 for a float64 model (``wide``: a Keras loss computes
    in floatx otherwise, and a float64 model's losses came out float32, 1.7e-6 off a float64 loop)."""
    import keras

    if name in LOSSES:
        cls, options = getattr(keras.losses, LOSSES[name][0]), {"dtype": "float64"} if wide else {}
        return cls(from_logits=from_logits, **options) if LOSSES[name][1] else cls(**options)
    loss = _import(name, "--loss")
    if isinstance(loss, type) and issubclass(loss, keras.losses.Loss):
        return _call_user(name, "--loss", strategy)
    return loss


def _check_loss_flags(args: argparse.Namespace) -> str:
    name = args.loss
    if name not in LOSSES and ":" not in name:
        raise GradlibError(f"--loss {name!r} is not one of {', '.join(LOSSES)}; or give your own as module:function")
    if args.from_logits and not (name in LOSSES and LOSSES[name][1]):
        raise GradlibError(f"--from-logits applies to the cross-entropy losses, not to {name!r}")
    if args.batch_size < 1:
        raise GradlibError(f"--batch-size must be a positive integer, got {args.batch_size}")
    if args.cpu_devices and (args.strategy != "mirrored" or not 1 <= args.cpu_devices <= 64):
        raise GradlibError("--cpu-devices N (1 to 64) splits the CPU for --strategy mirrored; "
                           f"got {args.cpu_devices} with --strategy {args.strategy}")
    return name


def _check_out(value: str) -> Path:
    out = Path(value)
    if out.suffix.lower() not in (".csv", ".parquet"):
        raise GradlibError(f"--out {value!r} must end in .csv or .parquet")
    if not out.parent.is_dir():
        raise GradlibError(f"--out {value!r}: the directory {str(out.parent)!r} does not exist")
    if out.suffix.lower() == ".parquet":
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise GradlibError("--out .parquet needs pyarrow (pip install pyarrow); or write .csv") from None
    return out


def _check_tf_config(text: str | None) -> dict:
    """``TF_CONFIG`` for ``--strategy multiworker``: JSON with ``cluster.worker`` and this process's ``task``."""
    example = ('TF_CONFIG=\'{"cluster": {"worker": ["host1:12345", "host2:12345"]}, '
               '"task": {"type": "worker", "index": 0}}\'')
    if not text:
        raise GradlibError(f"--strategy multiworker reads the cluster from TF_CONFIG, which is not set; e.g. {example}")
    try:
        config = json.loads(text)
        workers, task = config["cluster"]["worker"], config["task"]
        ok = isinstance(workers, list) and task["type"] in config["cluster"] and int(task["index"]) >= 0
    except (ValueError, KeyError, TypeError):
        ok = False
    if not ok:
        raise GradlibError(f"TF_CONFIG {text[:200]!r} is not a cluster description; e.g. {example}")
    return config


def _is_chief(config: dict) -> bool:
    task = config["task"]
    if "chief" in config["cluster"]:
        return task["type"] == "chief"
    return task["type"] == "worker" and int(task["index"]) == 0


def _check_max_data(gigabytes: float) -> int:
    if not 0 < gigabytes < float("inf"):
        raise GradlibError(f"--max-data-gb must be a positive number of GiB, got {gigabytes!r}")
    return int(gigabytes * 2**30)


def _check_examples_fit(source: _files.Source, model: Any) -> None:
    """Each example's shape (a row of each x, or the CSV's feature columns) against the model's inputs."""
    inputs = getattr(model, "inputs", None)
    if not inputs or any(t.shape is None for t in inputs):
        return   # no inputs declared: the first batch tells
    if source.arrays is None:
        if len(inputs) == 1 and not source.groups:
            _check_fit(f"{source.path.name!r} has {len(source.columns):,} feature columns (all but "
                       f"{source.target!r}), shape", (len(source.columns),), inputs[0])
        for i, (t, group) in enumerate(zip(inputs, source.groups)):
            _check_fit(f"--x-columns {','.join(group)!r} gives examples of shape", (len(group),), t,
                       f"'s input #{i} ({t.name!r})")
        return
    x = source.arrays[0]
    if len(inputs) == 1:
        _check_fit(f"{source.path.name!r}: x holds examples of shape", x.shape[1:], inputs[0])
        return
    if source.x_files:
        for i, (t, path) in enumerate(zip(inputs, source.x_files)):
            _check_fit(f"--data {path.name!r} holds examples of shape", x[i].shape[1:], t,
                       f"'s input #{i} ({t.name!r})")
        return
    for i, (t, key) in enumerate(zip(inputs, source.x_keys)):
        array, key = (x[t.name], t.name) if isinstance(x, dict) else (x[i], key)
        _check_fit(f"{source.path.name!r}: {key} holds examples of shape", array.shape[1:], t,
                   f"'s input #{i} ({t.name!r})")


def _check_fit(what: str, shape: tuple, tensor: Any, which: str = "") -> None:
    shape, takes = tuple(shape), tuple(tensor.shape)[1:]
    if len(shape) != len(takes) or any(t is not None and t != s for s, t in zip(shape, takes)):
        raise GradlibError(f"{what} {shape}, but the model{which} takes examples of shape {takes}; "
                           "give data that fits the model (or a model that fits the data)")


def _input_names(model: Any) -> list[str] | None:
    """The names of the model's inputs in ``model.inputs`` order, or ``None`` when it declares none."""
    try:
        inputs = model.inputs
    except (AttributeError, ValueError):   # a subclassed model not yet called
        return None
    return [str(t.name) for t in inputs] if inputs else None


def _float64(model: Any, which: str) -> bool:
    """Whether the model declares float64 ``inputs`` (or ``outputs``): all of its outputs, any of its inputs."""
    tensors = getattr(model, which, None) or []
    kinds = [str(getattr(t, "dtype", "")) == "float64" for t in tensors]
    return bool(kinds) and (any(kinds) if which == "inputs" else all(kinds))


def _classes(model: Any) -> int | None:
    """The number of classes of a one-output classifier (its last axis), or ``None`` when the model does not say."""
    outputs = getattr(model, "outputs", None)
    if not outputs or len(outputs) != 1 or not outputs[0].shape or outputs[0].shape[-1] is None:
        return None
    return int(outputs[0].shape[-1])


def _warnings(result: Any) -> str:
    """Lines for stderr, with counts, when some losses or norms are not numbers (the results file holds them)."""
    lines = []
    for name, values in (("a loss", result.losses), ("a gradient norm", result.norms)):
        bad = ~np.isfinite(values)
        if bad.any():
            lines.append(f"warning: {int(bad.sum()):,} of {len(values):,} example(s) have {name} that is not finite "
                         f"(NaN or infinity), the first #{int(np.argmax(bad))}; look for non-finite inputs or "
                         "targets, or a loss outside its domain\n")
    return "".join(lines)


def _summary(result: Any, out: Path) -> str:
    finite = np.flatnonzero(np.isfinite(result.norms))
    order = finite[result.norms[finite].argsort()[::-1][:5]]
    top = ", ".join(f"#{i} ({result.norms[i]:.4g})" for i in order)
    return (f"scanned {len(result):,} examples in {result.seconds:.1f} s on {result.replicas} replica(s) "
            f"(method {result.method}); mean loss {result.losses.mean():.4g}; largest norms: {top}\n"
            f"wrote {str(out)!r}\n")
