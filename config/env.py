"""Readers for settings taken from the environment.

Each reader refuses a bad value loudly (ImproperlyConfigured naming the variable), so a
typo in a deployment never silently turns into a default.
"""

from __future__ import annotations

import os

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
        config.setdefault("OPTIONS", {})["timeout"] = 20
    return config
