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

import copy
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from io import StringIO
from typing import Any, TypeVar

import pytest
from django.db import connections, transaction

T = TypeVar("T")


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


def rows_per_module(make: Callable[[Any], T], *, name: str) -> tuple[Any, Any]:
    """Two fixtures for rows `make(personas)` builds: `_module_rows` makes them once for the
    module, rolled back after it, as the personas are (tests/conftest.py), and `<name>` hands
    each test a fresh deep copy of the instances (what a test changes in the rows is rolled back
    by its own transaction). Where the personas are made per test (`_module_personas` is None:
    a module with a transactional test) each test makes its own rows.

    Bind both at module level, once per module: `_module_rows, data = rows_per_module(make,
    name="data")`. A module that borrows them imports both."""

    @pytest.fixture(scope="module", name="_module_rows")
    def module_rows(_module_personas, django_db_blocker) -> Iterator[T | None]:
        if _module_personas is None:
            yield None
            return
        with rolled_back_afterwards(django_db_blocker):
            yield make(_module_personas)

    # The module's rows as an argument, not looked up inside: a module-scoped fixture first
    # asked for inside a test's own transaction would be rolled back with that test.
    @pytest.fixture(name=name)
    def rows(_module_rows, personas) -> T:
        return make(personas) if _module_rows is None else copy.deepcopy(_module_rows)

    return module_rows, rows


@contextmanager
def demo_for_module(django_db_blocker, *args: str) -> Iterator[None]:
    """`manage.py demo *args` run once for a module's tests and rolled back after them (a few
    seconds a build), in English and with DEBUG on as the command wants; what a test changes,
    a rebuild among it, is undone by the test's own transaction."""
    from django.core.management import call_command
    from django.test import override_settings
    from django.utils import translation

    with rolled_back_afterwards(django_db_blocker):
        with override_settings(DEBUG=True), translation.override("en"):
            call_command("demo", *args, stdout=StringIO(), stderr=StringIO())
        yield
