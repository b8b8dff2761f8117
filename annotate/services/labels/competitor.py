"""A competitor's ranking as labels: ``competitor:<name>``.

Input, one line per result shown for one of the campaign's queries:

- a TREC run (``qid Q0 docno rank score tag``, whitespace-separated): ordered by score, highest
  first, ties by document id descending (THE run order, DESIGN.md section 4);
- CSV ``qid,docno,rank`` (a header row is optional; with one, the columns may come in any order
  and the document column may be called ``url``): ordered by rank, since such a list has no
  scores; ties by document id descending.

A line's position is its place (1, 2, ...) in that order among all the lines of its query,
including lines whose document the campaign lacks, so a page we do not have does not move the
others up. Positions become grades through rank bands (annotate.services.labels.bands).

Documents are matched by external id or by normalised URL (annotate.services.labels.urls):
``auto`` reads a value with a scheme as a URL and anything else as an id. Lines whose document
or query the campaign lacks give no label and are counted in the source's params, as are
documents reached twice through two spellings of one URL (the better position wins). The same
document value twice for one query is an error of that line.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from annotate.models import Campaign, SourceKind
from annotate.ranking import byte_order_keys, ranking_permutation
from annotate.services.imports.common import (
    MAX_DOCUMENT_ID,
    MAX_URL,
    Fields,
    FileArg,
    ImportFailed,
    ImportSummary,
    LineSource,
    Progress,
    atomic_import,
    display_name,
    document_map,
    peek,
    query_map,
)
from annotate.services.labels.bands import Band, band_grades, bands_text, default_bands
from annotate.services.labels.common import (
    DocumentMatcher,
    labels_write,
    source_name,
    source_open,
)

FORMATS = ("trec", "csv")
_QID_KEYS = ("qid", "query", "query_id", "topic")
_DOC_KEYS = ("docno", "doc", "docid", "doc_id", "document", "url")
_RANK_KEYS = ("rank", "position", "pos")
_MAX_EXAMPLES = 5


@dataclass(slots=True)
class _Line:
    line: int
    query_id: int
    doc: str
    rank: int
    score: float


def _trec_lines(lines: Iterator[tuple[int, str]], fields: Fields) -> Iterator[tuple]:
    for line, text in lines:
        cols = text.split()
        if not cols:
            continue
        if len(cols) != 6:
            raise fields.fail(
                line,
                _("expected 6 columns (qid Q0 docno rank score tag), found %(n)s")
                % {"n": len(cols)},
            )
        yield (
            line,
            cols[0],
            cols[2],
            fields.integer(cols[3], line, _("rank")),
            fields.number(cols[4], line, _("score")),
        )


def _csv_lines(lines: Iterator[tuple[int, str]], fields: Fields) -> Iterator[tuple]:
    reader = csv.reader((text for _, text in lines), strict=True)
    columns = (0, 1, 2)
    first, start = True, 1
    try:
        for row in reader:
            line, start = start, reader.line_num + 1
            if not any(cell.strip() for cell in row):
                continue
            cells = [cell.strip() for cell in row]
            if first:
                first = False
                # A header row: its third cell is not a rank (a data row's always is).
                if len(cells) >= 3 and not cells[2].lstrip("+-").isdigit():
                    columns = _header_columns([c.lower() for c in cells], line, fields)
                    continue
            if len(cells) <= max(columns) or (columns == (0, 1, 2) and len(cells) != 3):
                raise fields.fail(
                    line, _("expected 3 columns (qid,docno,rank), found %(n)s") % {"n": len(cells)}
                )
            qid, doc, rank = (cells[i] for i in columns)
            yield line, qid, doc, fields.integer(rank, line, _("rank")), float("nan")
    except csv.Error as exc:
        raise fields.fail(start, _("bad CSV (%(exc)s)") % {"exc": exc}) from None


def _header_columns(header: list[str], line: int, fields: Fields) -> tuple[int, int, int]:
    found = []
    for keys, what in ((_QID_KEYS, "qid"), (_DOC_KEYS, "docno (or url)"), (_RANK_KEYS, "rank")):
        index = next((header.index(k) for k in keys if k in header), None)
        if index is None:
            raise fields.fail(line, _("the header has no %(what)s column") % {"what": what})
        found.append(index)
    return found[0], found[1], found[2]


def import_competitor(
    *,
    campaign: Campaign,
    file: FileArg,
    name: str,
    bands: list[Band] | None = None,
    match: str = "auto",
    fmt: str | None = None,
    replace: bool = False,
    filename: str | None = None,
    progress: Progress | None = None,
) -> ImportSummary:
    """Import a competitor's ranking as the label source ``competitor:<name>``.

    ``bands`` default to :func:`default_bands`; ``match`` is ``auto``, ``id`` or ``url``;
    ``fmt`` is ``trec`` or ``csv`` (default: a ``.csv`` file or a first line with a comma
    and not six whitespace-separated columns is CSV). One transaction: a bad line leaves the
    database as it was.
    """
    path = display_name(file, filename)
    fields = Fields(path)
    summary = ImportSummary(kind="competitor", path=path, noun=pgettext("import summary", "labels"))
    try:
        full_name = source_name(SourceKind.COMPETITOR, name)
        bands = bands or default_bands(campaign)
        matcher = DocumentMatcher(campaign, mode=match, doc_map={})
    except ValueError as exc:
        raise ImportFailed(path, None, str(exc)) from None
    with LineSource(file, path=path, progress=progress) as source, atomic_import(path):
        first, lines = peek(iter(source))
        fmt = _format(fmt, path, first)
        # Opened first, so a name already taken fails before the file is read.
        src = source_open(
            campaign=campaign,
            name=full_name,
            kind=SourceKind.COMPETITOR,
            replace=replace,
            params={},
            path=path,
            summary=summary,
        )
        matcher.doc_map = document_map(campaign)
        counts = {"lines": 0, "unknown_query_lines": 0}
        unknown: list[str] = []
        reader = _trec_lines if fmt == "trec" else _csv_lines
        kept = _kept_lines(
            reader(lines, fields), query_map(campaign), matcher, counts, unknown, fields
        )
        summary.lines = source.lines
        labels = _labels(kept, matcher, bands, fields, counts)
        params = _params(path=path, fmt=fmt, bands=bands, match=match, counts=counts)
        src.params = params
        src.save(update_fields=["params"])
        summary.created = labels_write(source=src, **labels)
    _warn(summary, counts, unknown)
    return summary


def _format(fmt: str | None, path: str, first: str) -> str:
    """The format asked for, checked, or else the one the file name and first line show."""
    if fmt is None:
        # Six whitespace-separated columns are a TREC run even if a URL holds a comma.
        csv_like = "," in first and len(first.split()) != 6
        fmt = "csv" if path.lower().endswith(".csv") or csv_like else "trec"
    if fmt not in FORMATS:
        raise ImportFailed(
            path, None, _("unknown format %(fmt)s: use trec or csv") % {"fmt": repr(fmt)}
        )
    return fmt


def _kept_lines(
    rows: Iterator[tuple[int, str, str, float, float]],
    qmap: dict[str, int],
    matcher: DocumentMatcher,
    counts: dict[str, int],
    unknown: list[str],
    fields: Fields,
) -> list[_Line]:
    """The lines of the campaign's queries, each document checked and listed once per query;
    lines of other queries are counted (and a few of their ids kept for the warning)."""
    kept: list[_Line] = []
    seen: dict[tuple[int, str], int] = {}
    for line, qid, doc, rank, score in rows:
        counts["lines"] += 1
        if not matcher.by_url(doc):
            fields.ident(doc, line, _("document id"), MAX_DOCUMENT_ID)
        elif not doc or len(doc) > MAX_URL:
            raise fields.fail(
                line, _("the URL must have 1 to %(max)s characters") % {"max": MAX_URL}
            )
        query_id = qmap.get(qid)
        if query_id is None:
            counts["unknown_query_lines"] += 1
            if len(unknown) < _MAX_EXAMPLES and qid not in unknown:
                unknown.append(qid)
            continue
        if (query_id, doc) in seen:
            raise fields.fail(
                line,
                _("%(doc)s is listed twice for query %(qid)s (first at line %(seen)s)")
                % {"doc": repr(doc), "qid": repr(qid), "seen": seen[(query_id, doc)]},
            )
        seen[(query_id, doc)] = line
        kept.append(_Line(line, query_id, doc, rank, score))
    return kept


def _params(
    *, path: str, fmt: str, bands: list[Band], match: str, counts: dict[str, int]
) -> dict[str, object]:
    """What the label source records of how it was made."""
    return {
        "method": "competitor rank bands",
        "file": path,
        "format": fmt,
        "order": "score, then document id descending"
        if fmt == "trec"
        else "rank, then document id descending",
        "bands": [[b.first, b.last, b.grade] for b in bands],
        "bands_text": bands_text(bands),
        "match": match,
        **counts,
    }


def _labels(
    kept: list[_Line], matcher: DocumentMatcher, bands: list[Band], fields: Fields, counts: dict
) -> dict[str, np.ndarray]:
    """Positions in THE order per query, then bands, then one label per matched document."""
    n = len(kept)
    query = np.fromiter((r.query_id for r in kept), dtype=np.int64, count=n)
    score = np.fromiter((r.score for r in kept), dtype=np.float64, count=n)
    rank = np.fromiter((r.rank for r in kept), dtype=np.int64, count=n)
    order = ranking_permutation(query, score, rank, byte_order_keys(r.doc for r in kept))
    sorted_query = query[order]
    starts = np.r_[True, sorted_query[1:] != sorted_query[:-1]] if n else np.zeros(0, bool)
    group_start = np.maximum.accumulate(np.where(starts, np.arange(n), 0)) if n else starts
    position = np.empty(n, dtype=np.int64)
    position[order] = np.arange(n) - group_start + 1
    grade = band_grades(position, bands)

    # Resolve documents line by line (a URL may name several documents, or none).
    out_q, out_d, out_pos, out_g = [], [], [], []
    unmatched = beyond = 0
    for i, row in enumerate(kept):
        docs = matcher.match(row.doc, row.line, fields)
        if not docs:
            unmatched += 1
            continue
        if np.isnan(grade[i]):
            beyond += 1
            continue
        for pk in docs:
            out_q.append(row.query_id)
            out_d.append(pk)
            out_pos.append(position[i])
            out_g.append(grade[i])
    q = np.asarray(out_q, dtype=np.int64)
    d = np.asarray(out_d, dtype=np.int64)
    pos = np.asarray(out_pos, dtype=np.int64)
    g = np.asarray(out_g, dtype=np.float64)
    # Two spellings of one page: keep each (query, document)'s best position.
    best = np.lexsort((pos, d, q))
    q, d, g = q[best], d[best], g[best]
    first = np.r_[True, (q[1:] != q[:-1]) | (d[1:] != d[:-1])] if q.size else np.zeros(0, bool)
    counts.update(
        matched_lines=len(kept) - unmatched,
        unmatched_lines=unmatched,
        beyond_bands_lines=beyond,
        merged=int(q.size - first.sum()),
        labels=int(first.sum()),
    )
    return {"query_id": q[first], "document_id": d[first], "grade": g[first]}


def _warn(summary: ImportSummary, counts: dict, unknown: list[str]) -> None:
    if counts["unknown_query_lines"]:
        summary.warnings.append(
            _("%(n)s lines are for queries the campaign does not have (e.g. %(names)s): skipped")
            % {
                "n": format(counts["unknown_query_lines"], ","),
                "names": ", ".join(repr(q) for q in unknown),
            }
        )
    if counts["unmatched_lines"]:
        summary.warnings.append(
            _(
                "%(n)s lines name documents the campaign does not have (by id or "
                "normalised URL): no label for them"
            )
            % {"n": format(counts["unmatched_lines"], ",")}
        )
    if counts["merged"]:
        summary.warnings.append(
            _(
                "%(n)s documents were reached twice through different URLs: the "
                "better position counts"
            )
            % {"n": format(counts["merged"], ",")}
        )
    if not summary.created:
        summary.warnings.append(
            _("label source %(source)s has no labels") % {"source": repr(summary.source)}
        )
