"""The end of a run on PostgreSQL: sessions other threads left open on the test database are
ended before it is dropped (tests/conftest.py), so DROP DATABASE neither waits 5 s for them
nor fails and leaves the database behind."""

from __future__ import annotations

import os

import psycopg
import pytest
from django.db import connection
from django.db.backends.postgresql.base import DatabaseWrapper

from tests.conftest import _end_other_sessions


@pytest.mark.postgres
@pytest.mark.django_db
def test_a_database_with_a_left_open_session_drops_once_its_sessions_are_ended():
    probe = f"drop_probe_{os.getpid()}"
    settings = {**connection.settings_dict, "NAME": probe}
    admin = psycopg.connect(
        host=settings["HOST"], port=settings["PORT"] or 5432, user=settings["USER"],
        dbname="postgres", autocommit=True,
    )  # fmt: skip
    try:
        admin.execute(f'DROP DATABASE IF EXISTS "{probe}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{probe}"')
        left_open = psycopg.connect(
            host=settings["HOST"], port=settings["PORT"] or 5432, user=settings["USER"],
            dbname=probe,
        )  # fmt: skip
        left_open.execute("SELECT 1")
        ours = DatabaseWrapper(settings)
        _end_other_sessions(ours)
        ours.close()
        # Fails ("being accessed by other users", after 5 s) if the session was not ended.
        admin.execute(f'DROP DATABASE "{probe}"')
        assert left_open.closed or left_open.broken or _is_dead(left_open)
    finally:
        admin.execute(f'DROP DATABASE IF EXISTS "{probe}" WITH (FORCE)')
        admin.close()


def _is_dead(conn: psycopg.Connection) -> bool:
    try:
        conn.execute("SELECT 1")
    except psycopg.OperationalError:
        return True
    return False
