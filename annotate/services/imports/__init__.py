"""Importers: queries, documents, TREC runs, TREC qrels and seed 004's ``label qid score``.

Every importer streams its file line by line, writes in batches, runs in one transaction (a bad
line anywhere leaves the database as it was) and reports a bad line as ``file:line: what is
wrong`` through :class:`ImportFailed`. ``file`` is a path or an open file, binary (decoded
line by line, so a byte that is not UTF-8 is reported at its line) or text.
"""

from __future__ import annotations

from django.utils.translation import gettext as _

from annotate.models import Campaign
from annotate.services.imports.common import FileArg, ImportFailed, ImportSummary, Progress
from annotate.services.imports.documents import import_documents
from annotate.services.imports.qrels import import_qrels
from annotate.services.imports.queries import import_queries
from annotate.services.imports.runs import import_run
from annotate.services.imports.scored import import_scored, scored_document_id

IMPORT_KINDS = ("queries", "documents", "run", "qrels", "scored")

__all__ = [
    "IMPORT_KINDS",
    "ImportFailed",
    "ImportSummary",
    "import_documents",
    "import_file",
    "import_qrels",
    "import_queries",
    "import_run",
    "import_scored",
    "scored_document_id",
]


def import_file(
    *,
    campaign: Campaign,
    kind: str,
    file: FileArg,
    filename: str,
    name: str = "",
    system: str = "",
    per_tag: bool = False,
    source: str = "",
    any_grade: bool = False,
    replace: bool = False,
    progress: Progress | None = None,
) -> ImportSummary:
    """One entry point for the upload form: run the importer of ``kind`` with the options that
    apply to it. ``name`` is the run name (run, scored); ``source`` the label source name
    (qrels; scored, default the run name)."""
    common = {"campaign": campaign, "file": file, "progress": progress}
    if kind == "queries":
        return import_queries(name=filename, **common)
    if kind == "documents":
        return import_documents(name=filename, **common)
    if kind == "run":
        return import_run(
            filename=filename,
            name=name or None,
            system=system or None,
            per_tag=per_tag,
            replace=replace,
            **common,
        )
    if kind == "qrels":
        return import_qrels(
            name=filename,
            source_name=source,
            strict_scale=not any_grade,
            replace=replace,
            **common,
        )
    if kind == "scored":
        return import_scored(
            filename=filename,
            name=name,
            system=system or None,
            source_name=source or None,
            strict_scale=not any_grade,
            replace=replace,
            **common,
        )
    raise ValueError(
        _("unknown import kind %(kind)s: use one of %(names)s")
        % {"kind": repr(kind), "names": ", ".join(IMPORT_KINDS)}
    )
