"""What the linter knows about a value: where it came from and which tapes recorded a path to it.

A ``Val`` is one runtime object as far as the source shows it (a tensor, a variable, a tape, a list).
Each operation makes a new ``Val`` whose ``parents`` are its inputs, so a gradient that comes out
None can be traced back to the operation that cut the path. ``rec`` maps a tape to the sources it
recorded a path from: ``t.gradient(y, x)`` is connected exactly when ``x.id in y.rec[t.id]``.
"""

from __future__ import annotations

import ast
import itertools
from dataclasses import dataclass, field

__all__ = ["Tape", "Val", "describe", "owners"]

_ids = itertools.count(1)

TENSORISH = ("tensor", "var")   # values TensorFlow operators act on


@dataclass(eq=False)
class Tape:
    """One ``tf.GradientTape``: options, when it recorded, what it watches and how often it was asked."""

    line: int
    col: int
    name: str = "tape"
    persistent: bool = False
    auto: bool = True                                   # watch_accessed_variables
    intervals: list = field(default_factory=list)       # [enter seq, exit seq or None] per `with`
    with_lines: list = field(default_factory=list)      # line of each `with` that entered it
    watched: dict = field(default_factory=dict)         # source id -> (seq, line) of its watch
    int_watches: dict = field(default_factory=dict)     # integer source id -> line of the watch
    calls: list = field(default_factory=list)           # lines of gradient/jacobian calls so far
    blind: bool = False                                 # watched something unknown or escaped to unknown code
    depth: int = 0                                      # how many inlined calls deep it was made
    symbolic_watch: bool = False                        # watched a KerasTensor (GT019): raises there

    pauses: list = field(default_factory=list)          # [enter seq, exit seq or None, line] per stop_recording

    def active_at(self, seq: int) -> bool:
        return any(start <= seq and (end is None or seq < end) for start, end in self.intervals) \
            and self.paused_at(seq) is None

    def paused_at(self, seq: int) -> int | None:
        """The line of the ``with tape.stop_recording():`` an operation at ``seq`` ran in, else None."""
        return next((line for start, end, line in self.pauses if start <= seq and (end is None or seq < end)), None)

    def when(self, seq: int) -> str:
        """'before', 'inside', 'paused' or 'after' the tape's recording, for an operation at ``seq``."""
        if self.active_at(seq):
            return "inside"
        if self.paused_at(seq) is not None:
            return "paused"
        if not self.intervals or seq < self.intervals[0][0]:
            return "before"
        return "after"

    def copy_state(self) -> tuple:
        return dict(self.watched), dict(self.int_watches), list(self.calls), self.blind

    def set_state(self, state: tuple) -> None:
        self.watched, self.int_watches, self.calls, self.blind = dict(state[0]), dict(state[1]), list(state[2]), state[3]


@dataclass(eq=False)
class Val:
    """One value of the analysed program (see the module docstring)."""

    kind: str                       # tensor var numpy py seq tape model func module object none unknown
    line: int = 0
    col: int = 0
    op: str = ""                    # how it was made: const leaf op iter slice numpy nondiff stop gradient call ...
    opname: str = ""                # the function or method that made it, for messages
    text: str = ""                  # its source text, for messages
    parents: tuple = ()
    seq: int = 0
    rec: dict = field(default_factory=dict)
    dtype: str | None = None        # "float", "int" or None when unknown
    trainable: bool = True
    opaque: bool = False            # unknown code took part in making it
    items: list | None = None       # seq: the elements, when known
    length: int | None = None       # seq or tensor: number of elements along the first axis, when known
    size: int = 1                   # seq: how many values it holds, nested lists counted through (the cost of flat)
    tape: Tape | None = None
    qual: str = ""                  # module: the dotted name (tf.math); func: the function name
    node: ast.AST | None = None     # func: the definition; class: the class definition
    attrs: dict = field(default_factory=dict)
    name: str = ""                  # the first name it was bound to
    rebound: tuple | None = None    # (line, col, variable name): a Variable replaced by this tensor
    sites: tuple = ()               # (line, col, text) of each inlined call it was made in, outermost first
    id: int = field(default_factory=lambda: next(_ids))

    def __post_init__(self) -> None:
        if self.items is not None:
            self.size = sum(item.size for item in self.items)

    @property
    def known(self) -> bool:
        return self.kind != "unknown" and not self.opaque


def describe(val: Val) -> str:
    """A short name for ``val`` in a message: its variable name, else its source text."""
    text = val.name or val.text or val.opname or "this value"
    return text if len(text) <= 40 else text[:37] + "..."


def owners(val: Val) -> list[Val]:
    """The Keras models that own ``val`` (a layer or variable their ``__init__`` made), innermost first."""
    found, owner = [], val.attrs.get("__owner__")
    while owner is not None and len(found) < 8:
        found.append(owner)
        owner = owner.attrs.get("__owner__")
    return found
