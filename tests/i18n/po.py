"""A small reader of gettext .po files (polib is not a dependency): enough to find entries
that are untranslated or fuzzy."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

_KEYWORD = re.compile(r'^(msgctxt|msgid_plural|msgid|msgstr(?:\[\d+\])?)\s+(".*")$')


@dataclass
class Entry:
    line: int
    msgid: str = ""
    msgid_plural: str = ""
    msgstr: list[str] = field(default_factory=list)
    fuzzy: bool = False


def read_po(path: Path) -> list[Entry]:
    """The entries of a .po file; obsolete ones (#~) are left out."""
    entries: list[Entry] = []
    current: Entry | None = None
    key = ""
    fuzzy = False
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = raw.strip()
        if line.startswith("#,"):
            fuzzy = "fuzzy" in line
            continue
        if not line or line.startswith("#"):
            continue
        match = _KEYWORD.match(line)
        if match:
            key, text = match.group(1), ast.literal_eval(match.group(2))
            if key in ("msgctxt", "msgid") and (current is None or current.msgstr):
                current = Entry(line=number, fuzzy=fuzzy)
                entries.append(current)
                fuzzy = False
            assert current is not None
            _add(current, key, text)
        elif line.startswith('"') and current is not None:
            _add(current, key, ast.literal_eval(line), more=True)
    return entries


def _add(entry: Entry, key: str, text: str, more: bool = False) -> None:
    if key == "msgid":
        entry.msgid += text
    elif key == "msgid_plural":
        entry.msgid_plural += text
    elif key.startswith("msgstr"):
        if more:
            entry.msgstr[-1] += text
        else:
            entry.msgstr.append(text)
