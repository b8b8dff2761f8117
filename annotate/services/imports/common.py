"""What every importer shares: the error and summary types, numbered line reading, field
parsing, the campaign's id maps, placeholder documents and batched inserts.

Files are read one line at a time and rows are written in batches, so memory holds one batch
plus the id maps (external id -> primary key), never the file.
"""

from __future__ import annotations

import functools
import io
import math
import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from annotate import inputs
from annotate.models import Campaign, Document, Query
from annotate.services.imports.fastinsert import insert_placeholders

BATCH_SIZE = 5_000
# How often (in lines) the progress callback hears from a long import.
PROGRESS_EVERY = 5_000

# Column limits of the model, checked here because SQLite would silently store a longer value
# that PostgreSQL then refuses in the middle of an import.
MAX_QUERY_ID = Query._meta.get_field("external_id").max_length
MAX_DOCUMENT_ID = Document._meta.get_field("external_id").max_length
MAX_URL = Document._meta.get_field("url").max_length
MAX_NAME = 200  # the name columns; inputs.limit("name") may set a lower limit

Progress = Callable[[int], None]
FileArg = str | os.PathLike | IO[bytes] | IO[str]


class ImportFailed(ValueError):
    """A file that cannot be imported. ``str(exc)`` is ``file:line: what is wrong`` (or
    ``file: what is wrong`` when no single line is to blame)."""

    def __init__(self, path: str, line: int | None, message: str) -> None:
        self.path = path
        self.line = line
        self.reason = message
        where = f"{path}:{line}" if line is not None else path
        super().__init__(f"{where}: {message}")


@dataclass
class ImportSummary:
    """What an import did. ``created``/``updated``/``skipped`` count the rows of the file's own
    kind (queries, documents, run entries or labels); ``skipped`` counts blank lines and
    records identical to what was already stored."""

    kind: str
    path: str
    noun: str
    lines: int = 0
    created: int = 0
    updated: int = 0
    skipped: int = 0
    placeholders: int = 0
    placeholders_filled: int = 0
    queries_created: int = 0
    runs: list[str] = field(default_factory=list)
    systems_created: list[str] = field(default_factory=list)
    source: str | None = None
    warnings: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        def n(count: int) -> str:
            return f"{count:,}"

        parts = [
            _("%(path)s: %(n)s lines read") % {"path": self.path, "n": n(self.lines)},
            _("%(n)s %(noun)s created") % {"n": n(self.created), "noun": self.noun},
        ]
        if self.updated:
            parts.append(_("%(n)s updated") % {"n": n(self.updated)})
        if self.skipped:
            parts.append(_("%(n)s skipped (blank or unchanged)") % {"n": n(self.skipped)})
        if self.placeholders_filled:
            parts.append(
                _("%(n)s placeholder documents filled") % {"n": n(self.placeholders_filled)}
            )
        if self.placeholders:
            parts.append(_("%(n)s placeholder documents created") % {"n": n(self.placeholders)})
        if self.queries_created:
            parts.append(_("%(n)s queries created") % {"n": n(self.queries_created)})
        if self.runs:
            parts.append(_("runs: %(names)s") % {"names": ", ".join(self.runs)})
        if self.systems_created:
            parts.append(_("new systems: %(names)s") % {"names": ", ".join(self.systems_created)})
        if self.source:
            parts.append(_("label source: %(name)s") % {"name": self.source})
        # Chinese joins with ； and ends with 。
        separator = pgettext("import summary", "; ")
        return separator.join(parts) + pgettext("import summary", ".")


def display_name(file: FileArg, name: str | None) -> str:
    if name:
        return name
    if isinstance(file, str | os.PathLike):
        return os.fspath(file)
    return os.path.basename(str(getattr(file, "name", "") or "")) or "<input>"


class LineSource:
    """The numbered lines of a path or an open file (binary or text).

    Binary input is decoded one line at a time so that a byte that is not UTF-8 is reported at
    its own line (a decoding text wrapper would fail a whole 8 KB chunk ahead). A UTF-8 byte
    order mark, as Excel writes, is dropped. ``keep_ends`` keeps the line endings (the csv
    module needs them for quoted fields that span lines); otherwise they are stripped.
    """

    def __init__(
        self, file: FileArg, *, path: str, progress: Progress | None = None, keep_ends=False
    ) -> None:
        self.file = file
        self.path = path
        self.progress = progress
        self.keep_ends = keep_ends
        self.lines = 0
        self._opened: IO[bytes] | None = None

    def __enter__(self) -> LineSource:
        if isinstance(self.file, str | os.PathLike):
            try:
                self._opened = open(Path(self.file), "rb")  # closed in __exit__
            except OSError as exc:
                raise ImportFailed(
                    self.path, None, _("cannot read the file (%(why)s)") % {"why": exc.strerror}
                ) from None
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._opened is not None:
            self._opened.close()

    def __iter__(self) -> Iterator[tuple[int, str]]:
        stream = self._opened if self._opened is not None else self.file
        is_text = isinstance(stream, io.TextIOBase)
        max_line = inputs.limit("line_bytes")
        lineno = 0
        try:
            for raw in _bounded_lines(stream, max_line, is_text):
                lineno += 1
                if len(raw) > max_line and not raw.endswith(b"\n" if not is_text else "\n"):
                    # Read no further: one endless line would otherwise fill the memory.
                    raise ImportFailed(
                        self.path,
                        lineno,
                        _("the line is longer than %(max)s bytes") % {"max": f"{max_line:,}"},
                    )
                text = raw if is_text else self._decode(raw, lineno)
                if lineno == 1 and text.startswith("\ufeff"):
                    text = text[1:]
                if "\x00" in text:
                    # PostgreSQL cannot store NUL in text, and no id or title needs one.
                    raise ImportFailed(self.path, lineno, _("the line contains a NUL byte"))
                if not self.keep_ends:
                    text = text.rstrip("\r\n")
                self.lines = lineno
                if self.progress is not None and lineno % PROGRESS_EVERY == 0:
                    self.progress(lineno)
                yield lineno, text
        except UnicodeDecodeError:
            # Only a text stream gets here; its decoder reads ahead, so the line is approximate.
            raise ImportFailed(self.path, lineno + 1, _("the file is not valid UTF-8")) from None
        if self.progress is not None:
            self.progress(lineno)

    def _decode(self, raw: bytes, lineno: int) -> str:
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ImportFailed(
                self.path,
                lineno,
                _("not valid UTF-8 (0x%(byte)s at byte %(at)s of the line); save the file as UTF-8")
                % {"byte": f"{raw[exc.start]:02x}", "at": exc.start + 1},
            ) from None


def _bounded_lines(stream: Any, max_line: int, is_text: bool) -> Iterator[Any]:
    """The stream's lines, none read past ``max_line + 1`` bytes (characters for text), so a
    file without line breaks cannot be read into memory whole. An iterable without readline
    (a list of lines in tests) is taken as it is."""
    readline = getattr(stream, "readline", None)
    if readline is None:
        return iter(stream)
    return iter(functools.partial(readline, max_line + 1), "" if is_text else b"")


def peek(lines: Iterator[tuple[int, str]]) -> tuple[str, Iterator[tuple[int, str]]]:
    """The first non-blank line (for format sniffing) and an iterator that still yields every
    line; reads only up to that line, so standard input works.

    The blank lines before it are remembered as a count, not kept: a file of nothing but
    millions of blank lines must not sit in memory. They come back as empty lines (with the
    line ending when the source keeps ends), which every reader skips as it skipped them before.
    """
    first_blank: int | None = None
    blanks = 0
    blank_text = ""
    found: tuple[int, str] | None = None
    for item in lines:
        if item[1].strip():
            found = item
            break
        if first_blank is None:
            first_blank = item[0]
            # A blank line's own ending, so a reader that keeps line ends sees a line end.
            blank_text = "\n" if item[1].endswith(("\n", "\r")) else ""
        blanks += 1

    def chained() -> Iterator[tuple[int, str]]:
        if first_blank is not None:
            for lineno in range(first_blank, first_blank + blanks):
                yield lineno, blank_text
        if found is not None:
            yield found
            yield from lines

    return (found[1].strip() if found is not None else ""), chained()


_FORMAT_BY_EXTENSION = {
    "tsv": "tsv",
    "txt": "tsv",
    "csv": "csv",
    "jsonl": "jsonl",
    "ndjson": "jsonl",
    "json": "jsonl",
}


def detect_format(path: str, first_line: str, allowed: tuple[str, ...]) -> str:
    """The format the extension names, if it is one of ``allowed``; otherwise the content
    decides: a first non-blank line that starts with ``{`` is JSONL, anything else is the
    first of ``allowed`` (the tabular format)."""
    ext = path.lower().rsplit(".", 1)[-1] if "." in path else ""
    fmt = _FORMAT_BY_EXTENSION.get(ext)
    if fmt in allowed:
        return fmt
    return "jsonl" if first_line.startswith("{") and "jsonl" in allowed else allowed[0]


def json_object(text: str, line: int, fields: Fields) -> dict:
    try:
        record = inputs.loads(text)
    except inputs.BadInput as exc:
        raise fields.fail(line, str(exc)) from None
    if not isinstance(record, dict):
        raise fields.fail(line, _("a JSON line must be an object ({...})"))
    return record


def pick(record: dict, keys: tuple[str, ...]) -> object | None:
    for key in keys:
        if key in record:
            return record[key]
    return None


class Fields:
    """Parsers for one line's fields that fail with the line's position."""

    def __init__(self, path: str) -> None:
        self.path = path

    def fail(self, line: int | None, message: str) -> ImportFailed:
        return ImportFailed(self.path, line, message)

    def unknown_query(self, line: int, qid: str) -> ImportFailed:
        """The error of a line that names a query the campaign does not have."""
        return self.fail(
            line,
            _("query %(qid)s is not in this campaign: import the queries first")
            % {"qid": repr(qid)},
        )

    def number(self, text: str, line: int, what: str) -> float:
        # float() also takes "1_000", "nan" and "inf"; none of them is a score or a grade.
        try:
            value = float(text) if "_" not in text else math.nan
        except ValueError:
            value = math.nan
        if not math.isfinite(value):
            raise self.fail(
                line, _("%(what)s %(text)s is not a number") % {"what": what, "text": repr(text)}
            )
        return value

    def integer(self, text: str, line: int, what: str) -> int:
        try:
            value = int(text) if "_" not in text else None
        except ValueError:
            value = None
        if value is None:
            raise self.fail(
                line,
                _("%(what)s %(text)s is not a whole number") % {"what": what, "text": repr(text)},
            )
        if not -(2**31) <= value < 2**31:
            raise self.fail(
                line, _("%(what)s %(text)s is out of range") % {"what": what, "text": repr(text)}
            )
        return value

    def ident(self, value: Any, line: int, what: str, max_length: int) -> str:
        """An external id: text (or a JSON number), not empty, no whitespace (TREC files split
        on whitespace, so such an id could never be matched), within the column's length."""
        if isinstance(value, bool) or not isinstance(value, str | int):
            raise self.fail(
                line,
                _("%(what)s must be text, got %(value)s") % {"what": what, "value": repr(value)},
            )
        text = str(value)
        if not text:
            raise self.fail(line, _("%(what)s is empty") % {"what": what})
        if text.split() != [text]:  # one C call, unlike a loop over the characters
            raise self.fail(
                line,
                _("%(what)s %(text)s contains whitespace") % {"what": what, "text": repr(text)},
            )
        if len(text) > max_length:
            raise self.fail(
                line,
                _("%(what)s is longer than %(max_length)s characters")
                % {"what": what, "max_length": max_length},
            )
        return text

    def name(self, text: str, line: int | None, what: str) -> str:
        """A name (run, system, label source): 1 to ``name`` characters, no control
        character; names end up in file names, CSV cells, HTTP headers and chart labels."""
        try:
            return inputs.check_name(text, what)
        except inputs.BadInput as exc:
            raise self.fail(line, str(exc)) from None

    def text(self, value: str, line: int, what: str, limit_name: str) -> str:
        """Free text within the ``limit_name`` limit, holding nothing the database refuses."""
        problem = inputs.text_problem(value, max_length=inputs.limit(limit_name))
        if problem is not None:
            raise self.fail(line, f"{what} {problem}")
        return value


def query_map(campaign: Campaign) -> dict[str, int]:
    """external id -> pk for the campaign's queries, built once per import."""
    rows = Query.objects.filter(campaign=campaign).values_list("external_id", "pk")
    return dict(rows.iterator(chunk_size=20_000))


def document_map(campaign: Campaign) -> dict[str, int]:
    """external id -> pk for the campaign's documents. For a million documents this is about
    150 MB: the price of resolving each line without a query per line."""
    rows = Document.objects.filter(campaign=campaign).values_list("external_id", "pk")
    return dict(rows.iterator(chunk_size=20_000))


def create_placeholders(campaign: Campaign, doc_map: dict[str, int], ext_ids: Iterable[str]) -> int:
    """Create placeholder documents for the ids the map does not know and add them to it."""
    missing = [ext for ext in dict.fromkeys(ext_ids) if ext not in doc_map]
    if missing:
        doc_map.update(insert_placeholders(campaign.pk, missing))
    return len(missing)


@contextmanager
def atomic_import(path: str) -> Iterator[None]:
    """The import's one transaction. A unique constraint that fails outside the checks that
    name a line means another import wrote the same rows meanwhile; report it like a bad file
    (nothing was written) rather than as a crash."""
    try:
        with transaction.atomic():
            yield
    except IntegrityError:
        raise ImportFailed(
            path,
            None,
            _(
                "the campaign changed while this file was imported (another import at the same "
                "time?); nothing was imported, try again"
            ),
        ) from None


@dataclass
class ImportJob:
    """One import under way: the file's numbered lines, the field parsers that name its lines in
    errors, and the summary being filled."""

    lines: LineSource
    fields: Fields
    summary: ImportSummary


@contextmanager
def importing(
    file: FileArg,
    name: str | None,
    *,
    kind: str,
    noun: str,
    progress: Progress | None = None,
    keep_ends: bool = False,
    outside: AbstractContextManager[Any] | None = None,
) -> Iterator[ImportJob]:
    """What every importer does around its own reading: name the file for messages (``name``,
    else the path), open it, run the body in the import's one transaction (:func:`atomic_import`)
    and, once the body has succeeded, record how many lines were read. ``outside`` is entered
    after the file is opened and before the transaction begins, for a setting that must be put
    back after a rollback too."""
    path = display_name(file, name)
    summary = ImportSummary(kind=kind, path=path, noun=noun)
    with (
        LineSource(file, path=path, progress=progress, keep_ends=keep_ends) as lines,
        outside if outside is not None else nullcontext(),
        atomic_import(path),
    ):
        yield ImportJob(lines, Fields(path), summary)
        summary.lines = lines.lines


def placeholder_warning(summary: ImportSummary) -> None:
    """The warning for the documents an import had to create as placeholders, if it did."""
    if summary.placeholders:
        summary.warnings.append(
            _(
                "%(placeholders)s documents were not in the campaign and were created "
                "as placeholders (known by id only): import their documents to show "
                "them to raters"
            )
            % {"placeholders": format(summary.placeholders, ",")}
        )


def insert_batch(
    write: Callable[[], None], find_duplicate: Callable[[], ImportFailed | None]
) -> None:
    """Write one batch; if a unique constraint refuses it, raise the error that names the
    offending line (``find_duplicate``) instead of a bare IntegrityError.

    The savepoint matters on PostgreSQL, where a failed statement would otherwise leave the
    transaction unusable for the queries that look for the culprit. Duplicates are caught by the
    database rather than by a Python set of every (query, document) seen, so memory does not
    grow with the number of lines.
    """
    try:
        with transaction.atomic():
            write()
    except IntegrityError:
        error = find_duplicate()
        if error is None:
            raise
        raise error from None
