"""TREC runs: ``qid Q0 docno rank score tag``, one run per file or one per tag."""

from __future__ import annotations

from dataclasses import dataclass

from annotate.models import Campaign, Run, RunEntry, System
from annotate.services.imports.common import (
    BATCH_SIZE,
    MAX_DOCUMENT_ID,
    Fields,
    FileArg,
    ImportFailed,
    ImportSummary,
    LineSource,
    Progress,
    atomic_import,
    create_placeholders,
    display_name,
    document_map,
    insert_batch,
    query_map,
)
from annotate.services.imports.fastinsert import insert_rows

RUN_COLUMNS = "qid Q0 docno rank score tag"
ENTRY_COLUMNS = ("run_id", "query_id", "document_id", "rank", "score")


@dataclass(slots=True)
class EntryRow:
    """One parsed line waiting for its batch: the document is resolved (or made a placeholder)
    when the batch is written."""

    line: int
    run: Run
    qid: str
    query_id: int
    docno: str
    rank: int
    score: float | None


def open_run(
    *,
    campaign: Campaign,
    name: str,
    system_name: str,
    replace: bool,
    line: int | None,
    fields: Fields,
    summary: ImportSummary,
) -> Run:
    """The run to fill: a new one, or (``replace``) an existing one emptied in place. Keeping
    the row keeps the side-by-side comparisons that point at it; the whole import is one
    transaction, so a failure later in the file restores the old entries."""
    fields.name(name, line, "run name")
    fields.name(system_name, line, "system name")
    system, created = System.objects.get_or_create(campaign=campaign, name=system_name)
    if created:
        summary.systems_created.append(system_name)
    run = Run.objects.filter(campaign=campaign, name=name).first()
    if run is not None and not replace:
        raise fields.fail(
            line,
            f"run {name!r} already exists in this campaign: give another name, "
            "or replace it (--replace)",
        )
    if run is None:
        run = Run.objects.create(
            campaign=campaign, system=system, name=name, source_file=summary.path[:300]
        )
    else:
        RunEntry.objects.filter(run=run).delete()
        run.system, run.source_file = system, summary.path[:300]
        run.entries_version += 1
        run.save(update_fields=["system", "source_file", "entries_version"])
        summary.warnings.append(f"run {name!r} replaced")
    summary.runs.append(name)
    return run


def write_entries(
    campaign: Campaign,
    rows: list[EntryRow],
    doc_map: dict[str, int],
    fields: Fields,
    summary: ImportSummary,
) -> None:
    """Insert one batch of run entries, making placeholders for documents the map lacks."""
    if not rows:
        return
    summary.placeholders += create_placeholders(campaign, doc_map, (r.docno for r in rows))
    values = [(r.run.pk, r.query_id, doc_map[r.docno], r.rank, r.score) for r in rows]
    insert_batch(
        lambda: insert_rows(RunEntry, ENTRY_COLUMNS, values),
        lambda: _find_duplicate(rows, doc_map, fields),
    )
    summary.created += len(values)


def _find_duplicate(
    rows: list[EntryRow], doc_map: dict[str, int], fields: Fields
) -> ImportFailed | None:
    """The first line of a refused batch whose document is already in its query's list: earlier
    in the batch, or stored by an earlier batch (those were accepted, so this line is the
    file's first repeat)."""
    stored = set(
        RunEntry.objects.filter(
            run_id__in={r.run.pk for r in rows}, query_id__in={r.query_id for r in rows}
        ).values_list("run_id", "query_id", "document_id")
    )
    seen: dict[tuple[int, int, int], int] = {}
    for r in rows:
        key = (r.run.pk, r.query_id, doc_map[r.docno])
        if key in seen or key in stored:
            where = f"line {seen[key]}" if key in seen else "an earlier line"
            return fields.fail(
                r.line,
                f"document {r.docno!r} is listed twice for query {r.qid!r} in run "
                f"{r.run.name!r} (first at {where})",
            )
        seen[key] = r.line
    return None


def placeholder_warning(summary: ImportSummary) -> None:
    if summary.placeholders:
        summary.warnings.append(
            f"{summary.placeholders:,} documents were not in the campaign and were created as "
            "placeholders (known by id only): import their documents to show them to raters"
        )


def import_run(
    *,
    campaign: Campaign,
    file: FileArg,
    name: str | None = None,
    system: str | None = None,
    per_tag: bool = False,
    replace: bool = False,
    filename: str | None = None,
    progress: Progress | None = None,
) -> ImportSummary:
    """Import a TREC run file (``qid Q0 docno rank score tag``, whitespace-separated).

    One run per file by default: it is named ``name`` (default: the tag of the first line) and
    belongs to the system ``system`` (default: that tag; created if new). Without ``name`` every
    line must carry the same tag. ``per_tag=True`` makes one run and one system per tag.
    Queries must exist; documents the campaign does not know become placeholders. A run name the
    campaign already has is an error unless ``replace=True``, which swaps its entries atomically.
    ``filename`` is the file's name in messages (default: the path).
    """
    path = display_name(file, filename)
    fields = Fields(path)
    summary = ImportSummary(kind="run", path=path, noun="run entries")
    if per_tag and (name or system):
        raise ImportFailed(
            path,
            None,
            "one run per tag takes run and system names from the tags: "
            "give no run name and no system",
        )
    with LineSource(file, path=path, progress=progress) as source, atomic_import(path):
        qmap, doc_map = query_map(campaign), document_map(campaign)
        runs: dict[str, Run] = {}
        first_tag: tuple[str, int] | None = None
        mixed_tags = False
        rows: list[EntryRow] = []
        for line, text in source:
            cols = text.split()
            if not cols:
                summary.skipped += 1
                continue
            if len(cols) != 6:
                few = "too few" if len(cols) < 6 else "too many"
                raise fields.fail(
                    line, f"{few} columns: expected 6 ({RUN_COLUMNS}), found {len(cols)}"
                )
            qid, _q0, docno, rank_text, score_text, tag = cols
            fields.ident(docno, line, "document id", MAX_DOCUMENT_ID)
            rank = fields.integer(rank_text, line, "rank")
            score = fields.number(score_text, line, "score")
            query_id = qmap.get(qid)
            if query_id is None:
                raise fields.fail(
                    line, f"query {qid!r} is not in this campaign: import the queries first"
                )
            if first_tag is None:
                first_tag = (tag, line)
            elif not per_tag and tag != first_tag[0]:
                if not name:
                    raise fields.fail(
                        line,
                        f"tag {tag!r} differs from {first_tag[0]!r} (line {first_tag[1]}): "
                        "import one run per tag (--per-tag) or name the run (--name)",
                    )
                if not mixed_tags:
                    summary.warnings.append(f"the file has several tags; all went into {name!r}")
                mixed_tags = True
            key = tag if per_tag else ""
            run = runs.get(key)
            if run is None:
                run = runs[key] = open_run(
                    campaign=campaign,
                    name=tag if per_tag else (name or tag),
                    system_name=tag if per_tag else (system or first_tag[0]),
                    replace=replace,
                    line=line,
                    fields=fields,
                    summary=summary,
                )
            rows.append(EntryRow(line, run, qid, query_id, docno, rank, score))
            if len(rows) >= BATCH_SIZE:
                write_entries(campaign, rows, doc_map, fields, summary)
                rows = []
        write_entries(campaign, rows, doc_map, fields, summary)
        summary.lines = source.lines
        if not runs:
            summary.warnings.append("the file has no run lines: nothing was imported")
        placeholder_warning(summary)
    return summary
