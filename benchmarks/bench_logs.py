"""Behaviour-log benchmark: a seeded 10,000,000-row click log through ``manage.py import_logs``,
then ``derive_labels clicks`` and ``derive_labels purchases``.

The log covers 10,000 queries and 100,000 document ids at positions 1 to 20; the campaign
has 1,000 of those queries and 50,000 of those documents, so most rows only count towards the
per-position totals (CTR(p) is over the whole log) and about 5% (500,000 rows, nearly as many
distinct (query, document, position) triples) reach the campaign's totals. Each step runs as
its own process (the commands a team would run), timed by wall clock, with the peak resident
memory of that process (VmHWM, reported by the child itself). Refuses to run without
``DATABASE_URL``: point it at a throw-away database, never the development one::

    rm -f /tmp/bench_logs.sqlite3
    DATABASE_URL=sqlite:////tmp/bench_logs.sqlite3 .venv/bin/python benchmarks/bench_logs.py

    dropdb -h 127.0.0.1 -U postgres --if-exists bench_logs
    createdb -h 127.0.0.1 -U postgres bench_logs
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench_logs \\
        .venv/bin/python benchmarks/bench_logs.py --log /tmp/bench-10M.csv

``--log PATH`` keeps the generated file there (and reuses it when it exists).

``--baseline DIR`` compares with another version of the code on the same data in the same run:
DIR is a plain copy of that version (e.g. ``git archive <commit> | tar -x -C DIR``). Both
versions import the same file (as two logs), then each derives click labels from the same
stored log, alternately, twice; the script prints each time and the ratios (this version over
the baseline)::

    mkdir -p /tmp/clicks-base && git archive <commit> | tar -x -C /tmp/clicks-base
    DATABASE_URL=sqlite:////tmp/bench_logs.sqlite3 .venv/bin/python benchmarks/bench_logs.py \\
        --rows 2000000 --baseline /tmp/clicks-base
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
SLUG = "bench-logs"


def generate(path: Path, *, rows: int, queries: int, docs: int, seed: int) -> None:
    """CSV with a header; written in blocks of a million rows (a few tens of MB at a time)."""
    rng = np.random.default_rng(seed)
    with open(path, "w") as out:
        out.write("qid,docno,position,impressions,clicks,purchases,dwell\n")
        for start in range(0, rows, 1_000_000):
            n = min(1_000_000, rows - start)
            q = rng.integers(0, queries, n)
            d = rng.integers(0, docs, n)
            p = rng.integers(1, 21, n)
            imp = rng.integers(1, 50, n)
            clk = rng.binomial(imp, 0.4 / p)
            buy = rng.binomial(clk, 0.05)
            dwell = np.round(clk * rng.uniform(5, 60, n), 1)
            block = np.char.add(
                np.char.add("q", q.astype(str)),
                np.char.add(",d", d.astype(str)),
            )
            lines = [
                f"{qd},{pp},{ii},{cc},{bb},{ww}\n"
                for qd, pp, ii, cc, bb, ww in zip(
                    block.tolist(), p.tolist(), imp.tolist(), clk.tolist(), buy.tolist(),
                    dwell.tolist(), strict=True,
                )
            ]  # fmt: skip
            out.writelines(lines)


def setup_campaign(*, queries: int, docs: int) -> None:
    import django

    django.setup()
    from django.core.management import call_command

    from annotate.models import Campaign, Document, Query
    from annotate.services.campaigns import campaign_create

    call_command("migrate", verbosity=0)
    Campaign.objects.filter(slug=SLUG).delete()
    campaign = campaign_create(name="Log benchmark", slug=SLUG)
    Query.objects.bulk_create(
        (Query(campaign=campaign, external_id=f"q{i}", text=f"query {i}") for i in range(queries)),
        batch_size=5_000,
    )
    Document.objects.bulk_create(
        (Document(campaign=campaign, external_id=f"d{i}") for i in range(docs)), batch_size=5_000
    )


# Runs manage.py in the child and reports the child's own peak (VmHWM of its memory map) at
# exit. ru_maxrss of a child is no use here: it keeps the parent's size from before the exec.
_WRAPPER = """
import atexit, resource, runpy, sys
def peak():
    with open("/proc/self/status") as fh:
        kb = next(line.split()[1] for line in fh if line.startswith("VmHWM:"))
    usage = resource.getrusage(resource.RUSAGE_SELF)
    sys.stderr.write(f"\\nPEAK_RSS_KB={kb} CPU_S={usage.ru_utime + usage.ru_stime}\\n")
atexit.register(peak)
sys.argv = ["manage.py", *sys.argv[1:]]
runpy.run_path("manage.py", run_name="__main__")
"""


def timed(*args: str, cwd: Path = ROOT) -> tuple[float, float, float, str]:
    """(wall seconds, CPU seconds, peak RSS in MB, output) of one manage.py command (of the
    code in ``cwd``); the CPU time is the command's own (on PostgreSQL the server's work is
    not in it)."""
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _WRAPPER, *args], capture_output=True, text=True, cwd=cwd
    )
    wall = time.perf_counter() - t0
    if done.returncode:
        sys.exit(done.stderr)
    report = done.stderr.rsplit("PEAK_RSS_KB=", 1)[1].split()
    cpu = float(report[1].removeprefix("CPU_S="))
    return wall, cpu, int(report[0]) / 1024, done.stdout.strip()


def compare(path: Path, baseline: Path, rows: int) -> None:
    """This version against ``baseline`` on the same file and the same stored log."""
    times: dict[str, list[float]] = {}
    for label, cwd, log in (("baseline", baseline, "bench-base"), ("this", ROOT, "bench")):
        wall, cpu, rss, out = timed(
            "import_logs", str(path), "--campaign", SLUG, "--name", log, "--skip-checks", cwd=cwd
        )
        times[f"import {label}"] = [wall]
        print(f"import_logs ({label}): {wall:.1f} s wall, {cpu:.1f} s CPU, "
              f"{rows / wall:,.0f} rows/s, peak RSS {rss:.0f} MB")  # fmt: skip
    derive = ("derive_labels", "clicks", "--campaign", SLUG, "--log", "bench", "--skip-checks")
    for round_ in (1, 2):
        for label, cwd in (("baseline", baseline), ("this", ROOT)):
            name = f"{label}-{round_}"
            wall, cpu, rss, out = timed(*derive, "--name", name, cwd=cwd)
            times.setdefault(f"derive {label}", []).append(wall)
            print(f"derive_labels clicks ({label}, round {round_}): {wall:.1f} s wall, "
                  f"{cpu:.1f} s CPU, peak RSS {rss:.0f} MB")  # fmt: skip
            print(f"  {out.splitlines()[0]}")
    best = {key: min(values) for key, values in times.items()}
    for step in ("import", "derive"):
        ratio = best[f"{step} this"] / best[f"{step} baseline"]
        print(f"{step}: this / baseline = {ratio:.2f} (best of each)")
    total = best["import this"] + best["derive this"]
    total_base = best["import baseline"] + best["derive baseline"]
    print(f"import + derive: {total:.1f} s against {total_base:.1f} s, "
          f"ratio {total / total_base:.2f}")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--queries", type=int, default=10_000, help="distinct queries in the log")
    parser.add_argument("--docs", type=int, default=100_000, help="distinct documents in the log")
    parser.add_argument("--campaign-queries", type=int, default=1_000)
    parser.add_argument("--campaign-docs", type=int, default=50_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--log", type=Path, help="keep (or reuse) the generated log here")
    parser.add_argument(
        "--baseline", type=Path, help="a copy of another version of the code to compare with"
    )
    args = parser.parse_args(argv)
    if not os.environ.get("DATABASE_URL"):
        sys.exit("Set DATABASE_URL to a throw-away database (see the docstring).")

    path = args.log or Path(f"/tmp/bench-logs-{args.rows}.csv")
    if not path.exists():
        t0 = time.perf_counter()
        generate(path, rows=args.rows, queries=args.queries, docs=args.docs, seed=args.seed)
        print(f"generated {args.rows:,} rows in {time.perf_counter() - t0:.0f} s: {path}")
    print(f"log: {path} ({path.stat().st_size / 2**20:,.0f} MB)")
    setup_campaign(queries=args.campaign_queries, docs=args.campaign_docs)
    _, _, base, _ = timed("shell", "-c", "import annotate.services.labels.logs")
    print(f"Django with the importer loaded, doing nothing: {base:.0f} MB")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    if args.baseline is not None:
        compare(path, args.baseline.resolve(), args.rows)
        print(f"load average {os.getloadavg()[0]:.1f}")
        if args.log is None:
            path.unlink()
        return 0
    wall, cpu, rss, out = timed(
        "import_logs", str(path), "--campaign", SLUG, "--name", "bench", "--skip-checks"
    )
    print(
        f"import_logs: {wall:.1f} s wall, {cpu:.1f} s CPU, {args.rows / wall:,.0f} rows/s, "
        f"peak RSS {rss:.0f} MB"
    )
    print(f"  {out}")
    for method in ("clicks", "purchases"):
        wall, cpu, rss, out = timed(
            "derive_labels", method, "--campaign", SLUG, "--log", "bench", "--skip-checks"
        )
        print(f"derive_labels {method}: {wall:.1f} s wall, {cpu:.1f} s CPU, peak RSS {rss:.0f} MB")
        print(f"  {out.splitlines()[0]}")
    print(f"load average {os.getloadavg()[0]:.1f}")
    if args.log is None:
        path.unlink()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
