"""What attribute access, indexing and each kind of call do to the values the interpreter tracks."""

from __future__ import annotations

import ast

from . import _built, _derivative, _keras_call, _tfp, _traced
from ._tables import call_kind, dtype_of_name, kind_returns_tuple, normalise
from ._values import TENSORISH, Tape, Val, describe as describe_text

__all__ = ["EMBEDDING_IDS", "as_model", "attribute", "call", "graph_op", "instantiate", "method_of", "mro",
           "sparse_arithmetic", "subscript", "symbolic_item"]

_PY_ATTRS = {"shape", "dtype", "ndim", "name", "device", "trainable", "__class__"}
_MODEL_VARS = {"trainable_variables", "trainable_weights", "variables", "weights", "non_trainable_variables"}
_MODEL_WEIGHTS = {"kernel", "bias", "embeddings", "gamma", "beta"}
_SEQ_METHODS = {"append", "extend", "insert", "pop", "as_list", "copy", "index", "count", "clear", "reverse", "sort"}
_TAPE_METHODS = {"watch", "gradient", "jacobian", "batch_jacobian", "stop_recording", "reset", "watched_variables"}


def flat(val: Val) -> list[Val]:
    """The values inside ``val``: itself, or the known elements of a (nested) list, in order.

    Iterative (a list nested thousands deep is no recursion), and at most ``val.size`` values: the
    interpreter makes no list of more than ``MAX_SIZE``.
    """
    leaves, todo = [], [val]
    while todo:
        val = todo.pop()
        if val.kind == "dict":
            todo.extend(reversed(list(val.attrs["map"].values())))
        elif val.kind != "seq":
            leaves.append(val)
        elif val.items is not None:
            todo.extend(reversed(val.items))
        else:
            leaves.append(val.attrs["elem"] if val.attrs.get("elem") is not None else Val("unknown", opaque=True))
    return leaves


def _value(val: Val | None):
    return None if val is None else val.attrs.get("value")


# ---------------------------------------------------------------------------- attributes and indexing


def attribute(it, base: Val, attr: str, node: ast.AST) -> Val:
    if base.kind == "module" and "names" in base.attrs:         # a module of the project: what it defines
        found = base.attrs["names"].vars.get(attr) or it.submodule(base, attr)
        if found is not None and found.kind in ("class", "func", "module"):
            return found
    if base.kind == "module":
        return Val("module", qual=normalise(f"{base.qual}.{attr}"), text=ast.unparse(node)[:40])
    if base.kind == "class" and isinstance(base.node, ast.ClassDef):     # Base.__init__(self, ...): a function
        for cls, env in mro(base):
            method = method_of(cls, attr)
            if method is not None:
                return Val("func", node=method, attrs={"env": env}, name=attr, qual=attr)
    if base.kind == "tape" and (attr in _TAPE_METHODS or attr in _MISSPELT_METHODS):
        return Val("tmethod", qual=attr, tape=base.tape)
    if base.kind == "model" and attr == "losses" and attr not in base.attrs:
        if _built.no_losses(base) and not _adds_losses(it):
            return it.seq([], attrs={"no_losses_of": base}, text=f"{base.name or 'model'}.losses")
        return _regularization(it, base, node)
    if base.kind == "model":
        return _symbolic_read(_built.read(base, attr, node, _model_attribute(base, attr)), node)
    if base.kind == "foreign" and attr in _MODEL_VARS:
        return _model_attribute(as_model(it, base, node), attr)
    if base.kind == "object" and attr in _MODEL_VARS and base.attrs.get("__unseen_base__"):
        return _model_attribute(as_model(it, base, node), attr)     # tf.Module, snt.Module: the variables it holds
    if base.kind in ("object", "model") and attr not in base.attrs:
        method = _class_method(base, attr)
        if method is not None and _is_property(method.node):       # @property: reading it runs it
            return call(it, method, [], {}, node)
    wrapped = _wrapper_attribute(it, base, attr)
    if wrapped is not None:
        return wrapped
    if base.kind == "object":
        return _object_attribute(base, attr) or _unseen_attribute(it, base, attr)
    if base.kind == "optimizer":
        return Val("omethod", qual=attr, parents=(base,))
    if base.kind == "dataset":
        if attr == "as_numpy_iterator":
            return Val("numpy")
        if attr == "reduce":                                # Dataset.reduce(initial, fn): one value, no gradient
            return Val("dataset", qual=attr, parents=(base,))
        return Val("dataset", qual=attr)                   # .batch(32), .shuffle(...), .map(f): still a dataset
    if base.kind == "seq" and attr in _SEQ_METHODS:
        return Val("bound", qual=attr, parents=(base,))
    if base.kind == "dict" and attr in ("values", "items", "keys", "get"):
        return Val("bound", qual=attr, parents=(base,))
    if base.kind == "dict":                             # d.update(...), d.pop(...): what it holds is not known
        base.kind, base.opaque = "unknown", True
    if base.kind in TENSORISH + ("numpy",):
        if attr == "shape":                                 # x.shape[0] is an int
            return Val("seq", items=None, attrs={"elem": Val("py", dtype="int")}, text=f"{describe_text(base)}.shape")
        if attr in _PY_ATTRS:
            return Val("py", attrs={"value": base.trainable} if attr == "trainable" else {})
        if base.kind == "numpy" and attr == "T":
            return it.op("numpy", (base,), node, "op", base.dtype)
        return Val("bound", qual=attr, parents=(base,))
    if base.kind in ("unknown", "foreign"):
        return _unseen_attribute(it, base, attr)
    return it.made((base,))


def _wrapper_attribute(it, base: Val, attr: str) -> Val | None:
    """``sp.values`` of a SparseTensor, ``dist.log_prob`` of a TFP distribution, ``tv.trainable_variables`` of a TFP
    TransformedVariable or DeferredTensor (not followed); None for any other value."""
    if attr in base.attrs.get("__sparse__", {}):             # a SparseTensor's values, indices
        part = base.attrs["__sparse__"][attr]
        if base.name and not part.name:
            part.name = f"{base.name}.{attr}"                  # named as first read
        return part
    if base.kind == "object" and "__tfp_params__" in base.attrs and attr in ("trainable_variables", "variables") \
            and not any(p.kind == "var" for p in base.attrs["__tfp_params__"]):     # probability#1431: no variable
        text = f"{base.name or 'dist'}.{attr}"
        return it.seq([], attrs={"__tfp_empty__": (base, text)}, text=text)
    if base.attrs.get(_tfp.UNTRACKED) is not None and not base.attrs.get("__template__") \
            and attr in ("trainable_variables", "variables"):         # probability#645, #520: holds none
        text = f"{base.name or 'dist'}.{attr}"
        return it.seq([], attrs={"__tfp_untracked__": (base, text)}, text=text)
    if base.kind == "object" and "__tfp_params__" in base.attrs:     # a TFP distribution's method
        return Val("bound", qual=attr, parents=(base,))
    if base.attrs.get(_tfp.DEFERRED) and attr not in ("shape", "dtype"):
        return _unseen_attribute(it, base, attr)
    return None


_VARIABLE_LISTS = _MODEL_VARS | {"trainable", "vars", "variables_to_train", "trainable_vars"}
_LEAVES_TF = {"numpy", "item", "tolist"}


def _unseen_attribute(it, base: Val, attr: str) -> Val:
    """``obj.attr`` where the linter cannot see what ``obj`` holds (a parameter, what unseen code made): one value per
    object and name, read again the same (``self.net(x)`` then ``self.net.trainable_variables`` speak of one net),
    made from ``obj``. ``obj.trainable_variables`` (and the other names of a list of variables) is a list of unknown
    length of the variables ``obj`` holds: one value stands for them all, and a tape that recorded an operation
    reading ``obj`` (or anything read from it) recorded them. ``obj.numpy()`` leaves TensorFlow whatever ``obj`` is."""
    reads = base.attrs.setdefault("__reads__", {})
    if attr not in reads:
        if attr in _LEAVES_TF:
            reads[attr] = Val("bound", qual=attr, parents=(base,))
        elif attr in _VARIABLE_LISTS:
            held = Val("unknown", op="unknown", parents=(base,), seq=next(it.clock), opaque=True,
                       text=f"{describe_text(base)}.{attr}")
            held.attrs["variables_of"] = base
            reads[attr] = Val("seq", items=None, attrs={"elem": held, "unsized": True}, text=held.text)
        else:
            reads[attr] = it.made((base,))
    return reads[attr]


def _adds_losses(it) -> bool:
    """Whether the source may add losses after a layer is made: an ``add_loss`` call or a regularizer set on an
    attribute anywhere in it (looked at once)."""
    if "adds_losses" not in it.memo:
        it.memo["adds_losses"] = it.tree is None or any(
            isinstance(n, ast.Attribute) and (n.attr == "add_loss" or "regularizer" in n.attr) for n in ast.walk(it.tree))
    return it.memo["adds_losses"]


def _regularization(it, model: Val, node: ast.AST) -> Val:
    """``model.losses``: the regularization losses, computed from the model's weights when read. How many there
    are is not known (none, or one per regularized weight): one stands for them all, and a loop over them is not
    taken to run exactly once."""
    penalty = it.op("tensor", (model,), node, "op", "float", opname=f"{model.name or 'model'}.losses")
    penalty.attrs["maybe"] = True
    return it.seq([penalty], attrs={"unsized": True}, text=f"{model.name or 'model'}.losses")


def _model_attribute(model: Val, attr: str) -> Val:
    if attr in model.attrs:
        return _read_attribute(model.attrs[attr])
    if attr == "optimizer" and model.attrs.get("__optimizer__") is not None:   # the one compile was given
        return model.attrs["__optimizer__"]
    if attr == "layers" and model.attrs.get("__layer_list__") is not None:     # a Sequential of layers in sight
        return Val("seq", items=list(model.attrs["__layer_list__"]), text=f"{model.name or 'model'}.layers")
    method = _class_method(model, attr) if attr not in ("call", "__call__") else None
    if method is not None:
        return method
    if attr in _MODEL_VARS and attr != "non_trainable_variables" and model.attrs.get("__untracked_keras__"):
        text = f"{model.name or 'model'}.{attr}"          # tensorflow#97599: raw tf.Variables, not tracked
        return Val("seq", items=[], attrs={"__keras_untracked__": (model, text)}, text=text)
    if attr in _MODEL_VARS:
        hidden = attr.startswith("trainable") and not model.trainable or attr == "non_trainable_variables"
        return Val("seq", items=[] if hidden else [model], text=f"{model.name or 'model'}.{attr}")
    if attr in _MODEL_WEIGHTS:
        return model
    if attr == "trainable":
        return Val("py", attrs={"value": model.trainable})
    return Val("mmethod", qual=attr, parents=(model,))


def _object_attribute(obj: Val, attr: str) -> Val | None:
    """An attribute of an instance of a class of the source: as set, or its method, or None (not set in sight)."""
    if attr in obj.attrs:
        return _read_attribute(obj.attrs[attr])
    return _class_method(obj, attr)


def _read_attribute(value: Val) -> Val:
    """An attribute's value as last set: another method, run in another order, may have set it otherwise, so
    it is marked (the "not connected" rule does not reason through it)."""
    value.attrs["from_attr"] = True
    return value


def subscript(it, base: Val, index: Val, node: ast.Subscript) -> Val:
    if base.kind == "dict":
        key = _value(index) if index.kind == "py" else None
        found = base.attrs["map"].get(key) if isinstance(key, (str, int, float, bool, tuple)) else None
        return found if found is not None else it.made((base,))
    k = _value(index) if base.kind == "seq" and base.attrs.get("__outputs_of__") is not None else None
    if isinstance(k, int) and not isinstance(k, bool) and k >= 0:  # hf2256: `bert(x)[0]`, one output of a call
        item = it.op("tensor", (base.attrs["elem"],), node, "op", "float", opname="slicing")
        item.attrs["__element__"] = (base.attrs["__outputs_of__"], k)
        return item
    if base.kind == "seq" and base.attrs.get("__sparse_grads__") and it.loops and _value(index) is None \
            and not isinstance(node.slice, ast.Slice):      # simple-sam#8: gradients[i] over every i, in a loop
        return Val("unknown", opaque=True, attrs={"__sparse_grad__": base.attrs["__sparse_grads__"]})
    if base.kind == "seq":
        return _seq_item(base, index, node)
    if _symbolic(base) and base.qual in ("inputs", "outputs"):    # model.inputs[0]: one KerasTensor of the list
        return symbolic_item(base, node)
    if base.attrs.get("promoted"):
        return it.made((base,))
    if base.kind in TENSORISH and base.known:
        return it.op("tensor", (base,), node, "slice", base.dtype, opname="slicing")
    if base.kind == "numpy":
        return it.op("numpy", (base,), node, "op", base.dtype)
    return it.made((base,))


def _seq_item(base: Val, index: Val, node: ast.Subscript) -> Val:
    if base.items is None:
        return base.attrs.get("elem") or Val("unknown", opaque=True)
    i = _value(index)
    if isinstance(i, int) and not isinstance(i, bool) and -len(base.items) <= i < len(base.items):
        return base.items[i]
    if isinstance(node.slice, ast.Slice) and all(p is None or isinstance(p, ast.Constant)
                                                 for p in (node.slice.lower, node.slice.upper, node.slice.step)):
        parts = [p.value if p is not None else None for p in (node.slice.lower, node.slice.upper, node.slice.step)]
        try:
            return Val("seq", items=base.items[slice(*parts)])
        except (TypeError, ValueError):
            return Val("unknown", opaque=True)
    return Val("unknown", opaque=True)


# ---------------------------------------------------------------------------- calls


def call(it, func: Val, args: list[Val], kwargs: dict, node: ast.Call) -> Val:
    kind = func.kind
    if kind == "module":
        qual = normalise(func.qual)
        if call_kind(qual) != "function" and any(_is_code(leaf) for v in args + list(kwargs.values())
                                                 for leaf in flat(v)):
            it.escaped = True                       # tf.map_fn(f, ...), tf.cond(p, f, g): f runs where it is not seen
        result = _hidden(_library(it, qual, args, kwargs, node), args, kwargs)
        pending = it.memo.get(("graph_op", id(node)))
        if pending is not None and pending[0] is node and result.kind == "tensor":
            result.attrs["__graph_op__"] = (node.lineno, node.col_offset, pending[1])
        return result
    if kind == "builtin":
        return _hidden(_builtin(it, func.qual, args, node), args, {})
    if kind == "func":
        if func.qual == "tfop":
            return _hidden(_diff(it, args, kwargs, node, func.text), args, kwargs, func.attrs.get("hidden", False))
        if func.qual == "decorator":
            return args[0] if args else Val("unknown", opaque=True)
        return it.call_user(func, args, kwargs, node)
    if kind == "method":
        return it.call_user(Val("func", node=func.node, attrs=func.attrs), [func.parents[0]] + args, kwargs, node)
    if kind == "class":
        return instantiate(it, func, args, kwargs, node)
    if kind == "tmethod":
        return _hidden(_tape_method(it, func.tape, func.qual, args, kwargs, node), args, kwargs)
    if kind == "mmethod":
        return _model_method(it, func.parents[0], func.qual, args, node, kwargs)
    if kind == "model":
        return _hidden(_model_call(it, func, args, node), args, kwargs)
    if kind == "foreign":
        return _hidden(_model_call(it, as_model(it, func, node), args, node), args, kwargs, True)
    if kind == "object" and _keras_metric(func):                 # a stateful metric: its value is read from variables
        return _diff(it, args, {}, node, f"{func.qual} (a Keras metric object)", "nondiff", "float")
    if kind == "object" and isinstance(func.node, ast.ClassDef) and func.attrs.get("__unseen_base__") \
            and _object_attribute(func, "__call__") is None:     # its __call__ is the library base class's
        return _hidden(_model_call(it, as_model(it, func, node), args, node), args, kwargs, True)
    if kind == "object" and isinstance(func.node, ast.ClassDef):
        before = next(it.clock)
        result = call(it, _object_attribute(func, "__call__") or Val("unknown", opaque=True), args, kwargs, node)
        if func.attrs.get("__unseen_base__"):
            _reads_module(it, as_model(it, func, node), result, before, args + list(kwargs.values()))
        return result
    if kind == "bound":
        return _method(it, func.parents[0], func.qual, args, node)
    if kind == "dataset":
        return _dataset_reduce(it, func, args, node) if func.qual == "reduce" and func.parents else func
    if kind == "omethod":
        return _optimizer_method(it, func.parents[0], func.qual, args, kwargs, node)
    return _unknown_call(it, args, kwargs, func if kind == "unknown" else None)


def _dataset_reduce(it, func: Val, args: list[Val], node: ast.Call) -> Val:
    """``ds.reduce(initial, fn)``: ``fn`` runs inside the dataset's own graph, which no tape records, so the value it
    gives has no gradient with respect to ``initial`` or to what ``fn`` reads (tensorflow#36306). ``fn`` is followed
    on ``initial`` and one element to learn what it reads; an ``fn`` the linter cannot follow leaves it unknown."""
    if len(args) < 2 or not _is_code(args[1]):
        _unknown_call(it, args, {})
        return Val("unknown", opaque=True)
    reduced = call(it, args[1], [args[0], it.element(func.parents[0], node)], {}, node)
    return _diff(it, [reduced, args[0]], {}, node, "tf.data.Dataset.reduce", "nondiff", "float")


def _keras_metric(obj: Val) -> bool:
    """``tf.keras.metrics.Accuracy()`` and every other Keras metric class: calling one updates its variables and
    returns ``result()``, read from them, so no gradient flows back to what it was given."""
    prefix, _, last = obj.qual.rpartition(".")
    return prefix == "tf.keras.metrics" and last[:1].isupper() and obj.node is None


def _unknown_call(it, args: list[Val], kwargs: dict, callee: Val | None = None) -> Val:
    """What code the linter cannot see gives: a value made now from the arguments (a tape passed in is blind), and
    from ``callee`` when that is a value too (an unknown object called, ``model(x)``, or whose method is called,
    ``dist.log_prob(x)``, ``x.foo(y)``): what it holds is read now."""
    for val in args + list(kwargs.values()):
        for leaf in flat(val):
            if leaf.kind == "tape":
                leaf.tape.blind = True
    it.escape(args + list(kwargs.values()))
    return it.made(tuple(args) + tuple(kwargs.values()), callee)


_CODE_KINDS = ("func", "method", "bound", "class", "tmethod", "mmethod", "omethod")


def _is_code(leaf: Val) -> bool:
    """Whether ``leaf`` is code that whoever receives it may run (a function, a method, a class)."""
    return leaf.kind in _CODE_KINDS and leaf.qual != "tfop"


def _hidden(result: Val, args: list[Val], kwargs: dict, hidden: bool = False) -> Val:
    """Mark a tensor made now whose inputs are not all among its parents (a function argument, an input
    passed by keyword and dropped, ``output_gradients``): it may depend on more than the linter sees, so the
    "not connected" rule does not reason through it."""
    made = result.attrs.get("elem") if result.kind == "seq" and result.items is None else result
    if made is None or made.kind not in ("tensor", "numpy", "py") or not made.parents and made.op == "":
        return result
    parents = {p.id for p in made.parents}
    for value in args + list(kwargs.values()):
        for leaf in flat(value):
            if leaf is not made and leaf.id not in parents and (leaf.kind not in ("py", "none", "module")
                                                                 or leaf.kind == "py" and leaf.parents):
                hidden = True
    if hidden:
        made.attrs["hidden"] = True
    return result


def _tensor_parents(args: list[Val], kwargs: dict | None = None) -> tuple:
    """The inputs that matter to a gradient: tensors, NumPy values, models, unknowns, and Python numbers made
    from a tensor (``float(t)``: the mark that the value left TensorFlow survives later operations)."""
    vals = args + list((kwargs or {}).values())
    return tuple(leaf for v in vals for leaf in flat(v)
                 if leaf.kind in TENSORISH + ("numpy", "unknown", "model", "foreign") or leaf.kind == "py" and leaf.parents)


def _diff(it, args, kwargs, node, opname="", how="op", dtype=None, length=None) -> Val:
    parents = _tensor_parents(args, kwargs)
    if dtype is None:
        dtypes = {p.dtype for p in parents}
        dtype = "float" if "float" in dtypes or not parents else "int" if dtypes == {"int"} else None
    return it.op("tensor", parents, node, how, dtype, opname=opname, length=length)


def _library(it, qual: str, args: list[Val], kwargs: dict, node: ast.Call) -> Val:
    if qual.startswith("tf.data."):                         # a dataset: its elements are tensors of unknown value
        return Val("dataset", qual=qual)
    if _is_optimizer(qual):
        _unknown_call(it, args, kwargs)
        if ".train." not in qual:
            _traced.created(it, "optimizer", node)
        opt = Val("optimizer", node.lineno, node.col_offset, qual=qual, text=ast.unparse(node)[:40])
        opt.attrs["slots"] = _traced.has_slots(qual, kwargs)
        return opt
    if qual in _MISSPELT_FUNCTIONS:                         # d2ltf25: tf.gradient raises AttributeError
        it.report("GT027", node.lineno, node.col_offset, _misspelt_message(it, qual, node), None)
        it.calls[(node.lineno, node.col_offset)] = None     # counted as a gradient call (`.gradient`): decided
        _unknown_call(it, args, kwargs)
        return Val("unknown", opaque=True)
    if qual in ("tf.gradients", "tf.hessians", "tf.keras.backend.gradients") and _eager(it):
        it.report("GT018", node.lineno, node.col_offset, _eager_gradients_message(qual, node), None)
        return Val("unknown", opaque=True)
    if not it.alone and not it.graph_mode and (call_kind(qual) in _TF_OPS \
            and not qual.startswith("tf.keras.") or _backend_op(qual)):
        _given_keras_tensor(it, qual, args, kwargs, node)   # tensorflow#52383: raises there (traced too), it ends
    if qual in _KERAS_INPUTS:                               # keract#142: a KerasTensor of a graph built in sight
        made = _unknown_call(it, args, kwargs)
        made.attrs["__keras_input__"] = (node.lineno, node.col_offset, ast.unparse(node)[:40])
        return made
    if qual in _SPARSE_MAKERS:                              # spektral#421: a SparseTensor's values
        return _sparse(it, qual, args, kwargs, node)
    made = _tfp.tfp_call(it, qual, args, kwargs, node) if _tfp.is_tfp(qual) else None
    if made is not None:                                    # TransformedVariable, DeferredTensor, tfd.Normal(...)
        if made.kind == "unknown":
            _unknown_call(it, args, kwargs)
        return made
    if _tfp.is_tfp(qual) or qual in _tfp.TEMPLATES:
        why = _tfp.untracked(qual, args, kwargs, node)      # probability#645: a flow on a TF1 template
        if why is not None:
            made = _unknown_call(it, args, kwargs)
            made.attrs[_tfp.UNTRACKED], made.text = why, ast.unparse(node)[:60]
            made.attrs["__template__"] = qual in _tfp.TEMPLATES
            return made
    kind = call_kind(qual)
    if kind == "variable":
        _traced.created(it, "variable", node)
    handler = _LIBRARY.get(kind)
    if handler is not None:
        return handler(it, qual, args, kwargs, node)
    if kind == "diff" and qual.endswith(".where") and len(args) == 1 and not kwargs:
        return _diff(it, args, {}, node, f"{qual} with one argument (it gives indices)", "nondiff", "int")
    if kind == "unknown" and _foreign_class(qual):
        _unknown_call(it, args, kwargs)
        return Val("foreign", opaque=True, qual=qual, text=ast.unparse(node)[:40])
    if kind == "diff":
        result = _diff(it, args, kwargs, node, qual, length=_stack_length(qual, args))
        if _mixes_rows(qual, args, kwargs):
            result.attrs["mixes_rows"] = True
        return Val("seq", items=None, attrs={"elem": result}) if kind_returns_tuple(qual) else result
    return _unknown_call(it, args, kwargs)


_NOT_MODELS = ("collections.", "pathlib.", "argparse.", "datetime.", "pd.", "pandas.", "sympy.", "cirq.", "tfp.",
               "tensorflow_probability.", "hps.", "hypothesis.", "absl.", "logging.", "threading.", "multiprocessing.",
               "queue.", "io.", "os.", "sys.", "re.", "json.", "PIL.", "matplotlib.", "plt.", "unittest.", "mock.")


_SPARSE_MAKERS = frozenset({"tf.SparseTensor", "tf.sparse.SparseTensor", "tf.sparse.from_dense"})


def _sparse(it, qual: str, args: list[Val], kwargs: dict, node: ast.Call) -> Val:
    """A ``tf.SparseTensor(indices, values, dense_shape)`` or ``tf.sparse.from_dense(t)``: for the tape, its
    ``values`` (a variable given is read now, once: tensorflow#28966), which ``.values`` gives back and ``tf.sparse.*``
    ops read (spektral#421). A sparse value the linter cannot read is unknown."""
    if qual.endswith("from_dense"):
        dense = args[0] if args else kwargs.get("tensor")
        if dense is None or dense.kind not in TENSORISH:
            return _unknown_call(it, args, kwargs)
        values = _diff(it, [dense], {}, node, "tf.sparse.from_dense")
        indices = it.op("tensor", (dense,), node, "nondiff", "int", opname="tf.sparse.from_dense indices")
    else:
        names = ("indices", "values", "dense_shape")
        given = dict(zip(names, args)) | {k: v for k, v in kwargs.items() if k in names}
        if len(given) != 3 or given["values"].kind not in TENSORISH:
            return _unknown_call(it, args, kwargs)
        values, indices = given["values"], given["indices"]
        if values.kind == "var":
            values = _diff(it, [values], {}, node, qual)     # converted once, when the SparseTensor is made
    values.attrs["__sparse__"] = {"values": values, "indices": indices}     # for the tape it is its values
    return values


def _foreign_class(qual: str) -> bool:
    """``Discriminator``, ``models.ResNet18``: a class from a module the linter cannot see (the project's own,
    usually). What it makes is unknown until it is used as a model (called, or asked for its variables)."""
    last = qual.rsplit(".", 1)[-1]
    return last[:1].isupper() and not last.isupper() and not qual.startswith(("tf.", "np.", "math.", "jnp.")) \
        and not qual.startswith(_NOT_MODELS)


def as_model(it, obj: Val, node: ast.AST) -> Val:
    """An instance of a class from unseen code, used as a model (``disc(x)``, ``disc.trainable_variables``): one
    model made of its own variables. Its call is one opaque operation that may give a tuple (see _model_call); what it
    reads besides its input is hidden, so the "not connected" rule never reasons through it."""
    if obj.attrs.get("model") is None:
        model = Val("model", obj.line, obj.col, "leaf", obj.qual, obj.text, seq=it.tick(), dtype="float",
                    name=obj.name)
        model.attrs["foreign"] = True
        if obj.attrs.get("__owner__") is not None:         # a layer of a tf.Module of the source
            model.attrs["__owner__"] = obj.attrs["__owner__"]
        obj.attrs["model"] = model
    return obj.attrs["model"]


def _mixes_rows(qual: str, args: list[Val], kwargs: dict) -> bool:
    """Whether ``qual`` is a reduction over the first (batch) axis: ``tf.reduce_mean(x, axis=0)``, or over all axes."""
    if not qual.rsplit(".", 1)[-1].startswith("reduce_"):
        return False
    axis = kwargs.get("axis", args[1] if len(args) > 1 else None)
    if axis is None or axis.kind == "none":
        return True
    values = [_value(axis)] if axis.kind == "py" else [_value(i) for i in axis.items or ()] if axis.kind == "seq" \
        else []
    return 0 in [v for v in values if isinstance(v, int) and not isinstance(v, bool)]


def _is_optimizer(qual: str) -> bool:
    """``tf.keras.optimizers.Adam``, ``tf.compat.v1.train.GradientDescentOptimizer``, ``tf.optimizers.SGD``."""
    last = qual.rsplit(".", 1)[-1]
    return last[:1].isupper() and (".optimizers." in qual or qual.startswith("tf.optimizers.")
                                   or ".train." in qual and last.endswith("Optimizer"))


def _optimizer_method(it, opt: Val, name: str, args: list[Val], kwargs: dict, node: ast.Call) -> Val:
    """``optimizer.minimize(loss, ...)`` given a loss tensor computed before, not a callable: GT013."""
    _traced.applied(it, opt, name, node)
    loss = args[0] if args else kwargs.get("loss")
    traced = _in_tf_function(it)        # in a tf.function, tf.compat.v1 minimize works
    fresh = _fresh_tape(kwargs.get("tape"))
    if name in ("minimize", "compute_gradients") and loss is not None and ("tape" not in kwargs or fresh) \
            and not it.graph_mode and not (traced and ".train." in opt.qual) and (
            loss.kind in TENSORISH + ("numpy",) or loss.kind == "py" and loss.parents):
        message = _minimize_message(opt, loss, node, fresh) if name == "minimize" else \
            _compute_gradients_message(opt, loss, node)     # njuhugn/CoNet#1: TF1 code run under TensorFlow 2
        it.report("GT013", node.lineno, node.col_offset, message, None)
    elif name == "minimize" and loss is not None and not it.graph_mode and not traced:
        stale = _stale_loss(it, loss, node)
        if stale is not None:
            it.report("GT013", node.lineno, node.col_offset, _stale_message(opt, loss, stale, node), None)
    elif name in ("get_updates", "get_gradients") and ".train." not in opt.qual and _eager(it):
        it.report("GT018", node.lineno, node.col_offset, _get_updates_message(opt, name, node), None)
    elif name == "apply_gradients" and args and not it.graph_mode:
        message = _unpaired_message(args[0], node, ".train." in opt.qual, traced)
        if message is not None:
            it.report("GT013", node.lineno, node.col_offset, message, None)
        elif ".train." not in opt.qual:
            _tensor_to_update(it, args[0], node)
        if ".train." not in opt.qual and ".legacy." not in opt.qual:
            _served(it, opt, args[0], node, traced)
    elif name == "build":                   # built for variables given here: which ones is not followed
        opt.attrs.setdefault("__served__", None)
    return _unknown_call(it, args, kwargs)


def _served(it, opt: Val, given: Val, node: ast.Call, traced: bool) -> None:
    """GT031 (tensorflow#27525): ``opt.apply_gradients(zip(grads, b.trainable_variables))`` after the same Keras
    optimizer was first applied to the variables of other models only (a new model made in a loop, a GAN's two
    networks): a Keras optimizer is built at its first apply for the variables given there and raises for any other.
    Said only when both applies surely run (no branch, a loop of known passes), each is given the variables of models
    made in sight, and the new model shares no layer with those the optimizer was built for."""
    zipped = given.attrs.get("__zipped__")
    leaves = flat(zipped[1]) if zipped is not None and len(zipped) == 2 else []
    known = bool(leaves) and not it.uncertain and not it.alone and not it.graph_mode and all(
        leaf.kind == "model" and not leaf.opaque and not leaf.attrs.get("foreign") and not leaf.attrs.get("__part__")
        for leaf in leaves)
    if "__served__" not in opt.attrs:
        opt.attrs["__served__"] = (leaves, node.lineno, describe_text(zipped[1])) if known else None
        return
    served = opt.attrs["__served__"]
    if served is None or not known:
        return
    held = {v.id for model in served[0] for v in _built.held_models(model, 200)}
    new = [leaf for leaf in leaves if not any(v.id in held for v in _built.held_models(leaf, 200))]
    if not new:
        return
    owner = ast.unparse(node.func.value)[:40] if isinstance(node.func, ast.Attribute) else "optimizer"
    fix = ("make a new optimizer with each new model, here, and a new tf.function with it (run again what defines "
           "the step, or `tf.function(...)` again)" if traced else f"make one optimizer for each model (a new "
           f"`{opt.text}` with this one)")
    model = new[0]
    line, col = (model.line, model.col) if model.line else (node.lineno, node.col_offset)
    what = f"`{model.opname}(...)` makes" if model.opname else "this makes"
    if model.sites:                         # made in a helper: said on the outermost call, where the model comes in
        line, col, text = model.sites[0]
        what = f"`{text[:40]}` makes"
    it.report("GT031", line, col,
              f"{what} a model whose variables `{ast.unparse(node)[:60]}` (line {node.lineno}) gives {owner}, after "
              f"{owner} was first applied to those of another model ({served[2]}, line {served[1]}) that shares no "
              f"layer with it: a Keras optimizer is built at its first apply_gradients for the variables given there, "
              f"so Keras 3 (tf.keras from TensorFlow 2.16 on) raises ValueError (\"Unknown variable: <Variable "
              f"path=...>. This optimizer can only be called for the variables it was originally built with. When "
              f"working with a new set of variables, you should recreate a new optimizer instance.\"), and tf_keras "
              f"raises KeyError (\"The optimizer cannot recognize variable ...\"). Fix: {fix}; or build it once for "
              f"all the variables before the first step, `{owner}.build(a.trainable_variables + "
              f"b.trainable_variables)`.")


def _gradients(val: Val) -> bool:
    """Whether ``val`` is what a tape's gradient call gave (one tensor or a list of them), known element by element."""
    if val.kind == "seq":
        return val.items is not None and bool(val.items) and all(i.kind == "tensor" and i.op == "gradient"
                                                                  for i in val.items)
    return val.kind == "tensor" and val.op == "gradient"


def _unpaired_message(given: Val, node: ast.Call, v1: bool, traced: bool = False) -> str | None:
    """A Keras optimizer's ``apply_gradients`` reads its argument as (gradient, variable) pairs: given the gradients
    alone (tensorflow#28833) it unpacks each gradient as a pair, and given ``zip(grads, v)`` of one tf.Variable
    (tensorflow#58686) or one tensor (tensorflow#31273) zip pairs the rows of the gradient with the rows of ``v``,
    tensors, not variables; inside a tf.function zip cannot iterate a symbolic tensor at all. A tf.compat.v1
    optimizer's unpacks the same way (tensorflow#32478, ``apply_gradients(dy_dx, x)``)."""
    name = ast.unparse(node.func.value)[:40] if isinstance(node.func, ast.Attribute) else "optimizer"
    call = ast.unparse(node)[:60]
    zipped = given.attrs.get("__zipped__")
    if zipped is not None and len(zipped) == 2 and zipped[1].kind in ("var", "tensor") and _gradients(zipped[0]) \
            and not v1:
        var = describe_text(zipped[1])
        what = "one tf.Variable" if zipped[1].kind == "var" else "one tensor (not even a variable)"
        fix = f"Ask for and apply lists: `grads = tape.gradient(loss, [{var}])`, " \
              f"`{name}.apply_gradients(zip(grads, [{var}]))`"
        fix += "." if zipped[1].kind == "var" else f", with {var} a tf.Variable (an optimizer updates variables)."
        if traced:
            return (f"`{call}` zips the gradient with {var}, {what}, not a list of variables, inside a tf.function: "
                    f"zip iterates a symbolic tensor there, which raises OperatorNotAllowedInGraphError (\"Iterating "
                    f"over a symbolic `tf.Tensor` is not allowed\") when the function is traced. {fix}")
        return (f"`{call}` zips the gradient with {var}, {what}, not a list of variables: zip iterates it "
                f"row by row, so apply_gradients gets (gradient row, tensor) pairs and raises AttributeError (\"... "
                f"has no attribute '_unique_id'\"; TypeError \"Cannot iterate over a scalar tensor\" when {var} is a "
                f"scalar). {fix}")
    if zipped is None and _gradients(given):
        return (f"`{call}` is given the gradients alone, not (gradient, variable) pairs: apply_gradients unpacks "
                f"each gradient as a pair, so this raises TypeError or ValueError (\"Cannot iterate over a scalar "
                f"tensor\", \"cannot unpack non-iterable NoneType\", \"too many values to unpack\"; AttributeError "
                f"when a gradient has exactly two rows). Pair them with the variables they were asked for: "
                f"`{name}.apply_gradients(zip(grads, variables))`.")
    return None


def _embedding_held(source: Val) -> tuple | None:
    """(line, text) of the Keras Embedding layer that ``source`` is, or that a Sequential in sight holds, when the
    source stands for its variables: the gradient of its embeddings is a tf.IndexedSlices (rows gathered), not a
    tensor (GT029)."""
    if source.kind != "model" or source.attrs.get("foreign"):
        return None
    layers = list(source.attrs.get("__layer_list__") or ()) or [source]
    found = next((layer for layer in layers if layer.opname.endswith("layers.Embedding")), None)
    return (found.line, found.text or "Embedding(...)") if found is not None else None


def sparse_arithmetic(it, left: Val, right: Val, op: ast.AST, node: ast.AST) -> None:
    """GT029: Python's ``*``, ``/``, ``+`` or ``-`` between a Python number and a gradient that may be an Embedding's
    tf.IndexedSlices (``gradients[i] * rho`` for every ``i``, simple-sam#8): IndexedSlices has none of these operators
    (TypeError); with a tensor, the tensor's own operator converts it."""
    mark = left.attrs.get("__sparse_grad__") or right.attrs.get("__sparse_grad__")
    other = right if left.attrs.get("__sparse_grad__") else left
    if mark is None or not isinstance(op, (ast.Mult, ast.Div, ast.Add, ast.Sub)) \
            or other.kind != "py":           # a tensor's own operator converts it: `g * tf.constant(2.0)` works
        return
    sign = {ast.Mult: "*", ast.Div: "/", ast.Add: "+", ast.Sub: "-"}[type(op)]
    line, text = mark
    it.report("GT029", node.lineno, node.col_offset,
              f"`{ast.unparse(node)[:60]}` applies Python's `{sign}` to each gradient in turn, and the gradient of the "
              f"Embedding's weights (`{text[:50]}`, line {line}) is a tf.IndexedSlices (the rows it gathered; not "
              f"None, but not a tensor either): IndexedSlices has no `{sign}`, so this raises TypeError "
              f"(\"unsupported operand type(s) for {sign}: 'IndexedSlices' and 'float'\"). Convert it first, "
              f"`tf.convert_to_tensor(g)`, or use the "
              f"TensorFlow op (`tf.multiply(g, rho)`, which converts it).", None)


def _tensor_to_update(it, given: Val, node: ast.Call) -> None:
    """``apply_gradients(zip(grads, [w, b]))`` where ``w`` is a tensor, not a tf.Variable: a Keras optimizer reads each
    variable's ``_unique_id`` and raises AttributeError (tensorflow#26922: ``w = w + w`` rebound the variable to a
    tensor inside the function that returned it, while the gradient with respect to that tensor is real). GT005 on
    the rebinding when it is one, else GT013 on the call."""
    zipped = given.attrs.get("__zipped__")
    if zipped is None or len(zipped) != 2 or zipped[1].kind != "seq" or zipped[1].items is None:
        return
    tensor = next((v for v in zipped[1].items if v.kind == "tensor" and v.op != "merge" and not v.attrs.get("maybe")
                   and not v.opaque), None)
    if tensor is None:
        return
    call = ast.unparse(node)[:60]
    raised = "raises AttributeError (\"... object has no attribute '_unique_id'\"): an optimizer updates variables"
    if tensor.rebound is not None:
        line, col, var = tensor.rebound
        it.report("GT005", line, col,
                  f"this rebinds {var}, a tf.Variable, to a plain Tensor, which `{call}` on line {node.lineno} is then "
                  f"given as a variable to update: apply_gradients {raised}, and a tensor is none. Keep {var} the "
                  f"variable: give the new value another name (`{var}_new = ...`) and compute with it, or update "
                  f"{var} in place ({var}.assign(...)) after the gradient.", None)
        return
    it.report("GT013", node.lineno, node.col_offset,
              f"`{call}` is given {describe_text(tensor)}, a tensor, not a tf.Variable, among the variables to "
              f"update: apply_gradients {raised}, and a tensor is none. Make it a tf.Variable, ask for the gradient "
              f"with respect to that variable and apply it.", None)


def _reads_now(value: Val, start: int) -> bool:
    """Whether an operation made at ``start`` or later (while the callable ran) on the way to ``value`` read a
    variable, called a model or took a value of unknown kind: then the callable computes the loss afresh."""
    todo, seen = [value], set()
    while todo:
        val = todo.pop()
        if val.id in seen:
            continue
        seen.add(val.id)
        if len(seen) > 10_000 or not val.known or val.kind in ("var", "model", "unknown"):
            return True
        if val.seq >= start:                    # made while the callable ran: what it was made from counts
            todo.extend(val.parents)
    return False


def _fresh_tape(tape: Val | None) -> bool:
    """Whether ``tape`` is a tf.GradientTape that never recorded (``minimize(loss, var_list,
    tape=tf.GradientTape())``): it holds no path from any variable to the loss."""
    return tape is not None and tape.kind == "tape" and tape.tape is not None and not tape.tape.intervals \
        and not tape.tape.blind


def _stale_loss(it, loss: Val, node: ast.Call) -> Val | None:
    """The tensor ``minimize(lambda: loss, ...)`` hands back when the callable only names a tensor computed before
    the call (``lambda: loss``, ``lambda: self.loss``, or a ``def`` whose body is ``return`` of an expression of
    such tensors and constants, no call of a model or a variable read in it), else None."""
    fn = loss.node if loss.kind == "func" else None
    if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and not fn.args.args and not fn.args.vararg \
            and not fn.args.kwonlyargs and not fn.decorator_list and len(fn.body) == 1 \
            and isinstance(fn.body[0], ast.Return) and fn.body[0].value is not None:
        start = it.tick()
        value = it.call_user(loss, [], {}, node)
        return value if value.kind == "tensor" and value.known and value.op not in ("merge",) \
            and not value.attrs.get("maybe") and not _reads_now(value, start) else None
    if not isinstance(fn, ast.Lambda) or fn.args.args or fn.args.vararg or fn.args.kwonlyargs \
            or not isinstance(fn.body, (ast.Name, ast.Attribute)):
        return None
    value = it.call_user(loss, [], {}, node)
    return value if value.kind == "tensor" and value.known and value.op not in ("merge",) \
        and not value.attrs.get("maybe") else None


def _stale_message(opt: Val, loss: Val, stale: Val, node: ast.Call) -> str:
    name = ast.unparse(node.func.value)[:40] if isinstance(node.func, ast.Attribute) else "optimizer"
    body = ast.unparse(loss.node.body)[:40] if isinstance(loss.node, ast.Lambda) else ""
    where = f" (line {stale.line})" if stale.line else ""
    what = ("the gradient minimize takes of every variable is None, so it raises ValueError (\"No gradients provided "
            "for any variable\")") if ".train." in opt.qual else (
        "this raises AttributeError (a Keras 3 optimizer, which tf.keras gives from TensorFlow 2.16 on, has no "
        "minimize at all); with tf_keras every gradient comes out None and minimize raises ValueError (\"No "
        "gradients provided for any variable\")")
    fix = (f"Compute the loss inside the callable, `{name}.minimize(lambda: <the loss expression>, var_list)`, or "
           f"use a GradientTape and `{name}.apply_gradients(zip(grads, variables))`.")
    if not isinstance(loss.node, ast.Lambda):
        body = ast.unparse(loss.node.body[0].value)[:50]
        return (f"`{loss.node.name}` (line {loss.node.lineno}) returns {body}, computed only from tensors made before "
                f"the call and no variable read in it: minimize records the callable on its own tape, which sees no "
                f"operation on any variable, so {what}. {fix}")
    return (f"`lambda: {body}` hands minimize the tensor {body} computed before{where}: minimize records the "
            f"callable on its own tape, which never saw {body} computed, so {what}. {fix}")


def _eager(it) -> bool:
    """Whether the code being run surely runs eagerly: run by the module itself (not a function run alone, whose
    caller is not in sight), in no function wrapped in tf.function, in a file that builds no TF1 graph."""
    return not it.alone and not it.graph_mode and not _in_tf_function(it)


def _eager_gradients_message(qual: str, node: ast.Call) -> str:
    name = ast.unparse(node.func)
    instead = "nested tapes (`outer.jacobian` of an inner `tape.gradient`)" if qual.endswith("hessians") else \
        "`with tf.GradientTape() as tape:` around the computation, then `tape.gradient(y, x)`"
    return (f"`{name}(...)` runs eagerly here (TensorFlow 2 runs code outside a tf.function eagerly), and there it "
            f"raises RuntimeError (\"tf.gradients is not supported when eager execution is enabled\"). Use {instead}, "
            "or call it inside a function decorated with @tf.function.")


def _get_updates_message(opt: Val, name: str, node: ast.Call) -> str:
    """GT018: ``optimizer.get_updates(loss, params)`` (tensorflow#25472), TF1 Keras's graph-mode API, run eagerly."""
    owner = ast.unparse(node.func.value)[:40] if isinstance(node.func, ast.Attribute) else "optimizer"
    cls = opt.qual.rsplit(".", 1)[-1]
    if ".legacy." in opt.qual:
        raises = ("a legacy optimizer (tf_keras's) takes the gradients of a loss no tape recorded, so they are None "
                  "and it raises ValueError (\"Variable ... has `None` for gradient\"); TensorFlow 2.0 raised "
                  "RuntimeError (\"tf.gradients is not supported when eager execution is enabled\"), and tf.keras of "
                  "TensorFlow 2.16 on (Keras 3) has no legacy optimizers at all (ImportError)")
    else:
        raises = (f"the optimizers of tf.keras (Keras 3 from TensorFlow 2.16 on, and tf_keras's from Keras 2.11 on) "
                  f"have no {name}, so the call raises AttributeError (\"'{cls}' object has no attribute '{name}'\"); "
                  f"under TensorFlow 2.0 it raised RuntimeError (\"tf.gradients is not supported when eager execution "
                  f"is enabled\")")
    return (f"`{owner}.{name}(...)` is the graph-mode API of TF1 Keras, called here eagerly: {raises}. Record the loss "
            f"on a tape and apply its gradients: `with tf.GradientTape() as tape: loss = ...`, then `grads = "
            f"tape.gradient(loss, params)` and `{owner}.apply_gradients(zip(grads, params))`.")


#: names of gradient functions TensorFlow does not have -> the one meant (GT027); a call raises AttributeError
_MISSPELT_FUNCTIONS = {"tf.gradient": "gradient", "tf.grad": "gradient", "tf.jacobian": "jacobian",
                       "tf.batch_jacobian": "batch_jacobian", "tf.hessian": "jacobian"}
#: ... and methods a GradientTape does not have -> the one meant
_MISSPELT_METHODS = {"gradients": "gradient", "grad": "gradient", "grads": "gradient", "jacobians": "jacobian",
                     "batch_jacobians": "batch_jacobian", "hessian": "jacobian", "hessians": "jacobian"}


def _misspelt_message(it, name: str, node: ast.Call, tape: Tape | None = None) -> str:
    """GT027: ``tf.gradient(l, w)`` or ``tape.gradients(l, w)``, names TensorFlow does not have."""
    called = ast.unparse(node.func)
    if tape is not None:
        meant, error = _MISSPELT_METHODS[name], f"'GradientTape' object has no attribute '{name}'"
        owner = tape.name
    else:
        meant, error = _MISSPELT_FUNCTIONS[name], f"module 'tensorflow' has no attribute '{name[3:]}'"
        owner = it.tapes[-1].name if it.tapes else "tape"
    args = ", ".join(ast.unparse(a) for a in node.args)[:60]
    tf_gradients = " (or `tf.gradients` inside a tf.function)" if meant == "gradient" and tape is None else ""
    what = "a method a GradientTape has" if tape is not None else "a function TensorFlow has"
    return (f"`{called}` is not {what}: the call raises AttributeError (\"{error}\"), so no "
            f"gradient is computed. Ask the tape that recorded the target: `{owner}.{meant}({args})`{tf_gradients}.")


def _in_tf_function(it) -> bool:
    """Whether the code being run is inside a function wrapped in tf.function (traced: its tensors are symbolic)."""
    return any(id(fn) in it.traced for fn in it.calling)


def _minimize_message(opt: Val, loss: Val, node: ast.Call, fresh: bool = False) -> str:
    name = ast.unparse(node.func.value)[:40] if isinstance(node.func, ast.Attribute) else "optimizer"
    raises = "RuntimeError (a tf.compat.v1 optimizer)" if ".train." in opt.qual else (
        "AttributeError (a Keras 3 optimizer, which tf.keras gives from TensorFlow 2.16 on, has no minimize at all; "
        "tf_keras raises ValueError without tape=)")
    if fresh:
        raises = ("TypeError (a tf.compat.v1 optimizer's minimize takes no tape)" if ".train." in opt.qual else
                  "AttributeError (a Keras 3 optimizer, which tf.keras gives from TensorFlow 2.16 on, has no minimize "
                  "at all); with tf_keras, the tape passed was made in the call and never recorded the loss, so every "
                  "gradient is None and minimize raises ValueError (\"No gradients provided for any variable\")")
    shown = ast.unparse(node.args[0])[:50] if node.args else describe_text(loss)
    what = (f"the loss {describe_text(loss)} as a tensor that was computed before" if loss.kind != "numpy" else
            f"`{shown}`, a NumPy value (it left TensorFlow, so no gradient reaches it; compute it with TensorFlow "
            f"ops), not a callable")
    return (f"`{ast.unparse(node)[:60]}` passes {what}: "
            f"minimize must compute the loss itself to record it, so this raises {raises}. Pass a callable, "
            f"`{name}.minimize(lambda: <the loss expression>, var_list)`, or compute the gradients with a "
            f"GradientTape and call `{name}.apply_gradients(zip(grads, variables))`.")


def _compute_gradients_message(opt: Val, loss: Val, node: ast.Call) -> str:
    name = ast.unparse(node.func.value)[:40] if isinstance(node.func, ast.Attribute) else "optimizer"
    raises = ("RuntimeError (\"`loss` passed to Optimizer.compute_gradients should be a function when eager "
              "execution is enabled\")") if ".train." in opt.qual else (
        "AttributeError (a Keras 3 optimizer, which tf.keras gives from TensorFlow 2.16 on, has no compute_gradients)")
    return (f"`{ast.unparse(node)[:60]}` passes the loss {describe_text(loss)} as a tensor that was computed before: "
            f"under TensorFlow 2 nothing recorded it (TF1 graph code run eagerly), so this raises {raises}. Compute "
            f"the loss inside `with tf.GradientTape() as tape:` and take `tape.gradient(loss, var_list)`, then "
            f"`{name}.apply_gradients(zip(grads, var_list))`.")


def _stack_length(qual: str, args: list[Val]) -> int | None:
    if qual.endswith(".stack") and args and args[0].kind == "seq" and args[0].items is not None:
        return len(args[0].items)
    return None


def _numpy_call(it, qual, args, kwargs, node) -> Val:
    parents = _tensor_parents(args, kwargs)
    if qual.rsplit(".", 1)[-1] in ("numpy_function", "py_func") and args:
        parents += _closure_models(args[0])     # tensorflow#47288: the model read inside the NumPy function
    leaves = tuple(leaf for v in args + list(kwargs.values()) for leaf in flat(v))
    kind = "py" if qual.startswith("math.") else "numpy"
    if any(p.kind in TENSORISH + ("model",) for p in parents):
        op = it.op(kind, parents, node, "numpy", "float", opname=qual)
        _traced.left_tensorflow(it, op)
        return op
    return it.op(kind, leaves, node, "op", _numpy_dtype(qual, args, kwargs))


def _closure_models(fn: Val) -> tuple:
    """The models and variables of the source that a ``def``/``lambda`` handed to tf.numpy_function reads as free names:
    what it computes from them comes back as NumPy's result, with no path the tape can follow."""
    env = fn.attrs.get("env") if fn.kind == "func" else None
    node = fn.node
    if env is None or not isinstance(node, (ast.FunctionDef, ast.Lambda)):
        return ()
    args = node.args
    bound = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs} | \
        {a.arg for a in (args.vararg, args.kwarg) if a is not None} | \
        {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    found = {}
    for name in sorted({n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
                       - bound):
        value = env.lookup(name)
        if value is not None and value.kind in ("var", "model") and value.known:
            found[value.id] = value
    return tuple(found.values())


def _numpy_dtype(qual: str, args: list[Val], kwargs: dict) -> str | None:
    """The dtype a NumPy call gives: from its literal for array/asarray/arange, float for the float makers."""
    explicit = _dtype_arg(kwargs.get("dtype"))
    last = qual.rsplit(".", 1)[-1]
    if explicit is not None or last in ("array", "asarray", "arange"):
        return explicit or _literal_dtype(args[:1], {})
    floats = ("zeros", "ones", "empty", "eye", "identity", "linspace", "sin", "cos", "exp", "log", "sqrt", "tanh",
              "float32", "float64", "rand", "randn", "normal", "uniform", "random")
    return "float" if last in floats or ".random." in qual and last != "randint" else None


def _variable(it, qual, args, kwargs, node, default_dtype: str | None = None) -> Val:
    init = args[0] if args else kwargs.get("initial_value", Val("unknown"))
    trainable = kwargs.get("trainable", args[1] if len(args) > 1 else None)
    flag = _value(trainable) if trainable is not None else True
    dtype = _dtype_arg(kwargs.get("dtype")) or _literal_dtype([init], {}) or default_dtype
    var = it.op("var", (), node, "leaf", dtype, opname="tf.Variable")
    var.trainable = flag is not False
    var.opaque = not isinstance(flag, bool)
    var.length = init.length
    if init.kind in TENSORISH and init.op != "const":     # tensorflow#29437: tf.Variable(w1 + w1) copies w1 once
        read = frozenset(v.id for v in _built.walk_back(init)[0] if v.kind == "var")
        if read:
            var.attrs["__initial_vars__"] = read
    return var


def _tape(it, qual, args, kwargs, node) -> Val:
    persistent = _value(kwargs.get("persistent")) if "persistent" in kwargs else _value(args[0]) if args else False
    auto = _value(kwargs.get("watch_accessed_variables", Val("py", attrs={"value": True})))
    tape = Tape(node.lineno, node.col_offset, persistent=persistent is True, auto=auto is not False,
                depth=len(it.sites))
    tape.blind = not isinstance(persistent, bool) or not isinstance(auto, bool)
    it.tapes.append(tape)
    return Val("tape", node.lineno, node.col_offset, tape=tape)


def _function(it, qual, args, kwargs, node) -> Val:
    if args and args[0].kind == "func":
        if args[0].node is not None:
            it.traced.add(id(args[0].node))
            it.wrapped.add(id(args[0].node))    # tf.function(f): f itself may also run eagerly, or be wrapped twice
            f = args[0]                         # the wrapper: a call through it runs f traced (GT020, GT002)
            return Val("func", f.line, f.col, node=f.node, attrs={**f.attrs, "wrapper": True}, name=f.name,
                       qual=f.qual)
        return args[0]
    return Val("func", qual="decorator") if not args else Val("unknown", opaque=True)


def _constant(it, qual, args, kwargs, node) -> Val:
    if qual.endswith("convert_to_tensor") and args and args[0].kind == "var":
        return _diff(it, args[:1], {}, node, "tf.convert_to_tensor")    # a read of the variable: a tensor of its own
    if qual.endswith("convert_to_tensor") and args and args[0].kind in TENSORISH:
        return args[0]
    if qual.endswith(("ones_like", "zeros_like")) and args and args[0].kind in TENSORISH:
        return _diff(it, args[:1], {}, node, qual, "nondiff", "float")  # its shape only: OnesLike has no gradient
    if any(leaf.kind in TENSORISH for a in args for leaf in flat(a)):
        return _diff(it, args, kwargs, node, qual)
    leaves = tuple(leaf for v in args for leaf in flat(v))
    dtype = _dtype_arg(kwargs.get("dtype") or (args[1] if len(args) > 1 and qual.endswith("constant") else None))
    if dtype is None:
        dtype = "float" if qual.rsplit(".", 1)[-1] not in ("constant", "range", "convert_to_tensor") \
            else _literal_dtype(args[:1], {})
    length = args[0].length if args and args[0].kind == "seq" and qual.endswith(("constant", "convert_to_tensor")) \
        else None
    return it.op("tensor", leaves, node, "const", dtype, opname=qual, length=length)


def _cast(it, qual, args, kwargs, node) -> Val:
    dtype = _dtype_arg(kwargs.get("dtype") or (args[1] if len(args) > 1 else None))
    how = "nondiff" if dtype == "int" else "op"
    return _diff(it, args[:1], {}, node, f"{qual} to an integer type" if how == "nondiff" else qual, how, dtype)


def _nondiff(it, qual, args, kwargs, node) -> Val:
    short = qual.rsplit(".", 1)[-1]
    dtype = "float" if short in ("round", "floor", "ceil", "sign", "rint") else "int"
    if short == "confusion_matrix":         # counts of (labels, predictions): neither has a gradient (keras#9712)
        inputs = list(args[:2]) + [kwargs[k] for k in ("labels", "predictions") if k in kwargs]
        return _diff(it, inputs, {}, node, qual, "nondiff", dtype)
    # every tensor argument is cut (tf.equal(a, x), tf.searchsorted(edges, x)), not the first only
    return _diff(it, [a for a in args if a.kind in TENSORISH] or args[:1], {}, node, qual, "nondiff", dtype)


def _slicing(it, qual, args, kwargs, node) -> Val:
    base = args[0] if args else Val("unknown", opaque=True)
    piece = _diff(it, args[:1], {}, node, qual, "slice", base.dtype if base.kind in TENSORISH else None)
    if qual.endswith(("unstack", "split")):
        count = _value(args[1]) if qual.endswith("split") and len(args) > 1 else base.length
        count = kwargs.get("num") and _value(kwargs["num"]) or count
        return Val("seq", items=None, attrs={"elem": piece}, length=count if isinstance(count, int) else None)
    return piece


def _keras_model(it, qual, args, kwargs, node) -> Val:
    flag = _value(kwargs.get("trainable")) if "trainable" in kwargs else True
    model = it.op("model", (), node, "leaf", "float", opname=qual)
    model.trainable = flag is not False
    outputs = kwargs.get("outputs", args[1] if len(args) > 1 else None)
    model.attrs["multi"] = qual.endswith("Model") and outputs is not None and outputs.kind != "tensor"
    _built.made_layer(model, qual, args, kwargs)
    _built.layer_list(model, qual, args, node)
    model.attrs["__regularized__"] = "**" in kwargs or len(args) > 4 or any(a.kind == "unknown" for a in args) \
        or any("regularizer" in key for key in kwargs)
    if _derivative.adds_bias(qual, args, kwargs):      # sciann#11: its bias drops out of a derivative by its input
        model.attrs["__adds_bias__"] = True
    if qual.endswith("layers.Dense") and _one_unit_softmax(args, kwargs):     # GT010: the constant 1
        model.attrs["__lambda_cut__"] = ("nondiff", node, "a softmax over one unit")
    if _dead_relu(qual, args, kwargs):                 # GT028: ReLU(0) = 0 for every input, and its gradient is 0
        text = ast.unparse(node)
        model.attrs["__dead_relu__"] = (node.lineno, node.col_offset,
                                        text if len(text) <= 90 else f"{ast.unparse(node.func)[:60]}(...)")
    if qual.endswith("layers.Lambda") and args:     # GT010: a Lambda of a function with no gradient
        model.attrs["__graph_grads__"] = _keras_call.graph_gradients(args[0])      # GT018 when called eagerly
        cut = _keras_call.lambda_cut(args[0])
        model.attrs["__lambda_cut__"] = cut and (cut[0], cut[1] or node, cut[2])    # a TF function: the Lambda's line
        model.attrs["__lambda_parts__"] = None if cut else _keras_call.lambda_parts(args[0])   # tensorflow#44125
    elif qual.endswith("Model") and _one_output(outputs) is not None:     # its output is a Lambda's (mainak4: a list)
        model.attrs["__lambda_cut__"] = _one_output(outputs).attrs.get("__lambda_cut__")
    if qual.endswith("Model") and outputs is not None:
        _built.made_functional(model, outputs)
        model.attrs["__outputs__"] = outputs
        model.attrs["__weights_cut__"] = _weights_cut(model, outputs)
    return model


def _weights_cut(model: Val, outputs: Val) -> tuple | None:
    """The cut of a ``Lambda`` (``__lambda_parts__``) when every layer with weights of a functional model in sight
    reaches its outputs only through it, while the input still passes (tensorflow#44125): the gradient of every
    variable of the model is None, not the input's. None otherwise (a layer with weights reached another way)."""
    held = model.attrs.get("__held__") or []
    if not model.attrs.get("__held_whole__") or not all(_built.sealed(h) or h.attrs.get("__lambda_parts__")
                                                         for h in held):
        return None
    walked, done = _built.walk_back(outputs, lambda v: v.attrs.get("__lambda_part__") is not None)
    live = {v.id for v in walked if v.kind == "model"}
    cuts = [v.attrs["__lambda_part__"] for v in walked if v.attrs.get("__lambda_part__") is not None]
    dead = [h for h in held if _built.fresh(h) and h.id not in live]
    if not done or not cuts or not dead or any(_built.fresh(h) and h.id in live for h in held):
        return None
    return cuts[0]


def _one_output(outputs: Val | None) -> Val | None:
    """The one tensor a functional model's ``outputs`` names: itself, or the only item of a list of one
    (``outputs=[out]``, Mainak431/List-of-Differentiable--OPs#4); None otherwise."""
    if outputs is not None and outputs.kind == "seq" and outputs.items is not None and len(outputs.items) == 1:
        outputs = outputs.items[0]
    return outputs if outputs is not None and outputs.kind == "tensor" else None


def _one_unit_softmax(args: list[Val], kwargs: dict) -> bool:
    """Whether a ``Dense`` layer is made with one unit and a softmax activation (the question of Stefano Testoni on
    Stack Overflow, a critic ``Dense(1, activation='softmax')``): its output is the constant 1."""
    units = kwargs.get("units", args[0] if args else None)
    act = kwargs.get("activation", args[1] if len(args) > 1 else None)
    if units is None or act is None or _value(units) != 1:
        return False
    return _value(act) == "softmax" or act.kind in ("module", "func") and (act.qual or "").endswith("softmax") \
        and (act.qual or "").startswith(("tf.nn.", "tf.keras.activations.", "tf.math."))


_ZERO_LAYERS = ("layers.Dense", "layers.Conv1D", "layers.Conv2D", "layers.Conv3D", "layers.Conv1DTranspose",
                "layers.Conv2DTranspose", "layers.Conv3DTranspose")


def _dead_relu(qual: str, args: list[Val], kwargs: dict) -> bool:
    """Whether a Dense or Conv layer is made with a zero kernel, a zero bias (Keras' default) or none, and a ReLU
    (tensorflow-federated#493): its output is ReLU(0) = 0 whatever the input, and ReLU's gradient at 0 is 0, so no
    gradient ever reaches its weights or those before it. Said only from values written in the code."""
    if not qual.endswith(_ZERO_LAYERS) or "**" in kwargs:
        return False
    act = kwargs.get("activation", args[1] if len(args) > 1 and qual.endswith("layers.Dense") else None)
    relu = act is not None and (_value(act) in ("relu", "relu6") or act.kind in ("module", "func") and (
        act.qual or "").startswith(("tf.nn.", "tf.keras.activations.")) and act.qual.rsplit(".", 1)[-1] in
        ("relu", "relu6"))
    no_bias = "use_bias" in kwargs and _value(kwargs["use_bias"]) is False
    return relu and _zeros(kwargs.get("kernel_initializer")) and (no_bias or "bias_initializer" not in kwargs
                                                                 or _zeros(kwargs["bias_initializer"]))


def _zeros(init: Val | None) -> bool:
    """Whether a Keras initializer written in the code is zeros: ``'zeros'``, ``Zeros()``,
    ``tf.zeros_initializer()``."""
    if init is None:
        return False
    if isinstance(_value(init), str):
        return _value(init).lower() in ("zeros", "zero")
    name = (init.qual or init.opname or "").rsplit(".", 1)[-1]
    return name in ("Zeros", "zeros_initializer")


#: Keras loss functions spelt in capitals (``keras.losses.MSE(y, p)``): functions, not classes
_CAPITAL_FUNCTIONS = {"MSE", "MAE", "MAPE", "MSLE", "KLD"}


def _keras_fn(it, qual, args, kwargs, node) -> Val:
    last = qual.rsplit(".", 1)[-1]
    if last[:1].isupper() and last not in _CAPITAL_FUNCTIONS:   # a loss or activation object: its options not followed
        hidden = any(leaf.kind not in ("py", "none", "module") for v in args + list(kwargs.values()) for leaf in flat(v))
        return Val("func", qual="tfop", text=qual, attrs={"hidden": hidden})
    return _diff(it, args, kwargs, node, qual)


def _opaque(it, qual, args, kwargs, node) -> Val:
    _unknown_call(it, args, kwargs)
    return Val("object", qual=qual)


def _printing(it, qual, args, kwargs, node) -> Val:
    return Val("none")


def _stop(it, qual, args, kwargs, node) -> Val:
    return _diff(it, args[:1], {}, node, qual, "stop")


_LIBRARY = {"numpy": _numpy_call, "variable": _variable, "tape": _tape, "function": _function, "constant": _constant,
            "cast": _cast, "nondiff": _nondiff, "slicing": _slicing, "keras_model": _keras_model,
            "keras_fn": _keras_fn, "opaque": _opaque, "printing": _printing, "stop": _stop}


def _dtype_arg(val: Val | None) -> str | None:
    if val is None:
        return None
    if val.kind == "module":
        return dtype_of_name(val.qual)
    if isinstance(_value(val), str):
        return dtype_of_name(_value(val))
    return None


def _literal_dtype(args: list[Val], kwargs: dict) -> str | None:
    dtype = _dtype_arg(kwargs.get("dtype"))
    if dtype is not None or not args:
        return dtype
    dtypes = {leaf.dtype for leaf in flat(args[0])}
    if "float" in dtypes:
        return "float"
    return "int" if dtypes == {"int"} else None


# ---------------------------------------------------------------------------- builtins and methods


def _builtin(it, name: str, args: list[Val], node: ast.Call) -> Val:
    first = args[0] if args else Val("none")
    if name in ("float", "int") and first.kind in TENSORISH and _in_tf_function(it):
        # autograph makes float(t)/int(t) a tf.cast inside a tf.function (TensorFlow 2.21): float keeps the path
        return _diff(it, [first], {}, node, "int(), which autograph makes a tf.cast to an integer type,"
                     if name == "int" else "float()", "nondiff" if name == "int" else "op", name)
    if name in ("float", "int", "complex", "bool") and first.kind in TENSORISH:
        return it.op("py", (first,), node, "numpy", "float" if name != "int" else "int", opname=f"{name}()")
    if name in ("float", "int", "complex", "bool") and (first.kind == "numpy" or first.kind == "py" and first.parents):
        return it.op("py", (first,), node, "op", "float" if name != "int" else "int", opname=f"{name}()")
    if name in ("float", "int", "len", "isinstance", "str", "repr", "hasattr", "type", "bool", "complex"):
        return Val("py", dtype="int" if name in ("int", "len") else "float" if name == "float" else None,
                   opaque=name not in ("len", "isinstance", "str", "repr", "hasattr", "type") and not first.known)
    if name == "range":
        return _range(args)
    if name == "iter" and first.kind == "dataset":
        return first
    if name == "next" and first.kind == "dataset":
        return it.element(first, node)
    if name in ("list", "tuple") and not args:
        return it.seq([])
    if name in ("list", "tuple"):
        return _as_list(it, first, node)
    if name == "zip":
        return _zip(it, args, node)
    if name == "enumerate":
        return it.seq([Val("seq", items=[Val("py", dtype="int"), make()]) for make in it.iterations(first, node)])
    if name == "sum" and first.kind == "seq" and first.items:
        return _diff(it, first.items, {}, node, "sum")
    if name == "abs" and first.kind in TENSORISH:
        return _diff(it, [first], {}, node, "abs")
    if name == "print":
        return Val("none")
    if name == "super":                     # super(Cls, self) is super(): the proxy hands self to no unseen code
        return Val("unknown", opaque=True)
    return _unknown_call(it, args, {})


def _range(args: list[Val]) -> Val:
    values = [_value(a) for a in args]
    if values and all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        try:
            count = len(range(*values))
        except (TypeError, ValueError):
            count = None
        if count is not None and count <= 8:
            return Val("seq", items=[Val("py", dtype="int", attrs={"value": v}) for v in range(*values)],
                       length=count)
    return Val("seq", items=None, attrs={"elem": Val("py", dtype="int")})


def _as_list(it, value: Val, node: ast.AST) -> Val:
    if value.kind == "seq":
        if value.items is not None:
            return it.seq(list(value.items), attrs=dict(value.attrs))
        return Val("seq", items=None, attrs=dict(value.attrs))
    if value.kind in TENSORISH and value.known:
        return it.seq([make() for make in it.iterations(value, node)])
    return Val("unknown", opaque=True)


def _zip(it, args: list[Val], node: ast.AST) -> Val:
    columns = [[make() for make in it.iterations(a, node)] for a in args]
    zipped = it.seq([Val("seq", items=list(row)) for row in zip(*columns)])
    zipped.attrs["__zipped__"] = tuple(args)            # apply_gradients(zip(grads, v)) of one variable (GT013)
    return zipped


def _seq_method(it, base: Val, name: str, args: list[Val]) -> Val:
    """``list.append`` and friends: the list's elements stay known while they can be."""
    if name in ("as_list", "copy"):
        return base if name == "as_list" else it.seq(list(base.items), attrs=dict(base.attrs)) \
            if base.items is not None else Val("seq", items=None, attrs=dict(base.attrs))
    if name == "append" and args and base.items is not None:
        it.charge(1, "a list")
        base.items.append(args[0])
        base.size += args[0].size
    elif name == "extend" and args and base.items is not None and args[0].kind == "seq" \
            and args[0].items is not None:
        it.charge(len(args[0].items), "a list")
        base.items.extend(args[0].items)
        base.size += args[0].size
    elif name in ("index", "count"):
        return Val("py", dtype="int")
    elif name in ("reverse", "sort") and base.items is not None:
        return Val("none")
    else:                                                   # the elements are no longer known one by one
        elem = base.items[0] if base.items and all(i is base.items[0] for i in base.items) else None
        base.items, base.attrs["elem"] = None, elem
        if name == "pop":
            return elem or Val("unknown", opaque=True)
    if base.items is not None:
        base.length = len(base.items)
        if base.size > it.max_list_size:
            base.items, base.attrs["elem"] = None, None
    return Val("none")


def _dict_method(it, base: Val, name: str, args: list[Val]) -> Val:
    mapping = base.attrs["map"]
    if name == "values":
        return it.seq(list(mapping.values()))
    if name == "keys":
        return it.seq([Val("py", attrs={"value": k}) for k in mapping])
    if name == "items":
        return it.seq([Val("seq", items=[Val("py", attrs={"value": k}), v], length=2) for k, v in mapping.items()])
    key = _value(args[0]) if args and args[0].kind == "py" else None
    found = mapping.get(key) if isinstance(key, (str, int, float, bool, tuple)) else None
    return found if found is not None else it.made(tuple(args) + (base,))


#: a tf.Variable's in-place updates of some of its entries: like assign, not differentiable (the tape does not
#: follow the written values into the variable)
_SCATTERS = frozenset(("scatter_update", "scatter_add", "scatter_sub", "scatter_mul", "scatter_div", "scatter_max",
                       "scatter_min", "scatter_nd_update", "scatter_nd_add", "scatter_nd_sub", "scatter_nd_max",
                       "scatter_nd_min", "batch_scatter_update"))


def _method(it, base: Val, name: str, args: list[Val], node: ast.Call) -> Val:
    if "__tfp_params__" in base.attrs:
        made = _tfp.tfp_method(it, base, name, args, node)
        if made is None:                                    # read now, as unseen
            made = _unknown_call(it, list(base.attrs["__tfp_params__"]) + args, {})
            made.attrs["__drawn__"] = name == "sample"      # a tensor drawn now (GT003: before the block, too early)
        return made
    if base.kind == "seq":
        return _seq_method(it, base, name, args)
    if base.kind == "dict":
        return _dict_method(it, base, name, args)
    if name == "get_shape" and base.kind in TENSORISH:
        return attribute(it, base, "shape", node)
    if name == "numpy" and base.kind in TENSORISH or name in _LEAVES_TF and base.kind == "unknown":
        op = it.op("numpy", (base,), node, "numpy", base.dtype, opname=f".{name}()")
        _traced.left_tensorflow(it, op)
        return op
    if base.kind == "numpy" or name in ("numpy", "item", "tolist"):   # .item(), .tolist(): Python numbers
        kind = "py" if name in ("item", "tolist") else "numpy"
        return it.op(kind, (base,) + tuple(args), node, "op", base.dtype)
    if name in ("read_value", "value"):
        return _diff(it, [base], {}, node, name)
    if name in ("assign", "assign_add", "assign_sub") and base.op == "slice" and len(base.parents) == 1 \
            and base.parents[0].kind == "var":          # v[:, :2].assign(x): a sliced assign writes into v
        base = base.parents[0]
    if name in ("assign", "assign_add", "assign_sub") and base.kind == "var" and args:
        base.attrs.setdefault("__assigns__", []).append((args[0], node.lineno, node.col_offset,
                                                          ast.unparse(node)[:60], next(it.clock)))
        return base
    if name in _SCATTERS and base.kind == "var" and args:   # v.scatter_nd_add(indices, updates): an assign too
        written = args[-1] if name.startswith("scatter_nd") or name == "batch_scatter_update" else args[0]
        base.attrs.setdefault("__assigns__", []).append((written, node.lineno, node.col_offset,
                                                          ast.unparse(node)[:60], next(it.clock)))
        return base
    if name.startswith("assign") or name in ("set_shape",):
        return Val("none")
    return _unknown_call(it, args, {}, base)


def instantiate(it, cls: Val, args: list[Val], kwargs: dict, node: ast.AST) -> Val:
    """An instance of a class of the source, its ``__init__`` run abstractly (``self.layer``, ``self.var`` kept).

    An instance of a Keras Model/Layer subclass is a model (called as one opaque operation on its weights);
    the layers and variables its ``__init__`` makes are its own, so a path from one of them is a path from it.
    """
    if cls.qual == "tf.keras.Model":
        obj = _keras_model(it, cls.qual, [], {}, node)
        obj.attrs["multi"] = _returns_tuple(next((c for c, _ in mro(cls) if method_of(c, "call")), cls.node))
        obj.node, obj.attrs["__env__"] = cls.node, cls.attrs.get("env")
    else:
        obj = Val("object", node=cls.node, attrs={"__env__": cls.attrs.get("env")}, line=node.lineno)
    obj.attrs["__mro__"] = mro(cls)
    if obj.kind == "object" and any(klass.attrs.get("unseen_base") for klass in _classes(cls)):
        obj.attrs["__unseen_base__"] = True
    init = _class_method(obj, "__init__")
    if init is not None:
        call(it, init, args, kwargs, node)
    if obj.kind == "model":
        plain = all(k.attrs.get("plain") for k in _classes(cls))
        _built.made_subclass(obj, [c for c, _ in obj.attrs["__mro__"]], plain)
        _built.untracked_variables(obj, [c for c, _ in obj.attrs["__mro__"]], plain)
    if obj.kind == "model":
        _base_weights(it, obj, cls, kwargs, node)
    build = _class_method(obj, "build") if obj.kind == "model" else None
    if build is not None:               # Keras builds a layer before its first call: what build sets, call reads
        call(it, build, [Val("unknown", opaque=True)], {}, node)
    if obj.kind == "model" and obj.attrs.get("__lambda_cut__") is None:     # GT010: a Lambda written as a class
        obj.attrs["__lambda_cut__"] = _keras_call.call_cut(obj)
    return obj


def _base_weights(it, obj: Val, cls: Val, kwargs: dict, node: ast.AST) -> None:
    """A subclass of a Keras layer that keeps its base's ``build`` (``class WN(Conv2D)``): the weights that ``build``
    makes (``self.kernel``, ``self.bias`` unless ``use_bias=False``), as if ``build`` had called ``add_weight``."""
    no_bias = _value(kwargs.get("use_bias")) is False if "use_bias" in kwargs else False
    for attr in _keras_call.base_weights(cls.node):
        if attr not in obj.attrs and not (attr == "bias" and no_bias):
            var = _variable(it, "tf.Variable", [], {}, node, default_dtype="float")
            var.name, var.attrs["__owner__"] = f"{obj.name or cls.name}.{attr}", obj
            obj.attrs[attr] = var


def _class_method(obj: Val, attr: str) -> Val | None:
    """The method ``attr`` of a class of the source (or of a base class of the source it inherits it from), bound
    to ``obj``, or None."""
    cls = obj.node
    if not isinstance(cls, ast.ClassDef):
        return None
    for klass, env in obj.attrs.get("__mro__") or [(cls, obj.attrs.get("__env__"))]:
        method = method_of(klass, attr)
        if method is not None:
            return Val("method", node=method, parents=(obj,), attrs={"env": env})
    return None


_MAX_BASES = 16


def mro(cls: Val) -> list[tuple[ast.ClassDef, object]]:
    """(definition, the scope it was defined in) of ``cls`` and of its base classes of the source, nearest first
    (depth first, each once, at most ``_MAX_BASES``): where a method is looked up."""
    order, todo, seen = [], [cls], set()
    while todo and len(order) < _MAX_BASES:
        klass = todo.pop(0)
        if id(klass.node) in seen or not isinstance(klass.node, ast.ClassDef):
            continue
        seen.add(id(klass.node))
        order.append((klass.node, klass.attrs.get("env")))
        todo[:0] = klass.attrs.get("bases", [])
    return order


def _reads_module(it, model: Val, result: Val, before: int, args: list[Val]) -> None:
    """A ``tf.Module`` of the source called: what its ``__call__`` gave was computed from the variables it holds,
    some made where the linter cannot see (a library base class, a variable made on first call), so a tape recording
    now records it from them. Optimistic on purpose: it only makes a pair connected, and no rule fires on one."""
    seq, given = next(it.clock), {leaf.id for arg in args for leaf in flat(arg)}
    for leaf in flat(result):
        made_here = leaf.seq >= before or leaf.kind == "unknown" and not leaf.seq and leaf.id not in given
        if leaf.kind not in TENSORISH + ("unknown",) or not made_here:         # made by this call only
            continue
        for tape in it.stack:
            if it.tracked(tape, model, seq):
                leaf.rec[tape] = leaf.rec.get(tape, frozenset()) | {model.id}


def _is_property(fn: ast.AST) -> bool:
    return any(isinstance(d, ast.Name) and d.id in ("property", "cached_property") or isinstance(d, ast.Attribute)
               and d.attr == "cached_property" for d in getattr(fn, "decorator_list", ()))


def _classes(cls: Val) -> list[Val]:
    """``cls`` and its base classes of the source (as ``mro``), as class values."""
    order, todo, seen = [], [cls], set()
    while todo and len(order) < _MAX_BASES:
        klass = todo.pop(0)
        if id(klass) not in seen:
            seen.add(id(klass))
            order.append(klass)
            todo[:0] = klass.attrs.get("bases", [])
    return order


def method_of(cls: ast.ClassDef, name: str) -> ast.AST | None:
    """The definition of the method ``name`` in the body of ``cls``, or None."""
    return next((stmt for stmt in cls.body if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef))
                 and stmt.name == name), None)


def _returns_tuple(cls: ast.ClassDef) -> bool:
    """Whether a Keras model class's ``call`` may return several outputs (or cannot be read)."""
    call_def = next((f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "call"), None)
    if call_def is None:
        return True
    returns = [n.value for n in ast.walk(call_def) if isinstance(n, ast.Return)]
    return not returns or any(not isinstance(r, (ast.BinOp, ast.Call, ast.Name, ast.UnaryOp)) for r in returns)


def _model_call(it, model: Val, args: list[Val], node: ast.Call) -> Val:
    _built.touched(model)
    _global_graph_tensor_in_call(it, model, args, node)         # microscopy#32: raises while the graph is built
    args = _lambda_parts(it, model, args, node)                 # tensorflow#44125: a Lambda cutting a part
    return _through_weights_cut(it, model, args, node) or _layer_call(it, model, args, node)


def _layer_call(it, model: Val, args: list[Val], node: ast.Call) -> Val:
    """What calling a Keras model or layer ``model`` on ``args`` gives, each kind of cut on the way said."""
    # a layer called on a model's graph tensors (`Lambda(f)(body.output)`, `body.outputs[0]`) reads them too
    inputs = _tensor_parents(args) + tuple(leaf for v in args for leaf in flat(v) if _symbolic(leaf))
    _eager_lambda_gradients(it, model, args)
    _traced_layers(it, model, node)
    cut = _memo(it, "assign_cut", model.node, lambda: _keras_call.assign_cut(model)) \
        if isinstance(model.node, ast.ClassDef) and not model.attrs.get("foreign") else None
    if cut is not None and inputs:          # GT012: call returns what it assigned from its inputs, not the inputs
        value = it.op("tensor", inputs, node, "op", "float", opname=f"{cut[3]}.call")
        model.attrs.setdefault("__call_assigns__", []).append((value,) + cut[:3] + (next(it.clock),))
        inputs = ()
    inputs = _embedding_ids(it, model, inputs, node)
    cut = _lambda_tail(model) if inputs else None
    if cut is not None:                     # GT010: the last layer with weights is cut off by a Lambda after it
        how, where, text = cut
        out = it.op("tensor", (model,) + inputs, where or node, how, "float", opname=text)
        out.attrs["__lambda_cut__"] = (how, where or node, text)    # a functional model ending here is cut too
        return out
    cut = _memo(it, "weight_cut", model.node, lambda: _keras_call.weight_cut(model)) \
        if isinstance(model.node, ast.ClassDef) and not model.attrs.get("foreign") else None
    if cut is not None:                     # GT010: the layer's own weights reach what call returns only through it
        weights = tuple(w for w in (model.attrs.get(a) for a in sorted(cut[3])) if w is not None and w.kind == "var")
        behind = it.op("tensor", weights or (model,), cut[0], cut[4], "float", opname=cut[1].split("(", 1)[0])
        out = it.op("tensor", (behind,) + inputs, node, "op", "float", opname=model.name or "model")
        out.attrs["__call_of__"] = model
        return out
    frozen = _memo(it, "frozen_cut", model.node, lambda: _keras_call.frozen_cut(model)) \
        if isinstance(model.node, ast.ClassDef) and not model.attrs.get("foreign") else None
    if frozen is not None:                  # GT007: a weight reaches call only through what build computed from it
        values = [model.attrs.get(a) for a in sorted(frozen[0])]
        direct = [model.attrs.get(a) for a in sorted(frozen[1])]
        if all(v is not None and v.kind == "tensor" and v.op != "leaf" for v in values) \
                and all(w is not None and w.kind == "var" for w in direct):
            stored = tuple(_frozen_value(value, frozen[2]) for value in values)
            unread = {w.id: w for v in stored for w in v.parents if w not in direct}
            model.attrs["__unread__"], model.attrs["__unread_vals__"] = frozenset(unread), tuple(unread.values())
            out = it.op("tensor", stored + tuple(direct) + inputs, node, "op", "float", opname=model.name or "model")
            out.attrs["__call_of__"] = model
            return out
    held = _held_frozen(it, model) if inputs else None
    if held is not None:                    # GT007: the same, for a layer of a Sequential (keras-team/keras#4401)
        stored, unread = held
        model.attrs["__unread__"] = frozenset(w.id for w in unread) | model.attrs.get("__unread__", frozenset())
        model.attrs["__unread_vals__"] = tuple(unread)
        out = it.op("tensor", (model,) + stored + inputs, node, "op", "float", opname=model.name or "model")
        out.attrs["__call_of__"] = model
        return out
    bridged = _bridged_layer(it, model) if inputs else None
    if bridged is not None:                 # GT002: a layer's call gives NumPy's result, not a path from the input
        value = it.op("tensor", inputs, node, "op", "float", opname=f"{bridged[3]}.call")
        model.attrs.setdefault("__call_bridges__", []).append((value,) + bridged[:3] + (next(it.clock),))
        inputs = ()
    out = it.op("tensor", (model,) + inputs, node, "op", "float", opname=model.name or "model")
    out.attrs["__call_of__"] = model        # GT017: a tensor of its own, when the model is sealed (_built.fresh)
    if model.attrs.get("foreign"):      # it may give a tuple: indexing or iterating it is "can't tell", arithmetic is followed
        out.attrs["promoted"] = True
    return _outputs(model, out)


def _outputs(model: Val, out: Val) -> Val:
    """What a call of ``model`` gives: ``out``, or for a model that may give several outputs a tuple of them; when its
    class is in sight, the tuple remembers the model, so that ``model(x)[k]`` says which one is read."""
    if not model.attrs.get("multi"):
        return out
    outs = Val("seq", items=None, attrs={"elem": out})
    if isinstance(model.node, ast.ClassDef) and not model.attrs.get("foreign"):
        outs.attrs["__outputs_of__"] = model    # which of them is read, for _keras_call.dead_layers
    return outs



def _module_functions(it, layer: Val) -> dict[str, ast.FunctionDef]:
    """The functions defined at the top of the module that defines ``layer``'s class, by name (names defined once)."""
    mro = layer.attrs.get("__mro__") or ()
    env = mro[0][1] if mro else None
    found: dict[str, ast.FunctionDef] = {}
    for fn, where, cls in it.functions:
        if cls is None and where is env and env is not None:
            found[fn.name] = fn if fn.name not in found else None
    return {name: fn for name, fn in found.items() if fn is not None}


def _held_frozen(it, model: Val) -> tuple[tuple[Val, ...], list[Val]] | None:
    """For a Sequential in sight: the values ``build`` or ``__init__`` of its layers computed from their weights, where
    a layer's ``call`` reaches a weight only through such a value (``_keras_call.frozen_cut``), and those weights (read
    by no call, so a tape around the Sequential's call records nothing on them). None when there is none."""
    layers = model.attrs.get("__layer_list__") or ()
    if not layers or model.attrs.get("foreign") or model.opname.rsplit(".", 1)[-1] != "Sequential":
        return None
    stored, unread = [], {}
    for layer in layers:
        if not isinstance(layer, Val) or not isinstance(layer.node, ast.ClassDef) or layer.attrs.get("foreign"):
            continue
        frozen = _memo(it, "frozen_cut", layer.node, lambda layer=layer: _keras_call.frozen_cut(layer))
        if frozen is None:
            continue
        values = [layer.attrs.get(a) for a in sorted(frozen[0])]
        direct = [layer.attrs.get(a) for a in sorted(frozen[1])]
        if all(v is not None and v.kind == "tensor" and v.op != "leaf" for v in values) \
                and all(w is not None and w.kind == "var" for w in direct):
            made = tuple(_frozen_value(value, frozen[2]) for value in values)
            stored.extend(made)
            unread.update({w.id: w for v in made for w in v.parents if w not in direct})
    return (tuple(stored), list(unread.values())) if stored else None


def _frozen_value(value: Val, cls: str) -> Val:
    """What ``build`` stored, as the weights it was computed from: made before any tape, nothing else it read (the
    input shape, a constant mask) can connect it to one, so only its path from the weights matters."""
    key = "__frozen__"
    if key not in value.attrs:                  # the weights it read, through any operations (a gather, a concat)
        weights = tuple(p for p in _built.walk_back(value)[0] if p.kind == "var")
        value.attrs[key] = Val("tensor", value.line, value.col, value.op, value.opname, value.text, weights,
                               value.seq, {}, value.dtype, attrs={"__built_by__": cls})
    return value.attrs[key]


def _eager_lambda_gradients(it, model: Val, args: list[Val]) -> None:
    """GT018: ``model`` (or a layer it holds) is a ``Lambda`` whose function calls ``tf.gradients``/``K.gradients``,
    and it is called eagerly on values (not on Keras ``Input`` tensors while a functional model is built, where
    Keras traces it): the Lambda runs the function then, which raises RuntimeError (tensorflow#31719)."""
    if model.attrs.get("foreign") or not _eager(it) or not args \
            or not all(_concrete(leaf) for a in args for leaf in flat(a)):
        return
    found = next((layer.attrs["__graph_grads__"] for layer in _built.held_models(model, 200)
                  if layer.attrs.get("__graph_grads__")), None)
    if found is not None:
        inner, qual = found
        it.report("GT018", inner.lineno, inner.col_offset,
                  f"`{ast.unparse(inner)[:60]}` is in the function of a Lambda layer, and the model holding it is "
                  f"called eagerly (`{model.name or 'model'}(...)` outside a tf.function): the Lambda runs it then, "
                  f"and {qual} raises RuntimeError (\"tf.gradients is not supported when eager execution is "
                  f"enabled\"). Compute the gradient with a `tf.GradientTape` inside a custom layer's `call`, or call "
                  f"the model inside a function decorated with @tf.function.", None)


def _through_weights_cut(it, model: Val, args: list[Val], node: ast.Call) -> Val | None:
    """GT010: what a functional model whose every weight reaches the output only through a Lambda's cut gives
    (``__weights_cut__``): its variables behind the cut, its inputs passed on; None for any other model."""
    cut = model.attrs.get("__weights_cut__") if not model.attrs.get("maybe") else None
    if cut is None or not args:
        return None
    how, where, text = cut
    behind = it.op("tensor", (model,), where or node, how, "float", opname=text)
    out = it.op("tensor", (behind,) + _tensor_parents(args), node, "op", "float", opname=model.name or "model")
    out.attrs["__call_of__"] = model
    return out


def _lambda_parts(it, model: Val, args: list[Val], node: ast.Call) -> list[Val]:
    """``args`` of a ``Lambda`` whose function cuts some parts of the list it is called on (``__lambda_parts__``):
    each such part replaced by a value without a gradient back to it, marked as that cut (tensorflow#44125)."""
    parts = model.attrs.get("__lambda_parts__")
    if not parts or len(args) != 1 or args[0].kind != "seq" or args[0].items is None \
            or max(parts) >= len(args[0].items):
        return args
    items = list(args[0].items)
    for k, (how, where, text) in parts.items():
        items[k] = it.op("tensor", (items[k],), where or node, how, "float", opname=text)
        items[k].attrs["__lambda_part__"] = (how, where or node, text)
    return [it.seq(items)]


def _concrete(leaf: Val) -> bool:
    """Whether ``leaf`` is a value computed from values the linter saw made (a constant, a variable, NumPy data), not
    from a Keras ``Input`` or anything unknown: a model called on it runs eagerly."""
    if leaf.kind not in ("tensor", "var", "numpy") or leaf.opaque:
        return False
    walked, done = _built.walk_back(leaf)
    return done and not any(v.kind == "unknown" or v.opaque for v in walked)


EMBEDDING_IDS = "an Embedding's cast of its input to integer ids"


def _embedding_ids(it, model: Val, inputs: tuple, node: ast.Call) -> tuple:
    """What ``model``'s call reads of ``inputs``: a Keras ``Embedding`` casts what it is given to integer ids
    (tensorflow#45219: a model's float predictions fed to one), so no gradient flows back through the lookup to what
    computed them, while its own weights still learn. The ids are a cut on the way, like a ``Lambda`` without a
    gradient (GT010); given ids already (a cast before it), the cut is there, not here."""
    if not inputs or not model.opname.endswith("layers.Embedding") or model.attrs.get("foreign") or any(
            i.dtype == "int" or i.attrs.get("__lambda_cut__") for i in inputs):
        return inputs
    ids = it.op("tensor", inputs, node, "nondiff", "int", opname=EMBEDDING_IDS)
    ids.attrs["__lambda_cut__"] = ("nondiff", node, EMBEDDING_IDS)
    return (ids,)


def _traced_layers(it, model: Val, node: ast.Call) -> None:
    """In a traced function: the layers made and the NumPy calls in the ``call`` of the layer classes ``model`` holds
    (GT020, GT002)."""
    if not model.attrs.get("foreign") and _traced.traced_frame(it) is not None:
        for layer in _keras_call.held_classes(model):
            _traced.layer_in_call(it, node, _memo(it, "layers_made", layer.node,
                                                  lambda: _keras_call.layers_made(layer, it.keras_layers)))
            _traced.numpy_in_call(it, node, _memo(
                it, "numpy", layer.node, lambda: _keras_call.numpy_in_call(layer, _module_functions(it, layer))))


def _lambda_tail(model: Val) -> tuple | None:
    """The cut of a ``Lambda`` layer (``_keras_call.lambda_cut``) that is ``model`` itself or a layer of a Sequential
    in sight after which no layer has weights (each sealed: its call reads only its input and its weights), so that
    nothing the call gives reaches back through it: then neither the inputs nor any weight of the model reach the
    output for the tape. None otherwise (a layer with weights after it keeps a path, which this does not split)."""
    if model.attrs.get("foreign") or model.attrs.get("maybe"):
        return None
    layers = list(model.attrs.get("__layer_list__") or ()) or [model]
    for k in range(len(layers) - 1, -1, -1):
        cut = layers[k].attrs.get("__lambda_cut__")
        if cut is not None:
            return cut if all(_built.sealed(after) and not _built.fresh(after) for after in layers[k + 1:]) else None
        if not (_built.sealed(layers[k]) and not _built.fresh(layers[k])) and layers[k] is not model:
            return None
    return None

def _bridged_layer(it, model: Val) -> tuple | None:
    """A NumPy bridge of the input (``_keras_call.bridge_cut``) in the ``call`` of ``model`` (a class of the source) or
    of one of the layers of a Sequential of layers in sight, each run in turn on the input: either cuts the path."""
    if model.attrs.get("foreign"):
        return None
    layers = [model] if isinstance(model.node, ast.ClassDef) else list(model.attrs.get("__layer_list__") or ())
    for layer in layers:
        if isinstance(layer.node, ast.ClassDef) and not layer.attrs.get("foreign"):
            cut = _memo(it, "bridge_cut", layer.node, lambda: _keras_call.bridge_cut(layer))
            if cut is not None:
                return cut
    return None


def _memo(it, what: str, node: ast.AST, work):
    """``work()`` once per syntax node (a class's ``call`` read once, however often its model is called)."""
    key = ("keras_call", what, id(node))
    if key not in it.memo:
        it.memo[key] = (node, work())       # the node is kept with the answer: its id is not reused meanwhile
    return it.memo[key][1]


def _model_method(it, model: Val, name: str, args: list[Val], node: ast.Call, kwargs: dict | None = None) -> Val:
    kwargs = kwargs or {}
    _built.touched(model)
    if name in ("call", "__call__"):
        return _model_call(it, model, args, node)
    if model.attrs.get("foreign"):                  # its methods are unseen code: predict may give a tensor there
        return _unknown_call(it, args, kwargs, model)
    if name in ("predict", "predict_on_batch", "evaluate", "test_on_batch", "get_weights"):   # keras#10556: copies
        return it.op("numpy", (model,) + _tensor_parents(args), node, "numpy", "float", opname=f".{name}()")
    if name == "set_weights" and args and it.stack:     # GT023: the new values reach the variables through NumPy
        copied = _tensor_parents(args)
        if copied:
            value = it.op("tensor", copied, node, "op", "float", opname=".set_weights()")
            model.attrs.setdefault("__assigns__", []).append((value, node.lineno, node.col_offset,
                                                               ast.unparse(node)[:60], next(it.clock)))
        return Val("none")
    if name == "compile":
        _compiled(model, node, kwargs.get("optimizer", args[0] if args else None))
    if name in _TRAINS:
        _trained_without_a_loss(it, model, name, node)
    if name in ("compile", "fit", "summary", "build", "save", "save_weights"):
        return Val("none")
    if name in ("add", "pop"):                      # Sequential.add/pop: its list of layers changes
        model.attrs.pop("__layer_list__", None)
    if name == "get_layer":                         # one of its layers, which one not followed: seen, never sealed
        return Val("model", opname="get_layer", text=ast.unparse(node)[:40], name=ast.unparse(node)[:40],
                   attrs={"__owner__": model, "__part__": True})
    if name in ("add_weight", "add_variable"):
        return _variable(it, "tf.Variable", [], {"trainable": kwargs.get("trainable", Val("py", attrs={"value": True})),
                                                   "dtype": kwargs.get("dtype")} if kwargs.get("dtype") else
                         {"trainable": kwargs.get("trainable", Val("py", attrs={"value": True}))}, node,
                         default_dtype="float")
    return _unknown_call(it, args, {}, model)


#: a Keras model's methods that take a training step with the loss given to compile (GT030)
_TRAINS = ("fit", "train_on_batch", "fit_generator")


#: the optimizers ``compile`` takes by name -> their class (``model.optimizer`` is one of them, for GT018)
_OPTIMIZER_NAMES = {"adam": "Adam", "sgd": "SGD", "rmsprop": "RMSprop", "adagrad": "Adagrad", "adadelta": "Adadelta",
                    "adamax": "Adamax", "nadam": "Nadam", "ftrl": "Ftrl", "adamw": "AdamW"}


def _compiled(model: Val, node: ast.Call, optimizer: Val | None) -> None:
    """``model.compile(...)``: where, when it is given no loss (no ``loss=``, ``loss=None``, not two positional
    arguments, no ``**options``), for GT030; a compile with a loss forgets an earlier one without. The optimizer
    it is given, when known (a Keras optimizer made in sight, or its name), is what ``model.optimizer`` reads."""
    named = _value(optimizer) if optimizer is not None and optimizer.kind == "py" else None
    if isinstance(named, str) and named.lower() in _OPTIMIZER_NAMES:
        qual = f"tf.keras.optimizers.{_OPTIMIZER_NAMES[named.lower()]}"
        optimizer = Val("optimizer", node.lineno, node.col_offset, qual=qual, text=repr(named))
    model.attrs["__optimizer__"] = optimizer if optimizer is not None and optimizer.kind == "optimizer" else None
    loss = next((k.value for k in node.keywords if k.arg in ("loss", None)), None)
    given = len(node.args) >= 2 or any(isinstance(a, ast.Starred) for a in node.args) or loss is not None \
        and not (isinstance(loss, ast.Constant) and loss.value is None)
    model.attrs["__no_loss__"] = None if given else (node.lineno, node.col_offset, ast.unparse(node)[:60])


def _trained_without_a_loss(it, model: Val, name: str, node: ast.Call) -> None:
    """GT030 (keras-team/keras#15420): ``model.fit(...)`` of a model last compiled with no loss, whose ``losses`` are
    surely empty (a Sequential or functional model of known layers with no regularizer, no ``add_loss`` in the
    source): Keras has nothing to differentiate and raises."""
    where = model.attrs.get("__no_loss__")
    if where is None or not _built.no_losses(model) or _adds_losses(it):
        return
    owner = model.name or "model"
    it.report("GT030", where[0], where[1],
              f"`{where[2]}` gives {owner} no loss, and its layers add none (no regularizer, no add_loss), so "
              f"`{owner}.{name}(...)` on line {node.lineno} has nothing to differentiate: Keras 3 (tf.keras from "
              f"TensorFlow 2.16 on) raises ValueError (\"No loss to compute. Provide a `loss` argument in "
              f"`compile()`.\"), tf_keras raises ValueError (\"No loss found. You may have forgotten to provide a "
              f"`loss` argument in the `compile()` method.\"), and TensorFlow 2.4 raised ValueError (\"No gradients "
              f"provided for any variable\"). Pass the loss to compile, e.g. `{owner}.compile(optimizer=..., "
              f"loss=\"mse\")` (or a loss function or object), or have a layer add one with `self.add_loss(...)`.",
              None)


_SYMBOLIC = ("inputs", "input", "outputs", "output")


def _symbolic_read(read: Val, node: ast.AST) -> Val:
    """``read``, a model's attribute; ``model.input`` and its kin remember where they were read (for GT019)."""
    if read.kind == "mmethod" and read.qual in _SYMBOLIC:
        read.attrs["read"] = (node.lineno, node.col_offset, ast.unparse(node)[:40])
    return read


def symbolic_item(tensors: Val, node: ast.AST, index: int | None = None) -> Val | None:
    """One KerasTensor of a model's ``inputs`` or ``outputs`` list (``model.inputs[0]``; ``first, = model.inputs``,
    the ``index``-th unpacked); None when ``tensors`` is not such a list."""
    if not (_symbolic(tensors) and tensors.qual in ("inputs", "outputs")):
        return None
    item = Val("mmethod", qual=tensors.qual[:-1], parents=tensors.parents)
    read = tensors.attrs.get("read")
    if index is None or read is None:
        return _symbolic_read(item, node)
    item.attrs["read"] = (read[0], read[1], f"{read[2]}[{index}]")
    return item


def _symbolic(leaf: Val) -> bool:
    """Whether ``leaf`` is a Keras model's symbolic tensors (``model.inputs``, ``model.output``) of a model the linter
    sees (a Keras model object; not an unseen object's attribute, which may be anything)."""
    return leaf.kind == "mmethod" and leaf.qual in _SYMBOLIC and bool(leaf.parents) \
        and leaf.parents[0].kind == "model" and not leaf.parents[0].attrs.get("foreign")


#: the kinds of library call that are TensorFlow ops: a KerasTensor given to one raises ValueError
_TF_OPS = frozenset({"diff", "constant", "cast", "nondiff", "slicing", "stop"})


#: ... and of Keras' backend (``K.square``, ``K.mean``): Keras 3's tf.keras.backend runs TensorFlow ops
_K_OPS = frozenset({"keras_fn", "nondiff", "numpy"})
#: ... but these take a KerasTensor without running an op on it (or are not ops: K.function builds a function)
_K_NOT_OPS = frozenset({"function", "placeholder", "variable", "constant", "get_value", "set_value", "eval",
                        "batch_get_value", "batch_set_value", "int_shape", "ndim", "dtype", "is_keras_tensor",
                        "learning_phase", "set_learning_phase", "clear_session", "floatx", "epsilon",
                        "image_data_format", "name_scope", "gradients", "count_params", "is_sparse"})


def _backend_op(qual: str) -> bool:
    """Whether ``qual`` is a tf.keras.backend function that runs a TensorFlow op on its tensors (``K.square``)."""
    return qual.startswith("tf.keras.backend.") and call_kind(qual) in _K_OPS \
        and qual.rsplit(".", 1)[-1] not in _K_NOT_OPS
_KERAS_INPUTS = frozenset({"tf.keras.Input", "tf.keras.layers.Input"})


def _graph_tensor(leaf: Val, depth: int = 0) -> bool:
    """Whether ``leaf`` is a KerasTensor of a functional graph built in sight (keract#142, keras#9266): a Keras
    ``Input``, a layer called on such tensors only (``z_mean = Dense(2)(h)``), an operation on such tensors only, or
    an arithmetic operator with one of them (``t * delta``: TensorFlow 2.21 gives a KerasTensor for an eager tensor
    times a KerasTensor). Such a tensor has no value: a TensorFlow op given one raises ValueError."""
    if leaf.attrs.get("__keras_input__") is not None:
        return True
    if depth >= 8 or leaf.kind != "tensor" or not leaf.parents or leaf.op != "op":
        return False
    inputs = [p for p in leaf.parents if p is not leaf.attrs.get("__call_of__")]
    if not inputs or any(p.kind == "model" for p in inputs):
        return False
    if "binop" in leaf.attrs and all(p.kind in TENSORISH or _graph_tensor(p, depth + 1) for p in inputs):
        return any(_graph_tensor(p, depth + 1) for p in inputs)
    return all(_graph_tensor(p, depth + 1) for p in inputs)


def _graph_root(leaf: Val) -> Val:
    """The value named in a message about ``leaf``, a ``_graph_tensor``: the first named one on its way back."""
    for _ in range(8):
        if leaf.name or leaf.attrs.get("__keras_input__") is not None:
            return leaf
        leaf = next(p for p in leaf.parents if p is not leaf.attrs.get("__call_of__") and _graph_tensor(p))
    return leaf


def _recording(it) -> bool:
    """Whether a tape's ``with`` block is open where the code being run is (a loss computed for a gradient)."""
    return bool(it.stack)


def _given_graph_tensor(it, qual: str, args: list[Val], kwargs: dict, node: ast.Call) -> None:
    """A TensorFlow op, run while a tape records, given a KerasTensor of a functional graph the program built apart
    from the model it calls (a Keras ``Input`` the model never uses, keract#142; a layer's output kept as a module
    name, keras#9266, or on an object, ``self.mu``, GDL_code#100): it has no value, the op raises ValueError."""
    given = next((leaf for v in args + list(kwargs.values()) for leaf in flat(v) if _graph_tensor(leaf)), None)
    if given is None:
        return
    if not _recording(it) and (it.uncertain or it.legacy_keras):    # in a branch, or Keras 2 maybe (a KerasTensor
        # then takes TensorFlow ops): said only if a gradient asks for its result
        it.memo[("graph_op", id(node))] = (node, _outside_message(qual, given, node))
        it.memo["graph_ops"] = True             # a gradient call's target is then searched for one
        return
    if not _recording(it):          # lint53: raises wherever it runs (homl3#172's KL term for add_loss), it ends
        it.report("GT019", node.lineno, node.col_offset, _outside_message(qual, given, node, False), None)
        it.halt(node.lineno)
        return
    root = _graph_root(given)
    shown = _text_of(root)
    text = shown if given is root else f"a value computed from {shown}"
    fix = (f"Pass the data itself (a tensor of that shape) to the loss as an argument, not `{shown}`."
           if root.attrs.get("__keras_input__") is not None else
           f"Make the model return it too (`keras.Model(inputs, [outputs, {shown}])`), call the model on your data "
           f"inside the `with` block and compute the loss from what that call gives.")
    it.report("GT019", node.lineno, node.col_offset,
              f"`{ast.unparse(node)[:60]}` is given {text}, a symbolic Keras tensor (a KerasTensor) of the "
              f"functional graph built on {_graph_input(root)}, not a tensor computed when a model ran: {qual} "
              f"raises ValueError (\"A KerasTensor cannot be used as input to a TensorFlow function\"; a KerasTensor "
              f"is a placeholder for a shape and dtype, with no value), and the program stops here. {fix}", None)
    it.halt(node.lineno)


def _outside_message(qual: str, given: Val, node: ast.Call, asked: bool = True) -> str:
    """GT019 for a TensorFlow op given a KerasTensor of a functional graph outside any tape, whose value a gradient
    call then asks for (``_diagnose``; ``asked``) or that runs surely: the op raises ValueError where it is, so the
    gradient call is never reached."""
    root = _graph_root(given)
    shown = _text_of(root)
    text = shown if given is root else f"a value computed from {shown}"
    return (f"`{ast.unparse(node)[:60]}` is given {text}, a symbolic Keras tensor (a KerasTensor) of the functional "
            f"graph built on {_graph_input(root)}, not a tensor computed when a model ran: {qual} raises ValueError "
            f"(\"A KerasTensor cannot be used as input to a TensorFlow function\"; a KerasTensor is a placeholder for "
            f"a shape and dtype, with no value), and the program stops here, before the gradient call"
            + (" that asks for it. " if asked else ". ") + "Compute it inside the `with` block, from the model called "
            "on your data and from the data itself (a tensor for each Input), not from the graph's symbolic tensors.")


def graph_op(value: Val) -> tuple | None:
    """(line, col, message) of a TensorFlow op given a KerasTensor outside any tape (``_outside_message``) that
    ``value``, a gradient call's target, was computed from, or None; the first run of them, where it raised."""
    todo, seen, found = [value], set(), []
    while todo and len(seen) < 256:
        val = todo.pop()
        if val.id in seen:
            continue
        seen.add(val.id)
        if val.attrs.get("__graph_op__") is not None:
            found.append((val.seq, val.attrs["__graph_op__"]))
        todo.extend(val.parents)
    return min(found, key=lambda f: f[0])[1] if found else None


def _text_of(leaf: Val) -> str:
    read = leaf.attrs.get("__keras_input__")
    return leaf.name or (read[2] if read is not None else leaf.text) or "a layer's output"


def _graph_input(leaf: Val) -> str:
    """The ``Input`` call a graph tensor was built on, for messages."""
    todo, seen = [leaf], 0
    while todo and seen < 64:
        val, seen = todo.pop(), seen + 1
        read = val.attrs.get("__keras_input__")
        if read is not None:
            return f"`{val.name + ' = ' if val.name else ''}{read[2]}` (line {read[0]})"
        todo.extend(p for p in val.parents if p.kind in ("tensor", "unknown"))
    return "a Keras Input"


def _global_graph_tensor_in_call(it, model: Val, args: list[Val], node: ast.Call) -> None:
    """GT019 when a layer class of the source is called on KerasTensors (a functional model being built) and its
    ``call``, or a method of it that ``call`` runs, gives a TensorFlow op a global KerasTensor of a graph built in
    sight (microscopy#32: ``K.square(z_mu)`` in a VAE loss for ``add_loss``): Keras runs ``call`` on placeholders
    for the inputs it is given, but a global stays a KerasTensor, and the op raises ValueError there."""
    cls = it.classes.get(id(model.node)) if isinstance(model.node, ast.ClassDef) else None
    call_def = _keras_call._call_method(model) if cls is not None and not model.attrs.get("foreign") else None
    if call_def is None or _recording(it) or it.uncertain or it.alone or it.legacy_keras \
            or not any(_graph_tensor(leaf) for v in args for leaf in flat(v)):
        return
    env, body = cls.attrs.get("env"), {f.name: f for f in model.node.body if isinstance(f, ast.FunctionDef)}
    helpers = [body[c.func.attr] for c in ast.walk(call_def) if isinstance(c, ast.Call)
               and isinstance(c.func, ast.Attribute) and isinstance(c.func.value, ast.Name)
               and c.func.value.id == "self" and c.func.attr in body and c.func.attr != "call"]
    for fn in [call_def] + helpers:
        local = {a.arg for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs} | {
            n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        found = sorted([((op.end_lineno, op.end_col_offset), op, qual, given) for op in ast.walk(fn)
                       if isinstance(op, ast.Call) for qual in [_op_qual(op, env)] if qual
                       for given in [_global_graph_arg(op, env, local)] if given is not None], key=lambda f: f[0])
        if found:       # the first to run: Python runs the arguments first (K.square(z_mu) inside K.mean(...))
            _, op, qual, given = found[0]
            it.report("GT019", op.lineno, op.col_offset, _global_in_call_message(model, fn, op, qual, given, node))
            it.halt(op.lineno)
            return


def _op_qual(op: ast.Call, env) -> str | None:
    """The TensorFlow op (or tf.keras.backend function) ``op`` calls, named through ``env``, or None."""
    qual = normalise(_keras_call._dotted(op.func, env) or "")
    return qual if call_kind(qual) in _TF_OPS and not qual.startswith("tf.keras.") \
        or _backend_op(qual) else None


def _global_graph_arg(op: ast.Call, env, local: set[str]) -> Val | None:
    """A global KerasTensor of a graph built in sight that an argument of ``op`` reads by name, or None."""
    names = [n for a in op.args + [k.value for k in op.keywords] for n in ast.walk(a)
             if isinstance(n, ast.Name) and n.id not in local]
    return next((v for n in names for v in [env.lookup(n.id)] if v is not None and _graph_tensor(v)), None)


def _global_in_call_message(model: Val, fn: ast.FunctionDef, op: ast.Call, qual: str, given: Val,
                            node: ast.Call) -> str:
    cls, shown = model.node.name, _text_of(_graph_root(given))
    where = f"`{cls}.call`" if fn.name == "call" else f"`{cls}.{fn.name}`, which `{cls}.call` runs,"
    return (f"`{ast.unparse(op)[:60]}` in {where} reads {shown}, a global symbolic Keras tensor (a KerasTensor) of "
            f"the functional graph built on {_graph_input(_graph_root(given))}, not one of the layer's inputs: "
            f"`{cls}` is called on KerasTensors on line {node.lineno}, where Keras runs `call` on placeholders for "
            f"the inputs it is given, but {shown} stays a KerasTensor, which {qual} cannot take: the layer call "
            f"raises ValueError (\"Could not automatically infer the output shape / dtype of ...\") while the "
            f"functional model is built, so the program stops there. Pass {shown} to the layer as one of its inputs (add it to the list `{cls}` is "
            f"called on) and read it from `call`'s inputs.")


def _given_keras_tensor(it, qual: str, args: list[Val], kwargs: dict, node: ast.Call) -> None:
    """A TensorFlow op run eagerly on a Keras model's symbolic input or output (``tf.convert_to_tensor(model.input)``
    in a custom loss, tensorflow#52383; ``loss_wrapper(model.input, ...)``, #38119): Keras 3's KerasTensor has no
    value, and the op raises ValueError, so the program stops on this line. Where ``model.input`` was read on another
    line (passed to a helper that converts it), that line is named too: it is where the fix goes."""
    given = next((leaf for v in args + list(kwargs.values()) for leaf in flat(v) if _from_symbolic(leaf)), None)
    if given is None:
        _given_graph_tensor(it, qual, args, kwargs, node)
        return
    leaf = _symbolic_root(given)
    model, read = leaf.parents[0].name or "model", leaf.attrs.get("read")
    shown = read[2] if read is not None else f"{model}.{leaf.qual}"
    text = shown if given is leaf else f"a value computed from {shown}"
    raised = ("raises ValueError (\"A KerasTensor cannot be used as input to a TensorFlow function\"; a KerasTensor "
              "is a placeholder for a shape and dtype, with no value)")
    fix = (f"Pass the data itself (the array or tensor you call {model} on), and call {model} on it where you need "
           "its output.")
    traced = " (when the tf.function is traced, so its call raises)" if _in_tf_function(it) else ""
    it.report("GT019", node.lineno, node.col_offset,
              f"`{ast.unparse(node)[:60]}` is given {text}, a symbolic Keras tensor of the model's graph, not a tensor "
              f"with a value: {qual} {raised}{traced}, and the program stops here. {fix}", None)
    if read is not None and read[0] != node.lineno:
        it.report("GT019", read[0], read[1],
                  f"`{read[2]}` is {model}'s symbolic Keras tensor (a KerasTensor), not data: passed on from here, "
                  f"it reaches `{ast.unparse(node)[:60]}` on line {node.lineno}, which {raised}. {fix}", None)
    it.halt(node.lineno)


def _symbolic_message(tape: Tape, leaf: Val, node: ast.Call) -> str:
    model = leaf.parents[0].name or "model"
    if leaf.qual in ("output", "outputs"):          # a layer's or model's output in the Keras graph (Grad-CAM)
        return (f"`{ast.unparse(node)[:60]}` watches {model}.{leaf.qual}, a symbolic Keras tensor (KerasTensor) of "
                f"the model's graph, not a tensor computed when the model ran: this raises ValueError (\"Passed in "
                f"object ... of type 'KerasTensor', not tf.Tensor or tf.Variable\"), and no gradient with respect to "
                f"it exists. Build a model that returns that output too (`keras.Model(model.inputs, [layer.output, "
                f"model.output])`), call it inside the block, and ask for the gradient with respect to the tensor the "
                f"call gives.")
    return (f"`{ast.unparse(node)[:60]}` watches {model}.{leaf.qual}, the model's symbolic Keras tensors "
            f"(KerasTensor), not the tensors it was called on: this raises ValueError (\"Passed in object ... of type 'KerasTensor', "
            f"not tf.Tensor or tf.Variable\"), and no gradient with respect to them exists. Watch the tensor you pass "
            f"to the model (`x = tf.convert_to_tensor(images)`, `{tape.name}.watch(x)`, `{model}(x)`) and ask for the "
            f"gradient with respect to it.")



def _from_symbolic(leaf: Val, depth: int = 0) -> bool:
    """Whether ``leaf`` is a symbolic Keras tensor of a model in sight (``_symbolic``), or a value computed from such
    tensors and nothing else (``model.output[:, 0]``, ``layer.output * 2``): a KerasTensor too, with no value."""
    if _symbolic(leaf):
        return True
    return depth < 8 and leaf.kind in ("unknown", "tensor") and not leaf.opaque and bool(leaf.parents) \
        and all(_from_symbolic(p, depth + 1) for p in leaf.parents)


def _symbolic_root(leaf: Val) -> Val:
    """The model's symbolic tensor (``model.inputs``) that ``leaf``, a ``_from_symbolic`` value, was computed from."""
    for _ in range(8):
        if _symbolic(leaf):
            break
        leaf = leaf.parents[0]
    return leaf


def _symbolic_gradient_message(tape: Tape, method: str, leaf: Val, node: ast.Call) -> str:
    model = leaf.parents[0].name or "model" if _symbolic(leaf) else "a model"
    return (f"`{ast.unparse(node)[:60]}` asks {tape.name}.{method} about a symbolic Keras tensor (a KerasTensor of "
            f"{model}'s graph, such as `model.output` or `layer.output`), not a tensor computed when the model ran: "
            f"this raises AttributeError (\"'KerasTensor' object has no attribute '_id'\"). Build a model that "
            f"returns the outputs you need (`keras.Model(model.inputs, [layer.output, model.output])`), call it on "
            f"your data inside the `with` block, and pass the tensors that call gives to {tape.name}.{method}.")


def _keras_variables(node: ast.Call, watched: Val) -> bool:
    """``tape.watch(model.trainable_variables)`` (``.weights``, ``layer.kernel``, ...) of a Keras model or layer in
    sight (keras-team/keras#19874): Keras 3's variables are not tf.Variable objects to ``watch``."""
    arg = node.args[0] if node.args else None
    if not (isinstance(arg, ast.Attribute) and arg.attr in _MODEL_VARS | _MODEL_WEIGHTS):
        return False
    leaves = flat(watched)
    return bool(leaves) and all(leaf.kind == "model" and not leaf.attrs.get("foreign") for leaf in leaves)


def _keras_variables_message(tape: Tape, node: ast.Call) -> str:
    return (f"`{ast.unparse(node)[:60]}` watches Keras variables: with Keras 3 (the Keras of TensorFlow 2.16 and "
            f"later) they are keras.Variable objects, not tf.Variable, and this raises ValueError (\"Passed in object "
            f"... of type 'Variable', not tf.Tensor or tf.Variable\"). A model's trainable variables are recorded "
            f"without a watch: remove this line and pass them to {tape.name}.gradient as they are.")

def _attribute_of_a_variable_list(node: ast.Call, watched: Val) -> bool:
    """``tape.watch(model.trainable_variables.value)`` (keras-team/keras#20274): an attribute a Python list does not
    have, read on the list of a Keras model's variables in sight."""
    arg = node.args[0] if node.args else None
    if not (isinstance(arg, ast.Attribute) and isinstance(arg.value, ast.Attribute) and arg.value.attr in _MODEL_VARS
            and not hasattr(list, arg.attr)):
        return False
    return bool(watched.parents) and all(p.kind == "model" and not p.attrs.get("foreign") for p in watched.parents)


def _list_attribute_message(tape: Tape, node: ast.Call) -> str:
    arg = node.args[0]
    return (f"`{ast.unparse(node)[:60]}` reads `.{arg.attr}` on `{ast.unparse(arg.value)[:40]}`, a Python list of "
            f"the model's variables, not a variable: this raises AttributeError (\"'list' object has no attribute "
            f"'{arg.attr}'\") and the gradient is never computed. A model's trainable variables are recorded without "
            f"a watch: remove this line and pass `{ast.unparse(arg.value)[:40]}` to {tape.name}.gradient as it is.")


def _tape_method(it, tape: Tape, name: str, args: list[Val], kwargs: dict, node: ast.Call) -> Val:
    if name == "watch":
        watched = args[0] if args else kwargs.get("tensor", Val("unknown"))
        symbolic = next((leaf for leaf in flat(watched) if _symbolic(leaf)), None)
        if symbolic is not None:
            it.report("GT019", node.lineno, node.col_offset, _symbolic_message(tape, symbolic, node), None)
            tape.symbolic_watch = True         # the watch raises first: the gradient call is never reached
        elif _keras_variables(node, watched):
            it.report("GT019", node.lineno, node.col_offset, _keras_variables_message(tape, node), None)
        elif _attribute_of_a_variable_list(node, watched):
            it.report("GT019", node.lineno, node.col_offset, _list_attribute_message(tape, node), None)
        _watch(it, tape, watched, node)
        return Val("none")
    if name == "stop_recording":
        return Val("pause", tape=tape)
    if name == "reset":
        tape.calls = []
        return Val("none")
    if name in _MISSPELT_METHODS:                           # tape.gradients: the tape has no such method
        it.report("GT027", node.lineno, node.col_offset, _misspelt_message(it, name, node, tape), None)
    if name not in ("gradient", "jacobian", "batch_jacobian"):
        return Val("unknown", opaque=True)
    target = args[0] if args else kwargs.get("target", Val("unknown", opaque=True))
    sources = args[1] if len(args) > 1 else kwargs.get("sources", kwargs.get("source", Val("unknown", opaque=True)))
    symbolic = None if it.graph_mode or tape.symbolic_watch else \
        next((leaf for leaf in flat(target) + flat(sources) if _from_symbolic(leaf)), None)
    if symbolic is not None:            # a KerasTensor as target or source: TensorFlow raises before any path
        it.report("GT019", node.lineno, node.col_offset, _symbolic_gradient_message(tape, name, symbolic, node), None)
        return Val("unknown", opaque=True)
    if _not_a_tensor_source(it, tape, name, sources, node):    # keras#2733, #14287: raises before any path
        return Val("unknown", opaque=True)
    if name == "gradient" and _no_return_target(it, tape, target, node):     # tensorflow#42386
        return Val("unknown", opaque=True)
    _built.checked(it, tape, sources, node, f"{tape.name}.{name}")
    it.diagnose(it, tape, target, sources, node)
    return _gradient_result(it, tape, target, sources, node)


def _not_a_tensor_source(it, tape: Tape, method: str, sources: Val, node: ast.Call) -> bool:
    """A source that is no tensor or variable at all: a NumPy array (keras#2733, #5455: a tape records operations on
    tensors, and an array is converted afresh by each operation, so no watch can reach it) or a Keras model or layer
    object instead of its variables (keras#14287). TensorFlow 2.21's gradient call raises AttributeError ("...
    object has no attribute '_id'"). Said once, GT003 on the ``with`` line for an array, GT017 on the call for a
    model; the program stops there."""
    if it.graph_mode:
        return False
    written = node.args[1] if len(node.args) > 1 else None
    given = [(sources, written)] if sources.kind != "seq" else list(zip(sources.items, written.elts)) \
        if isinstance(written, (ast.List, ast.Tuple)) and sources.items is not None \
        and len(sources.items) == len(written.elts) else []
    leaf = next((leaf for leaf, text in given if leaf.kind == "numpy" and leaf.known
                 or leaf.kind == "model" and _model_itself(leaf, text)), None)
    if leaf is None:
        return False
    call, shown = ast.unparse(node)[:60], describe_text(leaf)
    if leaf.kind == "numpy":
        line, col = tape.with_lines[-1] if tape.with_lines else (node.lineno, node.col_offset)
        it.report("GT003", line, col,
                  f"`{call}` (line {node.lineno}) asks for the gradient with respect to {shown}, a NumPy array, not a "
                  f"tensor: a tape records operations on tensors, and each operation converts an array afresh, so "
                  f"{tape.name} cannot watch it and {tape.name}.{method} raises AttributeError (\"'numpy.ndarray' "
                  f"object has no attribute '_id'\"). Convert it before the block (`{shown} = "
                  f"tf.convert_to_tensor({shown})`), call `{tape.name}.watch({shown})` first thing in the block, and "
                  f"compute the target from that tensor.", None)
    else:
        it.report("GT017", node.lineno, node.col_offset,
                  f"`{call}` asks for the gradient with respect to {shown}, the Keras model object itself, not its "
                  f"variables: {tape.name}.{method} raises AttributeError (\"'{_class_name(leaf)}' object has no "
                  f"attribute '_id'\"). Ask for `{shown}.trainable_variables`.", None)
    it.halt(node.lineno)
    return True


def _no_return_target(it, tape: Tape, target: Val, node: ast.Call) -> bool:
    """GT026: the target is what a call of a function of the source gave, and that function has no ``return`` of a
    value (it computes the loss and drops it, tensorflow#42386): the target is None, and ``tape.gradient(None, ...)``
    raises TypeError. Said on the function's last statement, where the ``return`` goes."""
    made = target.attrs.get("__no_return__")
    if target.kind != "none" or made is None or it.graph_mode:
        return False
    fn, (call_line, _, call_text) = made
    last = fn.body[-1]
    kept = last.targets[0].id if isinstance(last, ast.Assign) and len(last.targets) == 1 \
        and isinstance(last.targets[0], ast.Name) else None
    what = f"computes {kept} and drops it" if kept else "ends without returning a value"
    fix = ("return", last.lineno, last.end_lineno, last.col_offset, kept) if kept else None
    it.report("GT026", last.lineno, last.col_offset,
              f"`{fn.name}` {what}: it has no `return` of a value, so `{call_text}` (line {call_line}) gives None, "
              f"and `{ast.unparse(node)[:60]}` (line {node.lineno}) raises TypeError (\"Argument `target` should be a "
              f"list or nested structure of Tensors ...\"). "
              + (f"Return it: `return {kept}`." if kept else "Return the loss it computes."), fix)
    it.halt(node.lineno)
    return True


def _model_itself(model: Val, written: ast.AST | None) -> bool:
    """Whether ``written`` names the Keras model object ``model`` itself: the name it was first bound to (a model's
    value also stands for its weights, ``layer.kernel``, which are fine sources), of a model in sight."""
    return isinstance(written, ast.Name) and written.id == model.name and not model.attrs.get("foreign") \
        and not model.attrs.get("maybe") and not model.attrs.get("__part__")


def _class_name(model: Val) -> str:
    return (model.opname or model.qual or "Model").rsplit(".", 1)[-1] if not isinstance(model.node, ast.ClassDef) \
        else model.node.name


def _watch(it, tape: Tape, value: Val, node: ast.Call) -> None:
    for leaf in flat(value):
        _promote(leaf)
        owner = leaf.attrs.get("variables_of")
        if owner is not None:               # tape.watch(net.trainable_variables) of an unseen net: what reads net
            tape.watched.setdefault(owner.id, (it.tick(), node.lineno, node.col_offset, "variables"))   # is recorded
        if leaf.kind not in TENSORISH + ("model",) or leaf.opaque and not _one_tensor(leaf):
            tape.blind = tape.blind or leaf.kind not in ("py", "none")
        elif leaf.dtype == "int":
            tape.int_watches[leaf.id] = (node.lineno, node.col_offset)
        else:
            tape.watched.setdefault(leaf.id, (it.tick(), node.lineno, node.col_offset, "watch"))


def _one_tensor(leaf: Val) -> bool:
    """Whether ``leaf``, made from values the linter cannot see, is one tensor for sure: what a TensorFlow operation
    or a Python operator on a tensor gave (``real + alpha * (fake - real)``, ``tf.convert_to_tensor(actions)``).
    Watching it watches that tensor, nothing else: the tape stays followed (a rule never reasons from such a source,
    its path runs through unseen values; a gradient of a value the tape recorded from it is connected)."""
    return leaf.kind == "tensor" and leaf.op in ("op", "const") and not leaf.attrs.get("promoted") \
        and not leaf.attrs.get("tuple") and not leaf.attrs.get("maybe")


def _promote(leaf: Val) -> None:
    """A watched name whose value is unknown (a parameter, an unpacked batch) is a tensor of unknown value from
    here on: what is computed from it is followed. Indexing or iterating it stays "can't tell" (it may be a list
    of tensors, where ``x[0]`` is the watched tensor itself, not a slice)."""
    if leaf.kind == "unknown" and leaf.op == "" and not leaf.parents and leaf.name:
        leaf.kind, leaf.opaque, leaf.op, leaf.dtype = "tensor", False, "leaf", None
        leaf.attrs["promoted"] = True


def _taken_by(grad: Val, tape: Tape, targets: tuple = (), sources: tuple = ()) -> Val:
    """A gradient, marked with the tape that took it (GT008 words a tape's own first derivative apart) and what it is
    the derivative of, by what (``_derivative``: what an outer gradient of it reads)."""
    grad.attrs["tape"] = tape
    if grad.kind == "tensor" and targets and sources:
        grad.attrs["__inner__"] = (targets, sources)
    return grad


def _gradient_result(it, tape: Tape, target: Val, sources: Val, node: ast.Call) -> Val:
    stack = list(it.stack)
    it.stack[:] = [t for t in stack if t is not tape]
    try:
        parents = tuple(flat(target))
        if sources.kind == "seq" and sources.items is not None:
            it.charge(len(parents) * len(sources.items), "the gradients of targets by sources")
            grads = it.seq([_taken_by(_diff(it, list(parents) + [s], {}, node, "gradient", "gradient"), tape,
                                      parents, (s,)) for s in sources.items])
            embedding = next((e for e in map(_embedding_held, sources.items) if e is not None), None)
            if embedding is not None and grads.kind == "seq":
                grads.attrs["__sparse_grads__"] = embedding
            return grads
        return _taken_by(_diff(it, list(parents) + flat(sources), {}, node, "gradient", "gradient"), tape, parents,
                         tuple(flat(sources)))
    finally:
        it.stack[:] = stack
