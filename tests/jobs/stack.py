"""A real deployment in miniature for the job tests: a fresh database (a SQLite file, or a
PostgreSQL database of its own), the development server and `jobs_worker` processes, each a
separate process talking to that database, as in production. Nothing runs in-process."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from tests.support.migrated import database_copy, postgres_admin

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "correct-horse-battery-staple"
HEARTBEAT, STALE = 0.3, 3.0
# Bounds on waiting for a process (not speed goals): a loaded CI machine gets plenty.
PATIENCE = 180.0

SETUP = """
from django.contrib.auth import get_user_model
from knox.models import AuthToken
from annotate.models import Query, Role
from annotate.services.campaigns import campaign_create, membership_set
User = get_user_model()
manager = User.objects.create_user(username="manager", password={password!r})
rater = User.objects.create_user(username="rater", password={password!r})
campaign = campaign_create(name="Big", slug="big", created_by=manager)
membership_set(campaign=campaign, user=rater, role=Role.RATER)
Query.objects.bulk_create(
    Query(campaign=campaign, external_id=f"q{{i}}", text=f"query {{i}}") for i in range(50)
)
print(AuthToken.objects.create(rater)[1], AuthToken.objects.create(manager)[1])
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Stack:
    def __init__(self, tmp: Path, factory: pytest.TempPathFactory) -> None:
        """A stack in `tmp`, its database a copy of the run's migrated one (`factory`: the
        run's temporary directories, tests/support/migrated.py)."""
        self.tmp = tmp
        self.processes: list[subprocess.Popen] = []
        self.pg_name = None
        url = database_copy(factory, tmp, "stack")
        if url.startswith("postgres"):
            self.pg_name = url.rsplit("/", 1)[1]
        self.env = {k: v for k, v in os.environ.items() if k not in ("TEST_DATABASE_NAME",)} | {
            "DATABASE_URL": url,
            "DEBUG": "1",
            "JOBS_HEARTBEAT_SECONDS": str(HEARTBEAT),
            "JOBS_STALE_SECONDS": str(STALE),
            "JOBS_SYNC_MAX_BYTES": "1000",
            "THROTTLE_CACHE_URL": "locmem://",
            "PYTHONUNBUFFERED": "1",
        }
        # The manager's token, and a rater's for the tests of who may see what (made here: a
        # process of its own later would cost a Django start-up).
        tokens = self.shell(SETUP.format(password=PASSWORD)).strip().splitlines()[-1]
        self.rater_token, self.token = tokens.split()
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.spawn("runserver", f"127.0.0.1:{self.port}", "--noreload", log="web")
        self._wait_for_server()

    def manage(self, *args: str) -> str:
        done = subprocess.run(
            [sys.executable, "manage.py", *args], cwd=ROOT, env=self.env,
            capture_output=True, text=True, timeout=4 * PATIENCE,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-3000:]
        return done.stdout

    def shell(self, code: str) -> str:
        return self.manage("shell", "-c", code)

    def query(self, expression: str):
        """A value computed in a fresh process against the stack's database, as JSON."""
        code = (
            "import json\nfrom annotate.models import *\nfrom jobs.models import *\n"
            "from django_tasks_db.models import DBTaskResult\n"
            f"print(json.dumps({expression}))"
        )
        return json.loads(self.shell(code).strip().splitlines()[-1])

    def query_all(self, *expressions: str) -> list:
        """Several values from one fresh process (each process costs a second or more)."""
        return self.query("[" + ", ".join(expressions) + "]")

    def spawn(self, *args: str, log: str) -> subprocess.Popen:
        out = open(self.tmp / f"{log}.log", "ab")  # noqa: SIM115 - kept open for the process
        process = subprocess.Popen(
            [sys.executable, "manage.py", *args], cwd=ROOT, env=self.env, stdout=out,
            stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
        self.processes.append(process)
        return process

    def worker(self, name: str = "worker") -> subprocess.Popen:
        # Without the system checks: they import every view (seconds of each worker's start,
        # and a test starts several) and say nothing about jobs; the server runs them.
        return self.spawn(
            "jobs_worker", "--no-reload", "--interval", "0.2", "--no-startup-delay",
            "--skip-checks", log=name,
        )  # fmt: skip

    def _wait_for_server(self) -> None:
        deadline = time.monotonic() + PATIENCE
        while time.monotonic() < deadline:
            try:
                requests.get(self.url + "/login/", timeout=5)
                return
            except requests.ConnectionError:
                time.sleep(0.2)
        raise AssertionError("the development server did not start: " + self.log("web"))

    def log(self, name: str) -> str:
        path = self.tmp / f"{name}.log"
        return path.read_text(errors="replace")[-3000:] if path.exists() else ""

    def api(self, method: str, path: str, **kwargs) -> requests.Response:
        headers = {"Authorization": f"Token {self.token}"}
        return requests.request(method, self.url + path, headers=headers, timeout=60, **kwargs)

    def upload_run(self, name: str, body: bytes) -> requests.Response:
        files = {"file": (f"{name}.txt", body, "text/plain")}
        return self.api("POST", "/api/v1/campaigns/big/imports/", files=files,
                        data={"kind": "run", "name": name})  # fmt: skip

    def job(self, job_id: int) -> dict:
        response = self.api("GET", f"/api/v1/jobs/{job_id}/")
        assert response.status_code == 200, response.text
        return response.json()

    def wait_job(self, job_id: int, until) -> dict:
        deadline = time.monotonic() + PATIENCE
        while time.monotonic() < deadline:
            job = self.job(job_id)
            if until(job):
                return job
            time.sleep(0.1)
        raise AssertionError(f"job {job_id} never got there: {job}\n{self.log('worker')}")

    def stop(self, process: subprocess.Popen, sig: int = signal.SIGTERM) -> None:
        if process.poll() is None:
            os.killpg(process.pid, sig)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()

    def close(self) -> None:
        for process in self.processes:
            self.stop(process)
        if self.pg_name:
            postgres_admin(f'DROP DATABASE IF EXISTS "{self.pg_name}" WITH (FORCE)')


def run_file(lines: int, *, queries: int = 50, docs: str = "d") -> bytes:
    """A TREC run of `lines` lines over the stack's 50 queries. Runs imported at the same
    time need their own `docs` prefix: two imports creating the same new documents at once
    is a conflict the second one reports (nothing written), as it should."""
    per_query = -(-lines // queries)
    out = []
    for n in range(lines):
        q, rank = divmod(n, per_query)
        out.append(f"q{q} Q0 {docs}{q}-{rank} {rank + 1} {1000 - rank / 1000:.4f} tag\n")
    return "".join(out).encode()
