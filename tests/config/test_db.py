"""config.db: the hot statements are prepared once per connection on PostgreSQL, and stay
ordinary Django statements otherwise: their errors are django.db errors, tests and DEBUG see
them, and DATABASE_PREPARED_STATEMENTS=0 turns preparing off."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import DatabaseError, connection
from django.test.utils import CaptureQueriesContext

from annotate.models import Campaign
from config.db import fetch_instances, hot_cursor, prepares
from config.env import env_database

PG_URL = "postgres://postgres@127.0.0.1:5432/db"


def test_postgres_prepares_unless_turned_off(monkeypatch):
    monkeypatch.delenv("DATABASE_PREPARED_STATEMENTS", raising=False)
    assert env_database("X_DB", PG_URL)["OPTIONS"]["prepare_threshold"] == 0
    monkeypatch.setenv("DATABASE_PREPARED_STATEMENTS", "0")
    assert "prepare_threshold" not in env_database("X_DB", PG_URL).get("OPTIONS", {})
    monkeypatch.delenv("DATABASE_PREPARED_STATEMENTS")
    assert "prepare_threshold" not in env_database("X_DB", "sqlite:///x.sqlite3")["OPTIONS"]


def test_a_hot_statement_is_captured_like_any_other(db):
    with CaptureQueriesContext(connection) as captured, hot_cursor() as cursor:
        cursor.execute("SELECT %s + 1", [41])
        assert cursor.fetchone()[0] == 42
    assert [q["sql"] for q in captured.captured_queries] == ["SELECT 41 + 1"]


def test_a_failing_hot_statement_raises_a_django_database_error(db):
    with pytest.raises(DatabaseError), hot_cursor() as cursor:
        cursor.execute("SELECT * FROM no_such_table WHERE id = %s", [1])


@pytest.mark.skipif(connection.vendor != "postgresql", reason="prepared statements: PostgreSQL")
def test_on_postgres_a_hot_statement_is_prepared_once_and_reused(db):
    assert prepares()
    statement = "SELECT %s::int * 2 AS hot_statement_test"
    for value in range(7):
        with hot_cursor() as cursor:
            cursor.execute(statement, [value])
            assert cursor.fetchone()[0] == value * 2
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT generic_plans + custom_plans FROM pg_prepared_statements "
            "WHERE statement LIKE %s",
            ["%hot_statement_test%"],
        )
        runs = [row[0] for row in cursor.fetchall()]
    assert runs == [7]  # one prepared statement, run seven times


@pytest.mark.skipif(connection.vendor != "postgresql", reason="prepared statements: PostgreSQL")
def test_django_cursors_are_not_prepared(db):
    for value in range(7):
        with connection.cursor() as cursor:
            cursor.execute("SELECT %s::int AS plain_statement_test", [value])
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT COUNT(*) FROM pg_prepared_statements WHERE statement LIKE %s",
            ["%plain_statement_test%"],
        )
        assert cursor.fetchone()[0] == 0


def test_fetch_instances_loads_what_the_orm_loads(personas):
    sql = "SELECT {columns} FROM annotate_campaign c WHERE c.slug = %s"
    [loaded] = fetch_instances(Campaign, sql, [personas.campaign.slug], alias="c")
    orm = Campaign.objects.get(slug=personas.campaign.slug)
    names = [field.attname for field in Campaign._meta.concrete_fields]
    assert {n: getattr(loaded, n) for n in names} == {n: getattr(orm, n) for n in names}
    assert loaded.created_at.tzinfo is not None  # SQLite's naive text went through converters
    assert loaded._state.adding is False and loaded._state.db == "default"
    assert fetch_instances(Campaign, sql, ["no-such-campaign"], alias="c") == []


def test_fetch_instances_reads_booleans_as_booleans(personas):
    User = get_user_model()
    sql = "SELECT {columns} FROM auth_user t WHERE t.id = %s"
    [user] = fetch_instances(User, sql, [personas.rater.pk])
    assert user.is_active is True and user.is_superuser is False
