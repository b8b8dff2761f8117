"""Run as a separate process by test_upload_limits: a real server (gunicorn, one sync worker, the
project's WSGI module as deployed) on a fresh database receives an upload streamed from disk
over HTTP, and the worker's resident memory is read from outside, in /proc, at rest (after a
small upload has loaded every module the import needs) and at its peak during the large upload
(VmHWM, reset to the resting size just before).

The worker imports the file itself (JOBS_SYNC_MAX_BYTES raised above the upload): the default
hands a file above 1 MiB to a background job, whose worker runs the same import service, so
this is the heavier of the two for a server process.

Prints one JSON line: {"status": ..., "resting_kb": ..., "peak_kb": ..., "worker_pid": ...}.
Usage: python -m tests.annotate.upload_memory_probe DIRECTORY BLANK_MEGABYTES [DATABASE_URL]
(DATABASE_URL, when given, is taken as migrated: the test hands it a copy of the run's
database; without it the probe migrates DIRECTORY/probe.sqlite3.)
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[2]
BOUNDARY = "probe-boundary-7c1d"
SETUP = """
from django.contrib.auth import get_user_model
from knox.models import AuthToken
from annotate.services.campaigns import campaign_create
user = get_user_model().objects.create_user("probe-manager", password="unused-9f2c")
campaign_create(name="Probe", slug="probe", created_by=user)
print(AuthToken.objects.create(user)[1])
"""


def _status_kb(pid: int, field: str) -> int:
    text = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(rf"{field}:\s+(\d+)", text).group(1))


def _write_body(path: Path, blank_megabytes: int, query: str) -> int:
    head = (
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="kind"\r\n\r\nqueries\r\n'
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; '
        'filename="queries.tsv"\r\nContent-Type: text/tab-separated-values\r\n\r\n'
    ).encode()
    with path.open("wb") as out:
        out.write(head)
        chunk = b"\n" * (1024 * 1024)
        for _ in range(blank_megabytes):
            out.write(chunk)
        out.write(f"{query}\tthe only query\n".encode())
        out.write(f"\r\n--{BOUNDARY}--\r\n".encode())
    return path.stat().st_size


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _worker_of(master: int) -> int:
    for _ in range(600):
        path = Path(f"/proc/{master}/task/{master}/children")
        found = path.read_text().split() if path.exists() else []
        if found:
            return int(found[0])
        time.sleep(0.1)
    raise RuntimeError("gunicorn started no worker")


def main(directory: str, blank_megabytes: int, database_url: str | None = None) -> None:
    work = Path(directory)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(work),
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": database_url or f"sqlite:///{work / 'probe.sqlite3'}",
        "THROTTLE_CACHE_URL": "locmem://",
        "JOBS_SYNC_MAX_BYTES": str(1 << 30),
        "DEBUG": "0",
        "SECRET_KEY": "p" * 60,
        "ALLOWED_HOSTS": "127.0.0.1",
        "SECURE_SSL_REDIRECT": "0",
    }
    manage = [sys.executable, "manage.py"]
    run = {"cwd": ROOT, "env": env, "check": True, "capture_output": True, "text": True}
    if database_url is None:
        subprocess.run([*manage, "migrate", "--noinput"], **run)
    token = subprocess.run([*manage, "shell", "-c", SETUP], **run).stdout.split()[-1]
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "config.wsgi", "--workers", "1",
         "--timeout", "600", "--bind", f"127.0.0.1:{port}"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        worker = _worker_of(server.pid)
        url = f"http://127.0.0.1:{port}/api/v1/campaigns/probe/imports/"
        headers = {
            "Authorization": f"Token {token}",
            "Content-Type": f"multipart/form-data; boundary={BOUNDARY}",
            "X-Forwarded-Proto": "https",
        }

        def post(body: Path) -> str:
            with body.open("rb") as stream:
                answer = requests.post(url, data=stream, headers=headers, timeout=600)
            return f"{answer.status_code} {answer.text[:200]}"

        for _ in range(300):
            try:
                requests.get(f"http://127.0.0.1:{port}/api/v1/", timeout=30)
                break
            except requests.ConnectionError:
                time.sleep(0.2)
        # A small upload first, so every module the import needs is loaded before the measure.
        small = work / "small.body"
        _write_body(small, 0, "q-small")
        warm = post(small)
        large = work / "large.body"
        _write_body(large, blank_megabytes, "q-large")
        resting = _status_kb(worker, "VmRSS")
        Path(f"/proc/{worker}/clear_refs").write_text("5")  # VmHWM back to the current RSS
        status = post(large)
        peak = _status_kb(worker, "VmHWM")
        figures = {"status": status, "warm_up": warm[:3], "resting_kb": resting, "peak_kb": peak}
        print(json.dumps({**figures, "worker_pid": worker}))
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=60)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), *sys.argv[3:4])
