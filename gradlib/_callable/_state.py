"""What a Python callable reads besides its arguments (the values a traced graph would freeze), and whether a
Keras model's structure may stand for its call (the section at the end).

A ``tf.function`` trace turns every NumPy array and Python number the function reads into a constant of
the graph. gradlib compiles a callable on its own (the caller never asked for ``tf.function``), so it must
not change the answer when such a value changes: the compiled cache is keyed on ``fingerprint(fn)``, a
summary of the values ``fn`` can see, and a changed value means a new trace.

Seen: the function's default arguments, its closure cells, and the module globals its code names (also inside
nested lambdas and comprehensions); for a bound method or a callable object (its class's ``__call__``, or a Keras
layer's own ``call``), the attributes of ``self`` its code names (``self.scale``), and methods and properties of
``self`` it calls, read the same way; attributes of objects and modules it reads (``config.scale``,
``self.cfg.scale``) by the names its code uses; functions it reads, followed the same way (to ``MAX_DEPTH``); a
``functools.partial``'s arguments; lists, tuples and dicts of any of these. Each value counts by what a trace
freezes: a Python or NumPy number, a NumPy array or an eager TensorFlow tensor by its content (so in-place
changes count), a TensorFlow variable by identity (a graph reads its value live, but a name rebound to another
variable captured another one), and any other object by identity (a name rebound to another model, layer or
function means a new trace). A Keras model or layer of the library's own class counts by identity, the layers
of the user's own classes inside it (``_user_layers``: a custom layer in a Sequential) are read as callable objects,
and the settings of each layer of the library's own classes (``_settings``: ``dense.activation``, a Dropout's
``rate``, ``trainable``) count by value or identity.
Objects are held weakly where Python allows it. A value the function itself
changes (``calls["n"] += 1``, ``self.calls += 1``, ``log.append(...)``: read from its source, ``mutated``) counts
by identity only, a number or string not at all: it changes whenever the function runs, so reading it would trace
again on every call (a function that changes a value and also computes with it has no one answer to keep).

Not seen (documented in the guide): code of the libraries in ``LIBRARIES`` (TensorFlow, Keras, NumPy ...: their
functions are counted by identity, never read into), attributes a function reads by a computed name
(``getattr(self, name)``), contents of containers past ``MAX_ITEMS`` values, and a NumPy array or list changed in
place inside an object past ``MAX_DEPTH``. Where a value cannot be read at all (a dict key whose ``__repr__``
raises), the fingerprint is one no later call equals: ``fn`` is traced anew each time, never answered stale.

>>> import numpy as np
>>> scale = np.array([1.0, 2.0])
>>> f = lambda x: x * scale
>>> before = fingerprint(f)
>>> scale[0] = 5.0
>>> fingerprint(f) == before
False
"""

from __future__ import annotations

import ast
import functools
import hashlib
import inspect
import itertools
import linecache
import operator
import sys
import textwrap
import types
import weakref
from typing import Any, Callable, Hashable, Iterator, NamedTuple

import numpy as np

__all__ = ["KEEPS_THE_CALL", "LIBRARIES", "MAX_DEPTH", "MAX_ITEMS", "MUTATORS", "callable_key", "computes_as", "fingerprint",
           "mutated", "objects_read", "plain_model", "same_output", "tolerance"]

#: how deep to follow functions and objects that a function reads (f calls g which reads a global's attribute)
MAX_DEPTH = 3
#: values one fingerprint reads by content at most (items of containers included); past it, containers count
#: by identity
MAX_ITEMS = 10_000
#: packages whose code reads no value a user changes between calls: their functions, classes and modules count by
#: identity and are not read into (following them would cost every call, and their own counters would retrace)
LIBRARIES = frozenset({"tensorflow", "keras", "tf_keras", "numpy", "jax", "jaxlib", "scipy", "pandas",
                       "builtins", "functools", "math", "operator", "abc", "typing", "collections"})


def fingerprint(fn: Callable) -> tuple:
    """A hashable summary of the values ``fn`` reads from outside its arguments (see the module)."""
    known = _FIXED.get(id(fn))
    if known is not None and known[0]() is fn and known[1].holds(fn):
        return known[1].out
    reader = _Reader()
    try:
        reader.follow(fn, 0)
    except Exception:   # noqa: BLE001 - a value that cannot be read (a key's __repr__ that raises, a tensor NumPy
        # cannot hold, source too deep to parse): a key no later call equals, so fn is traced anew each time (right,
        # only slower), never answered from a trace of values nobody read
        return (("not read", object()),)
    out = tuple(reader.out)
    _keep_fixed(fn, reader, out)
    return out


def objects_read(fn: Callable) -> list[Any]:
    """The live objects ``fn``'s fingerprint counts by identity (see the module: a model or layer in its closure,
    in a global it names, in an attribute of ``self`` it reads, to ``MAX_DEPTH``), in the order read; for a
    ``functools.partial`` or a bound method, also the callable or object it wraps (the walk does not read into a
    library's). What a check of the objects a function calls (``_forms.refuse_stateful``) reads, before any call.

    >>> class Config:
    ...     scale = 2.0
    >>> config = Config()
    >>> objects_read(lambda x: x * config.scale) == [config]
    True
    """
    found: list[Any] = []
    stack: list[Any] = [fingerprint(fn)]
    while stack:
        item = stack.pop()
        if isinstance(item, _Same):
            obj = item._ref()
            if obj is not None and all(obj is not other for other in found):
                found.append(obj)
        elif isinstance(item, tuple) and item[:1] not in (("layers",), ("settings",)):   # a model's layers and
            # their settings: the model stands for them
            stack.extend(reversed(item))
    return [inner for obj in [fn, *found] for inner in _wrapped(obj)][1:]


def _wrapped(obj: Any) -> list[Any]:
    """``obj``, then the callable a ``functools.partial`` wraps or the object a bound method is bound to."""
    if isinstance(obj, functools.partial):
        return [obj, obj.func]
    return [obj, obj.__self__] if isinstance(obj, types.MethodType) else [obj]


class _Fixed(NamedTuple):
    """A plain function's fingerprint while every value it read is the same object as then, and each of those is
    summed up by which object it is alone (``_fixed``): a closure's tensors, a number, a module. Then the walk
    would read the same values again and give the same summary, so ``holds`` (identity checks, ~1 us) stands in
    for it (the walk cost 25 us of a warm call on the tall MLP, 65 us in place, after the graph's run)."""

    code: types.CodeType
    defaults: tuple | None
    kwdefaults: tuple | None        # the items of ``__kwdefaults__`` (a dict, changed in place)
    cells: tuple                    # what each closure cell held
    globals: tuple                  # (name, value or _ABSENT) for every name the code reads
    out: tuple
    layers: tuple = ()              # (a Keras model or layer read, the layers it held, their settings): model.add and
    # dense.activation = ... make another function

    def holds(self, fn: types.FunctionType) -> bool:
        kwdefaults = fn.__kwdefaults__
        if fn.__code__ is not self.code or fn.__defaults__ is not self.defaults or \
                (kwdefaults is None) != (self.kwdefaults is None):
            return False
        if kwdefaults is not None and not _same_items(tuple(kwdefaults.items()), self.kwdefaults):
            return False
        # plain loops: the generator expressions over ``_cells`` made ten Python calls of a warm call on the tall MLP
        for cell, then in zip(fn.__closure__ or (), self.cells):   # as many cells as the same code has
            try:
                now = cell.cell_contents
            except ValueError:   # a cell not yet bound (``_cells`` reads it as None)
                now = None
            if now is not then:
                return False
        namespace = fn.__globals__
        for name, then in self.globals:
            if namespace.get(name, _ABSENT) is not then:
                return False
        for model, then, settings in self.layers:
            now = _layers(model)
            if len(now) != len(then) or any(a is not b for a, b in zip(now, then)):
                return False
            if _all_settings(model, now) != settings:
                return False
        return True


#: id(fn) -> (a weak reference to fn, its ``_Fixed``), while fn lives
_FIXED: dict[int, tuple[Any, _Fixed]] = {}
_ABSENT = object()


def _keep_fixed(fn: Any, reader: "_Reader", out: tuple) -> None:
    """Keep ``fn``'s fingerprint ``out`` for ``fingerprint``'s quick path when ``fn`` is a plain function that changes
    nothing itself and each value it read is ``_fixed``; forget any kept before otherwise."""
    key = id(fn)
    if type(fn) is not types.FunctionType or reader.mutated or _library(fn):
        _FIXED.pop(key, None)
        return
    code, namespace, kwdefaults = fn.__code__, fn.__globals__, fn.__kwdefaults__
    fixed = _Fixed(code, fn.__defaults__, None if kwdefaults is None else tuple(kwdefaults.items()), tuple(_cells(fn)),
                   tuple((name, namespace.get(name, _ABSENT)) for name in sorted(frozenset(_names(code)))), out)
    # every value the walk read (and every default, of which it reads those its parameters take)
    read = (*(fixed.defaults or ()), *(v for _, v in fixed.kwdefaults or ()), *fixed.cells,
            *(v for _, v in fixed.globals if v is not _ABSENT))
    if not all(_fixed(value) for value in read):
        _FIXED.pop(key, None)
        return
    models = {id(value): value for value in read if _library(value) and (_keras_layer(value) or _layers(value))}
    held = tuple((model, _layers(model), _all_settings(model, _layers(model))) for model in models.values())
    if any(settings is None for _, _, settings in held):   # a setting read anew (a Lambda's function): walked
        _FIXED.pop(key, None)
        return
    _FIXED[key] = (weakref.ref(fn, lambda _, key=key: _FIXED.pop(key, None)), fixed._replace(layers=held))


def _all_settings(obj: Any, layers: tuple) -> tuple | None:
    """The settings (``_settings``) of ``obj`` and its ``layers`` for ``_Fixed.holds``, all held by value or
    identity (``()`` when there are none); None when one is read anew by a walk (``volatile``)."""
    known = _settings(obj, layers)
    return () if known is None else None if known.volatile else known.fixed


def _same_items(now: tuple, then: tuple) -> bool:
    return len(now) == len(then) and all(a[0] == b[0] and a[1] is b[1] for a, b in zip(now, then))


#: the types whose summary is their ``repr``, which one object keeps for its life
_SCALARS = frozenset({type(None), bool, int, float, complex, str, bytes})


def _fixed(value: Any) -> bool:
    """Whether ``_Reader.summary`` sums ``value`` up by which object it is alone, at the top of a walk: a number or
    string (immutable), an eager tensor (its content never changes: ``_tensor_summary``), a variable (by identity),
    and an object of a package in ``LIBRARIES`` that is not a container, an array or a partial (by identity, never
    read into); not a user's function or object, whose reading goes on into what it holds."""
    kind = type(value)
    if kind in _SCALARS:
        return True
    tf = sys.modules.get("tensorflow")
    if tf is not None and kind is tf.__internal__.EagerTensor:
        return True
    if isinstance(value, (list, tuple, dict, np.ndarray, np.generic, functools.partial, types.MethodType)):
        return False
    if tf is not None and isinstance(value, tf.Variable):
        return True
    return _library(value) and not _user_layers(value)   # a custom layer in a Sequential is read anew (its layers
    # by identity are checked by ``_Fixed.holds``)


class _Same:
    """An object in a key by identity (never by its own ``__eq__``), held weakly where Python allows it: a dead
    object equals nothing, so a new object at the same address is a new key."""

    __slots__ = ("_id", "_ref", "__weakref__")

    def __init__(self, obj: Any) -> None:
        self._id = id(obj)
        try:
            self._ref = weakref.ref(obj)
        except TypeError:   # e.g. a list or a dict: held while the key lives
            self._ref = lambda obj=obj: obj

    def __hash__(self) -> int:
        return self._id

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _Same):
            return NotImplemented
        mine = self._ref()
        return mine is not None and mine is other._ref()

    def __repr__(self) -> str:
        return f"<object {self._id:#x}>"


class _Reader:
    """One fingerprint's walk: what it has read (``out``), what it has followed (``seen``) and its budget."""

    def __init__(self) -> None:
        self.out: list[tuple] = []
        self.seen: set[tuple] = set()   # (object, names, depth) read
        self.followed: dict[tuple, int] = {}   # (function, owner) -> the least depth it was followed at
        self.items = 0
        self.mutated: set[str] = set()   # paths the functions followed so far change themselves (``_scope``)
        self.at: dict[str, int] = {}   # path -> the object read there (a method's owner is at its parent path)

    def follow(self, fn: Any, depth: int, path: str | None = None) -> None:
        """Read what the callable ``fn`` reads into ``out``; ``path``: where its owner (``self``) was read from
        (``<globals 0x..>.CFG.inner`` for a method of the object at ``CFG.inner``), else the owner's identity."""
        if isinstance(fn, functools.partial):
            self.out.extend(("partial", k, self.summary(v, frozenset(), depth))
                            for k, v in list(enumerate(fn.args)) + sorted(fn.keywords.items()))
            fn = fn.func
        owner = None
        if isinstance(fn, types.MethodType):
            owner, fn = fn.__self__, fn.__func__
        elif not isinstance(fn, (types.FunctionType, type)) and not _library(fn):   # a callable object
            owner, fn = fn, _own_call(type(fn))
        if not isinstance(fn, types.FunctionType) or _library(fn) or depth > MAX_DEPTH:
            self.out.extend(self.layers_in(owner if owner is not None else fn, depth))   # a Sequential's layers
            return
        if owner is not None:
            path = path if path is not None else _anonymous(owner)
            self.at[path] = id(owner)
        mark = (id(fn), id(owner), path)   # followed again where it is met nearer the top: met first at MAX_DEPTH, the
        if self.followed.get(mark, MAX_DEPTH + 1) <= depth:   # objects it reads counted by identity alone
            return
        self.followed[mark] = depth
        names = frozenset(_names(fn.__code__))
        self.mutated |= {_scope(changed, fn, path) for changed in mutated(fn.__code__)}
        code = fn.__code__
        defaults = fn.__defaults__ or ()
        named: list[tuple[str, str, Any]] = [
            ("default", name, v) for name, v in zip(code.co_varnames[code.co_argcount - len(defaults):code.co_argcount],
                                                    defaults)]
        named += [("default", k, v) for k, v in sorted((fn.__kwdefaults__ or {}).items())]
        named += [("closure", name, cell) for name, cell in zip(fn.__code__.co_freevars, _cells(fn))]
        named += [("global", name, fn.__globals__[name]) for name in sorted(names) if name in fn.__globals__]
        if owner is not None:
            named += [("self", name, v) for name, v in _attributes(owner, names)]
        self.out.extend((fn.__qualname__, f"{kind} {name}",
                         self.value(f"{path}.{name}" if kind == "self" else _scope(name, fn, None), v, names, depth))
                        for kind, name, v in named)

    def layers_in(self, obj: Any, depth: int) -> tuple:
        """Which layers ``obj`` holds (by identity) and what those of the user's own classes read (``_layers``): a
        keras.Sequential's or a functional model's call is the library's, but the layers it
        runs are its function: a custom layer reads its own ``self.scale`` (counted by identity alone, a model answered
        4.0 after its layer's scale went from 2 to 5), and ``model.add(layer)`` keeps the model's identity (the
        Jacobian of the model before it was answered)."""
        layers = _layers(obj)
        settings = self.settings(obj, layers, depth)
        if not layers:
            return settings
        # which layers, by identity: a layer added to a Sequential after a call (model.add) is another function
        inner = (("layers", tuple(map(_Same, layers))),) + tuple(
            ("layer", i, self.summary(layer, frozenset(), depth + 1))
            for i, layer in enumerate(layer for layer in layers if not _library(layer)))
        return inner + settings

    def settings(self, obj: Any, layers: tuple, depth: int) -> tuple:
        """The settings (``_settings``) of ``obj`` when it is a Keras layer of the library's own class and of each
        such layer in ``layers``: what each holds by value or identity, and what the lists, arrays and user's
        functions they hold read (a ``Lambda``'s function reading a global), read anew."""
        group = _settings(obj, layers)
        if group is None:
            return ()
        out: tuple = group.fixed
        if group.volatile:
            members = (obj, *layers)
            out += tuple((i, name, self.summary(_dict(members[i]).get(name), frozenset(), depth + 1))
                         for i, name in group.volatile)
        return (("settings", out),)

    def value(self, path: str, value: Any, names: frozenset, depth: int) -> Any:
        """``summary``, or only the identity of a value the functions change themselves (see ``mutated``), and
        nothing of a number or string: a count rebound on every run is another int object each time, so even its
        identity would trace again. A list changed in place keeps its identity; a variable or an array a function
        makes once (``if self.W is None: self.W = ...``) and the user later replaces is another object."""
        if path in self.mutated:
            if value is None or isinstance(value, (bool, int, float, complex, str, bytes, np.generic)):
                return ("changed by the function",)
            return ("changed by the function", _Same(value))
        return self.summary(value, names, depth, path)

    def summary(self, value: Any, names: frozenset, depth: int, path: str | None = None) -> Any:
        """A hashable stand-in for ``value``: its content where a trace freezes it, else its identity (and what
        of it the code reads by ``names``); ``path``: the name it was read by (``CFG.inner``), None in a container."""
        self.items += 1
        if isinstance(value, np.generic) and not isinstance(value, np.object_):
            value = value.item()
        if value is None or isinstance(value, (bool, int, float, complex, str, bytes)):
            return (type(value).__name__, repr(value))   # repr: NaN equals itself here
        if isinstance(value, np.ndarray) and value.dtype != object:
            return ("ndarray", value.shape, value.dtype.str, _digest(value))
        tf = sys.modules.get("tensorflow")   # only when TensorFlow is loaded (the lint CLI never loads it)
        if tf is not None and isinstance(value, tf.Variable):
            return ("variable", _Same(value))   # read live by a graph, but another variable is another capture
        if tf is not None and isinstance(value, tf.__internal__.EagerTensor):   # frozen into a trace as a constant
            return _tensor_summary(value)
        if isinstance(value, (list, tuple, dict)):
            items = list(value.items()) if isinstance(value, dict) else list(enumerate(value))
            if self.items + len(items) > MAX_ITEMS or depth > MAX_DEPTH:
                return (type(value).__name__, "not read", _Same(value))
            return (type(value).__name__, tuple((repr(k) if isinstance(value, dict) else k,
                                                 self.summary(v, names, depth + 1, path and f"{path}[{k!r}]"))
                                                for k, v in items))
        if isinstance(value, (types.FunctionType, types.MethodType, functools.partial)):
            # a method read as an attribute of the object at P is bound to it: its self is P; a bound method stored
            # on another object (``self.act = other.forward``) is not, and is named by its owner's identity
            parent = path.rsplit(".", 1)[0] if path and isinstance(value, types.MethodType) else None
            self.follow(value, depth + 1,
                        parent if parent is not None and self.at.get(parent) == id(value.__self__) else None)
            return ("callable", _Same(value.__func__ if isinstance(value, types.MethodType) else value),
                    _Same(value.__self__) if isinstance(value, types.MethodType) else None)
        # an object met again is read again for another function's names (or nearer the top): seen by its identity
        # alone, SHARED.W named only by a helper was never read when the caller had met SHARED first
        visit = (id(value), names, depth)
        if depth >= MAX_DEPTH or visit in self.seen:
            return ("object", _Same(value))
        if _library(value):   # a Keras model of the library's class: by identity, and the user's layers it runs
            self.seen.add(visit)
            inner = self.layers_in(value, depth)
            return ("object", _Same(value), inner) if inner else ("object", _Same(value))
        self.seen.add(visit)
        path = path if path is not None else _anonymous(value)   # in a container, or a partial's argument
        self.at[path] = id(value)
        if callable(value) and not isinstance(value, type):   # a callable object the code calls: what its call reads
            self.follow(value, depth + 1, path)
        return ("object", _Same(value), tuple((name, self.value(f"{path}.{name}", v, names, depth + 1))
                                              for name, v in _attributes(value, names)))


#: methods that change the container they are called on
MUTATORS = frozenset({"append", "appendleft", "extend", "insert", "pop", "popitem", "popleft", "remove", "clear",
                      "update", "setdefault", "add", "discard", "sort", "reverse"})


@functools.lru_cache(maxsize=1024)
def mutated(code: types.CodeType) -> frozenset[str]:
    """The paths of the values the code of a function changes (``_path``), read from its source (parsed, never run):
    the container of an item assignment or deletion (``calls["n"] += 1``: ``calls``; ``self.log[k] = v``:
    ``self.log``), an assigned attribute (``self.calls += 1``: ``self.calls``; ``CFG.n = 0``: ``CFG.n``), the object
    a changing method is called on (``log.append(y)``: ``log``), and a name the function declares ``global`` or ``nonlocal`` and assigns; not what it changes on an
    object it made itself (``stats = Stats(); stats.W = 0`` is no change of a ``config.W`` it reads). Empty when the
    source cannot be read (a function made at a prompt), or the lines at the code's place are not its ``def`` (the
    file changed after it was loaded): then such a value is read by content, and the function traces again after
    each run that changed it (right, only slower).

    >>> def step(x):
    ...     CALLS["n"] += 1
    ...     LOG.append(x)
    ...     return x * SCALE
    >>> sorted(mutated(step.__code__))
    ['CALLS', 'LOG']
    """
    # the lines as inspect.getsourcelines finds them, without its search of every loaded module for the file's
    # module (0.7 s on a first call with TensorFlow loaded)
    lines = linecache.getlines(code.co_filename)
    if not lines or not 0 < code.co_firstlineno <= len(lines):
        return frozenset()
    try:
        tree = ast.parse(textwrap.dedent("".join(inspect.getblock(lines[code.co_firstlineno - 1:]))))
    except (SyntaxError, ValueError, IndentationError):   # a lambda's line that is not a statement
        return frozenset()
    if not _defines(tree, code.co_name):   # the file changed since the code was loaded: these lines are not it
        return frozenset()
    declared = {name for node in ast.walk(tree) if isinstance(node, (ast.Global, ast.Nonlocal)) for name in node.names}
    # names the function binds: what it changes on them is its own (matched by name alone, ``stats.W = 0`` hid an
    # in-place change of the config.W it reads)
    made_here = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}
    made_here -= declared
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.Delete)):
            targets = list(node.targets)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATORS:
            if _root(node.func.value) not in made_here:
                out |= _path(node.func.value)
            continue
        else:
            continue
        out |= _assigned(targets, declared, made_here)
    return frozenset(out)


def _assigned(targets: list[ast.AST], declared: set[str], made_here: set[str]) -> set[str]:
    """The paths an assignment's targets change (``mutated``): unpacked, not rooted at a name the function binds."""
    out: set[str] = set()
    while targets:
        target = targets.pop()
        if isinstance(target, (ast.Tuple, ast.List)):
            targets.extend(target.elts)
        elif isinstance(target, ast.Starred):
            targets.append(target.value)
        elif isinstance(target, (ast.Subscript, ast.Attribute)) and _root(target.value) in made_here:
            continue
        elif isinstance(target, ast.Subscript):
            out |= _path(target.value)
        elif isinstance(target, ast.Attribute):
            out |= _path(target)
        elif isinstance(target, ast.Name) and target.id in declared:
            out.add(target.id)
    return out


def _defines(tree: ast.Module, name: str) -> bool:
    """The parsed lines are the function called ``name`` (a ``def`` of that name first, or a lambda)."""
    if name == "<lambda>":
        return any(isinstance(node, ast.Lambda) for node in ast.walk(tree))
    return bool(tree.body) and isinstance(tree.body[0], (ast.FunctionDef, ast.AsyncFunctionDef)) \
        and tree.body[0].name == name


def _path(node: ast.AST) -> set[str]:
    """The path of what an expression changes, as the reader names values: ``log`` for ``log`` and ``log[0]``,
    ``self.log`` for ``self.log[0]`` and ``self.log[0].x`` (an item changed is its container changed), ``CFG.W``
    for ``CFG.W``, each rooted at the name the function wrote (``_scope`` says which object it is). Empty for a
    call's result."""
    parts: list[str] = []
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        if isinstance(node, ast.Subscript):
            parts.clear()
        else:
            parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return set()
    return {".".join([node.id] + parts[::-1])}


def _scope(changed: str, fn: types.FunctionType, owner: str | None) -> str:
    """A path as ``fn`` names it (``mutated``'s ``self.log``, ``CFG.W``, ``n``), as the reader names it: rooted at
    the object it starts from, never at a bare name that another function or module would use for another object.
    A method's first parameter is ``owner`` (where its owner was read from, or its identity); a global is a name in
    fn's own module (two modules' ``CFG`` are two objects); a closure's name is its cell; a parameter is fn's (its
    default). Matched by name alone, a hook in a list whose method sets ``self.scale = 1.0`` made the model's own
    number ``self.scale`` count as changed by the function, so not at all: changing it kept the old compiled
    Jacobian, silently."""
    root, dot, rest = changed.partition(".")
    rest = dot + rest
    code = fn.__code__
    if owner is not None and code.co_argcount and root == code.co_varnames[0]:   # a method's self
        return owner + rest
    flags = bool(code.co_flags & inspect.CO_VARARGS) + bool(code.co_flags & inspect.CO_VARKEYWORDS)
    if root in code.co_varnames[:code.co_argcount + code.co_kwonlyargcount + flags]:
        return f"<parameter {id(fn):#x}>.{root}{rest}"
    if root in code.co_freevars:
        return f"<cell {id(fn.__closure__[code.co_freevars.index(root)]):#x}>{rest}"
    return f"<globals {id(fn.__globals__):#x}>.{root}{rest}"


def _anonymous(obj: Any) -> str:
    """The path of an object read where it has no name (an item of a container, a partial's argument, the owner
    of a bound method stored on another object): its identity, which no other object read at once shares."""
    return f"<{id(obj):#x}>"


def _root(node: ast.AST) -> str | None:
    """The name an expression for an object starts from: ``self`` for ``self.log[0]``; None for a call's result."""
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _digest(array: np.ndarray) -> str:
    return hashlib.blake2b(np.ascontiguousarray(array).tobytes(), digest_size=16).hexdigest()


#: an eager tensor's summary by the tensor's id, while it lives: a tensor never changes after it is made, so its
#: bytes are hashed once (hashing a 256x256 closure constant on every call cost ~0.4 ms, as much as the warm call)
_TENSORS: dict[int, tuple[Any, tuple]] = {}


def _tensor_summary(tensor: Any) -> tuple:
    known = _TENSORS.get(id(tensor))
    if known is not None and known[0]() is tensor:
        return known[1]
    array = tensor.numpy()
    summary = ("tensor", array.shape, array.dtype.str, _digest(array))
    key = id(tensor)
    _TENSORS[key] = (weakref.ref(tensor, lambda _, key=key: _TENSORS.pop(key, None)), summary)
    return summary


def _library(obj: Any) -> bool:
    """``obj`` (a module, class, function or instance) comes from a package in ``LIBRARIES``."""
    if isinstance(obj, types.ModuleType):
        module = obj.__name__
    elif isinstance(obj, (type, types.FunctionType, types.BuiltinFunctionType)):
        module = getattr(obj, "__module__", None) or ""
    else:
        module = type(obj).__module__ or ""
    return module.split(".", 1)[0] in LIBRARIES


#: the private attributes of a Keras layer that its public setters change and its call reads: ``layer.trainable``
#: (BatchNormalization under ``training=True`` uses its batch's statistics only while trainable) and
#: ``layer.dtype_policy`` (the dtype it computes in)
SETTING_PRIVATES = frozenset({"_trainable", "_dtype_policy"})
#: public attributes of a Keras layer that are no setting of its call: what its first call sets (``built``), the
#: names Keras reads off its ``call``'s signature, the functions Keras puts on each instance (closures over the
#: layer: held, they would keep it alive), and what only names it or tells XLA whether it may compile it
NOT_SETTINGS = frozenset({"built", "call_signature_parameters", "build", "quantize", "name", "supports_jit"})


class _Settings(NamedTuple):
    """What the call of a Keras layer, or of the layers inside a model, reads from them besides their weights and
    which layers they are (``_settings``), and what tells that it still holds: identity checks in C loops."""

    members: tuple          # weak references to the object and to each layer inside it
    pick: Callable          # an itemgetter of the library's layers among them, by position
    sizes: tuple            # how many attributes each of those had (one added is a new setting to read)
    getters: tuple          # for each, an itemgetter of its settings held by value or identity ...
    values: tuple           # ... and the objects they were, held (so no other object takes one's address)
    fixed: tuple            # ((position, class name, ((name, summary) ...)) ...)
    volatile: tuple         # (position, name) of the settings read anew by every walk (a list, a user's function)

    def holds(self, members: tuple) -> bool:
        if len(members) != len(self.members) or not all(map(operator.is_, map(operator.call, self.members), members)):
            return False
        dicts = tuple(map(vars, self.pick(members)))   # Keras layers: each has a __dict__
        try:
            return tuple(map(len, dicts)) == self.sizes and all(map(
                operator.is_, itertools.chain.from_iterable(map(operator.call, self.getters, dicts)), self.values))
        except KeyError:   # a setting deleted
            return False


#: id(the object) -> its ``_Settings``. Bounded (the oldest entry goes first, past ``MAX_SETTINGS``): an entry holds
#: its settings' values (a function, a dtype policy), and one that referred back to its layer would keep the layer
#: alive while the entry lives. A plain dict, read without a lock: a lookup is one step of every warm call
_SETTINGS: dict[int, "_Settings"] = {}
MAX_SETTINGS = 256


def _settings(obj: Any, layers: tuple) -> _Settings | None:
    """The settings of a Keras layer ``obj`` of the library's own class and of such layers in ``layers`` (inside
    ``obj``): the attributes of each one's ``__dict__`` its code reads at a call and a user may change after one
    (``dense.activation``, ``use_bias``, ``dropout.rate``, ``negative_slope``, ``axis``, ``epsilon``; ``trainable``
    and ``dtype_policy`` through ``SETTING_PRIVATES``). Not its weights (read live by a graph), nor its sublayers
    (walked by ``_layers``), nor ``NOT_SETTINGS``. A number, string or tuple of them counts by value; a function or
    object of a library by identity (``keras.activations.linear`` is another function than ``tanh``); a list, a
    NumPy array or a user's function or object is ``volatile``, read anew by the walk. Kept while each is the same
    object, since Keras changes none of them on a call. None when there are no such layers."""
    members = (obj, *layers)
    known = _SETTINGS.get(id(obj))
    if known is not None and known.holds(members):
        return known
    positions, sizes, getters, values, fixed, volatile = [], [], [], [], [], []
    for i, layer in enumerate(members):
        if not (_library(layer) and _keras_layer(layer)) or type(layer).__name__ == "InputLayer":   # a model's own
            continue   # attributes: see ``_keras_layer``; an input's are its shape and dtype, read when it was made
        own = _dict(layer)
        names, held = [], []
        for name, value in own.items():
            if (name[:1] == "_" and name not in SETTING_PRIVATES) or name in NOT_SETTINGS or _not_setting(name, value):
                continue
            if not (_fixed(value) or _scalars(value)):
                volatile.append((i, name))
                continue
            names.append(name)
            held.append((name, _held(value)))
        positions.append(i)
        sizes.append(len(own))
        getters.append(_getter(names))
        values.extend(getters[-1](own))
        fixed.append((i, type(layer).__qualname__, tuple(held)))
    if not positions:
        return None
    out = _Settings(tuple(map(_weak, members)), _getter(positions), tuple(sizes), tuple(getters), tuple(values),
                    tuple(fixed), tuple(volatile))
    while len(_SETTINGS) >= MAX_SETTINGS:
        try:
            _SETTINGS.pop(next(iter(_SETTINGS)), None)
        except (StopIteration, RuntimeError):   # emptied, or changed by another thread meanwhile
            break
    _SETTINGS[id(obj)] = out
    return out


def _weak(obj: Any) -> Callable:
    """A weak reference to ``obj`` where Python allows it, else a function that holds it."""
    try:
        return weakref.ref(obj)
    except TypeError:
        return lambda obj=obj: obj


def _held(value: Any) -> Any:
    """A setting's summary: a number, string or tuple of them itself (with its type: ``True`` is not ``1.0``), an
    eager tensor its content, anything else its identity."""
    kind = type(value)
    if kind in _SCALARS or isinstance(value, tuple):
        return kind, value if value == value else repr(value)   # NaN: equal to itself by its repr
    tf = sys.modules.get("tensorflow")
    return _tensor_summary(value) if tf is not None and kind is tf.__internal__.EagerTensor else _Same(value)


def _getter(keys: list) -> Callable:
    """``operator.itemgetter`` of ``keys`` that gives a tuple for any number of them."""
    return operator.itemgetter(*keys * (1 + (len(keys) == 1))) if keys else (lambda _: ())


def _not_setting(name: str, value: Any) -> bool:
    """A weight (a graph reads its value live; Keras makes it at the first call), a layer (walked by ``_layers``),
    or what only ``build`` (an initializer), an optimizer (a constraint) or ``model.losses`` (a weight's
    regularizer, which Keras puts on the variable at ``build``) read."""
    if name.endswith(("_initializer", "_constraint")) or (name.endswith("_regularizer") and
                                                           name != "activity_regularizer"):
        return True
    tf = sys.modules.get("tensorflow")
    keras = sys.modules.get("keras")
    return (tf is not None and isinstance(value, tf.Variable)) or (
        keras is not None and isinstance(value, (keras.Variable, keras.Layer)))


def _scalars(value: Any) -> bool:
    """A tuple of numbers and strings (a Conv layer's ``kernel_size``), nested at most once: counted by value."""
    return isinstance(value, tuple) and all(type(v) in _SCALARS or (isinstance(v, tuple) and all(
        type(w) in _SCALARS for w in v)) for v in value)


def _keras_layer(obj: Any) -> bool:
    """``obj`` is a Keras (3) layer that is not a model: a model's own attributes are its ``compile`` and ``fit``
    state (changed by each ``fit``), and what its call computes is its layers'."""
    keras = sys.modules.get("keras")
    layer = getattr(keras, "Layer", None)
    return layer is not None and isinstance(obj, layer) and not isinstance(obj, keras.Model)


def _user_layers(obj: Any) -> tuple:
    """The layers of classes the user wrote inside a Keras model or layer ``obj`` (at any depth: a custom layer in a
    Sequential, a cell in ``keras.layers.RNN``); ``()`` for anything else (``_layers``)."""
    return tuple(layer for layer in _layers(obj) if not _library(layer))


def _layers(obj: Any) -> tuple:
    """Every layer inside a Keras model or layer ``obj``, at any depth, in the order walked; ``()`` for anything else.
    Walked on every call, through each layer's ``_layers`` (Keras 3), else ``_flatten_layers``: 2-3 us for the three
    Dense layers of the MLP preset."""
    if isinstance(obj, type):
        return ()
    layers = getattr(obj, "_layers", None)
    if not isinstance(layers, list):
        flatten = getattr(obj, "_flatten_layers", None)
        return () if flatten is None else tuple(flatten(include_self=False, recursive=True))
    found, seen, stack = [], {id(obj)}, list(reversed(layers))
    while stack:
        layer = stack.pop()
        if id(layer) in seen:
            continue
        seen.add(id(layer))
        found.append(layer)
        inner = getattr(layer, "_layers", None)
        if isinstance(inner, list):
            stack.extend(reversed(inner))
    return tuple(found)


def _own_call(cls: type) -> Any:
    """The function a call of an instance of ``cls`` runs that the user wrote: ``__call__``, or a Keras layer's
    ``call`` when ``__call__`` is the library's."""
    for name in ("__call__", "call"):
        for klass in cls.__mro__:
            if name in vars(klass):
                function = vars(klass)[name]
                if isinstance(function, types.FunctionType) and not _library(function):
                    return function
                break
    return None


def _attributes(obj: Any, names: frozenset) -> Iterator[tuple[str, Any]]:
    """The attributes of ``obj`` named in ``names``, read without running any code (no ``getattr``): the
    instance's own, then its class's (a method or a property's getter bound to ``obj``, so what it reads is
    read too)."""
    own = _dict(obj)
    found = set()
    for name in sorted(names & own.keys()):
        found.add(name)
        yield name, own[name]
    if isinstance(obj, types.ModuleType):
        return
    klass = obj if isinstance(obj, type) else type(obj)
    for cls in klass.__mro__:
        if _library(cls):
            break
        for name in sorted((names & vars(cls).keys()) - found):
            found.add(name)
            value = vars(cls)[name]
            if isinstance(value, (staticmethod, classmethod)):
                value = value.__func__
            if isinstance(value, property):
                value = value.fget
            if isinstance(value, types.MemberDescriptorType) and not isinstance(obj, type):   # a __slots__ field
                try:
                    value = value.__get__(obj, klass)
                except AttributeError:   # not set
                    continue
            if isinstance(value, types.FunctionType) and not isinstance(obj, type):
                value = types.MethodType(value, obj)
            yield name, value


def _dict(obj: Any) -> dict:
    try:
        own = vars(obj)
    except TypeError:   # no __dict__ (slots, builtins)
        return {}
    return own if isinstance(own, (dict, types.MappingProxyType)) else {}


def _cells(fn: types.FunctionType) -> Iterator[Any]:
    for cell in fn.__closure__ or ():
        try:
            yield cell.cell_contents
        except ValueError:   # a cell not yet bound
            yield None


def _names(code: types.CodeType) -> Iterator[str]:
    """The global and attribute names ``code`` reads, including those of nested lambdas and comprehensions."""
    yield from code.co_names
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _names(const)


def callable_key(fn: Callable, *parts: Hashable) -> Hashable | None:
    """The key of a compiled function of ``fn`` for ``parts`` (method, shapes, dtypes): ``fn`` itself, the parts,
    and the fingerprint of the values ``fn`` reads, which are frozen into a trace (a changed value must mean a
    new key, or the compiled graph would keep answering with the old one). None when ``fn`` is not hashable:
    then it is compiled anew, never cached."""
    try:
        hash(fn)
    except TypeError:
        return None
    return (fn, *parts, fingerprint(fn))


# ---------------------------------------------------------------- a model's structure and its call
# Some paths read a model instead of calling it: the forward Laplacian carries value, Jacobian and Laplacian through
# each Dense kernel (gradlib._second._taylor), the per-example gradients run a model layer by layer and give the
# layers they know rules of their own (gradlib._perexample._ghost), the cost estimates read layer sizes. Each is
# right only when the object computes what Keras' own class computes: a subclass may compute something else in any
# method a call runs (a keras.Sequential whose call returned super().call(x) * 3 had the Laplacian of its bare
# layers, 96% off, silently). So every such shortcut asks this one proof: ``computes_as`` a known class (that class,
# or subclasses defining nothing but KEEPS_THE_CALL), and where it computes y itself, ``same_output`` as the
# model's own call. Where either fails the caller takes the tape path, which calls the model and is right for any
# class.

#: what a subclass may define and still compute its base class's call: its construction and config, the class's
#: own metadata, and what only ``fit`` / ``evaluate`` run (never a call of the model on a batch)
KEEPS_THE_CALL = frozenset({
    "__init__", "get_config", "from_config", "__module__", "__qualname__", "__doc__", "__dict__", "__weakref__",
    "__annotations__", "__annotate__", "__firstlineno__", "__static_attributes__", "__orig_bases__",
    "__parameters__", "__type_params__", "__classcell__", "train_step", "test_step", "predict_step", "compile",
    "compute_metrics", "get_compile_config", "compile_from_config"})


def computes_as(obj: Any, cls: type) -> bool:
    """``obj`` is a ``cls`` and computes what ``cls`` does: every class from ``type(obj)`` up to ``cls`` defines
    only names in ``KEEPS_THE_CALL`` (an overridden ``call``, ``__call__``, ``build`` or weight property could
    compute anything), and no ``call`` was put on the instance itself (Keras puts its own ``build`` there).

    >>> import keras
    >>> class Tripled(keras.layers.Dense):
    ...     def call(self, x):
    ...         return super().call(x) * 3.0
    >>> computes_as(keras.layers.Dense(2), keras.layers.Dense), computes_as(Tripled(2), keras.layers.Dense)
    (True, False)
    """
    if not isinstance(obj, cls) or "call" in getattr(obj, "__dict__", {}):   # a call replaced on the instance
        return False
    for klass in type(obj).__mro__:
        if klass is cls:
            return True
        if not set(vars(klass)) <= KEEPS_THE_CALL:
            return False
    return False


def plain_model(model: Any) -> bool:
    """A Keras ``Sequential`` or functional ``Model`` that computes what Keras' own class does (``computes_as``):
    its layers are then what its call runs, in the graph Keras keeps."""
    import keras

    functional = _functional_class()
    return computes_as(model, keras.Sequential) or (functional is not None and computes_as(model, functional))


def _functional_class() -> type | None:
    """Keras' class of a functional model (what ``keras.Model(inputs, outputs)`` makes)."""
    try:
        from keras.src.models.functional import Functional
        return Functional
    except ImportError:   # a Keras that moved it: a shortcut then takes no functional model, which is only slower
        return None


def tolerance(dtype: str) -> float:
    """The relative gap two computations of the same value in ``dtype`` may show (their rounding, not a bug)."""
    return {"float16": 2e-2, "bfloat16": 5e-2, "float32": 1e-4}.get(str(dtype), 1e-9)


def same_output(shortcut: Any, called: Any, dtype: str) -> bool:
    """Whether a shortcut's ``y`` equals the model's own call's, elementwise within ``dtype``'s ``tolerance``
    (relative to the largest finite magnitude; a NaN or infinity must be matched in place).

    >>> same_output(np.array([[1.0]]), np.array([[1.0 + 1e-9]]), "float32")
    True
    """
    a, b = np.asarray(shortcut, np.float64), np.asarray(called, np.float64)
    if a.shape != b.shape:
        return False
    finite = np.isfinite(a) & np.isfinite(b)
    if not np.array_equal(a[~finite], b[~finite], equal_nan=True):
        return False
    scale = max(1.0, float(np.abs(b[finite]).max(initial=0.0)))
    return bool(np.all(np.abs(a[finite] - b[finite]) <= tolerance(dtype) * scale))
