"""The one CSV writer of the project: every CSV the app, its API and its commands write goes
through here, so no cell can run as a formula when the file is opened in a spreadsheet.

OWASP's advice on CSV injection: a text cell that starts with ``=``, ``+``, ``-``, ``@``, a tab
or a carriage return is read as a formula by Excel, LibreOffice and Google Sheets, so such a cell
gets a leading apostrophe (``'=1+1``), which the spreadsheet shows as text. Numbers stay
numbers: a cell that is a number (an int or float, or text that is exactly a decimal number such
as ``-0.25`` or ``1e-05``) is written as it is, so scores read back unchanged.

No Django import: the command-line evaluator (``python -m metrics``) uses it too.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable, Iterator
from typing import Any

FORMULA_STARTS = frozenset("=+-@\t\r")
# The UTF-8 byte-order mark, written first when asked for: Excel on Windows (on Chinese Windows
# above all) reads a CSV as the system's code page without it, and shows the text as mojibake.
BOM = "\ufeff"
_NUMBER = re.compile(r"[-+]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|inf|nan)", re.IGNORECASE)


def safe_cell(value: Any) -> Any:
    """``value`` with a leading apostrophe when it is text a spreadsheet would run."""
    if (
        isinstance(value, str)
        and value
        and value[0] in FORMULA_STARTS
        and not _NUMBER.fullmatch(value)
    ):
        return "'" + value
    return value


def safe_row(row: Iterable[Any]) -> list[Any]:
    return [safe_cell(value) for value in row]


class SafeWriter:
    """``csv.writer`` with every cell passed through :func:`safe_cell`."""

    def __init__(self, file: Any, **kwargs: Any) -> None:
        self._writer = csv.writer(file, **kwargs)

    def writerow(self, row: Iterable[Any]) -> Any:
        return self._writer.writerow(safe_row(row))

    def writerows(self, rows: Iterable[Iterable[Any]]) -> None:
        for row in rows:
            self._writer.writerow(safe_row(row))


def with_bom(chunks: Iterable[str], bom: bool) -> Iterator[str]:
    """The text of a CSV, led by the byte-order mark when `bom`."""
    if bom:
        yield BOM
    yield from chunks


def writer(file: Any, **kwargs: Any) -> SafeWriter:
    """A CSV writer on ``file`` (same arguments as ``csv.writer``) that neutralises formulas."""
    return SafeWriter(file, **kwargs)
