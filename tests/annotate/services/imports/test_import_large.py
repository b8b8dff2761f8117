"""A generated run of 100,000 lines (the million-line case is in benchmarks/bench_import.py)."""

from __future__ import annotations

import random

import pytest

from annotate.models import Document, Query, Run, RunEntry
from annotate.services.imports import import_qrels, import_run
from tests.annotate.import_support import make_campaign

QUERIES, DOCS = 1_000, 100


@pytest.fixture
def campaign(db):
    campaign = make_campaign()
    Query.objects.bulk_create(
        Query(campaign=campaign, external_id=f"q{i}", text=f"query {i}") for i in range(QUERIES)
    )
    # Documents d0..d9999 are known; the run draws from d0..d49999, so most become placeholders.
    Document.objects.bulk_create(
        Document(campaign=campaign, external_id=f"d{i}", title=f"doc {i}") for i in range(10_000)
    )
    return campaign


def generated_run(path, seed: int = 7) -> tuple[set[str], dict[tuple[str, int], tuple[str, float]]]:
    """Write the run; return its distinct documents and a sample of (qid, rank) -> (doc, score)."""
    rng = random.Random(seed)
    docs: set[str] = set()
    sample: dict[tuple[str, int], tuple[str, float]] = {}
    with open(path, "w") as fh:
        for q in range(QUERIES):
            for rank, d in enumerate(rng.sample(range(50_000), DOCS), start=1):
                score = round(100 - rank * 0.5 + rng.random() * 0.1, 4)
                fh.write(f"q{q} Q0 d{d} {rank} {score} big\n")
                docs.add(f"d{d}")
                if rank in (1, 100) and q % 100 == 0:
                    sample[(f"q{q}", rank)] = (f"d{d}", score)
    return docs, sample


def test_a_100k_line_run_imports_every_line(campaign, tmp_path):
    path = tmp_path / "big.run"
    docs, sample = generated_run(path)
    unknown = {d for d in docs if int(d[1:]) >= 10_000}
    heard: list[int] = []
    summary = import_run(campaign=campaign, file=path, progress=heard.append)
    assert (summary.lines, summary.created) == (QUERIES * DOCS, QUERIES * DOCS)
    assert summary.placeholders == len(unknown)
    run = Run.objects.get(campaign=campaign, name="big")
    assert RunEntry.objects.filter(run=run).count() == QUERIES * DOCS
    assert Document.objects.filter(campaign=campaign, is_placeholder=True).count() == len(unknown)
    assert heard[-1] == QUERIES * DOCS and len(heard) > 10
    got = {
        (e.query.external_id, e.rank): (e.document.external_id, e.score)
        for e in RunEntry.objects.filter(run=run, rank__in=(1, 100)).select_related(
            "query", "document"
        )
        if e.query.external_id in {qid for qid, _ in sample}
    }
    assert got == sample

    # The qrels of the same documents reuse the placeholders instead of making new ones.
    qrels = tmp_path / "big.qrels"
    qrels.write_text("".join(f"q0 0 {d} 1\n" for d in sorted(docs)[:500]))
    assert import_qrels(campaign=campaign, file=qrels, source_name="s").placeholders == 0
