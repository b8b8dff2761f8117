"""Only the answers a rater means, in real Chromium: two devices of one rater never overwrite
each other silently (the conflict is shown, and the database holds what the rater chose), a
second tab of the same browser waits instead of judging the same work, a skip can be undone
and graded, and side-by-side has skip (N) and can't-judge (X) on the keyboard."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from annotate.models import Grade, GradeChange, Skip, TaskSkip, Verdict
from tests.browser.session import log_in
from tests.browser.test_judging import build_campaign, page_errors, shown_title
from tests.browser.test_sxs import build

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def second_device(page: Page, live_server, username: str = "rater") -> Page:
    """The same rater on another device: its own browser context (cookies, storage)."""
    other = page.context.browser.new_context(viewport={"width": 1280, "height": 900})
    device = other.new_page()
    device.set_default_timeout(15_000)
    log_in(device, live_server.url, username, home=False)
    return device


def saved(page: Page, noun: str) -> None:
    expect(page.locator("#save-status")).to_have_text(f"All {noun}s saved")


def test_two_devices_show_the_conflict_and_the_rater_keeps_their_choice(
    personas, live_server, page, artifacts
):
    build_campaign(personas.campaign)
    errors = page_errors(page)
    log_in(page, live_server.url, "rater", home=False)
    url = f"{live_server.url}/judge/campaign-a/"
    page.goto(url)
    laptop_doc = shown_title(page)
    phone = second_device(page, live_server)
    phone.goto(url)
    assert shown_title(phone) == laptop_doc  # one rater, one lease: both show it

    page.keyboard.press("g")  # Good on the laptop
    saved(page, "grade")
    phone.keyboard.press("b")  # Bad on the phone, which had not seen the laptop's grade
    conflict = phone.locator("#conflict")
    expect(conflict).to_be_visible()
    expect(conflict).to_contain_text("Good")
    expect(conflict).to_contain_text("This tab sent: Bad")
    phone.screenshot(path=str(artifacts / "conflict-two-devices.png"))
    grade = Grade.objects.get()
    assert grade.label.name == "Good"  # nothing replaced silently
    phone.locator("#conflict-mine").click()  # the rater means Bad
    expect(conflict).to_be_hidden()
    saved(phone, "grade")
    grade.refresh_from_db()
    assert grade.label.name == "Bad"
    assert GradeChange.objects.get().label.name == "Good"  # the earlier one is kept

    # Once more, keeping the stored one this time: nothing changes.
    page.reload()
    second = shown_title(page)
    phone.reload()
    assert shown_title(phone) == second
    page.keyboard.press("f")
    saved(page, "grade")
    phone.keyboard.press("g")
    expect(conflict).to_be_visible()
    phone.locator("#conflict-keep").click()
    saved(phone, "grade")
    kept = Grade.objects.get(pool_item__document__title=second)
    assert kept.label.name == "Fair" and not kept.history.exists()
    phone.context.close()
    assert errors == []


def test_a_second_tab_waits_until_the_rater_takes_the_queue_over(personas, live_server, page):
    build_campaign(personas.campaign)
    log_in(page, live_server.url, "rater", home=False)
    url = f"{live_server.url}/judge/campaign-a/"
    page.goto(url)
    first = shown_title(page)
    tab = page.context.new_page()
    tab.goto(url)
    expect(tab.locator("#elsewhere")).to_be_visible()
    tab.keyboard.press("g")  # ignored: this tab does not judge
    tab.wait_for_timeout(300)
    assert not Grade.objects.exists()
    with tab.expect_navigation():  # taking over reloads the queue from the server
        tab.locator("#elsewhere-take").click()
    expect(tab.locator("#judge[data-ready]")).to_have_count(1)
    expect(tab.locator("#elsewhere")).to_be_hidden()
    expect(page.locator("#elsewhere")).to_be_visible()  # the first tab is told at once
    page.keyboard.press("g")
    tab.keyboard.press("f")
    saved(tab, "grade")
    assert list(Grade.objects.values_list("pool_item__document__title", "label__name")) == [
        (first, "Fair")
    ]


def test_a_skip_is_undone_from_the_history_and_graded(personas, live_server, page):
    build_campaign(personas.campaign)
    errors = page_errors(page)
    log_in(page, live_server.url, "rater", home=False)
    page.goto(f"{live_server.url}/judge/campaign-a/")
    skipped = shown_title(page)
    page.keyboard.press("s")
    expect(page.locator("#doc-title")).not_to_have_text(skipped)
    saved(page, "grade")
    assert Skip.objects.count() == 1
    page.keyboard.press("Backspace")
    expect(page.locator("#doc-title")).to_have_text(skipped)
    banner = page.locator("#change-banner")
    expect(banner).to_contain_text("You skipped this document")
    page.keyboard.press("u")  # undo the skip: the document comes back into the queue
    saved(page, "grade")
    assert not Skip.objects.exists()
    # It is the rater's again: grade it when it comes round (walk the queue with Fair).
    for _ in range(10):
        if shown_title(page) == skipped:
            break
        title = shown_title(page)
        page.keyboard.press("f")
        expect(page.locator("#doc-title")).not_to_have_text(title)
    assert shown_title(page) == skipped
    page.keyboard.press("g")
    saved(page, "grade")
    assert Grade.objects.get(pool_item__document__title=skipped).label.name == "Good"
    assert not Skip.objects.exists()
    assert errors == []


def test_a_skipped_document_is_graded_from_its_review(personas, live_server, page):
    build_campaign(personas.campaign)
    log_in(page, live_server.url, "rater", home=False)
    page.goto(f"{live_server.url}/judge/campaign-a/")
    skipped = shown_title(page)
    page.keyboard.press("s")
    expect(page.locator("#doc-title")).not_to_have_text(skipped)
    page.keyboard.press("Backspace")
    expect(page.locator("#change-banner")).to_contain_text("You skipped this document")
    page.keyboard.press("b")  # grading it replaces the skip the page showed
    saved(page, "grade")
    assert Grade.objects.get(pool_item__document__title=skipped).label.name == "Bad"
    assert not Skip.objects.exists()


def test_side_by_side_skip_and_cant_judge_by_keyboard(personas, live_server, page):
    comparison = build(personas.campaign)
    errors = page_errors(page)
    log_in(page, live_server.url, "rater", home=False)
    page.goto(f"{live_server.url}/sxs/campaign-a/{comparison.pk}/")
    query = page.locator("#query-text")
    first = query.inner_text()
    page.keyboard.press("n")  # skip
    expect(query).not_to_have_text(first)
    second = query.inner_text()
    page.keyboard.press("r")
    page.keyboard.type("both lists are empty pages")
    page.keyboard.press("Escape")
    page.keyboard.press("x")  # can't judge, with the reason typed
    expect(query).not_to_have_text(second)
    saved(page, "answer")
    expect(page.locator("#rater-count")).to_have_text("2 of 4 done · 2 left")
    expect(page.locator("#campaign-count")).to_have_text("0 of 4 answers")  # neither counts
    assert TaskSkip.objects.get().task.query.text == first
    cant = Verdict.objects.get()
    assert (cant.task.query.text, cant.cant_judge, cant.value) == (second, True, "")
    assert cant.reason == "both lists are empty pages"
    # Back to the skipped task, undo the skip with U.
    page.keyboard.press("Backspace")
    page.keyboard.press("Backspace")
    expect(query).to_have_text(first)
    expect(page.locator("#change-banner")).to_contain_text("You skipped this task")
    page.keyboard.press("u")
    saved(page, "answer")
    assert not TaskSkip.objects.exists()
    assert errors == []
