"""Finds text in templates that users would see and that no translation marker covers.

What is left of a template once every marker, template tag, variable, comment, script and
HTML tag is removed is the text a user sees untranslated: a run of two Latin letters there is a
finding. Attributes users see (title, placeholder, aria-label, alt) and the literal strings
passed to {% include ... with %} are checked the same way (a single lowercase word there is a
key the included template compares, such as active="dashboard", not text). A template line ending in
`{# i18n: not text #}` is left out (for names such as a product name, or keys).
"""

from __future__ import annotations

import re
from pathlib import Path

LETTERS = re.compile(r"[A-Za-z]{2,}")
_SKIP_LINE = "{# i18n: not text #}"
_REMOVED = re.compile(
    r"{%\s*comment\s*%}.*?{%\s*endcomment\s*%}"
    r"|{%\s*verbatim\s*%}.*?{%\s*endverbatim\s*%}"
    r"|{%\s*blocktrans(?:late)?\b.*?{%\s*endblocktrans(?:late)?\s*%}"
    r"|<script\b.*?</script>|<style\b.*?</style>"
    r"|{#.*?#}|<!--.*?-->",
    re.S,
)
_TAG = re.compile(r"{%.*?%}", re.S)
_VAR = re.compile(r"{{.*?}}", re.S)
_HTML = re.compile(r"<[^>]*>", re.S)
_ATTR = re.compile(r'\s(?:title|placeholder|aria-label|alt)="([^"]*)"')
_INCLUDE_LITERAL = re.compile(r'\w+=("[^"]*"|\'[^\']*\')')
_ENTITY = re.compile(r"&[a-zA-Z]+;|&#\d+;")


def _blank(match: re.Match[str]) -> str:
    # Keep the newlines, so findings carry the template's line numbers.
    return "\n" * match.group(0).count("\n")


def _line_of(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


def findings(source: str) -> list[tuple[int, str]]:
    """(line, text) of every piece of visible English the template does not mark."""
    lines = source.split("\n")
    source = "\n".join("" if line.rstrip().endswith(_SKIP_LINE) else line for line in lines)
    text = _REMOVED.sub(_blank, source)
    found: list[tuple[int, str]] = []
    for tag in _TAG.finditer(text):
        if re.match(r"{%\s*include\b", tag.group(0)):
            for literal in _INCLUDE_LITERAL.finditer(tag.group(0)):
                value = literal.group(1)[1:-1]
                if LETTERS.search(value) and not re.fullmatch(r"[a-z_]+", value):
                    found.append((_line_of(text, tag.start()), literal.group(1)))
    text = _TAG.sub(lambda m: "\x00" + _blank(m), text)
    text = _VAR.sub(lambda m: "\x00" + _blank(m), text)
    for tag in _HTML.finditer(text):
        for attr in _ATTR.finditer(tag.group(0)):
            value = attr.group(1).replace("\x00", " ")
            if LETTERS.search(value):
                found.append((_line_of(text, tag.start()), value.strip()))
    text = _HTML.sub(lambda m: "\x00" + _blank(m), text)
    text = _ENTITY.sub(" ", text)
    for match in re.finditer(r"[^\x00\n]+", text):
        if LETTERS.search(match.group(0)):
            found.append((_line_of(text, match.start()), match.group(0).strip()))
    return found


def template_findings(root: Path) -> list[str]:
    out = []
    for path in sorted(root.rglob("*.html")) + sorted(root.rglob("*.txt")):
        for line, piece in findings(path.read_text(encoding="utf-8")):
            out.append(f"{path.relative_to(root)}:{line}: {piece}")
    return out
