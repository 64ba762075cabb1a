"""Corrected sources: one small text edit per kind of fix, kept only if the result still parses."""

from __future__ import annotations

import ast
import re

__all__ = ["corrected"]


def corrected(source: str, tree: ast.Module, fix: tuple | None) -> str | None:
    """``source`` with the edit ``fix`` applied (a tuple from the diagnosis), or None when there is none."""
    if fix is None:
        return None
    lines = source.splitlines(keepends=True)
    edit = _EDITS.get(fix[0])
    try:
        changed = edit(lines, tree, *fix[1:]) if edit is not None else None
    except (IndexError, ValueError):
        return None
    if changed is None:
        return None
    text = "".join(changed)
    try:
        ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return text if text != source else None


def _return(lines, tree, line, end_line, col, name):
    """``return name`` right after a function's last statement, ``name = ...`` (GT026)."""
    if not name.isidentifier() or not lines[line - 1][:col].isspace() and col:
        return None
    return lines[:end_line] + [f"{lines[line - 1][:col]}return {name}\n"] + lines[end_line:]


def _indent(text: str) -> str:
    return text[:len(text) - len(text.lstrip())]


def _watch(lines, tree, line, col, name, tape):
    """``tape.watch(name)`` first thing in the block, or right after the block's own assignment of ``name``.

    A name first assigned inside the block cannot be watched before it exists (a NameError): the watch goes
    after that assignment. When the name is assigned deeper (in a loop or branch in the block) or used
    before its assignment there, no watch line can be placed for sure, and none is offered.
    """
    if ", " in name:                    # several sources never watched (tfp51): one watch each, in order
        for one in reversed(name.split(", ")):
            lines = _watch(lines, tree, line, col, one, tape) if lines is not None else None
            tree = ast.parse("".join(lines)) if lines is not None else None
        return lines
    if not re.fullmatch(r"[\w.\[\]]+", name) or not lines[line - 1].rstrip().endswith(":"):
        return None
    block = _with_block(tree, line)
    if block is not None and name.isidentifier() and _assigns(block, name):
        return _watch_after_assignment(lines, block, name, tape)
    body = next((ln for ln in lines[line:] if ln.strip()), "")
    indent = _indent(body) if len(_indent(body)) > len(_indent(lines[line - 1])) else _indent(lines[line - 1]) + "    "
    return lines[:line] + [f"{indent}{tape}.watch({name})\n"] + lines[line:]


def _assigns(node, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) for n in ast.walk(node))


def _watch_after_assignment(lines, block, name, tape):
    first = next((stmt for stmt in block.body if _assigns(stmt, name)), None)
    if first is None or not isinstance(first, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        return None                      # assigned inside a loop, branch or nested block: no single place
    used_before = any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
                      for stmt in block.body[:block.body.index(first) + 1] for n in ast.walk(stmt))
    if used_before:
        return None
    at = first.end_lineno
    return lines[:at] + [f"{_indent(lines[first.lineno - 1])}{tape}.watch({name})\n"] + lines[at:]


def _persistent(lines, tree, line, col):
    text = lines[line - 1]
    if "persistent=False" in text:
        return _replace(lines, line, text.replace("persistent=False", "persistent=True", 1))
    match = re.search(r"GradientTape\(\s*(\)?)", text[col:])
    if match is None:
        return None
    at = col + match.end(0) - len(match.group(1))
    insert = "persistent=True" if match.group(1) else "persistent=True, "
    return _replace(lines, line, text[:at] + insert + text[at:])


def _assign(lines, tree, line):
    text = lines[line - 1]
    match = re.fullmatch(r"(\s*)(\w+)\s*=\s*\2\s*([-+])\s*(.+?)\s*", text)
    if match:
        method = "assign_add" if match.group(3) == "+" else "assign_sub"
        return _replace(lines, line, f"{match.group(1)}{match.group(2)}.{method}({match.group(4)})\n")
    match = re.fullmatch(r"(\s*)(\w+)\s*=\s*(.+?)\s*", text)
    if match:
        return _replace(lines, line, f"{match.group(1)}{match.group(2)}.assign({match.group(3)})\n")
    return None


def _augassign(lines, tree, line):
    match = re.fullmatch(r"(\s*)([\w.]+)\s*([-+])=\s*(.+?)\s*", lines[line - 1])
    if match is None:
        return None
    method = "assign_add" if match.group(3) == "+" else "assign_sub"
    return _replace(lines, line, f"{match.group(1)}{match.group(2)}.{method}({match.group(4)})\n")


def _trainable(lines, tree, line):
    text = lines[line - 1]
    new = re.sub(r",\s*trainable\s*=\s*False", "", text, count=1)
    new = re.sub(r"trainable\s*=\s*False\s*,\s*", "", new, count=1) if new == text else new
    return _replace(lines, line, new) if new != text else None


def _float(lines, tree, line):
    """``dtype=tf.float32`` on the call that makes the integer value on ``line``.

    Only offered when every later use of the name stays apart from other values (a ``tf.cast`` of it, a
    watch, a gradient request, arithmetic with itself and Python numbers): ``w * x`` with ``x`` an integer
    tensor would raise InvalidArgumentError once ``w`` is float, so there the message says what to do.
    """
    call = next((n for n in ast.walk(tree) if isinstance(n, ast.Call) and n.lineno == line == n.end_lineno
                 and not any(k.arg == "dtype" for k in n.keywords)
                 and ast.unparse(n.func).endswith(("constant", "Variable", "convert_to_tensor"))), None)
    if call is None:
        return None
    target = next((n.targets[0].id for n in ast.walk(tree) if isinstance(n, ast.Assign) and n.value is call
                   and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)), None)
    if target is None or not _used_alone(tree, target):
        return None
    text = lines[line - 1]
    end = _col(text, call.end_col_offset) - 1
    return _replace(lines, line, text[:end] + ", dtype=tf.float32" + text[end:])


_KEEPS_APART = ("cast", "watch", "gradient", "jacobian", "batch_jacobian")


def _used_alone(tree, name: str) -> bool:
    """Whether every read of ``name`` meets no other named value before a cast, watch or gradient request."""
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    for use in (n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)):
        node = use
        while node in parents and not isinstance(parents[node], ast.stmt):
            parent = parents[node]
            if isinstance(parent, ast.Call) and ast.unparse(parent.func).split(".")[-1] in _KEEPS_APART:
                break
            others = [n for n in ast.walk(parent) if isinstance(n, ast.Name) and n.id != name
                      and not _is_module_name(n, parents)]
            if others:
                return False
            node = parent
    return True


def _is_module_name(node: ast.Name, parents) -> bool:
    """``tf`` in ``tf.reduce_sum``, ``np`` in ``np.float32``: the start of a dotted name, not a value."""
    return isinstance(parents.get(node), ast.Attribute) and node.id in ("tf", "np", "numpy", "tensorflow", "math")


def _indent_line(lines, tree, line):
    stmt = next((n for n in ast.walk(tree) if isinstance(n, ast.stmt) and n.lineno == line), None)
    if stmt is None or stmt.end_lineno != line:
        return None
    return _replace(lines, line, "    " + lines[line - 1])


def _with_block(tree, with_line):
    return next((n for n in ast.walk(tree) if isinstance(n, (ast.With, ast.AsyncWith)) and n.lineno == with_line), None)


def _unstack(lines, tree, line, name, with_line, tape_at):
    """Loop over ``tf.unstack(name)`` made at the end of the tape block (and make the tape persistent)."""
    block = _with_block(tree, with_line)
    if block is None or block.end_lineno >= line:
        return None
    new, count = re.subn(rf"\bin\s+{re.escape(name)}\b", f"in {name}_parts", lines[line - 1], count=1)
    if not count:
        return None
    indent = _indent(lines[block.body[0].lineno - 1])
    changed = _replace(lines, line, new)
    changed = changed[:block.end_lineno] + [f"{indent}{name}_parts = tf.unstack({name})   # inside the tape\n"] \
        + changed[block.end_lineno:]
    return changed if tape_at is None else _persistent(changed, tree, *tape_at)


def _move(lines, tree, line, with_line, where):
    """Move the one-line statement ``line`` into the tape block: its start (after the watches) or its end."""
    block = _with_block(tree, with_line)
    stmt = next((n for n in ast.walk(tree) if isinstance(n, ast.stmt) and n.lineno == line), None)
    if block is None or stmt is None or stmt.end_lineno != line or _indent(lines[line - 1]) != _indent(
            lines[with_line - 1]):
        return None
    between = range(line + 1, with_line) if where == "start" else range(block.end_lineno + 1, line)
    if any(lines[k - 1].strip() and not lines[k - 1].lstrip().startswith("#") for k in between):
        return None
    body = block.body
    watches = [n for n in body if isinstance(n, ast.Expr) and isinstance(n.value, ast.Call)
               and isinstance(n.value.func, ast.Attribute) and n.value.func.attr == "watch"]
    at = (watches[-1].end_lineno if watches and body[:len(watches)] == watches else with_line) if where == "start" \
        else block.end_lineno
    moved = _indent(lines[body[0].lineno - 1]) + lines[line - 1].lstrip()
    rest = lines[:line - 1] + lines[line:]
    at = at - 1 if line < at else at
    return rest[:at] + [moved] + rest[at:]


def _col(text: str, byte_offset: int) -> int:
    """ast's columns count UTF-8 bytes; turn one into a character index."""
    return len(text.encode("utf-8")[:byte_offset].decode("utf-8", errors="ignore"))


def _replace(lines, line, text):
    return lines[:line - 1] + [text] + lines[line:]


_EDITS = {"watch": _watch, "persistent": _persistent, "assign": _assign, "augassign": _augassign,
          "trainable": _trainable, "float": _float, "indent": _indent_line, "unstack": _unstack, "move": _move,
          "return": _return}
