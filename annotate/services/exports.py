"""Exports: TREC qrels (aggregated grades or an imported label source), and the raw grades and
verdicts as CSV or JSONL.

Everything is produced by generators of text chunks, so the web streams it and a command writes
it as it comes: a million rows never sit in memory as rows, and qrels are aggregated as the
grades are read in the lines' order (annotate.services.aggregation.qrels_stream).

A qrels body has no comment line, because trec_eval does not accept one: the rule that made the
labels travels beside it (the HTTP headers and the file name on the web, standard error for
the command).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from urllib.parse import quote

from django.db.models import CharField, Value
from django.utils.text import slugify

from annotate import safecsv
from annotate.models import Campaign, Grade, LabelSource, Verdict
from annotate.selectors.real import excluded_raters, real_grades, real_verdicts
from annotate.services.aggregation import QrelsStream, qrels_stream, source_qrels_stream

FORMATS = ("csv", "jsonl")
_CHUNK = 5000
_LINES_PER_CHUNK = 1000  # lines joined per yielded piece of text

GRADE_FIELDS = [
    "campaign",
    "query_id",
    "doc_id",
    "rater",
    "label",
    "grade",
    "cant_judge",
    "seconds",
    "comment",
    "created",
    "changed",
]
VERDICT_FIELDS = [
    "campaign",
    "comparison",
    "query_id",
    "position",
    "rater",
    "verdict",
    "candidate_side",
    "strength",
    "reason",
    "seconds",
    "created",
    "changed",
]


@dataclass(frozen=True)
class Export:
    """A ready-to-stream export: its text in chunks, and what to call it and say about it."""

    filename: str
    content_type: str
    chunks: Iterator[str]
    note: str = ""
    headers: dict[str, str] = field(default_factory=dict)


def round_half_up(value: float) -> int:
    """Whole grade, halves rounded up (2.5 -> 3, 1.5 -> 2, 0.5 -> 1, -0.5 -> 0), unlike
    Python's round() which rounds halves to even. Same as floor(x + 0.5), but the fraction is
    taken exactly, so 0.49999999999999994 stays 0 (x + 0.5 would round up to 1.0 first)."""
    whole = math.floor(value)
    return whole + 1 if value - whole >= 0.5 else whole


def format_real(value: float) -> str:
    """The shortest text that reads back as exactly this float (repr); whole values without
    ".0", so integer-only readers accept them."""
    return str(int(value)) if value.is_integer() else repr(value)


def format_grade(value: float, *, real: bool) -> str:
    return format_real(value) if real else str(round_half_up(value))


def qrels_lines(table: QrelsStream, *, real: bool = False) -> Iterator[str]:
    """TREC qrels lines, `qid 0 docno grade`."""
    for qid, docno, grade, _ in table.rows():
        yield f"{qid} 0 {docno} {format_grade(grade, real=real)}\n"


def export_qrels(
    *,
    campaign: Campaign,
    rule: str | None = None,
    source_name: str | None = None,
    real: bool = False,
) -> Export:
    """The campaign's qrels: its raters' grades aggregated by `rule` (default: the campaign's),
    or the labels of the imported source `source_name`. Whole grades, rounded half up, unless
    `real`. Raises ValueError for an unknown rule or source, or for both at once."""
    if rule and source_name:
        raise ValueError("ask for an aggregation rule or a label source, not both")
    if source_name:
        try:
            source = campaign.label_sources.get(name=source_name)
        except LabelSource.DoesNotExist:
            known = ", ".join(campaign.label_sources.values_list("name", flat=True)) or "none"
            raise ValueError(f"no label source {source_name!r} (sources: {known})") from None
        table = source_qrels_stream(source=source)
        stem = f"source-{slugify(source_name) or source.pk}"
    else:
        table = qrels_stream(campaign=campaign, rule=rule)
        stem = table.rule
    rounding = "real grades" if real else "whole grades, rounded half up"
    headers = {
        "X-Aggregation": table.rule,
        "X-Aggregation-Note": table.note,
        "X-Grades": rounding,
    }
    if table.source is not None:
        headers["X-Label-Source"] = quote(table.source)
    note = f"qrels of {campaign.slug}: " + (
        f"label source {table.source!r}" if table.source else f"aggregation={table.rule}"
    )
    return Export(
        filename=f"{campaign.slug}-qrels-{stem}{'-real' if real else ''}.txt",
        content_type="text/plain; charset=utf-8",
        chunks=_joined(qrels_lines(table, real=real)),
        note=f"{note} ({table.note}); {rounding}; {len(table)} lines",
        headers=headers,
    )


def grade_rows(*, campaign: Campaign) -> Iterator[tuple]:
    """Every grade of the campaign's real work (answers to gold have their own export,
    annotate/services/gold_exports.py; excluded raters' are left out), can't-judge answers
    included, as tuples in GRADE_FIELDS order (None for a missing value)."""
    rows = (
        real_grades(Grade.objects.filter(pool_item__campaign=campaign), campaign)
        .order_by(
            "pool_item__query__external_id",
            "pool_item__document__external_id",
            "rater__username",
            "pk",
        )
        .values_list(
            Value(campaign.slug, output_field=CharField()),
            "pool_item__query__external_id",
            "pool_item__document__external_id",
            "rater__username",
            "label__name",
            "label__grade",
            "cant_judge",
            "seconds",
            "comment",
            "created_at",
            "changed_at",
        )
    )
    return rows.iterator(chunk_size=_CHUNK)


def verdict_rows(*, campaign: Campaign) -> Iterator[tuple]:
    """Every side-by-side verdict of the campaign as tuples in VERDICT_FIELDS order. `verdict`
    is for the candidate (G: better, S: same, B: worse); `candidate_side` is where it was
    shown; `position` is empty for a whole-list comparison. Real work only (real_verdicts)."""
    rows = (
        real_verdicts(
            Verdict.objects.filter(task__comparison__campaign=campaign, cant_judge=False),
            campaign,
        )
        .order_by(
            "task__comparison__name",
            "task__query__external_id",
            "task__position",
            "rater__username",
            "pk",
        )
        .values_list(
            Value(campaign.slug, output_field=CharField()),
            "task__comparison__name",
            "task__query__external_id",
            "task__position",
            "rater__username",
            "value",
            "candidate_side",
            "strength",
            "reason",
            "seconds",
            "created_at",
            "changed_at",
        )
    )
    return rows.iterator(chunk_size=_CHUNK)


def export_grades(*, campaign: Campaign, fmt: str = "csv") -> Export:
    return _records_export(
        campaign=campaign,
        kind="grades",
        fmt=fmt,
        fields=GRADE_FIELDS,
        rows=grade_rows(campaign=campaign),
    )


def export_verdicts(*, campaign: Campaign, fmt: str = "csv") -> Export:
    return _records_export(
        campaign=campaign,
        kind="verdicts",
        fmt=fmt,
        fields=VERDICT_FIELDS,
        rows=verdict_rows(campaign=campaign),
    )


def _records_export(
    *, campaign: Campaign, kind: str, fmt: str, fields: Sequence[str], rows: Iterator[tuple]
) -> Export:
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}: use csv or jsonl")
    writer: Callable[[Sequence[str], Iterable[tuple]], Iterator[str]]
    writer, content_type = (
        (csv_lines, "text/csv; charset=utf-8")
        if fmt == "csv"
        else (jsonl_lines, "application/x-ndjson; charset=utf-8")
    )
    note, headers = f"{kind} of {campaign.slug} as {fmt}", {}
    if excluded := excluded_raters(campaign).count():
        note += f"; the answers of {excluded} excluded rater(s) left out"
        headers["X-Excluded-Raters"] = str(excluded)
    return Export(
        filename=f"{campaign.slug}-{kind}.{fmt}",
        content_type=content_type,
        chunks=_joined(writer(fields, rows)),
        note=note,
        headers=headers,
    )


class _Line:
    """A file-like object whose write() hands back the text, so csv.writer makes one line
    at a time without a buffer."""

    def write(self, text: str) -> str:
        return text


def csv_lines(fields: Sequence[str], rows: Iterable[tuple]) -> Iterator[str]:
    """A header row, then one row per tuple. Empty cell for a missing value, true/false for
    flags, the exact shortest text for real numbers ("3" for 3.0), ISO 8601 for times."""
    # The project's one CSV writer (annotate.safecsv): text is neutralised against spreadsheet
    # formulas; the converted values are numbers, true/false or times, which stay as they are.
    writer = safecsv.writer(_Line())
    yield writer.writerow(fields)
    # csv.writer already writes None as an empty cell and str and int as they are; only
    # these types need a conversion, decided per value by an exact type lookup (cheap).
    convert = {bool: _csv_bool, float: format_real, datetime: datetime.isoformat}
    for row in rows:
        yield writer.writerow([convert[type(v)](v) if type(v) in convert else v for v in row])


def jsonl_lines(fields: Sequence[str], rows: Iterable[tuple]) -> Iterator[str]:
    """One JSON object per line (null for a missing value, ISO 8601 for times)."""
    for row in rows:
        record = {
            f: v.isoformat() if type(v) is datetime else v for f, v in zip(fields, row, strict=True)
        }
        yield json.dumps(record, ensure_ascii=False) + "\n"


def _csv_bool(value: bool) -> str:
    return "true" if value else "false"


def _joined(lines: Iterator[str]) -> Iterator[str]:
    """Lines gathered into larger pieces: fewer writes and fewer chunks on the wire."""
    batch: list[str] = []
    for line in lines:
        batch.append(line)
        if len(batch) == _LINES_PER_CHUNK:
            yield "".join(batch)
            batch = []
    if batch:
        yield "".join(batch)
