"""GT021 and GT022: what a Keras model's lists of variables hold when they are read.

GT021, a model's variables read before the model has any.

A Keras layer, a ``Sequential`` whose layers were given no input shape, or a subclassed ``Model`` makes its
variables when it is built, on its first call. ``model.trainable_variables`` read before that is an empty list, and
stays empty (each read makes a new list): ``tape.gradient(loss, variables)`` with it is an empty list, no gradient
at all, and ``optimizer.apply_gradients(zip(grads, variables))`` raises ValueError. Nothing trains.

A model is taken to be unbuilt only while the linter sees all that happened to it: made here by a Keras layer
constructor (no ``input_shape``, ``input_dim``, ``batch_input_shape``, ``weights``), a ``Sequential`` of such layers,
or a subclass of ``keras.Model`` of the source whose ``__init__`` only sets such layers and calls the base
``__init__`` (no ``build`` method in sight). Any call, method, attribute read or hand-over to unseen code of the
model (or of a layer in it) ends that: it may have been built.

GT022, BatchNormalization's moving statistics as sources. ``model.variables`` and ``model.weights`` hold the
non-trainable variables too: a BatchNormalization layer's ``moving_mean`` and ``moving_variance``, which a tape does
not watch (they are not trainable; in training they are not even read, only updated by ``assign``). Their
gradients are None (Keras' ``apply_gradients`` warns and skips them; code that uses each gradient fails on None).
Said when the model is seen to hold a BatchNormalization layer: a ``Sequential`` of known layers, a functional
``Model`` whose outputs were computed by one, or a subclassed model that set one in ``__init__``; not when the tape
watched the model's variables itself.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ._tfp import UNTRACKED
from ._values import Val, describe

__all__ = ["checked", "fresh", "held_models", "layer_list", "made_functional", "made_layer", "made_subclass", "read",
           "untracked_variables",
           "no_losses", "sealed", "touched", "unbuilt", "walk_back"]

_SHAPED = {"input_shape", "input_dim", "batch_input_shape", "batch_size", "weights", "input_tensor"}
_NOT_LAYERS = {"Input", "InputLayer"}
_VARIABLE_LISTS = {"trainable_variables", "trainable_weights", "variables", "weights"}
_BASE_KEYWORDS = {None, "name", "trainable", "dtype", "autocast"}


def made_layer(model: Val, qual: str, args: list[Val], kwargs: dict) -> None:
    """Mark a model made by ``qual(*args, **kwargs)`` unbuilt when it surely is (see the module docstring), and note
    the layers a ``Sequential`` of known layers holds."""
    last = qual.rsplit(".", 1)[-1]
    if last == "Sequential" and args and args[0].kind == "seq" and args[0].items is not None:
        model.attrs["__held__"] = [layer for layer in args[0].items if layer.kind == "model"]
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


def untracked_variables(model: Val, classes: list[ast.ClassDef], plain: bool) -> None:
    """Note the raw ``tf.Variable``\ s an instance of a Keras Layer/Model subclass of the source holds when they are
    all it holds (tensorflow#97599): Keras 3 tracks only its own variables (``add_weight``, ``keras.Variable``) and
    layers, so its ``trainable_variables`` is an empty list. Only when every class in sight has a plain ``__init__``
    (attributes of ``self`` set, the base ``__init__`` called), no ``build``, no ``add_weight`` anywhere and no
    attribute of ``self`` set in another method; ``plain``: every base class is one of the source or Keras'."""
    if not plain or not classes or any(_method(c, "build") for c in classes) \
            or not all(_plain_init(_method(c, "__init__")) for c in classes) or any(_adds_weights(c) for c in classes):
        return
    held: list[tuple[str, Val]] = []
    for key, value in model.attrs.items():
        if key.startswith("__") or not isinstance(value, Val):
            continue
        for i, item in enumerate(value.items or () if value.kind == "seq" else (value,)):
            if item.kind == "var" and item.opname == "tf.Variable" and item.trainable and not item.opaque:
                held.append((f"self.{key}" if item is value else f"self.{key}[{i}]", item))
            elif item.kind not in ("py", "none", "tensor", "numpy") or item.attrs.get("maybe"):
                return
    if held:
        model.attrs["__untracked_keras__"] = held


def _adds_weights(cls: ast.ClassDef) -> bool:
    """Whether a class makes Keras weights (``add_weight``, ``keras.Variable``) or sets attributes of ``self``
    outside ``__init__`` (a layer made lazily)."""
    for node in ast.walk(cls):
        if isinstance(node, ast.Attribute) and node.attr in ("add_weight", "add_variable", "Variable") \
                and "keras" in ast.unparse(node.value) or isinstance(node, ast.Attribute) and node.attr in (
                "add_weight", "add_variable"):
            return True
    for method in cls.body:
        if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) and method.name != "__init__" and any(
                isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"
                for n in ast.walk(method) if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign))
                for t in (n.targets if isinstance(n, ast.Assign) else [n.target])):
            return True
    return False


_MAX_WALK = 2_000      # values walked back from a functional model's outputs to find its layers


def made_functional(model: Val, outputs: Val | None) -> None:
    """Note the layers a functional ``Model(inputs, outputs)`` holds: the models whose calls computed its outputs;
    and whether those are all of them (the outputs come from its layers' calls and TensorFlow operations only, back to
    values unseen code made from no value but Python ones: its ``Input``)."""
    held, whole = [], outputs is not None
    walked, done = walk_back(outputs)
    for value in walked:
        if value.kind == "model":
            held.append(value)
        else:
            whole = whole and (value.op != "unknown" or not value.attrs.get("callee") and all(
                p.kind in ("py", "none") for p in value.parents))
    model.attrs["__held__"] = held
    model.attrs["__held_whole__"] = whole and done


def walk_back(outputs: Val | None, stop=lambda value: False) -> tuple[list[Val], bool]:
    """The values ``outputs`` was computed from, walked back through their parents, each once: the models reached
    (not walked into) and the values ``stop`` holds back (not walked past) included; and whether the walk ended
    within ``_MAX_WALK`` values."""
    todo, seen, walked = list(_flat(outputs)) if outputs is not None else [], set(), []
    while todo and len(seen) < _MAX_WALK:
        value = todo.pop()
        if value.id in seen:
            continue
        seen.add(value.id)
        walked.append(value)
        if value.kind != "model" and not stop(value):
            todo.extend(value.parents)
    return walked, not todo


def no_losses(model: Val, depth: int = 0) -> bool:
    """Whether ``model.losses`` is surely an empty list: a Keras layer made in sight with no regularizer option, or a
    Sequential or functional Model whose layers are all such layers and all known (keras-team/keras#14066)."""
    if model.kind != "model" or model.opaque or model.attrs.get("foreign") or depth > 6 \
            or isinstance(model.node, ast.ClassDef) or model.attrs.get("maybe") or model.attrs.get("from_attr") \
            or model.attrs.get("hidden"):
        return False
    last = model.opname.rsplit(".", 1)[-1]
    if model.opname.startswith("tf.keras.layers.") and last != "Sequential":
        return model.attrs.get("__regularized__") is False
    if last == "Sequential":
        layers = model.attrs.get("__layer_list__")
    else:
        layers = model.attrs.get("__held__") if last == "Model" and model.attrs.get("__held_whole__") else None
    return bool(layers) and all(no_losses(layer, depth + 1) for layer in layers)


#: Keras layers whose call reads only its inputs and its own weights and gives a new tensor (a layer with weights);
#: Lambda and the layers of the source are not among them: their call may read anything
_FRESH = {"Dense", "EinsumDense", "Conv1D", "Conv2D", "Conv3D", "Conv1DTranspose", "Conv2DTranspose",
          "Conv3DTranspose", "SeparableConv1D", "SeparableConv2D", "DepthwiseConv1D", "DepthwiseConv2D", "Embedding",
          "LSTM", "GRU", "SimpleRNN", "LayerNormalization", "GroupNormalization", "BatchNormalization", "PReLU"}
#: Keras layers without weights whose call reads only its inputs
_PLAIN = {"Flatten", "Reshape", "Dropout", "Activation", "ReLU", "LeakyReLU", "Softmax", "MaxPooling1D", "MaxPooling2D",
          "MaxPooling3D", "AveragePooling1D", "AveragePooling2D", "AveragePooling3D", "GlobalAveragePooling1D",
          "GlobalAveragePooling2D", "GlobalMaxPooling1D", "GlobalMaxPooling2D", "Concatenate", "Add", "Multiply",
          "Permute", "RepeatVector", "ZeroPadding2D", "UpSampling2D", "SpatialDropout2D", "GaussianNoise", "Rescaling"}


def layer_list(model: Val, qual: str, args: list[Val], node: ast.AST) -> None:
    """Note ``model.layers`` of a ``Sequential([...])`` whose items are all in sight: its layers in order, the
    ``Input`` items left out (Keras does not list them), each a Keras layer or model the linter made."""
    if qual.rsplit(".", 1)[-1] != "Sequential" or not args or args[0].items is None \
            or not isinstance(node, ast.Call) or not node.args or not isinstance(node.args[0], ast.List) \
            or len(node.args[0].elts) != len(args[0].items):
        return
    layers = [item for item, elt in zip(args[0].items, node.args[0].elts)
              if not (isinstance(elt, ast.Call) and ast.unparse(elt.func).rsplit(".", 1)[-1] in _NOT_LAYERS)]
    if all(layer.kind == "model" and not layer.attrs.get("foreign") for layer in layers):
        model.attrs["__layer_list__"] = layers


def sealed(model: Val, depth: int = 0) -> bool:
    """Whether what a call of ``model`` gives is computed from its inputs and its own weights only: a Keras layer
    of ``_FRESH``/``_PLAIN``, or a Sequential of such layers (or of such Sequentials), all made in sight."""
    if model.kind != "model" or model.opaque or model.attrs.get("foreign") or depth > 6 \
            or isinstance(model.node, ast.ClassDef) or model.attrs.get("maybe") or model.attrs.get("from_attr") \
            or model.attrs.get("hidden"):
        return False
    last = model.opname.rsplit(".", 1)[-1]
    if model.opname.startswith("tf.keras.layers.") and (last in _FRESH or last in _PLAIN):
        return True
    layers = model.attrs.get("__layer_list__")
    return last == "Sequential" and bool(layers) and all(sealed(layer, depth + 1) for layer in layers)


def fresh(model: Val, depth: int = 0) -> bool:
    """Whether a call of ``model`` (sealed) surely gives a new tensor, never its input itself: a layer with weights,
    or a Sequential holding one."""
    last = model.opname.rsplit(".", 1)[-1]
    if last in _FRESH:
        return True
    return depth < 6 and any(fresh(layer, depth + 1) for layer in model.attrs.get("__layer_list__") or ())


def _flat(value: Val) -> list[Val]:
    return [item for item in value.items or ()] if value.kind == "seq" else [value]


def _batch_norm(model: Val, depth: int = 0) -> Val | None:
    """A BatchNormalization layer ``model`` is, or holds (its layers, what its ``__init__`` set), or None."""
    if model.kind != "model" or depth > 4:
        return None
    if model.opname.rsplit(".", 1)[-1] in ("BatchNormalization", "SyncBatchNormalization"):
        return model
    held = list(model.attrs.get("__held__", ())) + [v for k, v in model.attrs.items()
                                                    if isinstance(v, Val) and not k.startswith("__")]
    return next((found for layer in held if layer is not model for found in [_batch_norm(layer, depth + 1)]
                 if found is not None), None)


def unbuilt(model: Val) -> bool:
    """Whether ``model`` surely has no variables yet (nothing that may have built it was seen)."""
    return model.kind == "model" and bool(model.attrs.get("__unbuilt__")) and not model.attrs.get("maybe") \
        and all(unbuilt(layer) for layer in model.attrs.get("__layers__", ()))


def touched(model: Val) -> None:
    """``model`` was called, asked a method or read: it may be built from now on, and so may every layer it holds
    (calling a Sequential builds the Sequential inside it)."""
    for value in held_models(model, _MAX_WALK):
        value.attrs["__unbuilt__"] = False


def held_models(model: Val, limit: int) -> Iterator[Val]:
    """``model`` and every model or layer it holds (a Sequential's items, its layers, held values, attributes), each
    once, at most ``limit`` values walked."""
    todo, seen = [model], set()
    while todo and len(seen) < limit:
        value = todo.pop()
        if value.id in seen:
            continue
        seen.add(value.id)
        if value.kind == "seq":
            todo.extend(value.items or ())
            continue
        if value.kind != "model":
            continue
        yield value
        todo.extend(value.attrs.get("__layers__", ()))
        todo.extend(value.attrs.get("__held__", ()))
        todo.extend(v for k, v in value.attrs.items() if isinstance(v, Val) and not k.startswith("__"))


def read(model: Val, attr: str, node: ast.AST, value: Val) -> Val:
    """``model.<attr>``, ``value`` the list the linter gives for it: marked as read while the model was unbuilt."""
    if attr in _VARIABLE_LISTS and unbuilt(model):
        value.attrs["__unbuilt__"] = (model, node.lineno, node.col_offset, ast.unparse(node)[:60])
    elif attr in ("variables", "weights") and _batch_norm(model) is not None:
        value.attrs["__moving__"] = (model, node.lineno, node.col_offset, ast.unparse(node)[:60])
    elif attr not in _VARIABLE_LISTS:
        touched(model)
    return value


def checked(it, tape, sources: Val, node: ast.Call, method: str) -> None:
    """GT021 on ``tape.<method>(target, sources)`` whose sources are a model's variables read while it was unbuilt;
    GT022 when they are all of a model's variables, BatchNormalization's moving statistics among them."""
    if sources.kind == "seq" and sources.attrs.get("__tfp_empty__") is not None:
        _tfp_empty(it, sources.attrs["__tfp_empty__"], node, method)
    if sources.kind == "seq" and sources.attrs.get("__keras_untracked__") is not None:
        _keras_untracked(it, sources.attrs["__keras_untracked__"], node, method)
    if sources.kind == "seq" and sources.attrs.get("__tfp_untracked__") is not None:
        _tfp_untracked(it, sources.attrs["__tfp_untracked__"], node, method)
    if sources.kind != "seq" or sources.items is None or len(sources.items) != 1:
        return
    moving = sources.attrs.get("__moving__")
    if moving is not None and sources.items[0] is moving[0] and not tape.blind \
            and tape.watched.get(moving[0].id, (0, 0, 0, "auto"))[3] == "auto":
        _moving(it, moving, node, method)
    mark = sources.attrs.get("__unbuilt__")
    if mark is None or sources.items[0] is not mark[0]:
        return
    model, line, col, text = mark
    name = model.name or "model"
    it.report("GT021", line, col,
              f"`{text}` is read before {name} is built: a Keras layer, a Sequential without an input shape or a "
              f"subclassed Model makes its variables on its first call, so this is an empty list, and it stays "
              f"empty. `{method}(..., {ast.unparse(node.args[1])[:40] if len(node.args) > 1 else 'sources'})` on "
              f"line {node.lineno} then is an empty list (no gradient at all), `optimizer.apply_gradients(zip(grads, "
              f"variables))` raises ValueError, and nothing trains. Read `{text}` after the first call of {name} "
              f"(right in the call: `tape.gradient(loss, {text})`), or build it first: call it once on a batch "
              f"(`{name}(x)`), or give a Sequential `tf.keras.Input(shape=...)` as its first layer.")
    it.report("GT021", node.lineno, node.col_offset,
              f"here the gradient is an empty list: its sources, `{text}`, were read on line {line} before {name} "
              f"was built (see the GT021 finding there).")


def _tfp_empty(it, empty: tuple, node: ast.Call, method: str) -> None:
    """GT021 on a gradient asked for a TFP distribution's variables when it was given none, only tensors
    (tensorflow/probability#1431: ``tfd.Poisson(rate=tf.exp(beta @ X)).trainable_variables``)."""
    dist, text = empty
    names = sorted({v.name for p in dist.attrs["__tfp_params__"] for v in walk_back(p)[0] if v.kind == "var"
                    and v.name})[:4]
    fix = f" (`{method}(loss, [{', '.join(names)}])`)" if names else ""
    it.report("GT021", node.lineno, node.col_offset,
              f"`{text}` is an empty list: a distribution tracks only the tf.Variables it is given as parameters, and "
              f"`{dist.text}` was given tensors, so `{method}(..., {text})` is an empty list (no gradient at all), "
              f"`optimizer.apply_gradients(zip(grads, {text}))` raises ValueError, and nothing trains. Ask for the "
              f"variables the parameters are computed from{fix}.")


def _keras_untracked(it, empty: tuple, node: ast.Call, method: str) -> None:
    """GT021 where a Keras subclass sets the raw tf.Variables it holds, and on the gradient asked for its empty list
    of variables (tensorflow#97599)."""
    model, text = empty
    held = model.attrs["__untracked_keras__"]
    name = model.name or "model"
    names = ", ".join(f"`{attr}`" for attr, _ in held[:4]) + (", ..." if len(held) > 4 else "")
    for attr, var in held:
        it.report("GT021", var.line, var.col,
                  f"`{attr}` is a tf.Variable, which Keras 3 does not track: a Layer or Model lists only the variables "
                  f"it makes with `add_weight` (or `keras.Variable`) and those of its layers, so `{text}` is an empty "
                  f"list, and `{method}(..., {text})` on line {node.lineno} is an empty list (no gradient at all), "
                  f"`optimizer.apply_gradients(zip(grads, {text}))` raises ValueError, and nothing trains. Make it "
                  f"with `{attr.split('[')[0]} = self.add_weight(shape=..., initializer=...)` (its initial value as "
                  f"the initializer), or ask for the gradient with respect to the variables themselves.")
    it.report("GT021", node.lineno, node.col_offset,
              f"here the gradient is an empty list: `{text}` holds none of {name}'s variables ({names}: tf.Variables "
              f"Keras 3 does not track; see the GT021 finding where each is made).")


def _tfp_untracked(it, empty: tuple, node: ast.Call, method: str) -> None:
    """GT021 on a gradient asked for the variables of a TFP distribution or bijector that holds none a tf.Module
    tracks (tensorflow/probability#645: a MaskedAutoregressiveFlow on ``masked_autoregressive_default_template``)."""
    obj, text = empty
    why = obj.attrs[UNTRACKED]
    reasons = " (" + "; ".join(why[:3]) + ("; ..." if len(why) > 3 else "") + ")" if why else ""
    template = any("TF1 template" in w for w in why)
    instead = (" Build the flow on `tfb.AutoregressiveNetwork(params=2, hidden_units=[...])` (a Keras layer it "
               "tracks) instead of the template (for RealNVP, a Keras model of your own)" if template else
               " Give the distribution or bijector the tf.Variables themselves (or `tfp.util.TransformedVariable`, "
               "`tfp.util.DeferredTensor` of them), or ask for the variables its values are computed from")
    it.report("GT021", node.lineno, node.col_offset,
              f"`{text}` is an empty tuple: a TFP distribution or bijector (a tf.Module) tracks only the tf.Variables "
              f"and modules it holds as attributes, and `{describe(obj)}` holds none{reasons}. So "
              f"`{method}(..., {text})` is an empty list (no gradient at all), `optimizer.apply_gradients(zip(grads, "
              f"{text}))` raises ValueError, and nothing trains.{instead}.")


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


def _moving(it, mark: tuple, node: ast.Call, method: str) -> None:
    model, line, col, text = mark
    name, layer = model.name or "model", _batch_norm(model)
    bn = layer.name if layer is not None and layer.name and layer is not model else "its BatchNormalization layer"
    fixed = text.rsplit(".", 1)[0] + ".trainable_variables"
    it.report("GT022", line, col,
              f"`{text}` holds the non-trainable variables of {name} too: the moving_mean and moving_variance of "
              f"{bn}, which the tape does not watch (they are not trainable; in training they are not even read), "
              f"so their gradient from `{method}` on line {node.lineno} is None (Keras' "
              f"apply_gradients warns and skips them; code that clips or sums each gradient fails on None). Ask "
              f"for the gradient with respect to `{fixed}`.")
    if node.lineno != line:
        it.report("GT022", node.lineno, node.col_offset,
                  f"here the gradient of each moving statistic is None: its sources, `{text}`, hold them (line "
                  f"{line}; see the GT022 finding there).")
