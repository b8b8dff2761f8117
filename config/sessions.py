"""Django's database sessions, read with one precompiled statement.

Every request of a signed-in user reads its session; through the ORM that read cost about as
much CPU as storing a grade. Same table, same expiry rule, same writes and deletes (logout
deletes the row, so the session is gone on every worker at once): only the read differs.
"""

from __future__ import annotations

from django.contrib.auth import BACKEND_SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore as DatabaseSessionStore
from django.contrib.sessions.models import Session
from django.db import connections, router
from django.utils import timezone

from config.db import hot_cursor

_READ = "SELECT session_data FROM django_session WHERE session_key = %s AND expire_date > %s"

# Sessions signed in before config/auth.py replaced Django's ModelBackend name Django's class,
# which Django no longer accepts once it is not in AUTHENTICATION_BACKENDS: read them as
# signed in through ours (the same rules), so a release signs nobody out.
_RENAMED_BACKENDS = {"django.contrib.auth.backends.ModelBackend": "config.auth.ModelBackend"}


class SessionStore(DatabaseSessionStore):
    def load(self) -> dict:
        data = super().load()
        backend = data.get(BACKEND_SESSION_KEY)
        if backend in _RENAMED_BACKENDS:
            data[BACKEND_SESSION_KEY] = _RENAMED_BACKENDS[backend]
        return data

    def _get_session_from_db(self) -> Session | None:
        connection = connections[router.db_for_read(self.model)]
        now = connection.ops.adapt_datetimefield_value(timezone.now())
        with hot_cursor(connection.alias) as cursor:
            cursor.execute(_READ, [self.session_key, now])
            row = cursor.fetchone()
        if row is None:
            self._session_key = None  # as the database store does: a new key when saved
            return None
        return self.model(session_key=self.session_key, session_data=row[0])
