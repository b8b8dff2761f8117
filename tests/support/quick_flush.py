"""How a transactional test's databases are emptied after it, in the test run: without
writing again the rows that post_migrate seeds, when the test left them as they were.

Django's flush (TransactionTestCase) deletes every table's rows, the content types and the
permissions included, then sends post_migrate so that its receivers write those again (and, on
SQLite, so that annotate reads every task table's columns to check its triggers). That second
half was four fifths of each flush: about 0.1 s of each of a browser test's two flushes on
SQLite (the default and the jobs database), more on a loaded machine.

Here the tables post_migrate writes keep their rows and no signal is sent, as long as those
rows, and on SQLite the schema with its triggers, are exactly what they were in the clean
database (read before the first transactional test, and again after any flush of Django's).
A test that changed any of them, one that asks for serialized rollback or a subset of the
apps, and any test once a post_migrate receiver this module does not know is connected (a
new app's), get Django's flush, signal and all. On a clean database those receivers only
write the rows kept here (the same rows, under the ids they had), so each test starts on the
same rows and the same schema as before.
Only in the test run (tests/conftest.py installs it); the product never flushes.
"""

from __future__ import annotations

import weakref

from django.core.management import call_command
from django.core.management.color import no_style
from django.db import connections
from django.db.models.signals import post_migrate
from django.test import TransactionTestCase

_DJANGO_TEARDOWN = TransactionTestCase._fixture_teardown
_DJANGO_SETUP = TransactionTestCase._fixture_setup

# What post_migrate writes, by receiver (module, name): the tables whose rows it makes.
_SEEDS = {
    ("django.contrib.contenttypes.management", "create_contenttypes"): ("django_content_type",),
    ("django.contrib.auth.management", "create_permissions"): ("auth_permission",),
    # On SQLite, (re)installs the triggers when they differ from the schema's: the schema is
    # part of what is compared.
    ("annotate.apps", "_sqlite_triggers_on"): (),
}

# alias -> what the clean database held: the seeded tables' rows and, on SQLite, the schema.
_clean: dict[str, tuple] = {}


def _receivers_known() -> bool:
    """Whether every post_migrate receiver is one of _SEEDS (a dead weak one counts too)."""
    for _key, receiver, _is_async in post_migrate.receivers:
        if isinstance(receiver, weakref.ReferenceType):
            receiver = receiver()
        name = (getattr(receiver, "__module__", None), getattr(receiver, "__qualname__", None))
        if receiver is not None and name not in _SEEDS:
            return False
    return True


def _seeded_tables(connection) -> list[str]:
    existing = set(connection.introspection.django_table_names(only_existing=True))
    return sorted({t for tables in _SEEDS.values() for t in tables} & existing)


def _state(connection) -> tuple:
    """The seeded tables' rows and, on SQLite, every table's, index's and trigger's SQL."""
    quote = connection.ops.quote_name
    with connection.cursor() as cursor:
        rows = []
        for table in _seeded_tables(connection):
            cursor.execute(f"SELECT * FROM {quote(table)} ORDER BY 1")
            rows.append((table, cursor.fetchall()))
        schema = ()
        if connection.vendor == "sqlite":
            cursor.execute("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name")
            schema = tuple(cursor.fetchall())
    return tuple(rows), schema


def _inhibited(case: TransactionTestCase, alias: str) -> bool:
    """Whether Django's flush of `alias` sends no post_migrate (TransactionTestCase's rule)."""
    return case.available_apps is not None or (
        case.serialized_rollback and hasattr(connections[alias], "_test_serialized_contents")
    )


@classmethod
def _fixture_setup(cls) -> None:
    for alias in cls._databases_names(include_mirrors=False):
        if alias not in _clean:
            _clean[alias] = _state(connections[alias])
    _DJANGO_SETUP.__func__(cls)


def _flush_keeping_seeds(connection) -> None:
    seeded = set(_seeded_tables(connection))
    tables = [
        table
        for table in connection.introspection.django_table_names(
            only_existing=True, include_views=False
        )
        if table not in seeded
    ]
    connection.ops.execute_sql_flush(connection.ops.sql_flush(no_style(), tables))


def _fixture_teardown(self) -> None:
    known = _receivers_known()
    for alias in self._databases_names(include_mirrors=False):
        connection = connections[alias]
        inhibited = _inhibited(self, alias)
        if known and not inhibited and _clean.get(alias) == _state(connection):
            _flush_keeping_seeds(connection)
            continue
        # Django's own flush, as TransactionTestCase._fixture_teardown calls it.
        call_command(
            "flush",
            verbosity=0,
            interactive=False,
            database=alias,
            reset_sequences=False,
            allow_cascade=self.available_apps is not None,
            inhibit_post_migrate=inhibited,
        )
        if not inhibited:  # post_migrate wrote the seeds again: the clean state now
            _clean[alias] = _state(connection)


def install() -> None:
    TransactionTestCase._fixture_setup = _fixture_setup
    TransactionTestCase._fixture_teardown = _fixture_teardown
