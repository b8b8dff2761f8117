"""A migrated database to copy, for the tests that run the project as real processes on a fresh
database of their own (tests/jobs/stack.py, the import commands, the upload memory probe).

Migrating a new database from nothing takes `manage.py migrate` 5 to 15 seconds; each of those
set-ups used to pay it. The first one of a test run migrates a template (in real processes, as
before) and every set-up then starts from a copy of it: the same tables and the same rows as
its own migrate would have made, in a database nobody else uses. The xdist workers of one run
share the template (a lock file decides who builds it).

Most runs need no migrate for it at all: pytest-django has just migrated the run's own test
databases with the same command, and keep_as_template (tests/conftest.py) copies them as the
template before any test writes to them (their SQL dumps are the same as the template's).
"""

from __future__ import annotations

import atexit
import fcntl
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SQLITE_FILES = ("db.sqlite3", "db-jobs.sqlite3")  # the jobs alias's sibling file: config/env.py


def _shared_dir(factory: pytest.TempPathFactory) -> Path:
    """The run's temporary directory: shared by its xdist workers, new for every run."""
    base = factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def _migrate(env: dict[str, str]) -> None:
    """`manage.py migrate`, once, as a deployment runs it: on SQLite the command migrates the
    jobs file too (jobs/management/commands/migrate.py), on PostgreSQL the jobs alias is the
    same database. (A second `migrate --database jobs` re-applied nothing but still walked all
    96 migrations' states: 10 to 15 s of every test run.) Without the system checks, which
    import every view and write nothing (6 of its 20 s; `check` has tests of its own)."""
    done = subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "--skip-checks"],
        cwd=ROOT, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]


def _sqlite_template(factory: pytest.TempPathFactory, build: Callable[[Path], None]) -> Path:
    """The directory of the migrated SQLite files (both aliases); `build(directory)` makes
    them there unless this run already has them."""
    shared = _shared_dir(factory)
    template = shared / "migrated-sqlite"
    with open(shared / "migrated-sqlite.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (template / "done").exists():
            shutil.rmtree(template, ignore_errors=True)
            template.mkdir()
            build(template)
            (template / "done").touch()
    return template


def _migrate_into(template: Path) -> None:
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{template / SQLITE_FILES[0]}"}
    env.pop("TEST_DATABASE_NAME", None)
    _migrate(env)


def sqlite_template(factory: pytest.TempPathFactory) -> Path:
    """The directory holding the migrated SQLite files (both aliases), built on first use."""
    return _sqlite_template(factory, _migrate_into)


def keep_as_template(factory: pytest.TempPathFactory) -> None:
    """Right after pytest-django migrated this process's test databases, before any test:
    those databases become the run's template, unless it has one (SQLite: written by the
    first xdist worker to get here, with SQLite's backup API; PostgreSQL: each worker's own,
    a copy of its test database). Needs database access (django_db_blocker.unblock())."""
    from django.db import connections

    if connections["default"].vendor == "postgresql":
        _keep_postgres_template()
        return

    def copy(template: Path) -> None:
        for alias, name in zip(("default", "jobs"), SQLITE_FILES, strict=True):
            connections[alias].ensure_connection()
            with closing(sqlite3.connect(template / name)) as target:
                connections[alias].connection.backup(target)
                # What the project's connections do first (config/env.py: WAL), as `migrate`'s
                # did on the files it made: a copy of an in-memory database is in rollback
                # journal mode, and the first processes of a stack to open it at once would
                # race to switch it ("database is locked").
                target.executescript(connections[alias].settings_dict["OPTIONS"]["init_command"])

    _sqlite_template(factory, copy)


def sqlite_copy(factory: pytest.TempPathFactory, directory: Path) -> Path:
    """A fresh copy of the migrated SQLite database in `directory`; returns the main file."""
    template = sqlite_template(factory)
    for name in SQLITE_FILES:
        shutil.copyfile(template / name, directory / name)
    return directory / SQLITE_FILES[0]


def postgres_template(url_of, connect, name: str) -> str:
    """The name of a migrated PostgreSQL database `name`, built once per process (its name is
    the xdist worker's own). `url_of(db)` gives a database's URL, `connect(sql)` runs SQL
    against the server's maintenance database."""
    if name not in _BUILT:
        connect(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        connect(f'CREATE DATABASE "{name}"')
        env = {**os.environ, "DATABASE_URL": url_of(name)}
        env.pop("TEST_DATABASE_NAME", None)
        _migrate(env)
        _BUILT.add(name)
        atexit.register(connect, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    return name


def postgres_admin(sql: str) -> None:
    """`sql` run on the maintenance database of the test run's PostgreSQL server."""
    import psycopg
    from django.conf import settings

    default = settings.DATABASES["default"]
    with psycopg.connect(
        host=default.get("HOST") or "127.0.0.1", port=default.get("PORT") or 5432,
        user=default.get("USER") or "postgres", dbname="postgres", autocommit=True,
    ) as conn:  # fmt: skip
        conn.execute(sql)


def postgres_template_name() -> str:
    """The template's name: the worker's test database's (settings name it by then) + _tmpl."""
    from django.conf import settings

    return f"{settings.DATABASES['default']['NAME']}_tmpl"[:60]


def _keep_postgres_template() -> None:
    from django.conf import settings
    from django.db import connections

    name, source = postgres_template_name(), settings.DATABASES["default"]["NAME"]
    # CREATE DATABASE ... TEMPLATE wants no other session on the source: Django's connections
    # (the default and the jobs alias) reconnect on their next query.
    connections.close_all()
    postgres_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    postgres_admin(f'CREATE DATABASE "{name}" TEMPLATE "{source}"')
    _BUILT.add(name)
    atexit.register(postgres_admin, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


_BUILT: set[str] = set()


def postgres_url(name: str) -> str:
    """The URL of database `name` on the test run's PostgreSQL server."""
    from django.conf import settings

    default = settings.DATABASES["default"]
    host = default.get("HOST") or "127.0.0.1"
    port = default.get("PORT") or 5432
    user = default.get("USER") or "postgres"
    return f"postgres://{user}@{host}:{port}/{name}"


def database_copy(factory: pytest.TempPathFactory, directory: Path, suffix: str) -> str:
    """The URL of a fresh copy of the run's migrated database, on the run's own database
    engine, for real processes: SQLite files in `directory`, or on PostgreSQL the database
    "<worker's test database>_<suffix>" made from the worker's template (dropped at exit, and
    again by whoever asks for the same suffix). On a PostgreSQL run a SQLite copy would first
    migrate a SQLite template from nothing (10 to 15 s of the run)."""
    from django.conf import settings

    default = settings.DATABASES["default"]
    if not default["ENGINE"].endswith("postgresql"):
        return f"sqlite:///{sqlite_copy(factory, directory)}"
    name = f"{default['NAME']}_{suffix}"[:60]
    template = postgres_template(postgres_url, postgres_admin, postgres_template_name())
    postgres_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    postgres_admin(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
    atexit.register(postgres_admin, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    return postgres_url(name)
