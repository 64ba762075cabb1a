"""GT024: a ``tf.custom_gradient`` function that reads a variable while its gradient function takes no ``variables``.

TensorFlow watches the trainable variables the decorated function reads (not those passed to it) and, when there
are any, requires the gradient function it returns to accept a keyword ``variables`` (or ``**kwargs``) and to return
their gradients as well: otherwise the call raises TypeError, with or without a tape, eagerly or in a tf.function
(tensorflow#31945). Said only for a variable the function reads by a free name that is bound to a trainable
``tf.Variable`` where the function is defined, and a gradient function defined in its body and returned by every
``return``.
"""

from __future__ import annotations

import ast

from ._values import Val

__all__ = ["check"]

_METADATA = {"name", "shape", "dtype", "trainable", "device", "constraint", "synchronization", "aggregation"}
_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def check(it, node: ast.FunctionDef, env) -> None:
    """Report GT024 on ``node``, decorated with ``tf.custom_gradient``, when it reads a trainable variable and the
    gradient function it returns cannot take ``variables``."""
    grad = _grad_fn(node)
    if grad is None or _takes_variables(grad.args):
        return
    found = _variable_read(node, env)
    if found is None:
        return
    name, var = found
    it.report("GT024", grad.lineno, grad.col_offset,
              f"`{node.name}` is a tf.custom_gradient function that reads the variable {name} (a trainable "
              f"tf.Variable it is not given as an argument), but its gradient function `{grad.name}` takes no "
              f"`variables` keyword: calling `{node.name}` raises TypeError (\"@tf.custom_gradient grad_fn must "
              "accept keyword argument 'variables', since function uses variables\"), with or without a tape, and "
              f"the gradient is never computed. Define `def {grad.name}({_params(grad.args)}, variables=None):` and "
              f"return `(input gradients, [one gradient for each of variables])`, or pass {name} to `{node.name}` "
              "as an argument and return its gradient with the others.", None)


def _grad_fn(node: ast.FunctionDef) -> ast.FunctionDef | None:
    """The function defined in ``node``'s body that every ``return y, grad`` of it returns, else None."""
    defs = {stmt.name: stmt for stmt in node.body if isinstance(stmt, ast.FunctionDef)}
    returned = {_returned_grad(ret) for ret in _own_nodes(node.body) if isinstance(ret, ast.Return)}
    if len(returned) != 1:
        return None
    return defs.get(returned.pop())


def _returned_grad(ret: ast.Return) -> str | None:
    value = ret.value
    if isinstance(value, ast.Tuple) and len(value.elts) == 2 and isinstance(value.elts[1], ast.Name):
        return value.elts[1].id
    return None


def _takes_variables(args: ast.arguments) -> bool:
    names = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
    return "variables" in names or args.kwarg is not None


def _params(args: ast.arguments) -> str:
    return ", ".join(a.arg for a in args.posonlyargs + args.args) or "dy"


def _variable_read(node: ast.FunctionDef, env) -> tuple[str, Val] | None:
    """The first free name ``node``'s own body reads (outside its nested functions) that is bound to a trainable
    variable in ``env``; a read of its metadata only (``w.shape``, ``w.name``) does not count."""
    spec = node.args
    local = {a.arg for a in spec.posonlyargs + spec.args + spec.kwonlyargs}
    local |= {a.arg for a in (spec.vararg, spec.kwarg) if a is not None}
    body = list(_own_nodes(node.body))
    local |= {n.id for n in body if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    local |= {n.name for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    local |= {(a.asname or a.name).split(".")[0] for n in body if isinstance(n, (ast.Import, ast.ImportFrom))
              for a in n.names}
    if any(isinstance(n, (ast.Global, ast.Nonlocal)) for n in body):
        return None
    metadata = {id(n.value) for n in body if isinstance(n, ast.Attribute) and n.attr in _METADATA}
    for n in body:
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in local and id(n) not in metadata:
            value = env.lookup(n.id)
            if value is not None and value.kind == "var" and value.trainable and not value.attrs.get("maybe"):
                return n.id, value
    return None


def _own_nodes(stmts: list[ast.stmt]):
    """Every node of ``stmts``, not going into nested functions, lambdas or classes (their definitions included)."""
    todo = list(reversed(stmts))
    while todo:
        n = todo.pop()
        yield n
        if not isinstance(n, _NESTED):
            todo.extend(reversed(list(ast.iter_child_nodes(n))))
