"""A migrated database to copy, for the tests that run the project as real processes on a fresh
database of their own (tests/jobs/stack.py, the import commands, the upload memory probe).

Migrating a new database from nothing takes `manage.py migrate` 5 to 15 seconds; each of those
set-ups used to pay it. The first one of a test run migrates a template (in real processes, as
before) and every set-up then starts from a copy of it: the same tables and the same rows as
its own migrate would have made, in a database nobody else uses. The xdist workers of one run
share the template (a lock file decides who builds it).
"""

from __future__ import annotations

import atexit
import fcntl
import os
import shutil
import subprocess
import sys
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


def sqlite_template(factory: pytest.TempPathFactory) -> Path:
    """The directory holding the migrated SQLite files (both aliases), built on first use."""
    shared = _shared_dir(factory)
    template = shared / "migrated-sqlite"
    with open(shared / "migrated-sqlite.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (template / "done").exists():
            shutil.rmtree(template, ignore_errors=True)
            template.mkdir()
            env = {**os.environ, "DATABASE_URL": f"sqlite:///{template / SQLITE_FILES[0]}"}
            env.pop("TEST_DATABASE_NAME", None)
            _migrate(env)
            (template / "done").touch()
    return template


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


_BUILT: set[str] = set()
