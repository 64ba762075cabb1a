"""Why a gradient request gets None or raises: called by the interpreter at every
``tape.gradient``/``jacobian``/``batch_jacobian`` and turned into findings.

A request is fine when the tape recorded a path from the source to the target. When it did not,
either the source was never watched (GT003, GT004, GT005, GT009), or some operation on the way cut
the path, and the kind and timing of that operation name the rule (GT001, GT002, GT007, GT008,
GT010, GT011). When the linter cannot tell (unknown code took part), it says nothing.

Every target x source pair and every value walked is charged to the interpreter's budget. The same
request asked again (a gradient call in a loop, or on many lines) is explained once: the explanation is
kept per tape state, target and source, and only the note on the asking line is made again.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, replace

from . import _built, _derivative, _keras_call, _tfp
from ._calls import EMBEDDING_IDS, flat, graph_op
from ._traced import DATASET_LOOP, raised_first, trace_error
from ._values import Tape, Val, describe, owners

__all__ = ["CANNOT", "diagnose"]

_MAX_NODES = 20_000


@dataclass(frozen=True)
class _Outcome:
    """What TensorFlow does with a gradient call whose path is cut, so that every finding about it says the same.

    The target is checked first: a NumPy value as the target raises AttributeError; a Python number raises TypeError
    or AttributeError (TensorFlow reads it as a dtype code: TypeError unless the number is one, such as 1 or 3).
    A tensor target gives None, or zeros when the call asks for ``unconnected_gradients=ZERO`` (``zeros`` None: its
    options are not known, so it may).
    """

    call: str
    raises: str = ""
    zeros: bool | None = False
    mixed: bool = False     # another source of the same call reaches the target (a stop_gradient is then a mistake)
    always_zeros: bool = False   # batch_jacobian: a target its tape did not record gives zeros, not None

    def of(self, what: str, zero_gradient: bool | str = False) -> str:
        """``what`` ("the gradient with respect to x") is None, or zeros, or the call raises: one clause.
        ``zero_gradient``: the operation that cuts the path has a zero gradient (tf.sign, or the reason given), not
        none."""
        if self.raises:
            return f"{self.call} raises {self.raises}"
        if zero_gradient or self.zeros or self.always_zeros:
            why = zero_gradient if isinstance(zero_gradient, str) else \
                "tf.sign's gradient is zero everywhere" if zero_gradient else \
                "batch_jacobian fills what its tape did not record with zeros" if self.always_zeros else \
                "the call asks for unconnected_gradients=ZERO"
            return f"{what} is zeros ({why})"
        if self.zeros is None:
            return f"{what} is None (zeros if the call's options ask for unconnected_gradients=ZERO)"
        return f"{what} is None (zeros with unconnected_gradients=ZERO)"


def _outcome(tape: Tape, method: str, targets: list[Val], node: ast.Call) -> _Outcome:
    call = f"{tape.name}.{method}"
    python = next((t for t in targets if t.kind == "py" or t.opname in (".item()", ".tolist()")), None)
    if python is not None:
        return _Outcome(call, f"TypeError or AttributeError, since its target {describe(python)} is a Python number, "
                              "not a tensor (which of the two depends on the number)")
    numpy = next((t for t in targets if t.kind == "numpy"), None)
    if numpy is not None:
        return _Outcome(call, f"AttributeError, since its target {describe(numpy)} is a NumPy value, not a tensor "
                              "(a value wrapped back into a tensor, tf.constant(...), would give None instead)")
    return _Outcome(call, zeros=_asks_for_zeros(node, method), always_zeros=method == "batch_jacobian")


def diagnose(it, tape: Tape, target: Val, sources: Val, node: ast.Call) -> None:
    """Report every reason the request at ``node`` fails (the interpreter's hook), and whether it could be followed.

    A target x source pair is decided when the linter can tell: connected, or cut in a way a rule names, or the
    source never watched. It cannot tell when the source is unknown, when the tape was handed to code it cannot
    follow, or when the path it would reason about runs through (or next to, while the tape recorded) code it
    cannot follow: then no rule fires for that pair, and the call counts as not checked (``it.followed``).
    """
    method = node.func.attr if isinstance(node.func, ast.Attribute) else "gradient"
    _count_calls(it, tape, node, method)
    text = ast.unparse(node.args[1]) if len(node.args) > 1 else describe(sources)
    targets, wrt = flat(target), flat(sources)
    it.charge(len(targets) * len(wrt), "the pairs of targets and sources of a gradient")
    why, pairs, assumed = None, 0, False
    out = _outcome(tape, method, targets, node)
    if method in ("jacobian", "batch_jacobian") and target.kind == "seq" and target.items and wrt:
        it.report("GT025", node.lineno, node.col_offset, _several_targets_message(tape, method, node, target), None)
        it.followed(node, None)
        return
    if _deferred_source(it, tape, method, node, wrt, out):
        return
    if _symbolic_loss(it, targets, node):      # tensorflow#35063: made outside the tape, it raised before
        return
    if target.kind == "seq" and target.attrs.get("no_losses_of") is not None and wrt:
        it.report("GT017", node.lineno, node.col_offset, _no_losses_message(tape, method, target, text, out), None)
        it.followed(node, None)
        return
    for t in targets:
        if t.kind not in ("tensor", "var", "numpy", "py", "unknown", "model"):
            continue
        for s in wrt:
            if s is t or s.kind in ("none", "py"):
                continue
            pairs += 1
            if s.kind not in ("tensor", "var", "model") or s.opaque or s.op == "merge":
                if not _reached(tape, t, s):
                    why = why or CANNOT["source"]
                elif s.kind == "unknown" and s.id in t.rec.get(tape, ()):
                    assumed = True   # a parameter, or what unseen code gave, taken to be a variable or watched
                continue
            if (s.id in t.rec.get(tape, ()) or _owner_read(tape, t, s)) and _watchable(tape, s):
                if method == "batch_jacobian":
                    _rows_interact(it, tape, t, s, node)
                if s.kind == "model" and isinstance(s.node, ast.ClassDef) and not out.raises and out.zeros is False:
                    _dead_layers(it, tape, t, s, node, method)
                if s.kind == "model" and not out.raises and out.zeros is False:
                    _cut_before_a_lambda(it, tape, s, node, method, out)
                if s.kind == "model" and not s.attrs.get("foreign") and not out.raises:
                    _int_weights(it, tape, s, node, out)
                    _dead_relu(it, s, node, out)
                if s.kind == "model" and not out.raises:
                    _unread_weights(it, tape, t, s, text, node, out)
                if s.kind in ("model", "var") and not out.raises:
                    _dropped_in_derivative(it, tape, t, s, text, node, out)
                continue
            undecided = _decide(it, tape, t, s, text, node, replace(out, mixed=_another_reaches(tape, t, s, wrt)))
            why = why or undecided
    it.followed(node, why if pairs else why or CANNOT["nothing"], assumed)
    _partial_moves(it, node)


def _symbolic_loss(it, targets: list[Val], node: ast.Call) -> bool:
    """GT019 on the TensorFlow op that was given a KerasTensor outside any tape and that a target was computed from
    (``_calls.graph_op``): the op raised ValueError there, so this gradient call is never reached."""
    if not it.memo.get("graph_ops"):
        return False
    raised = next((found for t in targets for found in [graph_op(t)] if found is not None), None)
    if raised is not None:
        it.report("GT019", *raised, None)
        it.followed(node, None)
    return raised is not None


def _dropped_in_derivative(it, tape: Tape, target: Val, source: Val, text: str, node: ast.Call,
                           out: _Outcome) -> None:
    """GT017 for a source that reaches the target only through inner gradients whose derivative does not read it
    (ehsanhaghighat/sciann#11): a term added last, independent of the inner source, drops out of the derivative."""
    found = _derivative.dropped(tape, target, source, it.memo)
    if found is None:
        return
    kind, where = found
    inner = next((v for v in _inner_gradients(target)), None)
    call = inner.text if inner is not None and inner.text else "the inner gradient"
    if kind == "bias":
        name, layer = describe(source), describe(where)
        subject = "it" if where is source else f"that layer, `{layer}`,"
        owner = f"the bias of {name}" if where is source else f"the bias of {name}'s last layer"
        what = out.of(f"the gradient with respect to {owner} (in `{text}`)")
        it.report("GT017", node.lineno, node.col_offset,
                  f"{what}: {subject} has no activation, so its bias is added after everything that depends "
                  f" on the input; `{call}` does not depend on it, and the target reads {name} only through "
                  f"that derivative (the other variables of {name} get real gradients). Leave the bias out "
                  f"(`use_bias=False` on that layer, or ask for `{text}[:-1]`), or keep a term of {name}'s output "
                  f"itself in the loss (a boundary or data term).")
        return
    name = describe(source)
    what = out.of(f"the gradient with respect to {name}")
    if kind == "linear":
        it.report("GT017", node.lineno, node.col_offset,
                  f"{what}: `{describe(where)}` is linear in {name} (a term in it is {name} times a factor that does "
                  f"not depend on {name}, or {name} added), so its derivative `{call}` by {name} does not read "
                  f"{name}, and the target reads {name} only through that derivative: a second derivative that is zero "
                  f"is None here. Pass `unconnected_gradients=tf.UnconnectedGradients.ZERO` to get 0, or leave "
                  f"{name} out of the sources.")
        return
    it.report("GT017", node.lineno, node.col_offset,
              f"{what}: {name} is in `{describe(where)}` only in a term that does not depend on the inner gradient's "
              f"source (added, not multiplied), so `{call}` does not depend on it, and the target reads {name} only "
              f"through that derivative. Leave {name} out of the sources, or keep a term of `{describe(where)}` "
              f"itself in the loss.")


def _inner_gradients(target: Val):
    todo, seen = [target], set()
    while todo and len(seen) < _MAX_NODES:
        val = todo.pop()
        if val.id in seen:
            continue
        seen.add(val.id)
        if "__inner__" in val.attrs:
            yield val
            continue
        todo.extend(val.parents)


def _deferred_source(it, tape: Tape, method: str, node: ast.Call, wrt: list[Val], out: _Outcome) -> bool:
    """GT017 for a ``tfp.util.DeferredTensor`` or ``TransformedVariable`` among the sources (tensorflow/probability
    #903): TensorFlow refuses it with ValueError. Whether it reported one."""
    deferred = next((s for s in wrt if s.attrs.get(_tfp.DEFERRED)), None)
    if deferred is None or out.raises:
        return False
    kind, name = deferred.attrs[_tfp.DEFERRED], describe(deferred)
    it.report("GT017", node.lineno, node.col_offset,
              f"`{ast.unparse(node)[:60]}`: {name} is a tfp.util.{kind}, which is not a tensor or a variable: "
              f"{tape.name}.{method} raises ValueError (\"Type {kind} is not supported as a gradient source or gradient "
              f"target\"). Ask for `{name}.trainable_variables` (the variable it wraps), or for that variable itself.",
              None)
    it.followed(node, None)
    return True


def _partial_moves(it, node: ast.Call) -> None:
    """Keep, for the corrections, the causes computed before the block of one call when there are several
    (tensorflow#54341: the encoder called lines before the block, the decoder right above it): moving only the ones
    that can be moved still leaves a gradient None, so ``lint`` offers none of them unless every one can be."""
    causes = it.memo.pop(("before", id(node)), set())
    if len(causes) > 1:
        it.memo.setdefault("before groups", []).append(frozenset(causes))



def _several_targets_message(tape: Tape, method: str, node: ast.Call, target: Val) -> str:
    """GT025: ``tape.jacobian(out, x)`` where ``out`` is a tuple or list of tensors (tensorflow#56912)."""
    t = ast.unparse(node.args[0])[:40] if node.args else describe(target)
    return (f"`{ast.unparse(node)[:60]}`: the target {t} is a tuple or list of {len(target.items)} values, not one "
            f"tensor: {method} reads the target's shape, so {tape.name}.{method} raises AttributeError (a tuple or list "
            "has no attribute 'shape'). Make one tensor of the outputs inside the block (`flat = "
            "tf.concat([tf.reshape(o, [-1]) for o in outputs], axis=0)`, or tf.stack when they have one shape) and "
            f"ask for the {method} of it, or ask for one {method} per output.")


def _no_losses_message(tape: Tape, method: str, target: Val, sources: str, out: _Outcome) -> str:
    model = describe(target.attrs["no_losses_of"])
    return (f"`{target.text}` holds no tensor (an empty list): no layer of {model} adds a loss (no weight "
            f"regularizer, no add_loss), so {out.of(f'the gradient {tape.name}.{method} gives for each of {sources}')}"
            f", wherever it is read. Compute the training loss from the model's output inside the block (a "
            f"tf.keras.losses function) and ask for its gradient; add tf.add_n({target.text}) to it when layers add "
            "losses.")


def _another_reaches(tape: Tape, target: Val, source: Val, wrt: list[Val]) -> bool:
    """Whether a source of the call other than ``source`` reaches ``target`` for the tape (tensorflow#33095: the
    variables of two models asked for together, one of them cut off by tf.stop_gradient)."""
    return any(other is not source and other.kind in ("tensor", "var", "model") and not other.opaque
               and (other.id in target.rec.get(tape, ()) or _owner_read(tape, target, other)) and _watchable(tape, other)
               for other in wrt)

def _dead_layers(it, tape: Tape, target: Val, model: Val, node: ast.Call, method: str) -> None:
    """GT017 for the variables of a layer ``model`` holds whose output its ``call`` drops (``_keras_call.dead_layers``),
    when the target reaches the model only through its calls: no other read of that layer, nothing unseen."""
    element = _one_element(target, model)
    dead = _keras_call.dead_layers(model, element) if not model.attrs.get("foreign") else []
    if not dead or it.escaped:
        return
    layers = {layer.id for _, layer, _ in dead}
    seen, todo = set(), [target]
    while todo and len(seen) <= _MAX_NODES:
        val = todo.pop()
        if val.id in seen:
            continue
        seen.add(val.id)
        if val.id in layers or val.kind == "unknown" or val.opaque or val.opname.endswith(".losses") \
                or val.kind == "model" and val is not model and not _built.sealed(val):
            return                          # the layer read another way, or code the linter cannot see
        todo.extend(_inputs(val))
    it.charge(len(seen), "the values a gradient depends on")
    if len(seen) > _MAX_NODES:
        return
    cls, src = getattr(model.node, "name", "the model"), ast.unparse(node.args[1])[:40]
    stored = [(attr, _keras_call.stored_output(model, attr)) for attr, _, _ in dead]
    if all(where is not None for _, where in stored):
        for attr, (line, col, text) in stored:
            it.report("GT012", line, col,
                      f"`{text}` in `{cls}.call` stores the output of self.{attr} in a variable: assign is not "
                      f"differentiable, and what `{cls}.call` returns reads that output only through the variable, so "
                      f"the gradient {tape.name}.{method} gives for self.{attr}'s variables (in {src}) is None (zeros "
                      "with unconnected_gradients=ZERO). Use the computed tensor in what `call` returns, and keep the "
                      "variable for state that is not trained through.", None)
        return
    names = ", ".join(f"self.{attr} (called on line {line})" for attr, _, line in dead)
    if element is not None:
        it.report("GT017", node.lineno, node.col_offset,
                  f"`{ast.unparse(node)[:60]}`: {src} holds the variables of {names}, but the target reads only "
                  f"output [{element}] of the outputs `{cls}.call` returns, which is not computed from that layer's "
                  f"output, so the gradient {tape.name}.{method} gives for each of those variables is None (zeros with "
                  f"unconnected_gradients=ZERO; `apply_gradients` then skips them, with a warning that gradients do "
                  f"not exist for them). Ask only for the variables the target uses (leave that layer's out), or use "
                  f"the output it makes in the loss.", None)
        return
    it.report("GT017", node.lineno, node.col_offset,
              f"`{ast.unparse(node)[:60]}`: {src} holds the variables of {names}, but what `{cls}.call` returns is "
              f"not computed from that layer's output (the call's result is overwritten or never used), so the "
              f"gradient {tape.name}.{method} gives for each of those variables is None (zeros with "
              f"unconnected_gradients=ZERO; "
              f"`apply_gradients` then skips them, with a warning that gradients do not exist for them). Use the "
              f"layer's output in `call` (e.g. feed it to the next layer), or remove the layer from the model.", None)


def _one_element(target: Val, model: Val) -> int | None:
    """k when ``target`` reaches the calls of ``model`` (a class whose ``call`` returns several outputs) only through
    ``model(...)[k]``, one k for all; None otherwise (a call read whole, unpacked, or two outputs read)."""
    seen, todo, found = set(), [target], set()
    while todo and len(seen) <= _MAX_NODES:
        val = todo.pop()
        if val.id in seen:
            continue
        seen.add(val.id)
        element = val.attrs.get("__element__")
        if element is not None and element[0] is model:
            found.add(element[1])
            continue
        if val.attrs.get("__call_of__") is model:
            return None
        todo.extend(_inputs(val))
    return found.pop() if len(found) == 1 and len(seen) <= _MAX_NODES else None


def _cut_before_a_lambda(it, tape: Tape, model: Val, node: ast.Call, method: str, out: _Outcome) -> None:
    """GT010: a Sequential of layers in sight with a ``Lambda`` of a function without a gradient in the middle
    (keras-team/keras#15716, ``Lambda(tf.math.ceil)`` between Dense layers), every layer after it reading only its
    input and its weights: the layers with weights before it reach the output only through it, so their variables'
    gradients are None, while the layers after it still get theirs."""
    found = _middle_lambda(model)
    if found is not None:
        (how, where, text), before = found
        names = ", ".join(b.opname.rsplit(".", 1)[-1] for b in before)
        what = "stops the gradient" if how == "stop" else "has no gradient"
        layer, fix = (f"the Lambda layer of `{text}` {what}", "Use a differentiable stand-in (a sigmoid or a "
                      "straight-through `x + tf.stop_gradient(f(x) - x)`), or drop the Lambda from the model and "
                      "apply it to the predictions outside training.")
        if text == EMBEDDING_IDS:            # tensorflow#45219: an Embedding fed computed float values
            layer, fix = ("the Embedding layer casts its input to integer ids, so the lookup has no gradient with "
                          "respect to it", "To weight the embeddings by the predictions, multiply them by the "
                          "embedding matrix (a Dense layer without bias, or tf.matmul with the Embedding's weights).")
        it.report("GT010", where.lineno, where.col_offset,
                  f"{layer}, and the layers with weights before it ({names}) reach {describe(model)}'s output only "
                  f"through it: {out.of('the gradient of each of their variables')} in `{ast.unparse(node)[:60]}`, "
                  f"while the layers after it still learn. {fix}", None)


def _middle_lambda(model: Val) -> tuple | None:
    """(the Lambda's cut, the layers with weights before it) for a Sequential or functional model in sight whose layers
    with weights before a ``Lambda`` without a gradient reach the output only through it while others after it do not;
    None otherwise. Every layer must read only its input and its weights (``_built.sealed``)."""
    if model.attrs.get("foreign") or model.attrs.get("maybe"):
        return None
    layers = list(model.attrs.get("__layer_list__") or ())
    for k, layer in enumerate(layers):
        cut = layer.attrs.get("__lambda_cut__")
        if cut is not None and cut[0] == "nondiff" and cut[2] == _ONE_UNIT:
            return None
        if cut is not None:
            before, after = [b for b in layers[:k] if _built.fresh(b)], layers[k + 1:]
            ok = before and any(_built.fresh(a) for a in after) and all(_built.sealed(a) for a in after)
            return (cut, before) if ok else None
    held, outputs = model.attrs.get("__held__") or [], model.attrs.get("__outputs__")
    if layers or outputs is None or not model.attrs.get("__held_whole__") or not all(
            _built.sealed(h) or h.attrs.get("__lambda_cut__") for h in held):
        return None
    walked, done = _built.walk_back(outputs, _lambda_output)
    live = {v.id for v in walked if v.kind == "model"}
    cuts = [v.attrs["__lambda_cut__"] for v in walked if v.kind != "model" and _lambda_output(v)]
    if not done:
        return None
    dead = [h for h in held if _built.fresh(h) and h.id not in live]
    if len(cuts) != 1 or not dead or not any(_built.fresh(h) and h.id in live for h in held):
        return None
    return cuts[0], dead


def _lambda_output(value: Val) -> bool:
    """Whether ``value`` is what a ``Lambda`` layer without a gradient gave (a cut on the way to a model's output)."""
    return value.attrs.get("__lambda_cut__") is not None and value.op in ("nondiff", "stop")


def _int_weights(it, tape: Tape, model: Val, node: ast.Call, out: _Outcome) -> None:
    """GT004 for a trainable integer weight a layer of ``model`` makes (``_keras_call.int_weights``): among the
    sources, its gradient is None."""
    for line, col, text, cls in _keras_call.int_weights(model):
        it.report("GT004", line, col,
                  f"`{text}` in `{cls}` makes a trainable variable of an integer dtype: tapes only watch "
                  f"floating-point variables, so {out.of('its gradient')} wherever it is among the sources "
                  f"(`apply_gradients` skips it, with a warning that gradients do not exist for it). Give it a float "
                  f"dtype (cast it where an integer is needed), or trainable=False if it is not meant to train.", None)
        it.report("GT004", node.lineno, node.col_offset,
                  f"here {out.of('the gradient for the integer variable ' + text)}; the cause is on line {line} "
                  f"(see the GT004 finding there).", None)


def _dead_relu(it, model: Val, node: ast.Call, out: _Outcome) -> None:
    """GT028 for the first layer of ``model`` (itself, or a layer of a Sequential in sight) made with a zero kernel, a
    zero bias and a ReLU (``_calls`` marks it ``__dead_relu__``): its output is 0 for every input, so the gradients
    of its weights and of every layer before it are zeros, and stay so. Not said when the code loads or sets weights
    (``load_weights``, ``set_weights``: the zeros may be replaced before training)."""
    layers = list(model.attrs.get("__layer_list__") or ()) or [model]
    dead = next((layer.attrs["__dead_relu__"] for layer in layers if layer.attrs.get("__dead_relu__")), None)
    if dead is None or out.zeros is None or _sets_weights(it):
        return
    line, col, text = dead
    name = describe(model)
    zeros = "is zeros (the call asks for unconnected_gradients=ZERO)" if out.zeros else "is zeros"
    it.report("GT028", line, col,
              f"`{text}` starts dead: its kernel and its bias start at zero, so its output is ReLU(0) = 0 for every "
              f"input, and ReLU's gradient at 0 is 0: the gradient of each of its weights and of every layer before "
              f"it {zeros} in `{ast.unparse(node)[:60]}` (not None: the path is there, but every value on it is 0), "
              f"at this step and every step after (nothing changes them). "
              f"Keep a random kernel initializer (the default, glorot_uniform, or he_normal for ReLU); zeros are "
              f"fine for the bias alone.", None)
    it.report("GT028", node.lineno, node.col_offset,
              f"here the gradient for each weight of {name}'s first layers is zeros; the cause is on line {line} "
              f"(see the GT028 finding there).", None)


def _sets_weights(it) -> bool:
    """Whether the linted module loads or sets weights anywhere (``model.load_weights``, ``set_weights``)."""
    key = ("sets_weights",)
    if key not in it.memo:
        it.memo[key] = it.tree is not None and any(
            isinstance(n, ast.Attribute) and n.attr in ("load_weights", "set_weights") for n in ast.walk(it.tree))
    return it.memo[key]


def _owner_read(tape: Tape, target: Val, source: Val) -> bool:
    """Whether ``source``, a variable a Keras model of the source made (``self.w = self.add_weight(...)`` in its
    ``build`` or ``__init__``), was read by a call of that model the tape recorded ``target`` from: a model's call
    reads every variable it holds, except one its ``call`` reaches only through what ``build`` computed from it
    (``__unread__``, ``_keras_call.frozen_cut``)."""
    recorded = target.rec.get(tape, ())
    return source.kind == "var" and any(o.id in recorded and source.id not in o.attrs.get("__unread__", ())
                                        for o in owners(source))


def _reached(tape: Tape, target: Val, source: Val) -> bool:
    """Whether ``tape`` recorded ``target`` from a source whose value the linter cannot see (a parameter, what unseen
    code made, ``obj.trainable_variables`` of such an object, a branch merge), or a tensor made from such values:
    connected, as far as the linter can tell; such a source is taken to be variables (watched when read) or a
    tensor the tape watched. No rule fires on it either way: this only says the call could be followed."""
    recorded = target.rec.get(tape, ())
    if source.id in recorded:
        return source.kind == "unknown" or _watchable(tape, source)
    owner = source.attrs.get("variables_of")
    return owner is not None and owner.id in recorded


#: why a gradient call could not be followed (the counts in LintResult and the command's summary)
CANNOT = {"source": "a source it cannot follow",
          "target": "the target depends on code it cannot follow",
          "blind": "the tape was handed to code it cannot follow",
          "path": "no path from the source to the target in the code it can see",
          "nothing": "no target or source it can follow"}


def _decide(it, tape: Tape, t: Val, s: Val, text: str, node: ast.Call, out: _Outcome) -> str | None:
    """Report what is wrong with the pair (t, s) when the linter can tell; else say why it cannot (a CANNOT)."""
    method = out.call.rsplit(".", 1)[1]
    between = _between(it, t, s)
    opaque, uncertain = _ancestry(it, t)
    if between is None:
        if opaque:
            return CANNOT["target"]
        if s.id in tape.int_watches and not tape.blind:    # tensorflow#27526: gather_nd's integer indices
            wl, wc = tape.int_watches[s.id]
            it.report("GT004", wl, wc,
                      f"{describe(s)} is an integer tensor: {tape.name}.watch({describe(s)}) is ignored (TensorFlow "
                      f"only logs a warning), because tapes record floating-point tensors only, and no operation "
                      f"here takes a gradient through an integer input (indices, ids, counts), so "
                      f"{out.of(f'{out.call} with respect to {describe(s)}')}. Ask for the gradient with respect to "
                      "the float values it selects or counts (the params of a gather, the embedding table) instead.",
                      None)
            return None
        assigned = _through_assign(it, tape, t, s, out)
        for code, line, col, message, fix in assigned:
            it.report(code, line, col, message, fix)
            it.report(code, node.lineno, node.col_offset, _symptom(out, s, code, line), None)
        if assigned:
            return None
        return None if _sliced_source(it, tape, t, s, node, method, out) else _unconnected(it, tape, t, s, node,
                                                                                             method)
    if not _watchable(tape, s):
        if tape.blind:
            return CANNOT["blind"]
    elif any(u.id in between or tape.active_at(u.seq) for u in uncertain):
        return CANNOT["target"]
    for code, line, col, message, fix in _explained(it, tape, t, s, text, out):
        it.report(code, line, col, message, fix)
        if code == "GT007":
            it.memo.setdefault(("before", id(node)), set()).add((line, col))
        if line != node.lineno:
            traced = re.search(_TRACED.format(r"(\w+)"), message)
            first = it.memo.setdefault(("symptom", code, node.lineno, node.col_offset), (line, []))
            others = tuple(o for o in first[1] if o is not s) if first[0] == line else ()
            note = (f"{out.call}(...) here is never reached: line {line} raises {traced[1]} first, when the function "
                    f"is traced (see the {code} finding there).") if traced else \
                _symptom(out, s, code, line, _ZERO in message and (_ONE_UNIT_ZERO if _ONE_UNIT in message else True),
                         others)
            if first[0] == line and s not in first[1]:
                first[1].append(s)
            if others and not traced:           # the same cause for another source: named together (sr97)
                it.findings[(code, node.lineno, node.col_offset)] = (note, None)
            else:
                it.report(code, node.lineno, node.col_offset, note, None)
    return None


def _unconnected(it, tape: Tape, target: Val, source: Val, node: ast.Call, method: str) -> str | None:
    """GT017: no operation leads from ``source`` to ``target`` at all, so the gradient is None.

    Said only when every value the target depends on is one the linter saw made, the same way on every run
    of the program (``_closed``), and nothing it cannot see could have changed them; else "can't tell". Silent
    (but checked) where the call asks for ``unconnected_gradients=ZERO``: zeros is what the user wants there.
    """
    separate = _separate_call(it, target, source)
    if separate is None and _model_off_path(it, target, source):
        if _asks_for_zeros(node, method) is False:
            it.report("GT017", node.lineno, node.col_offset, _off_path_message(tape, method, target, source, node))
            _dropped_term(it, tape, method, target, source, node)
        return None
    unread = _layers_off_path(it, target, source) if separate is None else None
    if unread:
        if _asks_for_zeros(node, method) is False:
            it.report("GT017", node.lineno, node.col_offset,
                      _layers_off_path_message(tape, method, target, source, unread, node), None)
        return None
    if separate is None and (it.escaped or it.free_names or target.kind not in ("tensor", "var")
                             or not _new_object(source) or _unsure(source) or _unsure(target)
                             or not (_closed(it, target) or _copy_beside_models(it, target, source))):
        return CANNOT["path"]
    if _asks_for_zeros(node, method) is not False:
        return None
    if separate is not None:
        it.report("GT017", node.lineno, node.col_offset, _separate_message(tape, method, target, source, node), None)
        return None
    t, s = describe(target), describe(source)
    shared = _shared_inputs(it, target, source)
    if shared:
        names = ", ".join(describe(v) for v in shared[:4])
        it.report("GT017", node.lineno, node.col_offset,
                  f"`{ast.unparse(node)[:60]}`: {s} is a new tensor that `{source.text or source.opname}` (line "
                  f"{source.line}) made from {names}, and {t} was computed from {names}, not from {s}: no operation "
                  f"leads from {s} to {t}, so {tape.name}.{method} with respect to {s} is None (zeros with "
                  f"unconnected_gradients=ZERO), recorded or not. Ask for the gradient with respect to {names} and "
                  f"combine the results the same way ({source.opname} of the gradients), or compute {t} from {s} "
                  f"inside the block (take {names} back out of it: slices of it, or a reshape back).", None)
        return None
    _initial_copy(it, tape, method, target, source, node)
    it.report("GT017", node.lineno, node.col_offset,
              f"`{ast.unparse(node)[:60]}`: {t} is not computed from {s} at all (no operation in this code leads from "
              f"{s} to {t}), so {tape.name}.{method} with respect to {s} is None (zeros with "
              f"unconnected_gradients=ZERO). Compute {t} from {s} (inside the `with` block), or ask for the "
              f"gradient with respect to the value {t} was computed from.", None)
    return None


def _initial_copy(it, tape: Tape, method: str, target: Val, source: Val, node: ast.Call) -> None:
    """GT017 where ``target`` reads a ``tfp.util.TransformedVariable`` made from the variable ``source`` (its initial
    value, read once: tensorflow/probability#1167): the new variable is on the path, ``source`` is not."""
    seen, todo = set(), [target]
    while todo and len(seen) <= _MAX_NODES:
        val = todo.pop()
        if val.id in seen:
            continue
        seen.add(val.id)
        if source.id in val.attrs.get("__initial_vars__", ()) and val.kind == "var":
            s = describe(source)
            it.report("GT017", val.line, val.col,
                      f"`{val.text[:60]}` makes a new variable whose initial value is computed from {s} once: "
                      f"{describe(target)} is computed from that new variable, not from {s}, so the gradient "
                      f"{tape.name}.{method} on line {node.lineno} gives for {s} is None (zeros with "
                      f"unconnected_gradients=ZERO). Compute the value from {s} inside the `with` block and use it "
                      f"(a tensor, not a new tf.Variable), or ask for the gradient with respect to the new "
                      f"variable.", None)
            return
        if val.attrs.get("__initial_from__") is source:
            s = describe(source)
            it.report("GT017", val.line, val.col,
                      f"`{val.text[:60]}` makes a new variable whose initial value is read from {s} once: "
                      f"{describe(target)} is computed from that new variable, not from {s}, so the gradient "
                      f"{tape.name}.{method} on line {node.lineno} gives for {s} is None (zeros with "
                      f"unconnected_gradients=ZERO). Make the TransformedVariable once, before the tape, from a "
                      f"number (`scale = tfp.util.TransformedVariable(2.0, tfb.Exp())`) and ask for "
                      f"`scale.trainable_variables`; or keep {s} and pass `tfp.util.DeferredTensor({s}, tf.exp)`, "
                      f"which reads {s} each time.", None)
            return
        todo.extend(_inputs(val))


def _model_off_path(it, target: Val, source: Val) -> bool:
    """Whether ``source`` is a Keras model in sight (a Sequential of built-in layers, ``_built.sealed``, with weights)
    that ``target`` is not computed from at all: every value the target depends on is known (``_closed``, Keras models
    on the way sealed too), and none of them is the model, one of its layers or variables, or a model holding one of its
    layers (MorvanZhou/Reinforcement-learning-with-tensorflow#125: the actor called in the block, the actor's loss
    computed by the critic from a stored action)."""
    if source.kind != "model" or it.escaped or it.free_names or target.kind != "tensor" or _unsure(target) \
            or not _built.sealed(source) or not _built.fresh(source) or not _closed(it, target, sealed=True):
        return False
    mine, seen, todo = _layer_ids(source), set(), [target]
    while todo and len(seen) <= _MAX_NODES:
        val = todo.pop()
        if val.id in seen:
            continue
        seen.add(val.id)
        if val.id in mine or val.kind == "model" and _layer_ids(val) & mine:
            return False
        todo.extend(_inputs(val))
    it.charge(len(seen), "the values a gradient depends on")
    return len(seen) <= _MAX_NODES


def _layers_off_path(it, target: Val, source: Val) -> tuple[list[Val], list[Val]] | None:
    """The layers of ``source``, a functional Keras model whose layers are all known (built-in, ``_built.sealed``),
    that ``target`` does not read, and those it reads, when it reads some of them by calls of their own and never
    calls ``source`` itself (so51257037: ``hidden_layer(x)`` beside ``Model(inp, out_layer(hidden_layer(inp)))``);
    None when that is not sure, or when every layer or none is read."""
    held = source.attrs.get("__held__") or []
    if source.kind != "model" or not source.attrs.get("__held_whole__") or not held or it.escaped or it.free_names \
            or target.kind != "tensor" or _unsure(target) or not all(_built.sealed(layer) for layer in held) \
            or not _closed(it, target, sealed=True):
        return None
    mine = {layer.id for layer in held}
    read, seen, todo = set(), set(), [target]
    while todo and len(seen) <= _MAX_NODES:
        val = todo.pop()
        if val.id in seen:
            continue
        seen.add(val.id)
        if val is source or val.kind == "model" and source.id in _layer_ids(val):
            return None
        if val.kind == "model":
            read |= _layer_ids(val) & mine
        todo.extend(_inputs(val))
    it.charge(len(seen), "the values a gradient depends on")
    unread = [layer for layer in held if layer.id not in read and _built.fresh(layer)]
    if todo or not read or not unread:
        return None
    return unread, [layer for layer in held if layer.id in read]


def _layers_off_path_message(tape: Tape, method: str, target: Val, source: Val, layers: tuple,
                             node: ast.Call) -> str:
    unread, read = layers
    t, s = describe(target), describe(source)
    off = ", ".join(describe(layer) for layer in unread[:4]) + (", ..." if len(unread) > 4 else "")
    on = ", ".join(describe(layer) for layer in read[:4])
    return (f"`{ast.unparse(node)[:60]}`: {t} is computed by calls of {on} of their own, not by {s}, so no operation "
            f"leads to it from the other layers of {s} ({off}): the gradient {tape.name}.{method} gives for each "
            f"of their variables is None (zeros with unconnected_gradients=ZERO), while those of {on} are real. "
            f"Compute {t} from {s}'s output (call `{s}(x)`), or ask for the variables of the layers {t} reads "
            f"(`{describe(read[0])}.trainable_variables`).")


def _dropped_term(it, tape: Tape, method: str, target: Val, source: Val, node: ast.Call) -> None:
    """GT017 where ``target`` was made, when the tape recorded a value computed from the Keras model ``source`` (that
    ``target`` is not computed from at all, ``_model_off_path``) and a name was given to it that the target then left
    out: the VAE loss reduced to its KL term while the decoder's output went to an unused term (keras-team/keras#4508),
    a loss function that never reads the prediction it is given (rstudio/keras3#515). The last such name is told."""
    if not target.line or target.line == node.lineno:
        return
    ancestors = _ancestors(target)
    mine = _layer_ids(source)
    for name, val, line, function in reversed(it.bound):
        if val.id in ancestors or tape not in val.rec or not _reads_model(it, val, mine):
            continue
        what = f"{name}, a parameter of `{function}` (line {line}) it never reads" if function else \
            f"{name} (line {line})"
        instead = None if function else _read_instead(ancestors, val)
        if instead is not None:             # spatial-transformer-network#3: the CNN reads x, not h_trans
            call, given = instead
            it.report("GT017", call.line, call.col,
                      f"`{call.text[:60]}` reads {describe(given)}, not {what}, which was computed from "
                      f"{describe(given)} and holds what {describe(source)} gives: nothing else leads from "
                      f"{describe(source)} to {describe(target)}, so the gradient {tape.name}.{method} on line "
                      f"{node.lineno} gives for each of {describe(source)}'s variables is None (zeros with "
                      f"unconnected_gradients=ZERO). Pass {name} here instead of {describe(given)}.", None)
            return
        root = None if function else _root_in_function(it, ancestors, line)
        if root is not None:                # keras#15770: the cost computed from the global y_test, not y_pred
            where, fn = root
            it.report("GT017", where.line, where.col,
                      f"`{where.text[:60]}` in `{fn}` is computed from values made outside it, not from {what}, "
                      f"which holds what {describe(source)} gives, and what `{fn}` returns is computed from it: "
                      f"nothing else leads from {describe(source)} to {describe(target)}, so the gradient "
                      f"{tape.name}.{method} on line {node.lineno} gives for each of {describe(source)}'s variables "
                      f"is None (zeros with unconnected_gradients=ZERO). Compute it from {name} (and the function's "
                      f"other parameters), not from a global.", None)
            return
        it.report("GT017", target.line, target.col,
                  f"`{target.text[:60] or describe(target)}` is not computed from {what}, which holds what "
                  f"{describe(source)} gives: nothing else leads from {describe(source)} to {describe(target)}, so "
                  f"the gradient {tape.name}.{method} on line {node.lineno} gives for each of {describe(source)}'s "
                  f"variables is None (zeros with unconnected_gradients=ZERO). Use {name} in "
                  f"{describe(target)} (the term it computes, or the prediction a loss is given), or leave "
                  f"{describe(source)}'s variables out of the gradient.", None)
        return


def _root_in_function(it, ancestors: dict[int, Val], line: int) -> tuple[Val, str] | None:
    """(the value, the function's name) where the target's computation starts inside the function whose body holds
    ``line`` (where the dropped name was bound): the first operation of that function on the way to the target whose
    inputs were all made outside it (a global such as ``y_test``, constants). None when the dropped name is not bound
    in a function of the linted file, or no such operation is on the way."""
    fn = next((f for f in ast.walk(it.tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
               and f.lineno < line <= (f.end_lineno or 0)), None) if it.tree is not None else None
    if fn is None or any(isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and f is not fn
                         for f in ast.walk(fn)):
        return None

    def inside(val: Val) -> bool:
        return fn.lineno < val.line <= fn.end_lineno

    made = [val for val in ancestors.values() if val.kind in ("tensor", "numpy") and val.text and inside(val)]
    roots = [val for val in made if not any(inside(p) for p in _inputs(val))]
    if not roots:
        return None
    first = min(val.line for val in roots)      # the whole expression of that line, not its first operand
    return min((val for val in made if val.line == first), key=lambda v: (v.col, -len(v.text))), fn.name


def _ancestors(value: Val) -> dict[int, Val]:
    """The values ``value`` was computed from (itself included), by id, at most about ``_MAX_NODES``."""
    found, todo = {}, [value]
    while todo and len(found) <= _MAX_NODES:
        val = todo.pop()
        if val.id not in found:
            found[val.id] = val
            todo.extend(_inputs(val))
    return found


def _read_instead(ancestors: dict[int, Val], dropped: Val) -> tuple[Val, Val] | None:
    """(the call, its input) of the one model call the target is computed from whose input the ``dropped`` value was
    computed from too, while the call itself is not on the way to it (``logits = cnn(x)`` beside ``h_trans =
    transformer(x, locnet(x))``): the call that reads the input instead of the value made from it. None when there is
    not exactly one (the VAE's ``encoder(x)``, on the way to its dropped ``xent_loss``, is no such call)."""
    before = _ancestors(dropped)
    found = {(val.id, given.id): (val, given) for val in ancestors.values() if val.attrs.get("__call_of__")
             and val.id not in before
             for given in _inputs(val) if given.kind in ("tensor", "var") and given.id in before}
    return next(iter(found.values())) if len(found) == 1 else None


def _reads_model(it, val: Val, mine: set[int]) -> bool:
    """Whether ``val`` is computed from a model whose layer ids are ``mine`` (one of them, or a model holding one)."""
    seen, todo = set(), [val]
    while todo and len(seen) <= _MAX_NODES:
        v = todo.pop()
        if v.id in seen:
            continue
        seen.add(v.id)
        if v.id in mine or v.kind == "model" and _layer_ids(v) & mine:
            return True
        todo.extend(_inputs(v))
    it.charge(len(seen), "the values a gradient depends on")
    return False


def _layer_ids(model: Val) -> set[int]:
    """The ids of ``model`` and of every layer it holds, and of those layers' layers."""
    return {layer.id for layer in _layers(model)}


def _layers(model: Val, depth: int = 0, found: dict | None = None) -> list[Val]:
    """``model`` and every layer it holds, and those layers' layers (each once)."""
    found = {} if found is None else found
    found[model.id] = model
    if depth < 6:
        for layer in list(model.attrs.get("__layer_list__") or ()) + list(model.attrs.get("__held__") or ()):
            if isinstance(layer, Val) and layer.id not in found:
                _layers(layer, depth + 1, found)
    return list(found.values())


def _unread_weights(it, tape: Tape, target: Val, model: Val, text: str, node: ast.Call, out: _Outcome) -> None:
    """GT007 for the variables of ``model`` (asked for as a whole, ``model.trainable_variables``) that a call the tape
    recorded ``target`` from never reads: a layer of a Sequential whose ``call`` reaches them only through what its
    ``build`` computed from them (``__unread_vals__``, keras-team/keras#4401). Each is explained as a source of its
    own."""
    recorded, layers = target.rec.get(tape, ()), _layers(model)
    mine = {layer.id for layer in layers}
    for layer in layers:
        if layer.id not in recorded:
            continue
        for weight in layer.attrs.get("__unread_vals__", ()):
            if any(o.id in mine for o in owners(weight)) and _watchable(tape, weight):
                _decide(it, tape, target, weight, text, node, out)


def _off_path_message(tape: Tape, method: str, target: Val, source: Val, node: ast.Call) -> str:
    t, s = describe(target), describe(source)
    return (f"`{ast.unparse(node)[:60]}`: {t} is not computed from {s} at all: no output of {s} and none of its "
            f"variables lead to {t}, so the gradient {tape.name}.{method} gives for each of {s}'s variables is None "
            f"(zeros with unconnected_gradients=ZERO; `apply_gradients` then skips them, with a warning that "
            f"gradients do not exist for them). Compute {t} from what {s} gives (pass its output on to the layers "
            f"that compute {t}; in actor-critic code, call the critic on the action the actor gives, not on a stored "
            f"one), or ask for the variables {t} is computed from.")


def _shared_inputs(it, target: Val, source: Val) -> list[Val]:
    """The values ``source`` was made from (by one of ``_NEW_TENSOR``) that ``target`` was computed from too
    (tensorflow#9204: ``p = tf.concat([x, y])`` asked for, ``z`` computed from ``x`` and ``y``)."""
    if source.opname not in _NEW_TENSOR:
        return []
    ancestors, todo = set(), list(_inputs(target))
    while todo and len(ancestors) <= _MAX_NODES:
        val = todo.pop()
        if val.id not in ancestors:
            ancestors.add(val.id)
            todo.extend(_inputs(val))
    it.charge(len(ancestors), "the values a gradient depends on")
    return [p for p in source.parents if p.id in ancestors and p.kind in ("tensor", "var")]


def _sliced_source(it, tape: Tape, target: Val, source: Val, node: ast.Call, method: str, out: _Outcome) -> bool:
    """GT001 (GT017 inside the block): the source is a slice of a tensor the target was computed from
    (``tape.gradient(y, x[:, 1])``, tensorflow#31891): the slice is a new tensor and ``y`` was not computed from it,
    so the gradient is None, recorded or not. Said when the sliced tensor reaches the target on this tape."""
    if source.op != "slice" or len(source.parents) != 1 or source.opaque:
        return False
    whole = source.parents[0]
    if whole.id not in target.rec.get(tape, ()) and whole.id != target.id or not _watchable(tape, whole) \
            or _asks_for_zeros(node, method) is not False:
        return False
    t, w, part = describe(target), describe(whole), source.text or "the slice"
    index = part[len(w):] if part.startswith(w) and part[len(w):].startswith("[") else "[...]"
    fix = (f"Ask for the gradient with respect to {w} and slice the result: `{tape.name}.{method}({t}, {w})"
           f"{index}`.")
    if tape.when(source.seq) == "after":
        it.report("GT001", source.line, source.col,
                  f"`{part}` slices {w} after the `with` block of {tape.name} (line {_tape_line(tape)[0]}) ended, as "
                  f"the source of `{ast.unparse(node)[:60]}`: the slice is a new tensor, and {t} was computed from "
                  f"{w}, not from it, so {out.of(f'{out.call} with respect to it')}. {fix}", None)
    else:
        it.report("GT017", node.lineno, node.col_offset,
                  f"`{ast.unparse(node)[:60]}`: `{part}` (line {source.line}) is a new tensor sliced from {w}, and "
                  f"{t} was computed from {w}, not from the slice, so {out.of(f'{out.call} with respect to it')}. "
                  f"{fix}", None)
    return True


def _separate_call(it, target: Val, source: Val) -> Val | None:
    """The model whose call of its own made ``source`` (``features = model.layers[0](x)``, ``base(x)``), when the
    target is computed only by calls of Keras models that read nothing but their inputs and weights (``_built.sealed``)
    and values the linter saw made: the target's own model call runs its layers again from its input, so ``source``
    (a new tensor) is not on its path. None when that is not sure."""
    model = source.attrs.get("__call_of__")
    if model is None or it.escaped or it.free_names or target.kind != "tensor" or source.kind != "tensor" \
            or source.opaque or _unsure(target) or not _built.sealed(model) or not _built.fresh(model):
        return None
    return model if _closed(it, target, sealed=True) else None


def _separate_message(tape: Tape, method: str, target: Val, source: Val, node: ast.Call) -> str:
    t, s = describe(target), describe(source)
    return (f"`{ast.unparse(node)[:60]}`: {s} is the output of a call of its own (`{source.text or s}`, line "
            f"{source.line}), and {t} comes from another model call, which runs its layers again from its input and "
            f"never uses {s}: no operation leads from {s} to {t}, so {tape.name}.{method} with respect to {s} is None "
            f"(zeros with unconnected_gradients=ZERO), watched or not. Compute {t} from {s} (call the layers that "
            f"follow on {s}), or build one model that gives both (`keras.Model(model.inputs, [layer.output, "
            f"model.output])`), call it once inside the block and ask for the gradient with respect to its first "
            f"output.")


#: library functions that always make a new tensor, never hand back their input itself (tensorflow#9204: a concat of
#: the variables, boncey/Flickr4Java#228: a reshape of one, asked for instead of them)
_NEW_TENSOR = frozenset({"tf.concat", "tf.stack", "tf.reshape", "tf.transpose", "tf.expand_dims", "tf.tile",
                         "tf.squeeze"})


def _new_object(source: Val) -> bool:
    """Whether ``source`` is surely an object of its own: a variable, a tensor made from Python or NumPy values, the
    result of a Python operator or a gradient, or of a library function of ``_NEW_TENSOR``. Not the result of another
    library function, which may hand back its input itself (``tf.cast`` to the dtype it has, ``tf.nest.flatten``): a
    path from that input is one from it."""
    return source.op in ("leaf", "const", "gradient") or source.op == "op" and (
        not source.opname or source.opname in _NEW_TENSOR or source.opname == "tf.identity"
        or source.opname in _READS and len(source.parents) == 1 and source.parents[0].kind == "var")


#: a variable's read made anew, a tensor of its own (``w.value()``, ``tf.convert_to_tensor(w)``, ``tf.identity(w)``)
_READS = frozenset({"value", "read_value", "tf.convert_to_tensor", "tf.identity"})


def _copy_beside_models(it, target: Val, source: Val) -> bool:
    """Whether ``source`` is a tensor or a plain variable the linter saw made (a copy: ``tf.Variable(x)``,
    ``tf.identity(x)``, ``x + noise``, ``tf.convert_to_tensor(images)``) that no Keras model owns, and ``target`` is
    computed by Keras models that read only their inputs and their own weights (``_built.sealed``) from values the
    linter saw made: no such model can read ``source`` except as its input, so no path means none at run time."""
    return source.kind in ("tensor", "var") and not owners(source) \
        and _closed(it, target, sealed=True)


def _unsure(val: Val) -> bool:
    """Whether ``val`` may not be what the program has there (see ``_closed``)."""
    return bool(val.opaque or val.kind in ("unknown", "model") or val.attrs.get("maybe")
                or val.attrs.get("from_attr") or val.attrs.get("hidden"))


def _closed(it, target: Val, sealed: bool = False) -> bool:
    """Whether every value ``target`` depends on is known for sure: made by code the linter followed, with all
    its inputs among its parents (``hidden``), not bound on some branches or passes only (``maybe``), not read
    from an attribute another method may have set, not handed to unseen code, and no Keras model on the way
    (its layers may read any variable)."""
    key = ("closed", target.id, sealed)
    if key not in it.memo:
        seen, todo, closed = set(), [target], True
        while todo and closed:
            val = todo.pop()
            if val.id in seen:
                continue
            seen.add(val.id)
            closed = (not _unsure(val) or sealed and _built.sealed(val)) and len(seen) <= _MAX_NODES
            todo.extend(_inputs(val))
        it.charge(len(seen), "the values a gradient depends on")
        it.memo[key] = closed
    return it.memo[key]


_ARG_POSITION = {"gradient": 3, "jacobian": 2, "batch_jacobian": 2}


def _asks_for_zeros(node: ast.Call, method: str) -> bool | None:
    """Whether the call passes ``unconnected_gradients`` other than NONE: True for ZERO or "zero", None for a value
    or options not known (it may ask for zeros), False when it does not."""
    if any(k.arg is None for k in node.keywords) or any(isinstance(a, ast.Starred) for a in node.args):
        return None                                 # tape.gradient(y, x, **options): it may ask for zeros
    given = next((k.value for k in node.keywords if k.arg == "unconnected_gradients"), None)
    position = _ARG_POSITION.get(method, 3)
    if given is None and len(node.args) > position:
        given = node.args[position]
    if given is None:
        return False
    text = ast.unparse(given)
    if text.endswith("UnconnectedGradients.NONE") or text.strip("'\"").lower() == "none":
        return False
    return True if text.endswith("UnconnectedGradients.ZERO") or text.strip("'\"").lower() == "zero" else None


def _ancestry(it, target: Val) -> tuple[bool, list[Val]]:
    """Whether unknown code took part in ``target`` (any value it depends on), and the values such code made."""
    key = ("ancestry", target.id)
    if key not in it.memo:
        seen, todo, opaque, made = set(), [target], False, []
        while todo:
            val = todo.pop()
            if val.id in seen:
                continue
            seen.add(val.id)
            opaque = opaque or val.opaque or val.kind == "unknown"
            if val.op in ("unknown", "too big"):
                made.append(val)
            todo.extend(val.parents)
            if len(seen) > _MAX_NODES:
                made.append(Val("unknown", op="unknown", seq=0))   # too far to look: can't tell
                opaque = True
                break
        it.charge(len(seen), "the values a gradient depends on")
        it.memo[key] = (opaque, made)
    return it.memo[key]


def _symptom(out: _Outcome, source: Val, code: str, line: int, zero_gradient: bool | str = False,
             others: tuple = ()) -> str:
    """The note on the gradient call; ``others``: the sources before ``source`` whose gradient the same cause makes
    None (sr97: a kernel and a gain read once in ``build``), named together."""
    raised = source.attrs.get("raises")
    if raised is not None:
        return (f"{out.call}(...) here is never reached: line {line} raises {raised} first (see the {code} finding "
                "there).")
    names = [describe(o) for o in others] + [describe(source)]
    said = out.of(f"the gradient for {_and(names)}" if len(names) == 1 else
                  f"the gradient for each of {_and(names)}", zero_gradient)
    return f"here {said}; the cause is on line {line} (see the {code} finding there)."


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _weights_of(op: Val) -> list[str]:
    """The names of the trainable variables ``op`` was computed from (a value ``build`` stored), in order."""
    found, seen, todo = [], set(), [op]
    while todo and len(seen) < _MAX_NODES:
        val = todo.pop()
        if val.id in seen:
            continue
        seen.add(val.id)
        if val.kind == "var" and val.trainable and val.name and val.name not in found:
            found.append(val.name)
        todo.extend(reversed(val.parents))
    return found


def _count_calls(it, tape: Tape, node: ast.Call, method: str) -> None:
    if tape.persistent or tape.blind:
        return
    tape.calls.append((node.lineno, node.col_offset))
    if len(tape.calls) == 2 and _in_a_loop_inside_the_block(it, tape, node):
        line, col = tape.with_lines[-1]
        it.report("GT014", line, col,
                  f"{tape.name}.{method}(...) on line {node.lineno} runs inside the `with` block of the non-persistent "
                  f"tape {tape.name}, in a loop that runs inside that block: the first pass releases the tape and the "
                  "second raises RuntimeError (persistent=True would keep every pass recorded on one tape, so its "
                  "memory grows with each step). Open a new tape on each pass: put "
                  f"`with tf.GradientTape() as {tape.name}:` inside the loop.", None)
        it.report("GT014", node.lineno, node.col_offset,
                  f"the second pass of this loop asks the non-persistent tape {tape.name} again, which raises "
                  f"RuntimeError. Put its `with` (line {line}) inside the loop.", None)
        return
    if len(tape.calls) == 2:
        line, col = _tape_line(tape)
        first = tape.calls[0][0]
        where = f"line {first}" if first != node.lineno else "this line, in a loop"
        it.report("GT006", line, col,
                  f"{tape.name} is not persistent but is asked twice (first on {where}, again on line {node.lineno}): "
                  "the first gradient/jacobian call releases the tape's resources and the second raises RuntimeError. "
                  "Create it with tf.GradientTape(persistent=True) (and `del` it when done), or ask once with a "
                  "list of targets.", ("persistent", tape.line, tape.col))
        if node.lineno != line:
            it.report("GT006", node.lineno, node.col_offset,
                      f"second {method} call on the non-persistent tape {tape.name} (made on line {line}): this raises "
                      "RuntimeError. Make the tape persistent=True.", None)


def _in_a_loop_inside_the_block(it, tape: Tape, node: ast.Call) -> bool:
    """The same call asked again, inside the tape's own `with` block, by a loop that started in that block."""
    interval = tape.intervals[-1] if tape.intervals else None
    return (tape.calls[0] == (node.lineno, node.col_offset) and tape in it.stack and interval is not None
            and interval[1] is None and bool(it.loops) and it.loops[-1] > interval[0])


def _through_assign(it, tape: Tape, target: Val, source: Val, out: _Outcome) -> list[tuple]:
    """GT012: the target reads a variable after ``v.assign(f(source))``: assign is not differentiable."""
    found, seen, todo = [], set(), [target]
    while todo and len(seen) < _MAX_NODES:
        val = todo.pop()
        if val.id in seen:
            continue
        seen.add(val.id)
        todo.extend(val.parents)
        for parent in val.parents:
            entries = list(parent.attrs.get("__assigns__", ())) if parent.kind in ("var", "model") else []
            inside = parent.attrs.get("__call_assigns__", ()) if parent.kind == "model" else ()
            for value, line, col, text, seq in inside:
                if seq < val.seq and (value is source or _between(it, value, source) is not None):
                    finding = ("GT012", line, col, _call_assign_message(text, describe(source), parent, out), None)
                    if finding not in found:
                        found.append(finding)
            bridges = parent.attrs.get("__call_bridges__", ()) if parent.kind == "model" else ()
            for value, line, col, text, seq in bridges:
                if seq < val.seq and (value is source or _between(it, value, source) is not None):
                    finding = ("GT002", line, col, _bridge_message(text, describe(source), parent, out), None)
                    if finding not in found:
                        found.append(finding)
            for value, line, col, text, seq in entries:
                if seq < val.seq and (value is source or _between(it, value, source) is not None):
                    s, v = describe(source), describe(parent)
                    finding = ("GT023", line, col, _set_weights_message(text, s, v, out), None) \
                        if parent.kind == "model" else ("GT012", line, col, _assign_message(text, s, v, out), None)
                    if finding not in found:
                        found.append(finding)
    it.charge(len(seen), "the values a gradient depends on")
    return found


def _assign_message(text: str, s: str, v: str, out: _Outcome) -> str:
    if ".scatter" not in text and ".batch_scatter" not in text:
        return (f"`{text}` copies a value computed from {s} into the variable {v}: assign, assign_add and assign_sub "
                f"are not differentiable, so the tape does not follow {s} through {v} and "
                f"{out.of(f'{out.call} with respect to {s}')}. Use the value itself (`{v}_new = ...`, then compute "
                f"with {v}_new) inside the block; assign only to update state.")
    return (f"`{text}` writes a value computed from {s} into entries of the variable {v}: a variable's scatter "
            f"updates, like assign, are not differentiable, so the tape does not follow {s} through {v} and "
            f"{out.of(f'{out.call} with respect to {s}')}. Compute a new tensor instead "
            f"(`{v}_new = tf.tensor_scatter_nd_update({v}, indices, updates)`, or `tf.tensor_scatter_nd_add`), then "
            f"compute with {v}_new inside the block; scatter into the variable only to update state.")


def _call_assign_message(text: str, s: str, model: Val, out: _Outcome) -> str:
    cls = getattr(model.node, "name", "the model")
    return (f"`{text}` in `{cls}.call` copies a value computed from the call's input into a variable, and what "
            f"`call` returns is computed from that variable, not from the input: assign, assign_add and assign_sub are "
            f"not differentiable, so the tape does not follow {s} through `{cls}` and "
            f"{out.of(f'{out.call} with respect to {s}')}. Compute with the value itself in `call` (`w = x`, then use "
            "`w`); assign only to keep state.")


def _bridge_message(text: str, s: str, model: Val, out: _Outcome) -> str:
    name = model.name or getattr(model.node, "name", "the model")
    return (f"`{text}` in a layer's `call` hands the call's input to NumPy, and what the layer returns is NumPy's "
            f"result: TensorFlow records no gradient through tf.numpy_function, so the tape does not follow {s} "
            f"through `{name}` and {out.of(f'{out.call} with respect to {s}')}. Write the operation with TensorFlow "
            "ops (`tf.sinh(x)` for `np.sinh`), or give it a gradient with `@tf.custom_gradient`.")


def _set_weights_message(text: str, s: str, model: str, out: _Outcome) -> str:
    return (f"`{text}` copies values computed from {s} into {model}'s variables: set_weights goes through NumPy "
            f"(and get_weights gives NumPy arrays), so the tape does not follow {s} into {model} and "
            f"{out.of(f'{out.call} with respect to {s}')}. Compute with the values themselves (call the layers' "
            f"operations on them, e.g. `tf.matmul(x, new_kernel)`), or ask for the gradient with respect to "
            f"{model}.trainable_variables.")


def _rows_interact(it, tape: Tape, target: Val, source: Val, node: ast.Call) -> None:
    """GT016: batch_jacobian of a target whose rows depend on other rows of the source (a reduction over the
    batch axis combined back with row data): batch_jacobian assumes row i depends on row i only, so it gives a
    wrong number, not an error."""
    between = _between(it, target, source)
    opaque, uncertain = _ancestry(it, target)
    if between is None or opaque or uncertain:
        return
    for later in between.values():
        if later.op in ("gradient", "merge"):
            continue
        mixed = [p for p in later.parents if p.id in between and p.attrs.get("mixes_rows")
                 and _recorded(tape, source, p)]
        rows = [p for p in later.parents if p.id in between and not p.attrs.get("mixes_rows")
                and _recorded(tape, source, p)]
        if mixed and rows:
            s = describe(source)
            it.report("GT016", node.lineno, node.col_offset,
                      f"`{ast.unparse(node)[:60]}`: row i of the target depends on every row of {s}, through "
                      f"`{mixed[0].text}` (line {mixed[0].line}, a reduction over the batch axis) combined with "
                      f"`{later.text}` (line {later.line}). batch_jacobian assumes row i depends on row i of {s} only "
                      "and returns a wrong number, not None and no error. Use "
                      f"{tape.name}.jacobian(...) and take the diagonal blocks, or keep the rows independent "
                      "(reduce over axis=1, not over the batch).", None)
            return


def _recorded(tape: Tape, source: Val, val: Val) -> bool:
    return _is_source(val, source) or source.id in val.rec.get(tape, ())


def _tape_line(tape: Tape) -> tuple[int, int]:
    return tape.with_lines[0] if tape.with_lines else (tape.line, tape.col)


def _explained(it, tape: Tape, target: Val, source: Val, sources: str, out: _Outcome) -> list[tuple]:
    """``_explain``, worked out once per tape state, target, source and outcome (see the module docstring)."""
    key = ("explain", id(tape), _state(tape), target.id, source.id, source.trainable, source.rebound, sources, out)
    if key not in it.memo:
        it.memo[key] = _explain(it, tape, target, source, sources, out)
    return it.memo[key]


def _state(tape: Tape) -> tuple:
    """What of a tape an explanation depends on: its watches, blindness and recording intervals."""
    last = tape.intervals[-1] if tape.intervals else None
    return (id(tape.watched), len(tape.watched), tuple(tape.int_watches.items()), tape.blind, len(tape.intervals),
            last and last[1], tape.name)


def _explain(it, tape: Tape, target: Val, source: Val, sources: str, out: _Outcome) -> list[tuple]:
    between = _between(it, target, source)
    if between is None:
        return []
    if not _watchable(tape, source):
        return _unwatched(it, tape, source, target, out)
    findings = []
    for later in between.values():
        for parent in later.parents:
            if parent.id in between:
                found = _edge(tape, source, parent, later, target, sources, out)
                if found is not None and found not in findings:
                    findings.append(found)
    for found in _breaks_behind_a_round_trip(tape, source, between, target, sources, out):
        if found not in findings:
            findings.append(found)
    return findings


def _breaks_behind_a_round_trip(tape: Tape, source: Val, between: dict, target: Val, sources: str,
                                out: _Outcome) -> list[tuple]:
    """The breaks further down a path that a NumPy/Python round trip already cut: each is a mistake of its own.

    ``x.numpy()`` then ``tf.argmax`` on what came back: fixing the round trip alone still gives None, so both
    are reported. The path is followed as if every round trip were fixed (through ``.numpy()``, ``float()``
    and what is made from them, inside the tape's block, never through ``tf.stop_gradient``); a
    non-differentiable operation reached that way is reported when the target would still be cut off.
    """
    flow, behind = {source.id}, []
    for later in between.values():            # in program order
        if later is source or not any(p.id in flow or _is_source(p, source) for p in later.parents):
            continue
        if later.op in ("numpy", "merge") or later.op not in ("nondiff", "stop") and tape.active_at(later.seq):
            flow.add(later.id)
        elif later.op == "nondiff" and not any(_live(tape, source, p, later) for p in later.parents
                                               if p.id in flow or _is_source(p, source)):
            behind.append(later)
    if target.id in flow:
        return []
    return [_classify(tape, source, op, True, target, sources, out) for op in behind]


def _made_before(it, tape: Tape, target: Val, source: Val) -> Val | None:
    """A value on the path from ``source`` to ``target`` made before ``tape`` first recorded (not ``source``): a
    watch of ``source`` in the block cannot record it."""
    between = _between(it, target, source) or {}
    start = tape.intervals[0][0] if tape.intervals else None
    return None if start is None else next((v for v in sorted(between.values(), key=lambda v: v.seq)
                                            if v is not source and v.seq < start and _computed_now(v)), None)


def _computed_now(val: Val) -> bool:
    """Whether ``val`` is a tensor computed when it was made: a TensorFlow operation's, or a TFP distribution's
    ``sample`` (drawn eagerly), not an object or a function unseen code made, which may compute from it later."""
    return val.kind == "tensor" and val.known or val.kind == "unknown" and bool(val.attrs.get("__drawn__"))


def _between(it, target: Val, source: Val) -> dict | None:
    """The values on the paths from ``source`` to ``target`` (id -> value), or None if there is no path."""
    key = ("between", target.id, source.id)          # a value's parents never change: one walk per pair
    if key not in it.memo:
        it.memo[key] = _walk_between(it, target, source)
    return it.memo[key]


def _walk_between(it, target: Val, source: Val) -> dict | None:
    ancestors, todo = {}, [target]
    while todo:
        val = todo.pop()
        if val.id not in ancestors:
            if len(ancestors) > _MAX_NODES:
                it.charge(len(ancestors), "the values on the way to a gradient")
                it.give_up(f"the gradient on line {it.line} depends on at least {len(ancestors):,} values, more "
                           f"than {_MAX_NODES:,}, so it was not explained")
                return None
            ancestors[val.id] = val
            todo.extend(_inputs(val))
    it.charge(2 * len(ancestors), "the values on the way to a gradient")
    if source.id not in ancestors:
        return None
    reached = {source.id: source}
    for val in sorted(ancestors.values(), key=lambda v: v.seq):
        if any(p.id in reached for p in _inputs(val)):
            reached[val.id] = val
    return reached if target.id in reached else None


def _watchable(tape: Tape, source: Val) -> bool:
    if source.id in tape.watched or source.rec.get(tape):
        return True
    return tape.auto and source.kind in ("var", "model") and source.trainable and source.dtype != "int"


def _inputs(val: Val) -> tuple:
    """What ``val`` is made from, for the paths: its parents, and for a layer or variable of a Keras model, the
    model that owns it (a path from ``self.dense`` is a path from ``self``)."""
    owner = val.attrs.get("__owner__")
    return val.parents + (owner,) if owner is not None else val.parents


def _is_source(val: Val, source: Val) -> bool:
    return val is source or any(o is source for o in owners(val))


def _live(tape: Tape, source: Val, parent: Val, later: Val) -> bool:
    """Whether the tape followed ``source`` through ``parent`` when ``later`` was computed."""
    if parent is not source and _is_source(parent, source):
        return _live(tape, parent, parent, later)          # a layer or variable of the source model
    if parent is not source:
        return source.id in parent.rec.get(tape, ())
    watch = tape.watched.get(source.id)
    if watch is not None and watch[3] == "watch" and watch[0] < later.seq or source.rec.get(tape):
        return True
    return tape.auto and source.kind in ("var", "model") and source.trainable and tape.active_at(later.seq)


def _edge(tape: Tape, source: Val, parent: Val, later: Val, target: Val, sources: str,
          out: _Outcome) -> tuple | None:
    if later.kind == "mmethod":           # model.input, model.fit: an attribute of the model read, not an operation
        return None                       # on its weights; no line of the user's to blame (tensorflow#38119)
    live = _live(tape, source, parent, later)
    if live and source.id in later.rec.get(tape, ()):
        return None
    if not live and not _is_source(parent, source):
        return None                       # downstream of a cut already reported
    return _classify(tape, source, later, live, target, sources, out)


_ZERO = "a zero gradient"      # what GT010 says of tf.sign, whose gradient is zeros, not None
_ONE_UNIT = "a softmax over one unit"   # Dense(1, activation="softmax"): the constant 1 (_calls.one_unit_softmax)
_ONE_UNIT_ZERO = "a softmax over one unit has a zero gradient everywhere"
_TRACED = "this line raises {} when the function is traced"


def _symbolic(val: Val) -> str:
    if val.kind == "var":
        return f"the variable {describe(val)} has no value to give while the function is traced"
    return f"{describe(val)} is a symbolic tensor with no value yet"


def _classify(tape: Tape, source: Val, op: Val, live: bool, target: Val, sources: str,
              out: _Outcome) -> tuple | None:
    s, name = describe(source), tape.name
    if op.op == "numpy" and op.attrs.get("traced") and trace_error(op):
        return ("GT002", op.line, op.col,
                f"`{op.text or op.opname}` takes the value out of TensorFlow inside a tf.function, where "
                f"{_symbolic(op.parents[0]) if op.parents else 'its input has no value yet'}: "
                f"{_TRACED.format(raised_first(op, trace_error(op)))}, and {name}.gradient is never reached. Use the "
                "TensorFlow op (tf.sin, tf.reduce_sum, model(x), ...) and keep the value a tensor.", None)
    if op.op == "numpy":
        return ("GT002", op.line, op.col,
                f"`{op.text or op.opname}` takes the value out of TensorFlow ({op.opname} gives a NumPy or Python "
                f"value), so the tape cannot follow {s} through it: {out.of(f'the gradient with respect to {s}')}. "
                "Use the TensorFlow op (tf.sin, tf.reduce_sum, model(x), ...) and keep the value a tensor.", None)
    if op.op == "nondiff":
        return _nondiff(op, s, target, out)
    if op.op == "stop" and out.mixed:   # tensorflow#33095: asked for next to sources that reach the target
        return ("GT010", op.line, op.col,
                f"`{op.text or op.opname}` stops the gradient, and it is on the only path from {s} to "
                f"{describe(target)}: {out.of('the gradient')}. If {s} is meant to stay fixed, leave it out of the "
                "sources (and out of apply_gradients); if it is meant to learn, drop the stop_gradient.", None)
    if op.op in ("stop", "merge"):
        return None
    if op.attrs.get("__built_by__") and tape.when(op.seq) == "before":
        weights = _weights_of(op) if source.kind != "model" else []
        each = _and(weights) if len(weights) > 1 else s
        return ("GT007", op.line, op.col,
                f"`{op.text}` is computed from the layer's weights when `{op.attrs['__built_by__']}` is built (in "
                f"`build` or `__init__`), once, before the `with` block of {name} (line {_tape_line(tape)[0]}): "
                f"`call` reads the stored result, so the tape never records an operation on "
                f"{f'the weights of {s}' if source.kind == 'model' else each} and "
                f"{out.of('the gradient with respect to ' + (each if len(weights) < 2 else 'each'))}. "
                f"Compute it in `call` from the {'weights themselves' if len(weights) > 1 else 'weight itself'}.",
                None)
    op = _at_tape_level(op, tape)
    when = tape.when(op.seq)
    if when == "before":
        return ("GT007", op.line, op.col,
                f"`{op.text}` is computed before the `with` block of {name} (line {_tape_line(tape)[0]}): the tape "
                f"only records operations run inside its block, so {out.of(f'the gradient with respect to {s}')}. "
                "Move "
                "this line into the block" + (f", after {name}.watch({s})." if source.kind == "tensor" else "."),
                ("move", op.line, _tape_line(tape)[0], "start"))
    if when == "inside":
        return _late_watch(tape, source, op, out) if not live else None
    if when == "paused":
        return ("GT011", op.line, op.col,
                f"`{op.text}` runs inside `with {name}.stop_recording():` (line {tape.paused_at(op.seq)}): the tape "
                f"does not record it, so {out.of(f'the gradient with respect to {s}')}. Compute it outside the "
                "stop_recording block, inside the tape's own block.", None)
    return _after(tape, source, op, sources, out)


def _nondiff(op: Val, s: str, target: Val, out: _Outcome) -> tuple:
    """GT010 for a non-differentiable op on the only path from the source ``s`` to ``target``."""
    if op.opname == _ONE_UNIT:
        return ("GT010", op.line, op.col,
                f"`{op.text}` gives the constant 1: {_ONE_UNIT} is exp(z) / exp(z) whatever z is, so it has "
                f"{_ZERO} everywhere, and it is on the only path from {s} to {describe(target)}: "
                f"{out.of('the gradient', _ONE_UNIT_ZERO)}, and the output never changes. Use no activation (a linear "
                "output) for a value such as a critic's, or 'sigmoid' for one probability; softmax needs two units or "
                "more.", None)
    if op.opname.endswith(_UNUSED_INPUT):     # tensorflow#38321
        return ("GT010", op.line, op.col,
                f"`{op.text}` makes the Lambda layer's output from constants only: its function never reads its "
                f"input, so nothing before the Lambda reaches its output, and it is on the only path from {s} to "
                f"{describe(target)}: {out.of('the gradient')}. Compute the output from the layer's input (the loss "
                "of the predictions), or take the Lambda out of the model you train.", None)
    sign = op.opname.rsplit(".", 1)[-1] == "sign"
    return ("GT010", op.line, op.col,
            f"`{op.text or op.opname}` is not differentiable ({op.opname} has "
            f"{_ZERO if sign else 'no gradient'}), and it is on the only path from {s} to "
            f"{describe(target)}: {out.of('the gradient', sign)}. {_nondiff_fix(op.opname)}", None)


def _at_tape_level(op: Val, tape: Tape) -> Val:
    """``op`` as seen from the code that uses the tape: made inside a helper, it is the helper's call."""
    if len(op.sites) <= tape.depth:
        return op
    line, col, text = op.sites[tape.depth]
    return Val(op.kind, line, col, op.op, op.opname, text, op.parents, seq=op.seq)


def _late_watch(tape: Tape, source: Val, op: Val, out: _Outcome) -> tuple | None:
    watch = tape.watched.get(source.id)
    if watch is None or watch[3] != "watch" or any(not p.known for p in op.parents):
        return None          # an unknown input may be a trainable variable: then TF recorded the op after all
    s = describe(source)
    return ("GT003", watch[1], watch[2],
            f"{tape.name}.watch({s}) comes after `{op.text}` (line {op.line}) used {s}: the tape only records "
            f"operations on {s} from the watch on, so {out.of('the gradient')}. Call {tape.name}.watch({s}) first "
            "thing in the block.", None)


def _after(tape: Tape, source: Val, op: Val, sources: str, out: _Outcome) -> tuple:
    s, name, end = describe(source), tape.name, _tape_line(tape)[0]
    if op.op in ("iter", "slice"):
        what = {"iteration": "iterates", "unpacking": "unpacks"}.get(op.opname, "slices")
        return ("GT001", op.line, op.col,
                f"`{op.text}` {what} a tensor after the `with` block of {name} (line {end}) ended: the "
                "unstack/strided_slice op is not recorded, so each piece is a new tensor not connected to "
                f"{s}: {out.of('its gradient')}. Unstack or slice inside the "
                f"block (persistent tape), or use {name}.jacobian({describe(op.parents[0])}, {sources}) for every "
                "row at once.", _unstack_fix(tape, op))
    if op.op == "gradient" and op.attrs.get("tape") is tape:     # one persistent tape, its own first derivative
        return ("GT008", op.line, op.col,
                f"`{op.text}` is taken after the `with` block of {name} (line {end}) ended, and {name} then "
                f"differentiates it again: {name} did not record this first derivative, so "
                f"{out.of(f'the second derivative with respect to {s}')}. Indent this line into the `with` block of "
                f"{name}{' (a persistent tape records its own first derivative there)' if tape.persistent else ''}.",
                ("indent", op.line))
    if op.op == "gradient":
        return ("GT008", op.line, op.col,
                f"`{op.text}` is taken after the outer tape {name}'s block (line {end}) ended: {name} did not record "
                f"this first derivative, so {out.of(f'the second derivative with respect to {s}')}. Indent this line "
                "into "
                f"the `with` block of {name}.", ("indent", op.line))
    if op.opname.endswith(".losses"):
        return ("GT011", op.line, op.col, _losses_after_message(op, name, end, s, out), None)
    return ("GT011", op.line, op.col,
            f"`{op.text}` runs after the `with` block of {name} (line {end}) ended: the operation is not recorded, "
            f"so {out.of(f'the gradient with respect to {s}')}. Move it into the block.",
            ("move", op.line, end, "end"))


def _losses_after_message(op: Val, name: str, end: int, s: str, out: _Outcome) -> str:
    """GT011 for ``model.losses`` read after the block: no correction, since moving the read into the block helps
    only when the layers add losses (regularizers, add_loss); with none the list is empty."""
    return (f"`{op.text}` is read after the `with` block of {name} (line {end}) ended. It holds only the losses the "
            "layers add (weight regularizers, add_loss), computed when read, so they are not recorded; with none it "
            f"holds no tensor at all. Either way {out.of(f'the gradient with respect to {s}')}. Compute the training "
            "loss "
            f"from the model's output inside the block (a tf.keras.losses function), and add tf.add_n({op.text}) "
            "there when the layers add losses.")


def _inner_watch(it, tape: Tape, source: Val) -> tuple | None:
    """Another tape, opened inside ``tape``'s block, that watched ``source``: (that tape, (line, col) of the watch)."""
    if not tape.intervals:
        return None
    start, end = tape.intervals[-1]
    for other in it.tapes:
        watch = other.watched.get(source.id)
        if other is not tape and watch is not None and watch[3] == "watch" and other.intervals \
                and start < other.intervals[-1][0] and (end is None or other.intervals[-1][0] < end):
            return other, (watch[1], watch[2])
    return None


def _unstack_fix(tape: Tape, op: Val) -> tuple | None:
    """For ``for y_i in y`` after the block: unstack ``y`` at the end of the block and loop over the parts."""
    iterated = op.parents[0].name if op.parents else ""
    if op.opname != "iteration" or not iterated.isidentifier() or not op.text.startswith("for "):
        return None
    return ("unstack", op.line, iterated, _tape_line(tape)[0], None if tape.persistent else (tape.line, tape.col))


def _meets(it, source: Val, target: Val) -> str:
    """The end of GT004's message: the integer data ``source`` meets on its way to ``target`` must be made float too,
    or the fixed float value times that integer data raises InvalidArgumentError."""
    between = _between(it, target, source) or {}
    todo = [p for val in between.values() for p in val.parents if p.id not in between]
    names, seen = [], set()
    while todo and len(seen) < 200:
        val = todo.pop(0)
        if val.id in seen or val.kind not in ("tensor", "var") or val.dtype != "int":
            continue
        seen.add(val.id)
        if val.parents and not val.name:
            todo.extend(val.parents)                # w * x: name the data it was made from
        elif describe(val) not in names:
            names.append(describe(val))
    data = f"the integer data it meets ({', '.join(names[:4])})" if names else "any integer data it meets"
    return (f"and make {data} float too (dtype=tf.float32, or 3.0 not 3): a float value times an integer tensor "
            "raises InvalidArgumentError.")


def _unwatched(it, tape: Tape, source: Val, target: Val, out: _Outcome) -> list[tuple]:
    if tape.blind:
        return []
    s, name = describe(source), tape.name
    line, col = _tape_line(tape)
    inner = _inner_watch(it, tape, source)
    if inner is not None and source.kind == "tensor":
        other, (wl, wc) = inner
        return [("GT015", line, col,
                 f"{s} is watched only by the inner tape {other.name} (line {wl}), not by the outer tape {name}: "
                 f"{name} does not record the first derivative's path from {s}, so "
                 f"{out.of('the second derivative')}. "
                 f"Call {name}.watch({s}) first thing in the outer block too (before the inner tape starts).",
                 ("watch", line, col, s, name))]
    if source.id in tape.int_watches:
        wl, wc = tape.int_watches[source.id]
        found = [("GT004", wl, wc,
                  f"{s} is an integer tensor: {name}.watch({s}) is ignored (TensorFlow only logs a warning), because "
                  f"tapes record floating-point tensors only, so {out.of('the gradient')}. Make it float "
                  f"(tf.constant([1.0, 2.0]) or tf.cast({s}, tf.float32)) before watching it, "
                  + _meets(it, source, target), ("float", source.line))]
        if source.op == "const" and source.line != wl:
            found.append(("GT004", source.line, source.col,
                          f"this makes {s} an integer tensor, which {name} cannot watch (line {wl}), so "
                          f"{out.of('its gradient')}: give it float values (1.0, not 1) or dtype=tf.float32, "
                          + _meets(it, source, target),
                          ("float", source.line)))
        return found
    if source.kind == "var" and source.dtype == "int":
        return [("GT004", source.line, source.col,
                 f"the variable {s} has an integer dtype: tapes only watch floating-point variables, so "
                 f"{out.of('its gradient')}. Give it a float initial value (3.0, not 3) or dtype=tf.float32, "
                 + _meets(it, source, target),
                 ("float", source.line))]
    if source.kind in ("var", "model") and not source.trainable:
        return [("GT009", source.line, source.col,
                 f"{s} is not trainable (trainable=False), so {name} does not watch it automatically and "
                 f"{out.of('its gradient')}. Drop trainable=False, or call {name}.watch({s}) at the start of the "
                 "block.",
                 ("trainable", source.line))]
    if source.rebound is not None:
        rl, rc, var = source.rebound
        return [("GT005", rl, rc,
                 f"this rebinds {var}, a tf.Variable, to a plain Tensor: tapes watch trainable Variables "
                 f"automatically but not Tensors, so {out.of(f'the gradient with respect to {var}')}. Update the "
                 f"variable in place ({var}.assign(...), {var}.assign_add(...), {var}.assign_sub(...)).",
                 ("assign", rl))]
    return _never_watched(it, tape, source, target, out)


def _never_watched(it, tape: Tape, source: Val, target: Val, out: _Outcome) -> list[tuple]:
    """GT003: ``source`` is never watched; no watch is offered when the path from it was computed before the block."""
    s, name = describe(source), tape.name
    line, col = _tape_line(tape)
    why = ("the tape was made with watch_accessed_variables=False" if source.kind != "tensor"
           else "only trainable tf.Variables are watched automatically")
    before = _made_before(it, tape, target, source)
    if before is not None:              # tfp51: a watch in the block comes after the path was computed, too late
        return [("GT003", line, col,
                 f"{name} never watches {s}, and {why}: {out.of(f'the gradient with respect to {s}')}. A watch in "
                 f"this block is not enough: {describe(before)}"
                 + (f" (line {before.line})" if before.line else "") + f" is computed from {s} before the "
                 f"block, where no tape records. Call {name}.watch({s}) first thing in this block and move that "
                 f"computation into it, after the watch.", ("note", line, col, s, name))]
    return [("GT003", line, col,
             f"{name} never watches {s}, and {why}: {out.of(f'the gradient with respect to {s}')}. Call "
             f"{name}.watch({s}) first thing in this block"
             + (", or make it a tf.Variable." if source.kind == "tensor" else "."), ("watch", line, col, s, name))]


#: how a Lambda of a function returning a constant is named (``_keras_call.lambda_cut``)
_UNUSED_INPUT = " of constants (its input unused)"


def _nondiff_fix(opname: str) -> str:
    """What to do instead of a non-differentiable operation: a loss for a Keras metric, else a smooth stand-in."""
    if opname == DATASET_LOOP:
        return ("Autograph runs such a loop as the dataset's own reduction, in a graph no tape records: open the tape "
                "inside the loop body (one gradient a batch), or loop over a tensor of the data (`for s in t`, "
                "tf.range) instead of the dataset, or run the loop outside the tf.function.")
    if opname.startswith("tf.data."):
        return ("A tf.data function runs in the dataset's own graph, which no tape records: compute the value with "
                "tensor ops on the data itself (tf.reduce_sum, tf.foldl over a tensor) inside the block, and keep "
                "tf.data for feeding batches.")
    if opname.startswith("tf.keras.metrics."):
        return ("A metric measures, it does not train: compute the loss with a tf.keras.losses function "
                "(tf.keras.losses.binary_crossentropy, ...) and keep the metric for reporting.")
    if opname.rsplit(".", 1)[-1] in ("sign", "round"):
        op = f"tf.{opname.rsplit('.', 1)[-1]}"
        return ("To binarize or quantize and still train, keep a straight-through path: "
                f"`w + tf.stop_gradient({op}(w) - w)` has the value of {op}(w) and the identity's gradient.")
    if opname.rsplit(".", 1)[-1] in ("confusion_matrix", "count_nonzero", "histogram_fixed_width"):
        return ("A count has no gradient: count with the probabilities themselves (a soft count, "
                "tf.reduce_sum(labels * p) for the true positives), or train on a loss such as "
                "tf.keras.losses.binary_crossentropy and keep the count for reporting.")
    last = opname.rsplit(".", 1)[-1]
    if last in ("categorical", "multinomial"):
        return ("A sampled index has no gradient: keep the sample for acting, and train on the log-probability of the "
                "sampled action (`tf.gather(tf.nn.log_softmax(logits), actions, batch_dims=1)`) times its return.")
    if last in ("ones_like", "zeros_like") or opname.startswith("tf.strings."):
        return (f"{opname} keeps nothing of its input's values (only its shape, or text), so nothing flows back "
                "through it: compute the loss from the float tensor itself.")
    return ("Use a smooth stand-in (tf.nn.softmax instead of argmax, a sigmoid instead of a step) or keep the float "
            "value.")
