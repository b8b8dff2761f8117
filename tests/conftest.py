"""Shared fixtures: the personas every permission test uses, and the database switches.

Personas (DESIGN.md / issue 2): a rater and a manager of campaign A, a rater and a manager of
campaign B, an outsider with an account but no campaign, and an anonymous visitor.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from tests.support.shared_rows import rolled_back_afterwards

PASSWORD = "correct-horse-battery-staple"

REQUIRE_ALL_TESTS = os.environ.get("REQUIRE_ALL_TESTS") == "1"

# ranx (the reference for exponential NDCG, tests/metrics/core/test_ranx_agreement.py) is the
# only user of numba, and compiling its kernels took a fresh clone over a minute of CPU (66 s of
# a 705 s serial run) to score 40 queries. Its kernels run as the plain Python they are written
# in instead: the same code and the same float64 arithmetic (ranx asks for no fastmath), in a
# few seconds. Nothing in the project itself uses numba. Set before any test imports ranx.
os.environ.setdefault("NUMBA_DISABLE_JIT", "1")
# Where numba would cache what it compiles when the JIT is on (NUMBA_DISABLE_JIT=0): a
# project-local, git-ignored directory, never site-packages.
os.environ.setdefault("NUMBA_CACHE_DIR", str(Path(__file__).resolve().parents[1] / "var" / "numba"))


def serial_group(item: pytest.Item) -> str | None:
    """The xdist group of a test that runs in one worker, one after the other, while the other
    workers go on (`make test` runs `pytest -n auto --dist loadgroup`): the browser tests share
    one Chromium; the PostgreSQL race tests (threads on their own connections, so transactional)
    time their threads against each other and should not also race each other for the CPU."""
    if "browser" in item.keywords:
        return "browser"
    django_db = item.get_closest_marker("django_db")
    if "postgres" in item.keywords and django_db and django_db.kwargs.get("transaction"):
        return "postgres-races"
    return None


def pytest_configure(config):
    from django.conf import settings

    # Hashing is deliberately slow; tests create many users and only need it correct.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    # API throttle counters in this process's memory, not in the project's var/ directory that
    # a running server and other test runs share; emptied before each test (below).
    settings.CACHES = {
        **settings.CACHES,
        "throttle": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": "throttle-tests",
        },
    }
    from jobs.routers import JOBS_DB, shares_database

    if shares_database():  # PostgreSQL
        # No test uses the jobs alias there (_with_jobs_database): as a mirror it still points
        # at the test database, not at the real one, should anything outside a test open it.
        settings.DATABASES[JOBS_DB]["TEST"]["MIRROR"] = "default"
        # A transactional test's flush deletes the rows instead of truncating every table.
        from tests.support import pg_flush

        pg_flush.install()
    # A transactional test's flush keeps the content types and permissions it left alone.
    from tests.support import quick_flush

    quick_flush.install()
    config.pluginmanager.register(_GroupedNodeIds(), "grouped-node-ids")
    config.pluginmanager.register(_JobsAliasMigrate(), "jobs-alias-migrate")


class _GroupedNodeIds:
    """Makes `--dist loadgroup` group again. xdist 3.8 marks a test's group by writing
    "<id>@<group>" into `item._nodeid`; pytest 9.2 reads a node's id from `item._id`, so the
    mark was lost and every group's tests ran on any worker, side by side (the browser tests,
    the PostgreSQL races). After xdist's hook, the id it wrote becomes the id."""

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items):
        from _pytest.nodes import coerce_node_id

        for item in items:
            written = item.__dict__.get("_nodeid")
            if written and written != item.nodeid:
                item._id = coerce_node_id(written)


class _JobsAliasMigrate:
    """pytest-django's django_db_setup, which migrates the test databases, runs with the SQLite
    jobs alias's migrate recording the other apps' migrations instead of walking their states
    (tests/support/jobs_migrate.py). A plugin, not a hook of this conftest: a session fixture's
    set-up calls the hooks of the session, which sees only the plugins and the root's conftest."""

    @pytest.hookimpl(wrapper=True)
    def pytest_fixture_setup(self, fixturedef, request):
        if fixturedef.argname != "django_db_setup" or fixturedef.func.__module__ != (
            "pytest_django.fixtures"
        ):
            return (yield)
        from tests.support.jobs_migrate import jobs_alias_records_other_apps

        with jobs_alias_records_other_apps():
            return (yield)


@pytest.fixture(autouse=True)
def _fresh_caches():
    """No test may hit a throttle limit that an earlier one filled, nor read a cached result
    keyed on ids that a rolled-back earlier test used too."""
    from django.core.cache import caches
    from django.core.cache.backends.locmem import LocMemCache

    # Fails loudly if the cache handler read CACHES before pytest_configure could swap it.
    assert isinstance(caches["throttle"], LocMemCache), type(caches["throttle"])
    for alias in ("default", "throttle"):
        caches[alias].clear()
    yield
    for alias in ("default", "throttle"):
        caches[alias].clear()


@pytest.fixture(autouse=True)
def _default_language():
    """Every test starts in English: a request in Chinese (LocaleMiddleware) leaves its
    language active in the thread, and the next test's messages would be Chinese."""
    from django.utils import translation

    translation.activate("en")
    yield
    translation.activate("en")


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker, django_db_keepdb, tmp_path_factory):
    """pytest-django's, then: the freshly migrated test databases kept as the run's migrated
    template (tests/support/migrated.py: the tests of real processes copy it instead of
    migrating one more database); at the end, close the jobs alias's connection before the test
    database is dropped (on PostgreSQL it is a second connection to that same database), and
    end the sessions other threads left open on it."""
    if not django_db_keepdb:  # a reused database may hold an earlier run's leftovers
        from tests.support.migrated import keep_as_template

        with django_db_blocker.unblock():
            keep_as_template(tmp_path_factory)
    yield
    from django.db import connections

    connections["jobs"].close()
    with django_db_blocker.unblock():
        _end_other_sessions(connections["default"])


def _end_other_sessions(connection) -> None:
    """On PostgreSQL, end every other session on the test database. The live server's and the
    race tests' threads leave theirs open, and DROP DATABASE waits 5 s for them and then
    fails ("is being accessed by other users"): each worker's last test took 5 s longer and
    its database stayed behind."""
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )


def _with_jobs_database(items) -> None:
    """Every database test may touch the jobs alias (a page that starts a job, the API's
    job endpoints): add it where a test names no databases of its own.

    Where the jobs alias is the default database itself (PostgreSQL), the product reaches the
    job tables through the default alias (jobs.routers.jobs_db()), and the jobs alias is left
    out of every test, named or not: it was a second connection to the same database that
    each test wrapped in a transaction of its own, and that every transactional test flushed
    a second time (the whole database again). A test that did reach it would fail ("Database
    queries to 'jobs' are not allowed"), not leak."""
    from jobs.routers import shares_database

    shared = shares_database()
    for item in items:
        if "_django_db_helper" not in item.fixturenames:
            continue
        marker = item.get_closest_marker("django_db")
        kwargs = dict(marker.kwargs) if marker is not None else {}
        args = marker.args if marker is not None else ()
        named = kwargs.get("databases")
        if named is None:
            kwargs["databases"] = ["default"] if shared else ["default", "jobs"]
        elif shared and named != "__all__" and "jobs" in named:
            kwargs["databases"] = [alias for alias in named if alias != "jobs"]
        else:
            continue
        item.add_marker(pytest.mark.django_db(*args, **kwargs), append=False)


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups from the items
def pytest_collection_modifyitems(config, items):
    """Put the serial tests in their xdist group; skip PostgreSQL-only tests on SQLite (in CI
    too: the PostgreSQL pass runs them)."""
    from django.db import connection

    _with_jobs_database(items)

    for item in items:
        if group := serial_group(item):
            item.add_marker(pytest.mark.xdist_group(group))
    if connection.vendor == "postgresql":
        return
    # On SQLite these skips are expected even in CI: the PostgreSQL pass runs them.
    skip = pytest.mark.skip(reason="needs PostgreSQL: set DATABASE_URL=postgres://...")
    for item in items:
        if "postgres" in item.keywords:
            item.add_marker(skip)


@dataclass
class Personas:
    campaign: object
    other_campaign: object
    rater: object
    other_rater: object
    manager: object
    other_manager: object
    outsider: object

    def client_for(self, name: str) -> Client:
        client = Client()
        if name != "anonymous":
            client.force_login(getattr(self, name))
        return client


def _made_personas() -> Personas:
    from annotate.models import Role
    from annotate.services.campaigns import campaign_create, membership_set

    users = {}
    for name in ("rater", "other_rater", "manager", "other_manager", "outsider"):
        users[name] = get_user_model().objects.create_user(username=name, password=PASSWORD)
    campaign = campaign_create(name="Campaign A", slug="campaign-a", created_by=users["manager"])
    other = campaign_create(name="Campaign B", slug="campaign-b", created_by=users["other_manager"])
    membership_set(campaign=campaign, user=users["rater"], role=Role.RATER)
    membership_set(campaign=other, user=users["other_rater"], role=Role.RATER)
    return Personas(campaign=campaign, other_campaign=other, **users)


# What makes a test transactional: its rows are committed and flushed afterwards, so it cannot
# run inside a transaction that outlives it.
_TRANSACTIONAL_FIXTURES = frozenset(
    (
        "transactional_db",
        "live_server",
        "django_db_reset_sequences",
        "django_db_serialized_rollback",
    )
)
_TRANSACTIONAL_FLAGS = ("transaction", "reset_sequences", "serialized_rollback")


def _shares_personas(module: pytest.Module, items: list[pytest.Item]) -> bool:
    """Whether the personas of `module` can be made once for all its tests: every test of it
    that reaches the database asks for them (another would find their rows there), and none
    is transactional (it would commit inside the module's transaction and flush it)."""
    for item in items:
        if item.getparent(pytest.Module) is not module:
            continue
        names = set(item.fixturenames)
        marker = item.get_closest_marker("django_db")
        if names & _TRANSACTIONAL_FIXTURES:
            return False
        if marker is not None and any(marker.kwargs.get(flag) for flag in _TRANSACTIONAL_FLAGS):
            return False
        # django_db_blocker is in every test's closure (pytest-django's autouse fixtures ask
        # for it): only a test that takes it itself opens the database with it.
        own = getattr(item, "_fixtureinfo", None)
        takes_blocker = own is None or "django_db_blocker" in own.argnames
        uses_database = marker is not None or "_django_db_helper" in names or takes_blocker
        if uses_database and "personas" not in names:
            return False
    return True


@pytest.fixture(scope="module")
def _module_personas(request, django_db_setup, django_db_blocker) -> Iterator[Personas | None]:
    """The personas' rows made once for a module's tests, when _shares_personas allows it: in
    a transaction rolled back after the module (tests/support/shared_rows.py), each test's own
    transaction a savepoint inside it, so what a test changes in them is undone before the next
    (tests/test_personas_fixture.py). Made per test (29 queries: 5 users, 2 campaigns with their
    labels and members), they cost each of ~1,700 tests about 6 ms of CPU before its own work.
    None: they are made per test, as before."""
    if not _shares_personas(request.node, request.session.items):
        yield None
        return
    with rolled_back_afterwards(django_db_blocker):
        yield _made_personas()


@pytest.fixture
def personas(_module_personas, db) -> Personas:
    if _module_personas is None:
        return _made_personas()
    # A fresh copy of the instances as they were made, one copy of the whole so that what
    # points to the same instance still does (the campaign's cached creator is the manager):
    # a change a test makes to its instances, saved or not, stays with that test.
    return copy.deepcopy(_module_personas)


PERSONA_NAMES = ["rater", "other_rater", "manager", "other_manager", "outsider", "anonymous"]
