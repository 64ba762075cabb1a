"""What three TensorFlow Probability wrappers do to a gradient's path, read from the call alone (never run).

TFP is not followed as code: a call into it is opaque (``_calls._unknown_call``), except these, whose effect on the
tape is fixed by their contract (tensorflow/probability#903, #1165, #1167):

- ``tfp.util.TransformedVariable(initial, bijector)`` makes a new variable, ``bijector.inverse(initial)``: the
  initial value is read once, so a ``tf.Variable`` given as ``initial`` is not on any path through it (its gradient is
  None), and the wrapper itself asked for as a source raises ValueError ("Type TransformedVariable is not supported
  as a gradient source or gradient target");
- ``tfp.util.DeferredTensor(v, fn)`` computes ``fn(v)`` each time it is read, so the path to ``v`` is kept (it stays
  "can't tell" here: a value of unseen code), and asked for as a source it raises the same ValueError;
- a distribution of ``tfp.distributions`` (``tfd.Normal(loc=v, scale=tf.exp(s))``) keeps the tensors and variables it
  is given: its ``log_prob``/``sample``/... read them when called, so a variable given as such is read then (on the
  tape when the call is), while a tensor computed from a variable before the tape keeps no path to it (GT007). A
  distribution given anything the linter cannot see (a bijector, another distribution, a DeferredTensor) gives
  "can't tell" values.

What a TFP object holds decides what its ``trainable_variables`` (a tf.Module's: the tf.Variables and modules it holds
as attributes, found by walking them) are. A distribution or bijector made of values none of which holds a variable
the walk finds is known to have none, and its ``trainable_variables`` is an empty tuple (the gradient with respect
to it ``()``, ``apply_gradients`` of that a ValueError; tensorflow/probability#645, #520): a tensor (even one computed
from a variable), a number, a Python function (the variables it reads are in its closure, which is not walked), a
TF1 template (``tfb.masked_autoregressive_default_template``, ``tf.compat.v1.make_template``: its variables are made
by ``tf.compat.v1.get_variable`` under the template's scope, not tracked by a tf.Module), or another such object.
A bijector that makes variables itself (``AutoregressiveNetwork``, ``BatchNormalization``, ``Glow``) and anything
the linter cannot see stay "can't tell".
"""

from __future__ import annotations

import ast

from ._values import Val

__all__ = ["DEFERRED", "TEMPLATES", "UNTRACKED", "is_tfp", "tfp_call", "tfp_method", "untracked"]

#: the attribute a TFP wrapper that cannot be a gradient source carries: its class name
DEFERRED = "__tfp_deferred__"
#: the methods of a distribution whose value is computed from its parameters and arguments (differentiable)
_METHODS = frozenset({"log_prob", "prob", "cdf", "log_cdf", "survival_function", "log_survival_function", "mean",
                      "stddev", "variance", "mode", "entropy", "quantile", "cross_entropy", "kl_divergence"})
#: distributions whose parameters are plain tensors (a location, a scale, a rate, concentrations, logits)
_DISTRIBUTIONS = frozenset({"Normal", "LogNormal", "HalfNormal", "Laplace", "Cauchy", "StudentT", "Gamma", "Beta",
                            "Exponential", "Poisson", "Bernoulli", "Categorical", "Uniform", "MultivariateNormalDiag",
                            "TruncatedNormal", "Logistic", "Gumbel", "InverseGamma", "Dirichlet", "HalfCauchy"})
_PREFIXES = ("tfp.", "tensorflow_probability.")
#: the attribute of a TFP object known to hold no tracked variable: why, one sentence per part
UNTRACKED = "__untracked__"
#: TF1 templates: functions whose variables no tf.Module tracks
TEMPLATES = frozenset({"tfp.bijectors.masked_autoregressive_default_template",
                       "tfp.bijectors.real_nvp_default_template",
                       "tensorflow_probability.bijectors.masked_autoregressive_default_template",
                       "tensorflow_probability.bijectors.real_nvp_default_template", "tf.make_template"})
#: bijectors that make their own (tracked) variables
_MAKES_VARIABLES = frozenset({"AutoregressiveNetwork", "BatchNormalization", "Glow", "GlowBlock"})


def is_tfp(qual: str) -> bool:
    return qual.startswith(_PREFIXES)


def _short(qual: str) -> str:
    """``tensorflow_probability.distributions.Normal`` -> ``distributions.Normal``."""
    return qual.split(".", 1)[1] if "." in qual else qual


def tfp_call(it, qual: str, args: list[Val], kwargs: dict, node: ast.Call) -> Val | None:
    """The value a TFP call in the table above makes, or None for any other (left to ``_unknown_call``)."""
    name = _short(qual)
    if name == "util.TransformedVariable":
        initial = args[0] if args else kwargs.get("initial_value")
        var = it.op("var", (), node, "leaf", "float", opname="tfp.util.TransformedVariable")
        var.attrs[DEFERRED] = "TransformedVariable"
        if initial is not None and initial.kind == "var":
            var.attrs["__initial_from__"] = initial         # tfp1167: read once, for the new variable's value
        trainable = kwargs.get("trainable")
        var.opaque = trainable is not None and not (trainable.kind == "py" and trainable.attrs.get("value") is True)
        return var
    if name == "util.DeferredTensor":
        made = Val("unknown", node.lineno, node.col_offset, opname="tfp.util.DeferredTensor", opaque=True,
                   text=ast.unparse(node)[:40])
        made.attrs[DEFERRED] = "DeferredTensor"
        return made
    last = name.rsplit(".", 1)[-1]
    if name.startswith("distributions.") and last in _DISTRIBUTIONS and not any(
            isinstance(a, ast.Starred) for a in node.args) and all(k.arg is not None for k in node.keywords):
        params = list(args) + list(kwargs.values())
        if all(_plain(p) for p in params):                      # a DeferredTensor, a bijector: unknown
            return Val("object", node.lineno, node.col_offset, opname=f"tfd.{last}", text=ast.unparse(node)[:40],
                       attrs={"__tfp_params__": tuple(t for p in params for t in _tensors(p))})
    return None


def tfp_method(it, dist: Val, name: str, args: list[Val], node: ast.Call) -> Val | None:
    """``dist.log_prob(x)`` (and the other methods of ``_METHODS``): an operation on its parameters and arguments,
    made when the method is called; None for any other method (``sample`` draws: left unknown)."""
    if name not in _METHODS or not all(_plain(a) for a in args):
        return None
    parents = dist.attrs["__tfp_params__"] + tuple(v for a in args for v in _tensors(a))
    return it.op("tensor", parents, node, "op", "float", opname=f"{dist.opname}.{name}")


def _plain(val: Val, depth: int = 0) -> bool:
    """A tensor, a variable, a number or NumPy data, or a list of them (``log_prob([0.1, 0.7])``)."""
    if val.kind == "seq":
        return depth < 3 and val.items is not None and len(val.items) <= 64 and all(_plain(i, depth + 1)
                                                                                     for i in val.items)
    return val.kind in ("tensor", "var", "py", "numpy")


def _tensors(val: Val) -> list[Val]:
    """The tensors and variables a ``_plain`` value holds."""
    if val.kind == "seq":
        return [t for item in val.items for t in _tensors(item)]
    return [val] if val.kind in ("tensor", "var") else []


def untracked(qual: str, args: list[Val], kwargs: dict, node: ast.Call) -> tuple | None:
    """Why the object ``qual(*args, **kwargs)`` holds no variable a tf.Module tracks (a tuple of sentences), or None
    when it may hold one or the linter cannot tell. A TF1 template's reason is its own text."""
    if qual in TEMPLATES:
        return (f"`{ast.unparse(node.func)}(...)` is a TF1 template, whose variables (made by "
                f"tf.compat.v1.get_variable when it is first called) no tf.Module tracks",)
    name = _short(qual)
    last = name.rsplit(".", 1)[-1]
    if not name.startswith(("distributions.", "bijectors.")) or not last[:1].isupper() or last in _MAKES_VARIABLES \
            or last.endswith(("Network", "Layer")) or any(isinstance(a, ast.Starred) for a in node.args) \
            or any(k.arg is None for k in node.keywords):
        return None
    why: list[str] = []
    for val in list(args) + list(kwargs.values()):
        part = _holds_none(val)
        if part is None:
            return None
        why.extend(s for s in part if s not in why)
    return tuple(sorted(why, key=lambda s: "is a tensor" in s))       # the template or function first


def _holds_none(val: Val, depth: int = 0) -> tuple | None:
    """Why ``val`` holds no tracked variable (sentences; empty for numbers and data), or None when it may."""
    if val.kind in ("py", "numpy", "none"):
        return ()
    if val.kind == "tensor":
        return (f"`{_text(val)}` is a tensor (a value, not a variable)",) if _from_variable(val) else ()
    if val.kind == "func" and isinstance(val.node, (ast.Lambda, ast.FunctionDef)):
        return (f"`{_text(val)}` is a Python function: the variables it reads are in its closure, which a "
                f"tf.Module does not look into",)
    if val.kind == "seq" and val.items is not None and depth < 3:
        why: list[str] = []
        for item in val.items:
            part = _holds_none(item, depth + 1)
            if part is None:
                return None
            why.extend(part)
        return tuple(why)
    if val.kind == "object" and "__tfp_params__" in val.attrs:
        if any(p.kind == "var" for p in val.attrs["__tfp_params__"]):
            return None
        return tuple(f"`{_text(p)}` is a tensor (a value, not a variable)" for p in val.attrs["__tfp_params__"]
                     if _from_variable(p))
    if val.attrs.get(UNTRACKED) is not None:
        return val.attrs[UNTRACKED]
    return None


def _from_variable(val: Val) -> bool:
    """Whether a tensor was computed from a variable (looked at up to 200 values back)."""
    todo, seen = [val], set()
    while todo and len(seen) < 200:
        value = todo.pop()
        if value.kind == "var":
            return True
        if value.id not in seen:
            seen.add(value.id)
            todo.extend(value.parents)
    return False


def _text(val: Val) -> str:
    text = val.name or val.text or val.opname or "this value"
    return text if len(text) <= 60 else text[:57] + "..."
