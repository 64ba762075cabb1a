"""GT021: a Keras model's variables read before the model has any.

A Keras layer, a ``Sequential`` whose layers were given no input shape, or a subclassed ``Model`` makes its
variables when it is built, on its first call. ``model.trainable_variables`` read before that is an empty list, and
stays empty (each read makes a new list): ``tape.gradient(loss, variables)`` with it is an empty list, no gradient
at all, and ``optimizer.apply_gradients(zip(grads, variables))`` raises ValueError. Nothing trains.

A model is taken to be unbuilt only while the linter sees all that happened to it: made here by a Keras layer
constructor (no ``input_shape``, ``input_dim``, ``batch_input_shape``, ``weights``), a ``Sequential`` of such layers,
or a subclass of ``keras.Model`` of the source whose ``__init__`` only sets such layers and calls the base
``__init__`` (no ``build`` method in sight). Any call, method, attribute read or hand-over to unseen code of the
model (or of a layer in it) ends that: it may have been built.
"""

from __future__ import annotations

import ast

from ._values import Val

__all__ = ["checked", "made_layer", "made_subclass", "read", "touched", "unbuilt"]

_SHAPED = {"input_shape", "input_dim", "batch_input_shape", "batch_size", "weights", "input_tensor"}
_NOT_LAYERS = {"Input", "InputLayer"}
_VARIABLE_LISTS = {"trainable_variables", "trainable_weights", "variables", "weights"}
_BASE_KEYWORDS = {None, "name", "trainable", "dtype", "autocast"}


def made_layer(model: Val, qual: str, args: list[Val], kwargs: dict) -> None:
    """Mark a model made by ``qual(*args, **kwargs)`` unbuilt when it surely is (see the module docstring)."""
    last = qual.rsplit(".", 1)[-1]
    if _SHAPED & set(kwargs) or "**" in kwargs or last in _NOT_LAYERS:
        return
    if qual.startswith("tf.keras.layers.") and last != "Sequential":
        model.attrs["__unbuilt__"], model.attrs["__layers__"] = True, []
    elif last == "Sequential" and len(args) == 1 and args[0].kind == "seq" and args[0].items \
            and all(unbuilt(layer) for layer in args[0].items) and set(kwargs) <= {"name", "trainable"}:
        model.attrs["__unbuilt__"], model.attrs["__layers__"] = True, list(args[0].items)


def made_subclass(model: Val, classes: list[ast.ClassDef], plain: bool) -> None:
    """Mark an instance of a ``keras.Model`` subclass of the source unbuilt when its ``__init__`` (and its base
    classes') only call the base ``__init__`` and set layers that are unbuilt, and no class in sight has ``build``;
    ``plain``: every base class is one of the source or Keras' ``Model``/``Layer``."""
    if not plain or not classes or any(_method(c, "build") for c in classes):
        return
    if not all(_plain_init(_method(c, "__init__")) for c in classes):
        return
    layers = [v for k, v in model.attrs.items() if isinstance(v, Val) and not k.startswith("__")]
    if all(v.kind in ("py", "none") or unbuilt(v) for v in layers):
        model.attrs["__unbuilt__"], model.attrs["__layers__"] = True, [v for v in layers if v.kind == "model"]


def unbuilt(model: Val) -> bool:
    """Whether ``model`` surely has no variables yet (nothing that may have built it was seen)."""
    return model.kind == "model" and bool(model.attrs.get("__unbuilt__")) and not model.attrs.get("maybe") \
        and all(unbuilt(layer) for layer in model.attrs.get("__layers__", ()))


def touched(model: Val) -> None:
    """``model`` was called, asked a method or read: it may be built from now on."""
    model.attrs["__unbuilt__"] = False


def read(model: Val, attr: str, node: ast.AST, value: Val) -> Val:
    """``model.<attr>``, ``value`` the list the linter gives for it: marked as read while the model was unbuilt."""
    if attr in _VARIABLE_LISTS and unbuilt(model):
        value.attrs["__unbuilt__"] = (model, node.lineno, node.col_offset, ast.unparse(node)[:60])
    elif attr not in _VARIABLE_LISTS:
        touched(model)
    return value


def checked(it, sources: Val, node: ast.Call, method: str) -> None:
    """GT021 on ``tape.<method>(target, sources)`` whose sources are a model's variables read while it was unbuilt."""
    mark = sources.attrs.get("__unbuilt__") if sources.kind == "seq" else None
    if mark is None or sources.items is None or len(sources.items) != 1 or sources.items[0] is not mark[0]:
        return
    model, line, col, text = mark
    name = model.name or "model"
    it.report("GT021", line, col,
              f"`{text}` is read before {name} is built: a Keras layer, a Sequential without an input shape or a "
              f"subclassed Model makes its variables on its first call, so this is an empty list, and it stays "
              f"empty. `{method}(..., {ast.unparse(node.args[1])[:40] if len(node.args) > 1 else 'sources'})` on "
              f"line {node.lineno} then is an empty list (no gradient at all), `optimizer.apply_gradients(zip(grads, "
              f"variables))` raises ValueError, and nothing trains. Read `{text}` after the first call of {name} "
              f"(right in the call: `tape.gradient(loss, {text})`), or build it first (`tf.keras.Input(shape=...)` "
              f"as its first layer, or `{name}.build(input_shape)`).")
    it.report("GT021", node.lineno, node.col_offset,
              f"here the gradient is an empty list: its sources, `{text}`, were read on line {line} before {name} "
              f"was built (see the GT021 finding there).")


def _method(cls: ast.ClassDef, name: str) -> ast.AST | None:
    return next((s for s in cls.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == name),
                None)


def _plain_init(init: ast.AST | None) -> bool:
    """Whether an ``__init__`` only calls the base ``__init__`` (no positional arguments, no inputs or outputs) and
    sets attributes of ``self`` (what it sets is judged by its value), or is absent."""
    if init is None:
        return True
    for stmt in init.body:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue
        if isinstance(stmt, ast.Expr) and _base_init(stmt.value):
            continue
        if isinstance(stmt, ast.Assign) and all(isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name)
                                                and t.value.id == "self" for t in stmt.targets):
            continue
        return False
    return True


def _base_init(call: ast.expr) -> bool:
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "__init__"):
        return False
    positional = call.args[1:] if not isinstance(call.func.value, ast.Call) else call.args   # Base.__init__(self)
    return not positional and all(k.arg in _BASE_KEYWORDS for k in call.keywords)
