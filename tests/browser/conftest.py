"""Real-browser tests: Debian's Chromium driven by Playwright (DESIGN.md section 8).

Without Chromium the tests are skipped with a message saying how to install it, except under
REQUIRE_ALL_TESTS=1 (CI), where a missing browser is a failure.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started

from tests.conftest import REQUIRE_ALL_TESTS

CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]

# Playwright's sync API runs an event loop in this thread; Django's ORM would then refuse
# to run here, including the database teardown after each test. (Subprocesses that run
# `check --deploy` drop it from their environment: there it is rightly a warning.)
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists():
        message = (
            f"Chromium not found at {CHROMIUM}: install it with `apt-get install chromium` "
            "(or set CHROMIUM_PATH) to run the browser tests"
        )
        if REQUIRE_ALL_TESTS:
            pytest.fail(message)
        pytest.skip(message)
    from django.urls import get_resolver
    from playwright.sync_api import sync_playwright

    # Load every view module now (openai, matplotlib, scipy: seconds of imports on a cold or
    # loaded machine), not inside the first page's navigation timeout.
    get_resolver().url_patterns  # noqa: B018
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(15_000)
    yield page
    context.close()


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


def _live_server(sender) -> bool:
    """Whether a request signal comes from the live server: a WSGI handler, in one of the
    server's threads. Not the test client's (it sends "started" for every request but
    "finished" for a streamed response only once the test reads it to the end, and then
    without a sender) nor a WSGI app a test calls in its own thread (the API schema tests': no
    "finished" until their client closes the response). Counted, either kept the count at
    one after such a test, and every browser test after it on the worker waited out the 5 s
    limit below (seen: 14 tests, 70 s in one run)."""
    return (
        isinstance(sender, type)
        and issubclass(sender, WSGIHandler)
        and threading.current_thread() is not threading.main_thread()
    )


class _ServerTraffic:
    """Requests the live server is still answering, counted through Django's own signals."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.open = 0
        self.last = time.monotonic()

    def started(self, sender=None, **_kwargs) -> None:
        if not _live_server(sender):
            return
        with self._lock:
            self.open += 1
            self.last = time.monotonic()

    def finished(self, sender=None, **_kwargs) -> None:
        if not _live_server(sender):
            return
        with self._lock:
            self.open -= 1
            self.last = time.monotonic()

    def wait_quiet(self, quiet: float = 0.05, limit: float = 5.0) -> None:
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            with self._lock:
                if self.open <= 0 and time.monotonic() - self.last >= quiet:
                    return
            time.sleep(0.01)


TRAFFIC = _ServerTraffic()
request_started.connect(TRAFFIC.started, weak=False)
request_finished.connect(TRAFFIC.finished, weak=False)


@pytest.fixture(autouse=True)
def _server_drained(request):
    """Close the test's pages and let the live server finish before the database is flushed.

    A page closed while a fetch or a beacon is on its way leaves the server's thread writing
    to the shared in-memory SQLite; the flush after the test then fails with "database table
    is locked" and the next test on that worker starts on a half-flushed database. Asked for
    after the live server and its database, this runs its teardown before theirs.
    """
    if "live_server" in request.fixturenames:
        request.getfixturevalue("transactional_db")
        request.getfixturevalue("live_server")
    yield
    if "browser" in request.fixturenames:
        for context in list(request.getfixturevalue("browser").contexts):
            context.close()
    TRAFFIC.wait_quiet()
