"""Named input tensors: validated, shaped and typed before anything reaches TensorFlow."""

from __future__ import annotations

import keyword
import math
import numbers
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np

from .._foundations._errors import ExpressionError, InputError, masked_message
from ._syntax import FUNCTIONS
from .._foundations._limits import LIMITS, Limits

__all__ = ["DTYPES", "FLOAT_DTYPES", "INT_DTYPES", "RESERVED", "check_inputs", "check_not_flushed", "compute_dtype", "Input",
           "nonfinite_warnings", "promotion_warnings", "to_array"]

#: the float dtypes an input or a computation may have
FLOAT_DTYPES = ("float32", "float64")
INT_DTYPES = ("int32", "int64")
#: every dtype an input may have (an integer one reproduces the integer-watch pitfall)
DTYPES = FLOAT_DTYPES + INT_DTYPES
RESERVED = frozenset(FUNCTIONS) | {"axis"}   # names an input may not take


@dataclass(frozen=True)
class Input:
    """One named input: its value as a NumPy array, its dtype and whether the tape watches it."""

    name: str
    value: np.ndarray
    dtype: str
    watched: bool

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.value.shape)

    @property
    def size(self) -> int:
        return int(self.value.size)


def check_inputs(
    inputs: Mapping[str, Any],
    *,
    watch: Sequence[str] | None = None,
    dtype: str | Mapping[str, str] = "float32",
    limits: Limits = LIMITS,
) -> tuple[Input, ...]:
    """Validate ``inputs``, ``watch`` and ``dtype`` and return the inputs in order.

    >>> [i.shape for i in check_inputs({"x": [1, 2], "s": 3.0})]
    [(2,), ()]
    """
    if not isinstance(inputs, Mapping):
        raise ExpressionError(
            f"inputs must be a mapping of name -> value, like {{'x': [1.0, 2.0]}}; got {type(inputs).__name__}"
        )
    if not inputs:
        raise ExpressionError("inputs is empty: define at least one input, like {'x': [1.0, 2.0]}")
    if len(inputs) > limits.max_inputs:
        raise ExpressionError(f"too many inputs ({len(inputs)}); at most {limits.max_inputs} are allowed")
    for name in inputs:
        _check_name(name)
    dtypes = _check_dtypes(dtype, inputs)
    watched = _check_watch(watch, inputs)
    checked = []
    for name, raw in inputs.items():
        if isinstance(raw, np.ma.MaskedArray) and np.ma.is_masked(raw):
            raise InputError(masked_message(int(np.ma.count_masked(raw)), raw.size, "the function", f"input {name!r}",
                                            fill=f"{name}.filled(value)"))
        value = to_array(raw, where=f"input {name!r}", limits=limits)
        checked.append(Input(name, _representable(value, dtypes[name], name), dtypes[name], name in watched))
    return tuple(checked)


def _representable(value: np.ndarray, dtype: str, name: str) -> np.ndarray:
    """``value`` exactly as ``dtype`` holds it; a number ``dtype`` would change is refused, never altered.

    Integer inputs must hold whole numbers in the dtype's range (a cast would truncate 3.7 to 3, and turn
    NaN or 1e10 into int32's minimum). Float32 inputs must lie within float32's range (1e300 would become
    inf); their values are rounded to float32, as TensorFlow holds them, even when the computation is
    promoted to float64.

    >>> _representable(np.array([3.0]), "int32", "n").tolist()
    [3.0]
    """
    if dtype in INT_DTYPES:
        info = np.iinfo(dtype)
        low, high = max(float(info.min), -2.0 ** 53), min(float(info.max), 2.0 ** 53)   # float64 holds these exactly
        with np.errstate(invalid="ignore"):
            bad = ~np.isfinite(value) | (value != np.round(value)) | (value < low) | (value > high)
        if bad.any():
            number = _number(value[tuple(np.argwhere(bad)[0])])
            if not np.isfinite(number):
                what = "not finite"
            elif not low <= number <= high and high < info.max:
                what = "beyond ±2**53, where gradlib cannot hold every whole number exactly"
            elif not low <= number <= high:
                what = f"outside {dtype}'s range ({low:,.0f} to {high:,.0f})"
            else:
                what = "not a whole number"
            raise InputError(
                f"input {name!r} is {dtype}, but {_first(bad, name)} is {number!r}: {what}. An integer input takes "
                f"whole numbers, and gradlib never rounds or casts a number for you: write a whole number, or make "
                f"{name!r} float32 or float64")
        return value
    if dtype == "float32":
        with np.errstate(over="ignore"):
            narrow = value.astype(np.float32)
        bad = np.isfinite(value) & ~np.isfinite(narrow)   # checked after the cast: what float32 really holds
        if bad.any():
            count = int(bad.sum())
            more = f" (and {count - 1} more value(s))" if count > 1 else ""
            raise InputError(
                f"input {name!r} is float32, but {_first(bad, name)} is {_number(value[tuple(np.argwhere(bad)[0])])!r}"
                f"{more}, outside float32's range (about ±3.4e38): as float32 it would become infinite. "
                f"Use dtype float64 for {name!r}, or smaller numbers")
        return narrow.astype(np.float64)
    return value


def _first(mask: np.ndarray, name: str) -> str:
    return _index_label(name, tuple(int(k) for k in np.argwhere(mask)[0]))


def _number(value: np.floating) -> float | int:
    number = float(value)
    return int(number) if np.isfinite(number) and number == int(number) and abs(number) < 1e16 else number


def compute_dtype(inputs: Sequence[Input]) -> str:
    """The float dtype the computation runs in: float64 if any input asks for it."""
    return "float64" if any(i.dtype == "float64" for i in inputs) else "float32"


def check_not_flushed(inputs: Sequence[Input]) -> None:
    """Refuse an input value the computation's dtype would take as 0: TensorFlow flushes numbers under the smallest
    normal one (about 1.2e-38 in float32, 2.2e-308 in float64) to 0 in its kernels, and the answer would be another
    function's (log(1e-40) computed as log(0) = -inf)."""
    dtype = compute_dtype(inputs)
    tiny = float(np.finfo(dtype).tiny)
    for i in inputs:
        with np.errstate(invalid="ignore"):
            flushed = (i.value != 0) & (np.abs(i.value) < tiny)
        if flushed.any():
            raise InputError(
                f"input {i.name!r}: {_first(flushed, i.name)} is {float(i.value[tuple(np.argwhere(flushed)[0])]):.3g}, "
                f"closer to 0 than {tiny:.1e}, the smallest number {dtype} computations keep (TensorFlow flushes smaller ones "
                f"to 0): "
                + ("use dtype float64, or rescale the numbers" if dtype == "float32" else "rescale the numbers"))


def promotion_warnings(inputs: Sequence[Input]) -> tuple[str, ...]:
    """Say that float32 inputs are computed in float64 when another input asks for float64.

    >>> promotion_warnings(check_inputs({"a": 1.0, "b": 2.0}, dtype={"a": "float64"}))[0][:61]
    "input 'b' is float32, but 'a' is float64: TensorFlow computes"
    """
    wide = [i.name for i in inputs if i.dtype == "float64"]
    narrow = [i.name for i in inputs if i.dtype == "float32"]
    if not wide or not narrow:
        return ()
    names, wides = ", ".join(map(repr, narrow)), ", ".join(map(repr, wide))
    return (f"input {names} {'is' if len(narrow) == 1 else 'are'} float32, but {wides} "
            f"{'is' if len(wide) == 1 else 'are'} float64: TensorFlow computes in one dtype, so the float32 "
            "values (rounded to float32) are cast to float64 and everything, gradients included, is float64",)


def nonfinite_warnings(inputs: Sequence[Input]) -> tuple[str, ...]:
    """One warning per input that holds NaN or infinity (allowed, but worth knowing)."""
    out = []
    for i in inputs:
        if np.isfinite(i.value).all():
            continue
        bad = np.argwhere(~np.isfinite(i.value.astype(np.float64)))
        if len(bad):
            where = ", ".join(_index_label(i.name, tuple(int(k) for k in b)) for b in bad[:3])
            more = f" and {len(bad) - 3} more" if len(bad) > 3 else ""
            out.append(f"input {i.name!r} holds NaN or infinite values ({where}{more}); results there are not finite")
    return tuple(out)


def _index_label(name: str, index: tuple[int, ...]) -> str:
    return name if not index else f"{name}[{','.join(map(str, index))}]"


def _check_name(name: Any) -> None:
    if not isinstance(name, str):
        raise ExpressionError(f"input names must be strings; got {name!r}")
    if not name.isascii() or not name.isidentifier() or keyword.iskeyword(name):
        raise ExpressionError(
            f"input name {name!r} is not a valid name: use letters, digits and _, starting with a letter (like 'x0')"
        )
    if name.startswith("_"):
        raise ExpressionError(f"input name {name!r} starts with '_': names must start with a letter")
    if len(name) > 32:
        raise ExpressionError(f"input name {name[:40]!r}... is longer than 32 characters")
    if name in RESERVED:
        raise ExpressionError(f"input name {name!r} is the name of a function; choose another name")


def _check_dtypes(dtype: Any, inputs: Mapping[str, Any]) -> dict[str, str]:
    if isinstance(dtype, str):
        if dtype not in FLOAT_DTYPES:
            raise ExpressionError(
                f"dtype must be one of {', '.join(FLOAT_DTYPES)}; got {dtype!r}. "
                "To watch an integer tensor, pass a mapping such as {'n': 'int32'}"
            )
        return {name: dtype for name in inputs}
    if not isinstance(dtype, Mapping):
        raise ExpressionError(f"dtype must be a string or a mapping of input name -> dtype; got {dtype!r}")
    for name, value in dtype.items():
        if name not in inputs:
            raise ExpressionError(f"dtype names {name!r}, which is not an input; inputs are {', '.join(inputs)}")
        if value not in DTYPES:
            raise ExpressionError(f"dtype of {name!r} must be one of {', '.join(DTYPES)}; got {value!r}")
    return {name: dtype.get(name, "float32") for name in inputs}


def _check_watch(watch: Any, inputs: Mapping[str, Any]) -> set[str]:
    if watch is None:
        return set(inputs)
    if isinstance(watch, str) or not isinstance(watch, (list, tuple, set, frozenset)):
        raise ExpressionError(f"watch must be a list of input names, like ['x']; got {watch!r}")
    for name in watch:
        if not isinstance(name, str) or name not in inputs:
            raise ExpressionError(f"watch names {name!r}, which is not an input; inputs are {', '.join(map(str, inputs))}")
    if not watch:
        raise ExpressionError("watch is empty: watch at least one input, or pass watch=None to watch them all")
    return set(watch)


def to_array(raw: Any, *, where: str, limits: Limits = LIMITS) -> np.ndarray:
    """Turn a number, a nested list or an array into a float64/int array, refusing what is not numeric."""
    if isinstance(raw, np.ndarray):
        return _check_array(raw, where, limits)
    shape = _nested_shape(raw, where, limits)
    try:
        return np.array(raw, dtype=np.float64).reshape(shape)
    except OverflowError:
        raise InputError(
            f"{where} holds a whole number too large for floating point (over about 1.8e308); use a smaller number"
        ) from None


def _check_array(arr: np.ndarray, where: str, limits: Limits) -> np.ndarray:
    if arr.dtype.kind not in "fiu":
        raise InputError(f"{where} has dtype {arr.dtype}; only real numbers are accepted")
    if arr.ndim > limits.max_rank:
        raise InputError(f"{where} has {arr.ndim} dimensions; at most {limits.max_rank} are allowed")
    if arr.size > limits.max_elements:
        raise InputError(f"{where} has {arr.size:,} elements; at most {limits.max_elements:,} are allowed")
    if arr.size == 0:
        raise InputError(f"{where} is empty; give it at least one number")
    return np.asarray(arr, dtype=np.float64)


def _nested_shape(raw: Any, where: str, limits: Limits) -> tuple[int, ...]:
    """The shape of a nested list of numbers, walked without recursion and without allocating."""
    if _is_number(raw):
        return ()
    if not isinstance(raw, (list, tuple)):
        raise InputError(f"{where} must be a number or a (nested) list of numbers; got {_describe(raw)}")
    shape: list[int] | None = None
    leaf_depth: int | None = None
    stack: list[tuple[Any, tuple[int, ...]]] = [(raw, ())]
    while stack:
        item, path = stack.pop()
        depth = len(path)
        if isinstance(item, (list, tuple)):
            if leaf_depth is not None and depth >= leaf_depth:
                raise InputError(f"{where}{_path(path)} is a list where a number was expected: the list is ragged")
            if depth >= limits.max_rank:
                raise InputError(f"{where} is nested {_nesting(depth, item)}; at most {limits.max_rank} dimensions "
                                 "are allowed")
            if not item:
                raise InputError(f"{where}{_path(path)} is an empty list; every list needs at least one number")
            shape = _agree(shape, depth, len(item), where, path)
            if math.prod(shape) > limits.max_elements:   # a lower bound of the size: refuse before walking on
                raise InputError(f"{where} has at least {math.prod(shape):,} elements; "
                                 f"at most {limits.max_elements:,} are allowed")
            # reversed: the walk visits elements in order, so a ragged list is blamed on the odd element
            stack.extend(reversed([(child, path + (k,)) for k, child in enumerate(item)]))
        elif _is_number(item):
            leaf_depth = depth if leaf_depth is None else leaf_depth
            if depth != leaf_depth:
                raise InputError(f"{where}{_path(path)} is a number where a list was expected: the list is ragged")
        else:
            raise InputError(f"{where}{_path(path)} is {_describe(item)}; only numbers are accepted")
    assert shape is not None
    if math.prod(shape) > limits.max_elements:
        raise InputError(f"{where} has {math.prod(shape):,} elements; at most {limits.max_elements:,} are allowed")
    return tuple(shape)


def _agree(shape: list[int] | None, depth: int, length: int, where: str, path: tuple[int, ...]) -> list[int]:
    shape = [] if shape is None else shape
    if depth == len(shape):
        shape.append(length)
    elif shape[depth] != length:
        raise InputError(
            f"{where} is ragged: {where}{_path(path)} has {length} elements but other lists at that depth have {shape[depth]}"
        )
    return shape


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def _describe(value: Any) -> str:
    if isinstance(value, (bool, np.bool_)):
        return f"a boolean ({value!r}); use 1.0 or 0.0"
    if isinstance(value, str):
        return f"a string ({value[:20]!r}); write the number without quotes"
    if value is None:
        return "None (null)"
    return f"a {type(value).__name__}"


def _nesting(depth: int, item: Any) -> str:
    """How deep a list at ``depth`` nests along its first elements (its rank when it is not ragged), in words."""
    seen = set()
    while isinstance(item, (list, tuple)):
        if id(item) in seen:
            return "without end (a list that contains itself)"
        seen.add(id(item))
        item, depth = item[0] if item else None, depth + 1
    return f"{depth:,} deep"


def _path(path: tuple[int, ...]) -> str:
    return "".join(f"[{k}]" for k in path)
