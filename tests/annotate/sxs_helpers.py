"""Builders for side-by-side tests: two runs of a campaign with chosen top lists per query.

System and run names and scores are distinctive strings, so blindness tests can look for them
in everything a rater receives.
"""

from __future__ import annotations

import json

from django.test import Client
from django.urls import reverse

from annotate.models import Document, Query, Run, RunEntry, System
from annotate.services.sxs_setup import comparison_create

BASE_SYSTEM = "PRODSYSTEM-XQ7"
CAND_SYSTEM = "BERTSYSTEM-ZK9"
BASE_RUN = "RUNBASE-7731"
CAND_RUN = "RUNCAND-9917"
SCORE_TOP = 91.123457  # scores are SCORE_TOP - i: none of their digits may reach a rater


def build_runs(campaign, lists: dict[str, tuple[list[str], list[str]]]) -> tuple[Run, Run]:
    """Queries `qid` with baseline and candidate documents in ranking order (by score).

    The rank column is written in reverse, so anything that orders by rank instead of score
    shows the wrong order.
    """
    base_system = System.objects.create(campaign=campaign, name=BASE_SYSTEM)
    cand_system = System.objects.create(campaign=campaign, name=CAND_SYSTEM)
    baseline = Run.objects.create(campaign=campaign, system=base_system, name=BASE_RUN)
    candidate = Run.objects.create(campaign=campaign, system=cand_system, name=CAND_RUN)
    docs: dict[str, Document] = {}
    entries = []
    for qid, (base_docs, cand_docs) in lists.items():
        query = Query.objects.create(
            campaign=campaign, external_id=qid, text=f"query text {qid}", description=""
        )
        for run, doc_ids in ((baseline, base_docs), (candidate, cand_docs)):
            for i, doc_id in enumerate(doc_ids):
                if doc_id not in docs:
                    docs[doc_id] = Document.objects.create(
                        campaign=campaign,
                        external_id=doc_id,
                        title=f"Title of {doc_id}",
                        url=f"https://example.org/{doc_id}",
                        snippet=f"Snippet of {doc_id}.",
                    )
                entries.append(
                    RunEntry(
                        run=run,
                        query=query,
                        document=docs[doc_id],
                        rank=len(doc_ids) - i,
                        score=SCORE_TOP - i,
                    )
                )
    RunEntry.objects.bulk_create(entries)
    return baseline, candidate


def make_comparison(campaign, lists, **options):
    baseline, candidate = build_runs(campaign, lists)
    options.setdefault("name", "PRODSYSTEM vs BERTSYSTEM")
    options.setdefault("min_queries", 30)
    # No mirrored duplicates unless a test asks: which answer draws one depends on the
    # comparison's random secret, so a test counting tasks would fail now and then.
    options.setdefault("mirror_share", 0)
    return comparison_create(campaign=campaign, baseline=baseline, candidate=candidate, **options)


def distinct_lists(n: int, depth: int = 3) -> dict[str, tuple[list[str], list[str]]]:
    """n queries whose two lists differ (so no task is identical)."""
    return {
        f"q{i}": ([f"q{i}-a{j}" for j in range(depth)], [f"q{i}-b{j}" for j in range(depth)])
        for i in range(n)
    }


def sxs_url(comparison, name: str = "sxs", **extra) -> str:
    kwargs = {"slug": comparison.campaign.slug, "comparison_id": comparison.pk, **extra}
    return reverse(f"annotate:{name}", kwargs=kwargs)


def report_url(comparison, name: str = "sxs_report", **extra) -> str:
    return sxs_url(comparison, name, **extra)


def post_json(client: Client, url: str, body, **headers):
    data = body if isinstance(body, str | bytes) else json.dumps(body)
    return client.post(url, data=data, content_type="application/json", **headers)


def task_handle(user, task) -> str:
    """The user's handle for a side-by-side task (or its id), as their pages name it."""
    from annotate.judging import handles

    return handles.handle_for(user.pk, handles.SXS, getattr(task, "pk", task))


def task_id(user, handle: str) -> int:
    """The task id a user's handle names."""
    from annotate.judging import handles

    return handles.task_id_for(user.pk, handles.SXS, handle)
