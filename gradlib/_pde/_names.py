"""Names in a PDE: coordinates (``x``, ``t``), outputs (``u``, ``v``, ``p``) and derivatives (``u_xt``, ``p_x``).

A derivative's name is an output, ``_`` and the coordinates it is taken along, in any order (``u_xt`` and
``u_tx`` are one derivative). Coordinates of several characters are allowed when the spelling is unambiguous
(``u_x1x2`` with coordinates ``x1, x2``); outputs and coordinates are identifiers without ``_``.

>>> derivative("u_tx", ("u",), ("x", "t"), "derivatives")
Derivative(name='u_tx', output=0, along=(0, 1))
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Sequence

from .._foundations._errors import ExpressionError

__all__ = ["MAX_ORDER", "Derivative", "check_names", "derivative", "derivative_or_none"]

#: the highest order computed (by repeated differentiation: KdV's u_xxx, the biharmonic's u_xxxx)
MAX_ORDER = 4


@dataclass(frozen=True)
class Derivative:
    """``name``: d^k output[``output``] / d x[along[0]] ... d x[along[-1]], ``along`` sorted (k = its length)."""

    name: str
    output: int
    along: tuple[int, ...]


def check_names(coords: Any, outputs: Any, api: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``coords`` and ``outputs`` as tuples of distinct identifiers without ``_``, refused otherwise."""
    coords = _names(coords, "coords", "('x', 't')", api)
    outputs = _names(("u",) if outputs is None else outputs, "outputs", "('u', 'v', 'p')", api)
    both = sorted(set(coords) & set(outputs))
    if both:
        raise ExpressionError(f"{api}: {both[0]!r} is both a coordinate and an output; give them different names")
    return coords, outputs


def _names(value: Any, what: str, example: str, api: str) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, Sequence) or not value:
        raise ExpressionError(f"{api}: {what} must be a non-empty tuple of names, like {what}={example}; got {value!r}")
    for name in value:
        if not isinstance(name, str) or not name.isidentifier() or not name.isascii() or "_" in name:
            raise ExpressionError(f"{api}: {what} holds {name!r}; each name must be letters and digits (no '_', "
                                  f"which separates an output from its coordinates in u_x), like {what}={example}")
    repeated = sorted({n for n in value if list(value).count(n) > 1})
    if repeated:
        raise ExpressionError(f"{api}: {what} names {repeated[0]!r} twice; each name must be given once")
    return tuple(value)


def derivative(name: Any, outputs: tuple[str, ...], coords: tuple[str, ...], api: str) -> Derivative:
    """The derivative ``name`` stands for, refused with the reason when it is not one."""
    if not isinstance(name, str):
        raise ExpressionError(f"{api}: want holds {name!r}; each item must be a name like 'u', 'u_x' or 'u_xt'")
    found = derivative_or_none(name, outputs, coords)
    if isinstance(found, Derivative):
        return found
    raise ExpressionError(f"{api}: {found}")


def derivative_or_none(name: str, outputs: tuple[str, ...], coords: tuple[str, ...]) -> Derivative | str:
    """The derivative ``name`` stands for, or why it is none (a sentence naming what is known)."""
    output, _, along = name.partition("_")
    if output not in outputs:
        return (f"{name!r} names the output {output!r}, and the model's outputs are {', '.join(outputs)}"
                + ("" if len(outputs) > 1 else "; name several with outputs=('u', 'v', 'p')"))
    if _ and not along:
        return f"{name!r} ends with '_': write the coordinates after it, like {output}_{coords[0]}"
    spellings = _spellings(along, coords)
    if not spellings:
        return (f"{name!r} is not a derivative: after '{output}_' come coordinates ({', '.join(coords)}), like "
                f"{output}_{coords[0]}{coords[-1]}")
    if len(spellings) > 1:
        read = " or ".join("/".join(coords[k] for k in s) for s in spellings[:2])
        return f"{name!r} can be read as {read}: rename the coordinates so that no name starts another"
    if len(spellings[0]) > MAX_ORDER:
        return (f"{name!r} is a derivative of order {len(spellings[0])}; gradlib.pde computes orders up to "
                f"{MAX_ORDER}: write the equation as a system of lower order (add an output for u_xx)")
    return Derivative(name, outputs.index(output), tuple(sorted(spellings[0])))


def _spellings(text: str, coords: tuple[str, ...]) -> list[tuple[int, ...]]:
    """Every way ``text`` is a sequence of coordinates (indices into ``coords``); ``[()]`` for ``""``."""
    @functools.lru_cache(maxsize=None)
    def from_(start: int) -> tuple[tuple[int, ...], ...]:
        if start == len(text):
            return ((),)
        return tuple((k,) + rest for k, c in enumerate(coords) if text.startswith(c, start)
                     for rest in from_(start + len(c)))
    return list(from_(0)) if len(text) <= 64 else []
