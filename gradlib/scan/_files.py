"""Data sets from files for ``python -m gradlib.scan``: ``.npz``, ``.npy`` files, and CSV streamed by tf.data.

The files are checked with NumPy and the ``csv`` module first (``check_*``: no TensorFlow op runs, so a
multi-worker strategy can still be created after them); ``dataset`` then opens them. What a file declares is
checked before its body is read: a CSV's header (its number of columns, at most ``MAX_COLUMNS``), an array's
``.npy`` header (dtype, rank, shape), against the bytes the file (or the ``.npz`` member) really holds and
against ``MAX_DATA_BYTES``, so that a file claiming a huge shape, or a small ``.npz`` whose deflated member
inflates to gigabytes, is refused before anything is allocated. ``.npz`` and ``.npy`` arrays are then loaded
into memory (``.npy`` memory-mapped until ``tf.data`` copies it), never unpickled; a CSV file is read as it
goes (``tf.data.TextLineDataset``, blocks of lines split and parsed as one tensor), so its number of rows is not
bounded by memory. A bad cell found while streaming is located by ``check_records`` (row and column).

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
import math
import os
import zipfile
import zlib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, Any

import numpy as np

from .._foundations._errors import GradlibError, InputError

__all__ = ["MAX_COLUMNS", "MAX_DATA_BYTES", "MAX_LINE_CHARS", "Source", "check_csv", "check_labels", "check_npy",
           "check_npz", "check_records", "dataset", "match_inputs", "source"]

#: the suffixes the command reads
SUFFIXES = (".npz", ".npy", ".csv")
#: columns of a CSV file (one example's features and its target). A CSV row is parsed as one string tensor,
#: but every feature is a column of text: wider examples (images) belong in .npz. The header is counted before
#: any record is read: 200,000 columns used to run for more than 600 s and 4.8 GB before the first example.
MAX_COLUMNS = 20_000
#: characters of the header and of the first record read to check them (a line of MAX_COLUMNS numbers fits)
MAX_LINE_CHARS = 8 * 2**20
#: bytes of x and y together from a .npz or .npy, which are held in memory (``tf.data`` copies them once more);
#: ``--max-data-gb`` raises it. A CSV is streamed: its rows are not bounded, only its columns.
MAX_DATA_BYTES = 2 * 2**30
#: CSV lines parsed at once: one split and one conversion per block of lines, not per line or per cell
_CSV_LINES = 512
#: .npy header bytes read at most (NumPy's own default bound)
_MAX_HEADER = 10_000
#: what reading a damaged zip member can raise (zipfile, zlib, NumPy's reader)
_READ_ERRORS = (OSError, EOFError, ValueError, zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, RuntimeError,
                NotImplementedError, KeyError)


@dataclass(frozen=True)
class Source:
    """Where the examples come from: arrays already loaded, or a CSV file and its feature and target columns.

    ``arrays`` is ``(x, y)``: ``x`` one array, or, for a model with several inputs, a tuple of arrays (the
    ``.npz`` arrays named by ``x_keys``, in that order until ``match_inputs`` puts them in the model's; or the
    ``.npy`` files ``x_files``, one per input, in ``model.inputs`` order). A CSV file's ``groups`` are a model's
    several inputs' columns (``--x-columns``), in ``model.inputs`` order.
    """

    path: Path
    arrays: tuple[Any, np.ndarray] | None = None
    columns: tuple[str, ...] = ()
    target: str = ""
    x_keys: tuple[str, ...] = ("x",)
    groups: tuple[tuple[str, ...], ...] = ()
    x_files: tuple[Path, ...] = ()

    @property
    def examples(self) -> int | None:
        return int(self.arrays[1].shape[0]) if self.arrays is not None else None


@dataclass(frozen=True)
class _Header:
    """What a ``.npy`` header declares, and where its data starts (``offset``) and ends (``offset + nbytes``)."""

    name: str
    shape: tuple[int, ...]
    fortran_order: bool
    dtype: np.dtype
    offset: int

    @property
    def nbytes(self) -> int:
        return math.prod(self.shape) * self.dtype.itemsize   # Python integers: (10**10, 5) does not overflow


def source(data: Any, *, targets: Any = None, x_key: str = "x", y_key: str = "y", target: str | None = None,
           x_columns: Any = None, max_bytes: int = MAX_DATA_BYTES) -> Source:
    """Check the files named on the command line; raise ``InputError`` (a bad file) or ``GradlibError`` (flags).

    ``data``: one file, or (``--data`` given once per input of a model with several) a list of ``.npy`` files of x.
    """
    paths = [_check_file(d, "--data") for d in (data if isinstance(data, (list, tuple)) else [data])]
    path = paths[0]
    suffix = path.suffix.lower()
    if len(paths) > 1 and any(p.suffix.lower() != ".npy" for p in paths):
        raise GradlibError(f"--data is given {len(paths)} times ({', '.join(repr(p.name) for p in paths)}); several "
                           "--data are .npy files of x, one per model input (--data a.npy --data b.npy --targets "
                           "y.npy); a .npz names its arrays with --x-key a,b, a CSV its columns with --x-columns")
    if suffix != ".npy" and targets is not None:
        raise GradlibError(f"--targets is for .npy data (x and y in two files); {path.name!r} holds its targets itself")
    if suffix != ".csv" and target is not None:
        raise GradlibError(f"--target names a CSV column; {path.name!r} is not a CSV file (use --y-key for .npz)")
    keys = _check_x_keys(x_key, y_key)
    if suffix == ".npy" and keys != ("x",):
        raise GradlibError(f"--x-key names arrays of a .npz file; {path.name!r} is a .npy file (give one .npy file per "
                           "model input: --data a.npy --data b.npy --targets y.npy)")
    if suffix != ".npz" and keys != ("x",):
        raise GradlibError(f"--x-key names arrays of a .npz file; {path.name!r} is not one (save several inputs as "
                           "np.savez('data.npz', a=a, b=b, y=y) and give --x-key a,b)")
    if suffix != ".csv" and x_columns:
        raise GradlibError(f"--x-columns names columns of a CSV file; {path.name!r} is not one (use --x-key a,b for "
                           "the arrays of a .npz)")
    if suffix == ".npz":
        return check_npz(path, keys, y_key, max_bytes)
    if suffix == ".npy":
        if targets is None:
            raise GradlibError(f"{path.name!r} holds only x: give the targets as a second .npy file with --targets y.npy")
        return check_npy(paths, _check_file(targets, "--targets"), max_bytes)
    if suffix == ".csv":
        return check_csv(path, target, x_columns)
    raise InputError(f"--data {str(path)!r}: the file must end in one of {', '.join(SUFFIXES)}")


def check_npz(path: Path, x_key: str | tuple[str, ...], y_key: str, max_bytes: int = MAX_DATA_BYTES) -> Source:
    """Each member's ``.npy`` header, checked against its uncompressed size and the limit, before it is inflated.

    ``x_key``: the array of x, or several (a model with several inputs): the source's x is then a tuple of them.
    """
    x_keys = (x_key,) if isinstance(x_key, str) else tuple(x_key)
    keys = (*x_keys, y_key)
    if _head(path, 4) != b"PK\x03\x04":
        raise InputError(f"{str(path)!r} is not a .npz archive (the zip of arrays that np.savez writes)")
    try:
        with zipfile.ZipFile(path) as archive:
            infos = {(i.filename[:-4] if i.filename.endswith(".npy") else i.filename): i for i in archive.infolist()}
            missing = [k for k in keys if k not in infos or not infos[k].filename.endswith(".npy")]
            if missing:
                raise InputError(f"{path.name!r} has no array {missing[0]!r} (it has {', '.join(infos) or 'none'}); "
                                 "name the arrays with --x-key and --y-key")
            headers = []
            for key in keys:
                with archive.open(infos[key]) as member:
                    headers.append(_check_header(path, _read_header(member, f"{path.name!r}: {key!r}", key),
                                                 infos[key].file_size, "member"))
            _check_headers(path, headers[:-1], headers[-1], max_bytes)
            arrays = []
            for key, header in zip(keys, headers):
                with archive.open(infos[key]) as member:
                    arrays.append(_read_data(path, member, header))
    except InputError:
        raise
    except _READ_ERRORS as exc:
        raise InputError(f"could not read {str(path)!r} as a .npz file: {exc}") from None
    x = arrays[0] if len(x_keys) == 1 else tuple(arrays[:-1])
    return Source(path, arrays=(x, arrays[-1]), x_keys=x_keys)


def match_inputs(source: Source, names: list[str] | None) -> Source:
    """x's arrays matched with the model's inputs (``names`` in ``model.inputs`` order; ``None``: it declares none).

    ``--x-key a,b`` gives one array per input: by input name when its names are the inputs' names (x becomes a dict,
    as ``model.fit`` takes it), else in ``model.inputs`` order (a tuple). A name of an input given at another
    input's place is refused, never read in the wrong place.
    """
    if source.arrays is None:
        _match_groups(source, names)
        return source
    if source.x_files:
        _match_files(source, names)
        return source
    keys = source.x_keys
    if names is None or (len(keys) == 1 and len(names) == 1):
        return source
    if len(keys) != len(names):
        takes = f"{len(names)} input{'s' if len(names) > 1 else ''} ({', '.join(map(repr, names))})"
        raise GradlibError(f"--x-key {','.join(keys)!r} names {len(keys)} array(s) of {source.path.name!r}, but the "
                           f"model takes {takes}; give one array per input, in model.inputs order or by input "
                           f"name: --x-key {','.join(names)}")
    x = source.arrays[0]
    if set(keys) == set(names):
        return replace(source, arrays=(dict(zip(keys, x)), source.arrays[1]))
    for i, key in enumerate(keys):
        if key in names and names.index(key) != i:
            raise GradlibError(f"--x-key {','.join(keys)!r}: {key!r} is the name of the model's input "
                               f"#{names.index(key)} but is given for input #{i}; give the arrays in model.inputs "
                               f"order ({', '.join(map(repr, names))}), or all of them by input name")
    return source


def _match_files(source: Source, names: list[str] | None) -> None:
    """Several ``--data`` ``.npy`` files of x, one per model input, in ``model.inputs`` order."""
    files = source.x_files
    if names is None or len(files) == len(names):
        return
    takes = f"{len(names)} input{'s' if len(names) > 1 else ''} ({', '.join(map(repr, names))})"
    given = f"--data gives {len(files)} .npy file{'s' if len(files) > 1 else ''} of x"
    raise GradlibError(f"{given} ({', '.join(repr(p.name) for p in files)}), but the model takes {takes}; give one "
                       f"--data FILE.npy per input, in model.inputs order: "
                       f"{' '.join(f'--data {n}.npy' for n in names)} --targets y.npy")


def _match_groups(source: Source, names: list[str] | None) -> None:
    """A CSV file's ``--x-columns`` groups, one per model input, in ``model.inputs`` order."""
    if names is None or len(source.groups or ((),)) == len(names):
        return
    takes = f"{len(names)} input{'s' if len(names) > 1 else ''} ({', '.join(map(repr, names))})"
    if not source.groups:
        raise GradlibError(f"{source.path.name!r}: the model takes {takes}; give each input's feature columns with "
                           "--x-columns, once per input in model.inputs order: --x-columns a,b --x-columns c")
    raise GradlibError(f"--x-columns gives {len(source.groups)} group(s) of columns of {source.path.name!r}, but the "
                       f"model takes {takes}; give one --x-columns per input, in model.inputs order")


def check_npy(path: Path | list[Path], targets: Path, max_bytes: int = MAX_DATA_BYTES) -> Source:
    """Every header, checked against its file's size and the limit; then every file memory-mapped.

    ``path``: the ``.npy`` file of x, or several (one per input of a model with several, in ``model.inputs``
    order): the source's x is then a tuple of them.
    """
    paths = [path] if isinstance(path, Path) else list(path)
    headers = [_npy_header(p, "x") for p in paths]
    y = _npy_header(targets, "y")
    for p, x in zip(paths[1:], headers[1:]):
        if x.shape[0] != headers[0].shape[0]:
            raise InputError(f"--data {p.name!r} has {x.shape[0]:,} examples but --data {paths[0].name!r} has "
                             f"{headers[0].shape[0]:,}; give every input's examples in the same order, one row each")
    if len(paths) > 1:   # the arrays are files: each is named by its file
        headers = [replace(h, name=repr(p.name)) for p, h in zip(paths, headers)]
        y = replace(y, name=repr(targets.name))
    _check_headers(paths[0] if len(paths) == 1 else None, headers, y, max_bytes)
    arrays = []
    for p in (*paths, targets):
        try:
            arrays.append(np.load(p, mmap_mode="r", allow_pickle=False))
        except (OSError, ValueError) as exc:
            raise InputError(f"could not read {str(p)!r} as a .npy file: {exc}") from None
    x = arrays[0] if len(paths) == 1 else tuple(arrays[:-1])
    return Source(paths[0], arrays=(x, arrays[-1]), x_files=tuple(paths))


def _npy_header(path: Path, name: str) -> _Header:
    if _head(path, 6) != b"\x93NUMPY":
        raise InputError(f"{str(path)!r} is not a .npy file (the format np.save writes)")
    try:
        with open(path, "rb") as f:
            return _check_header(path, _read_header(f, repr(str(path)), name), os.fstat(f.fileno()).st_size, "file")
    except OSError as exc:
        raise InputError(f"could not read {str(path)!r}: {exc.strerror or exc}") from None


def check_csv(path: Path, target: str | None, x_columns: Any = None) -> Source:
    """The header (column names, required, at most ``MAX_COLUMNS``) and the first record (one number per column).

    ``x_columns``: for a model with several inputs, each input's columns (``["a,b", "c,d,e"]``, in ``model.inputs``
    order); by default every column but the target is one input's.
    """
    try:
        with open(path, newline="", encoding="utf-8-sig") as f:
            header = _line(f, path, "header")
            if len(header) > MAX_COLUMNS:
                raise InputError(f"{str(path)!r} has {len(header):,} columns, more than the limit of {MAX_COLUMNS:,}; "
                                 "save wide examples as arrays instead (np.savez('data.npz', x=x, y=y))")
            first = _line(f, path, "first record")
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise InputError(f"could not read {str(path)!r} as a CSV file: {exc}") from None
    if not header or not first:
        raise InputError(f"{str(path)!r} needs a header row of column names and at least one record")
    if len(first) != len(header):
        raise InputError(f"{str(path)!r}: the first record has {len(first)} fields but the header names {len(header)} "
                         "columns")
    target = header[-1] if target is None else target
    if target not in header or len(header) < 2:
        raise GradlibError(f"--target {target!r} is not a column of {str(path)!r} (its columns: {', '.join(header)})")
    _check_numbers(path, header, first)
    if x_columns:
        groups = _check_groups(path, header, target, x_columns)
        return Source(path, columns=tuple(c for group in groups for c in group), target=target, groups=groups)
    return Source(path, columns=tuple(c for c in header if c != target), target=target)


def _check_groups(path: Path, header: list[str], target: str, x_columns: Any) -> tuple[tuple[str, ...], ...]:
    """``--x-columns a,b --x-columns c``: each input's columns, every one a feature column of the file, used once."""
    groups = tuple(tuple(c.strip() for c in str(value).split(",")) for value in x_columns)
    seen: set[str] = set()
    for value, group in zip(x_columns, groups):
        for column in group:
            if column == target:
                why = f"names {target!r}, the target (--target)"
            elif column not in header:
                why = f"names {column!r}, which is not a column of {str(path)!r} (its columns: {', '.join(header)})"
            elif column in seen:
                why = f"names {column!r} again (each column is one input's feature)"
            else:
                seen.add(column)
                continue
            raise GradlibError(f"--x-columns {value!r} {why}; give each input's feature columns once, separated by "
                               "commas: --x-columns a,b --x-columns c")
    return groups


def check_records(source: Source, classes: int | None = None) -> None:
    """Read a CSV source's every record in Python and raise ``InputError`` at the first bad one (row, column).

    Called when streaming it failed, to say where: a record whose number of fields is not the header's, a cell
    that is not a number, or, with ``classes``, a target that is not a class index ``0 .. classes - 1``.
    Returns when every record is good (the failure was elsewhere).
    """
    if source.arrays is not None:
        return
    try:
        with open(source.path, newline="", encoding="utf-8-sig") as f:
            rows = csv.reader(f)
            header = next(rows)
            target = header.index(source.target)
            for row in rows:
                if not row or (len(row) == 1 and not row[0].strip()):
                    continue                                   # a blank line: the stream skips it too
                where = f"{str(source.path)!r}, line {rows.line_num}"
                if len(row) != len(header):
                    raise InputError(f"{where} has {len(row):,} fields but the header names {len(header):,} columns")
                for name, field in zip(header, row):
                    if not _is_number(field):
                        raise InputError(f"{where}, column {name!r}: {field[:40]!r} is not a number; every column "
                                         "must be numeric (encode labels as numbers)")
                if classes is not None:
                    _check_label(float(row[target]), classes, f"{where}, column {source.target!r}")
    except (OSError, UnicodeDecodeError, csv.Error, StopIteration) as exc:
        raise InputError(f"could not read {str(source.path)!r} as a CSV file: {exc}") from None


def check_labels(source: Source, classes: int) -> None:
    """Sparse labels are class indices: refuse a target that is not a whole number in ``0 .. classes - 1``.

    Keras' sparse cross-entropy casts its labels to integers, so ``1.7`` would silently count as class 1: a
    wrong loss, worse than an error. Only arrays are checked here; a CSV's targets are checked as they stream
    (``dataset(..., classes=)``) and located by ``check_records``.
    """
    if source.arrays is None:
        return
    y = np.asarray(source.arrays[1])
    if y.ndim != 1 and not (y.ndim == 2 and y.shape[1] == 1):
        raise InputError(f"{source.path.name!r}: y has shape {y.shape}, but sparse_categorical_crossentropy takes one "
                         "class index per example (shape (examples,)); for one-hot targets use "
                         "categorical_crossentropy")
    y = y.reshape(-1)
    if np.issubdtype(y.dtype, np.integer) or y.dtype == bool:
        bad = (y < 0) | (y >= classes)
    else:
        with np.errstate(invalid="ignore"):
            bad = ~np.isfinite(y) | (y != np.floor(y)) | (y < 0) | (y >= classes)
    if bad.any():
        first = int(np.argmax(bad))
        count = int(bad.sum())
        _check_label(float(y[first]), classes, f"{source.path.name!r}: y[{first}]",
                     f" ({count:,} of {len(y):,} targets are not class indices)")


def dataset(source: Source, classes: int | None = None, wide: bool = False) -> Any:
    """The examples as the engine takes them: the arrays, or a ``tf.data`` data set of ``(features, target)``.

    A CSV file is read in blocks of lines, each split and parsed as one tensor (``tf.strings``): a few ops per
    block, not one per cell (``CsvDataset`` took 8 us a cell), so a wide file costs what its text costs. A line with the wrong number of fields, a cell that is not a number, or
    (with ``classes``) a target that is not a class index stops the stream with an error; ``check_records``
    then says where. Cells are parsed as float32, as float64 for a model of float64 inputs (``wide``: a float64
    model read a CSV's 17 digits as float32's 7, its losses 6.6e-8 off the float64 loop's).
    """
    if source.arrays is not None:
        return source.arrays
    import tensorflow as tf   # only now: a multi-worker strategy must exist before the first TensorFlow op

    with open(source.path, newline="", encoding="utf-8-sig") as f:
        header = next(csv.reader(f))
    width, target = len(header), header.index(source.target)
    features = [tf.constant([header.index(c) for c in group], tf.int32) for group in source.groups or (source.columns,)]
    number = tf.float64 if wide else tf.float32

    def parse(lines: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
        lines = tf.boolean_mask(lines, tf.strings.length(tf.strings.strip(lines)) > 0)   # blank lines: none
        fields = tf.strings.split(tf.strings.regex_replace(lines, '"', ""), ",")
        checks = [tf.debugging.assert_equal(fields.row_lengths(), tf.constant(width, tf.int64),
                                            message="a CSV record does not have one field per column")]
        with tf.control_dependencies(checks):   # before the reshape, which would otherwise mix records up
            values = tf.reshape(tf.strings.to_number(fields.flat_values, number), [-1, width])
        y = values[:, target]
        if classes is not None:
            index = (y == tf.math.floor(y)) & (y >= 0) & (y < classes)
            checks.append(tf.debugging.assert_equal(tf.reduce_all(index), True, message="a target is not a class index"))
        with tf.control_dependencies(checks):
            x = tuple(tf.gather(values, f, axis=1) for f in features)
            return (x if len(x) > 1 else x[0]), tf.identity(y)

    lines = tf.data.TextLineDataset(str(source.path)).skip(1)
    return lines.batch(_CSV_LINES).map(parse).unbatch()


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


def _read_header(f: IO[bytes], where: str, name: str) -> _Header:
    """The ``.npy`` header at the start of ``f`` (a file or a zip member's stream); nothing after it is read."""
    try:
        version = np.lib.format.read_magic(f)
        if version == (1, 0):
            shape, fortran_order, dtype = np.lib.format.read_array_header_1_0(f, max_header_size=_MAX_HEADER)
        elif version == (2, 0):
            shape, fortran_order, dtype = np.lib.format.read_array_header_2_0(f, max_header_size=_MAX_HEADER)
        else:
            raise InputError(f"{where} is a .npy array of format version {version[0]}.{version[1]}, which np.save "
                             "writes only for structured arrays; save x and y as plain arrays of numbers")
    except InputError:
        raise
    except _READ_ERRORS as exc:
        raise InputError(f"{where} is not a readable .npy array (the format np.save writes): {exc}") from None
    return _Header(name, tuple(shape), bool(fortran_order), dtype, f.tell())


def _check_header(path: Path, header: _Header, size: int, kind: str) -> _Header:
    """Numbers, examples along the first axis, and exactly the bytes the header declares (else a corrupt file)."""
    name, shape, dtype = header.name, header.shape, header.dtype
    if dtype.hasobject:
        raise InputError(f"{path.name!r}: {name} holds Python objects (dtype {dtype}), which gradlib never unpickles "
                         "from a file; save it as an array of numbers (np.float32 or an integer dtype)")
    if not (np.issubdtype(dtype, np.number) or dtype == bool):
        raise InputError(f"{path.name!r}: {name} must be an array of numbers, got dtype {dtype}; save it as np.float32 "
                         "or an integer dtype")
    if len(shape) == 0:
        raise InputError(f"{path.name!r}: {name} must have the examples along its first axis, got a single number "
                         "(shape ())")
    if shape[0] == 0:
        raise InputError(f"{path.name!r}: {name} has no examples (shape {shape})")
    if size != header.offset + header.nbytes:
        raise InputError(f"{path.name!r} is corrupt or truncated: {name} declares shape {shape} of {dtype}, "
                         f"{header.nbytes:,} bytes of data, but its {kind} holds {size - header.offset:,}")
    return header


def _read_data(path: Path, member: IO[bytes], header: _Header) -> np.ndarray:
    """The data after a checked header, read as it really arrives (a zip member's sizes may lie), as an array.

    Memory grows with the bytes actually inflated, not with what the header declares; a member that ends
    early is refused, and zipfile checks its CRC at the end.
    """
    if len(member.read(header.offset)) != header.offset:   # the header, checked already
        raise InputError(f"{path.name!r} is corrupt or truncated: {header.name} ends inside its header")
    data = bytearray()
    while len(data) < header.nbytes:
        chunk = member.read(min(2**24, header.nbytes - len(data)))
        if not chunk:
            raise InputError(f"{path.name!r} is corrupt or truncated: {header.name} declares shape {header.shape} of "
                             f"{header.dtype}, {header.nbytes:,} bytes of data, but its member inflates to "
                             f"{len(data):,}")
        data += chunk
    return np.frombuffer(data, header.dtype).reshape(header.shape, order="F" if header.fortran_order else "C")


def _check_headers(path: Path | None, xs: list[_Header], y: _Header, max_bytes: int) -> None:
    """One target per example, and every x and y together within the bytes the command may hold in memory.

    ``path``: the file the arrays are members of (named before them), or ``None`` when they are files themselves.
    """
    where = f"{path.name!r}: " if path is not None else ""
    for x in xs:
        if x.shape[0] != y.shape[0]:
            raise InputError(f"{where}{x.name} has {x.shape[0]:,} examples but {y.name} has {y.shape[0]:,} "
                             "targets")
    total = sum(x.nbytes for x in xs) + y.nbytes
    if total > max_bytes:
        arrays = ", ".join(f"{x.name} {x.shape} of {x.dtype}" for x in xs)
        raise InputError(f"{where}{arrays} and {y.name} {y.shape} of {y.dtype} take "
                         f"{total:,} bytes, more than the limit of {max_bytes:,} ({max_bytes / 2**30:g} GiB) "
                         "for data held in memory; raise it with --max-data-gb, or stream the data as CSV")


def _check_x_keys(x_key: str, y_key: str) -> tuple[str, ...]:
    """``--x-key a,b``: the names of x's arrays, each once, none of them y's."""
    keys = tuple(k.strip() for k in x_key.split(","))
    if not all(keys):
        problem = "has an empty name"
    elif len(set(keys)) != len(keys):
        problem = "names an array twice"
    elif y_key in keys:
        problem = f"names {y_key!r}, the array of y (--y-key)"
    else:
        return keys
    raise GradlibError(f"--x-key {x_key!r} {problem}; give the arrays of x, each once, separated by commas: "
                       "--x-key a,b")


def _line(f: IO[str], path: Path, what: str) -> list[str]:
    """One line of a CSV file, read with a bound (a file with no line breaks is not read whole), as fields."""
    text = f.readline(MAX_LINE_CHARS + 1)
    if len(text) > MAX_LINE_CHARS:
        raise InputError(f"{str(path)!r}: the {what} is longer than {MAX_LINE_CHARS:,} characters (the limit for "
                         "one line)")
    return next(csv.reader([text]), []) if text.strip() else []


def _is_number(field: str) -> bool:
    """What both Python and ``tf.strings.to_number`` read as a number (Python alone accepts ``1_000``)."""
    try:
        float(field)
    except ValueError:
        return False
    return "_" not in field


def _check_label(value: float, classes: int, where: str, count: str = "") -> None:
    if not math.isfinite(value) or value != math.floor(value):
        raise InputError(f"{where} is {value!r}, not a whole number{count}: sparse_categorical_crossentropy takes "
                         f"class indices 0 .. {classes - 1} and would truncate it; round the targets yourself if "
                         "that is meant, or use categorical_crossentropy for soft labels")
    if not 0 <= value < classes:
        raise InputError(f"{where} is {value:g}, outside the class indices 0 .. {classes - 1} of a model with "
                         f"{classes} outputs{count}")


def _check_numbers(path: Path, header: list[str], record: list[str]) -> None:
    for name, field in zip(header, record):
        if not _is_number(field):
            raise InputError(f"{str(path)!r}: column {name!r} of the first record is {field!r}, not a number; "
                             "every column must be numeric (encode labels as numbers)")
