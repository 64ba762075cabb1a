"""The abstract interpreter: walks the syntax tree in program order and builds ``Val``s, never running
anything. Statements and expressions live here; what each call does lives in ``_calls``.

Loops run their body for each known element, or twice when the length is unknown (enough to see a
second gradient call or a variable rebound on the previous pass); ``if``/``try`` branches start from
the same state and merge, and a name bound differently in two branches becomes unknown.

The analysis is bounded three ways: ``tick`` counts its steps (statements and expressions evaluated),
``charge`` counts what it builds (list elements, entries of the sets of values a tape recorded, values
walked to explain a gradient), and both check a wall-clock deadline. Past a bound it raises ``Budget``.
What is too big to follow (a list of more than ``MAX_SIZE`` values, a value depending on more than
``MAX_DEPS`` recorded values) becomes unknown, and ``give_up`` notes that the check is incomplete.
"""

from __future__ import annotations

import ast
import collections
import itertools
import time

from . import _calls, _custom_gradient, _keras_call, _project, _traced
from ._tables import call_kind, normalise
from ._values import TENSORISH, Tape, Val, owners

__all__ = ["Budget", "Env", "Raises", "Interpreter", "MAX_DEPS", "MAX_SIZE"]

_MAX_ITEMS = 8          # elements iterated one by one; longer sequences run twice
MAX_SIZE = 10_000       # values one list may hold (nested lists counted through); a larger one is unknown
MAX_DEPS = 1_000        # recorded values one value may depend on, per tape; a value depending on more is unknown
_CLOCK_EVERY = 64       # steps between two looks at the clock
_MAX_CALL_DEPTH = 4     # user functions inlined at most this deep
_MAX_HELD = 64          # values looked at behind one value unseen code made (see Interpreter.held)
_BUILTINS = {"range", "len", "zip", "enumerate", "list", "tuple", "float", "int", "bool", "complex", "print",
             "sum", "abs", "isinstance", "type", "str", "repr", "min", "max", "map", "filter", "sorted",
             "reversed", "dict", "set", "super", "hasattr", "getattr", "iter", "next", "round", "divmod", "pow"}
_DEFAULT_MODULES = {"tf": "tf", "np": "np", "math": "math", "keras": "tf.keras"}
_KERAS_BASES = {"tf.keras.Model", "tf.keras.models.Model", "tf.keras.layers.Layer"}
_MAX_MODULES = 32       # other modules of the project one lint reads at most
_DEFINITIONS = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Assign,
                ast.AnnAssign)


class Budget(Exception):
    """The analysis reached one of its bounds (steps, work, time): stop and report what was found so far.

    The message says which bound, and where, as a clause for "could not be checked completely: ...".
    """


class Raises(Exception):
    """The program surely raises here (code the module itself runs, in no branch, loop or ``try``): the analysis
    ends where the program does. The findings so far stand; the gradient calls after it are never reached.

    The message says where, as a clause for why a gradient call was not checked.
    """


class Env:
    """Names of one scope, falling back to the enclosing scope; ``hide_tapes`` hides outer tapes."""

    def __init__(self, parent: Env | None = None, hide_tapes: bool = False, module: str | None = None):
        self.vars: dict[str, Val] = {}
        self.parent = parent
        self.hide_tapes = hide_tapes
        self.module = module if module is not None or parent is None else parent.module   # its file in the project

    def lookup(self, name: str) -> Val | None:
        env, hide = self, False
        while env is not None:
            if name in env.vars:
                val = env.vars[name]
                return Val("unknown", name=name) if hide and val.kind == "tape" else val
            hide = hide or env.hide_tapes
            env = env.parent
        return None


class Interpreter:
    """Runs a module abstractly; ``diagnose`` is called at every gradient request."""

    def __init__(self, diagnose, max_steps: int, max_work: int = 2_000_000, deadline: float = float("inf"),
                 project=None, path: str | None = None):
        self.diagnose = diagnose
        self.project, self.path = project, path         # the other modules in sight (_project.Project), this file
        self.modules: dict[str, Env | None] = {}        # a project module's path -> its names (None while read)
        self.loading = 0                                # > 0 while another module's definitions are read
        self.method_class: dict[int, ast.ClassDef] = {}  # id of a method's definition -> its class
        self.search: dict[str, tuple] = {}              # a module's path -> the folders it adds to sys.path
        self.tree: ast.Module | None = None             # the linted file's syntax tree
        self.keras_layers: set[str] = set()             # weighted Keras layers it imports by bare name (Dense)
        self.alone = False                              # functions run on their own, their callers out of sight
        self.max_steps, self.max_work, self.deadline = max_steps, max_work, deadline
        self.steps = self.work = 0
        self.line = 0                                   # the line of the statement being run, for messages
        self.gaps: list[str] = []                       # why the check is incomplete, when it is
        self.memo: dict = {}                            # the diagnosis' caches, keyed by value ids
        self.bound: collections.deque = collections.deque(maxlen=_MAX_BOUND)   # recorded tensors given a name
        self._generators: dict[int, bool] = {}
        self._positions: dict[int, tuple] = {}
        self.clock = itertools.count(1)
        self.stack: list[Tape] = []
        self.tapes: list[Tape] = []
        self.calling: list[ast.AST] = []
        self.entries: list[int] = []                    # when each function being run was entered (a clock value)
        self.applied: dict = {}                         # GT020: (tf.function, call) -> (its trace, the optimizer)
        self.sites: list[tuple[int, int, str]] = []
        self.call_nodes: list[ast.AST] = []             # the call site of each function being run
        self.via_wrapper: list[bool] = []               # ... whether it was called through g = tf.function(f)
        self.returns: list[list[Val]] = []
        self.functions: list[tuple[ast.AST, Env, ast.ClassDef | None]] = []
        self.findings: dict = {}
        self.raised: str | None = None                  # where the program surely raised (``Raises``), if it did
        self.calls: dict = {}                           # (line, col) of a gradient call -> why not followed, or None
        self.assumed: set = set()                       # (line, col) of calls followed only by taking a value it
                                                        # cannot see (a parameter, what unseen code gave) as watched
        self.classes: dict = {}                         # id of a class definition -> its class value
        self.instances: dict = {}                       # id of a class definition -> the instance its methods see
        self.max_list_size = MAX_SIZE
        self.loops: list[int] = []                      # when each loop being run was entered (a clock value)
        self.graph_mode = False                         # the source also builds TF1 graphs (Session, placeholder)
        self.traced: set[int] = set()                   # ids of the functions wrapped in tf.function
        self.wrapped: set[int] = set()                  # ... of those wrapped by a call, tf.function(f), not decorated
        # What may make the values seen here differ from the program's (read by the "not connected" rule only):
        self.uncertain = 0                              # inside a branch, or a loop whose passes are not all known
        self.escaped = False                            # code it cannot see got a function, method or class
        self.free_names = False                         # `global`/`nonlocal`: a function may rebind outer names

    # ------------------------------------------------------------------ entry points

    def run_module(self, tree: ast.Module) -> None:
        self.tree = tree
        self.graph_mode = _graph_mode(tree)
        self.keras_layers = _keras_call.imported_layers(tree)
        self.free_names = any(isinstance(n, (ast.Global, ast.Nonlocal)) or isinstance(n, ast.Name)
                              and n.id in _REBINDERS for n in ast.walk(tree))
        self.block(tree.body, self.module_env(self.path))
        self.run_functions_alone()

    def module_env(self, path: str | None) -> Env:
        env = Env(module=path or "")
        env.vars.update({k: Val("module", qual=v, name=k) for k, v in _DEFAULT_MODULES.items()})
        env.vars.update({k: Val("builtin", qual=k, name=k) for k in _BUILTINS})
        return env

    def load(self, path: str) -> Env | None:
        """The names another module of the project defines (its definitions read, its script never run), or None
        when it cannot be read (or is being read: an import cycle)."""
        if path in self.modules:
            return self.modules[path]
        self.modules[path] = None
        tree = self.project.tree(path) if len(self.modules) <= _MAX_MODULES else None
        if tree is None:
            return None
        env, stack, line = self.module_env(path), list(self.stack), self.line
        self.loading += 1
        self.stack.clear()
        try:
            for stmt in tree.body:
                if isinstance(stmt, _DEFINITIONS):
                    self.block([stmt], env)
        finally:
            self.loading -= 1
            self.stack[:], self.line = stack, line
        self.modules[path] = env
        return env

    def run_functions_alone(self) -> None:
        """Each function once more on its own, its parameters unknown and outer tapes hidden."""
        done, self.alone = set(), True
        for node, env, cls in self.functions:
            if id(node) in done:
                continue
            done.add(id(node))
            args = [self.instance(cls, env)] if cls is not None and node.args.args else []
            self.call_user(Val("func", node=node, attrs={"env": Env(env, hide_tapes=True)}), args, {}, node)

    def instance(self, cls: ast.ClassDef, env: Env) -> Val:
        """The ``self`` a method of ``cls`` sees when run alone: one instance per class, its ``__init__`` run
        abstractly with unknown arguments (so ``self.dense``, ``self.w`` are known)."""
        if id(cls) not in self.instances:
            # the instance while __init__ runs (a method calling another finds this one)
            self.instances[id(cls)] = Val("object", node=cls, name="self", attrs={"__env__": env})
            klass = self.classes.get(id(cls))
            if klass is not None:
                spec = next((f.args for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"), None)
                count = max(len(spec.posonlyargs + spec.args) - 1 - len(spec.defaults), 0) if spec is not None else 0
                unknown = [Val("unknown", opaque=True) for _ in range(count)]
                self.instances[id(cls)] = _calls.instantiate(self, klass, unknown, {}, cls)
            self.instances[id(cls)].name = "self"
        return self.instances[id(cls)]

    def tick(self) -> int:
        self.steps += 1
        if self.steps > self.max_steps:
            raise Budget(f"the analysis stopped on line {self.line} after {self.max_steps:,} steps (the limit, "
                         "max_source_steps)")
        if self.steps % _CLOCK_EVERY == 0:
            self._check_clock()
        return next(self.clock)

    def charge(self, amount: int, what: str) -> None:
        """Count ``amount`` units of work (elements built or walked, for ``what``) against the budget."""
        self.work += amount
        if self.work > self.max_work:
            raise Budget(f"the analysis stopped on line {self.line}: it built {self.work:,} elements, more than "
                         f"{self.max_work:,} (the limit, max_source_work), the last ones for {what}")
        if amount > _CLOCK_EVERY:
            self._check_clock()

    def _check_clock(self) -> None:
        if time.monotonic() > self.deadline:
            raise Budget(f"the analysis ran out of time on line {self.line} (the limit, max_source_seconds)")

    def give_up(self, why: str) -> Val:
        """Note that part of the code is not followed (``why``, a clause) and give the unknown value."""
        if why not in self.gaps:
            self.gaps.append(why)
        return Val("unknown", opaque=True)

    def made(self, parents: tuple, callee: Val | None = None) -> Val:
        """A value made now by code the linter cannot follow, from ``parents``: "can't tell" what it is.

        It keeps its inputs (the values inside a list passed in, one by one) and its place in the program, so a
        gradient whose path runs through it (or that such code could have changed while a tape recorded) is never
        flagged. It is taken to depend on its inputs the way a TensorFlow operation does: a tape recording now
        records it from what it records its inputs from (``record``), so a gradient of it with respect to one of
        those is connected and counted as checked (no rule fires on a connected pair); any other verdict through
        it is "can't tell". ``callee``: the object called (``model(x)``) or whose method is called
        (``dist.log_prob(x)``): it is read now, with what it holds (``held``).
        """
        leaves = tuple(leaf for value in parents for leaf in (_calls.flat(value) if value.kind in ("seq", "dict")
                                                              else (value,)))
        self.charge(len(leaves), "the inputs of code it cannot follow")
        seq = next(self.clock)
        rec = self.record(leaves, seq) if self.stack else {}
        if callee is not None:
            for tape in self.stack:
                held = self.held(tape, callee, seq)
                if held:
                    rec[tape] = rec.get(tape, frozenset()) | held
        made = Val("unknown", op="unknown", parents=((callee,) if callee is not None else ()) + leaves, seq=seq,
                   rec=rec, opaque=True)
        if callee is not None:
            made.attrs["callee"] = callee
        return made

    def merged(self, values: list[Val], name: str = "") -> Val:
        """The value of a name bound differently on two branches: either one. Known when each is a known tensor
        (or a Python number): it depends on both, and a tape recorded a path to it from whatever it recorded a
        path to either from. It is no operation of TensorFlow, so no rule points at it, it is never a source the
        rules reason about, and the "not connected" rule does not reason through it. Library functions of one kind
        (`K.greater_equal if err else K.less`, none with a gradient; `np.mean` or `np.sum`; `tf.sigmoid` or
        `tf.tanh`, both differentiable): the first, which stands for each (calling it cuts the path, or keeps it,
        either way). Else unknown."""
        kinds = {v.kind for v in values}
        if kinds == {"module"} and len({call_kind(v.qual) for v in values}) == 1 \
                and call_kind(values[0].qual) in ("nondiff", "numpy", "diff"):
            return values[0]      # one of several library functions of one kind: calling it does what either does
        if any(not v.known for v in values) or not kinds <= {"tensor", "py"} or "tensor" not in kinds \
                or any(v.attrs.get("promoted") and v.op != "merge" or v.attrs.get("tuple") for v in values):
            return Val("unknown", name=name, opaque=True)
        rec: dict = {}
        for v in values:
            for tape, sources in v.rec.items():
                rec[tape] = rec.get(tape, frozenset()) | sources | {v.id}
        self.charge(sum(len(r) for r in rec.values()), "the values a tape recorded")
        merged = Val("tensor", values[0].line, values[0].col, "merge", "", values[0].text, tuple(values),
                     self.tick(), rec, _dtype(*values), name=name)
        merged.attrs["maybe"] = True
        if "py" in kinds:                   # it may be a Python number: indexing or iterating it is "can't tell"
            merged.attrs["promoted"] = True
        return merged

    def seq(self, items: list[Val], **fields) -> Val:
        """A list or tuple of ``items``, or unknown (and the check incomplete) when it holds too many values."""
        self.charge(len(items), "a list")
        value = Val("seq", items=items, **fields)
        if value.size > MAX_SIZE:
            return self.give_up(f"a list on line {self.line} holds {value.size:,} values, more than {MAX_SIZE:,}, "
                                "so it was not followed")
        return value

    def escape(self, values: list[Val], whole: bool = False) -> None:
        """``values`` were handed to code the linter does not follow, which may change what they hold: what they
        hold now is only "maybe" still there; a function, method or class handed over (or ``whole``: code that
        may touch anything) may be run later, so nothing seen from then on is sure."""
        self.escaped = self.escaped or whole
        for value in values:
            for leaf in _calls.flat(value):
                if not _literal(leaf):          # keras#4508: `Input((original_dim,))` leaves the int 8 an int
                    leaf.attrs["maybe"] = True
                if leaf.kind in ("func", "method", "bound", "class", "tmethod", "mmethod", "omethod") \
                        or leaf.kind in ("object", "model") and isinstance(leaf.node, ast.ClassDef):
                    self.escaped = True

    def hand_over(self, value: Val) -> None:
        """``value`` was stored where code the linter cannot see may use it (``holder.tape = tape``): a tape in it
        is blind (that code may watch anything with it), and what it holds is only "maybe" still there."""
        for leaf in _calls.flat(value):
            if leaf.kind == "tape":
                leaf.tape.blind = True
        self.escape([value])

    def followed(self, node: ast.AST, why: str | None, assumed: bool = False) -> None:
        """Note whether the gradient call at ``node`` could be followed (``why`` not, else None): once it could on
        any pass (inline, or its function run alone), it counts as checked; ``assumed``: it was followed only by
        taking a source it cannot see into to be a variable or a watched tensor (until a pass follows it without)."""
        key = (node.lineno, node.col_offset)
        if self.calls.get(key, "") is not None:
            self.calls[key] = why
            if why is None and assumed:
                self.assumed.add(key)
        elif why is None and not assumed:
            self.assumed.discard(key)

    def report(self, code: str, line: int, col: int, message: str, fix: tuple | None = None) -> None:
        if line >= _project.OFFSET:          # another module's line: reported when that module is linted
            return
        found = self.findings.setdefault((code, line, col), (message, fix))
        if found[1] is not None and fix is not None and found[1][0] == fix[0] in ("watch", "note") \
                and found[1][4] == fix[4] \
                and fix[3] not in found[1][3].split(", "):       # tfp51: every source left unwatched, watched
            self.findings[(code, line, col)] = (f"{found[0]} The same holds for {fix[3]}, also asked for and never "
                                                f"watched: call {fix[4]}.watch({fix[3]}) there too.",
                                                found[1][:3] + (f"{found[1][3]}, {fix[3]}",) + found[1][4:])

    def halt(self, line: int) -> None:
        """Stop here, as the program does, when the line just reported surely raises (see ``Raises``); ``line`` may be
        in another module of the project."""
        if not self.uncertain and not self.alone:
            raise Raises(f"the program raises on line {line} before it")

    # ------------------------------------------------------------------ statements

    def block(self, stmts: list[ast.stmt], env: Env) -> bool:
        """Run ``stmts``; True when a ``return`` at this level ended the block."""
        for stmt in stmts:
            self.line = stmt.lineno
            self.tick()
            handler = getattr(self, "s_" + type(stmt).__name__, None)
            if handler is not None and handler(stmt, env):
                return True
        return False

    def s_Import(self, node: ast.Import, env: Env) -> None:
        for alias in node.names:
            qual = normalise(alias.name)
            if alias.asname:
                env.vars[alias.asname] = Val("module", qual=qual, name=alias.asname)
                self.project_module(env.vars[alias.asname], env, alias.name, 0)
            else:
                top = alias.name.split(".")[0]
                env.vars[top] = Val("module", qual=normalise(top), name=top)
                self.project_module(env.vars[top], env, top, 0)

    def s_ImportFrom(self, node: ast.ImportFrom, env: Env) -> None:
        base = normalise(node.module or "")
        found = self.project_names(env, node.module, node.level)
        for alias in node.names:
            if alias.name == "*":
                env.vars.update({k: v for k, v in (found.vars if found else {}).items() if not k.startswith("_")
                                 and k not in _BUILTINS and k not in _DEFAULT_MODULES})
                continue
            name = alias.asname or alias.name
            env.vars[name] = Val("module", qual=normalise(f"{base}.{alias.name}"), name=name)
            value = found.vars.get(alias.name) if found is not None else None
            if value is not None and value.kind in ("class", "func", "module"):
                env.vars[name] = value              # a class or function of another module of the project
            elif value is None:                     # `from . import nets`: a module of the project
                self.project_module(env.vars[name], env, f"{node.module or ''}.{alias.name}", node.level)

    def project_names(self, env: Env, module: str | None, level: int) -> Env | None:
        """The names defined by the project module ``from <level dots><module> import`` means here, or None."""
        if self.project is None:
            return None
        key = env.module or ""
        if key not in self.search:
            self.search[key] = _search_path(self.tree if key == (self.path or "") else self.project.tree(key))
        path = self.project.resolve(env.module, module, level, self.search[key])
        return self.load(path) if path is not None else None

    def project_module(self, value: Val, env: Env, module: str, level: int) -> None:
        """Give a module value the names of the project module it is (``import nets as n``; ``from . import n``)."""
        found = self.project_names(env, module.strip("."), level)
        if found is not None:
            value.attrs["names"], value.attrs["import"] = found, (env, module.strip("."), level)

    def submodule(self, package: Val, name: str) -> Val | None:
        """``pkg.sub`` where ``pkg`` is a package of the project and ``sub`` one of its modules: that module."""
        env, module, level = package.attrs["import"]
        value = Val("module", qual=normalise(f"{package.qual}.{name}"), name=name)
        self.project_module(value, env, f"{module}.{name}", level)
        return value if "names" in value.attrs else None

    def s_FunctionDef(self, node: ast.FunctionDef, env: Env, cls: ast.ClassDef | None = None) -> None:
        func = Val("func", node=node, attrs={"env": env}, name=node.name, qual=node.name)
        for dec in node.decorator_list:
            dec_val = self.ev(dec, env)
            if dec_val.kind == "module" and dec_val.qual == "tf.function" or dec_val.kind == "func" \
                    and dec_val.qual == "decorator":
                self.traced.add(id(node))
            if dec_val.kind == "module" and dec_val.qual == "tf.custom_gradient" and not self.loading:
                _custom_gradient.check(self, node, env)
            if not (dec_val.kind == "module" and dec_val.qual in ("tf.function", "functools.wraps")
                    or dec_val.kind == "func" and dec_val.qual == "decorator"):
                func = Val("unknown", name=node.name)
                self.escaped = True                     # unseen code holds the function and may call it
        env.vars[node.name] = func
        if not self.loading:
            self.functions.append((node, env, cls))

    s_AsyncFunctionDef = s_FunctionDef

    def s_ClassDef(self, node: ast.ClassDef, env: Env) -> None:
        bases = [self.ev(b, env) for b in node.bases]
        if node.decorator_list:
            self.escaped = True
        keras = any(b.kind in ("module", "class") and b.qual.startswith("tf.keras") for b in bases)
        env.vars[node.name] = Val("class", node=node, name=node.name, qual="tf.keras.Model" if keras else node.name,
                                  attrs={"env": env, "bases": [b for b in bases if b.kind == "class"],
                                         "plain": all(b.kind == "class" or b.kind == "module" and b.qual in _KERAS_BASES
                                                      for b in bases),
                                         "unseen_base": any(b.kind != "class" and b.qual != "object" for b in bases)})
        self.classes[id(node)] = env.vars[node.name]
        inner = Env(env)
        for stmt in node.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.method_class[id(stmt)] = node
                if any(self.is_tf_function(dec, env) for dec in stmt.decorator_list):
                    self.traced.add(id(stmt))           # @tf.function on a method: its body runs traced
                if not self.loading:
                    self.functions.append((stmt, inner, node))

    def is_tf_function(self, dec: ast.expr, env: Env) -> bool:
        """Whether the decorator ``dec`` is ``tf.function`` or ``tf.function(...)``."""
        value = self.ev(dec, env)
        return value.kind == "module" and value.qual == "tf.function" or value.kind == "func" \
            and value.qual == "decorator"

    def s_Assign(self, node: ast.Assign, env: Env) -> None:
        value = self.ev(node.value, env)
        for target in node.targets:
            self.bind(target, value, env, node)

    def s_AnnAssign(self, node: ast.AnnAssign, env: Env) -> None:
        if node.value is not None:
            self.bind(node.target, self.ev(node.value, env), env, node)

    def s_AugAssign(self, node: ast.AugAssign, env: Env) -> None:
        old = self.ev(node.target, env) if isinstance(node.target, (ast.Name, ast.Attribute, ast.Subscript)) \
            else Val("unknown")
        if old.kind == "var":
            self.report("GT005", node.lineno, node.col_offset,
                        f"`{ast.unparse(node)[:60]}` on the tf.Variable {old.name or 'here'!s} raises RuntimeError: "
                        "`variable += value` is not supported. Update it in place with "
                        f"`{old.name or 'v'}.{'assign_sub' if isinstance(node.op, ast.Sub) else 'assign_add'}(...)`.",
                        ("augassign", node.lineno))
        value = self.binop(old, self.ev(node.value, env), node.op, node)
        if old.kind == "var":
            value.attrs["raises"] = "RuntimeError"      # the program stops here: a later gradient call never runs
        if isinstance(node.target, (ast.Name, ast.Subscript)):
            self.bind(node.target, value, env, node)

    def s_Expr(self, node: ast.Expr, env: Env) -> None:
        self.ev(node.value, env)

    def s_Assert(self, node: ast.Assert, env: Env) -> None:
        self.ev(node.test, env)
        if node.msg is not None:
            self.ev(node.msg, env)

    def s_Return(self, node: ast.Return, env: Env) -> bool:
        value = self.ev(node.value, env) if node.value is not None else Val("none")
        if self.returns:
            self.returns[-1].append(value)
        return True

    def s_Delete(self, node: ast.Delete, env: Env) -> None:
        for target in node.targets:
            if isinstance(target, ast.Name):
                env.vars.pop(target.id, None)

    def s_With(self, node: ast.With, env: Env) -> bool:
        entered: list[tuple[str, Tape]] = []
        for item in node.items:
            cm = self.ev(item.context_expr, env)
            if cm.kind == "tape":
                cm.tape.calls = [] if not cm.tape.persistent else cm.tape.calls   # re-entering starts afresh
                cm.tape.intervals.append([self.tick(), None])
                cm.tape.with_lines.append((node.lineno, node.col_offset))
                self.stack.append(cm.tape)
                entered.append(("tape", cm.tape))
            elif cm.kind == "pause" and cm.tape in self.stack:
                self.stack.remove(cm.tape)
                cm.tape.pauses.append([self.tick(), None, node.lineno])
                entered.append(("pause", cm.tape))
            if item.optional_vars is not None:
                self.bind(item.optional_vars, cm if cm.kind == "tape" else Val("unknown"), env, node)
        try:
            return self.block(node.body, env)
        finally:
            for how, tape in reversed(entered):
                if how == "tape":
                    tape.intervals[-1][1] = next(self.clock)
                    self.stack.remove(tape)
                else:
                    tape.pauses[-1][1] = next(self.clock)
                    self.stack.append(tape)

    s_AsyncWith = s_With

    def s_For(self, node: ast.For, env: Env) -> None:
        value = self.ev(node.iter, env)
        passes = self.iterations(value, node)
        exact = _exact_passes(value) and not _jumps(node.body)
        before = dict(env.vars)
        self.loops.append(next(self.clock))
        self.uncertain += not exact
        try:
            for make in passes:
                self.bind(node.target, make(), env, node)
                self.block(node.body, env)
        finally:
            self.loops.pop()
            self.uncertain -= not exact
        if not exact:
            _mark_changed(before, env.vars)
        if value.kind == "dataset" and _traced.traced_frame(self) is not None:
            self.through_dataset_loop(before, env, node)
        self.block(node.orelse, env)

    s_AsyncFor = s_For

    def through_dataset_loop(self, before: dict, env: Env, node: ast.For) -> None:
        """A ``for`` over a ``tf.data`` dataset inside a tf.function: autograph runs the body as the dataset's own
        reduction, in a graph no tape records (tensorflow#38453, #41594), so each tensor the loop carries out (a name
        bound before the loop and rebound in it) has no gradient with respect to what the body read. A tape opened
        inside the body records its pass as usual."""
        for name, value in env.vars.items():
            if before.get(name) is not None and before[name] is not value and value.kind in TENSORISH:
                carried = self.op("tensor", (value,), node, "nondiff", value.dtype, opname=_traced.DATASET_LOOP)
                carried.name = name
                env.vars[name] = carried

    def s_While(self, node: ast.While, env: Env) -> None:
        before = dict(env.vars)
        self.loops.append(next(self.clock))
        self.uncertain += 1
        try:
            for _ in range(2):
                self.ev(node.test, env)
                self.block(node.body, env)
        finally:
            self.loops.pop()
            self.uncertain -= 1
        _mark_changed(before, env.vars)
        self.block(node.orelse, env)

    def s_If(self, node: ast.If, env: Env) -> bool:
        self.ev(node.test, env)
        return self.branches([node.body, node.orelse], env)

    def s_Try(self, node: ast.Try, env: Env) -> bool:
        handlers = [h.body for h in node.handlers]
        done = self.branches([node.body + node.orelse] + handlers, env)
        return self.block(node.finalbody, env) or done

    s_TryStar = s_Try

    def branches(self, blocks: list[list[ast.stmt]], env: Env) -> bool:
        """Run each block from the same state, then merge names and tape states."""
        self.charge(len(blocks) * (len(env.vars) + sum(len(t.watched) + 1 for t in self.tapes)), "the branches")
        names, tapes = dict(env.vars), {t: t.copy_state() for t in self.tapes}
        outcomes = []
        self.uncertain += len(blocks) > 1
        try:
            for stmts in blocks:
                env.vars = dict(names)
                for tape, state in tapes.items():
                    tape.set_state(state)
                returned = self.block(stmts, env)
                outcomes.append((dict(env.vars), {t: t.copy_state() for t in tapes}, returned))
        finally:
            self.uncertain -= len(blocks) > 1
        env.vars = _merge_names([o[0] for o in outcomes if not o[2]] or [o[0] for o in outcomes], self.merged)
        for tape in tapes:
            _merge_tape(tape, [o[1][tape] for o in outcomes])
        return all(o[2] for o in outcomes)

    # ------------------------------------------------------------------ binding

    def bind(self, target: ast.expr, value: Val, env: Env, node: ast.AST) -> None:
        if isinstance(target, ast.Name):
            self.bind_name(target.id, value, env, node)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for sub, part in zip(target.elts, self.unpack(value, len(target.elts), node)):
                self.bind(sub, part, env, node)
        elif isinstance(target, ast.Subscript):
            if self.uncertain:
                value.attrs["maybe"] = True             # stored on some passes or branches only
            base = self.ev(target.value, env)
            if base.kind not in ("seq", "dict"):
                self.hand_over(value)                   # holder["tape"] = tape: unseen code may use it
            _store_item(base, self.ev(target.slice, env), value)
        elif isinstance(target, ast.Attribute):
            base = self.ev(target.value, env)
            if self.uncertain:
                value.attrs["maybe"] = True
            if base.kind in ("object", "model"):
                _mark_rebound(value, base.attrs.get(target.attr), node, ast.unparse(target))
                if base.kind == "model" and value.kind in ("var", "model") and value is not base \
                        and "__owner__" not in value.attrs and base not in owners(value):
                    value.attrs["__owner__"] = base      # self.dense = Dense(...): a path from it is one from self
                value.name = value.name or ast.unparse(target)
                if base.kind == "object" and base.attrs.get("__unseen_base__") and value is not base \
                        and value.kind in ("var", "model", "foreign", "object") and "__owner__" not in value.attrs:
                    value.attrs["__owner__"] = _calls.as_model(self, base, node)    # tf.Module: it holds them
                base.attrs[target.attr] = value
                if base.kind == "model" and target.attr == "trainable" and value.attrs.get("value") is False:
                    base.trainable = False
                    base.line, base.col = node.lineno, node.col_offset
            else:                                       # obj.attr = v on an object it cannot see: read afresh,
                base.attrs.get("__reads__", {}).pop(target.attr, None)      # and unseen code may use v
                self.hand_over(value)

    def bind_name(self, name: str, value: Val, env: Env, node: ast.AST) -> None:
        _mark_rebound(value, env.vars.get(name), node, name)
        if not value.name and value.kind not in ("module", "builtin"):
            value.name = name
            for i, item in enumerate(value.items or ()):
                item.name = item.name or f"{name}[{i}]"
        if value.kind == "tape" and value.tape.name == "tape":
            value.tape.name = name
        env.vars[name] = value
        self.note_bound(name, value, node, "")

    def note_bound(self, name: str, value: Val, node: ast.AST, function: str) -> None:
        """Keep a recorded tensor bound to ``name`` (a parameter of ``function`` when one is given): a term the target
        leaves out is named by it (``_diagnose._dropped_term``, keras-team/keras#4508, rstudio/keras3#515)."""
        if value.kind == "tensor" and value.rec:
            self.bound.append((name, value, getattr(node, "lineno", 0), function))

    def unpack(self, value: Val, n: int, node: ast.AST) -> list[Val]:
        if value.kind == "seq" and value.items is not None and len(value.items) == n:
            return list(value.items)
        if value.kind in TENSORISH and value.known and not value.attrs.get("tuple") and not value.attrs.get("promoted"):
            return [self.op("tensor", (value,), node, "iter", value.dtype, opname="unpacking") for _ in range(n)]
        if value.kind == "seq" and value.attrs.get("elem") is not None:
            return [value.attrs["elem"]] * n
        if value.kind == "numpy":
            return [self.op("numpy", (value,), node, "op", value.dtype) for _ in range(n)]
        if _calls.symbolic_item(value, node) is not None:      # `first, = model.inputs`: KerasTensors each
            return [_calls.symbolic_item(value, node, i) for i in range(n)]
        if value.kind == "seq" and value.items is not None:   # `kernel, bias = net.trainable_variables` (the list
            return [self.made(tuple(value.items)) for _ in range(n)]    # stands for them): which part, can't tell
        if value.kind == "unknown" and value.rec:    # `pred, w = net(x)` while a tape recorded: each part was too
            return [Val("unknown", op="unknown", parents=(value,), seq=value.seq, rec=dict(value.rec), opaque=True)
                    for _ in range(n)]
        return [Val("unknown", opaque=True) for _ in range(n)]

    def iterations(self, value: Val, node: ast.AST) -> list:
        """One zero-argument function per pass of a loop over ``value``, each giving that pass's element."""
        if value.kind == "seq" and value.items is not None:
            items = value.items if len(value.items) <= _MAX_ITEMS else value.items[:2]
            if len(items) < len(value.items):           # the passes over the other elements are not seen
                for item in value.items:
                    item.attrs["maybe"] = True
            return [lambda item=item: item for item in items]
        if value.kind == "seq" and value.attrs.get("elem") is not None:
            return [lambda: value.attrs["elem"]] * (1 if value.length == 1 else 2)
        if value.kind in TENSORISH and value.known and not value.attrs.get("promoted"):
            make = lambda: self.op("tensor", (value,), node, "iter", value.dtype, opname="iteration")  # noqa: E731
            return [make] * (1 if value.length == 1 else 2)
        if value.kind == "numpy":
            return [lambda: Val("numpy", dtype=value.dtype)] * 2
        if value.kind == "dataset":
            return [lambda: self.element(value, node)] * 2
        if value.kind == "dict":
            keys = list(value.attrs["map"])[:_MAX_ITEMS]
            if len(keys) < len(value.attrs["map"]):
                for item in value.attrs["map"].values():
                    item.attrs["maybe"] = True
            return [lambda k=k: Val("py", attrs={"value": k}) for k in keys]
        return [lambda: Val("unknown", opaque=True)] * 2

    def element(self, dataset: Val, node: ast.AST) -> Val:
        """One element of a ``tf.data`` dataset: a tensor (or a tuple of them) whose value is not known."""
        return self.op("tensor", (), node, "const", None, opname="a tf.data element")

    # ------------------------------------------------------------------ expressions

    def ev(self, node: ast.expr, env: Env) -> Val:
        self.tick()
        handler = getattr(self, "e_" + type(node).__name__, None)
        return handler(node, env) if handler is not None else Val("unknown", opaque=True)

    def e_Constant(self, node: ast.Constant, env: Env) -> Val:
        value = node.value
        if value is None:
            return Val("none")
        dtype = "float" if isinstance(value, float) else "int" if isinstance(value, int) else None
        return Val("py", dtype=dtype, attrs={"value": value}, text=repr(value)[:20])

    def e_Name(self, node: ast.Name, env: Env) -> Val:
        found = env.lookup(node.id)
        return found if found is not None else Val("unknown", name=node.id, opaque=True)

    def e_Attribute(self, node: ast.Attribute, env: Env) -> Val:
        return _calls.attribute(self, self.ev(node.value, env), node.attr, node)

    def e_Subscript(self, node: ast.Subscript, env: Env) -> Val:
        return _calls.subscript(self, self.ev(node.value, env), self.ev(node.slice, env), node)

    def e_Call(self, node: ast.Call, env: Env) -> Val:
        func = self.super_method(node.func, env) or self.ev(node.func, env)
        args = [self.ev(a.value if isinstance(a, ast.Starred) else a, env) for a in node.args]
        starred = next((k for k, a in enumerate(node.args) if isinstance(a, ast.Starred)), None)
        if starred is not None:                         # f(a, b, *rest): a and b are known one by one
            args = args[:starred] + [self.made(tuple(args[starred:]))]
        kwargs = {k.arg: self.ev(k.value, env) for k in node.keywords if k.arg is not None}
        splats = [self.ev(k.value, env) for k in node.keywords if k.arg is None]
        if splats:                                      # f(**options): what it passes is not known one by one
            kwargs["**"] = self.made(tuple(splats))
        return _calls.call(self, func, args, kwargs, node)

    def e_BinOp(self, node: ast.BinOp, env: Env) -> Val:
        return self.binop(self.ev(node.left, env), self.ev(node.right, env), node.op, node)

    def e_UnaryOp(self, node: ast.UnaryOp, env: Env) -> Val:
        operand = self.ev(node.operand, env)
        if isinstance(node.op, ast.Not):
            return Val("py")
        return self.binop(operand, Val("py", dtype="int"), node.op, node)

    def e_Compare(self, node: ast.Compare, env: Env) -> Val:
        parts = [self.ev(node.left, env)] + [self.ev(c, env) for c in node.comparators]
        if any(p.kind in TENSORISH for p in parts) and all(p.kind in TENSORISH + ("py", "numpy") for p in parts):
            return self.op("tensor", tuple(parts), node, "nondiff", "int", opname="a comparison")
        return Val("py", opaque=any(not p.known for p in parts))

    def e_BoolOp(self, node: ast.BoolOp, env: Env) -> Val:
        parts = [self.ev(v, env) for v in node.values]
        return Val("py") if all(p.kind == "py" for p in parts) else Val("unknown", opaque=True)

    def e_IfExp(self, node: ast.IfExp, env: Env) -> Val:
        self.ev(node.test, env)
        body, orelse = self.ev(node.body, env), self.ev(node.orelse, env)
        if body is orelse:
            return body
        both = self.merged([body, orelse])
        return both if both.known else self.made((body, orelse))

    def e_List(self, node: ast.List, env: Env) -> Val:
        if any(isinstance(e, ast.Starred) for e in node.elts):
            for e in node.elts:
                self.ev(e.value if isinstance(e, ast.Starred) else e, env)
            return Val("seq", items=None)
        items = [self.ev(e, env) for e in node.elts]
        return self.seq(items, length=len(items), text=_text(node))

    e_Tuple = e_List

    def e_Lambda(self, node: ast.Lambda, env: Env) -> Val:
        return Val("func", node=node, attrs={"env": env}, qual="lambda")

    def e_NamedExpr(self, node: ast.NamedExpr, env: Env) -> Val:
        value = self.ev(node.value, env)
        self.bind(node.target, value, env, node)
        return value

    def e_JoinedStr(self, node: ast.JoinedStr, env: Env) -> Val:
        for part in node.values:
            if isinstance(part, ast.FormattedValue):
                self.ev(part.value, env)
        return Val("py")

    def e_Slice(self, node: ast.Slice, env: Env) -> Val:
        for part in (node.lower, node.upper, node.step):
            if part is not None:
                self.ev(part, env)
        return Val("py")

    def e_ListComp(self, node, env: Env) -> Val:
        inner = Env(env)
        results: list[Val] = []
        self.comprehend(node.generators, inner, lambda: results.append(
            self.ev(node.elt, inner) if not isinstance(node, ast.DictComp) else self.ev(node.value, inner)))
        if any(g.ifs for g in node.generators):         # some elements are filtered out: which is not known
            for value in results:
                value.attrs["maybe"] = True
        return self.seq(results) if not isinstance(node, (ast.SetComp, ast.DictComp)) else Val("seq", items=None)

    e_GeneratorExp = e_SetComp = e_DictComp = e_ListComp

    def comprehend(self, generators: list[ast.comprehension], env: Env, body) -> None:
        first, rest = generators[0], generators[1:]
        for make in self.iterations(self.ev(first.iter, env), first):
            self.bind(first.target, make(), env, first)
            for cond in first.ifs:
                self.ev(cond, env)
            if rest:
                self.comprehend(rest, env, body)
            else:
                body()

    def e_Dict(self, node: ast.Dict, env: Env) -> Val:
        """A dict with constant keys keeps its values (``losses["a"]``, ``d.values()``, a dict as a target)."""
        keys = [self.ev(k, env) if k is not None else None for k in node.keys]
        values = [self.ev(v, env) for v in node.values]
        literal = [k.attrs.get("value") if k is not None and k.kind == "py" else None for k in keys]
        if any(k is None or isinstance(k, (list, dict, set)) for k in literal):
            return Val("unknown", opaque=True)
        self.charge(len(values), "a dict")
        return Val("dict", attrs={"map": dict(zip(literal, values))}, text=_text(node))

    # ------------------------------------------------------------------ operations

    def op(self, kind: str, parents: tuple, node: ast.AST, how: str = "op", dtype: str | None = None, *,
           opname: str = "", length: int | None = None) -> Val:
        """A new value made by an operation on ``parents`` at this point of the program."""
        seq = self.tick()
        self.charge(len(parents), "the inputs of an operation")
        cut = how in ("numpy", "nondiff", "stop", "const")
        opaque = any(not p.known for p in parents)
        too_big = any(p.op == "too big" for p in parents)
        rec = {} if cut or too_big else self.record(parents, seq)   # what the known inputs carry, even next to
        deps = max(map(len, rec.values()), default=0)                                   # unknown ones
        if deps > MAX_DEPS:
            self.give_up(f"a value on line {self.line} depends on {deps:,} values a tape recorded, more than "
                         f"{MAX_DEPS:,}, so it was not followed")
            too_big = True
        if too_big:             # not followed, and neither is anything made from it: "can't tell"
            rec, opaque, how = {}, True, "too big"
        line, col, text = self.position(node)
        traced = how == "numpy" and any(id(fn) in self.traced for fn in self.calling)   # a symbolic tensor there
        return Val(kind, line, col, how, opname, text, tuple(parents), seq, rec, dtype, opaque=opaque, length=length,
                   sites=tuple(self.sites), attrs={"traced": True} if traced else {})

    def record(self, parents: tuple, seq: int) -> dict:
        rec = {}
        for tape in self.stack:
            sources = set()
            for p in parents:
                known = p.rec.get(tape)
                if known:
                    sources |= known
                    sources.add(p.id)
                elif self.tracked(tape, p, seq):
                    sources.add(p.id)
                    sources.update(o.id for o in owners(p))
                elif p.kind == "unknown" and tape.auto and _maybe_variable(p):
                    sources.add(p.id)
            if sources:       # the op is recorded with all its inputs: one watched later (before the gradient
                sources |= {p.id for p in parents if p.kind in TENSORISH and p.dtype != "int"}   # call) gets one
                self.charge(len(sources), "the values a tape recorded")
                rec[tape] = frozenset(sources)
        return rec

    def held(self, tape: Tape, val: Val, seq: int) -> set:
        """What ``tape`` records when unseen code calls ``val`` or its method, ``val`` a value it cannot see into (a
        parameter, what unseen code made, an attribute of such a value): an object such as a model, or a
        distribution built on a variable, reads its variables when called. So ``val`` counts as read (when the tape
        watches accessed variables), and so do the values it was built from or read from (``dist`` for
        ``dist.log_prob``; ``scale`` for ``dist = make_dist(scale)``), back to tensors made before (a tensor keeps
        its value; a variable is read again), never through what was called to make a value (``pred = model(x)``
        holds no variable of ``model``), at most ``_MAX_HELD`` values. Optimistic on purpose: it only ever makes a
        pair connected, and no rule fires on a connected pair."""
        found, todo, seen = set(), [val], set()
        while todo and len(seen) < _MAX_HELD:
            value = todo.pop()
            if value.id in seen:
                continue
            seen.add(value.id)
            recorded = value.rec.get(tape)
            if recorded:
                found |= recorded | {value.id}
            elif value.kind == "unknown":
                if tape.auto or value.id in tape.watched:       # watched: tape.watch(value.trainable_variables)
                    found.add(value.id)
                todo.extend(p for p in value.parents if p is not value.attrs.get("callee"))
            elif self.tracked(tape, value, seq):
                found.add(value.id)
                found.update(o.id for o in owners(value))
        self.charge(len(seen), "the values unseen code may read")
        return found

    def tracked(self, tape: Tape, val: Val, seq: int) -> bool:
        """Whether ``tape`` records operations on ``val`` now (watched, or a trainable float variable)."""
        if val.id in tape.watched:
            return True
        if tape.auto and val.kind in ("var", "model") and val.trainable and val.dtype != "int":
            tape.watched[val.id] = (seq, 0, 0, "auto")
            return True
        return False

    def binop(self, left: Val, right: Val, op: ast.AST, node: ast.AST) -> Val:
        if left.attrs.get("__sparse_grad__") or right.attrs.get("__sparse_grad__"):
            _calls.sparse_arithmetic(self, left, right, op, node)
        kinds = {left.kind, right.kind}
        if kinds & set(TENSORISH) and kinds <= set(TENSORISH) | {"py", "numpy", "unknown", "seq"}:  # x @ w, [[1.]] * v
            dtype = _dtype(left, right)
            length = left.length if left.kind in TENSORISH else right.length
            operands = tuple(leaf for v in (left, right)      # a list meets a tensor: TensorFlow packs its elements
                             for leaf in (_calls.flat(v) if v.kind == "seq" else (v,)))
            if isinstance(op, ast.FloorDiv):
                return self.op("tensor", operands, node, "nondiff", dtype, opname="floor division (//)")
            made = self.op("tensor", operands, node, "op", dtype, length=length)
            if len(operands) == 2:
                made.attrs["binop"] = type(op).__name__         # which operator: _derivative reads sums apart
            return made
        if kinds <= {"py"}:
            if left.parents or right.parents:     # a number that left TensorFlow keeps where it came from
                return self.op("py", (left, right), node, "op", _dtype(left, right))
            return Val("py", dtype=_dtype(left, right))
        if kinds <= {"py", "numpy"}:
            return self.op("numpy", (left, right), node, "op", _dtype(left, right))
        if kinds == {"seq"} and isinstance(op, ast.Add) and left.items is not None and right.items is not None:
            if left.size + right.size > MAX_SIZE:
                return self.give_up(f"a list on line {self.line} holds {left.size + right.size:,} values, more "
                                    f"than {MAX_SIZE:,}, so it was not followed")
            return self.seq(left.items + right.items)
        if "model" in kinds:
            return self.op("tensor", (left, right), node, "op", "float")
        if kinds <= {"unknown", "numpy", "py"} and any(v.kind == "numpy" or v.kind == "py" and v.parents
                                                       for v in (left, right)):
            return self.op("tensor", (left, right), node, "op")      # arithmetic on a value that left TensorFlow
        return self.made((left, right))

    def super_method(self, node: ast.expr, env: Env) -> Val | None:
        """``super().name`` in a method of a class of the source: the method of a base class of the source it
        finds, bound to the method's ``self``; None when there is none to follow (a library base class)."""
        if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Call)
                and isinstance(node.value.func, ast.Name) and node.value.func.id == "super" and self.calling):
            return None
        fn = self.calling[-1]
        cls = self.method_class.get(id(fn))
        klass = self.classes.get(id(cls)) if cls is not None else None
        params = fn.args.posonlyargs + fn.args.args if klass is not None else []
        instance = env.lookup(params[0].arg) if params else None
        if instance is None or instance.kind not in ("object", "model"):
            return None
        for base_node, base_env in _calls.mro(klass)[1:]:
            method = _calls.method_of(base_node, node.attr)
            if method is not None:
                return Val("method", node=method, parents=(instance,), attrs={"env": base_env})
        return None

    # ------------------------------------------------------------------ user functions

    def call_user(self, func: Val, args: list[Val], kwargs: dict, node: ast.AST) -> Val:
        fn = func.node
        if len(self.calling) >= _MAX_CALL_DEPTH or fn in self.calling:
            self.escape(args + list(kwargs.values()), whole=True)
            return self.made(tuple(args))
        env = Env(func.attrs.get("env"))
        _bind_params(fn.args, args, kwargs, env, self)
        for param in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs:
            self.note_bound(param.arg, env.vars[param.arg], param, getattr(fn, "name", "the lambda"))
        self.calling.append(fn)
        self.entries.append(next(self.clock))
        self.sites.append(self.position(node))
        self.call_nodes.append(node)
        self.via_wrapper.append(bool(func.attrs.get("wrapper")))
        self.returns.append([])
        stack = list(self.stack)
        try:
            if isinstance(fn, ast.Lambda):
                return self.ev(fn.body, env)
            if self._generator(fn):
                self.escape(args + list(kwargs.values()), whole=True)
                return self.made(tuple(args))
            self.block(fn.body, env)
            if not self.returns[-1] and _never_returns_a_value(fn):     # GT026: the caller gets None, surely
                return Val("none", attrs={"__no_return__": (fn, self.position(node))})
            return _merge_returns(self, self.returns[-1])
        finally:
            self.stack[:] = stack
            self.returns.pop()
            self.via_wrapper.pop()
            self.call_nodes.pop()
            self.sites.pop()
            self.entries.pop()
            self.calling.pop()

    def position(self, node: ast.AST) -> tuple[int, int, str]:
        """``_position(node)``, worked out once per node (a loop's body makes its values again on each pass)."""
        key = id(node)
        if key not in self._positions:
            self._positions[key] = _position(node)
        return self._positions[key]

    def _generator(self, fn: ast.AST) -> bool:
        """Whether ``fn`` yields (looked at once per function, not once per call)."""
        if id(fn) not in self._generators:
            nodes = list(ast.walk(fn))
            self.charge(len(nodes), "a function's body")
            self._generators[id(fn)] = any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in nodes)
        return self._generators[id(fn)]


def _literal(val: Val) -> bool:
    """Whether ``val`` is a Python number, string, bool or None written in the source (no parents): code handed it
    cannot change it, so it stays what it is."""
    value = val.attrs.get("value", ...)
    return val.kind == "py" and not val.parents and isinstance(value, (int, float, str, type(None)))


def _maybe_variable(val: Val) -> bool:
    """Whether ``val``, a value the linter cannot see into, may be a variable read by the operation it takes part
    in: a parameter, what unseen code gave from no tensor (``get_variable("w")``), an attribute of such a value;
    not what unseen code computed from tensors (``pred = model(x)`` is a tensor: it keeps its value)."""
    if "maybe_variable" not in val.attrs:
        todo, seen, answer = [val], set(), True
        while todo and answer:
            value = todo.pop()
            if value.id in seen:
                continue
            seen.add(value.id)
            if value.kind in TENSORISH or len(seen) > _MAX_HELD:
                answer = False
            elif value.kind == "unknown":
                todo.extend(p for p in value.parents if p is not value.attrs.get("callee"))
        val.attrs["maybe_variable"] = answer
    return val.attrs["maybe_variable"]


_MAX_BOUND = 256         # the last names kept (``Interpreter.bound``)

_REBINDERS = {"exec", "eval", "globals", "locals", "vars"}      # code that may rebind names out of sight

_GRAPH_MARKS = {"Session", "InteractiveSession", "MonitoredSession", "placeholder", "disable_eager_execution",
                "disable_v2_behavior", "executing_eagerly", "as_default", "Estimator", "EstimatorSpec", "TPUEstimator",
                "TPUEstimatorSpec", "get_global_step", "get_or_create_global_step",
                # tf.function bodies then run eagerly: nothing is traced, so no rule may claim a trace error
                "run_functions_eagerly", "experimental_run_functions_eagerly"}


def _search_path(tree: ast.Module | None) -> tuple:
    """The folders a module adds to ``sys.path`` by name at its top level (``sys.path.append("utils")``,
    ``sys.path.insert(0, "lib")``): where its imports are also looked up."""
    found = []
    for stmt in tree.body if tree is not None else ():
        call = stmt.value if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) else None
        if call is not None and isinstance(call.func, ast.Attribute) and call.func.attr in ("append", "insert") \
                and ast.unparse(call.func.value) == "sys.path" and call.args \
                and isinstance(call.args[-1], ast.Constant) and isinstance(call.args[-1].value, str):
            found.append(call.args[-1].value)
    return tuple(found[:8])


def _graph_mode(tree: ast.Module) -> bool:
    """Whether the source may run in TF1 graph mode (a Session, a placeholder, eager execution turned off or
    tested): there ``optimizer.minimize(loss_tensor)`` is right, so GT013 stays silent."""
    return any(isinstance(n, ast.Attribute) and n.attr in _GRAPH_MARKS or isinstance(n, ast.Name)
               and n.id in _GRAPH_MARKS for n in ast.walk(tree))


def _exact_passes(value: Val) -> bool:
    """Whether a loop over ``value`` runs exactly the passes the interpreter runs (a short known list, a tensor
    known not to be empty), so the names it leaves bound are those of the program."""
    if value.kind == "seq":
        return value.items is not None and len(value.items) <= _MAX_ITEMS and not value.attrs.get("unsized")
    if value.kind == "dict":
        return len(value.attrs["map"]) <= _MAX_ITEMS
    return value.kind in TENSORISH and value.known and bool(value.length) and not value.attrs.get("promoted")


def _jumps(stmts: list[ast.stmt]) -> bool:
    """Whether a loop body may leave a pass early (break, continue, return, raise), outside nested functions."""
    todo = list(stmts)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.Break, ast.Continue, ast.Return, ast.Raise)):
            return True
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(node))
    return False


def _mark_changed(before: dict, after: dict) -> None:
    """A loop that may run fewer passes (or none) leaves each name it rebound only "maybe" bound to that value."""
    for name, value in after.items():
        if before.get(name) is not value:
            value.attrs["maybe"] = True


def _store_item(base: Val, index: Val, value: Val) -> None:
    """``d["k"] = v`` or ``a[0] = v``: the container keeps what it holds now, or forgets what it cannot tell."""
    key = index.attrs.get("value") if index.kind == "py" else None
    if base.kind == "dict":
        if isinstance(key, (str, int, float, bool, tuple)):
            base.attrs["map"][key] = value
        else:
            base.kind, base.opaque = "unknown", True
    elif base.kind == "seq" and base.items is not None:
        if isinstance(key, int) and not isinstance(key, bool) and -len(base.items) <= key < len(base.items):
            base.items[key] = value
        else:
            base.items, base.attrs["elem"] = None, None


def _bind_params(spec: ast.arguments, args: list[Val], kwargs: dict, env: Env, interp: Interpreter) -> None:
    params = spec.posonlyargs + spec.args
    defaults = [None] * (len(params) - len(spec.defaults)) + list(spec.defaults)
    for i, (param, default) in enumerate(zip(params, defaults)):
        if i < len(args):
            value = args[i]
        elif param.arg in kwargs:
            value = kwargs[param.arg]
        elif default is not None:
            value = interp.ev(default, env.parent or env)
            if not isinstance(default, ast.Constant):       # Python evaluated it once, when the function was made
                value.attrs["maybe"] = True
        else:
            value = Val("unknown", opaque=True)
        env.vars[param.arg] = value
    for param, default in zip(spec.kwonlyargs, spec.kw_defaults):
        env.vars[param.arg] = kwargs.get(param.arg) or (interp.ev(default, env.parent or env) if default is not None
                                                        else Val("unknown", opaque=True))
        if param.arg not in kwargs and default is not None and not isinstance(default, ast.Constant):
            env.vars[param.arg].attrs["maybe"] = True
    if spec.vararg is not None:
        env.vars[spec.vararg.arg] = interp.seq(args[len(params):])
    if spec.kwarg is not None:
        env.vars[spec.kwarg.arg] = Val("unknown", opaque=True)


def _text(node: ast.AST, width: int = 40) -> str:
    """The first ``width`` characters of ``node``'s source text (not unparsing all of a long list to keep 40)."""
    if isinstance(node, (ast.List, ast.Tuple)) and len(node.elts) > width:
        node = type(node)(elts=node.elts[:width], ctx=node.ctx)
    return ast.unparse(node)[:width]


def _position(node: ast.AST) -> tuple[int, int, str]:
    """Line, column and short source text of the construct that made a value."""
    if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
        text = f"for {ast.unparse(node.target)} in {ast.unparse(node.iter)}"
        where = node if isinstance(node, (ast.For, ast.AsyncFor)) else node.iter
        return where.lineno, where.col_offset, text[:60]
    text = ast.unparse(node) if isinstance(node, (ast.expr, ast.stmt)) else ""
    return getattr(node, "lineno", 0), getattr(node, "col_offset", 0), text[:60]


def _never_returns_a_value(fn: ast.AST) -> bool:
    """Whether the function ``fn`` has no ``return`` of a value and no ``yield`` anywhere in its own body (nested
    definitions left out): a call of it gives None whatever runs."""
    todo = list(fn.body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Return) and node.value is not None or isinstance(node, (ast.Yield, ast.YieldFrom)):
            return False
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            todo.extend(ast.iter_child_nodes(node))
    return isinstance(fn, ast.FunctionDef)


def _merge_returns(it: Interpreter, values: list[Val]) -> Val:
    if not values:
        return Val("none")
    first = values[0]
    return first if all(v is first for v in values) else it.made(tuple(values))


def _merge_names(scopes: list[dict], merge) -> dict:
    """The names after branches. A name bound on some branches only (and not before) has, wherever it is read
    afterwards without a NameError, a value one of those branches gave: that value, marked "maybe"."""
    merged = {}
    for name in set().union(*scopes):
        values = [s.get(name) for s in scopes]
        bound = [v for v in values if v is not None]
        if len(bound) < len(values):
            for value in bound:
                value.attrs["maybe"] = True
        first = bound[0]
        merged[name] = first if all(v is first for v in bound) else merge(bound, name)
    return merged


def _merge_tape(tape: Tape, states: list[tuple]) -> None:
    watched, int_watches = {}, {}
    for state in states:
        for key, value in state[0].items():
            watched.setdefault(key, value)
        int_watches.update(state[1])
    calls = max((state[2] for state in states), key=len)
    tape.set_state((watched, int_watches, calls, any(state[3] for state in states)))


def _mark_rebound(value: Val, old: Val | None, node: ast.AST, name: str) -> None:
    """A tensor computed from the Variable (or rebound Variable) it replaces under the same name: GT005's case."""
    if old is not None and value.kind == "tensor" and (old.kind == "var" or old.rebound is not None) \
            and _derived_from(value, old):
        if old.kind == "var":
            value.rebound = (node.lineno, node.col_offset, name)
        elif old.rebound is not None:
            value.rebound = old.rebound


def _derived_from(value: Val, old: Val, limit: int = 200) -> bool:
    """Whether ``old`` is among the ancestors of ``value`` (a bounded walk)."""
    todo, seen = list(value.parents), set()
    while todo and len(seen) < limit:
        val = todo.pop()
        if val is old:
            return True
        if val.id not in seen:
            seen.add(val.id)
            todo.extend(p for p in val.parents if p.id not in seen)
    return False


def _dtype(*vals: Val) -> str | None:
    dtypes = {v.dtype for v in vals if v.kind in TENSORISH + ("py", "numpy")}
    if "float" in dtypes:
        return "float"
    return "int" if dtypes == {"int"} else None
