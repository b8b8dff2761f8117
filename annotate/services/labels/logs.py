"""Behaviour logs: one row per query, document and position shown.

Columns (CSV with a header row, or JSONL keys; names in any case):

- ``qid`` (or ``query``, ``query_id``), the document as ``docno`` (or ``doc_id``, ``docid``,
  ``doc``, ``document``) or ``url``, ``position`` (or ``pos``, ``rank``; 1 is the top);
- ``impressions`` (times shown) and ``clicks`` (0 <= clicks <= impressions);
- optional ``purchases`` (or ``conversions``, ``orders``) and ``dwell`` (or ``dwell_time``,
  ``dwell_seconds``: the total dwell time of the row's clicks, in seconds). An empty cell is 0.

A row may repeat a (query, document, position) seen before (a log split by day): it adds up.
Rows of queries or documents the campaign lacks still count towards the per-position totals
(CTR(p) is over the whole log) and are counted, not stored.

Memory stays bounded whatever the length: the lines stream through the shared LineSource, are
parsed into compact arrays of ``_CHUNK`` rows, and each chunk is summed into the running
totals, which hold one entry per (query, document, position) of the campaign and one per
position. A bad row anywhere is ``file:line: problem`` and nothing is written.
"""

from __future__ import annotations

import csv
import math
from array import array
from collections.abc import Iterator

import numpy as np
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from annotate.models import BehaviourLog, BehaviourPosition, BehaviourStat, Campaign
from annotate.services.imports.common import (
    Fields,
    FileArg,
    ImportFailed,
    ImportSummary,
    LineSource,
    Progress,
    atomic_import,
    detect_format,
    display_name,
    document_map,
    json_object,
    peek,
    query_map,
)
from annotate.services.imports.fastinsert import insert_rows
from annotate.services.labels.common import DocumentMatcher
from annotate.services.labels.sums import Sums

FORMATS = ("csv", "jsonl")
_CHUNK = 200_000
_ALIASES = {
    "qid": ("qid", "query", "query_id"),
    "doc": ("docno", "doc_id", "docid", "doc", "document", "url"),
    "position": ("position", "pos", "rank"),
    "impressions": ("impressions",),
    "clicks": ("clicks",),
    "conversions": ("purchases", "conversions", "orders"),
    "dwell": ("dwell", "dwell_time", "dwell_seconds"),
}
_REQUIRED = ("qid", "doc", "position", "impressions", "clicks")
STAT_COLUMNS = (
    "log_id",
    "query_id",
    "document_id",
    "position",
    "impressions",
    "clicks",
    "conversions",
    "dwell_seconds",
)


def _columns(names: list[str], line: int, fields: Fields) -> dict[str, object]:
    """field -> the header's column (index for CSV, key for JSONL) for the fields present."""
    lowered = [n.strip().lower() for n in names]
    found: dict[str, object] = {}
    for field, aliases in _ALIASES.items():
        hit = next((a for a in aliases if a in lowered), None)
        if hit is not None:
            found[field] = lowered.index(hit)
    missing = [f for f in _REQUIRED if f not in found]
    if missing:
        shown = ", ".join(_ALIASES[f][0] for f in missing)
        raise fields.fail(
            line,
            _("no %(shown)s column (the columns are: %(names)s)")
            % {"shown": shown, "names": ", ".join(names)},
        )
    return found


def _csv_rows(lines: Iterator[tuple[int, str]], fields: Fields) -> Iterator[tuple[int, list]]:
    """(line, cells in field order: qid, doc, position, impressions, clicks, conv, dwell)."""
    reader = csv.reader((text for _, text in lines), strict=True)
    index: dict[str, object] | None = None
    start = 1
    try:
        for row in reader:
            line, start = start, reader.line_num + 1
            if not row or (len(row) == 1 and not row[0].strip()):
                continue
            if index is None:
                index = _columns(row, line, fields)
                width = len(row)
                picks = [index.get(f) for f in _ALIASES]
                continue
            if len(row) != width:
                raise fields.fail(
                    line,
                    _("expected %(width)s columns as in the header, found %(n)s")
                    % {"width": width, "n": len(row)},
                )
            yield line, [None if i is None else row[i] for i in picks]
    except csv.Error as exc:
        raise fields.fail(start, _("bad CSV (%(exc)s)") % {"exc": exc}) from None
    if index is None:
        raise fields.fail(None, _("the file is empty: expected a header row"))


def _jsonl_rows(lines: Iterator[tuple[int, str]], fields: Fields) -> Iterator[tuple[int, list]]:
    keys: dict[str, str] = {}
    for line, text in lines:
        if not text.strip():
            continue
        record = json_object(text, line, fields)
        values = []
        for field, aliases in _ALIASES.items():
            key = keys.get(field)
            if key is None or key not in record:
                key = next((a for a in aliases if a in record), None)
                if key is not None:
                    keys[field] = key
            value = None if key is None else record[key]
            if value is None and field in _REQUIRED:
                raise fields.fail(line, _("no %(key)s key") % {"key": repr(_ALIASES[field][0])})
            values.append(value)
        yield line, values


def _count(value: object, line: int, what: str, fields: Fields) -> int:
    """A whole number >= 0 from a CSV cell or a JSON value ("" and null are 0)."""
    # The common case first, cheaply: a CSV cell of at most 18 digits (below 2**62).
    if type(value) is str and value.isdecimal() and len(value) < 19:
        return int(value)
    if value is None or value == "":
        return 0
    if isinstance(value, bool):
        raise fields.fail(
            line,
            _("%(what)s %(value)s is not a whole number") % {"what": what, "value": repr(value)},
        )
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int):
        number = value
    else:
        try:
            number = int(value) if "_" not in str(value) else None
        except (TypeError, ValueError):
            number = None
        if number is None:
            raise fields.fail(
                line,
                _("%(what)s %(value)s is not a whole number")
                % {"what": what, "value": repr(value)},
            )
    if not 0 <= number < 2**62:
        raise fields.fail(
            line, _("%(what)s %(value)s must be 0 or more") % {"what": what, "value": repr(value)}
        )
    return number


def _text(value: object, line: int, what: str, fields: Fields) -> str:
    if type(value) is str and value and not value[0].isspace() and not value[-1].isspace():
        return value  # the common case: nothing to strip
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise fields.fail(
            line, _("%(what)s must be text, got %(value)s") % {"what": what, "value": repr(value)}
        )
    text = str(value).strip()
    if not text:
        raise fields.fail(line, _("%(what)s is empty") % {"what": what})
    return text


def _seconds(value: object, line: int, fields: Fields) -> float:
    if value is None or value == "":
        return 0.0
    if type(value) is str and value.replace(".", "", 1).isdecimal():
        return float(value)  # plain digits with at most one point: finite and >= 0
    try:
        number = float(value) if not isinstance(value, bool) else math.nan
    except (TypeError, ValueError):
        number = math.nan
    if not math.isfinite(number) or number < 0:
        raise fields.fail(
            line,
            _("dwell %(value)s is not a number of seconds (0 or more)") % {"value": repr(value)},
        )
    return number


class _Chunk:
    """One chunk of parsed rows as compact arrays (no Python object per value)."""

    def __init__(self) -> None:
        self.all_pos, self.all_imp = array("q"), array("q")
        self.all_clk, self.all_conv = array("q"), array("q")
        self.q, self.d, self.pos = array("q"), array("q"), array("q")
        self.imp, self.clk, self.conv = array("q"), array("q"), array("q")
        self.dwell = array("d")

    def __len__(self) -> int:
        return len(self.all_pos)


def import_log(
    *,
    campaign: Campaign,
    file: FileArg,
    name: str,
    match: str = "auto",
    fmt: str | None = None,
    replace: bool = False,
    filename: str | None = None,
    progress: Progress | None = None,
) -> ImportSummary:
    """Import a behaviour log as the campaign's log ``name`` (aggregated; see the module
    docstring). ``match`` resolves the document column: ``auto`` (a value with a scheme is a
    URL), ``id`` or ``url``. A log name already used is an error unless ``replace``."""
    path = display_name(file, filename)
    fields = Fields(path)
    summary = ImportSummary(
        kind="log",
        path=path,
        noun=pgettext("import summary", "(query, document, position) totals in log %(name)s")
        % {"name": repr(name)},
    )
    try:
        matcher = DocumentMatcher(campaign, mode=match, doc_map={})
    except ValueError as exc:
        raise ImportFailed(path, None, str(exc)) from None
    with (
        LineSource(file, path=path, progress=progress, keep_ends=True) as source,
        atomic_import(path),
    ):
        log = _open_log(campaign=campaign, name=name, replace=replace, path=path, fields=fields)
        first, lines = peek(iter(source))
        fmt = fmt or detect_format(path, first, FORMATS)
        if fmt not in FORMATS:
            raise ImportFailed(
                path, None, _("unknown format %(fmt)s: use csv or jsonl") % {"fmt": repr(fmt)}
            )
        matcher.doc_map = document_map(campaign)
        totals = _Totals(query_map(campaign), matcher, fields)
        for line, values in (_csv_rows if fmt == "csv" else _jsonl_rows)(lines, fields):
            totals.add(line, *values)
        totals.flush()
        summary.lines = source.lines
        totals.record(log)
        summary.created = _write(log, totals.by_pair, totals.by_position)
    _warn(summary, log)
    return summary


def _numbers(
    line: int, pos: object, imp: object, clk: object, conv: object, dwell: object, fields: Fields
) -> tuple[int, int, int, int, float]:
    """A row's position, impressions, clicks, purchases and dwell seconds, checked."""
    position = _count(pos, line, _("position"), fields)
    if not 1 <= position < 2**31:
        raise fields.fail(
            line, _("position %(pos)s must be 1 or more (1 is the top)") % {"pos": repr(pos)}
        )
    impressions = _count(imp, line, _("impressions"), fields)
    clicks = _count(clk, line, _("clicks"), fields)
    if clicks > impressions:
        raise fields.fail(
            line,
            _("%(clicks)s clicks but only %(impressions)s impressions")
            % {"clicks": clicks, "impressions": impressions},
        )
    conversions = _count(conv, line, _("purchases"), fields)
    return position, impressions, clicks, conversions, _seconds(dwell, line, fields)


class _Totals:
    """The running sums of a log being read: rows go into a chunk of compact arrays, and each
    full chunk is summed into the totals, so memory stays bounded whatever the length."""

    def __init__(self, qmap: dict[str, int], matcher: DocumentMatcher, fields: Fields) -> None:
        self.qmap, self.matcher, self.fields = qmap, matcher, fields
        self.by_pair = Sums(keys=3, values=("impressions", "clicks", "conversions", "dwell"))
        self.by_position = Sums(keys=1, values=("impressions", "clicks", "conversions"))
        self.chunk = _Chunk()
        self.seen = {"conversions": False, "dwell": False}
        self.tally = [0, 0, 0, 0]  # rows, matched, unknown query, unknown document

    def add(self, line: int, qid, doc, pos, imp, clk, conv, dwell) -> None:  # raw cells
        fields, chunk = self.fields, self.chunk
        position, impressions, clicks, conversions, seconds = _numbers(
            line, pos, imp, clk, conv, dwell, fields
        )
        self.seen["conversions"] |= conv is not None
        self.seen["dwell"] |= dwell is not None
        chunk.all_pos.append(position)
        chunk.all_imp.append(impressions)
        chunk.all_clk.append(clicks)
        chunk.all_conv.append(conversions)
        self.tally[0] += 1
        qid, doc = _text(qid, line, _("qid"), fields), _text(doc, line, _("document"), fields)
        query_id = self.qmap.get(qid)
        if query_id is None:
            self.tally[2] += 1
        else:
            docs = self.matcher.match(doc, line, fields)
            if not docs:
                self.tally[3] += 1
            for pk in docs:
                chunk.q.append(query_id)
                chunk.d.append(pk)
                chunk.pos.append(position)
                chunk.imp.append(impressions)
                chunk.clk.append(clicks)
                chunk.conv.append(conversions)
                chunk.dwell.append(seconds)
            self.tally[1] += bool(docs)
        if len(chunk) >= _CHUNK:
            self.flush()

    def flush(self) -> None:
        _flush(self.chunk, self.by_pair, self.by_position)
        self.chunk = _Chunk()

    def record(self, log: BehaviourLog) -> None:
        """The log's counts of rows, matched and unknown, and the columns it had."""
        log.rows, log.matched_rows, log.unknown_query_rows, log.unknown_document_rows = self.tally
        log.has_conversions, log.has_dwell = self.seen["conversions"], self.seen["dwell"]
        log.save()


def _open_log(
    *, campaign: Campaign, name: str, replace: bool, path: str, fields: Fields
) -> BehaviourLog:
    fields.name(name, None, _("log name"))
    log = BehaviourLog.objects.filter(campaign=campaign, name=name).first()
    if log is not None and not replace:
        raise fields.fail(
            None,
            _("log %(name)s already exists in this campaign: give another name, or --replace")
            % {"name": repr(name)},
        )
    if log is None:
        return BehaviourLog.objects.create(campaign=campaign, name=name, source_file=path[:300])
    # Emptied in place inside the import's transaction: a failure restores it.
    BehaviourStat.objects.filter(log=log).delete()
    BehaviourPosition.objects.filter(log=log).delete()
    log.source_file = path[:300]
    return log


def _flush(chunk: _Chunk, by_pair: Sums, by_position: Sums) -> None:
    def arr(values: array, dtype=np.int64) -> np.ndarray:
        return np.frombuffer(values, dtype=dtype) if len(values) else np.zeros(0, dtype)

    by_position.add(
        [arr(chunk.all_pos)], [arr(chunk.all_imp), arr(chunk.all_clk), arr(chunk.all_conv)]
    )
    by_pair.add(
        [arr(chunk.q), arr(chunk.d), arr(chunk.pos)],
        [arr(chunk.imp), arr(chunk.clk), arr(chunk.conv), arr(chunk.dwell, np.float64)],
    )


def _write(log: BehaviourLog, by_pair: Sums, by_position: Sums) -> int:
    (pos,), (imp, clk, conv) = by_position.result()
    insert_rows(
        BehaviourPosition,
        ("log_id", "position", "impressions", "clicks", "conversions"),
        list(
            zip(
                [log.pk] * pos.size,
                pos.tolist(),
                imp.tolist(),
                clk.tolist(),
                conv.tolist(),
                strict=True,
            )
        ),
    )
    (q, d, p), (imp, clk, conv, dwell) = by_pair.result()
    for start in range(0, q.size, 50_000):
        part = slice(start, start + 50_000)
        columns = [c[part].tolist() for c in (q, d, p, imp, clk, conv, dwell)]
        insert_rows(
            BehaviourStat,
            STAT_COLUMNS,
            list(zip([log.pk] * len(columns[0]), *columns, strict=True)),
        )
    return int(q.size)


def _warn(summary: ImportSummary, log: BehaviourLog) -> None:
    if log.unknown_query_rows:
        summary.warnings.append(
            _(
                "%(n)s of %(rows)s rows are for queries the campaign "
                "does not have: they count only towards the click-through rate per "
                "position"
            )
            % {
                "n": format(log.unknown_query_rows, ","),
                "rows": format(log.rows, ","),
            }
        )
    if log.unknown_document_rows:
        summary.warnings.append(
            _(
                "%(n)s rows name documents the campaign does not "
                "have (by id or normalised URL): they count only towards the rate per "
                "position"
            )
            % {"n": format(log.unknown_document_rows, ",")}
        )
