"""Prepared statements for the few statements every grade runs (PostgreSQL).

Planning, not running, was most of the database's CPU per grade: the grade's locking read
joins four tables and took ~0.5 ms to plan and ~0.1 ms to run, every time. Django binds
parameters on the client and turns prepared statements off (they break transaction-mode
connection poolers), so the hot statements go through a server-binding cursor on a
connection whose psycopg `prepare_threshold` is 0: each is parsed once per connection, and
after five runs PostgreSQL keeps a generic plan when it costs no more than planning each run
(plan_cache_mode auto). Every other statement keeps Django's client-side cursor, which never
prepares.
DATABASE_PREPARED_STATEMENTS=0 (config/env.py) turns this off, for such a pooler.

Only statements whose best plan does not depend on the values belong here (key and index
lookups). The queue's walk over the pool is not one: prepared, it ran 10 ms instead of 1.
A migration that changes a selected column's type makes open connections' prepared
statements fail ("cached plan must not change result type") until they close: restart the
workers after such a migrate, as after any release.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TypeVar

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.backends.utils import CursorDebugWrapper, CursorWrapper
from django.db.models import Model

M = TypeVar("M", bound=Model)


def prepares(using: str = DEFAULT_DB_ALIAS) -> bool:
    """Whether hot_cursor prepares statements on this database."""
    connection = connections[using]
    return (
        connection.vendor == "postgresql"
        and connection.settings_dict["OPTIONS"].get("prepare_threshold") is not None
    )


@contextmanager
def hot_cursor(using: str = DEFAULT_DB_ALIAS) -> Iterator[CursorWrapper]:
    """A cursor whose statements are prepared on PostgreSQL (Django's own cursor elsewhere).

    It is wrapped as Django wraps its cursors, so errors become django.db errors and
    statements show in connection.queries and CaptureQueriesContext."""
    connection = connections[using]
    if not prepares(using):
        with connection.cursor() as cursor:
            yield cursor
        return
    from django.db.backends.postgresql.base import ServerBindingCursor

    connection.close_if_health_check_failed()
    connection.ensure_connection()
    connection.validate_thread_sharing()
    with connection.wrap_database_errors:
        raw = ServerBindingCursor(connection.connection)
    wrap = _DebugWrapper if connection.queries_logged else CursorWrapper
    with wrap(raw, connection) as cursor:
        yield cursor


class _DebugWrapper(CursorDebugWrapper):
    """Django's logging cursor, writing the statement with its values filled in itself:
    psycopg keeps no text of a prepared statement, where Django's log looks for it."""

    def debug_sql(self, sql=None, params=None, use_last_executed_query=False, many=False):
        if use_last_executed_query and not many:
            sql, use_last_executed_query = self.db.ops.compose_sql(sql, params), False
        return super().debug_sql(sql, params, use_last_executed_query, many)


def fetch_instances(model: type[M], sql: str, params: Sequence, *, alias: str = "t") -> list[M]:
    """Model instances from a hot statement, as the ORM would load them.

    `sql` names the selected columns `{columns}` (every concrete field, table alias `alias`);
    values pass through the same converters the ORM applies (SQLite's naive datetimes become
    aware, for one). For the per-request reads where compiling the ORM's query cost several
    times running it."""
    connection = connections[DEFAULT_DB_ALIAS]
    fields, converters = _load_plan(model, connection.vendor, alias)
    columns = ", ".join(f"{alias}.{connection.ops.quote_name(f.column)}" for f in fields)
    with hot_cursor() as cursor:
        cursor.execute(sql.format(columns=columns), params)
        rows = cursor.fetchall()
    names = [field.attname for field in fields]
    instances = []
    for row in rows:
        values = list(row)
        for index, column, chain in converters:
            for convert in chain:
                values[index] = convert(values[index], column, connection)
        instances.append(model.from_db(connection.alias, names, values))
    return instances


@functools.cache
def _load_plan(model: type[Model], vendor: str, alias: str) -> tuple[list, list]:
    """The model's fields and, per field that needs them, the ORM's converters for this
    database (`vendor` keys the cache: SQLite converts datetimes, PostgreSQL does not)."""
    connection = connections[DEFAULT_DB_ALIAS]
    fields = list(model._meta.concrete_fields)
    converters = []
    for index, field in enumerate(fields):
        column = field.get_col(alias)
        chain = connection.ops.get_db_converters(column) + column.get_db_converters(connection)
        if chain:
            converters.append((index, column, chain))
    return fields, converters
