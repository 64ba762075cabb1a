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


def _indent(text: str) -> str:
    return text[:len(text) - len(text.lstrip())]


def _watch(lines, tree, line, col, name, tape):
    if not re.fullmatch(r"[\w.\[\]]+", name):
        return None
    body = next((ln for ln in lines[line:] if ln.strip()), "")
    indent = _indent(body) if len(_indent(body)) > len(_indent(lines[line - 1])) else _indent(lines[line - 1]) + "    "
    if not lines[line - 1].rstrip().endswith(":"):
        return None
    return lines[:line] + [f"{indent}{tape}.watch({name})\n"] + lines[line:]


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
    call = next((n for n in ast.walk(tree) if isinstance(n, ast.Call) and n.lineno == line == n.end_lineno
                 and not any(k.arg == "dtype" for k in n.keywords)
                 and ast.unparse(n.func).endswith(("constant", "Variable", "convert_to_tensor"))), None)
    if call is None:
        return None
    text = lines[line - 1]
    end = _col(text, call.end_col_offset) - 1
    return _replace(lines, line, text[:end] + ", dtype=tf.float32" + text[end:])


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
          "trainable": _trainable, "float": _float, "indent": _indent_line, "unstack": _unstack, "move": _move}
