"""Documents: CSV with a header row, or JSONL. ``id`` (or ``docno``/``docid``), ``title``,
``url`` and ``snippet`` have their own columns; every other column or key is kept in
``extra``. A document that is already a placeholder is filled in."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from annotate import inputs
from annotate.models import Campaign, Document
from annotate.services.imports.common import (
    BATCH_SIZE,
    MAX_DOCUMENT_ID,
    MAX_URL,
    Fields,
    FileArg,
    ImportFailed,
    ImportSummary,
    Progress,
    detect_format,
    document_map,
    importing,
    json_object,
    peek,
    pick,
)

DOCUMENT_FORMATS = ("csv", "jsonl")
_ID_KEYS = ("id", "docno", "docid", "doc_id")
_TEXT_FIELDS = ("title", "url", "snippet")
# Only links a browser follows safely: a javascript: URL shown to a rater would run script.
_validate_url = URLValidator(schemes=["http", "https"])


@dataclass
class _Record:
    line: int
    ext: str
    values: dict[str, str]  # only the fields the record has; the others keep their value
    extra: dict


def _text(value: object, line: int, key: str, fields: Fields) -> str:
    if value is None:
        return ""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise fields.fail(
            line,
            _("%(key)s must be text, got %(value)s") % {"key": repr(key), "value": repr(value)},
        )
    return str(value).strip()


# The limit (annotate.inputs) of each text column.
_LIMITS = {"title": "title", "url": "url", "snippet": "snippet"}


def _record(line: int, data: dict, fields: Fields) -> _Record:
    ext = fields.ident(pick(data, _ID_KEYS), line, _("document id"), MAX_DOCUMENT_ID)
    values = {key: _text(data[key], line, key, fields) for key in _TEXT_FIELDS if key in data}
    for key, value in values.items():
        fields.text(value, line, key, _LIMITS[key])
    url = values.get("url", "")
    if url:
        if len(url) > MAX_URL:
            raise fields.fail(line, _("url is longer than %(max)s characters") % {"max": MAX_URL})
        try:
            _validate_url(url)
        except ValidationError:
            raise fields.fail(
                line, _("url %(url)s is not an http(s) URL") % {"url": repr(url)}
            ) from None
    extra = {k: v for k, v in data.items() if k not in (*_ID_KEYS, *_TEXT_FIELDS, "extra")}
    if isinstance(data.get("extra"), dict):
        extra = {**data["extra"], **extra}
    elif "extra" in data:
        extra["extra"] = data["extra"]
    check_extra(extra, line, fields)
    return _Record(line, ext, values, extra)


def check_extra(extra: dict, line: int, fields: Fields) -> None:
    """At most ``extra_keys`` extra fields of at most ``extra_bytes`` of JSON in all: every
    list, page and CSV download of documents carries them."""
    max_keys, max_bytes = inputs.limit("extra_keys"), inputs.limit("extra_bytes")
    if len(extra) > max_keys:
        raise fields.fail(
            line,
            _("%(n)s extra fields; a document may have at most %(max_keys)s")
            % {"n": format(len(extra), ","), "max_keys": format(max_keys, ",")},
        )
    for key, value in extra.items():
        # CSV cells come here unchecked by the JSON parser: NUL and surrogates are refused
        # for them too (keys included).
        for text in (key, value) if isinstance(value, str) else (key,):
            problem = inputs.text_problem(text)
            if problem is not None:
                raise fields.fail(
                    line,
                    _("extra field %(key)s %(problem)s")
                    % {"key": repr(key[:60]), "problem": problem},
                )
    size = len(json.dumps(extra, ensure_ascii=False).encode())
    if size > max_bytes:
        raise fields.fail(
            line,
            _("the extra fields take %(size)s bytes as JSON; the limit is %(max_bytes)s")
            % {"size": format(size, ","), "max_bytes": format(max_bytes, ",")},
        )


def _jsonl_records(lines: Iterator[tuple[int, str]], fields: Fields, summary: ImportSummary):
    for line, raw in lines:
        if not raw.strip():
            summary.skipped += 1
            continue
        data = json_object(raw, line, fields)
        if pick(data, _ID_KEYS) is None:
            raise fields.fail(line, _("no document id: expected an 'id' or 'docno' key"))
        yield _record(line, data, fields)


def _csv_records(lines: Iterator[tuple[int, str]], fields: Fields, summary: ImportSummary):
    # The csv module reads the lines itself (a quoted field may span several); line_num tells
    # which physical line it has reached, so a record starts one after the previous record.
    reader = csv.reader((text for _, text in lines), strict=True)
    header: list[str] | None = None
    start = 1
    try:
        for row in reader:
            line, start = start, reader.line_num + 1
            if not row or not any(cell.strip() for cell in row):
                summary.skipped += 1
                continue
            if header is None:
                header = [cell.strip().lower() for cell in row]
                if not any(key in header for key in _ID_KEYS):
                    raise fields.fail(line, _("the header has no 'id' (or 'docno') column"))
                if "" in header or len(set(header)) != len(header):
                    raise fields.fail(line, _("the header has an empty or repeated column name"))
                continue
            if len(row) != len(header):
                raise fields.fail(
                    line,
                    _("expected %(n)s columns as in the header, found %(n2)s")
                    % {"n": len(header), "n2": len(row)},
                )
            yield _record(line, dict(zip(header, row, strict=True)), fields)
    except csv.Error as exc:
        raise fields.fail(start, _("bad CSV (%(exc)s)") % {"exc": exc}) from None
    if header is None:
        raise fields.fail(None, _("the file is empty: expected a header row"))


def import_documents(
    *,
    campaign: Campaign,
    file: FileArg,
    name: str | None = None,
    fmt: str | None = None,
    progress: Progress | None = None,
) -> ImportSummary:
    """Import documents; an id the campaign knows is updated (the fields the record has replace
    the stored ones, ``extra`` is merged) and a placeholder is filled and stops being one.

    ``name`` is the file's name in messages (default: the path). ``fmt`` is ``"csv"`` or
    ``"jsonl"``; by default it follows the extension, else the first line (``{`` = JSONL).
    URLs must be http(s). A document id twice in one file is an error.
    """
    noun = pgettext("import summary", "documents")
    with importing(
        file, name, kind="documents", noun=noun, progress=progress, keep_ends=True
    ) as job:
        path, summary, fields = job.summary.path, job.summary, job.fields
        first, lines = peek(iter(job.lines))
        fmt = fmt or detect_format(path, first, DOCUMENT_FORMATS)
        if fmt not in DOCUMENT_FORMATS:
            raise ImportFailed(
                path, None, _("unsupported format %(fmt)s: use csv or jsonl") % {"fmt": repr(fmt)}
            )
        records = (_csv_records if fmt == "csv" else _jsonl_records)(lines, fields, summary)
        doc_map = document_map(campaign)
        seen: dict[str, int] = {}
        batch: list[_Record] = []
        for record in records:
            if record.ext in seen:
                raise fields.fail(
                    record.line,
                    _("document %(ext)s is already defined at line %(seen)s")
                    % {"ext": repr(record.ext), "seen": seen[record.ext]},
                )
            seen[record.ext] = record.line
            batch.append(record)
            if len(batch) >= BATCH_SIZE:
                _write(campaign, batch, doc_map, summary, fields)
                batch = []
        _write(campaign, batch, doc_map, summary, fields)
    return summary


def _write(
    campaign: Campaign,
    batch: list[_Record],
    doc_map: dict[str, int],
    summary: ImportSummary,
    fields: Fields,
) -> None:
    stored = Document.objects.in_bulk([doc_map[r.ext] for r in batch if r.ext in doc_map])
    new: list[Document] = []
    changed: list[Document] = []
    for record in batch:
        pk = doc_map.get(record.ext)
        if pk is None:
            new.append(
                Document(
                    campaign=campaign, external_id=record.ext, extra=record.extra, **record.values
                )
            )
            continue
        doc = stored[pk]
        before = (doc.title, doc.url, doc.snippet, doc.extra, doc.is_placeholder)
        for key, value in record.values.items():
            setattr(doc, key, value)
        doc.extra = {**doc.extra, **record.extra}
        if doc.extra != before[3]:
            # Merged with what is stored, the extra fields must still be within the limits.
            check_extra(doc.extra, record.line, fields)
        # A record with nothing but the id tells nothing new: the document stays a placeholder.
        has_content = any(record.values.values()) or any(
            v not in ("", None) for v in record.extra.values()
        )
        if doc.is_placeholder and has_content:
            doc.is_placeholder = False
            summary.placeholders_filled += 1
        elif (doc.title, doc.url, doc.snippet, doc.extra, doc.is_placeholder) == before:
            summary.skipped += 1
            continue
        else:
            summary.updated += 1
        changed.append(doc)
    summary.created += len(Document.objects.bulk_create(new))
    if changed:
        Document.objects.bulk_update(
            changed, ["title", "url", "snippet", "extra", "is_placeholder"], batch_size=1_000
        )
