"""TREC runs: ``qid Q0 docno rank score tag``, one run per file or one per tag."""

from __future__ import annotations

from django.db import IntegrityError
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext

from annotate.models import Campaign, Run, RunEntry, System
from annotate.services.imports.common import (
    MAX_DOCUMENT_ID,
    Fields,
    FileArg,
    ImportFailed,
    ImportSummary,
    LineSource,
    Progress,
    display_name,
    importing,
    placeholder_warning,
    query_map,
)
from annotate.services.imports.staging import RunStaging, sqlite_cache

RUN_COLUMNS = "qid Q0 docno rank score tag"
ENTRY_COLUMNS = ("run_id", "query_id", "document_id", "rank", "score")


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
    fields.name(name, line, _("run name"))
    fields.name(system_name, line, _("system name"))
    system, created = System.objects.get_or_create(campaign=campaign, name=system_name)
    if created:
        summary.systems_created.append(system_name)
    run = Run.objects.filter(campaign=campaign, name=name).first()
    if run is not None and not replace:
        raise fields.fail(
            line,
            _(
                "run %(name)s already exists in this campaign: give another name, or "
                "replace it (--replace)"
            )
            % {"name": repr(name)},
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
        summary.warnings.append(_("run %(name)s replaced") % {"name": repr(name)})
    summary.runs.append(name)
    return run


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

    Each line is checked as it is read and staged (``staging.RunStaging``); the documents and
    entries are then written by a few set-based statements, all in the import's one transaction.
    """
    if per_tag and (name or system):
        raise ImportFailed(
            display_name(file, filename),
            None,
            _(
                "one run per tag takes run and system names from the tags: give no run "
                "name and no system"
            ),
        )
    noun = pgettext("import summary", "run entries")
    with (
        importing(
            file, filename, kind="run", noun=noun, progress=progress, outside=sqlite_cache()
        ) as job,
        RunStaging(campaign.pk) as staging,
    ):
        reader = _RunReader(campaign, staging, job.summary, name, system, per_tag, replace)
        reader.read(job.lines)
        reader.warn_trailing()
        reader.write(job.lines.lines, progress)
    if not reader.runs:
        job.summary.warnings.append(_("the file has no run lines: nothing was imported"))
    placeholder_warning(job.summary)
    return job.summary


class _RunReader:
    """Checks each line of a run file and stages it; opens the runs its tags name."""

    def __init__(
        self,
        campaign: Campaign,
        staging: RunStaging,
        summary: ImportSummary,
        name: str | None,
        system: str | None,
        per_tag: bool,
        replace: bool,
    ) -> None:
        self.campaign, self.staging, self.summary = campaign, staging, summary
        self.name, self.system, self.per_tag, self.replace = name, system, per_tag, replace
        self.fields = Fields(summary.path)
        self.qmap = query_map(campaign)
        self.runs: dict[str, Run] = {}
        self.trailing = 0  # lines with fields after the sixth
        self.first_trailing: int | None = None
        self.first_tag: tuple[str, int] | None = None  # (tag, line)
        self.mixed_tags = False

    def read(self, source: LineSource) -> None:
        """Check and stage every line. Repeated documents are looked for only once lines are
        staged: a repeat before a bad line is the file's first error, so it is the one
        reported."""
        try:
            self.stage(source)
        except ImportFailed as exc:
            if exc.line is not None:
                self.raise_first_repeat(before=exc.line)
            raise

    def write(self, lines: int, progress: Progress | None) -> None:
        """Create the placeholder documents and write the staged entries."""
        # Progress again between the long statements: a job's cancel takes effect at its
        # next report, and the lines are all read by now.
        report = progress or (lambda done: None)
        with self.staging.checked_by_joins():
            self.summary.placeholders = self.staging.create_placeholders()
            report(lines)
            try:
                self.summary.created = self.staging.insert_entries()
            except IntegrityError:
                self.raise_first_repeat()
                raise  # not a repeat in the file: another import wrote meanwhile
        report(lines)

    def columns(self, line: int, text: str) -> list[str] | None:
        """The line's six fields (None for a blank line). trec_eval reads a run line's first six
        fields and skips the rest (get_trec_results.c), so fields after the tag are ignored and
        counted for one warning; fewer than six is an error."""
        cols = text.split()
        if not cols:
            return None
        if len(cols) < 6:
            message = _("too few columns: expected 6 (%(columns)s), found %(n)s")
            raise self.fields.fail(line, message % {"columns": RUN_COLUMNS, "n": len(cols)})
        if len(cols) > 6:
            self.trailing += 1
            if self.first_trailing is None:
                self.first_trailing = line
        return cols[:6]

    def warn_trailing(self) -> None:
        """One warning for every line that had fields after the tag."""
        if self.trailing:
            self.summary.warnings.append(
                ngettext(
                    "%(n)s line has more than 6 fields (line %(line)s): the fields after the "
                    "sixth were ignored, as trec_eval ignores them",
                    "%(n)s lines have more than 6 fields (the first at line %(line)s): the "
                    "fields after the sixth were ignored, as trec_eval ignores them",
                    self.trailing,
                )
                % {"n": self.trailing, "line": self.first_trailing}
            )

    def stage(self, source: LineSource) -> None:
        """Check each line and stage it. The loop runs for each of a million lines, so the
        tag's run is looked up only when the tag changes (:meth:`run_for`)."""
        fields, qmap, add = self.fields, self.qmap, self.staging.add
        # Translated once: gettext per line was two thirds of the client's time on a big file.
        rank_label, score_label = _("rank"), _("score")
        tag_now: str | None = None  # the tag of the line before, whose run is run_pk
        run_pk = 0
        for line, text in source:
            cols = self.columns(line, text)
            if cols is None:
                self.summary.skipped += 1
                continue
            qid, _q0, docno, rank_text, score_text, tag = cols
            if len(docno) > MAX_DOCUMENT_ID:  # split() leaves it non-empty, without whitespace
                fields.ident(docno, line, _("document id"), MAX_DOCUMENT_ID)
            rank = fields.integer(rank_text, line, rank_label)
            score = fields.number(score_text, line, score_label)
            query_id = qmap.get(qid)
            if query_id is None:
                raise fields.unknown_query(line, qid)
            if tag != tag_now:
                run_pk, tag_now = self.run_for(tag, line), tag
            add((line, run_pk, query_id, docno, rank, score))

    def run_for(self, tag: str, line: int) -> int:
        """The run (its pk) of a line whose tag differs from the line before's: its tag's run
        with ``per_tag``, else the file's one run, opened on first use. Without ``per_tag``, a
        tag other than the first is an error unless the run is named, and then one warning.
        (A line with the tag of the line before passed these checks with it.)"""
        if self.first_tag is None:
            self.first_tag = (tag, line)
        elif not self.per_tag and tag != self.first_tag[0]:
            self.other_tag(tag, line, self.first_tag)
        key = tag if self.per_tag else ""
        run = self.runs.get(key)
        if run is None:
            run = self.runs[key] = open_run(
                campaign=self.campaign,
                name=tag if self.per_tag else (self.name or tag),
                system_name=tag if self.per_tag else (self.system or self.first_tag[0]),
                replace=self.replace,
                line=line,
                fields=self.fields,
                summary=self.summary,
            )
        return run.pk

    def other_tag(self, tag: str, line: int, first: tuple[str, int]) -> None:
        """A tag other than the first (``first``: its tag and line) in a file that makes one
        run."""
        first_tag, first_line = first
        if not self.name:
            raise self.fields.fail(
                line,
                _(
                    "tag %(tag)s differs from %(first_tag)s (line %(line)s): import "
                    "one run per tag (--per-tag) or name the run (--name)"
                )
                % {"tag": repr(tag), "first_tag": repr(first_tag), "line": first_line},
            )
        if not self.mixed_tags:
            self.summary.warnings.append(
                _("the file has several tags; all went into %(name)s") % {"name": repr(self.name)}
            )
        self.mixed_tags = True

    def raise_first_repeat(self, before: int | None = None) -> None:
        """Raise the error of the file's first repeated document (before line ``before``), if
        there is one."""
        found = self.staging.first_repeat(before)
        if found is None:
            return
        line, first, run_pk, query_pk, docno = found
        run = next(r for r in self.runs.values() if r.pk == run_pk)
        qid = next(q for q, pk in self.qmap.items() if pk == query_pk)
        raise self.fields.fail(
            line,
            _(
                "document %(docno)s is listed twice for query %(qid)s in run %(run)s (first "
                "at line %(first)s)"
            )
            % {"docno": repr(docno), "qid": repr(qid), "run": repr(run.name), "first": first},
        ) from None
