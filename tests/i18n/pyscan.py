"""Finds messages in Python code that users read and that no gettext call covers.

A message is a string literal or f-string with a word in it (two Latin letters) that is
raised (`raise ImportFailed(path, line, "...")`, `raise fields.fail(line, f"...")`), added to
an import's warnings (`summary.warnings.append(...)`), or the name of a field that such
messages quote (`fields.integer(text, line, "rank")`). A literal
inside gettext's family is marked; a dictionary's keys are not text (`% {"n": n}`). A line
ending in `# i18n: not text` is left out (an error for programmers, never shown to users).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

_WORD = re.compile(r"[A-Za-z]{2,}")
_MARKERS = {"_", "gettext", "gettext_lazy", "ngettext", "pgettext", "ngettext_lazy", "_lazy"}
# Parsers whose last text argument names the field in their messages.
_FIELD_PARSERS = {"number", "integer", "ident", "name", "text", "_count", "_text", "check"}
_SKIP = "# i18n: not text"


def _name(call: ast.Call) -> str:
    func = call.func
    return func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")


def _literal_text(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return bool(_WORD.search(node.value))
    if isinstance(node, ast.JoinedStr):
        parts = [v.value for v in node.values if isinstance(v, ast.Constant)]
        return bool(_WORD.search("".join(str(p) for p in parts)))
    return False


def _unmarked(node: ast.AST) -> list[ast.AST]:
    if isinstance(node, ast.Call) and _name(node) in _MARKERS:
        return []
    if _literal_text(node):
        return [node]
    if isinstance(node, ast.Subscript):  # params["key"]
        return _unmarked(node.value)
    if isinstance(node, ast.Dict):
        return [found for value in node.values for found in _unmarked(value)]
    if isinstance(node, ast.Call):  # its arguments; not `", ".join` nor `limit("key")`
        if _name(node) == "limit":
            return []
        arguments = [*node.args, *(keyword.value for keyword in node.keywords)]
        return [found for argument in arguments for found in _unmarked(argument)]
    return [found for child in ast.iter_child_nodes(node) for found in _unmarked(child)]


def message_nodes(tree: ast.AST) -> list[ast.AST]:
    """The unmarked messages of a parsed module."""
    found: list[ast.AST] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and node.exc is not None:
            found += _unmarked(node.exc)
        elif not isinstance(node, ast.Call):
            continue
        elif _name(node) in _FIELD_PARSERS and len(node.args) >= 3:
            if _literal_text(node.args[2]):
                found.append(node.args[2])
        elif (
            _name(node) == "append"
            and isinstance(node.func, ast.Attribute)
            and getattr(node.func.value, "attr", "") == "warnings"
        ):
            found += [arg for arg in node.args for arg in _unmarked(arg)]
    return found


def findings(source: str) -> list[tuple[int, str]]:
    """(line, code) of every unmarked message in `source`."""
    lines = source.split("\n")
    out = []
    for node in message_nodes(ast.parse(source)):
        if not lines[node.lineno - 1].rstrip().endswith(_SKIP):
            out.append((node.lineno, ast.unparse(node)))
    return sorted(set(out))


def python_findings(root: Path, paths: list[str]) -> list[str]:
    out = []
    for pattern in paths:
        for path in sorted(root.glob(pattern)):
            for line, code in findings(path.read_text(encoding="utf-8")):
                out.append(f"{path.relative_to(root)}:{line}: {code}")
    return out
