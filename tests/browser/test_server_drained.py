"""A page closed with requests on their way must not leave the next test a locked database.

Without the browser conftest's `_server_drained`, the flush after such a test failed with
"database table is locked" on SQLite (three of eight runs here, once in CI).
"""

from __future__ import annotations

import pytest

from tests.browser.test_screens import DESKTOP, new_page, open_sxs, sxs_world


@pytest.mark.parametrize("attempt", range(3))
def test_a_page_closed_mid_requests_leaves_a_flushable_database(
    personas, live_server, browser, attempt
):
    sxs_world(personas.campaign, queries=2)
    page = new_page(browser, DESKTOP)
    open_sxs(page, live_server.url)
    # Each fetch of the judging page leases and writes; none is awaited.
    page.evaluate("() => { for (let i = 0; i < 40; i++) fetch(location.href); }")
    page.context.close()
