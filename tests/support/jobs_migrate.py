"""The test run's migrate of the SQLite jobs database, without walking every other app's states.

On SQLite the jobs alias is a file of its own (config/env.py) that holds only the tables of
jobs.routers.JOBS_APPS: the router refuses every other app there, so `migrate --database jobs`
applies none of their operations (their RunPython and RunSQL ask the router too) and only
records them as applied. It still built and re-rendered the project state of all of them: as
long as the default alias's migrate, for nothing (half of every xdist worker's database set-up).

While pytest-django creates the test databases, the migrations of the other apps are recorded
on the SQLite jobs alias the way `migrate --fake` records them, in the same order; those of the
jobs apps are applied as before, by Django's executor, from a state that holds only their own
models (they depend on no other app: their tables name a campaign or a user by plain id).
The file ends up the same: the same tables, indexes and django_migrations rows (SQL dumps
compared, apart from the times in `applied`). The default alias and every PostgreSQL database
migrate as before, and so does any migrate a test runs.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.db.migrations.executor import MigrationExecutor

from jobs.routers import JOBS_APPS, JOBS_DB, shares_database


@contextmanager
def jobs_alias_records_other_apps() -> Iterator[None]:
    if shares_database():
        yield
        return
    original = MigrationExecutor.apply_migration

    def apply_migration(self, state, migration, fake=False, fake_initial=False):
        if self.connection.alias == JOBS_DB and migration.app_label not in JOBS_APPS:
            # Nothing of it reaches this database: recorded only, the state left as it is.
            fake = True
        elif self.connection.alias == JOBS_DB:
            # Its state would lack the models of an app it depended on: migrate it in full.
            others = {app for app, _ in migration.dependencies} - JOBS_APPS
            assert not others, f"{migration} depends on {others}: drop this shortcut"
        return original(self, state, migration, fake=fake, fake_initial=fake_initial)

    MigrationExecutor.apply_migration = apply_migration
    try:
        yield
    finally:
        MigrationExecutor.apply_migration = original
