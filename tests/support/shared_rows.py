"""Rows made once for all the tests of a module, as Django's TestCase.setUpTestData makes them
for a class: inside a transaction on every database, rolled back when the module's tests are
done. Each test's own transaction (pytest-django's `db`) is then a savepoint inside it, so
what a test changes is undone before the next test, which sees the rows as they were made.

For set-ups that cost a second or more (the demo campaign) and that many tests only read.
A module-scoped fixture that uses it must hand each test fresh instances (read again from the
database in a function-scoped fixture): an instance shared between tests would carry one
test's unsaved changes into the next.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

from django.db import connections, transaction


@contextmanager
def rolled_back_afterwards(django_db_blocker) -> Iterator[None]:
    """Database access for a module-scoped fixture, in a transaction on every alias that is
    rolled back when the fixture ends (`django_db_blocker`: pytest-django's fixture)."""
    with django_db_blocker.unblock(), ExitStack() as stack:
        for alias in connections:
            stack.enter_context(transaction.atomic(using=alias))
        try:
            yield
        finally:
            for alias in connections:
                transaction.set_rollback(True, using=alias)
