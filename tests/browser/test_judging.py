"""A rater judges in a real Chromium, with the keyboard only (issue 4's browser tests).

The order of documents is the rater's own shuffle, so the test reads which document is shown
and remembers what it gave to each; the database must then hold exactly that.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from playwright.sync_api import Page, expect

from annotate.judging.graded import grade_submit, queue_items
from annotate.models import (
    Document,
    Grade,
    GradeChange,
    Lease,
    PoolItem,
    Query,
    Role,
    Run,
    RunEntry,
    Skip,
    System,
)
from annotate.services.campaigns import membership_set
from tests.browser.session import log_in
from tests.conftest import PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SECRETS = ["SYSTEM-SECRET-NAME", "RUN-SECRET-TAG", "0.987654", "31337"]
GUIDELINES = """Judge how well the **document answers the query**, as a searcher would.

- **Good**: answers it fully; you would stop searching.
- **Fair**: partly answers it, or answers a close variant.
- **Bad**: off topic, spam, or a page that does not load.

When the query is ambiguous, use the *intent* shown under it.
"""
QUERIES = [
    (
        "how to descale a kettle",
        "The searcher wants a home method, not a product to buy.",
        [
            ("Descaling a kettle with vinegar: a step-by-step guide", "home.example/descale"),
            ("Citric acid vs vinegar for limescale", "cleaning.example/citric"),
            ("Buy the KettleMax 3000 descaler (pack of 12)", "shop.example/kettlemax"),
            ("Why does limescale form in hard water areas?", "science.example/limescale"),
        ],
    ),
    (
        "ndcg formula",
        "",
        [
            ("Discounted cumulative gain - definition and worked example", "wiki.example/dcg"),
            ("NDCG@k explained with Python code", "blog.example/ndcg-python"),
            ("Learning to rank: a survey (PDF)", "papers.example/ltr-survey.pdf"),
        ],
    ),
]


def build_campaign(campaign) -> list[PoolItem]:
    campaign.guidelines = GUIDELINES
    campaign.save()
    system = System.objects.create(campaign=campaign, name="SYSTEM-SECRET-NAME")
    run = Run.objects.create(campaign=campaign, system=system, name="RUN-SECRET-TAG")
    items = []
    for q, (text, description, docs) in enumerate(QUERIES):
        query = Query.objects.create(
            campaign=campaign, external_id=f"q{q}", text=text, description=description
        )
        for d, (title, url) in enumerate(docs):
            doc = Document.objects.create(
                campaign=campaign,
                external_id=f"q{q}-d{d}",
                title=title,
                url=f"https://{url}",
                snippet=f"{title}. A short extract of the page as the search engine shows it, "
                "two or three lines long, so the rater can judge without opening the page.",
            )
            RunEntry.objects.create(run=run, query=query, document=doc, rank=31337, score=0.987654)
            items.append(PoolItem.objects.create(campaign=campaign, query=query, document=doc))
    return items


def page_errors(page: Page) -> list[str]:
    """Collects the page's uncaught JavaScript errors (a test ends by asserting none)."""
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    return errors


def settle(page: Page) -> None:
    """Wait until every grade is saved, then leave the page: no request of this test may still
    reach the live server while the database is flushed for the next one."""
    expect(page.locator("#save-status")).to_have_text("All grades saved")
    page.goto("about:blank")


def keys_ready(page: Page) -> None:
    """Wait until the judging page's keys work: a key pressed before its script ran is lost."""
    expect(page.locator(".judge[data-ready]")).to_have_count(1)


def shown_title(page: Page, *, script: bool = True) -> str:
    """The shown document's title, once the page's keys work (script=False: a page without
    JavaScript, whose keys never do)."""
    if script:
        keys_ready(page)
    return page.locator("#doc-title").inner_text()


def press_and_wait(page: Page, key: str) -> str:
    """Press a key on the current document; return the title of the one that was graded."""
    title = shown_title(page)
    page.keyboard.press(key)
    expect(page.locator("#doc-title")).not_to_have_text(title)
    return title


def test_a_rater_judges_a_campaign_with_the_keyboard(personas, live_server, page, artifacts):
    campaign = personas.campaign
    build_campaign(campaign)
    good, fair, bad = (campaign.labels.get(name=n) for n in ("Good", "Fair", "Bad"))
    errors = page_errors(page)
    log_in(page, live_server.url, "rater")
    queues = page.locator("#queues")
    expect(queues).to_contain_text("0 of 7 done")
    page.screenshot(path=str(artifacts / "home-queues.png"))
    queues.get_by_role("link", name="Start judging").click()

    expect(page.locator("#query-text")).to_have_text("how to descale a kettle")
    expect(page.locator("#rater-count")).to_have_text("0 of 7 done · 7 left")
    html = page.content()
    for secret in SECRETS:
        assert secret not in html
    expect(page.get_by_role("button", name="Good")).to_have_attribute("aria-keyshortcuts", "G 1")
    expect(page.locator("#doc-title")).to_have_attribute("target", "_blank")
    expect(page.locator("#doc-title")).to_have_attribute("rel", "noopener noreferrer")
    expect(page.locator("#guidelines")).to_have_attribute("open", "")
    page.screenshot(path=str(artifacts / "judging-screen.png"), full_page=True)

    page.keyboard.press("?")
    expect(page.locator("#help-dialog")).to_be_visible()
    page.screenshot(path=str(artifacts / "judging-keys-help.png"))
    page.keyboard.press("Escape")
    expect(page.locator("#help-dialog")).to_be_hidden()

    given: dict[str, tuple] = {}
    given[press_and_wait(page, "g")] = ("label", good)
    expect(page.locator("#rater-count")).to_have_text("1 of 7 done · 6 left")
    expect(page.locator("#campaign-count")).to_have_text("1 of 7 grades")
    expect(page.locator("#rater-progress")).to_have_attribute("value", "1")
    given[press_and_wait(page, "2")] = ("label", fair)
    third = press_and_wait(page, "b")
    fourth = shown_title(page)

    # Back to the third document, change Bad into Good, and return to the fourth.
    page.keyboard.press("Backspace")
    expect(page.locator("#doc-title")).to_have_text(third)
    expect(page.locator("#change-banner")).to_contain_text("now Bad")
    expect(page.get_by_role("button", name="Bad")).to_have_attribute("aria-pressed", "true")
    page.screenshot(path=str(artifacts / "judging-change-earlier.png"))
    page.keyboard.press("1")
    expect(page.locator("#doc-title")).to_have_text(fourth)
    expect(page.locator("#change-banner")).to_be_hidden()
    given[third] = ("label", good)
    given[press_and_wait(page, "3")] = ("label", bad)

    # The second query: skip one, can't judge one (with a reason), grade the last.
    expect(page.locator("#query-text")).to_have_text("ndcg formula")
    expect(page.locator("#query-desc")).to_be_hidden()
    skipped = press_and_wait(page, "s")
    cant = shown_title(page)
    page.keyboard.press("x")
    expect(page.locator("#cant-reason")).to_be_focused()
    page.keyboard.type("The page is in a language I cannot read")
    page.screenshot(path=str(artifacts / "judging-cant-judge.png"))
    page.keyboard.press("Enter")
    expect(page.locator("#doc-title")).not_to_have_text(cant)
    expect(page.locator("#rater-count")).to_contain_text("6 of 7 done")
    last = shown_title(page)
    page.keyboard.press("f")
    given[last] = ("label", fair)

    expect(page.get_by_role("heading", name="All done")).to_be_visible()
    expect(page.locator(".stats")).to_contain_text("Graded")
    assert errors == []
    page.screenshot(path=str(artifacts / "judging-all-done.png"))

    grades = {g.pool_item.document.title: g for g in Grade.objects.select_related("label")}
    assert set(grades) == {*given, cant}
    for title, (_, label) in given.items():
        assert grades[title].label == label and not grades[title].cant_judge, title
        assert grades[title].seconds is not None and grades[title].seconds >= 0
    assert grades[cant].cant_judge and grades[cant].label is None
    assert grades[cant].comment == "The page is in a language I cannot read"
    (skip,) = Skip.objects.all()
    assert skip.pool_item.document.title == skipped and skip.rater == personas.rater
    (change,) = GradeChange.objects.all()
    assert change.grade == grades[third] and change.label == bad

    page.goto(f"{live_server.url}/judge/campaign-a/history/")
    expect(page.locator("tr", has_text=third).locator(".earlier")).to_contain_text("Bad")
    page.screenshot(path=str(artifacts / "judging-history.png"), full_page=True)

    # A second rater (overlap 1) is offered only what still needs a grade: the skipped item
    # and the can't-judge one, never the five already graded.
    second = get_user_model().objects.create_user(username="second", password=PASSWORD)
    membership_set(campaign=campaign, user=second, role=Role.RATER)
    other = page.context.browser.new_context(viewport={"width": 375, "height": 812})
    phone = other.new_page()
    phone.set_default_timeout(15_000)
    phone_errors = page_errors(phone)
    log_in(phone, live_server.url, "second")
    phone.locator("#queues").get_by_role("link", name="Start judging").click()
    expect(phone.locator("#rater-count")).to_have_text("0 of 2 done · 2 left")
    phone.screenshot(path=str(artifacts / "judging-screen-phone.png"), full_page=True)
    assert phone.evaluate("document.documentElement.scrollWidth") <= 375
    offered = {press_and_wait(phone, "g")}
    offered.add(shown_title(phone))
    phone.keyboard.press("1")  # not g again at once: a double tap is ignored on purpose
    expect(phone.get_by_role("heading", name="All done")).to_be_visible()
    other.close()
    assert phone_errors == []
    assert offered == {skipped, cant}
    assert Grade.objects.filter(cant_judge=False).count() == 7


def test_the_screen_works_as_plain_forms_without_javascript(personas, live_server, browser):
    campaign = personas.campaign
    build_campaign(campaign)
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.set_default_timeout(15_000)
    log_in(page, live_server.url, "rater", home=False)
    page.goto(f"{live_server.url}/judge/campaign-a/")
    first = shown_title(page, script=False)
    page.get_by_role("button", name="Fair").click()
    expect(page.locator("#doc-title")).not_to_have_text(first)
    second = shown_title(page, script=False)
    page.get_by_label("Can't judge this document? Reason (optional)").fill("Broken link")
    page.get_by_role("button", name="Can't judge", exact=True).click()
    expect(page.locator("#doc-title")).not_to_have_text(second)
    context.close()
    grades = {g.pool_item.document.title: g for g in Grade.objects.select_related("label")}
    assert grades[first].label.name == "Fair"
    assert grades[second].cant_judge and grades[second].comment == "Broken link"


def test_a_grade_survives_a_network_error_and_a_refusal_is_shown(personas, live_server, page):
    campaign = personas.campaign
    build_campaign(campaign)
    failures = {"left": 1}

    def flaky(route):
        # The first grade is lost on the way: the client must send it again, unchanged.
        if route.request.method == "POST" and failures["left"]:
            failures["left"] -= 1
            route.abort("connectionreset")
        else:
            route.continue_()

    page.route("**/api/judgments/", flaky)
    errors = page_errors(page)
    log_in(page, live_server.url, "rater", home=False)
    page.goto(f"{live_server.url}/judge/campaign-a/")
    first = press_and_wait(page, "g")
    expect(page.locator("#save-status")).to_have_text("All grades saved")
    assert failures["left"] == 0
    (grade,) = Grade.objects.all()
    assert grade.pool_item.document.title == first and grade.label.name == "Good"

    # The rater's time runs out and another rater takes the document on screen.
    shown = shown_title(page)
    Lease.objects.filter(rater=personas.rater).update(expires_at=timezone.now() - timedelta(1))
    other = get_user_model().objects.create_user(username="other", password=PASSWORD)
    membership_set(campaign=campaign, user=other, role=Role.RATER)
    item = PoolItem.objects.get(document__title=shown)
    assert item in queue_items(rater=other, campaign=campaign)
    grade_submit(rater=other, campaign=campaign, item_id=item.pk, label_id=grade.label_id)

    page.keyboard.press("f")
    expect(page.locator("#notice")).to_contain_text("ran out")
    expect(page.locator("#doc-title")).not_to_have_text(shown)
    settle(page)
    assert not Grade.objects.filter(rater=personas.rater, pool_item=item).exists()
    assert errors == []


def test_buttons_are_named_and_focus_is_visible(personas, live_server, page, artifacts):
    build_campaign(personas.campaign)
    log_in(page, live_server.url, "rater", home=False)
    page.goto(f"{live_server.url}/judge/campaign-a/")
    for name in ("Good", "Fair", "Bad", "Skip", "Can't judge"):
        expect(page.get_by_role("button", name=name, exact=True)).to_be_visible()
    expect(page.get_by_role("button", name="Back")).to_be_disabled()  # nothing to go back to
    expect(page.get_by_role("button", name="Keys")).to_be_visible()
    # Focus starts on the document (and returns there after each grade): Tab reaches its
    # title link, then the first label.
    page.keyboard.press("Tab")
    expect(page.locator(":focus")).to_have_id("doc-title")
    page.keyboard.press("Tab")
    focused = page.locator(":focus")
    expect(focused).to_have_attribute("data-label-name", "Good")
    outline = focused.evaluate("el => getComputedStyle(el).outlineStyle")
    assert outline != "none"
    page.screenshot(path=str(artifacts / "judging-focus.png"))
    page.keyboard.press("g")
    expect(page.get_by_role("button", name="Back")).to_be_enabled()
    settle(page)


def test_a_grade_sent_while_offline_is_kept_across_a_closed_tab(personas, live_server, page):
    build_campaign(personas.campaign)
    log_in(page, live_server.url, "rater", home=False)
    page.route("**/api/judgments/", lambda route: route.abort("internetdisconnected"))
    page.goto(f"{live_server.url}/judge/campaign-a/")
    graded = press_and_wait(page, "b")
    expect(page.locator("#save-status")).to_contain_text("Connection lost")
    page.close(run_before_unload=False)
    assert not Grade.objects.exists()

    # The same browser, a new tab, the network back: the kept grade is sent, and its
    # document is not shown again.
    tab = page.context.new_page()
    errors = page_errors(tab)
    tab.goto(f"{live_server.url}/judge/campaign-a/")
    expect(tab.locator("#save-status")).to_have_text("All grades saved")
    expect(tab.locator("#doc-title")).not_to_have_text(graded)
    settle(tab)
    (grade,) = Grade.objects.select_related("label", "pool_item__document")
    assert grade.pool_item.document.title == graded and grade.label.name == "Bad"
    assert errors == []
