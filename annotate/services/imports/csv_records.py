"""The CSV files of the imports that take a header (the two gold imports): each line as a
record keyed by the header's lower-cased names, with the header and field-count errors named
by line as every import names them."""

from __future__ import annotations

import csv
from collections.abc import Iterable, Iterator, Sequence

from django.utils.translation import gettext as _

from annotate.services.imports.common import Fields


def header_names(header: str, required: Sequence[str], line: int, fields: Fields) -> list[str]:
    """The header's column names; refused, naming ``line``, if a required one is missing."""
    names = [name.strip().casefold() for name in _row(header, line, fields)]
    missing = [name for name in required if name not in names]
    if missing:
        raise fields.fail(
            line, _("the header lacks the columns: %(names)s") % {"names": ", ".join(missing)}
        )
    return names


def records(
    names: list[str], lines: Iterable[tuple[int, str]], fields: Fields
) -> Iterator[tuple[int, dict[str, str]]]:
    """(line number, {column: text}) for every line that is not blank."""
    for line, text in lines:
        if not text.strip():
            continue
        row = _row(text, line, fields)
        if len(row) != len(names):
            raise fields.fail(
                line,
                _("expected %(n)s fields as in the header, found %(found)s")
                % {"n": len(names), "found": len(row)},
            )
        yield line, dict(zip(names, row, strict=True))


def _row(text: str, line: int, fields: Fields) -> list[str]:
    """One line's fields. A CR inside a line or a field over the csv module's size limit is
    csv.Error, which is the file's fault: refused naming the line, never a 500."""
    try:
        return next(csv.reader([text]), [])
    except csv.Error as exc:
        raise fields.fail(line, _("bad CSV (%(exc)s)") % {"exc": exc}) from None
