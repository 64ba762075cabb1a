"""Data sets from files for ``python -m gradlib.scan``: ``.npz``, ``.npy`` pairs, and CSV streamed by tf.data.

The files are checked with NumPy and the ``csv`` module first (``check_*``: no TensorFlow op runs, so a
multi-worker strategy can still be created after them); ``dataset`` then opens them. ``.npz`` and ``.npy``
arrays are loaded into memory (``.npy`` memory-mapped until ``tf.data`` copies it); a CSV file is read as it
goes (``tf.data.experimental.CsvDataset``), so its size is not bounded by memory.

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "d.csv"
>>> _ = path.write_text("a,b,label\\n1,2,0\\n3,4,1\\n")
>>> source = check_csv(path, target=None)
>>> source.columns, source.target
(('a', 'b'), 'label')
>>> [(x.numpy().tolist(), float(y)) for x, y in dataset(source)]
[([1.0, 2.0], 0.0), ([3.0, 4.0], 1.0)]
"""

from __future__ import annotations

import csv
import os
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .._errors import GradlibError, InputError

__all__ = ["Source", "check_csv", "check_npy", "check_npz", "dataset", "source"]

#: the suffixes the command reads
SUFFIXES = (".npz", ".npy", ".csv")


@dataclass(frozen=True)
class Source:
    """Where the examples come from: arrays already loaded, or a CSV file and its feature and target columns."""

    path: Path
    arrays: tuple[np.ndarray, np.ndarray] | None = None
    columns: tuple[str, ...] = ()
    target: str = ""

    @property
    def examples(self) -> int | None:
        return int(self.arrays[0].shape[0]) if self.arrays is not None else None


def source(data: Any, *, targets: Any = None, x_key: str = "x", y_key: str = "y", target: str | None = None) -> Source:
    """Check the files named on the command line; raise ``InputError`` (a bad file) or ``GradlibError`` (flags)."""
    path = _check_file(data, "--data")
    suffix = path.suffix.lower()
    if suffix != ".npy" and targets is not None:
        raise GradlibError(f"--targets is for .npy data (x and y in two files); {path.name!r} holds its targets itself")
    if suffix != ".csv" and target is not None:
        raise GradlibError(f"--target names a CSV column; {path.name!r} is not a CSV file (use --y-key for .npz)")
    if suffix == ".npz":
        return check_npz(path, x_key, y_key)
    if suffix == ".npy":
        if targets is None:
            raise GradlibError(f"{path.name!r} holds only x: give the targets as a second .npy file with --targets y.npy")
        return check_npy(path, _check_file(targets, "--targets"))
    if suffix == ".csv":
        return check_csv(path, target)
    raise InputError(f"--data {str(path)!r}: the file must end in one of {', '.join(SUFFIXES)}")


def check_npz(path: Path, x_key: str, y_key: str) -> Source:
    if _head(path, 4) != b"PK\x03\x04":
        raise InputError(f"{str(path)!r} is not a .npz archive (the zip of arrays that np.savez writes)")
    try:
        with np.load(path, allow_pickle=False) as archive:
            names = list(archive.files)
            arrays = tuple(archive[k] for k in (x_key, y_key) if k in names)
    except (OSError, ValueError, zipfile.BadZipFile) as exc:
        raise InputError(f"could not read {str(path)!r} as a .npz file: {exc}") from None
    missing = [k for k in (x_key, y_key) if k not in names]
    if missing:
        raise InputError(f"{path.name!r} has no array {missing[0]!r} (it has {', '.join(names) or 'none'}); "
                         "name the arrays with --x-key and --y-key")
    return Source(path, arrays=_check_pair(path, *arrays))


def check_npy(path: Path, targets: Path) -> Source:
    arrays = []
    for p in (path, targets):
        if _head(p, 6) != b"\x93NUMPY":
            raise InputError(f"{str(p)!r} is not a .npy file (the format np.save writes)")
        try:
            arrays.append(np.load(p, mmap_mode="r", allow_pickle=False))
        except (OSError, ValueError) as exc:
            raise InputError(f"could not read {str(p)!r} as a .npy file: {exc}") from None
    return Source(path, arrays=_check_pair(path, *arrays))


def check_csv(path: Path, target: str | None) -> Source:
    """The header (column names, required) and the first record (it must have one field per column)."""
    try:
        with open(path, newline="") as f:
            rows = csv.reader(f)
            header, first = next(rows, None), next(rows, None)
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise InputError(f"could not read {str(path)!r} as a CSV file: {exc}") from None
    if not header or first is None:
        raise InputError(f"{str(path)!r} needs a header row of column names and at least one record")
    if len(first) != len(header):
        raise InputError(f"{str(path)!r}: the first record has {len(first)} fields but the header names {len(header)} "
                         "columns")
    target = header[-1] if target is None else target
    if target not in header or len(header) < 2:
        raise GradlibError(f"--target {target!r} is not a column of {str(path)!r} (its columns: {', '.join(header)})")
    _check_numbers(path, header, first)
    return Source(path, columns=tuple(c for c in header if c != target), target=target)


def dataset(source: Source) -> Any:
    """The examples as the engine takes them: the arrays, or a ``tf.data`` data set of ``(features, target)``."""
    if source.arrays is not None:
        return source.arrays
    import tensorflow as tf   # only now: a multi-worker strategy must exist before the first TensorFlow op

    with open(source.path, newline="") as f:
        header = next(csv.reader(f))
    features, target = [header.index(c) for c in source.columns], header.index(source.target)
    records = tf.data.experimental.CsvDataset(str(source.path), [tf.float32] * len(header), header=True)
    return records.map(lambda *fields: (tf.stack([fields[i] for i in features]), fields[target]))


def _check_file(value: Any, flag: str) -> Path:
    path = Path(os.fspath(value))
    if not path.is_file():
        raise InputError(f"{flag} {str(path)!r}: no such file")
    return path


def _head(path: Path, n: int) -> bytes:
    """The first bytes of a file (its format's magic number)."""
    try:
        with open(path, "rb") as f:
            return f.read(n)
    except OSError as exc:
        raise InputError(f"could not read {str(path)!r}: {exc.strerror or exc}") from None


def _check_pair(path: Path, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    for name, a in (("x", x), ("y", y)):
        if a.ndim == 0 or not (np.issubdtype(a.dtype, np.number) or a.dtype == bool):
            raise InputError(f"{path.name!r}: {name} must be an array of numbers with the examples along the first axis, "
                             f"got shape {a.shape} of {a.dtype}")
    if x.shape[0] != y.shape[0]:
        raise InputError(f"{path.name!r}: x has {x.shape[0]:,} examples but y has {y.shape[0]:,} targets")
    return x, y


def _check_numbers(path: Path, header: list[str], record: list[str]) -> None:
    for name, field in zip(header, record):
        try:
            float(field)
        except ValueError:
            raise InputError(f"{str(path)!r}: column {name!r} of the first record is {field!r}, not a number; "
                             "every column must be numeric (encode labels as numbers)") from None
