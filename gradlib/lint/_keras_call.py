"""What the ``call`` of a Keras layer or model written in the source does that one opaque operation hides.

The linter takes a call of such a model as one operation on its inputs and its weights (``_calls._model_call``). Two
things its ``call`` may do change what TensorFlow gives (issue 37), and both are read here from the syntax of
``call`` alone, never run:

- ``self.w.assign(x)`` (``assign_add``, ``assign_sub``) of a value computed from the call's inputs, with the
  returned value computed from the inputs only through such assigned attributes (tensorflow#54532): assign is not
  differentiable, so the output does not depend on the inputs for the tape (GT012, the gradient is None);
- ``.numpy()`` of the call's input (or of a name computed from it) on every run of ``call`` (a Keras ``Loss``
  subclass, a layer): run in a tf.function, the input is a symbolic tensor and this raises (GT002);
- ``tf.numpy_function(f, [x], ...)`` (``tf.compat.v1.py_func``) of the call's input, with the returned value computed
  from the inputs only through it (cleverhans-lab/cleverhans#432): TensorFlow records no gradient through it, so the
  output does not depend on the inputs for the tape (GT002, the gradient is None);
- ``self.w = self.add_weight(..., dtype="int32")`` in ``build`` or ``__init__`` of a layer the model runs
  (tensorflow#73631): a trainable integer variable, whose gradient is None (GT004);
- a layer the model holds whose output ``call`` computes and then drops (``output = self.linear1(x)`` overwritten by
  ``output = self.linear2(x)``, tensorflow#36880): its variables are not on the path, their gradients are None
  (GT017);
- a Keras layer with weights made on every run of ``call`` (``tf.keras.layers.Dense(3)(x)``,
  calmiLovesAI/Basic_CNNs_TensorFlow2#13): run in a tf.function, it makes new variables on each trace (GT020);
- a ``call`` that never reads ``self`` and returns its input only through ops without a gradient: a ``Lambda``
  written as a class (``call_cut``, GT010), and the layers only some of the outputs of a ``call`` returning a tuple
  use, when the caller reads one output (``dead_layers(model, element)``, huggingface/transformers#2256, GT017).

Only a ``call`` whose body is straight-line code is read (assignments to plain names, expression statements, a
``return``; ``with`` blocks for the layers): a branch, a loop or a ``try`` makes the first check silent, and a
layer made under one is not said to be made on every run.
"""

from __future__ import annotations

import ast

from ._built import held_models
from ._tables import call_kind, normalise
from ._traced import unconditional
from ._values import Val

__all__ = ["assign_cut", "bridge_cut", "dead_layers", "frozen_cut", "held_classes", "imported_layers", "int_weights",
           "call_cut", "lambda_cut", "weight_cut", "base_weights",
           "layers_made", "numpy_in_call"]

#: Keras layers that make variables when built (a layer made in ``call`` without weights, Flatten or Dropout, is
#: harmless there)
_WEIGHTED = {"Dense", "EinsumDense", "Conv1D", "Conv2D", "Conv3D", "Conv1DTranspose", "Conv2DTranspose",
             "Conv3DTranspose", "SeparableConv1D", "SeparableConv2D", "DepthwiseConv1D", "DepthwiseConv2D", "Embedding",
             "LSTM", "GRU", "SimpleRNN", "BatchNormalization", "LayerNormalization", "GroupNormalization",
             "MultiHeadAttention", "PReLU"}
_ASSIGNS = ("assign", "assign_add", "assign_sub")
_MAX_WALK = 1_000


def _call_method(model: Val) -> ast.FunctionDef | None:
    cls = model.node
    if not isinstance(cls, ast.ClassDef):
        return None
    return next((s for s in cls.body if isinstance(s, ast.FunctionDef) and s.name == "call"), None)


def held_classes(model: Val) -> list[Val]:
    """``model`` and the layers it holds (a Sequential's layers, a subclass's attributes) that are instances of a
    class of the source with its own ``call``."""
    return [value for value in held_models(model, _MAX_WALK) if _call_method(value) is not None]


def _names(expr: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)}


def _self_attrs(expr: ast.AST, me: str) -> set[str]:
    return {n.attr for n in ast.walk(expr) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
            and n.value.id == me}


def _assign_call(stmt: ast.stmt, me: str) -> tuple[str, ast.Call] | None:
    """``self.<a>.assign(v)`` as a statement: (a, the call)."""
    call = stmt.value if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) else None
    func = call.func if call is not None else None
    if isinstance(func, ast.Attribute) and func.attr in _ASSIGNS and call.args \
            and isinstance(func.value, ast.Attribute) and isinstance(func.value.value, ast.Name) \
            and func.value.value.id == me:
        return func.value.attr, call
    return None


def assign_cut(model: Val) -> tuple[int, int, str, str] | None:
    """(line, col, text, class name) of ``self.<a>.assign(<from the inputs>)`` in ``call`` when what ``call``
    returns depends on the inputs only through attributes so assigned; None otherwise (or when it cannot tell)."""
    fn = _call_method(model)
    params = [a.arg for a in fn.args.posonlyargs + fn.args.args] if fn is not None else []
    if fn is None or len(params) < 2 or fn.args.vararg or fn.args.kwarg:
        return None
    me, tainted, via, assigned = params[0], set(params[1:]), set(), None
    for stmt in fn.body:
        if isinstance(stmt, ast.Expr) and (isinstance(stmt.value, ast.Constant) or _sets_shape(stmt.value)):
            continue                                        # the docstring; `out.set_shape(x.shape)` (keras#9130)
        hit = _assign_call(stmt, me)
        if hit is not None:
            if _names(hit[1].args[0]) & tainted:
                via.add(hit[0])
                assigned = assigned or (stmt.lineno, stmt.col_offset, ast.unparse(hit[1])[:60])
            continue
        if isinstance(stmt, ast.Assign) and all(isinstance(t, ast.Name) for t in stmt.targets):
            names = {t.id for t in stmt.targets}
            if _names(stmt.value) & tainted:
                tainted |= names
            else:
                tainted -= names
            if _self_attrs(stmt.value, me) & via:
                via |= {f"local:{n}" for n in names}
            continue
        if isinstance(stmt, ast.Return) and stmt.value is not None and assigned is not None:
            reads = _self_attrs(stmt.value, me) & via or any(f"local:{n}" in via for n in _names(stmt.value))
            if not _names(stmt.value) & tainted and reads:
                return assigned + (_class_name(model),)
        return None
    return None


_BRIDGES = {"numpy_function", "py_func"}


def _bridge(node: ast.AST) -> bool:
    """``tf.numpy_function(...)``, ``tf.compat.v1.py_func(...)``: NumPy between TensorFlow values, no gradient."""
    return isinstance(node, ast.Call) and ast.unparse(node.func).rsplit(".", 1)[-1] in _BRIDGES


def _outside_bridges(expr: ast.AST) -> set[str]:
    """The names ``expr`` reads outside any NumPy bridge call in it."""
    if _bridge(expr):
        return set()
    if isinstance(expr, ast.Name):
        return {expr.id}
    return set().union(*(_outside_bridges(child) for child in ast.iter_child_nodes(expr)))


def _bridged(expr: ast.AST, tainted: set[str], cut: set[str]) -> ast.Call | None:
    """The first bridge call in ``expr`` given a value of the inputs, or the value of one (``cut``): a cut path."""
    for node in ast.walk(expr):
        if _bridge(node) and _names(node) & tainted:
            return node
    return next((n for n in ast.walk(expr) if isinstance(n, ast.Name) and n.id in cut), None)


def bridge_cut(model: Val) -> tuple[int, int, str, str] | None:
    """(line, col, text, class name) of the NumPy bridge of the input in ``call`` when what ``call`` returns depends
    on the inputs only through such bridges; None otherwise (or when it cannot tell: not straight-line code)."""
    fn = _call_method(model)
    params = [a.arg for a in fn.args.posonlyargs + fn.args.args] if fn is not None else []
    if fn is None or len(params) < 2 or fn.args.vararg or fn.args.kwarg:
        return None
    tainted, cut, where = set(params[1:]), set(), None
    for stmt in fn.body:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue
        value = stmt.value if isinstance(stmt, (ast.Assign, ast.Return)) else None
        if value is None or isinstance(stmt, ast.Assign) and not all(isinstance(t, ast.Name) for t in stmt.targets):
            return None
        through = _bridged(value, tainted, cut)
        if through is not None and _bridge(through):
            where = where or (through.lineno, through.col_offset, ast.unparse(through)[:60])
        if isinstance(stmt, ast.Return):
            if _outside_bridges(value) & tainted or through is None or where is None:
                return None
            return where + (_class_name(model),)
        names = {t.id for t in stmt.targets}
        if _outside_bridges(value) & tainted:
            tainted, cut = tainted | names, cut - names
        elif through is not None:
            tainted, cut = tainted - names, cut | names
        else:
            tainted, cut = tainted - names, cut - names
    return None


_MAKES_WEIGHT = ("add_weight", "add_variable", "Variable")


#: the weights a Keras layer's own ``build`` makes, by class name: a subclass that keeps its ``build`` has them too
_BUILT_IN_WEIGHTS = {**dict.fromkeys(("Dense", "Conv1D", "Conv2D", "Conv3D", "Conv1DTranspose", "Conv2DTranspose",
                                      "Conv3DTranspose"), ("kernel", "bias")), "Embedding": ("embeddings",)}


def base_weights(cls: ast.ClassDef) -> tuple[str, ...]:
    """The weights the Keras layer ``cls`` subclasses makes in its own ``build`` (``Conv2D``: kernel, bias), when
    ``cls`` defines no ``build`` or its ``build`` calls ``super().build(...)`` (krasserm/super-resolution#97). Empty
    for any other base, or more than one base."""
    if len(cls.bases) != 1:
        return ()
    names = _BUILT_IN_WEIGHTS.get(ast.unparse(cls.bases[0]).rsplit(".", 1)[-1], ())
    build = next((f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "build"), None)
    calls_super = build is None or any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "build"
        and isinstance(n.func.value, ast.Call) and ast.unparse(n.func.value.func) == "super" for n in ast.walk(build))
    return names if calls_super else ()


def _weight_attrs(cls: ast.ClassDef) -> set[str]:
    """The attributes ``build`` or ``__init__`` of ``cls`` binds to a weight it makes (``self.w = self.add_weight(...)``,
    ``tf.Variable(...)``), and those its Keras base class's ``build`` makes (``base_weights``)."""
    found = set(base_weights(cls))
    for fn in cls.body:
        if isinstance(fn, ast.FunctionDef) and fn.name in ("build", "__init__") and fn.args.args:
            me = fn.args.args[0].arg
            for stmt in ast.walk(fn):
                if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.value, ast.Call) \
                        and ast.unparse(stmt.value.func).rsplit(".", 1)[-1] in _MAKES_WEIGHT:
                    target = stmt.targets[0]
                    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
                            and target.value.id == me:
                        found.add(target.attr)
    return found


def weight_cut(model: Val) -> tuple[ast.Call, str, str, set[str], str] | None:
    """(the call, its text, the class name, the weights' attributes, "nondiff" or "numpy") of a TensorFlow function
    without a gradient (tf.sign, tf.round, ...) or a NumPy bridge (tf.py_func, keras#6163) in ``call`` when the layer's own weights reach what ``call`` returns only through such calls (layog/Accurate-Binary-
    Convolution-Network#6: ``tf.sign`` of the shifted filters); None otherwise or when it cannot tell (``call`` reads
    an attribute that is not a weight made in ``build``/``__init__``, or is not straight-line code)."""
    fn = _call_method(model)
    params = [a.arg for a in fn.args.posonlyargs + fn.args.args] if fn is not None else []
    if fn is None or len(params) < 2 or not isinstance(fn.body[-1], ast.Return) or fn.body[-1].value is None:
        return None
    me, weights = params[0], _weight_attrs(model.node)
    methods = {f.name for f in model.node.body if isinstance(f, ast.FunctionDef)}     # self.func handed to py_func
    if not weights or not _self_attrs(fn, me) <= weights | methods or any(
            isinstance(n, ast.Name) and n.id == me and not _is_attr_base(n, fn) for n in ast.walk(fn)):
        return None
    cuts = _cuts_on_the_way(fn.body[:-1], fn.body[-1].value, me)
    cut = next((c for c in cuts or () if c[0] in ("nondiff", "numpy")), None)    # keras#6163: tf.py_func in call
    return (cut[1], ast.unparse(cut[1])[:60], _class_name(model), weights, cut[0]) if cut is not None else None


def frozen_cut(model: Val) -> tuple[set[str], set[str], str] | None:
    """(the attributes ``call`` reads that ``build`` or ``__init__`` computed from the layer's weights, the weights
    ``call`` reads itself, the class name) when some weight reaches what ``call`` returns only through such an
    attribute (tensorflow#47053, ``self.kernel = self.w * self.mask`` in ``build``; #28966, a ``SparseTensor`` of the
    weights): that value was computed once, when the layer was built, so a tape around the call does not record it
    and the weight's gradient is None. None otherwise, or when it cannot tell: ``call`` reads an attribute that is
    neither, or ``self`` on its own, or an attribute is set in more than one place."""
    fn, cls = _call_method(model), model.node
    params = [a.arg for a in fn.args.posonlyargs + fn.args.args] if fn is not None else []
    if fn is None or len(params) < 2:
        return None
    me, weights, frozen, seen = params[0], _weight_attrs(cls), {}, set()
    for init in (f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name in ("build", "__init__")
                 and f.args.args):
        mine = init.args.args[0].arg
        for stmt in ast.walk(init):
            for target in getattr(stmt, "targets", ()) if isinstance(stmt, ast.Assign) else ():
                if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == mine:
                    if target.attr in seen:
                        return None
                    seen.add(target.attr)
                    reads = _self_attrs(stmt.value, mine) & weights
                    if reads and target.attr not in weights and not _makes_something(stmt.value):
                        frozen[target.attr] = reads
    read = _self_attrs(fn, me)
    if not frozen or not read <= weights | set(frozen) or any(
            isinstance(n, ast.Name) and n.id == me and not _is_attr_base(n, fn) for n in ast.walk(fn)):
        return None
    used = {a for a in frozen if a in read}
    behind = set().union(*(frozen[a] for a in used)) - read if used else set()
    return (used, read & weights, _class_name(model)) if behind else None


def _makes_something(expr: ast.expr) -> bool:
    """Whether ``expr`` builds an object rather than computing a tensor: a layer, a variable, a module."""
    call = expr if isinstance(expr, ast.Call) else None
    if call is None:
        return False
    name = ast.unparse(call.func).rsplit(".", 1)[-1]
    return name in _MAKES_WEIGHT or name[:1].isupper() and name not in ("SparseTensor", "IndexedSlices")


def _is_attr_base(name: ast.Name, fn: ast.FunctionDef) -> bool:
    """Whether ``name`` is read as the object of an attribute (``self.kernel``), not on its own."""
    return any(isinstance(n, ast.Attribute) and n.value is name for n in ast.walk(fn))


_INT_DTYPES = {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"}


def _int_weight(stmt: ast.stmt, me: str) -> ast.Call | None:
    """``self.<a> = self.add_weight(..., dtype=<an integer type>)``, trainable left as it is: the call."""
    call = stmt.value if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call) else None
    func = call.func if call is not None else None
    if not (isinstance(func, ast.Attribute) and func.attr in ("add_weight", "add_variable")
            and isinstance(func.value, ast.Name) and func.value.id == me):
        return None
    given = {kw.arg: kw.value for kw in call.keywords}
    dtype, trainable = given.get("dtype"), given.get("trainable")
    if dtype is None or None in given or trainable is not None and not (
            isinstance(trainable, ast.Constant) and trainable.value is True):
        return None
    text = dtype.value if isinstance(dtype, ast.Constant) else ast.unparse(dtype)
    return call if isinstance(text, str) and text.rsplit(".", 1)[-1] in _INT_DTYPES else None


def _weight_text(call: ast.Call) -> str:
    dtype = next(kw.value for kw in call.keywords if kw.arg == "dtype")
    return f"{ast.unparse(call.func)[:30]}(..., dtype={ast.unparse(dtype)[:20]})"


def int_weights(model: Val) -> list[tuple[int, int, str, str]]:
    """(line, col, text, class name) of each trainable integer weight that ``build`` or ``__init__`` of ``model``'s
    class, or of a layer of a Sequential ``model`` is (all run when it is called), makes in a plain statement."""
    layers = [model] if isinstance(model.node, ast.ClassDef) else list(model.attrs.get("__layer_list__") or ())
    found = []
    for layer in layers:
        cls = layer.node
        for fn in (s for s in getattr(cls, "body", ()) if isinstance(s, ast.FunctionDef)
                   and s.name in ("build", "__init__") and s.args.args):
            for stmt in fn.body:
                call = _int_weight(stmt, fn.args.args[0].arg)
                if call is not None:
                    found.append((call.lineno, call.col_offset, _weight_text(call), cls.name))
    return found


_KERAS_BASES = {"tf.keras.Model", "keras.Model", "Model", "tf.keras.models.Model", "keras.models.Model", "models.Model",
                "tf.keras.layers.Layer", "keras.layers.Layer", "layers.Layer", "Layer"}


def dead_layers(model: Val, element: int | None = None) -> list[tuple[str, Val, int]]:
    """(attribute, layer, line) of each layer ``model`` holds that its ``call`` calls (so it is built and has
    variables) but whose output never reaches what ``call`` returns (the call on ``line``), read from the syntax; with
    ``element``, what it returns is the tuple it writes out (``return sequence_output, pooled_output``) and only that
    item of it is read (huggingface/transformers#2256: ``bert(x)[0]`` drops the pooler's output).

    Only for a class whose bases are Keras' ``Model``/``Layer`` and whose ``call`` is straight-line (plain-name
    assignments, then a ``return``) and uses ``self`` only to call layers it holds: otherwise a helper method, an
    attribute or a loop may use the layer, and nothing is said."""
    cls, fn = model.node, _call_method(model)
    params = [a.arg for a in fn.args.posonlyargs + fn.args.args] if fn is not None else []
    if fn is None or len(params) < 2 or not cls.bases or cls.keywords \
            or not all(ast.unparse(b) in _KERAS_BASES for b in cls.bases):
        return []
    me = params[0]
    held = {k: v for k, v in model.attrs.items() if isinstance(v, Val) and not k.startswith("__") and v.kind == "model"}
    body = [s for s in fn.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    stored = {_assign_call(s, me)[0] for s in body[:-1] if _assign_call(s, me) is not None} - set(held)
    body = [s for s in body if _assign_call(s, me) is None or s is body[-1]]
    if not held or not body or not isinstance(body[-1], ast.Return) or body[-1].value is None \
            or not all(isinstance(s, ast.Assign) and all(isinstance(t, ast.Name) for t in s.targets) for s in body[:-1]):
        return []
    calls = [n for n in ast.walk(fn) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
             and isinstance(n.func.value, ast.Name) and n.func.value.id == me]
    reads = [n for n in ast.walk(fn) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
             and n.value.id == me and n.attr in stored]
    uses = sum(1 for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id == me)
    if uses != len(calls) + len(reads) or any(c.func.attr not in held for c in calls):
        return []       # self used otherwise: an attribute read (other than a variable call assigns), self passed on
    returned = body[-1].value
    if element is not None:
        if not isinstance(returned, (ast.Tuple, ast.List)) or element >= len(returned.elts) \
                or any(isinstance(e, ast.Starred) for e in returned.elts):
            return []
        returned = returned.elts[element]
    live, reach = _names(returned), _self_attrs(returned, me)
    for stmt in reversed(body[:-1]):
        names = {t.id for t in stmt.targets}
        if names & live:
            live = (live - names) | _names(stmt.value)
            reach |= _self_attrs(stmt.value, me)
    used = {value.id for attr in reach & set(held) for value in held_models(held[attr], _MAX_WALK)}
    return [(c.func.attr, held[c.func.attr], c.lineno) for c in calls
            if c.func.attr not in reach and held[c.func.attr].id not in used]


def stored_output(model: Val, attr: str) -> tuple[int, int, str] | None:
    """(line, col, text) of the ``self.<v>.assign(...)`` statement of ``call`` whose value is computed from the
    output of the held layer ``self.<attr>`` (directly, or through plain names assigned from it), if any: the
    layer's output then reaches what ``call`` returns only through a variable (keras-team/keras#16128)."""
    fn = _call_method(model)
    if fn is None or not fn.args.args:
        return None
    me, fed = fn.args.args[0].arg, set()
    for stmt in fn.body:
        hit = _assign_call(stmt, me)
        if hit is not None and (_calls_layer(hit[1].args[0], me, attr) or _names(hit[1].args[0]) & fed):
            return stmt.lineno, stmt.col_offset, ast.unparse(hit[1])[:60]
        if isinstance(stmt, ast.Assign) and (_calls_layer(stmt.value, me, attr) or _names(stmt.value) & fed):
            fed |= {t.id for t in stmt.targets if isinstance(t, ast.Name)}
    return None


def _calls_layer(expr: ast.AST, me: str, attr: str) -> bool:
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == attr
               and isinstance(n.func.value, ast.Name) and n.func.value.id == me for n in ast.walk(expr))


def _class_name(model: Val) -> str:
    return getattr(model.node, "name", "the model")


def layers_made(model: Val, weighted_names: set[str]) -> list[tuple[int, int, str, str]]:
    """(line, col, text, class name) of each Keras layer with weights that ``call`` of ``model``'s class makes on
    every run: in a plain statement of its body (or of a ``with`` block in it), outside any conditional expression.
    ``weighted_names`` are the bare names the module imported from ``keras.layers`` (``from ... import Dense``)."""
    fn = _call_method(model)
    found = []
    for node in ast.walk(fn) if fn is not None else ():
        if isinstance(node, ast.Call) and _weighted_layer(node.func, weighted_names) and unconditional(fn, node):
            found.append((node.lineno, node.col_offset, ast.unparse(node)[:60], _class_name(model)))
    return found


def _weighted_layer(func: ast.expr, weighted_names: set[str]) -> bool:
    """``tf.keras.layers.Dense``, ``layers.Conv2D``, ``keras.layers.LSTM`` (a dotted name through ``layers``), or a
    bare name imported from a Keras layers module."""
    if isinstance(func, ast.Name):
        return func.id in weighted_names
    if isinstance(func, ast.Attribute) and func.attr in _WEIGHTED:
        base = ast.unparse(func.value)
        return base == "layers" or base.endswith(".layers")
    return False


def imported_layers(tree: ast.Module | None) -> set[str]:
    """The bare names of weighted Keras layers ``tree`` imports (``from tensorflow.keras.layers import Dense``)."""
    names = set()
    for stmt in tree.body if tree is not None else ():
        if isinstance(stmt, ast.ImportFrom) and stmt.module and "keras" in stmt.module \
                and stmt.module.endswith("layers"):
            names |= {a.asname or a.name for a in stmt.names if a.name in _WEIGHTED}
    return names


def numpy_in_call(model: Val, helpers: dict[str, ast.FunctionDef] | None = None) -> list[tuple]:
    """(line, col, text, class name, helper) of each ``<name>.numpy()`` that ``call`` of ``model``'s class runs on
    every run, ``<name>`` an input of ``call`` or a plain name assigned from one before (in the body's own statements);
    and of each one a function of ``helpers`` (the module's own functions, by name) runs on the parameter ``call``
    hands such a name to (tensorflow#41836: ``func_tf(self.param, x)``, ``x.numpy()`` in ``func_tf``), helper its
    name ('' for ``call`` itself)."""
    fn = _call_method(model)
    params = [a.arg for a in fn.args.posonlyargs + fn.args.args] if fn is not None else []
    if fn is None or len(params) < 2:
        return []
    tainted, found = set(params[1:]), []
    for stmt in fn.body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "numpy" \
                    and not node.args and isinstance(node.func.value, ast.Name) and node.func.value.id in tainted \
                    and unconditional(fn, node):
                found.append((node.lineno, node.col_offset, ast.unparse(node)[:60], _class_name(model), ""))
            helper = helpers.get(node.func.id) if helpers and isinstance(node, ast.Call) \
                and isinstance(node.func, ast.Name) and unconditional(fn, node) else None
            if helper is not None:
                found.extend(_numpy_in_helper(helper, node, tainted, _class_name(model)))
        if isinstance(stmt, ast.Assign) and all(isinstance(t, ast.Name) for t in stmt.targets):
            names = {t.id for t in stmt.targets}
            tainted = tainted | names if _names(stmt.value) & tainted else tainted - names
        elif not isinstance(stmt, (ast.Expr, ast.Return)):
            break                                   # a branch or a loop: what follows is not followed
    return found


def _numpy_in_helper(helper: ast.FunctionDef, call: ast.Call, tainted: set[str], cls: str) -> list[tuple]:
    """The ``<param>.numpy()`` that ``helper`` runs on every run (in its own body, not in functions it defines), each
    ``<param>`` a parameter ``call`` passes one of the ``tainted`` names to (by position)."""
    params = [a.arg for a in helper.args.posonlyargs + helper.args.args]
    given = {params[k] for k, arg in enumerate(call.args[:len(params)])
             if isinstance(arg, ast.Name) and arg.id in tainted}
    found = []
    for stmt in helper.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        for node in ast.walk(stmt):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "numpy" \
                    and not node.args and isinstance(node.func.value, ast.Name) and node.func.value.id in given \
                    and unconditional(helper, node) and not _inside_def(stmt, node):
                found.append((node.lineno, node.col_offset, ast.unparse(node)[:60], cls, helper.name))
    return found


def _inside_def(stmt: ast.stmt, target: ast.AST) -> bool:
    """Whether ``target`` sits in a function or lambda defined inside ``stmt`` (it runs only when that is called)."""
    return any(target in ast.walk(inner) for inner in ast.walk(stmt)
               if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and inner is not stmt)


#: functions that build graph gradients: they raise RuntimeError when run eagerly (GT018)
_GRAPH_GRADIENTS = ("tf.gradients", "tf.hessians", "tf.keras.backend.gradients", "tf.compat.v1.gradients")


def graph_gradients(fn: Val) -> tuple[ast.Call, str] | None:
    """(the call, its name) of the first ``tf.gradients`` / ``K.gradients`` / ``tf.hessians`` in the function of a
    ``keras.layers.Lambda`` (a ``lambda`` or a ``def`` in sight, its names read where it was made), tensorflow#31719:
    the Lambda runs it whenever the model is called, eagerly too. None when there is none or it cannot tell."""
    env = fn.attrs.get("env") if fn.kind == "func" else None
    if env is None or not isinstance(fn.node, (ast.Lambda, ast.FunctionDef)):
        return None
    for sub in ast.walk(fn.node):
        if isinstance(sub, ast.Call):
            qual = _dotted(sub.func, env)
            if qual is not None and normalise(qual) in _GRAPH_GRADIENTS:
                return sub, normalise(qual)
    return None


def _dotted(expr: ast.expr, env) -> str | None:
    """The module path ``expr`` names (``K.gradients`` with ``K`` bound to ``tensorflow.keras.backend``), or None."""
    if isinstance(expr, ast.Attribute):
        base = _dotted(expr.value, env)
        return base and f"{base}.{expr.attr}"
    if isinstance(expr, ast.Name):
        val = env.lookup(expr.id)
        return val.qual if val is not None and val.kind == "module" and val.qual else None
    return None


def lambda_cut(fn: Val) -> tuple[str, ast.AST, str] | None:
    """(how, node, text) when the function of a ``keras.layers.Lambda`` gives no gradient to its input: a TensorFlow
    function without one (``tf.math.ceil``, ``tf.stop_gradient``; how "nondiff" or "stop"), or a ``def``/``lambda`` of
    the source of one parameter whose returned value reads it only inside such calls (keras-team/keras#5521, #12606,
    #13502); None otherwise or when it cannot tell (a branch, several statements, an unseen function)."""
    if fn.kind in ("func", "module") and fn.node is None and fn.qual and fn.qual.startswith("tf."):
        how = call_kind(normalise(fn.qual))
        return (how, None, fn.qual) if how in ("nondiff", "stop") else None
    node = fn.node if fn.kind == "func" else None
    if isinstance(node, ast.Lambda):
        body, args = node.body, node.args
    elif isinstance(node, ast.FunctionDef) and isinstance(node.body[-1], ast.Return) \
            and node.body[-1].value is not None:
        body, args = node.body[-1].value, node.args
    else:
        return None
    if len(args.args) != 1 or args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs:
        return None
    if _constant_output(node, body, args.args[0].arg):     # tensorflow#38321: its input unused, a constant out
        return ("nondiff", body, f"{normalise(ast.unparse(body.func))} of constants (its input unused)")
    cuts = _cuts_on_the_way(node.body[:-1] if isinstance(node, ast.FunctionDef) else [], body, args.args[0].arg)
    return cuts[0] if cuts else None


def lambda_parts(fn: Val) -> dict[int, tuple] | None:
    """{position: cut} for the function of a ``keras.layers.Lambda`` called on a list, a ``def`` of one parameter
    unpacked first (``x1, x2 = d``), whose returned value reads some of the parts only through calls without a gradient
    or a comparison and the others directly (tensorflow#44125: ``x1 * tf.cast(uniform <= x2, "float32")``): what
    reaches the part cut gets no gradient through the layer. None when it cuts none or all, or cannot tell."""
    node = fn.node if fn.kind == "func" else None
    if not isinstance(node, ast.FunctionDef) or len(node.body) < 2 or not isinstance(node.body[-1], ast.Return) \
            or node.body[-1].value is None:
        return None
    args, first = node.args, node.body[0]
    if len(args.args) != 1 or args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs \
            or not isinstance(first, ast.Assign) or len(first.targets) != 1 \
            or not isinstance(first.targets[0], (ast.Tuple, ast.List)) \
            or not all(isinstance(e, ast.Name) for e in first.targets[0].elts) \
            or not (isinstance(first.value, ast.Name) and first.value.id == args.args[0].arg):
        return None
    parts = {}
    for k, name in enumerate(e.id for e in first.targets[0].elts):
        cuts = _cuts_on_the_way(node.body[1:-1], node.body[-1].value, name)
        if cuts is None:
            return None
        if cuts:
            parts[k] = cuts[0]
    return parts if parts and len(parts) < len(first.targets[0].elts) else None


def call_cut(model: Val) -> tuple[str, ast.AST, str] | None:
    """``lambda_cut`` for a layer class of the source whose own ``call(self, x)`` returns a value that reads ``x`` only
    through calls without a gradient (``tf.argmax``, a cast to an integer type, ``tf.numpy_function``, a comparison),
    and ``self`` (its weights) not at all or likewise only through them (keras#6926: ``tf.greater_equal(x,
    self.kernel)`` then ``tf.where`` of ones and zeros): a subclassed layer that is a ``Lambda`` written as a class.
    Its other parameters (``training=None``, ``mask=None``) must have defaults and stay unread. None otherwise."""
    fn = _call_method(model)
    if fn is None or not isinstance(fn.body[-1], ast.Return) or fn.body[-1].value is None:
        return None
    args = fn.args
    if len(args.args) < 2 or args.vararg or args.kwarg or args.posonlyargs or len(args.defaults) < len(args.args) - 2:
        return None
    read = {n.id for stmt in fn.body for n in ast.walk(stmt) if isinstance(n, ast.Name)}
    if read & {a.arg for a in args.args[2:] + args.kwonlyargs}:
        return None
    if args.args[0].arg in read and not _cuts_on_the_way(fn.body[:-1], fn.body[-1].value, args.args[0].arg):
        return None                         # keras#6926: `self` (its weights) read only through cuts too, else None
    cuts = _cuts_on_the_way(fn.body[:-1], fn.body[-1].value, args.args[1].arg)
    return cuts[0] if cuts else None


#: TensorFlow and Keras functions that make a tensor from the values they are given, nothing else
_CONSTANT_MAKERS = frozenset({"tf.constant", "tf.ones", "tf.zeros", "tf.fill", "tf.keras.backend.constant",
                              "tf.keras.backend.ones", "tf.keras.backend.zeros", "tf.keras.ops.ones",
                              "tf.keras.ops.zeros", "tf.keras.ops.full", "K.constant", "K.ones", "K.zeros"})
_MODULE_NAMES = frozenset({"tf", "K", "keras", "np", "backend", "ops", "tensorflow"})


def _constant_output(fn: ast.AST, returned: ast.expr, name: str) -> bool:
    """Whether the function of a ``Lambda`` is a ``lambda`` or a one-statement ``def`` returning a constant made from
    literals (``K.constant(1, dtype='float32')``), never reading its input: what the layer gives has no path back to
    anything before it (tensorflow#38321)."""
    if isinstance(fn, ast.FunctionDef) and len(fn.body) != 1 or not isinstance(returned, ast.Call) \
            or normalise(ast.unparse(returned.func)) not in _CONSTANT_MAKERS:
        return False
    names = {n.id for n in ast.walk(returned) if isinstance(n, ast.Name)}
    return name not in names and names <= _MODULE_NAMES


def _cuts_on_the_way(statements: list, returned: ast.expr, name: str) -> list | None:
    """The cuts (``_reads_only_through_cuts``) through which ``returned``, after the straight-line ``statements``
    (assignments to plain names; a docstring), reads ``name``: empty when it reads it directly somewhere too, None
    when the statements are not straight-line code (a branch, a loop, an unpacking: not followed, keras#9169)."""
    live, cut_names = {name}, {}
    for stmt in statements:
        if isinstance(stmt, ast.Expr) and (isinstance(stmt.value, ast.Constant) or _sets_shape(stmt.value)):
            continue                                        # the docstring; `out.set_shape(x.shape)` (keras#9130)
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
            return None
        target, cuts = stmt.targets[0].id, []
        if not all(_reads_only_through_cuts(stmt.value, read, cuts) for read in live):
            live.add(target)
            cut_names.pop(target, None)
            continue
        through = cuts + [cut_names[n] for n in sorted(_names(stmt.value)) if n in cut_names]
        live.discard(target)
        if through:
            cut_names[target] = through[0]
        else:
            cut_names.pop(target, None)
    cuts = []
    if not all(_reads_only_through_cuts(returned, read, cuts) for read in live):
        return []
    return cuts + [cut_names[n] for n in sorted(_names(returned)) if n in cut_names]


def _sets_shape(expr: ast.expr) -> bool:
    """``name.set_shape(...)``: a statement that changes no value, only the static shape a name's tensor says."""
    return isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "set_shape" \
        and isinstance(expr.func.value, ast.Name)


def _int_cast(call: ast.Call) -> bool:
    """``tf.cast(x, tf.int32)`` (or ``dtype="int64"``): a cast to an integer type, which has no gradient."""
    if normalise(ast.unparse(call.func)) not in ("tf.cast", "tf.dtypes.cast"):
        return False
    dtype = call.args[1] if len(call.args) > 1 else next((k.value for k in call.keywords if k.arg == "dtype"), None)
    text = dtype.value if isinstance(dtype, ast.Constant) else ast.unparse(dtype) if dtype is not None else ""
    return isinstance(text, str) and text.rsplit(".", 1)[-1] in _INT_DTYPES


def _reads_only_through_cuts(expr: ast.AST, name: str, cuts: list) -> bool:
    """Whether ``name`` is read in ``expr`` only inside calls of TensorFlow functions without a gradient (each such
    call is added to ``cuts`` as (how, node, text))."""
    if isinstance(expr, ast.Call):
        qual = normalise(ast.unparse(expr.func))
        how = "nondiff" if _int_cast(expr) else call_kind(qual)
        if how in ("nondiff", "stop") or how == "numpy" and qual.startswith("tf."):     # keras#9130: tf.py_func
            if any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(expr)):
                text = normalise(ast.unparse(expr.func))
                cuts.append((how, expr, f"{text} to an integer type" if _int_cast(expr) else text))
            return True
        if how == "constant" and qual in _SHAPE_ONLY:    # tf.ones_like(x): reads x's shape only, no gradient
            return True
    if isinstance(expr, ast.Compare) and any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(expr)):
        shown = _COMPARISONS.get(type(expr.ops[0]), "a comparison")
        cuts.append(("nondiff", expr, f"the comparison {shown} (a bool tensor)"))          # no gradient
        return True
    if isinstance(expr, ast.Name):
        return expr.id != name
    if isinstance(expr, (ast.Lambda, ast.NamedExpr)):
        return False
    return all(_reads_only_through_cuts(child, name, cuts) for child in ast.iter_child_nodes(expr))


_COMPARISONS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}
#: TensorFlow functions that read only the shape and dtype of what they are given (no gradient reaches it)
_SHAPE_ONLY = frozenset({"tf.ones_like", "tf.zeros_like", "tf.keras.ops.ones_like", "tf.keras.ops.zeros_like"})
