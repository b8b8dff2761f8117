"""Graded gold pauses a rater, in a real Chromium (#18): every query of the campaign is a whole
honeypot gold query (share 1), all of it accepted as Good; the rater grades by keyboard and
presses Bad every time. The gold rules run after every EVERY-th stored answer
(annotate/services/quality.py); once they do, with the campaign's minimum of gold answers met,
the rater is paused: the judging page says so. The manager sees the gold reason on the rater
quality page and resumes them; the database holds what happened."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from annotate.models import (
    Document,
    Grade,
    Membership,
    PoolItem,
    QualityEvent,
    Query,
    TaskLease,
)
from annotate.services.gold import gold_item_set
from annotate.services.quality import EVERY
from tests.browser.quality_helpers import manager_resumes, press_until_paused
from tests.browser.session import log_in
from tests.browser.test_judging import keys_ready, page_errors

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

MIN_GOLD = 3  # the campaign's minimum of gold answers, low to keep the test short
# The rules run on a stored answer whose id is a multiple of EVERY: after MIN_GOLD answers
# one of the next EVERY is such, whatever ids earlier tests used.
QUERIES, DOCS = 6, 5
assert QUERIES * DOCS > MIN_GOLD + EVERY


def _gold_campaign(personas) -> None:
    campaign = personas.campaign
    good = campaign.labels.get(name="Good")
    for q in range(QUERIES):
        query = Query.objects.create(campaign=campaign, external_id=f"q{q}", text=f"topic {q}")
        for d in range(DOCS):
            doc = Document.objects.create(
                campaign=campaign, external_id=f"q{q}-d{d}", title=f"Doc {q}.{d}", snippet="Text."
            )
            item = PoolItem.objects.create(campaign=campaign, query=query, document=doc)
            gold_item_set(
                campaign=campaign,
                manager=personas.manager,
                item_id=item.pk,
                label_id=good.pk,
                explanation="on topic",
            )
    campaign.refresh_from_db()
    campaign.honeypot_share = 1.0
    campaign.min_gold_answers = MIN_GOLD
    campaign.save()


def test_a_rater_who_misses_gold_is_paused_then_resumed(personas, live_server, page, artifacts):
    _gold_campaign(personas)
    campaign = personas.campaign
    membership = Membership.objects.get(campaign=campaign, user=personas.rater)
    errors = page_errors(page)
    log_in(page, live_server.url, "rater", home=False)
    page.goto(f"{live_server.url}/judge/{campaign.slug}/")
    presses = press_until_paused(page, membership, lambda _page: "b", limit=QUERIES * DOCS)

    # Every answer stored, all to gold, all Bad, the pause on a multiple of EVERY.
    grades = list(Grade.objects.filter(rater=personas.rater).select_related("label"))
    assert len(grades) == presses >= MIN_GOLD
    assert all(g.gold and g.label.name == "Bad" for g in grades)
    assert max(g.pk for g in grades) % EVERY == 0
    n = len(grades)
    # Bad is two grades from Good: none right, within one grade or exact; within is judged first.
    assert membership.pause_reason == {"rule": "gold_within", "k": 0, "n": n, "threshold": 0.7}
    assert not TaskLease.objects.filter(rater=personas.rater).exists()

    # The rater is told on the judging page they were working on, which keeps the answer it
    # paused them on as given, and on coming back to it.
    expect(page.locator("#notice")).to_contain_text("a manager reviews the quality")
    page.keyboard.press("Backspace")
    expect(page.locator("#change-banner")).to_contain_text("Changing an earlier grade (now Bad")
    page.goto(f"{live_server.url}/judge/{campaign.slug}/")
    expect(page.get_by_role("heading", name="Your work is paused")).to_be_visible()
    expect(page.get_by_test_id("rater-paused")).to_contain_text("a manager reviews the quality")
    page.screenshot(path=str(artifacts / "rater-paused-gold.png"), full_page=True)
    assert errors == []

    # The manager sees the gold reason and resumes them.
    manager_resumes(
        page,
        live_server.url,
        campaign,
        standing=f"Graded gold within one grade: 0 of {n} right (0%), below 70%.",
        cells={"gold-within": f"0/{n}", "gold-exact": f"0/{n}"},
    )

    membership.refresh_from_db()
    assert membership.paused_at is None and membership.pause_reason == {}
    events = list(
        QualityEvent.objects.order_by("pk").values_list("action", "by__username", "reason")
    )
    # Quick presses may also raise a fast-answer flag (by the rules, never a pause).
    pause, resume = (e for e in events if e[0] != "flag")
    assert pause == ("pause", None, {"rule": "gold_within", "k": 0, "n": n, "threshold": 0.7})
    # The resume records the answers the gold rule had judged: it acts again only on new ones.
    assert resume[:2] == ("resume", "manager") and resume[2]["seen"]["gold_within"] == n
    assert all(by is None for action, by, _ in events if action == "flag")

    # Work again: the judging page serves gold not yet met.
    page.goto(f"{live_server.url}/judge/{campaign.slug}/")
    keys_ready(page)
    expect(page.locator("#doc-title")).to_be_visible()
    page.goto("about:blank")
