"""Seed 004's format: ``label qid score`` per line (space- or tab-separated), read as a run and
a label source at once.

The lines have no document id: each line is its own document (DESIGN.md section 4). Everywhere
a run is ordered, equal scores are ordered by document id *descending*, while seed 004's
stable sort keeps equal scores in file order. So the id counts down with the line number,
``{qid}:{10**9 - line:09d}`` (line 1 -> ``q1:999999999``): of two tied lines the earlier one
has the larger id and comes first, with no special case anywhere else. The fixed width keeps
byte order equal to numeric order. The document's title and ``extra`` give the real line.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import connection
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from annotate.models import (
    Campaign,
    Document,
    LabelSource,
    Query,
    Run,
    RunEntry,
    SourceKind,
    SourceLabel,
)
from annotate.services.imports.common import (
    BATCH_SIZE,
    MAX_QUERY_ID,
    Fields,
    FileArg,
    ImportJob,
    ImportSummary,
    Progress,
    document_map,
    importing,
    insert_batch,
    query_map,
)
from annotate.services.imports.fastinsert import create_keyed, insert_rows
from annotate.services.imports.qrels import LABEL_COLUMNS, GradeCheck, open_source
from annotate.services.imports.runs import ENTRY_COLUMNS, open_run

SCORED_COLUMNS = "label qid score"
_COUNTDOWN = 10**9


def scored_document_id(qid: str, line: int) -> str:
    return f"{qid}:{_COUNTDOWN - line:09d}"


@dataclass(slots=True)
class _Row:
    line: int
    label: float
    qid: str
    score: float

    @property
    def docno(self) -> str:
        return scored_document_id(self.qid, self.line)


def import_scored(
    *,
    campaign: Campaign,
    file: FileArg,
    name: str,
    system: str | None = None,
    source_name: str | None = None,
    strict_scale: bool = True,
    replace: bool = False,
    filename: str | None = None,
    progress: Progress | None = None,
) -> ImportSummary:
    """Import a ``label qid score`` file as the run ``name`` (system ``system``, default
    ``name``) and the label source ``source_name`` (default ``name``), one document per line.

    Queries the campaign lacks are created with their id as text (the format has no query text;
    the summary says how many). Ranks are 1, 2, ... by score, highest first, ties in file order.
    ``strict_scale`` and ``replace`` work as in :func:`import_qrels` and :func:`import_run`.
    """
    noun = pgettext("import summary", "run entries with their labels")
    with importing(file, filename, kind="scored", noun=noun, progress=progress) as job:
        check = GradeCheck(campaign, strict=strict_scale, fields=job.fields)
        run = open_run(
            campaign=campaign,
            name=name,
            system_name=system or name,
            replace=replace,
            line=None,
            fields=job.fields,
            summary=job.summary,
        )
        source = open_source(
            campaign=campaign,
            name=source_name or name,
            kind=SourceKind.IMPORTED,
            replace=replace,
            fields=job.fields,
            summary=job.summary,
            params={
                "file": job.summary.path,
                "format": "label qid score",
                "any_grade": not strict_scale,
            },
        )
        _read(job, campaign, run, source, check)
        _assign_ranks(run)
        _queries_warning(job.summary)
    return job.summary


def _read(
    job: ImportJob, campaign: Campaign, run: Run, source: LabelSource, check: GradeCheck
) -> None:
    """Check each line and write its entry and label, in batches of ``BATCH_SIZE``."""
    fields, summary = job.fields, job.summary
    qmap, doc_map = query_map(campaign), document_map(campaign)
    rows: list[_Row] = []
    # Translated once, not per line.
    labels = (_("label"), _("query id"), _("score"))
    for line, text in job.lines:
        row = _row(line, text, check, fields, labels)
        if row is None:
            summary.skipped += 1
            continue
        rows.append(row)
        if len(rows) >= BATCH_SIZE:
            _write(campaign, run, source, rows, qmap, doc_map, summary)
            rows = []
    _write(campaign, run, source, rows, qmap, doc_map, summary)


def _queries_warning(summary: ImportSummary) -> None:
    if summary.queries_created:
        summary.warnings.append(
            _(
                "%(queries_created)s queries were not in the campaign and were created "
                "with their id as text: import a query file to give them their text"
            )
            % {"queries_created": format(summary.queries_created, ",")}
        )


def _row(
    line: int, text: str, check: GradeCheck, fields: Fields, labels: tuple[str, str, str]
) -> _Row | None:
    """A line's label, query id and score, checked; None for a blank line. `labels` name the
    three columns in errors (translated once per import: per line it was most of the time)."""
    cols = text.split()
    if not cols:
        return None
    if len(cols) != 3:
        message = (
            _("too few columns: expected 3 (%(columns)s), found %(n)s")
            if len(cols) < 3
            else _("too many columns: expected 3 (%(columns)s), found %(n)s")
        )
        raise fields.fail(line, message % {"columns": SCORED_COLUMNS, "n": len(cols)})
    if line >= _COUNTDOWN:
        raise fields.fail(
            line,
            _("a file in this format may have at most %(n)s lines")
            % {"n": format(_COUNTDOWN - 1, ",")},
        )
    label = check(cols[0], line, labels[0])
    qid = fields.ident(cols[1], line, labels[1], MAX_QUERY_ID)
    return _Row(line, label, qid, fields.number(cols[2], line, labels[2]))


def _write(campaign, run, source, rows, qmap, doc_map, summary: ImportSummary) -> None:
    if not rows:
        return
    new_queries = [
        Query(campaign=campaign, external_id=qid, text=qid)
        for qid in dict.fromkeys(r.qid for r in rows)
        if qid not in qmap
    ]
    qmap.update(create_keyed(Query, new_queries))
    summary.queries_created += len(new_queries)
    # Placeholders, as the lines have no content, but with a title that says where they are from.
    new_docs = [
        Document(
            campaign=campaign,
            external_id=r.docno,
            title=f"{r.qid}, line {r.line}",
            extra={"file": summary.path, "line": r.line},
            is_placeholder=True,
        )
        for r in rows
        if r.docno not in doc_map
    ]
    doc_map.update(create_keyed(Document, new_docs))
    summary.placeholders += len(new_docs)
    entries, labels = [], []
    for r in rows:
        query_id, document_id = qmap[r.qid], doc_map[r.docno]
        # Ranks are set once every line is in (_assign_ranks): a query's lines may be anywhere.
        entries.append((run.pk, query_id, document_id, 0, r.score))
        labels.append((source.pk, query_id, document_id, r.label))
    # Each line has its own document, so neither insert can meet a duplicate.
    insert_batch(lambda: insert_rows(RunEntry, ENTRY_COLUMNS, entries), lambda: None)
    insert_batch(lambda: insert_rows(SourceLabel, LABEL_COLUMNS, labels), lambda: None)
    summary.created += len(rows)


def _assign_ranks(run: Run) -> None:
    """Rank = position by score descending, then document id descending (DESIGN.md section 4),
    computed by the database in one statement so that a big file is never held in memory.
    PostgreSQL compares with the "C" collation to get byte order, as SQLite does by default."""
    q = connection.ops.quote_name
    entry, doc = q(RunEntry._meta.db_table), q(Document._meta.db_table)
    collate = ' COLLATE "C"' if connection.vendor == "postgresql" else ""
    sql = (
        f"UPDATE {entry} SET {q('rank')} = ranked.rn FROM ("
        f" SELECT e.id AS id, ROW_NUMBER() OVER (PARTITION BY e.query_id"
        f" ORDER BY e.score DESC, d.external_id{collate} DESC) AS rn"
        f" FROM {entry} e JOIN {doc} d ON d.id = e.document_id WHERE e.run_id = %s"
        f") AS ranked WHERE {entry}.id = ranked.id"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [run.pk])
