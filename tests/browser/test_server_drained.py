"""A page closed with requests on their way must not leave the next test a locked database.

Without the browser conftest's `_server_drained`, the flush after such a test failed with
"database table is locked" on SQLite (three of eight runs here, once in CI).
"""

from __future__ import annotations

import pytest
from django.urls import reverse

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


def test_a_download_the_test_client_leaves_unread_is_not_live_server_traffic(client, personas):
    """The test client sends "finished" for a streamed response only when it is read to the
    end; counted, an unread download elsewhere on the worker made every browser test after it
    wait out the drain's limit."""
    from tests.browser.conftest import TRAFFIC

    client.force_login(personas.manager)
    before = TRAFFIC.open
    url = reverse("annotate:export_grades", kwargs={"slug": personas.campaign.slug})
    response = client.get(url)
    assert response.status_code == 200 and response.streaming
    assert TRAFFIC.open == before  # left unread on purpose
    assert b"".join(response.streaming_content)  # and now read, as other tests do
    assert TRAFFIC.open == before


def test_a_wsgi_app_a_test_calls_itself_is_not_live_server_traffic(personas):
    """The API schema tests call the WSGI application in the test's own thread, and the
    response they leave open never sends "finished"."""
    from django.core.handlers.wsgi import WSGIHandler
    from django.test import RequestFactory

    from tests.browser.conftest import TRAFFIC

    before = TRAFFIC.open
    environ = RequestFactory().get("/api/v1/schema/").environ
    response = WSGIHandler()(environ, lambda status, headers: None)
    assert response.status_code == 200
    assert TRAFFIC.open == before  # left open on purpose
    response.close()
    assert TRAFFIC.open == before
