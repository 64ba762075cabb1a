"""GT020: variables a function wrapped in tf.function makes each time it is traced.

On its first call, a tf.function whose trace made variables is traced once more at once (to check that a trace
makes none), and a call with a new Python object as argument traces it again. So a ``tf.Variable`` or a Keras
optimizer (which makes its ``iterations`` and learning-rate variables when it is made) made on every pass through
the function's body is made again by that second trace, and TensorFlow raises ValueError ("tf.function only
supports singleton tf.Variables created on the first call"), on the first call already. An optimizer with slot
variables (Adam's moments, RMSprop's averages) passed in as an argument makes them in its first apply_gradients:
a new one handed to a later call retraces the function and raises the same.

A function decorated with ``@tf.function`` is judged, and one called through a wrapper ``g = tf.function(f)`` (a
call of ``f`` itself runs eagerly); so are the functions they call (a loss, a metric), but not a constructor or a
``build`` on the way (a layer builds its variables once, on the first trace). The new-optimizer-per-call form is
judged on decorated functions only (one wrapper per optimizer, ``tf.function(f)`` twice, is the documented fix).
Only what surely runs is said: a creation under an ``if`` (the documented ``if self.v is None:`` pattern), in a
loop, a conditional expression or a lambda, or in a helper whose call is under one, is "can't tell". A Keras layer
with weights made in the ``call`` of a layer of the source that runs in a tf.function (``layer_in_call``) makes new
variables on each trace too. A file that builds TF1 graphs, or runs tf.functions eagerly
(``tf.config.run_functions_eagerly``), is silent. The module also says what leaving TensorFlow (``.numpy()``, ``np.*``) raises in a traced function
(``trace_error``), and reports it there even off the gradient's path (GT002, ``left_tensorflow``).
"""

from __future__ import annotations

import ast

from ._values import Val, describe

__all__ = ["DATASET_LOOP", "applied", "created", "has_slots", "layer_in_call", "left_tensorflow", "numpy_in_call", "raised_first",
           "trace_error", "traced_frame", "unconditional"]

#: the operation a ``for`` over a tf.data dataset inside a tf.function stands for (autograph makes it the dataset's own
#: reduction): what it carries out of the loop has no gradient
DATASET_LOOP = "a for loop over a tf.data.Dataset in a tf.function"
_SLOTLESS = ("SGD", "GradientDescentOptimizer")
_SINGLETON = "(\"tf.function only supports singleton tf.Variables created on the first call\")"


def has_slots(qual: str, kwargs: dict) -> bool:
    """Whether a Keras optimizer ``qual`` keeps slot variables it makes in its first ``apply_gradients``: every one
    but plain SGD (SGD with a literal momentum above 0 keeps its velocities)."""
    if ".train." in qual:
        return False
    if qual.rsplit(".", 1)[-1] not in _SLOTLESS:
        return True
    momentum = kwargs.get("momentum")
    value = momentum.attrs.get("value") if momentum is not None else None
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0


def trace_error(op: Val) -> str | None:
    """What leaving TensorFlow raises inside a tf.function (TensorFlow 2.21: a tensor there is symbolic, and a
    variable has no value to give), for the calls this was checked on; None for the others (tf.numpy_function works
    there, and its gradient is None). float(t) and int(t) are not among them: autograph makes them a tf.cast."""
    variable = bool(op.parents) and op.parents[0].kind == "var"
    if op.opname == ".numpy()":
        return "NotImplementedError" if variable else "AttributeError"
    if op.opname.startswith("math."):
        return "AttributeError" if variable else "TypeError"
    return "NotImplementedError" if op.opname.startswith("np.") else None


def raised_first(op: Val, error: str) -> str:
    """What the line really raises: Python evaluates an op's operands before the op, left to right, so an operand on
    the same line that left TensorFlow too raised first (``np.mean((t - y.numpy()) ** 2)``: ``y.numpy()``'s
    AttributeError, not ``np.mean``'s NotImplementedError); the first such operand in that order, else ``error``."""
    seen: set[int] = set()

    def first(value: Val) -> str | None:   # post-order: a value's operands, left to right, then the value
        if value.line != op.line or value.id in seen:
            return None
        seen.add(value.id)
        for parent in value.parents:
            inner = first(parent)
            if inner is not None:
                return inner
        return trace_error(value) if value.parents and value.parents[0].kind in ("tensor", "var") else None

    for parent in op.parents:
        inner = first(parent)
        if inner is not None:
            return inner
    return error


def left_tensorflow(it, op: Val) -> None:
    """GT002 on ``.numpy()``, ``np.*`` or ``math.*`` of a known tensor inside a function decorated with tf.function
    (or called through ``g = tf.function(f)``), or a helper it calls (a loss or a metric), while that function's
    trace records on a tape: it raises when the function is traced, whether or not the value reaches the target
    (the rule on the gradient's path says it only when it does)."""
    error = trace_error(op) if op.attrs.get("traced") else None
    frame = traced_frame(it) if error is not None else None
    if frame is None or not _records(it, frame) or not op.parents or any(
            p.kind not in ("tensor", "var") or not p.known or p.attrs.get("promoted") for p in op.parents):
        return
    error = raised_first(op, error)
    first = op.parents[0]
    what = (f"the variable {describe(first)} has no value to give while the function is traced"
            if first.kind == "var" else f"{describe(first)} is a symbolic tensor with no value yet")
    where = "" if frame == len(it.calling) - 1 else \
        f" (`{getattr(it.calling[-1], 'name', 'this function')}` runs inside `{it.calling[frame].name}`)"
    it.report("GT002", op.line, op.col,
              f"`{op.text or op.opname}` takes the value out of TensorFlow inside a tf.function{where}, where {what}: "
              f"this line raises {error} when the function is traced, and the gradient is never computed. Use the "
              "TensorFlow op (tf.exp, tf.where, tf.reduce_sum, ...) and keep the value a tensor.")


def traced_frame(it) -> int | None:
    """The index in ``it.calling`` of the innermost function being run that runs traced: decorated with tf.function,
    or called through a wrapper ``g = tf.function(f)``; the functions it calls in turn (a loss, a metric, a layer's
    ``call``) run traced with it. None when there is none, or when the code between runs a constructor or a
    ``build`` (a layer builds its variables once, on the first trace) or the file runs tf.functions eagerly."""
    if it.graph_mode:
        return None
    for index in range(len(it.calling) - 1, -1, -1):
        fn = it.calling[index]
        if getattr(fn, "name", "") in ("__init__", "build"):
            return None
        if id(fn) in it.traced and (id(fn) not in it.wrapped or it.via_wrapper[index]):
            return index
    return None


def _records(it, frame: int) -> bool:
    """Whether a tape records now, or one recorded in the trace of ``it.calling[frame]`` (the gradient work is there)."""
    entry = it.entries[frame]
    return bool(it.stack) or any(t.intervals and t.intervals[0][0] >= entry for t in it.tapes)


def _surely_runs(it, frame: int, node: ast.AST) -> bool:
    """Whether every trace of ``it.calling[frame]`` runs ``node``: it sits unconditionally in the innermost function
    being run, and each call that led there from the traced function sits unconditionally in its caller."""
    if not unconditional(it.calling[-1], node):
        return False
    return all(unconditional(it.calling[i - 1], it.call_nodes[i]) for i in range(frame + 1, len(it.calling)))


def created(it, what: str, node: ast.Call) -> None:
    """``tf.Variable(...)`` or a Keras optimizer (``what``: "variable" or "optimizer") made at ``node``: GT020 when
    it runs on every trace of a tf.function (in its body, or in a helper its body surely calls)."""
    frame = traced_frame(it)
    if frame is None or not _surely_runs(it, frame, node):
        return
    fn = it.calling[frame]
    name = getattr(fn, "name", "the function")
    kind = "wrapped in tf.function" if id(fn) in it.wrapped else "decorated with tf.function"
    helper = "" if frame == len(it.calling) - 1 else \
        f" (in `{getattr(it.calling[-1], 'name', 'a helper')}`, which `{name}` calls)"
    made = ("makes a new tf.Variable" if what == "variable" else
            "makes a new Keras optimizer, and with it new variables (its iterations and learning rate),")
    it.report("GT020", node.lineno, node.col_offset,
              f"`{ast.unparse(node)[:60]}`{helper} runs in `{name}`, a function {kind}, and {made} each time "
              f"`{name}` is traced: its first call traces it twice, and the second trace raises ValueError "
              f"{_SINGLETON}. Make it once, outside the function (at module level, or in `__init__` as "
              f"`self.{'v' if what == 'variable' else 'optimizer'} = ...`), and use it inside"
              f"{' (`v.assign(...)` to reset its value)' if what == 'variable' else ''}.")


def layer_in_call(it, node: ast.Call, made: list[tuple[int, int, str, str]]) -> None:
    """GT020 on each Keras layer with weights that the ``call`` of a model of the source makes on every run
    (``made``, from ``_keras_call.layers_made``), when that model is called at ``node`` on every trace of a
    tf.function: the new layer makes its variables on each trace."""
    frame = traced_frame(it) if made else None
    if frame is None or not _surely_runs(it, frame, node):
        return
    name = getattr(it.calling[frame], "name", "the function")
    for line, col, text, cls in made:
        it.report("GT020", line, col,
                  f"`{text}` makes a new Keras layer each time `{cls}.call` runs, and it runs in `{name}`, a tf.function "
                  f"(line {node.lineno}): the new layer makes new variables on each trace; the first call traces "
                  f"`{name}` twice, and the second trace raises ValueError {_SINGLETON}. Make the layer once, in "
                  f"`{cls}.__init__` (`self.dense = {text.split('(')[0]}(...)`), and call it in `call`; its weights "
                  "are then trained too.")


def numpy_in_call(it, node: ast.Call, found: list[tuple[int, int, str, str, str]]) -> None:
    """GT002 on each ``.numpy()`` of its input that the ``call`` of a layer, model or Keras loss of the source runs
    (``found``, from ``_keras_call.numpy_in_call``), when it is called at ``node`` on every trace of a tf.function
    whose trace records on a tape: the input is a symbolic tensor there."""
    frame = traced_frame(it) if found else None
    if frame is None or not _records(it, frame) or not _surely_runs(it, frame, node):
        return
    name = getattr(it.calling[frame], "name", "the function")
    for line, col, text, cls, helper in found:
        where = f"`{helper}`, which `{cls}.call` calls with its input," if helper else f"`{cls}.call`"
        it.report("GT002", line, col,
                  f"`{text}` in {where} takes the value out of TensorFlow, and `{cls}` is called in `{name}`, a "
                  f"tf.function (line {node.lineno}), where its input is a symbolic tensor with no value yet: this line "
                  "raises AttributeError when the function is traced, and the gradient is never computed. Use the "
                  "TensorFlow op (tf.exp, tf.where, tf.reduce_sum, tf.print to print) and keep the value a tensor"
                  + (" (tf.numpy_function takes tensors, not their .numpy() values)." if helper else "."))


def applied(it, opt: Val, name: str, node: ast.Call) -> None:
    """``opt.apply_gradients(...)`` (or ``minimize``) in a tf.function, ``opt`` one of its parameters: GT020 when a
    different optimizer with slots reached the same call in an earlier trace of the same tf.function (a new optimizer
    on each call). A ``def`` run again (a factory making the tf.function on each call) makes a new tf.function, with
    traces of its own: the key holds the scope the ``def`` ran in (kept in the value, so its id is not reused)."""
    frame = traced_frame(it)
    fn = it.calling[frame] if frame == len(it.calling) - 1 and id(it.calling[-1]) not in it.wrapped else None
    if fn is None or name not in ("apply_gradients", "minimize", "apply") or opt.kind != "optimizer" \
            or not opt.attrs.get("slots") or not _parameter(fn, node):
        return
    scope = it.scopes[-1]
    models = [v for v in scope.vars.values() if v.kind == "model"]
    key, trace = (id(fn), id(scope.parent), node.lineno, node.col_offset), it.entries[-1]
    first = it.applied.setdefault(key, (trace, opt, scope.parent, models))
    if first[0] == trace or first[1] is opt:
        return
    param, fname = node.func.value.id, getattr(fn, "name", "the function")
    new_model = bool(models) and not any(m is f for m in models for f in first[3])
    fix = (f"Each call also gets a new model, so one optimizer made once would not do either (a Keras 3 optimizer "
           "serves only the variables it was built with: ValueError \"Unknown variable\"): make a new tf.function "
           f"with each optimizer, in the loop where `{opt.text}` is made (run again what defines `{fname}`, or "
           "`tf.function(...)` again), so each optimizer is traced in a tf.function of its own." if new_model else
           "Make one optimizer, once, before the loop, and pass that one on every call.")
    it.report("GT020", opt.line, opt.col,
              f"`{opt.text}` makes a new optimizer each time, and `{fname}` (a tf.function) gets it as `{param}`: "
              f"a new Python object makes tf.function trace `{fname}` again, where `{param}.{name}` makes the new "
              f"optimizer's slot variables in a trace that is not the first, so the call raises ValueError "
              f"{_SINGLETON}. " + fix)


def _parameter(fn: ast.AST, node: ast.Call) -> bool:
    """Whether ``node`` is ``<p>.method(...)`` with ``p`` a parameter of ``fn``."""
    args = getattr(fn, "args", None)
    names = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs} if args is not None else set()
    return isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name) \
        and node.func.value.id in names


_PLAIN_STATEMENTS = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Expr, ast.Return)
_CONDITIONAL = (ast.BoolOp, ast.IfExp, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def unconditional(fn: ast.AST, target: ast.AST) -> bool:
    """Whether every run of ``fn``'s body runs ``target``: it sits in a plain statement of the body, or of a
    ``with`` block in it (not ``tf.init_scope()``), outside any conditional expression."""
    body = getattr(fn, "body", None)
    while isinstance(body, list):
        stmt = next((s for s in body if _within(s, target)), None)
        if isinstance(stmt, (ast.With, ast.AsyncWith)) and not any(_within(i, target) for i in stmt.items) \
                and not any("init_scope" in ast.unparse(i.context_expr) for i in stmt.items):
            body = stmt.body
            continue
        return isinstance(stmt, _PLAIN_STATEMENTS) and not any(
            isinstance(n, _CONDITIONAL) and _within(n, target) for n in ast.walk(stmt))
    return False


def _within(tree: ast.AST, target: ast.AST) -> bool:
    return any(n is target for n in ast.walk(tree))
