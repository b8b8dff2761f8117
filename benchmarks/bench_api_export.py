"""API export benchmark: a million grades streamed as CSV, and their qrels as TREC text and JSON.

Builds a campaign of ``queries`` queries x ``docs`` pool items, each graded by ``raters``
raters (10,000 x 25 x 4 = 1,000,000 grades by default; rows are written below the ORM, as the
importers write them), then asks the API for them through the whole WSGI stack (middleware,
token authentication, permissions, filtering, renderers) in this process, as a script with a
token would:

- ``GET /api/v1/grades/?campaign=...&format=csv``: every grade, one CSV row each;
- ``GET /api/v1/campaigns/<slug>/qrels/``: the grades aggregated (mean) into TREC qrels;
- ``GET /api/v1/campaigns/<slug>/qrels/?format=json``: the same as streamed JSON.

For each it reports rows, bytes, wall and CPU time, rows per second, and memory: the resident
set before the request and the largest growth seen while the body was read (sampled at every
chunk), so "flat" means the growth does not depend on the number of rows. Reading the body
counts the bytes and throws them away, as a client writing to a file would.

Run it on a throw-away database, never the development one::

    DATABASE_URL=sqlite:////tmp/bench_api.sqlite3 .venv/bin/python benchmarks/bench_api_export.py
    createdb -h 127.0.0.1 -U postgres bench_api
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench_api \\
        .venv/bin/python benchmarks/bench_api_export.py
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

from benchmarks.bench_import import cpu_s, rss_mb  # noqa: E402


def build(*, queries: int, docs: int, raters: int, seed: int):
    """The campaign and a manager's token; grades drawn from the default scale."""
    from django.contrib.auth import get_user_model
    from django.db import transaction
    from django.utils import timezone
    from knox.models import AuthToken

    from annotate.models import Document, Grade, PoolItem, Query, Role
    from annotate.services.campaigns import campaign_create, membership_set
    from annotate.services.imports.fastinsert import insert_rows

    stamp = int(time.time())
    User = get_user_model()
    manager = User.objects.create_user(username=f"bench-manager-{stamp}", password="x")
    campaign = campaign_create(
        name="API export benchmark", slug=f"bench-api-{stamp}", created_by=manager
    )
    people = []
    for r in range(raters):
        user = User.objects.create_user(username=f"bench-rater-{stamp}-{r}", password="x")
        membership_set(campaign=campaign, user=user, role=Role.RATER)
        people.append(user.pk)
    labels = list(campaign.labels.values_list("pk", flat=True))
    rng = np.random.default_rng(seed)
    now = timezone.now()
    with transaction.atomic():
        Query.objects.bulk_create(
            (
                Query(campaign=campaign, external_id=f"q{q:05d}", text=f"query {q}")
                for q in range(queries)
            ),
            batch_size=5_000,
        )
        qids = dict(campaign.queries.values_list("external_id", "pk"))
        insert_rows(
            Document,
            ["campaign_id", "external_id", "title", "url", "snippet", "extra", "is_placeholder"],
            (
                (campaign.pk, f"q{q:05d}-d{d:02d}", f"document {d}", "", "", "{}", False)
                for q in range(queries)
                for d in range(docs)
            ),
        )
        dids = dict(campaign.documents.values_list("external_id", "pk"))
        insert_rows(
            PoolItem,
            # counted: the grade triggers keep it (annotate.counted); COPY skips the default.
            ["campaign_id", "query_id", "document_id", "origin", "created_at", "counted"],
            (
                (campaign.pk, qids[f"q{q:05d}"], dids[f"q{q:05d}-d{d:02d}"], "pooling", now, 0)
                for q in range(queries)
                for d in range(docs)
            ),
        )
        items = list(
            PoolItem.objects.filter(campaign=campaign).order_by("pk").values_list("pk", flat=True)
        )
        picks = rng.integers(0, len(labels), size=len(items) * raters)
        seconds = np.round(rng.gamma(2.0, 3.0, size=len(items) * raters), 2)
        insert_rows(
            Grade,
            [
                "pool_item_id",
                "rater_id",
                "label_id",
                "cant_judge",
                "comment",
                "seconds",
                "created_at",
                "changed_at",
            ],
            (
                (
                    item,
                    rater,
                    labels[picks[i * raters + j]],
                    False,
                    "",
                    float(seconds[i * raters + j]),
                    now,
                    now,
                )
                for i, item in enumerate(items)
                for j, rater in enumerate(people)
            ),
        )
    _, token = AuthToken.objects.create(user=manager)
    return campaign, token, len(items) * raters, len(items)


def stream(client, url: str, token: str) -> tuple[int, int, float, float, float, float]:
    """(lines, bytes, wall s, CPU s, RSS before MB, largest growth MB) of one streamed answer."""
    gc.collect()
    before = rss_mb()
    grown = 0.0
    t0, c0 = time.perf_counter(), cpu_s()
    response = client.get(url, HTTP_AUTHORIZATION=f"Token {token}")
    assert response.status_code == 200, response.content[:500]
    lines = size = 0
    for i, chunk in enumerate(response.streaming_content):
        size += len(chunk)
        lines += chunk.count(b"\n")
        if i % 16 == 0:
            grown = max(grown, rss_mb() - before)
    response.close()
    wall, cpu = time.perf_counter() - t0, cpu_s() - c0
    return lines, size, wall, cpu, before, max(grown, rss_mb() - before)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--docs", type=int, default=25, help="pool items per query")
    parser.add_argument("--raters", type=int, default=4, help="grades per pool item")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if not os.environ.get("DATABASE_URL"):
        sys.exit("Set DATABASE_URL to a throw-away database (see the docstring).")

    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client

    # One script asking many times must not be throttled while it is measured.
    settings.REST_FRAMEWORK["DEFAULT_THROTTLE_CLASSES"] = []
    call_command("migrate", verbosity=0)
    t0 = time.perf_counter()
    campaign, token, n_grades, n_items = build(
        queries=args.queries, docs=args.docs, raters=args.raters, seed=args.seed
    )
    print(
        f"database: {connection.vendor}; campaign {campaign.slug}: {n_items:,} pool items, "
        f"{n_grades:,} grades, built in {time.perf_counter() - t0:.1f} s"
    )
    client = Client(SERVER_NAME="localhost")
    slug = campaign.slug
    cases = [
        ("grades CSV", f"/api/v1/grades/?campaign={slug}&format=csv", n_grades, 1),
        ("qrels TREC", f"/api/v1/campaigns/{slug}/qrels/", n_grades, 0),
        ("qrels JSON", f"/api/v1/campaigns/{slug}/qrels/?format=json", n_grades, 0),
    ]
    # The first API request imports the metrics stack and compiles the URLconf: not measured.
    client.get("/api/v1/me/", HTTP_AUTHORIZATION=f"Token {token}")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print("| answer | lines | MB | wall | CPU | grades/s | RSS before | largest growth |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    qrels_lines = 0
    for name, url, grades, header in cases:
        lines, size, wall, cpu, before, grown = stream(client, url, token)
        if name == "grades CSV":
            assert lines - header == n_grades, (lines, n_grades)
        if name == "qrels TREC":
            qrels_lines = lines
        if name == "qrels JSON":  # one line in all: count the records it holds
            lines = qrels_lines
        print(
            f"| {name} | {lines - header:,} | {size / 2**20:.0f} | {wall:.1f} s | {cpu:.1f} s | "
            f"{grades / wall:,.0f} | {before:.0f} MB | {grown:.0f} MB |"
        )
    print(f"load average {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
