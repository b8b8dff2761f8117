"""End-to-end web upload of a large run through gunicorn and a job worker.

Migrates a throw-away database, makes a campaign of 10,000 queries and a manager with an API
token, starts gunicorn (2 workers, its default 30 s timeout) and one `jobs_worker`, uploads a
generated run of `--lines` lines to the import API, and reports:

- request time: the POST until its 202 (the file is stored for the workers, nothing more);
- job time: the job's start to its end as the job records them, and from the 202 to the end;
- peak resident memory (VmHWM) of each gunicorn worker and of the job worker.

Run it on a throw-away database, never the development one::

    DATABASE_URL=sqlite:////tmp/bj/db.sqlite3 .venv/bin/python benchmarks/bench_jobs_upload.py
    createdb -h 127.0.0.1 -U postgres bench_jobs
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench_jobs \\
        .venv/bin/python benchmarks/bench_jobs_upload.py
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent

SETUP = """
from django.contrib.auth import get_user_model
from knox.models import AuthToken
from annotate.models import Query
from annotate.services.campaigns import campaign_create
manager = get_user_model().objects.create_user(username="bench-manager", password="x")
campaign = campaign_create(name="Bench jobs", slug="bench-jobs", created_by=manager)
Query.objects.bulk_create(
    Query(campaign=campaign, external_id=f"q{i}", text=f"query {i}") for i in range(10_000)
)
print(AuthToken.objects.create(manager)[1])
"""


def write_run(path: Path, lines: int) -> None:
    per_query = max(lines // 10_000, 1)
    with open(path, "w") as out:
        for n in range(lines):
            q, rank = divmod(n, per_query)
            out.write(f"q{q % 10_000} Q0 doc{n} {rank + 1} {1000 - rank / 1000:.4f} bench\n")


def peak_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(p) for p in path.read_text().split()] if path.exists() else []


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1_000_000)
    args = parser.parse_args()
    env = dict(os.environ, DEBUG="0", SECRET_KEY="b" * 60, ALLOWED_HOSTS="127.0.0.1",
               SECURE_SSL_REDIRECT="0", THROTTLE_CACHE_URL="locmem://")  # fmt: skip
    if "DATABASE_URL" not in env:
        sys.exit("set DATABASE_URL to a throw-away database")
    manage = [sys.executable, "manage.py"]

    def run(*cmd: str) -> str:
        return subprocess.run(
            [*manage, *cmd], cwd=ROOT, env=env, check=True, capture_output=True, text=True
        ).stdout

    run("migrate", "--noinput")
    token = run("shell", "-c", SETUP).strip().splitlines()[-1]
    work = Path(tempfile.mkdtemp(prefix="bench-jobs-"))
    run_path = work / "run.txt"
    write_run(run_path, args.lines)
    port = free_port()
    web = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "config.wsgi", "--workers", "2",
         "--bind", f"127.0.0.1:{port}"], cwd=ROOT, env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    worker = subprocess.Popen(
        [*manage, "jobs_worker", "--no-reload", "--interval", "0.2"], cwd=ROOT, env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        url = f"http://127.0.0.1:{port}"
        headers = {"Authorization": f"Token {token}", "X-Forwarded-Proto": "https"}
        for _ in range(300):
            try:
                requests.get(url + "/api/v1/", timeout=30)
                break
            except requests.RequestException:
                time.sleep(0.2)
        size = run_path.stat().st_size
        with open(run_path, "rb") as body:
            start = time.perf_counter()
            response = requests.post(
                f"{url}/api/v1/campaigns/bench-jobs/imports/", headers=headers, timeout=600,
                files={"file": ("run.txt", body)}, data={"kind": "run", "name": "bench"},
            )  # fmt: skip
            request_s = time.perf_counter() - start
        assert response.status_code == 202, response.text
        # Behind the (absent) TLS proxy the job's URL says https: ask this server directly.
        job_url = f"{url}/api/v1/jobs/{response.json()['id']}/"
        while True:
            job = requests.get(job_url, headers=headers, timeout=60).json()
            if job["finished"]:
                break
            time.sleep(0.5)
        after_202 = time.perf_counter() - start - request_s
        started = datetime.fromisoformat(job["started_at"])
        finished = datetime.fromisoformat(job["finished_at"])
        print(f"database: {env['DATABASE_URL'].split(':')[0]}; run of {args.lines:,} lines, "
              f"{size / 1e6:.1f} MB")  # fmt: skip
        print(f"job: {job['state']} {job['error'] or job['outcome'][:80]}")
        print(f"request (POST until 202): {request_s:.1f} s")
        print(f"job run (started -> finished): {(finished - started).total_seconds():.1f} s; "
              f"from the 202 to finished: {after_202:.1f} s")  # fmt: skip
        webs = ", ".join(f"{peak_mb(p):.0f}" for p in children(web.pid))
        print(f"peak RSS: gunicorn workers {webs} MB; job worker {peak_mb(worker.pid):.0f} MB")
    finally:
        for process in (web, worker):
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=60)


if __name__ == "__main__":
    main()
