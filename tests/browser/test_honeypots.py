"""A rater judges real work with a honeypot query mixed in, in a real Chromium: every answer
reaches the database, the answers to gold are marked gold and counted nowhere, the real items
get their counted grades, and the page never says which query was the honeypot."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from annotate.models import Document, Grade, PoolItem, Query
from annotate.services.gold import gold_item_set
from tests.browser.session import log_in
from tests.browser.test_judging import page_errors, shown_title

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

QUERIES = {
    "q0": ("rainfall in lisbon", ["Lisbon climate guide", "Portugal weather averages",
                                  "Cheap flights to Lisbon"]),
    "q1": ("boiling point of water", ["Water boils at 100 degrees Celsius at sea level",
                                      "A cat video compilation"]),
    "q2": ("python list sort", ["Sorting HOW TO in Python", "Snake species of Europe"]),
}  # fmt: skip
KEYS = {"g": "Good", "f": "Fair", "b": "Bad"}


def _campaign(campaign) -> dict[str, PoolItem]:
    items = {}
    for qid, (text, titles) in QUERIES.items():
        query = Query.objects.create(campaign=campaign, external_id=qid, text=text)
        for d, title in enumerate(titles):
            doc = Document.objects.create(
                campaign=campaign, external_id=f"{qid}-d{d}", title=title, snippet=title + "."
            )
            items[title] = PoolItem.objects.create(campaign=campaign, query=query, document=doc)
    return items


def test_a_rater_judges_with_a_honeypot_mixed_in(personas, live_server, page):
    campaign = personas.campaign
    items = _campaign(campaign)
    good, bad = campaign.labels.get(name="Good"), campaign.labels.get(name="Bad")
    # q1 is honeypot gold: its first document Good, its second Bad.
    for title, label in zip(QUERIES["q1"][1], (good, bad), strict=True):
        gold_item_set(
            campaign=campaign,
            manager=personas.manager,
            item_id=items[title].pk,
            label_id=label.pk,
            explanation="textbook fact",
        )
    campaign.refresh_from_db()
    campaign.honeypot_share = 1.0  # the first query leased is the honeypot; later ones real
    campaign.save()
    errors = page_errors(page)
    log_in(page, live_server.url, "rater", home=False)
    page.goto(f"{live_server.url}/judge/campaign-a/")
    given: dict[str, str] = {}
    keys = list(KEYS)
    for n in range(len(items)):
        title = shown_title(page)
        assert title not in given
        key = keys[n % len(keys)]
        page.keyboard.press(key)
        given[title] = KEYS[key]
        if n < len(items) - 1:
            expect(page.locator("#doc-title")).not_to_have_text(title)
    expect(page.get_by_role("heading", name="All done")).to_be_visible()
    assert errors == []
    page.goto("about:blank")  # no request of this test still reaches the server

    grades = {g.pool_item.document.title: g for g in Grade.objects.select_related("label")}
    assert {title: g.label.name for title, g in grades.items()} == given
    gold_titles = set(QUERIES["q1"][1])
    assert {t for t, g in grades.items() if g.gold} == gold_titles
    for title, item in items.items():
        item.refresh_from_db()
        assert item.counted == (0 if title in gold_titles else 1), title
    # The honeypot was served first (a share of 1), then the walk's real queries.
    first_two = sorted(grades.values(), key=lambda g: g.created_at)[:2]
    assert {g.pool_item.document.title for g in first_two} == gold_titles
