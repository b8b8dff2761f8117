"""A person logs in through the real login form and finds their way."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.conftest import PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_manager_logs_in_and_reaches_their_campaign(personas, live_server, page, artifacts):
    page.goto(f"{live_server.url}/")
    expect(page).to_have_url(re.compile("/login/"))
    page.get_by_label("Username").fill("manager")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.get_by_role("link", name="Campaigns", exact=True).click()
    page.get_by_role("link", name="Campaign A").click()
    expect(page.get_by_role("heading", name="Campaign A")).to_be_visible()
    assert page.get_by_role("link", name="Campaign B").count() == 0
    page.screenshot(path=str(artifacts / "campaign-page.png"), full_page=True)


def test_a_wrong_password_keeps_the_person_out(personas, live_server, page):
    page.goto(f"{live_server.url}/login/")
    page.get_by_label("Username").fill("rater")
    page.get_by_label("Password").fill("wrong")
    page.get_by_role("button", name="Log in").click()
    assert page.get_by_role("alert").inner_text().startswith("Your username and password")
    expect(page).to_have_url(re.compile("/login/"))


def test_a_rater_sees_queues_but_no_campaign_management(personas, live_server, page):
    page.goto(f"{live_server.url}/login/")
    page.get_by_label("Username").fill("rater")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("link", name="My queues")).to_be_visible()
    assert page.get_by_role("link", name="Campaigns", exact=True).count() == 0
    page.get_by_role("button", name="Log out").click()
    expect(page).to_have_url(re.compile("/login/"))
