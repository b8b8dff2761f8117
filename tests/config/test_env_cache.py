"""THROTTLE_CACHE_URL: the cache the API throttle counts in, shared by every worker process."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from config import env
from config.env import env_cache

ROOT = Path(__file__).resolve().parents[2]
FILE = "django.core.cache.backends.filebased.FileBasedCache"
DEFAULT_DIR = Path("/srv/judge/var/throttle")


def _cache(monkeypatch, value: str | None) -> dict:
    if value is None:
        monkeypatch.delenv("THROTTLE_CACHE_URL", raising=False)
    else:
        monkeypatch.setenv("THROTTLE_CACHE_URL", value)
    return env_cache("THROTTLE_CACHE_URL", DEFAULT_DIR)


@pytest.mark.parametrize("value", [None, "", "  "])
def test_unset_it_is_the_file_cache_in_the_default_directory(monkeypatch, value):
    config = _cache(monkeypatch, value)
    assert (config["BACKEND"], config["LOCATION"]) == (FILE, str(DEFAULT_DIR))


def test_a_file_url_moves_the_file_cache(monkeypatch):
    config = _cache(monkeypatch, "file:///var/lib/judge%20app/throttle")
    assert (config["BACKEND"], config["LOCATION"]) == (FILE, "/var/lib/judge app/throttle")


def test_locmem_keeps_the_counters_in_each_process(monkeypatch):
    config = _cache(monkeypatch, "locmem://")
    assert config["BACKEND"] == "django.core.cache.backends.locmem.LocMemCache"


def test_redis_is_used_when_the_package_is_installed(monkeypatch):
    monkeypatch.setattr(env.importlib.util, "find_spec", lambda name: object())
    config = _cache(monkeypatch, "redis://cache.internal:6379/2")
    assert config == {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": "redis://cache.internal:6379/2",
    }


def test_redis_without_the_package_is_refused_with_what_to_install(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(
        env.importlib.util, "find_spec", lambda name: None if name == "redis" else real(name)
    )
    with pytest.raises(ImproperlyConfigured) as refused:
        _cache(monkeypatch, "rediss://:s3cret@cache.internal:6380/0")
    message = str(refused.value)
    assert "THROTTLE_CACHE_URL" in message
    assert "pip install redis" in message
    assert "s3cret" not in message  # a Redis URL may carry a password


@pytest.mark.parametrize(
    "value",
    [
        "memcached://cache:11211",
        "throttle",
        "file://relative/dir",
        "file://",
        "/var/lib/throttle",
        "https://cache.example.com",
    ],
)
def test_it_rejects_anything_else_naming_the_variable(monkeypatch, value):
    with pytest.raises(ImproperlyConfigured, match="THROTTLE_CACHE_URL"):
        _cache(monkeypatch, value)


def _settings_in_a_fresh_process(**extra: str) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if k != "THROTTLE_CACHE_URL"}
    code = "from django.conf import settings; print(settings.CACHES['throttle']['LOCATION'])"
    return subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", code],
        cwd=ROOT,
        env={**base, **extra},
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_project_counts_under_var_with_nothing_configured():
    done = _settings_in_a_fresh_process()
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == str(ROOT / "var" / "throttle")


def test_the_project_refuses_to_start_with_a_bad_throttle_cache_url():
    done = _settings_in_a_fresh_process(THROTTLE_CACHE_URL="memcached://cache:11211")
    assert done.returncode != 0
    assert "ImproperlyConfigured" in done.stderr
    assert "THROTTLE_CACHE_URL" in done.stderr.splitlines()[-1]


def test_the_default_directory_is_ignored_by_git():
    done = subprocess.run(
        ["git", "check-ignore", "-q", "var/throttle/x.djcache"], cwd=ROOT, check=False
    )
    assert done.returncode == 0
