"""Readers for settings taken from the environment.

Each reader refuses a bad value loudly (ImproperlyConfigured naming the variable), so a
typo in a deployment never silently turns into a default.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from urllib.parse import unquote

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(
        f"{name} must be one of 1/0, true/false, yes/no, on/off; got {raw!r}"
    )


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a whole number; got {raw!r}") from None
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}; got {value}")
    return value


def env_float(name: str, default: float, *, minimum: float = 0.0) -> float:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a number; got {raw!r}") from None
    if not value >= minimum:  # also refuses nan
        raise ImproperlyConfigured(f"{name} must be at least {minimum}; got {raw!r}")
    return value


def env_time_zone(name: str, default: str) -> str:
    """An IANA zone name (Asia/Shanghai, UTC): the one the pages show times in."""
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    value = (os.environ.get(name) or "").strip() or default
    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError):
        raise ImproperlyConfigured(
            f"{name} must be an IANA time zone such as Asia/Shanghai or UTC; got {value!r}"
        ) from None
    return value


def env_list(name: str, default: list[str]) -> list[str]:
    """A comma-separated list; empty items are refused because they are always a typo."""
    raw = os.environ.get(name)
    if raw is None:
        return default
    items = [item.strip() for item in raw.split(",")]
    if raw.strip() == "":
        return []
    if any(item == "" for item in items):
        raise ImproperlyConfigured(f"{name} has an empty item in {raw!r}")
    return items


def env_origins(name: str, default: list[str]) -> list[str]:
    origins = env_list(name, default)
    for origin in origins:
        if not origin.startswith(("http://", "https://")):
            raise ImproperlyConfigured(
                f"{name} entries must start with http:// or https://; got {origin!r}"
            )
    return origins


def env_database(name: str, default: str) -> dict:
    import dj_database_url

    raw = os.environ.get(name) or default
    try:
        config = dj_database_url.parse(raw, conn_max_age=60, conn_health_checks=True)
    except (ValueError, KeyError) as exc:
        # The URL is not echoed: it may carry a password.
        raise ImproperlyConfigured(f"{name} is not a valid database URL ({exc})") from None
    engine = config.get("ENGINE", "")
    if engine not in ("django.db.backends.sqlite3", "django.db.backends.postgresql"):
        raise ImproperlyConfigured(
            f"{name} must point at SQLite or PostgreSQL (sqlite:///path, postgres://...); "
            f"got engine {engine or 'none'!r}"
        )
    if engine == "django.db.backends.sqlite3":
        # SQLite drops connections instantly; persistent ones only hold file locks longer.
        config["CONN_MAX_AGE"] = 0
        options = config.setdefault("OPTIONS", {})
        options["timeout"] = 20
        # Write-ahead logging: a reader never blocks a writer. In the default rollback journal,
        # a streamed export (a cursor left open while the client downloads) holds a shared lock
        # that makes every rater's grade wait, then fail with "database is locked".
        options["init_command"] = "PRAGMA journal_mode=WAL;"
    elif env_bool("DATABASE_PREPARED_STATEMENTS", True):
        # config/db.py: only its hot_cursor binds on the server, so only its statements are
        # prepared; Django's client-side cursors never are.
        config.setdefault("OPTIONS", {})["prepare_threshold"] = 0
    return config


def jobs_database(default: dict) -> dict:
    """The database alias `jobs` (job rows, their progress, uploads and the task queue).

    On PostgreSQL it is the same database, and the job tables are used through the default
    alias (jobs/routers.py): a job's progress and heartbeat commit from the heartbeat thread's
    own connection while its import's transaction is still open. SQLite locks the whole
    file for one writer until commit, so there a sibling file (db.sqlite3 -> db-jobs.sqlite3)
    holds the jobs: the web pages and the heartbeat write it while an import holds the main
    file. Both files must sit on the one machine that runs the web and the workers."""
    config = {**default, "OPTIONS": dict(default.get("OPTIONS", {}))}
    config["TEST"] = dict(default.get("TEST", {}))
    if default["ENGINE"] == "django.db.backends.sqlite3":
        main = Path(str(default["NAME"]))
        config["NAME"] = str(main.with_name(f"{main.stem}-jobs{main.suffix or '.sqlite3'}"))
        if config["TEST"].get("NAME"):
            test = Path(config["TEST"]["NAME"])
            config["TEST"]["NAME"] = str(test.with_name(f"{test.stem}-jobs{test.suffix}"))
    return config


def env_cache(name: str, default_dir: Path) -> dict:
    """A cache that every worker process of one deployment shares, as a CACHES entry.

    Unset: Django's file cache in `default_dir` (made on first write), shared by the processes
    of one machine with nothing to install. ``file:///absolute/dir`` moves it;
    ``redis://host:6379/0`` (or ``rediss://``) shares it between machines through Django's
    RedisCache, once the ``redis`` package is installed; ``locmem://`` keeps it in each process
    (tests only: every worker would count on its own).
    """
    raw = (os.environ.get(name) or "").strip()
    if not raw:
        return _file_cache(default_dir)
    scheme, sep, rest = raw.partition("://")
    scheme = scheme.lower()
    if not sep:
        scheme = ""
    if scheme == "file":
        location = Path(unquote(rest))
        if not location.is_absolute():
            raise ImproperlyConfigured(
                f"{name} must name an absolute directory (file:///var/lib/judge/throttle); "
                f"got {raw!r}"
            )
        return _file_cache(location)
    if scheme == "locmem":
        return {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": rest or name.lower(),
        }
    if scheme in ("redis", "rediss"):
        if importlib.util.find_spec("redis") is None:
            # The URL is not echoed: it may carry a password.
            raise ImproperlyConfigured(
                f"{name} points at Redis but the redis package is not installed: "
                "pip install redis (or unset it to use the file cache)"
            )
        return {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": raw}
    raise ImproperlyConfigured(
        f"{name} must start with file:///, redis://, rediss:// or locmem://; "
        f"got scheme {scheme or 'none'!r}"
    )


def _file_cache(directory: Path) -> dict:
    return {
        "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
        "LOCATION": str(directory),
        # The file cache deletes an expired entry only when its key is read again, so entries
        # of clients gone away stay until MAX_ENTRIES, where a random third is deleted (live
        # counters too: a few clients get a fresh window). Every client counted since the last
        # cull holds one entry; with NUM_PROXIES set, a client cannot mint new ones by header.
        "OPTIONS": {"MAX_ENTRIES": 10_000},
    }
