"""Job rows, their uploads and the task queue live on the `jobs` alias (config/env.py says
why). When that alias is the default database itself (PostgreSQL), every app migrates through
either alias; when it is a separate SQLite file, each table lives in exactly one of them."""

from __future__ import annotations

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS

JOBS_DB = "jobs"
JOBS_APPS = frozenset({"jobs", "django_tasks_database"})  # the latter: django-tasks-db


def shares_database() -> bool:
    """Whether the jobs alias is the default database (config.env.jobs_database: everywhere
    but on SQLite). Read from the engine, not the name: the test runner renames one alias's
    database before the other's."""
    return settings.DATABASES[JOBS_DB]["ENGINE"] != "django.db.backends.sqlite3"


def jobs_db() -> str:
    """The alias the job tables are read and written through. On PostgreSQL that is the
    default alias: the heartbeat thread has its own connection anyway, and a migration of
    django-tasks-db that writes its table must not go through a second connection that waits
    for the migration's own transaction (a deadlock)."""
    return DEFAULT_DB_ALIAS if shares_database() else JOBS_DB


class JobsRouter:
    def _route(self, model) -> str | None:
        return jobs_db() if model._meta.app_label in JOBS_APPS else None

    def db_for_read(self, model, **hints) -> str | None:
        return self._route(model)

    def db_for_write(self, model, **hints) -> str | None:
        return self._route(model)

    def allow_relation(self, obj1, obj2, **hints) -> bool | None:
        return None

    def allow_migrate(self, db: str, app_label: str, **hints) -> bool | None:
        if shares_database():
            return None
        return (app_label in JOBS_APPS) == (db == JOBS_DB)
