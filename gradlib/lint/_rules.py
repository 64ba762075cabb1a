"""The rule table: one row per GradientTape mistake the linter finds, with its example and its fix.

The README's table, the command line's ``--rules`` and the dashboard's examples all read ``RULES``.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["LintFinding", "LintResult", "RULES", "RULES_BY_CODE", "Rule", "coverage_sentence"]


@dataclass(frozen=True)
class LintFinding:
    """One mistake found in the source.

    ``line`` (1-based) and ``col`` (0-based, as Python's ``ast`` counts) point at where the fix goes; ``column`` is
    the same point 1-based, the word and the count of ``ExpressionError.column`` and of an editor's
    ``file:line:column``; ``rule`` is a stable code
    such as ``"GT001"``; ``message`` says what is wrong, why the gradient is None, zero or an error,
    and what to do. ``fixed`` is the whole source with this one mistake corrected, when the linter
    can write the correction, else None.
    """

    line: int
    col: int
    rule: str
    message: str
    fixed: str | None = None

    @property
    def column(self) -> int:
        """The 1-based column (``col + 1``): one count of columns across gradlib's errors and findings."""
        return self.col + 1

    def __str__(self) -> str:
        return f"{self.line}:{self.col}: {self.rule} {self.message}"


class LintResult(list):
    """The findings of one ``lint`` call (a list of ``LintFinding``), whether all the code was checked, and how
    many gradient calls could be followed.

    ``complete`` is False when the analysis stopped early or left part of the code unfollowed (a bound
    was reached, or something failed inside the linter); ``reason`` then says why, and an empty list
    does NOT mean the code is clean: only that nothing was found in the part that was checked.

    ``calls`` counts the gradient calls in the source (``.gradient``, ``.jacobian``, ``.batch_jacobian`` with a
    target and sources: two arguments or more), ``checked`` those the linter could follow (every target and
    source, or a finding on it), and ``not_checked`` gives ``(line, why)`` for each of the others, one reason a
    call: the rules speak only for the checked ones. ``assumed`` counts the checked calls that were followed only
    by taking a source whose value comes from code the linter cannot see (a parameter, what an imported function
    returned) to be a variable or a tensor the tape watched: a mistake there (a plain tensor never watched) is not
    found, and the all-clear says so.
    """

    def __init__(self, findings=(), reason: str | None = None, *, calls: int = 0, checked: int = 0,
                 not_checked: tuple = (), assumed: int = 0):
        super().__init__(findings)
        self.reason = reason
        self.calls, self.checked, self.not_checked = calls, checked, tuple(not_checked)
        self.assumed = assumed

    @property
    def complete(self) -> bool:
        return self.reason is None

    def coverage(self) -> str:
        """What was checked, as one sentence: the all-clear claims only the gradient calls that were followed."""
        return coverage_sentence(len(self), self.calls, self.checked, [why for _, why in self.not_checked],
                                 self.assumed)

    def summary(self) -> str:
        """One sentence: the number of findings, and why the check is incomplete when it is."""
        found = f"{len(self)} finding{'s' if len(self) != 1 else ''}"
        if self.complete:
            return found + "."
        return (f"{found}, but the code could not be checked completely: {self.reason}. An empty or short list "
                "does not mean the rest is clean.")

    def __reduce__(self):                      # pickled by caches: keep the reason and the counts with the findings
        return (_rebuild, (list(self), self.reason, self.calls, self.checked, self.not_checked, self.assumed))

    def __repr__(self) -> str:
        return (f"LintResult({list.__repr__(self)}, reason={self.reason!r}, calls={self.calls}, "
                f"checked={self.checked}, assumed={self.assumed})")


def _rebuild(findings, reason, calls, checked, not_checked, assumed=0) -> LintResult:
    return LintResult(findings, reason, calls=calls, checked=checked, not_checked=not_checked, assumed=assumed)


def coverage_sentence(found: int, calls: int, checked: int, whys: list[str], assumed: int = 0) -> str:
    """"No GradientTape mistake of these kinds in the 7 of 9 gradient calls that could be followed (2 could not:
    ...)." or, with findings, how many calls the findings come from; ``whys`` has one entry per call not followed."""
    if calls == 0:
        return "No gradient call (tape.gradient, jacobian or batch_jacobian) to check." if not found else \
            f"{found} finding{'s' if found != 1 else ''}; no gradient call to follow."
    counts: dict[str, int] = {}
    for why in whys:
        counts[why] = counts.get(why, 0) + 1
    rest = "; ".join(f"{n} {why}" for why, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
    not_followed = f" ({calls - checked} could not: {rest})" if calls > checked else ""
    noun = "gradient call" if calls == 1 else "gradient calls"
    if assumed:
        not_followed += (f" ({assumed} of the {checked} followed {'assumes' if assumed == 1 else 'assume'} that a "
                         "value from code it cannot see, a parameter or what an imported function returns, is a "
                         "variable or a watched tensor)")
    if found:
        return (f"{found} finding{'s' if found != 1 else ''}; {checked} of {calls} {noun} could be followed"
                f"{not_followed}.")
    if checked == 0:
        return f"Nothing checked: none of the {calls} {noun} could be followed{not_followed}."
    return f"No GradientTape mistake of these kinds in the {checked} of {calls} {noun} that could be followed" \
        f"{not_followed}."


@dataclass(frozen=True)
class Rule:
    """One rule: its code, what it catches, where it points, the fix, and a small broken example."""

    code: str
    title: str
    catches: str
    points_at: str
    fix: str
    example: str


_PRE = "import tensorflow as tf\n\n"

#: every rule of the linter, GT001 first (``python -m gradlib.lint --rules`` lists them)
RULES = (
    Rule("GT001", "Iterating or slicing a tensor after the tape block",
         "`for y_i in y`, `[... for y_i in y]`, `y[0]`, `a, b = y`, `tf.unstack(y)` after the `with` block: "
         "the unstack/strided_slice op runs when the tape no longer records, so `y_i` is not connected to `x` "
         "and its gradient is None (zeros with `unconnected_gradients=ZERO`). Also a slice of the source taken in "
         "the call, `tape.gradient(loss, w[0])`: a new tensor the target was not computed from, so None.",
         "the iteration or slice", "unstack or slice inside the block (`parts = tf.unstack(y)`, persistent tape), "
         "or call `tape.jacobian(y, x)`; for a sliced source, slice the gradient: `tape.gradient(loss, w)[0]`",
         _PRE + "x = tf.constant([3.0, 4.0])\nwith tf.GradientTape(persistent=True) as tape:\n    tape.watch(x)\n"
         "    y = x * x\nrows = [tape.gradient(y_i, x) for y_i in y]\n"),
    Rule("GT002", "A NumPy or Python round trip inside the tape",
         "`.numpy()`, `np.*(tensor)`, `scipy.*(tensor)` (`scipy.special.xlogy`), `float(t)`, `int(t)`, `math.*(t)`, "
         "`model.predict(x)` on the path to the target: the value leaves TensorFlow, so the tape cannot follow it. "
         "Wrapped back into a tensor "
         "(`tf.constant(np.mean(t))`) the gradient is None (zeros with `unconnected_gradients=ZERO`); as the target "
         "itself, `tape.gradient` raises AttributeError (a NumPy value) or TypeError or AttributeError (a Python "
         "number: which one depends on the number). Inside a tf.function, `.numpy()`, `np.*` and `math.*` raise when "
         "the function is traced (autograph makes `float(t)` a `tf.cast` there, which keeps the path), also off the "
         "path to the target, and also in a function it calls (a loss or a metric function) or in the `call` of a "
         "Keras loss or layer of the source, while its trace records on a tape.",
         "the call that leaves TensorFlow", "use the TensorFlow op (`tf.sin`, `tf.reduce_sum`, `model(x)`) and "
         "keep the value a tensor",
         _PRE + "import numpy as np\n\nx = tf.Variable([0.5, 1.0])\nwith tf.GradientTape() as tape:\n"
         "    y = tf.constant(np.sin(x.numpy()))\ngrad = tape.gradient(y, x)\n"),
    Rule("GT003", "A tensor that is never watched (or watched too late)",
         "`tape.gradient(y, x)` where `x` is a `tf.constant`/tensor that the tape never watched (only trainable "
         "variables are watched automatically), or that was watched after `y` was computed: None.",
         "the `with` line of the tape (the watch goes right below it), or the late `watch`",
         "call `tape.watch(x)` first thing in the block, or make `x` a `tf.Variable`",
         _PRE + "x = tf.constant(3.0)\nwith tf.GradientTape() as tape:\n    y = x * x\ndy_dx = tape.gradient(y, x)\n"),
    Rule("GT004", "An integer tensor watched",
         "`tape.watch(n)` or a gradient with respect to an int32/int64 tensor or variable: the tape only records "
         "floating-point tensors (TensorFlow just logs a warning), so the gradient is None.",
         "the `watch` of the integer tensor (or the integer variable)", "make it float: `tf.constant([1.0, 2.0])`, "
         "`dtype=tf.float32`, or `tf.cast(n, tf.float32)` before watching the cast value; and make the integer data "
         "it meets float too (a float value times an int32 tensor raises InvalidArgumentError)",
         _PRE + "n = tf.constant([1, 2])\nwith tf.GradientTape() as tape:\n    tape.watch(n)\n"
         "    y = tf.cast(n, tf.float32) ** 2\ngrad = tape.gradient(y, n)\n"),
    Rule("GT005", "A tf.Variable rebound to a tensor",
         "`v = v + 1` (or `v = v - lr * g` in a training loop) makes `v` a plain Tensor: the tape only watches "
         "trainable Variables automatically, so the next gradient with respect to `v` is None; `v += 1` raises "
         "RuntimeError. Rebound where the tape records (in the block, or in a function it calls), the gradient "
         "with respect to the tensor is real, but `optimizer.apply_gradients(zip(grads, [v, ...]))` then raises "
         "AttributeError (`_unique_id`): an optimizer updates variables.", "the rebinding",
         "update the variable in place: `v.assign_add(1)`, `v.assign_sub(lr * g)`",
         _PRE + "v = tf.Variable(3.0)\nv = v + 1.0\nwith tf.GradientTape() as tape:\n    y = v * v\n"
         "grad = tape.gradient(y, v)\n"),
    Rule("GT006", "A non-persistent tape asked twice",
         "a second `gradient`/`jacobian`/`batch_jacobian` call (or one in a loop) on a tape made without "
         "`persistent=True`: the first call releases the tape, the second raises RuntimeError.",
         "the `with` line that makes the tape (and, as a note, the second call)",
         "`tf.GradientTape(persistent=True)` (and `del tape` when done), or one call with a list of targets",
         _PRE + "x = tf.Variable(2.0)\nwith tf.GradientTape() as tape:\n    y = x * x\n    z = y * x\n"
         "dy = tape.gradient(y, x)\ndz = tape.gradient(z, x)\n"),
    Rule("GT007", "A value computed before the tape block",
         "`y = f(x)` (or `out = model(x)`) before `with tf.GradientTape()`: the tape only records operations run "
         "inside its block, so the gradient of `y` is None. Also a value a Keras layer's `build` (or `__init__`) "
         "computes from its weights (`self.kernel = self.w * self.mask`) and `call` reads: computed once, when the "
         "layer is built.", "the computation before the block",
         "move the computation into the `with` block, after `tape.watch(x)`",
         _PRE + "x = tf.Variable(3.0)\ny = x * x\nwith tf.GradientTape() as tape:\n    loss = y\n"
         "grad = tape.gradient(loss, x)\n"),
    Rule("GT008", "The inner gradient of nested tapes taken outside the outer tape",
         "`dy = inner.gradient(y, x)` after the outer block has ended: the outer tape did not record the first "
         "derivative, so the second derivative is None (zeros for batch_jacobian). Also one persistent tape's own first "
         "derivative taken after its block and differentiated again by it.", "the inner gradient call",
         "indent the inner `gradient` call into the outer `with` block",
         _PRE + "x = tf.Variable(2.0)\nwith tf.GradientTape() as outer:\n    with tf.GradientTape() as inner:\n"
         "        y = x ** 3\ndy = inner.gradient(y, x)\nd2y = outer.gradient(dy, x)\n"),
    Rule("GT009", "A trainable=False variable that is not watched",
         "`tf.Variable(..., trainable=False)` is not watched automatically, so its gradient is None.",
         "the `tf.Variable(..., trainable=False)`", "drop `trainable=False`, or call `tape.watch(v)` in the block",
         _PRE + "w = tf.Variable(2.0, trainable=False)\nwith tf.GradientTape() as tape:\n    y = w * 3.0 + w * w\n"
         "grad = tape.gradient(y, w)\n"),
    Rule("GT010", "A non-differentiable operation on the path",
         "`tf.argmax`, `tf.round`, `tf.floor`, `tf.sign`, comparisons, `tf.one_hot` or `tf.cast` to an integer "
         "type, `tf.ones_like`, `tf.strings.*` or `tf.random.categorical` between `x` and the target (also called "
         "through a name bound to one of several such functions, `cmp = K.greater_equal if err else K.less`): these "
         "have no "
         "gradient, so it is None (zeros with `unconnected_gradients=ZERO`), except `tf.sign`, whose gradient is "
         "zeros. Also a Keras `Lambda` layer of such a function, or of one returning a constant, in a model: the "
         "layers with weights before it get None.",
         "the non-differentiable operation", "use a smooth stand-in (`tf.nn.softmax` for argmax, a sigmoid for a "
         "step) or keep the float value; cast to integers only outside the path",
         _PRE + "x = tf.Variable([0.2, 0.7])\nwith tf.GradientTape() as tape:\n"
         "    y = tf.cast(tf.argmax(x), tf.float32)\ngrad = tape.gradient(y, x)\n"),
    Rule("GT011", "The target computed after the tape block",
         "`loss = tf.reduce_sum(y)` (any operation) after the `with` block, then `tape.gradient(loss, x)`: the "
         "operation was not recorded, so the gradient is None.", "the operation after the block",
         "move the operation into the `with` block",
         _PRE + "x = tf.Variable([1.0, 2.0])\nwith tf.GradientTape() as tape:\n    y = x * x\n"
         "loss = tf.reduce_sum(y)\ngrad = tape.gradient(loss, x)\n"),
    Rule("GT012", "A variable assigned on the path",
         "`w.assign(f(x))` (or `assign_add`/`assign_sub`, or a scatter update such as `w.scatter_nd_update(i, f(x))`) "
         "and then a target computed from `w`: assign is not "
         "differentiable, so the tape does not follow `x` through `w` and the gradient with respect to `x` is None. Also "
         "`self.w.assign(x)` in the `call` of a model of the source whose output is computed from `self.w`, not `x`.",
         "the `assign` call", "compute with the value itself (`w_new = f(x)`, then use `w_new`); assign only to "
         "update state after the gradient",
         _PRE + "x = tf.Variable(2.0)\nw = tf.Variable(1.0)\nwith tf.GradientTape() as tape:\n    w.assign(x * 3.0)\n"
         "    loss = w * w\ngrad = tape.gradient(loss, x)\n"),
    Rule("GT013", "A loss tensor passed to optimizer.minimize",
         "`loss = f(v)` computed first, then `optimizer.minimize(loss, var_list)`: minimize must compute the loss "
         "itself to record it, so a tensor raises RuntimeError (tf.compat.v1), ValueError (tf_keras without "
         "`tape=`); Keras 3 optimizers have no `minimize` at all (AttributeError). A callable that only names a loss "
         "computed before (`minimize(lambda: loss, var_list)`, or a `def` that returns an expression of such "
         "tensors) records nothing: ValueError (\"No gradients provided for any variable\"); so does a tape made in "
         "the call, `minimize(loss, var_list, tape=tf.GradientTape())`, which never recorded the loss. TF1 code's "
         "`compute_gradients(loss_tensor, var_list)` run eagerly raises RuntimeError too; so does a NumPy value a "
         "function returns (`minimize(np_loss(y, out), var_list)`). Also a Keras optimizer's `apply_gradients` given "
         "the gradients alone (`apply_gradients(grads)`: TypeError or ValueError) or `zip(grads, v)` of one "
         "tf.Variable or tensor, which zip iterates row by row (AttributeError `_unique_id`; inside a tf.function "
         "OperatorNotAllowedInGraphError, a symbolic tensor cannot be iterated); and a tensor among the variables "
         "zipped (`zip(grads, [w, shift])` with `shift` a watched constant): AttributeError `_unique_id`.",
         "the `minimize` (or `apply_gradients`) call",
         "pass a callable (`optimizer.minimize(lambda: f(v), var_list)`), or use a GradientTape and "
         "`optimizer.apply_gradients(zip(grads, variables))`, a list of variables",
         _PRE + "v = tf.Variable(2.0)\nopt = tf.compat.v1.train.GradientDescentOptimizer(0.1)\nloss = v * v\n"
         "opt.minimize(loss, var_list=[v])\ngrad = [v]\n"),
    Rule("GT014", "A gradient call in a loop inside the tape's block",
         "`with tf.GradientTape() as tape:` around a training loop whose body calls `tape.gradient`: the first "
         "pass releases the non-persistent tape and the second raises RuntimeError (with `persistent=True` every "
         "pass stays recorded on one tape and its memory grows).", "the `with` line of the tape",
         "open a new tape on each pass: put the `with` inside the loop",
         _PRE + "w = tf.Variable([1.0, 2.0])\nwith tf.GradientTape() as tape:\n    for step in range(3):\n"
         "        loss = tf.reduce_sum(w * w)\n        grad = tape.gradient(loss, w)\n"
         "        w.assign_sub(0.1 * grad)\n"),
    Rule("GT015", "A tensor watched only by the inner tape",
         "nested tapes for a second derivative where only the inner tape watches the tensor `x`: the outer tape "
         "does not record the first derivative's path from `x`, so `outer.gradient(dy_dx, x)` is None.",
         "the `with` line of the outer tape (the watch goes right below it)",
         "call `outer.watch(x)` first thing in the outer block too",
         _PRE + "x = tf.constant(2.0)\nwith tf.GradientTape() as outer:\n    with tf.GradientTape() as inner:\n"
         "        inner.watch(x)\n        y = x ** 3\n    dy_dx = inner.gradient(y, x)\n"
         "d2y = outer.gradient(dy_dx, x)\n"),
    Rule("GT016", "batch_jacobian when the rows interact",
         "`tape.batch_jacobian(g, x)` where row i of `g` depends on other rows of `x` (a reduction over the batch "
         "axis, `tf.reduce_mean(x, axis=0)`, combined with row data): batch_jacobian assumes row i depends on row i "
         "only, so it returns a wrong number, not None and no error.", "the `batch_jacobian` call",
         "use `tape.jacobian(g, x)` and take the diagonal blocks, or keep the rows independent",
         _PRE + "x = tf.constant([[1.0, 2.0], [3.0, 4.0]])\nwith tf.GradientTape(persistent=True) as outer:\n"
         "    outer.watch(x)\n    with tf.GradientTape() as inner:\n        inner.watch(x)\n"
         "        y = tf.reduce_sum(x ** 2 * tf.reduce_mean(x, axis=0))\n    dy_dx = inner.gradient(y, x)\n"
         "rows = outer.batch_jacobian(dy_dx, x)\n"
         "full = outer.jacobian(dy_dx, x)   # the true blocks: full[i, :, i, :]\n"
         "grad = tf.cast(tf.reduce_all(tf.abs(rows - tf.stack([full[i, :, i, :] for i in range(2)])) < 1e-5), "
         "tf.float32)   # 0.0: they differ\n"),
    Rule("GT017", "A source the target is not computed from",
         "`tape.gradient(y, x)` where no operation leads from `x` to `y` at all (`y` is a constant, or computed from "
         "other values, such as what `x` is a copy of: `tf.identity(v)`, `w.value()`, `tf.Variable(v)`): the "
         "gradient is None. Said only when every value `y` depends on is known; silent where the "
         "call asks for `unconnected_gradients=tf.UnconnectedGradients.ZERO`. Also a source `y` reads only through "
         "an inner derivative that does not read it (a loss of `inner.gradient(psi, x)` only, while the bias a last "
         "Dense with no activation adds, or a term added apart from `x`, is asked for).", "the gradient call",
         "compute the target from the source inside the `with` block, or ask for the gradient with respect to the "
         "value the target was computed from",
         _PRE + "x = tf.ones([2, 2])\nwith tf.GradientTape() as tape:\n    tape.watch(x)\n"
         "    y = tf.constant([4.4])\ngrad = tape.gradient(y, x)\n"),
    Rule("GT018", "tf.gradients, tf.hessians or optimizer.get_updates run eagerly",
         "`tf.gradients(y, x)` (or `tf.hessians`, `tf.compat.v1.gradients`, `keras.backend.gradients`) in code that "
         "runs eagerly, outside a "
         "tf.function: TensorFlow 2 raises RuntimeError (\"tf.gradients is not supported when eager execution is "
         "enabled\"). Said for code the module runs itself, not for a function whose caller is not in sight. Also "
         "a Keras optimizer's `get_updates(loss, params)` or `get_gradients(loss, params)`, TF1 Keras's graph-mode "
         "API, run eagerly: the optimizers of tf.keras (Keras 3) and tf_keras (Keras 2.11 on) have no such method "
         "(AttributeError: \"'Adam' object has no attribute 'get_updates'\"), a tf_keras legacy optimizer's raises "
         "ValueError (\"... has `None` for gradient\"), TensorFlow 2.0's raised the RuntimeError above.",
         "the `tf.gradients` (or `get_updates`) call",
         "record the computation on a `tf.GradientTape` and call `tape.gradient(y, x)` (nested tapes for a "
         "Hessian), or call `tf.gradients` inside a function decorated with `@tf.function`; for `get_updates`, "
         "`optimizer.apply_gradients(zip(tape.gradient(loss, params), params))`",
         _PRE + "x = tf.constant([1.0, 2.0])\ny = x * x\ngrad = tf.gradients(y, x)\n"),
    Rule("GT019", "The model's symbolic Keras inputs watched",
         "`tape.watch(model.inputs)` (or `model.input`, `model.outputs`): those are the model's symbolic Keras "
         "tensors (KerasTensor), not the values it was called on; `tape.watch` raises ValueError. Also "
         "`tape.watch(model.trainable_variables)` of Keras 3 variables (ValueError), and an attribute read on that list "
         "(`model.trainable_variables.value`: AttributeError, a list has none). And a TensorFlow op, while a tape "
         "records, given a KerasTensor kept apart from the model (a Keras `Input` the model never uses, a layer's "
         "output kept as a name or on an object, `self.mu`): ValueError on that line; outside any tape too (a loss "
         "built on the graph's symbolic tensors, Keras 2 style, `tf.nn.ctc_loss(labels=labels_input, "
         "logits=model.output)`; in a branch, said when a gradient call asks for what it gives), `tf.keras.backend` "
         "functions (`K.square`, `K.exp`) included; and a layer's `call` giving such an op a global KerasTensor "
         "while a functional model is built.",
         "the `watch` call (or the TensorFlow op given the KerasTensor)",
         "watch the tensor passed to the model (`x = tf.convert_to_tensor(images)`, `tape.watch(x)`, `model(x)`) and "
         "ask for the gradient with respect to it",
         _PRE + "inputs = tf.keras.Input(shape=(3,))\n"
         "model = tf.keras.Model(inputs, tf.keras.layers.Dense(1)(inputs))\nimages = tf.ones((2, 3))\nwith tf.GradientTape() as tape:\n    tape.watch(model.inputs)\n"
         "    loss = tf.reduce_sum(model(images))\ngrad = tape.gradient(loss, model.inputs)\n"),
    Rule("GT020", "A variable or an optimizer made inside a tf.function",
         "`tf.Variable(...)` or a Keras optimizer (`tf.keras.optimizers.Adam()`, which makes its own variables) made "
         "on every pass through a function wrapped in `tf.function` (decorated, or called through `g = tf.function(f)`), "
         "or through a function it calls (a loss), or a Keras layer with weights made in the `call` of a layer it "
         "runs: its first call traces it twice, and the second "
         "trace raises ValueError (\"tf.function only supports singleton tf.Variables created on the first call\"). "
         "Also a new optimizer with slot variables (Adam, RMSprop, ...) passed to the same tf.function on each call: "
         "the new object retraces it, and its apply_gradients raises the same ValueError.",
         "the `tf.Variable` or the optimizer's construction",
         "make it once outside the function (module level, `__init__`) and use it inside; pass the same optimizer "
         "on every call",
         _PRE + "x = tf.constant([1.0, 2.0])\n\n\n@tf.function\ndef step(x):\n    w = tf.Variable([0.5, 0.5])\n"
         "    with tf.GradientTape() as tape:\n        loss = tf.reduce_sum(w * x)\n    return tape.gradient(loss, w)\n"
         "\n\ngrad = step(x)\n"),
    Rule("GT021", "A model's variables read before it is built",
         "`variables = model.trainable_variables` (or `trainable_weights`, `variables`, `weights`) read before the "
         "model's first call, on a Keras layer, a `Sequential` whose layers got no input shape or a subclassed "
         "`Model`: they make their variables when built, so the list is empty and stays empty; the gradient with "
         "respect to it is an empty list, `optimizer.apply_gradients(zip(grads, variables))` raises ValueError, "
         "and nothing trains. The same for a list no tracker fills: the `trainable_variables` of a TFP distribution "
         "or bijector that holds only tensors, a Python function or a TF1 template "
         "(`tfb.masked_autoregressive_default_template`, `tf.compat.v1.make_template`), and of a Keras 3 Layer or "
         "Model whose weights are raw `tf.Variable`s (it lists only `add_weight`'s).",
         "the read of the variables (and, as a note, the gradient call)",
         "read `model.trainable_variables` after the first call (in the gradient call itself), or build the model "
         "first: call it once on a batch (`model(x)`), or give a Sequential `tf.keras.Input(shape=...)` as its first "
         "layer (`model.build(input_shape)` does not build a subclassed model's layers in Keras 3)",
         _PRE + "model = tf.keras.Sequential([tf.keras.layers.Dense(1)])\nvariables = model.trainable_variables\n"
         "x = tf.ones((2, 3))\nwith tf.GradientTape() as tape:\n    loss = tf.reduce_sum(model(x))\n"
         "grad = tape.gradient(loss, variables)\n"
         "tf.keras.optimizers.SGD(0.1).apply_gradients(zip(grad, variables))\n"),
    Rule("GT022", "BatchNormalization's moving statistics as sources",
         "`tape.gradient(loss, model.variables)` (or `model.weights`) of a model with a BatchNormalization layer: "
         "those lists hold the non-trainable `moving_mean` and `moving_variance`, which the tape does not watch, so "
         "their gradients are None (Keras' apply_gradients warns and skips them; code that clips or sums each "
         "gradient fails on None).", "the read of `model.variables` (and, as a note, the gradient call)",
         "ask for the gradient with respect to `model.trainable_variables`",
         _PRE + "model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(4),\n"
         "                             tf.keras.layers.BatchNormalization()])\nx = tf.random.normal((8, 3))\n"
         "with tf.GradientTape() as tape:\n    loss = tf.reduce_mean(model(x, training=True) ** 2)\n"
         "grad = tape.gradient(loss, model.variables)\n"),
    Rule("GT023", "Weights copied into a model with set_weights on the path",
         "`copy.set_weights(values)` inside the tape, with `values` computed from the source (`[w * scale for w in "
         "model.weights]`, or `model.get_weights()` of another model), then a target computed by `copy`: set_weights "
         "assigns the values through NumPy (get_weights gives NumPy arrays), so the tape does not follow the source "
         "into `copy` and the gradient with respect to it is None.", "the `set_weights` call (and, as a note, the "
         "gradient call)", "compute with the values themselves (call the layers' operations on them, "
         "`tf.matmul(x, kernel * scale)`), or ask for the gradient with respect to `copy.trainable_variables`",
         _PRE + "model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])\n"
         "x = tf.ones((4, 3))\nscale = tf.constant(0.5)\nwith tf.GradientTape() as tape:\n    tape.watch(scale)\n"
         "    model.set_weights([w * scale for w in model.weights])\n    loss = tf.reduce_sum(model(x) ** 2)\n"
         "grad = tape.gradient(loss, scale)\n"),
    Rule("GT024", "A tf.custom_gradient function that reads a variable, with a grad_fn without `variables`",
         "`@tf.custom_gradient def f(x):` whose body reads a trainable `tf.Variable` it is not given as an argument "
         "(`return x * w, grad`) while the gradient function it returns takes no `variables` keyword (`def grad(dy):`): "
         "TensorFlow watches the variables the function reads and, when there are any, requires `grad` to take them; "
         "calling `f` raises TypeError (\"@tf.custom_gradient grad_fn must accept keyword argument 'variables'\"), "
         "with or without a tape, eagerly or in a tf.function.",
         "the gradient function's `def`",
         "`def grad(dy, variables=None):` returning `(input gradients, [one gradient for each variable])`, or pass the "
         "variable to `f` as an argument and return its gradient with the others",
         _PRE + "w = tf.Variable(2.0)\n\n\n@tf.custom_gradient\ndef scaled(x):\n    def grad(dy):\n"
         "        return dy * w\n    return x * w, grad\n\n\nx = tf.constant(3.0)\nwith tf.GradientTape() as tape:\n"
         "    tape.watch(x)\n    y = scaled(x)\ngrad = tape.gradient(y, x)\n"),
    Rule("GT025", "A tuple or list of tensors as the target of a jacobian",
         "`tape.jacobian(outputs, x)` (or `batch_jacobian`) where `outputs` is a tuple or list of tensors (a function "
         "that returns two values, `[y1, y2]`): unlike `gradient`, which takes nested targets, `jacobian` reads "
         "`target.shape`, so it raises AttributeError (\"'tuple' object has no attribute 'shape'\", or 'list').",
         "the jacobian call",
         "make one tensor of the outputs inside the block (`tf.concat([tf.reshape(o, [-1]) for o in outputs], 0)`, or "
         "`tf.stack` when they have one shape), or ask for one jacobian per output",
         _PRE + "x = tf.Variable([0.1, 0.2, 0.3])\nwith tf.GradientTape() as tape:\n"
         "    outputs = (x[0] ** 2, x[1:] ** 3)\njac = tape.jacobian(outputs, x)\n"),
    Rule("GT026", "A loss function that returns nothing",
         "`def loss_fn(y, p): loss = tf.reduce_mean(...)` with no `return` of a value (the value is computed and "
         "dropped, or the body is `pass`), then `loss = loss_fn(y, model(x))` as the target: the call gives None, and "
         "`tape.gradient(None, variables)` raises TypeError (\"Argument `target` should be a list or nested "
         "structure of Tensors ...\").",
         "the function's last statement (where the `return` goes)",
         "`return loss` at the end of the function",
         _PRE + "x = tf.Variable(3.0)\n\n\ndef square(v):\n    value = v * v\n\n\n"
         "with tf.GradientTape() as tape:\n    y = square(x)\ngrad = tape.gradient(y, x)\n"),
    Rule("GT027", "A gradient function TensorFlow does not have",
         "`tf.gradient(y, x)` (TensorFlow has `tf.gradients` and a tape's `gradient`), `tape.gradients(y, x)`, "
         "`tape.jacobians(y, x)` or `tape.hessian(y, x)`: a misspelt name of a tape's methods or of TensorFlow's "
         "gradient functions. The call raises AttributeError (\"module 'tensorflow' has no attribute 'gradient'\", "
         "\"'GradientTape' object has no attribute 'gradients'\"), so no gradient is computed.",
         "the misspelt call",
         "call the tape's own method on the tape that recorded the target: `tape.gradient(y, x)`, "
         "`tape.jacobian(y, x)`, `tape.batch_jacobian(y, x)`",
         _PRE + "x = tf.Variable(3.0)\nwith tf.GradientTape() as tape:\n    y = x * x\ngrad = tape.gradients(y, x)\n"),
    Rule("GT028", "A ReLU layer whose weights all start at zero",
         "`Dense(n, activation='relu', kernel_initializer='zeros')` (or a Conv layer, `Zeros()`, "
         "`tf.zeros_initializer()`; the bias starts at zero by default): its output is ReLU(0) = 0 for every input, "
         "and ReLU's gradient at 0 is 0, so the gradients of its own weights and of every layer before it are zeros, "
         "at the first step and every step after (nothing changes them). Said where the gradient of a model holding "
         "it is asked for, unless the code loads or sets weights.",
         "the layer's construction (and, as a note, the gradient call)",
         "keep a random kernel initializer (the default `glorot_uniform`, or `he_normal` for ReLU); zeros are fine "
         "for the bias alone",
         _PRE + "model = tf.keras.Sequential([tf.keras.Input((3,)),\n"
         "                             tf.keras.layers.Dense(4, activation='relu', kernel_initializer='zeros'),\n"
         "                             tf.keras.layers.Dense(1)])\nx = tf.ones((2, 3))\n"
         "with tf.GradientTape() as tape:\n    loss = tf.reduce_sum(model(x))\n"
         "grad = tape.gradient(loss, model.trainable_variables)\n"),
    Rule("GT029", "Python arithmetic on an Embedding's gradient",
         "`grads[i] * rho` (or `/`, `+`, `-` with a Python number) for every gradient `grads[i]` of a model holding "
         "an `Embedding` layer, in a loop: the gradient of the Embedding's weights is a tf.IndexedSlices (the rows it "
         "gathered), not a tensor, and IndexedSlices has no such operator, so this raises TypeError (\"unsupported "
         "operand type(s) for *: 'IndexedSlices' and 'float'\"). A tensor's own operator converts it "
         "(`g * tf.constant(2.0)` works).",
         "the arithmetic",
         "convert the gradient first, `tf.convert_to_tensor(g) * rho`, or use the TensorFlow op, `tf.multiply(g, rho)`",
         _PRE + "model = tf.keras.Sequential([tf.keras.Input((2,), dtype='int32'), tf.keras.layers.Embedding(5, 2),\n"
         "                             tf.keras.layers.Flatten(), tf.keras.layers.Dense(1)])\n"
         "with tf.GradientTape() as tape:\n    loss = tf.reduce_sum(model(tf.constant([[1, 2]])))\n"
         "grads = tape.gradient(loss, model.trainable_variables)\n"
         "grad = []\nfor i in range(len(grads)):\n    grad.append(grads[i] * 0.5)\n"),
    Rule("GT030", "A Keras model compiled without a loss, then trained",
         "`model.compile(optimizer=\"adam\")` with no `loss` (or `loss=None`), then `model.fit(...)` or "
         "`model.train_on_batch(...)`, for a Sequential or functional model of known layers that add no loss of their "
         "own (no regularizer, no `add_loss` anywhere in the source): there is nothing to differentiate, and Keras "
         "raises ValueError (\"No loss to compute. Provide a `loss` argument in `compile()`.\"; tf_keras: \"No loss "
         "found\"; TensorFlow 2.4: \"No gradients provided for any variable\"). Silent for a subclassed model, whose "
         "own train_step or add_loss may give the loss.",
         "the compile call",
         "pass the loss to compile: `model.compile(optimizer=\"adam\", loss=\"mse\")` (a name, a loss function or a "
         "`tf.keras.losses` object), or add it in a layer with `self.add_loss(...)`",
         _PRE + "import numpy as np\n\nnet = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])\n"
         "net.compile(optimizer=\"sgd\", metrics=[\"mae\"])\n"
         "result = net.train_on_batch(np.ones((4, 3), \"float32\"), np.zeros((4, 2), \"float32\"))\n"),
    Rule("GT031", "One Keras optimizer applied to the variables of another model",
         "`opt.apply_gradients(zip(grads, b.trainable_variables))` after the same Keras optimizer was first applied "
         "to the variables of another model, `a`, that shares no layer with `b` (one optimizer for a GAN's generator "
         "and critic, or for a new model made on each pass of a loop, in a tf.function or not): a Keras optimizer is "
         "built at its first apply_gradients for the variables given there, and Keras 3 raises ValueError (\"Unknown "
         "variable: ... This optimizer can only be called for the variables it was originally built with\"); "
         "tf_keras raises KeyError (\"The optimizer cannot recognize variable ...\"). Said only when both calls "
         "surely run, with the variables of models made in sight; silent after `opt.build(...)`, for a legacy or "
         "a tf.compat.v1 optimizer, and for a model sharing layers with the first (its variables are among them).",
         "where the second model is made (the call that makes it, in the caller's code)",
         "make one optimizer for each model (and, in a tf.function, a new tf.function with each new optimizer), or "
         "build the optimizer once for all the variables: `opt.build(a.trainable_variables + b.trainable_variables)`",
         _PRE + "import numpy as np\n\nx = np.ones((2, 3), \"float32\")\nopt = tf.keras.optimizers.SGD(0.1)\n"
         "for units in (2, 4):\n    net = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(units)])\n"
         "    with tf.GradientTape() as tape:\n        loss = tf.reduce_sum(net(x))\n"
         "    grad = tape.gradient(loss, net.trainable_variables)\n"
         "    opt.apply_gradients(zip(grad, net.trainable_variables))\n"),
)

#: the same, by code (``"GT001"``)
RULES_BY_CODE = {rule.code: rule for rule in RULES}
