"""A small, seeded campaign for the report tests: queries, documents, scored runs with tied
scores, a pool and grades by several raters (real-valued means, can't-judge answers), plus
writers for the TREC files the command line reads."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from django.contrib.auth import get_user_model

from annotate.models import (
    Campaign,
    Document,
    Grade,
    Membership,
    PoolItem,
    Query,
    Role,
    Run,
    RunEntry,
    System,
)


@dataclass
class World:
    campaign: Campaign
    raters: list
    runs: list[Run]
    queries: list[Query]


def make_raters(campaign: Campaign, n: int, prefix: str = "judge") -> list:
    users = []
    for i in range(n):
        user = get_user_model().objects.create_user(username=f"{prefix}{i + 1}")
        Membership.objects.create(campaign=campaign, user=user, role=Role.RATER)
        users.append(user)
    return users


def make_world(
    campaign: Campaign,
    *,
    n_queries: int = 8,
    docs_per_query: int = 14,
    depth: int = 10,
    run_names: tuple[str, ...] = ("alpha", "beta", "gamma"),
    n_raters: int = 3,
    seed: int = 7,
    missing: tuple[str, str] | None = ("gamma", "q03"),
    rater_prefix: str = "judge",
) -> World:
    """Every query gets at least one counted grade (so the exported qrels name every query, as
    the command line needs to count it). `missing`: (run, query) left without results."""
    rng = np.random.default_rng(seed)
    raters = make_raters(campaign, n_raters, prefix=rater_prefix)
    queries = Query.objects.bulk_create(
        Query(campaign=campaign, external_id=f"q{i + 1:02d}", text=f"query number {i + 1}")
        for i in range(n_queries)
    )
    queries = list(campaign.queries.order_by("external_id"))
    # Ids chosen so byte order and numeric order differ ("d10" < "d9"), plus a shared doc.
    Document.objects.bulk_create(
        Document(campaign=campaign, external_id=f"{q.external_id}-d{j}", title=f"doc {j}")
        for q in queries
        for j in range(docs_per_query)
    )
    Document.objects.create(campaign=campaign, external_id="shared", title="in every query")
    docs = {d.external_id: d for d in campaign.documents.all()}
    runs = []
    for name in run_names:
        system = System.objects.create(campaign=campaign, name=name)
        run = Run.objects.create(campaign=campaign, system=system, name=name)
        entries = []
        for q in queries:
            if missing and (name, q.external_id) == missing:
                continue
            pool = [f"{q.external_id}-d{j}" for j in range(docs_per_query)] + ["shared"]
            chosen = rng.choice(len(pool), size=depth + 2, replace=False)
            # One decimal: ties happen, and THE order breaks them by document id.
            scores = np.round(rng.uniform(0, 3, size=chosen.size), 1)
            for rank, (i, s) in enumerate(zip(chosen, scores, strict=True), start=1):
                entries.append(
                    RunEntry(run=run, query=q, document=docs[pool[i]], rank=rank, score=float(s))
                )
        RunEntry.objects.bulk_create(entries)
        runs.append(run)
    labels = list(campaign.labels.order_by("grade"))
    items = []
    for q in queries:
        names = [f"{q.external_id}-d{j}" for j in range(docs_per_query)] + ["shared"]
        for ext in names:
            if rng.random() < 0.8:
                items.append(PoolItem(campaign=campaign, query=q, document=docs[ext]))
    PoolItem.objects.bulk_create(items)
    grades = []
    for item in PoolItem.objects.filter(campaign=campaign).order_by("pk"):
        who = rng.choice(len(raters), size=rng.integers(1, len(raters) + 1), replace=False)
        for r in who:
            if rng.random() < 0.06:
                grades.append(Grade(pool_item=item, rater=raters[r], cant_judge=True))
            else:
                label = labels[int(rng.integers(0, len(labels)))]
                grades.append(
                    Grade(
                        pool_item=item,
                        rater=raters[r],
                        label=label,
                        seconds=float(rng.uniform(2, 30)),
                    )
                )
    Grade.objects.bulk_create(grades)
    return World(campaign=campaign, raters=raters, runs=runs, queries=queries)


def write_run(run: Run, path: Path) -> Path:
    """The run as a TREC file (qid Q0 docno rank score tag), scores written exactly."""
    rows = RunEntry.objects.filter(run=run).order_by("query__external_id", "rank")
    with path.open("w", encoding="utf-8") as out:
        for qid, docno, rank, score in rows.values_list(
            "query__external_id", "document__external_id", "rank", "score"
        ):
            out.write(f"{qid} Q0 {docno} {rank} {score!r} {run.name}\n")
    return path


def write_chunks(chunks, path: Path) -> Path:
    with path.open("w", encoding="utf-8", newline="") as out:
        for chunk in chunks:
            out.write(chunk)
    return path
