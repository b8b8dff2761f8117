"""Run as a separate process by test_upload_limits: a server process (Django's WSGI handler, as
gunicorn calls it) on a fresh SQLite file receives an upload streamed from disk, and the
process's resident memory is read before and at its peak (Linux VmHWM, reset just before).

Prints one JSON line: {"status": ..., "resting_kb": ..., "peak_kb": ...}.
Usage: python -m tests.annotate.upload_memory_probe DIRECTORY BLANK_MEGABYTES
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

BOUNDARY = "probe-boundary-7c1d"


def _status_kb(field: str) -> int:
    text = Path("/proc/self/status").read_text()
    return int(re.search(rf"{field}:\s+(\d+)", text).group(1))


def _write_body(path: Path, blank_megabytes: int) -> int:
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
        out.write(b"q1\tthe only query\n")
        out.write(f"\r\n--{BOUNDARY}--\r\n".encode())
    return path.stat().st_size


def main(directory: str, blank_megabytes: int) -> None:
    work = Path(directory)
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    os.environ["DATABASE_URL"] = f"sqlite:///{work / 'probe.sqlite3'}"
    os.environ["THROTTLE_CACHE_URL"] = "locmem://"
    # Imported in this process, not handed to a background job: the worker runs the same
    # import service, and this measures that service's memory on the blank lines.
    os.environ["JOBS_SYNC_MAX_BYTES"] = str(1 << 30)
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.handlers.wsgi import WSGIHandler
    from django.core.management import call_command
    from knox.models import AuthToken

    from annotate.services.campaigns import campaign_create

    call_command("migrate", verbosity=0)
    user = get_user_model().objects.create_user("probe-manager", password="unused-9f2c")
    campaign_create(name="Probe", slug="probe", created_by=user)
    _, token = AuthToken.objects.create(user)
    app = WSGIHandler()

    def post(body: Path, size: int) -> str:
        status: list[str] = []
        environ = {
            "REQUEST_METHOD": "POST",
            "PATH_INFO": "/api/v1/campaigns/probe/imports/",
            "CONTENT_TYPE": f"multipart/form-data; boundary={BOUNDARY}",
            "CONTENT_LENGTH": str(size),
            "SERVER_NAME": "127.0.0.1",
            "SERVER_PORT": "80",
            "HTTP_HOST": "127.0.0.1",
            "HTTP_AUTHORIZATION": f"Token {token}",
            "wsgi.url_scheme": "http",
            "wsgi.errors": sys.stderr,
        }
        with body.open("rb") as stream:
            environ["wsgi.input"] = stream
            b"".join(app(environ, lambda s, h, exc_info=None: status.append(s)))
        return status[0]

    # A small upload first, so every module the import needs is loaded before the measure.
    small = work / "small.body"
    post(small, _write_body(small, 0))
    large = work / "large.body"
    size = _write_body(large, blank_megabytes)
    resting = _status_kb("VmRSS")
    Path("/proc/self/clear_refs").write_text("5")  # resets VmHWM to the current RSS
    status = post(large, size)
    print(json.dumps({"status": status, "resting_kb": resting, "peak_kb": _status_kb("VmHWM")}))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
