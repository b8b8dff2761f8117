"""The throttle counts in one cache for every worker process, so a client gets its limit once
per deployment, not once per gunicorn worker."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from django.core.cache import caches
from knox.models import AuthToken
from rest_framework.test import APIClient

from annotate.api.throttling import AnonThrottle, TokenRateThrottle

ROOT = Path(__file__).resolve().parents[2]

# A worker's view of the throttle: Django set up from the settings as a server would be, then
# anonymous requests from one address checked against a limit of 3 a minute.
WORKER = """
import json, sys
import django
django.setup()
from django.contrib.auth.models import AnonymousUser
from django.test import RequestFactory
from rest_framework.request import Request
from annotate.api.throttling import AnonThrottle

AnonThrottle.THROTTLE_RATES = {"anon": "3/minute"}
answers = []
for _ in range(int(sys.argv[1])):
    request = Request(RequestFactory().get("/api/v1/me/", REMOTE_ADDR="192.0.2.7"))
    request.user = AnonymousUser()
    answers.append(AnonThrottle().allow_request(request, None))
print(json.dumps(answers))
"""


def _worker(requests: int, cache_url: str) -> list[bool]:
    env = {k: v for k, v in os.environ.items() if k != "THROTTLE_CACHE_URL"}
    env.update(DJANGO_SETTINGS_MODULE="config.settings", THROTTLE_CACHE_URL=cache_url)
    done = subprocess.run(
        [sys.executable, "-c", WORKER, str(requests)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_two_worker_processes_share_one_limit_through_the_file_cache(tmp_path):
    directory = tmp_path / "not-made-yet" / "throttle"
    url = f"file://{directory}"
    assert _worker(2, url) == [True, True]
    assert _worker(2, url) == [True, False]  # the third request of the minute, fourth refused
    assert directory.is_dir()  # made on first use, nothing to set up


def test_a_per_process_cache_would_give_each_worker_the_whole_limit():
    """The failure the shared cache prevents, shown with a cache that is not shared."""
    assert _worker(2, "locmem://") == [True, True]
    assert _worker(2, "locmem://") == [True, True]


def test_the_throttles_count_in_the_throttle_cache_not_the_default_one(personas):
    _, token = AuthToken.objects.create(user=personas.rater)
    script = APIClient()
    script.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert script.get("/api/v1/me/").status_code == 200
    APIClient().get("/api/v1/me/")  # anonymous: counted by the error handler, on its 401
    token_key = f"throttle_token_{personas.rater.pk}"
    anon_key = "throttle_anon_127.0.0.1"
    assert len(caches["throttle"].get(token_key)) == 1
    assert len(caches["throttle"].get(anon_key)) == 1
    assert caches["default"].get(token_key) is None
    assert caches["default"].get(anon_key) is None


def test_the_api_uses_the_shared_throttles():
    from rest_framework.settings import api_settings

    in_use = api_settings.DEFAULT_THROTTLE_CLASSES
    assert in_use == [AnonThrottle, TokenRateThrottle]
