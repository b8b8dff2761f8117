"""Grading under load: "submit a grade and receive the next item" through gunicorn and PostgreSQL.

What one invocation does:

1. (Re)creates a separate PostgreSQL database (``bench_grading`` by default), migrates it and
   seeds a campaign of ``--items`` pool items (``--docs-per-query`` documents per query,
   ``--overlap`` raters per item) and ``--raters`` raters. Each rater gets a session the way
   Django's login makes one (one rater also logs in through the real login form, to prove the
   path); logging 400 raters in through PBKDF2 (0.7 s each here) would only measure hashing.
2. Starts gunicorn (``-w --workers``, ``--threads``) with DEBUG off, a random SECRET_KEY,
   ALLOWED_HOSTS=127.0.0.1 and SECURE_SSL_REDIRECT=0 (plain HTTP on the loopback).
3. Every rater fetches its queue once (``GET /judge/<slug>/api/queue/``, not timed), then
   grades a seeded random number of the items it holds, 0 to all but one (not timed, through
   the same endpoint), so the raters are at different points of their queries as in a live
   campaign. ``--synchronized`` skips this warm-up: all raters then reach the end of their
   first query, and lease the next one, within the same few seconds.
4. For each rate (``--rates``, grades per second) sends requests open-loop for ``--duration``
   seconds: request i is due at start + i / rate whatever happened to the earlier ones, and its
   latency runs from that due time (so a slow server is not hidden by a generator that waits:
   no coordinated omission). A request is one rater's ``POST /judge/<slug>/api/judgments/``
   with a label for the next item it holds; the answer carries the rater's next items. A rater
   has one request in flight at a time; a due request takes the rater idle longest, and if none
   is idle it waits for one, the wait counting in its latency.
5. Prints p50/p95/p99 per rate and the highest rate whose p95 < 100 ms, then checks the
   database: the number of grades equals the number of answers that said "created" (warm-up
   included), and no (rater, item) pair holds two grades. Results also go to
   benchmarks/out/bench_grading.json.

Usage::

    python benchmarks/bench_grading.py                       # 50, 100, 200, 400 grades/s
    python benchmarks/bench_grading.py --rates 200 --duration 30 --workers 3 --threads 8
    python benchmarks/bench_grading.py --rates 200 --synchronized   # the lockstep start
    python benchmarks/bench_grading.py --kind sxs --rates 200,200,200  # side-by-side verdicts

``--kind sxs`` measures side-by-side judging the same way: the campaign gets two runs that
differ at every rank and a per-position comparison of them (``--docs-per-query`` tasks per
query, ``--overlap`` raters per task), and each request is one rater's
``POST /sxs/<slug>/<comparison>/api/verdicts/`` with a random verdict for the next task it
holds; the database check counts verdicts. Results go to bench_grading_sxs.json.

Needs PostgreSQL on 127.0.0.1:5432 (user postgres, trust authentication) and aiohttp
(requirements-dev.txt).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import os
import platform
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

from bench_grading_load import SLUG, CpuMeter, RateResult, load  # a sibling script

REPO = Path(__file__).resolve().parents[1]
OUT_DIR = REPO / "benchmarks" / "out"
VENV_BIN = Path(sys.executable).parent
GOAL_P95_MS = 100.0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rates", default="50,100,200,400", help="grades per second, comma list")
    parser.add_argument("--duration", type=float, default=20.0, help="seconds per rate")
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--docs-per-query", type=int, default=20)
    parser.add_argument("--raters", type=int, default=400)
    parser.add_argument("--overlap", type=int, default=3)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--port", type=int, default=0, help="default: a free port")
    parser.add_argument(
        "--app", default="config.wsgi", help="WSGI module for gunicorn (to try a variant)"
    )
    parser.add_argument("--db", default="bench_grading")
    parser.add_argument("--pg", default="postgres://postgres@127.0.0.1:5432")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--kind",
        choices=["graded", "sxs"],
        default="graded",
        help="graded items (grades) or side-by-side tasks (verdicts)",
    )
    parser.add_argument(
        "--synchronized",
        action="store_true",
        help="skip the warm-up: every rater starts on the first item of its first query, so all "
        "of them reach a query boundary, and lease the next query, within the same seconds",
    )
    parser.add_argument(
        "--wait-quiet",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="first wait (up to SECONDS) for the 1-minute load average to drop below --quiet-below",
    )
    parser.add_argument("--quiet-below", type=float, default=0.5, metavar="LOAD")
    parser.add_argument(
        "--honeypots",
        type=float,
        default=0.0,
        metavar="SHARE",
        help="graded: make this share of the queries honeypot gold, and serve honeypots at "
        "this share of each rater's queries (issue 18: 0.05)",
    )
    return parser.parse_args(argv)


# -- setup: database, seed data, sessions -----------------------------------------------------


def server_env(args: argparse.Namespace, secret_key: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        DATABASE_URL=f"{args.pg}/{args.db}",
        DEBUG="0",
        SECRET_KEY=secret_key,
        ALLOWED_HOSTS="127.0.0.1",
        SECURE_SSL_REDIRECT="0",
        DJANGO_SETTINGS_MODULE="config.settings",
        PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
    )
    return env


def recreate_database(args: argparse.Namespace) -> None:
    import psycopg

    with psycopg.connect(f"{args.pg}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{args.db}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{args.db}"')


def manage(env: dict[str, str], *command: str) -> None:
    subprocess.run(
        [sys.executable, str(REPO / "manage.py"), *command], env=env, check=True, cwd=REPO
    )


def seed(args: argparse.Namespace) -> dict:
    """Campaign, pool and raters; returns what the load generator needs (runs in-process with
    Django set up against the benchmark database)."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password
    from django.db import transaction

    from annotate.models import Membership, PoolItem, Role
    from annotate.services.campaigns import campaign_create

    User = get_user_model()
    with transaction.atomic():
        manager = User.objects.create_user(username="bench-manager", password="bench")
        campaign = campaign_create(
            name="Bench", slug=SLUG, created_by=manager, overlap=args.overlap
        )
        query_ids, doc_ids = seed_corpus(args, campaign)
        if args.kind == "sxs":
            comparison = seed_comparison(args, campaign, query_ids, doc_ids)
        else:
            PoolItem.objects.bulk_create(
                (
                    PoolItem(
                        campaign=campaign,
                        query_id=query_ids[i // args.docs_per_query],
                        document_id=doc_id,
                    )
                    for i, doc_id in enumerate(doc_ids)
                ),
                batch_size=5000,
            )
        # One hash for every rater: hashing 400 passwords would take minutes and prove nothing.
        password = make_password("bench-password")
        User.objects.bulk_create(
            User(username=f"rater{i:04d}", password=password) for i in range(args.raters)
        )
        raters = list(User.objects.filter(username__startswith="rater").order_by("username"))
        if args.honeypots and args.kind == "graded":
            seed_honeypots(args, campaign, query_ids, manager)
        Membership.objects.bulk_create(
            Membership(campaign=campaign, user=user, role=Role.RATER) for user in raters
        )
    tasks = PoolItem.objects.filter(campaign=campaign).count()
    if args.kind == "sxs":
        tasks = comparison.tasks.filter(identical=False).count()
    return {
        "labels": list(campaign.labels.values_list("pk", flat=True)),
        "sessions": [session_for(user) for user in raters],
        "pool_items": tasks,
        "comparison": comparison.pk if args.kind == "sxs" else None,
    }


def seed_honeypots(args: argparse.Namespace, campaign, query_ids: list[int], manager) -> None:
    """Every item of an evenly spread `--honeypots` share of the queries becomes honeypot gold
    (its first label accepted), and the campaign serves honeypots at that share."""
    from annotate.models import PoolItem
    from annotate.services.gold import gold_item_set

    label = campaign.labels.order_by("grade").first()
    step = max(1, round(1 / args.honeypots))
    gold_queries = query_ids[step - 1 :: step]
    items = PoolItem.objects.filter(campaign=campaign, query_id__in=gold_queries)
    for item_id in items.values_list("pk", flat=True):
        gold_item_set(campaign=campaign, manager=manager, item_id=item_id, label_id=label.pk)
    campaign.honeypot_share = args.honeypots
    # The generator answers at random: the gold-accuracy rules would pause its raters, and a
    # paused rater's requests are refused. Measured here is serving and storing, not pausing.
    campaign.min_gold_within = campaign.min_gold_exact = 0
    campaign.save(update_fields=["honeypot_share", "min_gold_within", "min_gold_exact"])


def seed_corpus(args: argparse.Namespace, campaign) -> tuple[list[int], list[int]]:
    """The campaign's queries and, per query, `--docs-per-query` documents; their ids in order."""
    from annotate.models import Document, Query

    queries = args.items // args.docs_per_query
    Query.objects.bulk_create(
        Query(campaign=campaign, external_id=f"q{q:05d}", text=f"query {q}") for q in range(queries)
    )
    query_ids = list(campaign.queries.order_by("external_id").values_list("pk", flat=True))
    Document.objects.bulk_create(
        (
            Document(
                campaign=campaign,
                external_id=f"q{q:05d}-d{d:03d}",
                title=f"Result {d} for query {q}",
                url=f"https://example.org/{q}/{d}",
                snippet="A short snippet of the document text, as a search page shows it.",
            )
            for q in range(queries)
            for d in range(args.docs_per_query)
        ),
        batch_size=5000,
    )
    doc_ids = list(campaign.documents.order_by("external_id").values_list("pk", flat=True))
    return query_ids, doc_ids


def seed_comparison(args: argparse.Namespace, campaign, query_ids: list, doc_ids: list):
    """Two runs ranking each query's documents in opposite orders (so no rank shows the same
    document on both sides: every task needs raters) and a per-position comparison of them,
    one task per rank: as many tasks per query as the graded pool has items."""
    from annotate.models import Run, RunEntry, System
    from annotate.services.sxs_setup import comparison_create

    runs = []
    for name in ("baseline", "candidate"):
        system = System.objects.create(campaign=campaign, name=f"bench-{name}")
        runs.append(Run.objects.create(campaign=campaign, system=system, name=f"bench-{name}"))
    per = args.docs_per_query
    entries = []
    for i, doc_id in enumerate(doc_ids):
        query, rank = query_ids[i // per], i % per + 1
        for run, at in ((runs[0], rank), (runs[1], per + 1 - rank)):
            entries.append(
                RunEntry(run=run, query_id=query, document_id=doc_id, rank=at, score=-at)
            )
    RunEntry.objects.bulk_create(entries, batch_size=5000)
    return comparison_create(
        campaign=campaign,
        name="bench",
        baseline=runs[0],
        candidate=runs[1],
        unit="position",
        depth=per,
        raters_per_task=args.overlap,
        seed=args.seed,
    )


def session_for(user) -> str:
    """A session exactly as django.contrib.auth.login stores one; returns its key."""
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore

    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[0]
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    return session.session_key


def setup_django(env: dict[str, str]) -> None:
    os.environ.update({k: env[k] for k in ("DATABASE_URL", "DEBUG", "SECRET_KEY", "ALLOWED_HOSTS")})
    os.environ.update(SECURE_SSL_REDIRECT="0", DJANGO_SETTINGS_MODULE="config.settings")
    sys.path.insert(0, str(REPO))
    import django

    django.setup()


# -- the server -------------------------------------------------------------------------------


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_gunicorn(args: argparse.Namespace, env: dict[str, str]) -> subprocess.Popen:
    # config/wsgi.py imports every view and freezes the garbage collector when a worker
    # starts, as in any deployment with gunicorn config.wsgi.
    command = [
        str(VENV_BIN / "gunicorn"),
        args.app,
        f"--workers={args.workers}",
        f"--threads={args.threads}",
        f"--bind=127.0.0.1:{args.port}",
        "--keep-alive=30",
        "--log-level=warning",
    ]
    # Never measure someone else's server that happens to listen on the port.
    import socket

    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", args.port))
        except OSError:
            raise SystemExit(f"port {args.port} is taken; choose another with --port") from None
    return subprocess.Popen(command, env=env, cwd=REPO, start_new_session=True)


def stop(server: subprocess.Popen) -> None:
    if server.poll() is None:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)


# -- checks and report ------------------------------------------------------------------------


def verify(results: list[RateResult], kind: str = "graded") -> dict:
    """Every answer in the database (grades, or verdicts) against the replies, warm-up's
    included."""
    from django.db.models import Count

    from annotate.models import Grade, Verdict

    if kind == "sxs":
        rows = Verdict.objects.filter(task__comparison__campaign__slug=SLUG)
        pair = ("rater_id", "task_id")
    else:
        rows = Grade.objects.filter(pool_item__campaign__slug=SLUG)
        pair = ("rater_id", "pool_item_id")
    grades = rows
    duplicates = grades.values(*pair).annotate(n=Count("pk")).filter(n__gt=1).count()
    # Real tasks with more counted answers than they need, and answers to gold counted.
    over, gold_counted = _over_served(kind)
    created = sum(r.created for r in results)
    lost = sum(r.lost for r in results)
    return {
        "created_answers": created,
        "lost_requests": lost,
        "grade_rows": grades.count(),
        "duplicate_pairs": duplicates,
        # Exact when every request got an answer; otherwise the lost ones may or may not count.
        "over_served": over,
        "gold_counted": gold_counted,
        "gold_answers": grades.filter(gold=True).count(),
        "ok": created <= grades.count() <= created + lost
        and duplicates == 0
        and over == 0
        and gold_counted == 0,
        "exact": lost == 0 and created == grades.count(),
    }


def _over_served(kind: str) -> tuple[int, int]:
    from django.db.models import Count, F, Q, Value
    from django.db.models.functions import Coalesce

    from annotate.models import PoolItem, SxsTask

    if kind == "sxs":
        tasks = SxsTask.objects.filter(comparison__campaign__slug=SLUG)
        real = Count("verdicts", filter=Q(verdicts__cant_judge=False, verdicts__gold=False))
        needed = F("comparison__raters_per_task")
    else:
        tasks = PoolItem.objects.filter(campaign__slug=SLUG)
        real = Count("grades", filter=Q(grades__cant_judge=False, grades__gold=False))
        needed = Coalesce("raters_needed", F("campaign__overlap"), Value(1))
    tasks = tasks.annotate(real=real, needed_n=needed)
    over = tasks.filter(gold=False, real__gt=F("needed_n")).count()
    gold_counted = tasks.filter(gold=True, counted__gt=0).count()
    return over, gold_counted


def print_table(rows: list[dict]) -> None:
    print()
    print(
        "| grades/s | sent | answered/s | p50 ms | p95 ms | p99 ms | max ms "
        "| CPU ms/request: app, db, generator | HTTP statuses |"
    )
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |")
    for row in rows:
        codes = ", ".join(f"{k}: {v}" for k, v in sorted(row["statuses"].items()))
        cpu = row["cpu_ms_per_request"]
        print(
            f"| {row['rate']:g} | {row['sent']} | {row['answered_per_s']} | {row['p50_ms']} | "
            f"{row['p95_ms']} | {row['p99_ms']} | {row['max_ms']} | "
            f"{cpu.get('app', 0)}, {cpu.get('db', 0)}, {cpu.get('generator', 0)} | {codes} |"
        )


def report(
    args, results: list[RateResult], warm: RateResult | None, check: dict, seeded: dict, load: tuple
) -> dict:
    rows = [r.summary() for r in results]
    schedule = (
        "synchronized (no warm-up)"
        if warm is None
        else (f"desynchronised ({warm.sent} untimed warm-up grades)")
    )
    print(f"\nkind: {args.kind}; schedule: {schedule}")
    passing = [row["rate"] for row in rows if row["p95_ms"] < GOAL_P95_MS]
    print_table(rows)
    best = max(passing) if passing else None
    costs = [sum(row["cpu_ms_per_request"].values()) for row in rows]
    if costs:
        # What 2 cores could serve if nothing else ran and nothing waited: a ceiling, not a goal.
        ceiling = 1000 * (os.cpu_count() or 1) / min(costs)
        print(
            f"\nCPU per request (all parts) {min(costs):.1f} ms at best: ceiling ~{ceiling:.0f}/s"
        )
    print(f"load average (1 min) before: {load[0]:.2f}, after: {os.getloadavg()[0]:.2f}")
    print(f"highest rate with p95 < {GOAL_P95_MS:g} ms: {best if best else 'none'} grades/s")
    print(
        f"database: {check['grade_rows']} {'verdicts' if args.kind == 'sxs' else 'grades'}, "
        f"{check['created_answers']} answers saying "
        f"stored, {check['lost_requests']} requests without an answer, "
        f"{check['duplicate_pairs']} duplicate (rater, item) pairs -> "
        f"{'exact' if check['exact'] else 'consistent' if check['ok'] else 'MISMATCH'}"
    )
    return {
        "when": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
        "load_average_before": load,
        "load_average_after": os.getloadavg(),
        "setup": {
            "kind": args.kind,
            "pool_items": seeded["pool_items"],
            "raters": args.raters,
            "overlap": args.overlap,
            "docs_per_query": args.docs_per_query,
            "workers": args.workers,
            "threads": args.threads,
            "duration_s": args.duration,
            "schedule": "synchronized" if warm is None else "desynchronised",
            "warm_up_grades": 0 if warm is None else warm.sent,
            "warm_up_statuses": {} if warm is None else warm.statuses,
        },
        "rates": rows,
        "highest_rate_p95_under_100ms": best,
        "check": check,
    }


def wait_for_quiet(max_seconds: float, threshold: float = 0.5) -> None:
    """On a shared machine other jobs inflate latencies: give them a chance to finish."""
    deadline = time.monotonic() + max_seconds
    while os.getloadavg()[0] >= threshold and time.monotonic() < deadline:
        time.sleep(10)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    secret_key = secrets.token_urlsafe(60)
    env = server_env(args, secret_key)
    recreate_database(args)
    manage(env, "migrate", "--noinput", "-v", "0")
    manage(env, "collectstatic", "--noinput", "-v", "0")  # the login page needs the manifest
    setup_django(env)
    started = time.monotonic()
    seeded = seed(args)
    print(
        f"seeded {seeded['pool_items']} items, {args.raters} raters in "
        f"{time.monotonic() - started:.1f} s",
        flush=True,
    )
    if args.wait_quiet:
        wait_for_quiet(args.wait_quiet, args.quiet_below)
    load_before = os.getloadavg()
    args.port = args.port or free_port()
    server = start_gunicorn(args, env)
    try:
        results, warm = asyncio.run(load(args, seeded, CpuMeter(server.pid, args)))
    finally:
        stop(server)
    check = verify(results if warm is None else [warm, *results], args.kind)
    summary = report(args, results, warm, check, seeded, load_before)
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    name = "bench_grading_sxs.json" if args.kind == "sxs" else "bench_grading.json"
    (OUT_DIR / name).write_text(json.dumps(summary, indent=2) + "\n")
    return 0 if check["ok"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
