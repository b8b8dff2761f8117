"""Settings come from the environment and refuse bad values loudly, naming the variable."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GOOD_KEY = "k" * 20 + "-production-secret-key-0123456789abcdef"


def run_check(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if k not in {"DEBUG", "SECRET_KEY", "DATABASE_URL"}}
    base.pop("ALLOWED_HOSTS", None)
    base.pop("CSRF_TRUSTED_ORIGINS", None)
    base.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    base.pop("API_TRUSTED_PROXIES", None)
    return subprocess.run(
        [sys.executable, "manage.py", "check", *args],
        cwd=ROOT,
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def production(**extra: str) -> dict[str, str]:
    return {"DEBUG": "0", "SECRET_KEY": GOOD_KEY, "ALLOWED_HOSTS": "judge.example.com", **extra}


def test_it_starts_with_nothing_configured():
    result = run_check({})
    assert result.returncode == 0, result.stderr


def test_it_refuses_to_start_without_secret_key_when_debug_is_off():
    env = production()
    del env["SECRET_KEY"]
    result = run_check(env)
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert "SECRET_KEY" in result.stderr


def test_it_refuses_a_short_secret_key_in_production():
    result = run_check(production(SECRET_KEY="short"))
    assert result.returncode != 0
    assert "SECRET_KEY" in result.stderr


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("DEBUG", "maybe"),
        ("DATABASE_URL", "mysql://root:s3cret@localhost/x"),
        ("DATABASE_URL", "nonsense"),
        ("ALLOWED_HOSTS", "a.example.com,,b.example.com"),
        ("CSRF_TRUSTED_ORIGINS", "judge.example.com"),
        ("SECURE_HSTS_SECONDS", "a year"),
        ("API_TRUSTED_PROXIES", "-1"),
        ("API_TRUSTED_PROXIES", "one"),
    ],
)
def test_it_rejects_a_bad_value_naming_the_variable(variable, value):
    result = run_check(production(**{variable: value}))
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert variable in result.stderr.splitlines()[-1]
    if variable == "DATABASE_URL":
        # Never echoed: a database URL may hold a password.
        assert value not in result.stderr
    else:
        assert value in result.stderr.splitlines()[-1]


def test_it_requires_allowed_hosts_in_production():
    env = production()
    del env["ALLOWED_HOSTS"]
    result = run_check(env)
    assert result.returncode != 0
    assert "ALLOWED_HOSTS" in result.stderr


def test_check_deploy_is_clean_with_production_values():
    result = run_check(
        production(CSRF_TRUSTED_ORIGINS="https://judge.example.com", API_TRUSTED_PROXIES="1"),
        "--deploy",
        "--fail-level",
        "WARNING",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_check_deploy_warns_when_no_proxy_is_trusted():
    """Behind the README's proxy, 0 trusted proxies makes every visitor one address: five
    wrong passwords from anyone would lock everyone's sign-in out."""
    env = production(CSRF_TRUSTED_ORIGINS="https://judge.example.com")
    result = run_check(env, "--deploy", "--fail-level", "WARNING")
    assert result.returncode != 0
    assert "config.W001" in result.stderr and "API_TRUSTED_PROXIES" in result.stderr
    # A warning, not an error, so the server still starts: `check` lists the issues under
    # their level (CRITICALS, ERRORS, WARNINGS, INFOS), and the default fail level, ERROR,
    # fails on the first two only. Read here rather than from a second process (5 s).
    assert "\nWARNINGS:\n" in result.stderr, result.stderr
    above, warnings = result.stderr.split("\nWARNINGS:\n", 1)
    assert "config.W001" in warnings.split("\nINFOS:\n")[0], result.stderr
    assert "\nERRORS:\n" not in above and "\nCRITICALS:\n" not in above, result.stderr
    direct = run_check({**env, "API_TRUSTED_PROXIES": "0"}, "--deploy", "--fail-level", "WARNING")
    assert direct.returncode == 0, direct.stderr  # 0 said on purpose: served directly


def test_database_url_selects_postgresql():
    from config.env import env_database

    os.environ["TEST_DB_URL_PROBE"] = "postgres://u:p@db.example:5433/judgments"
    try:
        config = env_database("TEST_DB_URL_PROBE", "sqlite:///x.sqlite3")
    finally:
        del os.environ["TEST_DB_URL_PROBE"]
    assert config["ENGINE"] == "django.db.backends.postgresql"
    assert (config["HOST"], config["PORT"], config["NAME"]) == ("db.example", 5433, "judgments")


def test_sqlite_readers_do_not_block_writers(tmp_path, django_db_blocker):
    """A streamed export keeps a cursor open while the client downloads: on SQLite that must
    not lock out the raters' grades (write-ahead logging)."""
    from django.db.utils import ConnectionHandler

    from config.env import env_database

    os.environ["TEST_DB_URL_PROBE"] = f"sqlite:///{tmp_path / 'wal.sqlite3'}"
    try:
        config = env_database("TEST_DB_URL_PROBE", "sqlite:///x.sqlite3")
    finally:
        del os.environ["TEST_DB_URL_PROBE"]
    config["OPTIONS"]["timeout"] = 0.2  # fail fast instead of waiting 20 s
    handler = ConnectionHandler({"default": config, "writer": dict(config)})
    reader, writer = handler["default"], handler["writer"]
    with django_db_blocker.unblock():
        _read_while_writing(handler, reader, writer)


def _read_while_writing(handler, reader, writer) -> None:
    try:
        with writer.cursor() as cursor:
            cursor.execute("CREATE TABLE t (n integer)")
            cursor.executemany("INSERT INTO t VALUES (%s)", [(i,) for i in range(500)])
            cursor.execute("PRAGMA journal_mode")
            assert cursor.fetchone()[0] == "wal"
        reading = reader.cursor()
        reading.execute("SELECT n FROM t")
        assert reading.fetchone() is not None  # the read is under way, its cursor open
        with writer.cursor() as cursor:
            cursor.execute("INSERT INTO t VALUES (1000)")  # "database is locked" without WAL
        reading.close()
    finally:
        handler.close_all()
