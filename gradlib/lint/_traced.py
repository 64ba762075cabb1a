"""GT020: variables a function wrapped in tf.function makes each time it is traced.

On its first call, a tf.function whose trace made variables is traced once more at once (to check that a trace
makes none), and a call with a new Python object as argument traces it again. So a ``tf.Variable`` or a Keras
optimizer (which makes its ``iterations`` and learning-rate variables when it is made) made on every pass through
the function's body is made again by that second trace, and TensorFlow raises ValueError ("tf.function only
supports singleton tf.Variables created on the first call"), on the first call already. An optimizer with slot
variables (Adam's moments, RMSprop's averages) passed in as an argument makes them in its first apply_gradients:
a new one handed to a later call retraces the function and raises the same.

Only functions decorated with ``@tf.function`` are judged (``tf.function(f)`` may wrap ``f`` twice, the documented
fix). Only what the body surely runs is said: a creation under an ``if`` (the documented ``if self.v is None:``
pattern), in a loop, a conditional expression, a lambda or a helper is "can't tell". A file that builds TF1 graphs
is silent. The module also says what leaving TensorFlow (``.numpy()``, ``np.*``) raises in a traced function
(``trace_error``), and reports it there even off the gradient's path (GT002, ``left_tensorflow``).
"""

from __future__ import annotations

import ast

from ._values import Val, describe

__all__ = ["applied", "created", "has_slots", "left_tensorflow", "trace_error"]

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


def left_tensorflow(it, op: Val) -> None:
    """GT002 on ``.numpy()``, ``np.*`` or ``math.*`` of a known tensor while a tape records inside a function
    decorated with tf.function: it raises when the function is traced, whether or not the value reaches the target
    (the rule on the gradient's path says it only when it does)."""
    error = trace_error(op) if op.attrs.get("traced") and it.stack else None
    if error is None or _traced_function(it) is None or not op.parents or any(
            p.kind not in ("tensor", "var") or not p.known or p.attrs.get("promoted") for p in op.parents):
        return
    first = op.parents[0]
    what = (f"the variable {describe(first)} has no value to give while the function is traced"
            if first.kind == "var" else f"{describe(first)} is a symbolic tensor with no value yet")
    it.report("GT002", op.line, op.col,
              f"`{op.text or op.opname}` takes the value out of TensorFlow inside a tf.function, where {what}: this "
              f"line raises {error} when the function is traced, and the gradient is never computed. Use the "
              "TensorFlow op (tf.exp, tf.where, tf.reduce_sum, ...) and keep the value a tensor.")


def _traced_function(it) -> ast.AST | None:
    """The function being run when it is one decorated with tf.function (the innermost call), else None. A function
    wrapped by a call, ``g = tf.function(f)``, is not: ``f`` may also run eagerly, or be wrapped twice (one
    tf.function per optimizer, which is the fix), and the linter does not tell the wrappers apart."""
    if it.graph_mode or not it.calling or id(it.calling[-1]) not in it.traced or id(it.calling[-1]) in it.wrapped:
        return None
    return it.calling[-1]


def created(it, what: str, node: ast.Call) -> None:
    """``tf.Variable(...)`` or a Keras optimizer (``what``: "variable" or "optimizer") made at ``node``: GT020 when
    the innermost function is a tf.function whose body surely runs ``node``."""
    fn = _traced_function(it)
    if fn is None or not _unconditional(fn, node):
        return
    name = getattr(fn, "name", "the function")
    made = ("makes a new tf.Variable" if what == "variable" else
            "makes a new Keras optimizer, and with it new variables (its iterations and learning rate),")
    it.report("GT020", node.lineno, node.col_offset,
              f"`{ast.unparse(node)[:60]}` in `{name}`, a function wrapped in tf.function, {made} each time "
              f"`{name}` is traced: its first call traces it twice, and the second trace raises ValueError "
              f"{_SINGLETON}. Make it once, outside the function (at module level, or in `__init__` as "
              f"`self.{'v' if what == 'variable' else 'optimizer'} = ...`), and use it inside"
              f"{' (`v.assign(...)` to reset its value)' if what == 'variable' else ''}.")


def applied(it, opt: Val, name: str, node: ast.Call) -> None:
    """``opt.apply_gradients(...)`` (or ``minimize``) in a tf.function, ``opt`` one of its parameters: GT020 when a
    different optimizer with slots reached the same call in an earlier trace (a new one on each call)."""
    fn = _traced_function(it)
    if fn is None or name not in ("apply_gradients", "minimize", "apply") or opt.kind != "optimizer" \
            or not opt.attrs.get("slots") or not _parameter(fn, node):
        return
    key, trace = (id(fn), node.lineno, node.col_offset), it.entries[-1]
    first = it.applied.setdefault(key, (trace, opt))
    if first[0] == trace or first[1] is opt:
        return
    param = node.func.value.id
    fname = getattr(fn, "name", "the function")
    it.report("GT020", opt.line, opt.col,
              f"`{opt.text}` makes a new optimizer each time, and `{fname}` (a tf.function) gets it as `{param}`: "
              f"a new Python object makes tf.function trace `{fname}` again, where `{param}.{name}` makes the new "
              f"optimizer's slot variables in a trace that is not the first, so the call raises ValueError "
              f"{_SINGLETON}. Make one optimizer, once, before the loop, and pass that one on every call.")


def _parameter(fn: ast.AST, node: ast.Call) -> bool:
    """Whether ``node`` is ``<p>.method(...)`` with ``p`` a parameter of ``fn``."""
    args = getattr(fn, "args", None)
    names = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs} if args is not None else set()
    return isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name) \
        and node.func.value.id in names


_PLAIN_STATEMENTS = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Expr, ast.Return)
_CONDITIONAL = (ast.BoolOp, ast.IfExp, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _unconditional(fn: ast.AST, target: ast.AST) -> bool:
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
