"""Rater quality in a real Chromium (#18): a side-by-side rater meets mirrored duplicates (the
same tasks with the sides swapped), always presses the left arrow, and so answers every mirror
against their first answer; after the campaign's minimum of pairs the consistency rule pauses
them: the judging page and the home page say so. The manager sees why on the rater quality
page and resumes them; the database holds what happened."""

from __future__ import annotations

import pytest
from django.test import override_settings
from playwright.sync_api import expect

from annotate.models import Membership, QualityEvent, SxsTask, TaskLease, Verdict
from tests.annotate.sxs_helpers import distinct_lists, make_comparison
from tests.browser.quality_helpers import manager_resumes, press_until_paused
from tests.browser.session import log_in
from tests.browser.test_judging import keys_ready

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PAIRS = 3  # the campaign's minimum of mirrored pairs, low to keep the test short


@override_settings(SXS_MIRROR_DELAY_SECONDS=0)
def test_an_inconsistent_rater_is_paused_then_resumed(personas, live_server, page, artifacts):
    campaign = personas.campaign
    campaign.min_pairs = PAIRS
    campaign.save()
    comparison = make_comparison(campaign, distinct_lists(40), mirror_share=0.5)
    membership = Membership.objects.get(campaign=campaign, user=personas.rater)
    log_in(page, live_server.url, "rater", home=False)
    page.goto(f"{live_server.url}/sxs/{campaign.slug}/{comparison.pk}/")
    press_until_paused(page, membership, lambda _page: "ArrowLeft")

    # What reached the database: PAIRS mirrored pairs, every one answered the other way.
    mirrors = SxsTask.objects.filter(mirror_of__isnull=False, mirror_rater=personas.rater)
    answered = Verdict.objects.filter(task__in=mirrors, rater=personas.rater)
    assert answered.count() == PAIRS
    for second in answered.select_related("task"):
        first = Verdict.objects.get(task_id=second.task.mirror_of_id, rater=personas.rater)
        assert second.candidate_side != first.candidate_side
        assert {first.value, second.value} == {"G", "B"}
    assert membership.pause_reason == {"rule": "consistency", "k": 0, "n": PAIRS, "threshold": 0.6}
    assert not TaskLease.objects.filter(rater=personas.rater).exists()

    # The rater is told, on the judging page and at home.
    page.goto(f"{live_server.url}/sxs/{campaign.slug}/{comparison.pk}/")
    expect(page.get_by_role("heading", name="Your work is paused")).to_be_visible()
    expect(page.get_by_test_id("rater-paused")).to_contain_text("a manager reviews the quality")
    page.screenshot(path=str(artifacts / "rater-paused.png"), full_page=True)
    page.goto(f"{live_server.url}/")
    expect(page.get_by_test_id("paused-notice")).to_contain_text(campaign.name)

    # The manager sees why and resumes them.
    manager_resumes(
        page,
        live_server.url,
        campaign,
        standing=f"Mirrored consistency 0 of {PAIRS}",
        cells={"consistency": f"0/{PAIRS}"},
        screenshot=artifacts / "rater-quality.png",
    )

    membership.refresh_from_db()
    assert membership.paused_at is None and membership.pause_reason == {}
    events = list(QualityEvent.objects.order_by("pk").values_list("action", "by__username"))
    # A press every quarter second is fast too: a flag may come with the pause (by the rules).
    assert [e for e in events if e[0] != "flag"] == [("pause", None), ("resume", "manager")]
    assert all(by is None for action, by in events if action == "flag")

    # Work again.
    page.goto(f"{live_server.url}/sxs/{campaign.slug}/{comparison.pk}/")
    keys_ready(page)
    expect(page.locator("#query-text")).to_be_visible()
