"""Which variables an inner derivative reads, read from the code alone (never run): ehsanhaghighat/sciann#11.

A loss computed from ``inner.gradient(psi, x)`` only is a function of what ``d psi / d x`` reads, not of everything
``psi`` reads. A term of ``psi`` that does not depend on ``x`` drops out of the derivative: ``b`` in ``a * x + b``,
and the bias a Keras ``Dense`` (or ``Conv``) layer with no activation adds at the end of a network, when ``psi`` is
that network's output or a sum of such terms. The outer ``tape.gradient(loss, [a, b])`` then gives None for ``b``.

Each value of ``psi``'s graph gets two sets (an id -> "full" map, or "bias" for a model whose last bias only is left
out): ``reads``, the variables and models its value reads, and ``dreads``, those its derivative with respect to
``x`` reads. A sum passes ``dreads`` on; a product ``p * q`` adds what the factor not depending on ``x`` reads;
every other operation on a value depending on ``x`` reads all its inputs (over-counting only makes it say less).
Code the linter cannot see, a merge, a nested gradient or a custom gradient on the way: it cannot tell (None).
"""

from __future__ import annotations

from ._values import Val, owners

__all__ = ["dropped"]

_MAX_VALUES = 5_000
#: binary operators of Python whose derivative with respect to each operand is a constant
_SUMS = frozenset({"Add", "Sub", "UAdd", "USub"})
_PRODUCTS = frozenset({"Mult", "MatMult"})
#: TensorFlow operations linear in every input (their derivative reads no input)
_LINEAR = frozenset({"tf.reduce_sum", "tf.reduce_mean", "tf.math.reduce_sum", "tf.math.reduce_mean", "tf.reshape",
                     "tf.transpose", "tf.squeeze", "tf.expand_dims", "tf.identity", "tf.negative", "tf.math.negative",
                     "tf.add", "tf.math.add", "tf.subtract", "tf.math.subtract", "tf.add_n", "tf.math.add_n",
                     "tf.concat", "tf.stack", "tf.unstack", "tf.split", "tf.gather", "tf.tile", "slicing",
                     "tf.linalg.trace", "tf.linalg.diag_part", "tf.cumsum", "tf.math.cumsum"})
#: Keras layers that add their bias last when given no activation
_BIASED = ("layers.Dense", "layers.Conv1D", "layers.Conv2D", "layers.Conv3D", "layers.Conv1DTranspose",
           "layers.Conv2DTranspose", "layers.Conv3DTranspose")


class _Unknown(Exception):
    """A value on the way the analysis cannot reason about."""


class _Walk:
    def __init__(self, sources: tuple[Val, ...]) -> None:
        self.sources = {s.id for s in sources}
        self.memo: dict = {}
        self.count = 0

    def _tick(self) -> None:
        self.count += 1
        if self.count > _MAX_VALUES:
            raise _Unknown

    def depends(self, val: Val) -> bool:
        key = ("dep", val.id)
        if key not in self.memo:
            self._tick()
            self.memo[key] = val.id in self.sources or any(self.depends(p) for p in val.parents)
        return self.memo[key]

    def reads(self, val: Val) -> dict:
        key = ("reads", val.id)
        if key not in self.memo:
            self._tick()
            _known(val)
            found = {val.id: "full"} if val.kind in ("var", "model") else {}
            for parent in val.parents:
                _merge(found, self.reads(parent))
            self.memo[key] = found
        return self.memo[key]

    def dreads(self, val: Val) -> dict:
        """What the derivative of ``val`` with respect to the sources reads."""
        key = ("dreads", val.id)
        if key in self.memo:
            return self.memo[key]
        self._tick()
        _known(val)
        found: dict = {}
        if val.id not in self.sources and self.depends(val) and val.op not in ("nondiff", "stop", "numpy", "const"):
            model = val.attrs.get("__call_of__")
            binop = val.attrs.get("binop")
            moving = [p for p in val.parents if self.depends(p)]
            if model is not None:
                others = [p for p in val.parents if p is not model]
                by_input = model.id not in self.sources and not any(p.id in self.sources for p in others
                                                                           if p.kind in ("var", "model"))
                found[model.id] = "bias" if by_input and _adds_bias_last(model) else "full"
                for parent in others:
                    _merge(found, self.reads(parent))
                    _merge(found, self.dreads(parent))
            elif binop in _SUMS or val.opname in _LINEAR or val.op == "slice":
                for parent in moving:
                    _merge(found, self.dreads(parent))
            elif binop in _PRODUCTS:
                for parent in moving:
                    _merge(found, self.dreads(parent))
                    for other in val.parents:
                        if other is not parent:
                            _merge(found, self.reads(other))
            else:
                for parent in val.parents:
                    _merge(found, self.reads(parent))
                for parent in moving:
                    _merge(found, self.dreads(parent))
        self.memo[key] = found
        return found

    def outer(self, val: Val, tape) -> dict:
        """What ``val`` (the outer target) is a function of, an inner gradient counted by what its derivative
        reads."""
        key = ("outer", val.id)
        if key not in self.memo:
            self._tick()
            _known(val)
            inner = val.attrs.get("__inner__")
            if inner is not None and val.attrs.get("tape") is not tape:
                targets, sources = inner
                walk = _Walk(sources)
                found: dict = {}
                for target in targets:
                    _merge(found, walk.dreads(target))
                self.count += walk.count
                self.memo[("inner", val.id)] = (walk, targets)
            else:
                found = {val.id: "full"} if val.kind in ("var", "model") else {}
                for parent in val.parents:
                    _merge(found, self.outer(parent, tape))
            self.memo[key] = found
        return self.memo[key]


def _known(val: Val) -> None:
    if not val.known or val.op in ("merge", "gradient") and "__inner__" not in val.attrs \
            or val.attrs.get("maybe") or val.attrs.get("promoted"):
        raise _Unknown


def _merge(into: dict, found: dict) -> None:
    for key, how in found.items():
        if into.get(key) != "full":
            into[key] = how


def _adds_bias_last(model: Val, depth: int = 0) -> bool:
    """Whether what ``model`` gives ends with a bias added after everything depending on its input: a Dense or Conv
    layer with no activation and a bias, or a Sequential in sight whose last layer is one."""
    if model.kind != "model" or depth > 6:
        return False
    if model.attrs.get("__adds_bias__"):
        return True
    layers = model.attrs.get("__layer_list__")
    return bool(layers) and _adds_bias_last(layers[-1], depth + 1)


def last_biased(model: Val, depth: int = 0) -> Val | None:
    """The layer whose bias ``model`` adds last (``_adds_bias_last``)."""
    if model.attrs.get("__adds_bias__"):
        return model
    layers = model.attrs.get("__layer_list__")
    return last_biased(layers[-1], depth + 1) if layers and depth < 6 else None


def dropped(tape, target: Val, source: Val, memo: dict | None = None) -> tuple[str, Val] | None:
    """``("var", inner_target)`` when ``source`` (a variable) reaches ``target`` only through inner gradients whose
    derivative does not read it (``"linear"`` when it is the inner gradient's source itself: the inner target is
    linear in it, ``d(2 * w1 * w2) / d w2``); ``("bias", layer)`` when ``source`` is a model whose last bias is left
    out so; None otherwise, or when it cannot tell. ``memo``: kept between the sources of one call (the target is
    walked once)."""
    memo = {} if memo is None else memo
    key = ("derivative", target.id, id(tape))
    if key not in memo:
        walk = _Walk(())
        try:
            found = walk.outer(target, tape)
            memo[key] = (found, [v for k, v in walk.memo.items() if k[0] == "inner"])
        except (_Unknown, RecursionError):
            memo[key] = None
    if memo[key] is None or not memo[key][1]:
        return None
    found, inner = memo[key]
    if source.kind == "model" and found.get(source.id) == "bias":
        layer = last_biased(source)
        return ("bias", layer) if layer is not None else None
    if source.kind != "var" or source.id in found or any(o.id in found for o in owners(source)):
        return None
    for inner_walk, targets in inner:
        try:
            if any(source.id in inner_walk.reads(t) for t in targets):
                return ("linear" if source.id in inner_walk.sources else "var"), targets[0]
        except (_Unknown, RecursionError):
            return None
    return None


def adds_bias(qual: str, args: list[Val], kwargs: dict) -> bool:
    """Whether a Keras layer made by ``qual(*args, **kwargs)`` adds a bias last: no activation (or "linear"), a bias
    (``use_bias`` not False)."""
    if not qual.endswith(_BIASED) or "**" in kwargs:
        return False
    if len(args) > (1 if qual.endswith("layers.Dense") else 2):      # Dense(units, activation): given by position
        return False
    activation, bias = kwargs.get("activation"), kwargs.get("use_bias")
    if activation is not None and not (activation.kind in ("py", "none") and activation.attrs.get("value") in
                                       (None, "linear")):
        return False
    if activation is not None and activation.kind == "py" and "value" not in activation.attrs:
        return False
    return bias is None or bias.kind == "py" and bias.attrs.get("value") is True
