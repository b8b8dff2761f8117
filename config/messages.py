"""Compile the translation catalogues (locale/*/LC_MESSAGES/*.po -> .mo) without GNU gettext.

`make run` and `make test` must work on a machine with Python and nothing else: Django's
`compilemessages` needs gettext's `msgfmt`, so the Makefile uses it when present and this
(Babel's reader and writer, pure Python) otherwise. Usage: python -m config.messages
"""

from __future__ import annotations

import sys
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

LOCALE = Path(__file__).resolve().parents[1] / "locale"


def compile_catalogues(root: Path = LOCALE) -> list[Path]:
    """Write the .mo beside every .po under `root` that is newer than it; returns those."""
    written = []
    for po in sorted(root.glob("*/LC_MESSAGES/*.po")):
        mo = po.with_suffix(".mo")
        if mo.exists() and mo.stat().st_mtime >= po.stat().st_mtime:
            continue
        with po.open("rb") as source:
            catalog = read_po(source, locale=po.parts[-3])
        with mo.open("wb") as target:
            write_mo(target, catalog)
        written.append(mo)
    return written


if __name__ == "__main__":
    for path in compile_catalogues():
        print(f"compiled {path.relative_to(LOCALE.parent)}", file=sys.stderr)
