"""Helpers shared by the importer tests (tests/annotate/services/imports/test_import_*.py)."""

from __future__ import annotations

from pathlib import Path

from annotate.models import (
    Document,
    LabelSource,
    Query,
    Run,
    RunEntry,
    SourceLabel,
    System,
)

AFFECTED = (Query, Document, System, Run, RunEntry, LabelSource, SourceLabel)


def make_campaign(slug: str = "imports"):
    """A campaign with the default scale: Good 3, Fair 2, Bad 1."""
    from annotate.services.campaigns import campaign_create

    return campaign_create(name=f"Campaign {slug}", slug=slug)


def write(tmp_path: Path, name: str, text: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def counts() -> dict[str, int]:
    """Rows of every model an import may write, to show that a failed one wrote nothing."""
    return {model.__name__: model.objects.count() for model in AFFECTED}


def add_queries(campaign, *qids: str) -> None:
    Query.objects.bulk_create(
        Query(campaign=campaign, external_id=qid, text=f"text of {qid}") for qid in qids
    )


def add_documents(campaign, *docnos: str) -> None:
    Document.objects.bulk_create(
        Document(campaign=campaign, external_id=d, title=f"title of {d}") for d in docnos
    )
