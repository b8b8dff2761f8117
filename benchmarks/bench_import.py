"""Import benchmark: a seeded million-line TREC run into a campaign of 10,000 queries.

Generates the run (``queries`` x ``docs`` lines, documents drawn from a corpus of ``corpus``
ids, so with the default 100,000,000 nearly every document is new and becomes a placeholder),
marks the top 10 of each query as already known documents, then imports the run through the
service (``import_run``) and, unless ``--no-qrels``, a qrels file of ``judged`` lines per query
(``import_qrels``). Reports wall time, lines per second and the peak resident memory of the
process (``ru_maxrss``) after each step, on whatever ``DATABASE_URL`` points at.

Run it on a throw-away database, never the development one::

    DATABASE_URL=sqlite:////tmp/bench.sqlite3 .venv/bin/python benchmarks/bench_import.py
    createdb -h 127.0.0.1 -U postgres bench_import
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench_import \\
        .venv/bin/python benchmarks/bench_import.py

Memory: the importer holds the campaign's id maps (query and document external id -> primary
key) and one batch of lines. ``--corpus 100000`` keeps the document map small while the file
stays at a million lines, which shows how much of the peak is the map and how much the lines.
"""

from __future__ import annotations

import argparse
import gc
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")


def peak_rss_mb() -> float:
    # Linux reports ru_maxrss in kilobytes.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def cpu_s() -> float:
    """CPU seconds of this process (user + system): steadier than wall time on a busy machine,
    but without the database server's share on PostgreSQL."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def server_cpu_s() -> float | None:
    """CPU seconds of this connection's PostgreSQL backend, when the server runs on this
    machine (from /proc); None elsewhere. With the client's CPU it is the import's work, which a
    busy machine's wall time hides."""
    from django.db import connection

    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        (pid,) = cursor.fetchone()
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def generate(
    path: Path, qrels: Path, *, queries: int, docs: int, judged: int, corpus: int, seed: int
):
    """Write the run and the qrels; return the documents of rank <= 10 (the known ones)."""
    rng = np.random.default_rng(seed)
    known: set[str] = set()
    width = len(str(queries))
    with open(path, "w") as run_fh, open(qrels, "w") as qrels_fh:
        for q in range(queries):
            qid = f"q{q:0{width}d}"
            picked = rng.choice(corpus, size=docs + judged // 2, replace=False)
            scores = np.round(40 - np.cumsum(rng.uniform(0.001, 0.05, size=docs)), 4)
            lines = [
                f"{qid} Q0 D{d:09d} {rank} {score:.4f} bench\n"
                for rank, (d, score) in enumerate(zip(picked[:docs], scores, strict=True), 1)
            ]
            run_fh.writelines(lines)
            known.update(f"D{d:09d}" for d in picked[:10])
            # Half of the judged documents are retrieved, half are not (they become placeholders).
            judged_docs = np.concatenate([picked[: judged - judged // 2], picked[docs:]])
            grades = rng.integers(1, 4, size=len(judged_docs))
            qrels_fh.writelines(
                f"{qid} 0 D{d:09d} {g}\n" for d, g in zip(judged_docs, grades, strict=True)
            )
    return known


def copy_floor(run_path: Path, n_lines: int) -> None:
    """The floor: PostgreSQL's own ``COPY`` of the same file, bytes as they are, into a table
    with no index, no key and no check (a logged table, as the run entries are), committed."""
    from django.db import connection, transaction

    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    t0, c0, s0 = time.perf_counter(), cpu_s(), server_cpu_s()
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("DROP TABLE IF EXISTS bench_copy_floor")
        cursor.execute(
            "CREATE TABLE bench_copy_floor (qid text, q0 text, docno text, rank integer, "
            "score double precision, tag text)"
        )
        with (
            open(run_path, "rb") as fh,
            cursor.copy("COPY bench_copy_floor FROM STDIN WITH (DELIMITER ' ')") as copy,
        ):
            while chunk := fh.read(1 << 20):
                copy.write(chunk)
    wall, cpu, s1 = time.perf_counter() - t0, cpu_s() - c0, server_cpu_s()
    server = f", server {s1 - s0:.1f} s CPU" if s0 is not None and s1 is not None else ""
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM bench_copy_floor")
        (rows,) = cursor.fetchone()
        cursor.execute("DROP TABLE bench_copy_floor")
    assert rows == n_lines, (rows, n_lines)
    print(
        f"floor, COPY into an unindexed table: {rows:,} lines in {wall:.1f} s wall "
        f"({cpu:.1f} s CPU{server}) = {rows / wall:,.0f} lines/s"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--docs", type=int, default=100, help="run lines per query")
    parser.add_argument("--judged", type=int, default=50, help="qrels lines per query")
    parser.add_argument("--corpus", type=int, default=100_000_000, help="distinct document ids")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-qrels", action="store_true", help="import the run only")
    parser.add_argument(
        "--no-floor", action="store_true", help="skip the plain COPY floor (PostgreSQL)"
    )
    args = parser.parse_args(argv)

    url = os.environ.get("DATABASE_URL", "")
    if not url:
        sys.exit("Set DATABASE_URL to a throw-away database (see the docstring).")

    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    from annotate.models import Document, Query
    from annotate.services.campaigns import campaign_create
    from annotate.services.imports import import_qrels, import_run

    call_command("migrate", verbosity=0)
    work = Path(tempfile.mkdtemp(prefix="bench_import_"))
    run_path, qrels_path = work / "bench.run", work / "bench.qrels"
    t0 = time.perf_counter()
    known = generate(
        run_path,
        qrels_path,
        queries=args.queries,
        docs=args.docs,
        judged=args.judged,
        corpus=args.corpus,
        seed=args.seed,
    )
    n_lines = args.queries * args.docs
    print(f"generated {n_lines:,} run lines in {time.perf_counter() - t0:.1f} s ({work})")

    campaign = campaign_create(name="Import benchmark", slug=f"bench-import-{int(time.time())}")
    width = len(str(args.queries))
    Query.objects.bulk_create(
        (
            Query(campaign=campaign, external_id=f"q{q:0{width}d}", text=f"query {q}")
            for q in range(args.queries)
        ),
        batch_size=5_000,
    )
    # In slices: bulk_create would hold every instance at once and set a peak of its own.
    known_ids = sorted(known)
    del known
    for start in range(0, len(known_ids), 5_000):
        Document.objects.bulk_create(
            Document(campaign=campaign, external_id=d, title=f"title {d}")
            for d in known_ids[start : start + 5_000]
        )
    n_known = len(known_ids)
    del known_ids
    print(
        f"database: {connection.vendor} ({connection.settings_dict['NAME']}); "
        f"campaign {campaign.slug}: {args.queries:,} queries, "
        f"{n_known:,} known documents"
    )
    gc.collect()
    print(f"RSS before the import: {rss_mb():.0f} MB (peak so far {peak_rss_mb():.0f} MB)")

    if connection.vendor == "postgresql" and not args.no_floor:
        copy_floor(run_path, n_lines)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    t0, c0, s0 = time.perf_counter(), cpu_s(), server_cpu_s()
    summary = import_run(campaign=campaign, file=run_path)
    wall, cpu, s1 = time.perf_counter() - t0, cpu_s() - c0, server_cpu_s()
    server = f", server {s1 - s0:.1f} s CPU" if s0 is not None and s1 is not None else ""
    print(
        f"import_run: {summary.lines:,} lines, {summary.created:,} entries, "
        f"{summary.placeholders:,} placeholders in {wall:.1f} s wall ({cpu:.1f} s CPU{server}) "
        f"= {summary.lines / wall:,.0f} lines/s; peak RSS {peak_rss_mb():.0f} MB"
    )
    if not args.no_qrels:
        t0, c0 = time.perf_counter(), cpu_s()
        summary = import_qrels(campaign=campaign, file=qrels_path, source_name="bench")
        wall, cpu = time.perf_counter() - t0, cpu_s() - c0
        print(
            f"import_qrels: {summary.lines:,} lines, {summary.placeholders:,} placeholders in "
            f"{wall:.1f} s wall ({cpu:.1f} s CPU) = {summary.lines / wall:,.0f} lines/s; "
            f"peak RSS {peak_rss_mb():.0f} MB"
        )
    print(f"load average {os.getloadavg()[0]:.1f}")
    run_path.unlink()
    qrels_path.unlink()
    work.rmdir()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
