"""Uploaded input data for the Models page: a numeric CSV or a ``.npy`` array, parsed as numbers only.

No model file is ever loaded from a user (``keras.models.load_model`` has had ``safe_mode`` bypasses): the
models are built in code (``gradlib.keras_models``). An upload is *data*: a CSV is parsed as numbers only,
a ``.npy`` file with ``np.load(..., allow_pickle=False)`` after its header is checked. Every refusal says
what is wrong and where (the row and column, or the index) and what to do.

>>> load_batch(b"a,b,c\\n1,2,3\\n4,5,6\\n", "x.csv", expected_features=3).tolist()
[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
"""

from __future__ import annotations

import csv
import io
import math

import numpy as np

from gradlib import InputError
from gradlib.keras_models import MAX_BATCH

__all__ = ["MAX_UPLOAD_BYTES", "load_batch"]

MAX_UPLOAD_BYTES = 2_000_000


def load_batch(data: bytes, filename: str, *, expected_features: int, sample_shape: tuple[int, ...] | None = None,
               max_bytes: int = MAX_UPLOAD_BYTES, max_rows: int = MAX_BATCH) -> np.ndarray:
    """Parse an uploaded batch: a numeric CSV (one sample per row, header optional) or a ``.npy`` array.

    Args:
        data: the file's bytes.
        filename: its name; the extension (``.csv`` or ``.npy``) decides the parser.
        expected_features: the number of input elements of one sample (a CSV row's length).
        sample_shape: the shape of one sample, if not ``(expected_features,)``; the batch is reshaped to it.
        max_bytes: larger files are refused before parsing.
        max_rows: at most this many samples.

    Returns:
        A float32 array of shape ``(B,) + sample_shape``.

    Raises:
        InputError: the file is too large, empty, not numeric, ragged, non-finite or of the wrong shape.
    """
    shape = tuple(sample_shape) if sample_shape is not None else (expected_features,)
    _check_upload(data, filename, max_bytes)
    if filename.lower().endswith(".npy"):
        x = _load_npy(data, shape, expected_features)
    else:
        x = _load_csv(data, expected_features).reshape((-1,) + shape)
    if x.shape[0] > max_rows:
        raise InputError(f"the file holds {x.shape[0]:,} samples; at most {max_rows:,} are accepted")
    return x


def _check_upload(data: bytes, filename: str, max_bytes: int) -> None:
    if not filename.lower().endswith((".csv", ".npy")):
        raise InputError(f"upload a .csv or .npy file of input data; got {filename!r} "
                              "(model files are never loaded: the models are built in code)")
    if len(data) > max_bytes:
        raise InputError(f"the file is {len(data) / 1e6:.1f} MB; at most {max_bytes / 1e6:.1f} MB are accepted")
    if not data.strip():
        raise InputError(f"the file {filename!r} is empty")


def _load_csv(data: bytes, features: int) -> np.ndarray:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"the CSV is not UTF-8 text (byte {exc.start}); save it as a plain CSV") from None
    rows = _csv_rows(text)
    if rows and _is_header(rows[0][1]):
        rows = rows[1:]
    if not rows:
        raise InputError("the CSV has no data rows: put one sample per row, numbers separated by commas")
    width = len(rows[0][1])
    if width != features:
        hint = " separated by commas" if any(";" in c or "\t" in c for c in rows[0][1]) else ""
        raise InputError(f"the CSV has {width} column(s) per row, but the model takes {features} input "
                              f"value(s) per sample: put one sample per row with {features} numbers{hint}")
    values = np.array([_parse_row(n, row, width) for n, row in rows])
    bad = _overflowing(values)
    if len(bad):
        (r, c), more = bad[0], f" ({len(bad) - 1} more value(s) too)" if len(bad) > 1 else ""
        raise InputError(f"row {rows[r][0]}, column {c + 1}: {rows[r][1][c].strip()[:20]!r} is outside float32's "
                              f"range (about ±3.4e38), in which the models compute: it would become infinite{more}. "
                              "Scale the data down")
    return values.astype(np.float32)


def _csv_rows(text: str) -> list[tuple[int, list[str]]]:
    """The non-blank rows of a CSV with their 1-based line numbers; a field too long for the reader is refused."""
    reader = csv.reader(io.StringIO(text))
    try:
        return [(n, row) for n, row in enumerate(reader, start=1) if any(c.strip() for c in row)]
    except csv.Error as exc:
        why = (f"a field is longer than {csv.field_size_limit():,} characters" if "field limit" in str(exc)
               else f"it is not a valid CSV ({exc})")
        raise InputError(f"the CSV cannot be read at line {reader.line_num}: {why}. Put one number per field, "
                              "separated by commas, one sample per line") from None


def _overflowing(values: np.ndarray) -> np.ndarray:
    """Indices of the finite values that float32 cannot hold (they would become inf): checked after the cast."""
    with np.errstate(over="ignore"):
        narrow = values.astype(np.float32)
    return np.argwhere(np.isfinite(values) & ~np.isfinite(narrow))


def _parse_row(n: int, row: list[str], width: int) -> list[float]:
    if len(row) != width:
        raise InputError(f"the CSV is ragged: row {n} has {len(row)} value(s), but the first row has {width}")
    values = []
    for col, cell in enumerate(row, start=1):
        if not _is_number(cell):
            hint = " (separate values with commas)" if (";" in cell or "\t" in cell) else ""
            raise InputError(f"row {n}, column {col}: {cell.strip()[:20]!r} is not a number{hint}")
        value = float(cell)
        if not math.isfinite(value):
            raise InputError(f"row {n}, column {col}: {cell.strip()!r} is not a finite number; "
                                  "replace NaN and infinite values")
        values.append(value)
    return values


def _is_header(row: list[str]) -> bool:
    """A header row holds names: no cell is a number and some cell has a letter."""
    return not any(_is_number(c) for c in row) and any(ch.isalpha() for c in row for ch in c)


def _is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return "_" not in cell   # float() accepts "1_000"; a CSV should not


def _load_npy(data: bytes, shape: tuple[int, ...], features: int) -> np.ndarray:
    stream = io.BytesIO(data)
    try:
        version = np.lib.format.read_magic(stream)
        header = (np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0)
        stored, _, dtype = header(stream)
    except (ValueError, TypeError, SyntaxError) as exc:
        raise InputError(f"the file is not a valid .npy array ({exc})") from None
    _check_npy_header(stored, dtype, len(data))
    try:
        x = np.load(io.BytesIO(data), allow_pickle=False)
    except ValueError as exc:
        raise InputError(f"the .npy file could not be read: {exc}") from None
    return _check_npy_array(x, shape, features)


def _check_npy_header(stored: tuple[int, ...], dtype: np.dtype, size: int) -> None:
    """Refuse objects (pickles) and arrays larger than the file before anything is allocated."""
    if dtype.hasobject or dtype.kind not in "fiu":
        raise InputError(f"the .npy array has dtype {dtype}; only real numbers are accepted "
                              "(Python objects and pickles are never loaded)")
    if math.prod(stored) * dtype.itemsize > size:
        raise InputError(f"the .npy header claims shape {stored}, larger than the file itself")


def _check_npy_array(x: np.ndarray, shape: tuple[int, ...], features: int) -> np.ndarray:
    if x.shape == shape:
        x = x[None]   # a single sample
    elif x.ndim == 2 and x.shape[1] == features and x.shape[0] > 0:
        x = x.reshape((-1,) + shape)
    elif x.shape[1:] != shape or x.shape[0] == 0:
        raise InputError(f"the .npy array has shape {x.shape}, but the model takes samples of shape {shape}: "
                              f"save an array of shape (batch,) + {shape}")
    bad = np.argwhere(~np.isfinite(x))
    if len(bad):
        raise InputError(f"the .npy array holds a NaN or infinite value at index {tuple(int(i) for i in bad[0])}; "
                              "replace NaN and infinite values")
    over = _overflowing(x)
    if len(over):
        index = tuple(int(i) for i in over[0])
        more = f" ({len(over) - 1} more value(s) too)" if len(over) > 1 else ""
        raise InputError(f"the .npy array holds {float(x[index])!r} at index {index}, outside float32's range "
                              f"(about ±3.4e38), in which the models compute: it would become infinite{more}. "
                              "Scale the data down")
    return x.astype(np.float32)

