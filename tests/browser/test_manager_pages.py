"""Manager pages a manager finds their way through (#21): the outcome of an import or pooling
shown where the eye is, one navigation for a campaign's reports, a dark theme that follows the
system setting."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.session import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def in_viewport(page: Page, selector: str) -> bool:
    box = page.locator(selector).first.bounding_box()
    height = page.viewport_size["height"]
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= height


def test_the_outcome_of_an_import_shows_where_the_page_jumps(personas, live_server, page, tmp_path):
    lines = "".join(f"q{i}\tquery number {i}\n" for i in range(1, 4))
    path = tmp_path / "queries.tsv"
    path.write_text(lines, encoding="utf-8")
    log_in(page, live_server.url, "manager", home=False)
    page.goto(f"{live_server.url}/campaigns/{personas.campaign.slug}/")
    page.locator("#imports").get_by_label("What the file holds").select_option("queries")
    page.locator("#imports").get_by_label("File (UTF-8)").set_input_files(str(path))
    page.locator("#imports").get_by_role("button", name="Import").click()
    message = page.locator("#imports [data-section-messages] .message").first
    expect(message).to_contain_text("3")
    page.wait_for_timeout(300)  # the jump to #imports
    assert in_viewport(page, "#imports [data-section-messages] .message")
    assert personas.campaign.queries.filter(external_id="q3").exists()


def test_the_outcome_of_pooling_shows_where_the_page_jumps(personas, live_server, page):
    from annotate.models import Document, Query, Run, RunEntry, System

    campaign = personas.campaign
    run = Run.objects.create(
        campaign=campaign, system=System.objects.create(campaign=campaign, name="prod"), name="prod"
    )
    for q in range(2):
        query = Query.objects.create(campaign=campaign, external_id=f"q{q}", text=f"query {q}")
        for d in range(3):
            doc = Document.objects.create(campaign=campaign, external_id=f"q{q}d{d}")
            RunEntry.objects.create(run=run, query=query, document=doc, rank=d + 1, score=3.0 - d)
    log_in(page, live_server.url, "manager", home=False)
    page.goto(f"{live_server.url}/campaigns/{campaign.slug}/")
    section = page.locator("#pooling")
    # Nothing chosen: the refusal is said in the pooling section too, not at the page's top.
    section.get_by_role("button", name="Pool", exact=True).click()
    message = page.locator("#pooling [data-section-messages] .message").first
    expect(message).to_contain_text("Runs")
    expect(page.locator("main > .messages .message")).to_have_count(0)
    section.get_by_label("prod").check()
    section.get_by_label("Depth (top k of each run, per query)").fill("2")
    section.get_by_role("button", name="Pool", exact=True).click()
    expect(message).to_contain_text("Pooled 4 query-document pairs at depth 2")
    page.wait_for_timeout(300)  # the jump to #pooling
    assert in_viewport(page, "#pooling [data-section-messages] .message")
    assert campaign.pool_items.count() == 4  # two queries, their top two each


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_theme_follows_the_systems_setting(personas, live_server, page, scheme):
    page.emulate_media(color_scheme=scheme)
    log_in(page, live_server.url, "manager")
    colour = page.evaluate("getComputedStyle(document.documentElement).backgroundColor")
    r, g, b = (int(x) for x in colour[colour.index("(") + 1 : colour.index(")")].split(",")[:3])
    luminance = (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255
    assert (luminance < 0.25) if scheme == "dark" else (luminance > 0.8), colour


def test_a_manager_previews_the_judging_screen_from_the_reports_menu(personas, live_server, page):
    from annotate.models import Document, Grade, Lease, PoolItem, Query
    from tests.browser.test_screens import LONG_SNIPPET

    campaign = personas.campaign
    query = Query.objects.create(campaign=campaign, external_id="q1", text="running shoes")
    for i in range(2):
        doc = Document.objects.create(
            campaign=campaign, external_id=f"d{i}", title=f"Running shoes {i}: shoe care",
            snippet=LONG_SNIPPET,
        )  # fmt: skip
        PoolItem.objects.create(campaign=campaign, query=query, document=doc)
    log_in(page, live_server.url, "manager", home=False)
    page.goto(f"{live_server.url}/reports/{campaign.slug}/")
    page.locator('[data-nav="preview"]').click()
    expect(page.get_by_test_id("preview-banner")).to_contain_text("item 1 of 2")
    page.wait_for_selector(".judge[data-ready]")
    # As raters see it: the query's whole words marked (not "shoe"), long text shortened, and
    # "Show all" and the . key open it.
    marked = page.eval_on_selector_all("#doc-title mark.term", "ms => ms.map(m => m.textContent)")
    assert marked == ["Running", "shoes"]
    more = page.locator("#doc .card-more")
    expect(more).to_be_visible()
    short = page.locator("#doc-snippet").bounding_box()["height"]
    page.keyboard.press(".")
    expect(more).to_have_attribute("aria-expanded", "true")
    assert page.locator("#doc-snippet").bounding_box()["height"] > 3 * short
    more.click()
    expect(more).to_have_attribute("aria-expanded", "false")
    buttons = page.locator("#grade-form button")
    assert buttons.count() > 0
    assert all(buttons.nth(i).is_disabled() for i in range(buttons.count()))
    page.keyboard.press("1")
    page.get_by_test_id("preview-next").click()
    expect(page.get_by_test_id("preview-banner")).to_contain_text("item 2 of 2")
    assert not Grade.objects.exists() and not Lease.objects.exists()


def test_no_manager_page_scrolls_sideways_on_a_phone(personas, live_server, page):
    from tests.annotate.sxs_helpers import distinct_lists, make_comparison, report_url

    comparison = make_comparison(personas.campaign, distinct_lists(4), min_queries=1)
    page.set_viewport_size({"width": 390, "height": 844})
    log_in(page, live_server.url, "manager", home=False)
    slug = personas.campaign.slug
    wide = []
    for path in ("/", f"/campaigns/{slug}/", f"/campaigns/{slug}/comparisons/",
                 report_url(comparison), "/help/", f"/reports/{slug}/"):  # fmt: skip
        page.goto(live_server.url + path)
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        if overflow > 1:
            wide.append((path, overflow))
    assert not wide, wide


def test_adjudication_shows_the_document_as_raters_saw_it_and_opens_long_text(
    personas, live_server, page, artifacts
):
    from annotate.models import Campaign, Document, Grade, Label, PoolItem, Query
    from tests.browser.test_screens import LONG_SNIPPET, PNG
    from tests.metrics.report_helpers import make_raters

    campaign = personas.campaign
    Campaign.objects.filter(pk=campaign.pk).update(
        card="image: picture\ntitle\nfields: price, brand\nsnippet"
    )
    query = Query.objects.create(campaign=campaign, external_id="q1", text="descale kettle")
    doc = Document.objects.create(
        campaign=campaign, external_id="d1", title="Kettle descaler", snippet=LONG_SNIPPET,
        extra={"picture": "/static/card-test.png", "price": "€ 9", "brand": "Acme"},
    )  # fmt: skip
    item = PoolItem.objects.create(campaign=campaign, query=query, document=doc)
    labels = {label.name: label for label in Label.objects.filter(campaign=campaign)}
    for rater, label in zip(make_raters(campaign, 2, prefix="adj"), ("Good", "Bad"), strict=True):
        Grade.objects.create(pool_item=item, rater=rater, label=labels[label])
    page.route(
        "**/static/card-test.png",
        lambda route: route.fulfill(status=200, content_type="image/png", body=PNG),
    )
    log_in(page, live_server.url, "manager", home=False)
    page.goto(f"{live_server.url}/reports/{campaign.slug}/disagreements/")
    card = page.get_by_test_id("doc-card").first
    parts = card.evaluate("td => [...td.querySelectorAll('[data-part]')].map(e => e.dataset.part)")
    assert parts == ["image", "title", "fields", "snippet"]  # the campaign's card, in its order
    expect(card.locator(".card-image")).to_have_attribute("src", "/static/card-test.png")
    page.wait_for_function("document.querySelector('td .card-image').naturalWidth > 0")
    rows = card.locator(".card-fields tr")
    expect(rows).to_have_count(2)
    expect(rows.first).to_contain_text("€ 9")
    snippet, more = card.locator(".doc-snippet"), card.locator(".card-more")
    expect(more).to_be_visible()
    short = snippet.bounding_box()["height"]
    assert short < 120, short  # a few lines of a forty-paragraph text
    page.screenshot(path=str(artifacts / "adjudication-card.png"))
    more.click()
    expect(more).to_have_attribute("aria-expanded", "true")
    assert snippet.bounding_box()["height"] > 3 * short
    expect(snippet).to_contain_text("Paragraph 39")


def test_the_side_by_side_preview_marks_and_shortens_as_raters_see_it(personas, live_server, page):
    from django.urls import reverse

    from tests.browser.test_screens import sxs_world

    comparison = sxs_world(personas.campaign, queries=1)
    log_in(page, live_server.url, "manager", home=False)
    url = reverse(
        "annotate:sxs_preview",
        kwargs={"slug": personas.campaign.slug, "comparison_id": comparison.pk},
    )
    page.goto(live_server.url + url)
    page.wait_for_selector(".judge[data-ready]")
    first = page.locator("#results-left > li").first
    expect(first.locator(".sxs-title mark.term")).to_have_text("kettle")
    more = first.locator(".card-more")
    expect(more).to_be_enabled()  # the answers are disabled, opening text is not
    more.click()
    expect(more).to_have_attribute("aria-expanded", "true")
    assert page.locator("#choose-left").is_disabled()
