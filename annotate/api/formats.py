"""Output formats beside JSON: CSV for every table, TREC text for qrels, and streamed bodies for
the lists too large to build in memory.

``?format=csv`` (or ``Accept: text/csv``) asks for CSV. A list answers with its rows; another
answer with the table the view names in ``csv_key`` (``"systems"`` for scores, and so on).
Nested values are flattened to dotted column names (``values.map.mean``), so one CSV header
says what every number is.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterable, Iterator, Sequence

from django.db.models import CharField, Func
from django.http import StreamingHttpResponse
from django.utils.http import content_disposition_header
from django.utils.translation import gettext as _
from rest_framework.renderers import BaseRenderer

from annotate import safecsv
from annotate.services.exports import csv_lines

CSV_CONTENT_TYPE = "text/csv; charset=utf-8"
_LINES_PER_CHUNK = 1000
# Every row of a CSV answer has every column any row has. Documents may each carry up to 100
# extra keys of their own, so a page of 5,000 could ask for 500,000 columns in each of 5,000
# rows, all in memory: past this many the answer is a 400 instead.
MAX_CSV_COLUMNS = 1000


class TooManyColumns(ValueError):
    pass


class IsoTime(Func):
    """A UTC time as ISO 8601 text, made by the database (2026-11-22T11:53:52.123456+00:00).

    Streams of a million rows spend most of their time turning timestamps into Python
    datetimes (the driver's and Django's time-zone loaders) and back into text; the database
    writes the text directly instead, several times faster."""

    output_field = CharField()

    def as_postgresql(self, compiler, connection, **extra):
        return self.as_sql(
            compiler,
            connection,
            template="to_char(%(expressions)s AT TIME ZONE 'UTC', "
            '\'YYYY-MM-DD"T"HH24:MI:SS.US"+00:00"\')',
            **extra,
        )

    def as_sqlite(self, compiler, connection, **extra):
        # SQLite keeps UTC times as text, "2026-11-22 11:53:52.123456".
        return self.as_sql(
            compiler,
            connection,
            template="replace(%(expressions)s, ' ', 'T') || '+00:00'",
            **extra,
        )


class CSVRenderer(BaseRenderer):
    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None) -> bytes:
        view = (renderer_context or {}).get("view")
        rows = table_of(data, getattr(view, "csv_key", "results"))
        try:
            return rows_to_csv(rows, MAX_CSV_COLUMNS).encode("utf-8")
        except TooManyColumns as exc:
            # The view has answered by now, so its exception handler is past: the renderer
            # turns its own answer into the API's usual JSON 400.
            response = (renderer_context or {}).get("response")
            if response is None:
                raise
            response.status_code = 400
            response["Content-Type"] = "application/json"
            return json.dumps({"detail": str(exc)}, ensure_ascii=False).encode("utf-8")


class TrecRenderer(BaseRenderer):
    """TREC qrels as text; only the qrels view uses it, and it streams its own body."""

    media_type = "text/plain"
    format = "trec"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None) -> bytes:
        return data if isinstance(data, bytes) else str(data).encode("utf-8")


def table_of(data, key: str) -> list[dict]:
    if isinstance(data, list):
        return data
    if isinstance(data, dict):
        if isinstance(data.get(key), list):
            return data[key]
        return [data]
    return []


def flatten(row: dict, prefix: str = "") -> dict:
    out: dict = {}
    for name, value in row.items():
        column = f"{prefix}{name}"
        if isinstance(value, dict):
            out.update(flatten(value, f"{column}."))
        elif isinstance(value, list):
            out[column] = json.dumps(value, ensure_ascii=False)
        else:
            out[column] = value
    return out


def rows_to_csv(rows: Sequence[dict], max_columns: int = MAX_CSV_COLUMNS) -> str:
    """The rows as CSV under one header: every column any row has, in first-seen order.
    TooManyColumns past ``max_columns``, found before any row is written out."""
    flat = [flatten(dict(row)) for row in rows]
    # A dict keeps the first-seen order and answers "seen?" in constant time; a list made
    # this quadratic in the number of columns (a document with 10^6 extra keys took minutes).
    columns: dict[str, None] = {}
    for row in flat:
        columns.update(dict.fromkeys(row))
        if len(columns) > max_columns:
            raise TooManyColumns(
                _(
                    "This table would have more than %(n)s CSV columns (its rows' fields "
                    "differ): ask for JSON, or for fewer rows with page_size."
                )
                % {"n": f"{max_columns:,}"}
            )
    header = list(columns)
    buffer = io.StringIO()
    writer = safecsv.writer(buffer)
    writer.writerow(header)
    for row in flat:
        writer.writerow([_cell(row.get(column)) for column in header])
    return buffer.getvalue()


def _cell(value) -> object:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return value


def joined(lines: Iterable[str]) -> Iterator[str]:
    """Lines gathered into larger pieces: fewer writes and fewer chunks on the wire."""
    batch: list[str] = []
    for line in lines:
        batch.append(line)
        if len(batch) == _LINES_PER_CHUNK:
            yield "".join(batch)
            batch = []
    if batch:
        yield "".join(batch)


def streamed(
    chunks: Iterable[str], *, content_type: str, filename: str, headers: dict | None = None
) -> StreamingHttpResponse:
    return StreamingHttpResponse(
        chunks,
        content_type=content_type,
        headers={
            "Content-Disposition": content_disposition_header(False, filename),
            **(headers or {}),
        },
    )


def streamed_csv(fields: Sequence[str], rows: Iterable[tuple], *, filename: str):
    """A CSV body made row by row from tuples (the exports' converters: empty for None,
    true/false, shortest exact floats, ISO 8601 times)."""
    return streamed(
        joined(csv_lines(fields, rows)), content_type=CSV_CONTENT_TYPE, filename=filename
    )


def wants_csv(request) -> bool:
    renderer = getattr(request, "accepted_renderer", None)
    return getattr(renderer, "format", None) == "csv"
