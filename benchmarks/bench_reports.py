"""Reports benchmark: a campaign of 10,000 queries, 5 systems x 100 documents per query
(5,000,000 run entries) and 200,000 grades (100,000 pool items, two of ten raters each).

Measures, on whatever ``DATABASE_URL`` points at (PostgreSQL is the target):

- the full recompute of the system scores (raters' aggregate, default settings) and of the rater
  agreement, as the next view after a grade changes would do it;
- the dashboard and the systems table rendered from their (fresh) snapshots, through the whole
  Django stack (test client: middleware, session, template), median and worst of several
  requests, and the SQL queries each takes;
- for information, the other pages (comparison, per-query table, drill-down, disagreements).

Goals (issue 6): recompute < 30 s, dashboard and systems table < 1 s.

Run it on a throw-away database, never the development one::

    dropdb -h 127.0.0.1 -U postgres --if-exists bench_reports
    createdb -h 127.0.0.1 -U postgres bench_reports
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench_reports \\
        .venv/bin/python benchmarks/bench_reports.py

The campaign is built once (``--rebuild`` builds it again); generating it writes rows below the
ORM (COPY), the same way the importers do.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
SLUG = "bench-reports"


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def build(args) -> None:
    """The campaign, from a seed: documents per query shared between the systems (each
    system's 100 come from the query's 200), pool = 10 documents per query among the systems'
    top results, each graded by two of the ten raters."""
    from django.contrib.auth import get_user_model
    from django.db import transaction
    from django.utils import timezone

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
    from annotate.services.campaigns import campaign_create
    from annotate.services.imports.fastinsert import defaults, insert_rows

    rng = np.random.default_rng(args.seed)
    Campaign.objects.filter(slug=SLUG).delete()
    t0 = time.perf_counter()
    with transaction.atomic():
        campaign = campaign_create(name="Reports benchmark", slug=SLUG, overlap=2)
        nq, per_query, depth = args.queries, args.corpus_per_query, args.depth
        width = len(str(nq))
        Query.objects.bulk_create(
            (
                Query(campaign=campaign, external_id=f"q{q:0{width}d}", text=f"query {q}")
                for q in range(nq)
            ),
            batch_size=5000,
        )
        query_pk = dict(campaign.queries.values_list("external_id", "pk"))
        qpks = np.array([query_pk[f"q{q:0{width}d}"] for q in range(nq)], dtype=np.int64)

        doc_defaults = defaults(Document, campaign_id=campaign.pk, external_id="")
        doc_cols = list(doc_defaults)
        ext_at = doc_cols.index("external_id")
        template = list(doc_defaults.values())

        def doc_rows():
            for q in range(nq):
                for d in range(per_query):
                    row = list(template)
                    row[ext_at] = f"D{q:0{width}d}-{d:03d}"
                    yield row

        insert_rows(Document, doc_cols, doc_rows())
        print(f"  documents: {nq * per_query:,} in {time.perf_counter() - t0:.1f} s", flush=True)
        first_doc = (
            Document.objects.filter(campaign=campaign)
            .order_by("pk")
            .values_list("pk", flat=True)[0]
        )
        # Inserted in order: document d of query q has key first_doc + q * per_query + d.

        run_ids = []
        for s in range(args.systems):
            system = System.objects.create(campaign=campaign, name=f"system-{s + 1}")
            run = Run.objects.create(campaign=campaign, system=system, name=f"system-{s + 1}")
            run_ids.append(run.pk)
        entry_cols = ["run_id", "query_id", "document_id", "rank", "score"]

        def entry_rows():
            for q in range(nq):
                for run_id in run_ids:
                    picked = rng.choice(per_query, size=depth, replace=False)
                    scores = np.round(30 - np.cumsum(rng.uniform(0.001, 0.2, size=depth)), 3)
                    base = first_doc + q * per_query
                    for rank in range(depth):
                        yield (
                            run_id,
                            int(qpks[q]),
                            int(base + picked[rank]),
                            rank + 1,
                            float(scores[rank]),
                        )

        t1 = time.perf_counter()
        insert_rows(RunEntry, entry_cols, entry_rows())
        n_entries = nq * depth * args.systems
        print(f"  run entries: {n_entries:,} in {time.perf_counter() - t1:.1f} s", flush=True)

        # The pool: documents 0..(pool - 1) of each query's corpus, the lower numbers being the
        # likelier ones to be in any top 10 is not needed; pooled pairs are simply these.
        t1 = time.perf_counter()
        item_defaults = defaults(PoolItem, campaign_id=campaign.pk, query_id=0, document_id=0)
        item_cols = list(item_defaults)
        qi, di = item_cols.index("query_id"), item_cols.index("document_id")
        item_template = list(item_defaults.values())

        def item_rows():
            for q in range(nq):
                for d in range(args.pool):
                    row = list(item_template)
                    row[qi], row[di] = int(qpks[q]), int(first_doc + q * per_query + d)
                    yield row

        insert_rows(PoolItem, item_cols, item_rows())
        first_item = (
            PoolItem.objects.filter(campaign=campaign)
            .order_by("pk")
            .values_list("pk", flat=True)[0]
        )
        users = []
        for i in range(args.raters):
            user, _ = get_user_model().objects.get_or_create(username=f"bench-rater-{i + 1}")
            Membership.objects.get_or_create(campaign=campaign, user=user, role=Role.RATER)
            users.append(user.pk)
        labels = dict(campaign.labels.values_list("grade", "pk"))
        grade_defaults = defaults(Grade, pool_item_id=0, rater_id=0, label_id=None)
        grade_cols = list(grade_defaults)
        at = {
            name: grade_cols.index(name)
            for name in (
                "pool_item_id",
                "rater_id",
                "label_id",
                "seconds",
                "created_at",
                "changed_at",
            )
        }
        grade_template = list(grade_defaults.values())
        start = timezone.now() - timedelta(days=10)
        n_items = nq * args.pool

        def grade_rows():
            truth = rng.integers(1, 4, size=n_items)
            for i in range(n_items):
                who = rng.choice(len(users), size=2, replace=False)
                for r in who:
                    g = int(truth[i]) if rng.random() < 0.8 else int(rng.integers(1, 4))
                    when = start + timedelta(seconds=float(i) * 8 + float(r))
                    row = list(grade_template)
                    row[at["pool_item_id"]] = first_item + i
                    row[at["rater_id"]] = users[r]
                    row[at["label_id"]] = labels[float(g)]
                    row[at["seconds"]] = float(rng.lognormal(2.2, 0.5))
                    row[at["created_at"]] = row[at["changed_at"]] = when
                    yield row

        insert_rows(Grade, grade_cols, grade_rows())
        print(
            f"  pool and grades: {n_items:,} items, {2 * n_items:,} grades in "
            f"{time.perf_counter() - t1:.1f} s",
            flush=True,
        )
    from django.db import connection

    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    print(f"built in {time.perf_counter() - t0:.1f} s", flush=True)


def timed(fn, repeat: int) -> tuple[list[float], object]:
    times, value = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - t)
    return times, value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--systems", type=int, default=5)
    parser.add_argument("--depth", type=int, default=100, help="documents per system and query")
    parser.add_argument("--corpus-per-query", type=int, default=200)
    parser.add_argument("--pool", type=int, default=10, help="pool items per query")
    parser.add_argument("--raters", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=5, help="requests per page")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rebuild", action="store_true")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "out" / "bench_reports.json"))
    args = parser.parse_args(argv)
    if not os.environ.get("DATABASE_URL"):
        sys.exit("Set DATABASE_URL to a throw-away database (see the docstring).")

    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection, reset_queries
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from annotate.models import Campaign, Grade, Membership, Role
    from metrics.services.scores import MeasureSettings
    from metrics.services.snapshots import agreement_snapshot, progress_snapshot, scores_snapshot

    settings.ALLOWED_HOSTS = ["*"]
    call_command("migrate", verbosity=0)
    campaign = Campaign.objects.filter(slug=SLUG).first()
    if campaign is None or args.rebuild:
        build(args)
        campaign = Campaign.objects.get(slug=SLUG)
    counts = {
        "queries": campaign.queries.count(),
        "runs": campaign.runs.count(),
        "grades": Grade.objects.filter(pool_item__campaign=campaign).count(),
    }
    print(f"campaign: {counts} on {connection.vendor}", flush=True)

    results: dict = {"database": connection.vendor, "campaign": counts}
    cpu0, t0 = cpu_s(), time.perf_counter()
    fresh = scores_snapshot(campaign=campaign, settings=MeasureSettings(), force=True, light=True)
    results["recompute_scores_s"] = time.perf_counter() - t0
    results["recompute_scores_cpu_s"] = cpu_s() - cpu0
    t0 = time.perf_counter()
    agreement = agreement_snapshot(campaign=campaign, force=True)
    results["recompute_agreement_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    progress_snapshot(campaign=campaign, agreement=agreement.summary, force=True)
    results["recompute_progress_s"] = time.perf_counter() - t0
    results["peak_rss_mb"] = peak_rss_mb()
    print(
        f"recompute: scores {results['recompute_scores_s']:.1f} s "
        f"(CPU {results['recompute_scores_cpu_s']:.1f} s), agreement "
        f"{results['recompute_agreement_s']:.1f} s, progress "
        f"{results['recompute_progress_s']:.1f} s; "
        f"peak RSS {results['peak_rss_mb']:.0f} MB",
        flush=True,
    )
    systems = fresh.summary["systems"]
    print("  NDCG@10 per system:", [round(s["values"]["ndcg_cut_10"]["mean"], 4) for s in systems])

    manager, _ = get_user_model().objects.get_or_create(username="bench-manager")
    Membership.objects.get_or_create(campaign=campaign, user=manager, role=Role.MANAGER)
    client = Client()
    client.force_login(manager)
    query_pk = campaign.queries.order_by("external_id").values_list("pk", flat=True)[0]
    pages = {
        "dashboard": f"/reports/{SLUG}/",
        "systems": f"/reports/{SLUG}/systems/",
        "compare": f"/reports/{SLUG}/compare/",
        "queries": f"/reports/{SLUG}/queries/",
        "query": f"/reports/{SLUG}/queries/{query_pk}/",
        "disagreements": f"/reports/{SLUG}/disagreements/",
    }
    results["pages"] = {}
    for name, url in pages.items():
        # The first view: snapshots are fresh, but templates and the comparison's cache are cold.
        t = time.perf_counter()
        assert client.get(url).status_code == 200
        first = time.perf_counter() - t
        reset_queries()
        with CaptureQueriesContext(connection) as ctx:
            times, response = timed(lambda url=url: client.get(url), args.repeat)
        assert response.status_code == 200
        results["pages"][name] = {
            "first_s": first,
            "median_s": statistics.median(times),
            "max_s": max(times),
            "sql_queries": len(ctx.captured_queries) // args.repeat,
            "bytes": len(response.content),
        }
        p = results["pages"][name]
        print(
            f"  {name:<14} first {p['first_s'] * 1000:7.0f} ms, median "
            f"{p['median_s'] * 1000:7.0f} ms, worst {p['max_s'] * 1000:7.0f} ms, "
            f"{p['sql_queries']} queries, "
            f"{p['bytes'] / 1024:.0f} KiB",
            flush=True,
        )
    # The next views after one grade changes: each page recomputes its stale snapshot.
    grade = Grade.objects.filter(pool_item__campaign=campaign, cant_judge=False).first()
    grade.label = campaign.labels.exclude(pk=grade.label_id).first()
    grade.save()
    results["after_a_change"] = {}
    for name in ("dashboard", "systems"):
        t = time.perf_counter()
        assert client.get(pages[name]).status_code == 200
        results["after_a_change"][name] = time.perf_counter() - t
    print(
        "  after one grade changes: dashboard "
        f"{results['after_a_change']['dashboard']:.1f} s, systems "
        f"{results['after_a_change']['systems']:.1f} s (each recomputes its snapshot)",
        flush=True,
    )
    results["load_average"] = os.getloadavg()
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=1))
    print(f"written to {out}")
    ok = (
        results["recompute_scores_s"] < 30
        and results["pages"]["dashboard"]["max_s"] < 1
        and results["pages"]["systems"]["max_s"] < 1
    )
    print("goals met" if ok else "GOALS MISSED: recompute < 30 s, dashboard and systems < 1 s")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
