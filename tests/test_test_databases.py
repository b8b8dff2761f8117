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
from tests.support.migrated import postgres_admin, postgres_url


@pytest.mark.postgres
@pytest.mark.django_db
def test_a_database_with_a_left_open_session_drops_once_its_sessions_are_ended():
    probe = f"drop_probe_{os.getpid()}"
    postgres_admin(f'DROP DATABASE IF EXISTS "{probe}" WITH (FORCE)')
    postgres_admin(f'CREATE DATABASE "{probe}"')
    try:
        left_open = psycopg.connect(postgres_url(probe))
        left_open.execute("SELECT 1")
        ours = DatabaseWrapper({**connection.settings_dict, "NAME": probe})
        _end_other_sessions(ours)
        ours.close()
        # Fails ("being accessed by other users", after 5 s) if the session was not ended.
        postgres_admin(f'DROP DATABASE "{probe}"')
        assert left_open.closed or left_open.broken or _is_dead(left_open)
    finally:
        postgres_admin(f'DROP DATABASE IF EXISTS "{probe}" WITH (FORCE)')


def _is_dead(conn: psycopg.Connection) -> bool:
    try:
        conn.execute("SELECT 1")
    except psycopg.OperationalError:
        return True
    return False
