"""Queries: TSV (``qid<TAB>text[<TAB>description]``) or JSONL (``id``/``qid``,
``text``/``query``, ``description``/``intent``)."""

from __future__ import annotations

from collections.abc import Iterator

from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from annotate.models import Campaign, Query
from annotate.services.imports.common import (
    BATCH_SIZE,
    MAX_QUERY_ID,
    Fields,
    FileArg,
    ImportFailed,
    ImportSummary,
    Progress,
    detect_format,
    importing,
    json_object,
    peek,
    pick,
)

QUERY_FORMATS = ("tsv", "jsonl")
_ID_KEYS = ("id", "qid")
_TEXT_KEYS = ("text", "query")
_DESCRIPTION_KEYS = ("description", "intent")


def _records(
    lines: Iterator[tuple[int, str]], fmt: str, fields: Fields, summary: ImportSummary
) -> Iterator[tuple[int, str, str, str]]:
    """(line, qid, text, description) for each non-blank line."""
    ignored: set[str] = set()
    for line, raw in lines:
        if not raw.strip():
            summary.skipped += 1
            continue
        if fmt == "tsv":
            cols = raw.split("\t")
            if len(cols) < 2:
                raise fields.fail(line, _("too few columns: expected qid<TAB>text (no tab found)"))
            if len(cols) > 3:
                raise fields.fail(
                    line,
                    _("too many columns (%(n)s): expected qid<TAB>text[<TAB>description]")
                    % {"n": len(cols)},
                )
            qid, text, description = cols[0].strip(), cols[1].strip(), ""
            if len(cols) == 3:
                description = cols[2].strip()
        else:
            record = json_object(raw, line, fields)
            qid = pick(record, _ID_KEYS)
            if qid is None:
                raise fields.fail(line, _("no query id: expected an 'id' or 'qid' key"))
            text = pick(record, _TEXT_KEYS)
            if text is None:
                raise fields.fail(line, _("no query text: expected a 'text' or 'query' key"))
            description = pick(record, _DESCRIPTION_KEYS) or ""
            if not isinstance(text, str) or not isinstance(description, str):
                raise fields.fail(line, _("'text' (or 'query') and 'description' must be text"))
            text, description = text.strip(), description.strip()
            ignored.update(set(record) - {*_ID_KEYS, *_TEXT_KEYS, *_DESCRIPTION_KEYS})
        qid = fields.ident(qid, line, _("query id"), MAX_QUERY_ID)
        if not text:
            raise fields.fail(line, _("query %(qid)s has no text") % {"qid": repr(qid)})
        fields.text(text, line, _("the text of query %(qid)s") % {"qid": repr(qid)}, "query_text")
        fields.text(
            description, line, _("the description of query %(qid)s") % {"qid": repr(qid)}, "intent"
        )
        yield line, qid, text, description
    if ignored:
        summary.warnings.append(
            _("ignored keys (queries keep no extra fields): %(keys)s")
            % {"keys": ", ".join(sorted(ignored))}
        )


def import_queries(
    *,
    campaign: Campaign,
    file: FileArg,
    name: str | None = None,
    fmt: str | None = None,
    progress: Progress | None = None,
) -> ImportSummary:
    """Import queries; a query id the campaign has already is updated, not duplicated.

    ``name`` is the file's name in messages (default: the path). ``fmt`` is ``"tsv"`` or
    ``"jsonl"``; by default it follows the extension, else the first line (``{`` = JSONL).
    A query id twice in one file is an error: one of the two texts would be lost silently.
    """
    noun = pgettext("import summary", "queries")
    with importing(file, name, kind="queries", noun=noun, progress=progress) as job:
        path, summary = job.summary.path, job.summary
        first, lines = peek(iter(job.lines))
        fmt = fmt or detect_format(path, first, QUERY_FORMATS)
        if fmt not in QUERY_FORMATS:
            raise ImportFailed(
                path, None, _("unsupported format %(fmt)s: use tsv or jsonl") % {"fmt": repr(fmt)}
            )
        _store(campaign, _records(lines, fmt, job.fields, summary), job.fields, summary)
    return summary


def _store(
    campaign: Campaign,
    records: Iterator[tuple[int, str, str, str]],
    fields: Fields,
    summary: ImportSummary,
) -> None:
    """Create the new queries and update the changed ones, in batches of ``BATCH_SIZE``."""
    existing = {
        q.external_id: q
        for q in Query.objects.filter(campaign=campaign).only(
            "pk", "external_id", "text", "description"
        )
    }
    seen: dict[str, int] = {}
    new: list[Query] = []
    changed: list[Query] = []
    for line, qid, text, description in records:
        if qid in seen:
            raise fields.fail(
                line,
                _("query %(qid)s is already defined at line %(seen)s")
                % {"qid": repr(qid), "seen": seen[qid]},
            )
        seen[qid] = line
        query = existing.get(qid)
        if query is None:
            new.append(
                Query(campaign=campaign, external_id=qid, text=text, description=description)
            )
        elif (query.text, query.description) == (text, description):
            summary.skipped += 1
        else:
            query.text, query.description = text, description
            changed.append(query)
        if len(new) >= BATCH_SIZE:
            summary.created += len(Query.objects.bulk_create(new))
            new = []
        if len(changed) >= BATCH_SIZE:
            summary.updated += Query.objects.bulk_update(changed, ["text", "description"])
            changed = []
    summary.created += len(Query.objects.bulk_create(new))
    if changed:
        summary.updated += Query.objects.bulk_update(changed, ["text", "description"])
