"""A warm call of ``per_element_gradients``: what its cold path decided, kept, so that it only runs the graph again.

Once ``auto`` has run a callable's structured Jacobian as a settled compiled function (graph or XLA, the choice
final) and had nothing to say once, the same request (``recipe_key``: the callable, its fingerprint, the form,
shapes and dtypes of ``xs``, and every option: ``method``, ``compiled``, ``check``, ``limits``) is answered again by
that one compiled function. A warm call then skips what can only repeat the cold call's answer: checking and
converting ``xs`` (their dtypes and sizes are in the key), the plan (a function of the key), building the problem,
the packaging (its labels are the key's), and the Python of the engine between them. It still computes the key,
holds a work slot, runs the graph, checks every cell is finite (else the cold path answers, which then takes a
tape method) and asks the engine whether what decided the plan still holds (``Recipe.holds``: the same compiled
function is kept, auto still compiles this problem, its check against ``fn`` has retired). Only eager tensors of
``xs`` take it: anything else is converted and checked by the cold path every time.
"""

from __future__ import annotations

import time
from typing import Any, Callable, Hashable, NamedTuple

import numpy as np
import tensorflow as tf

from .._foundations import _runtime
from .._foundations._cache import HashedKey, LRUCache
from ._problem import callable_problem_key
from ._result import GradResult

__all__ = ["Recipe", "recall", "recipe_key", "remember"]


class Recipe(NamedTuple):
    """What a warm call needs: the compiled function, whether the cold path's decision still holds, the result
    to fill in (every field but the arrays, the version that ran and the time)."""

    compiled: Any                   # the ``Compiled`` of the structured Jacobian (``settled_run``)
    holds: Callable[[], bool]
    result: GradResult


#: recipe key -> Recipe; bounded as the compiled functions are (each keeps one alive)
_RECIPES = LRUCache(maxsize=64)


def recipe_key(problem_key: Hashable, compiled: Any, check: bool, limits: Any) -> tuple:
    """Everything a warm call of ``auto`` is decided by: the problem's key and the options."""
    return HashedKey((problem_key, "auto", compiled, check, limits))


def remember(key: tuple, recipe: Recipe) -> None:
    """Keep ``recipe`` for the requests of ``key`` (``recipe_key``)."""
    _RECIPES.put(key, recipe)


def recall(fn: Any, xs: Any, method: str, compiled: Any, check: bool, limits: Any) -> GradResult | None:
    """The answer of a warm call from its recipe, or ``None``: the cold path answers (no recipe, ``xs`` not plain
    eager tensors, the recipe no longer holds, the compiled function not settled, a cell not finite)."""
    given = _eager_tensors(xs) if method == "auto" else None
    if given is None:
        return None
    key = callable_problem_key(fn, *given)
    try:
        recipe = _RECIPES.get(recipe_key(key, compiled, check, limits)) if key is not None else None
    except TypeError:   # an unhashable option: the cold path refuses or answers it
        return None
    if recipe is None or not recipe.holds():
        return None
    start = time.perf_counter()
    with _runtime.work_slot(traces=False):   # the settled graph runs, nothing is traced
        out = recipe.compiled.settled_run(given[1], [])   # None for a cell not finite, whichever version ran
        if out is None:
            return None
    return _filled(recipe.result, y=out[0], jacobian=out[1], compiled_as=out[-1],
                   repaired_cells=np.zeros((0, 2), int), seconds=time.perf_counter() - start)


def _filled(template: GradResult, **fields: Any) -> GradResult:
    """``dataclasses.replace(template, **fields)`` without running the frozen ``__init__`` again over every field
    (18 us of a warm call): ``GradResult`` has no ``__post_init__``, so its fields are all it holds."""
    result = object.__new__(GradResult)
    result.__dict__.update(template.__dict__, **fields)
    return result


def _eager_tensors(xs: Any) -> tuple[Hashable, list] | None:
    """``(form, tensors)`` as ``callable_problem`` keys them, when ``xs`` is an eager tensor, a list or tuple of them
    or a dict of them by name (then ``xs_form`` checks nothing the key does not hold, and converts nothing);
    ``None`` otherwise, and outside eager execution."""
    eager = tf.__internal__.EagerTensor
    if type(xs) is eager:
        return ("single", [xs]) if _runtime.executing_eagerly() else None
    if type(xs) in (list, tuple):
        tensors, form = list(xs), "list"
    elif type(xs) is dict:
        tensors, form = list(xs.values()), tuple(xs)
    else:
        return None
    if not tensors or any(type(t) is not eager for t in tensors) or not _runtime.executing_eagerly():
        return None
    return form, tensors
