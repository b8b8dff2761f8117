"""TREC qrels (``qid iter docno grade``) stored as a named label source."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from annotate import inputs
from annotate.models import Campaign, LabelSource, SourceKind, SourceLabel
from annotate.services.imports.common import (
    BATCH_SIZE,
    MAX_DOCUMENT_ID,
    Fields,
    FileArg,
    ImportFailed,
    ImportJob,
    ImportSummary,
    Progress,
    create_placeholders,
    document_map,
    importing,
    insert_batch,
    placeholder_warning,
    query_map,
)
from annotate.services.imports.fastinsert import insert_rows

QRELS_COLUMNS = "qid iter docno grade"
LABEL_COLUMNS = ("source_id", "query_id", "document_id", "grade")


class GradeCheck:
    """Whether a grade may be stored. With ``strict`` only the grades of the campaign's label
    scale pass, plus negative ones, which in trec_eval's qrels mean "pooled but not judged"
    rather than a label. Without it any finite grade passes (real-valued or another team's
    scale, e.g. 0-4)."""

    def __init__(self, campaign: Campaign, *, strict: bool, fields: Fields) -> None:
        self.strict = strict
        self.fields = fields
        self.grades = set(campaign.labels.values_list("grade", flat=True))
        self.shown = ", ".join(f"{g:g}" for g in sorted(self.grades))
        # Translated once, not per line (gettext per line was most of a run import's time).
        self.grade_label = _("grade")

    def __call__(self, text: str, line: int, what: str | None = None) -> float:
        what = what or self.grade_label
        grade = self.fields.number(text, line, what)
        bound = inputs.limit("grade_abs")
        if abs(grade) > bound:
            # The exponential gain 2^grade - 1 overflows a float from 1024 on: every score
            # page would fail. No scale comes near the bound.
            raise self.fields.fail(
                line,
                _("%(what)s %(text)s is outside -%(bound)s..%(bound)s")
                % {"what": what, "text": text, "bound": format(bound, ",")},
            )
        if self.strict and grade >= 0 and grade not in self.grades:
            raise self.fields.fail(
                line,
                _(
                    "%(what)s %(text)s is not on the label scale (%(shown)s); a negative "
                    "grade means pooled but not judged; to keep other grades, import with "
                    "--any-grade"
                )
                % {"what": what, "text": text, "shown": self.shown},
            )
        return grade


def open_source(
    *,
    campaign: Campaign,
    name: str,
    kind: str,
    replace: bool,
    fields: Fields,
    summary: ImportSummary,
    params: dict,
) -> LabelSource:
    """A new label source, or (``replace``) an existing one emptied in place, so what points at
    it survives; the import's transaction restores its labels if the file then fails."""
    fields.name(name, None, _("label source name"))
    if kind not in SourceKind.values:
        raise fields.fail(
            None,
            _("unknown label source kind %(kind)s: use %(names)s")
            % {"kind": repr(kind), "names": ", ".join(SourceKind.values)},
        )
    source = LabelSource.objects.filter(campaign=campaign, name=name).first()
    if source is not None and not replace:
        raise fields.fail(
            None,
            _(
                "label source %(name)s already exists in this campaign: give another "
                "name, or replace it (--replace)"
            )
            % {"name": repr(name)},
        )
    if source is None:
        source = LabelSource.objects.create(campaign=campaign, name=name, kind=kind, params=params)
    else:
        SourceLabel.objects.filter(source=source).delete()
        source.kind, source.params = kind, params
        source.save(update_fields=["kind", "params"])
        summary.warnings.append(_("label source %(name)s replaced") % {"name": repr(name)})
    summary.source = name
    return source


@dataclass(slots=True)
class _Row:
    line: int
    qid: str
    query_id: int
    docno: str
    grade: float


def import_qrels(
    *,
    campaign: Campaign,
    file: FileArg,
    source_name: str,
    name: str | None = None,
    kind: str = SourceKind.IMPORTED,
    strict_scale: bool = True,
    replace: bool = False,
    progress: Progress | None = None,
) -> ImportSummary:
    """Import TREC qrels as the label source ``source_name``.

    Grades may be whole or real; negative means pooled but not judged (trec_eval). Queries must
    exist; unknown documents become placeholders; a (query, document) pair twice is an error.
    ``strict_scale`` (the default) refuses a grade the campaign's label scale does not have, so
    labels meant to be on the campaign's scale cannot silently be off it; pass False (command
    line ``--any-grade``) for another team's scale or real-valued qrels. ``name`` is the file's
    name in messages (default: the path). ``replace=True`` replaces a source of that name.
    """
    noun = pgettext("import summary", "labels")
    with importing(file, name, kind="qrels", noun=noun, progress=progress) as job:
        summary = job.summary
        check = GradeCheck(campaign, strict=strict_scale, fields=job.fields)
        source = open_source(
            campaign=campaign,
            name=source_name,
            kind=kind,
            replace=replace,
            fields=job.fields,
            summary=summary,
            params={"file": summary.path, "any_grade": not strict_scale},
        )
        _read(job, campaign, source, check)
        if not summary.created:
            summary.warnings.append(
                _("the file has no qrels lines: label source %(source_name)s is empty")
                % {"source_name": repr(source_name)}
            )
        placeholder_warning(summary)
    return summary


def _read(job: ImportJob, campaign: Campaign, source: LabelSource, check: GradeCheck) -> None:
    """Check each line and write the labels in batches of ``BATCH_SIZE``."""
    fields, summary = job.fields, job.summary
    qmap, doc_map = query_map(campaign), document_map(campaign)
    rows: list[_Row] = []
    doc_label = _("document id")
    for line, text in job.lines:
        cols = text.split()
        if not cols:
            summary.skipped += 1
            continue
        if len(cols) != 4:
            message = (
                _("too few columns: expected 4 (%(columns)s), found %(n)s")
                if len(cols) < 4
                else _("too many columns: expected 4 (%(columns)s), found %(n)s")
            )
            raise fields.fail(line, message % {"columns": QRELS_COLUMNS, "n": len(cols)})
        qid, _iter, docno, grade_text = cols
        fields.ident(docno, line, doc_label, MAX_DOCUMENT_ID)
        grade = check(grade_text, line)
        query_id = qmap.get(qid)
        if query_id is None:
            raise fields.unknown_query(line, qid)
        rows.append(_Row(line, qid, query_id, docno, grade))
        if len(rows) >= BATCH_SIZE:
            _write(campaign, source, rows, doc_map, fields, summary)
            rows = []
    _write(campaign, source, rows, doc_map, fields, summary)


def _write(
    campaign: Campaign,
    source: LabelSource,
    rows: list[_Row],
    doc_map: dict[str, int],
    fields: Fields,
    summary: ImportSummary,
) -> None:
    if not rows:
        return
    summary.placeholders += create_placeholders(campaign, doc_map, (r.docno for r in rows))
    values = [(source.pk, r.query_id, doc_map[r.docno], r.grade) for r in rows]
    insert_batch(
        lambda: insert_rows(SourceLabel, LABEL_COLUMNS, values),
        lambda: _find_duplicate(source, rows, doc_map, fields),
    )
    summary.created += len(values)


def _find_duplicate(
    source: LabelSource, rows: list[_Row], doc_map: dict[str, int], fields: Fields
) -> ImportFailed | None:
    stored = set(
        SourceLabel.objects.filter(
            source=source, query_id__in={r.query_id for r in rows}
        ).values_list("query_id", "document_id")
    )
    seen: dict[tuple[int, int], int] = {}
    for r in rows:
        key = (r.query_id, doc_map[r.docno])
        if key in seen or key in stored:
            where = f"line {seen[key]}" if key in seen else "an earlier line"
            return fields.fail(
                r.line, f"query {r.qid!r} and document {r.docno!r} already have a grade at {where}"
            )
        seen[key] = r.line
    return None
