"""The judging screens show documents as users see them (issue 21, items 1-5), in a real
Chromium at a desktop (1366×900) and a phone (390×844) size: a compact side-by-side, long text
shortened with a way to open it, the campaign's document card with pictures only from allowed
places, the query's words marked, and a visible change of query. Screenshots go to
test-artifacts/ (look at them after a change)."""

from __future__ import annotations

import base64

import pytest
from playwright.sync_api import Page, expect

from annotate.models import Campaign, Document, PoolItem, Query, Run, RunEntry, System
from annotate.services.sxs_setup import comparison_create
from tests.browser.session import log_in
from tests.browser.test_judging import page_errors

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DESKTOP = {"width": 1366, "height": 900}
PHONE = {"width": 390, "height": 844}
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="
)
SNIPPET = (
    "A short extract of the page as the search engine shows it, two lines long at most on a "
    "wide screen, so the rater can compare the lists without opening a single page of them."
)
LONG_SNIPPET = " ".join(
    f"Paragraph {i} of a very long document that goes on about kettles, limescale and the "
    "many ways of removing it, with far more words than any rater needs to judge it."
    for i in range(40)
)


def new_page(browser, viewport: dict) -> Page:
    page = browser.new_context(viewport=viewport, device_scale_factor=2).new_page()
    page.set_default_timeout(15_000)
    return page


def graded(campaign, queries, **settings) -> None:
    """A pool of (query text, [(title, snippet, extra)]) for the campaign's rater."""
    Campaign.objects.filter(pk=campaign.pk).update(**settings)
    system = System.objects.create(campaign=campaign, name="SYSTEM-SECRET")
    run = Run.objects.create(campaign=campaign, system=system, name="RUN-SECRET")
    for q, (text, docs) in enumerate(queries):
        query = Query.objects.create(campaign=campaign, external_id=f"q{q}", text=text)
        for d, (title, snippet, extra) in enumerate(docs):
            doc = Document.objects.create(
                campaign=campaign,
                external_id=f"q{q}d{d}",
                title=title,
                url=f"https://example.org/q{q}/d{d}",
                snippet=snippet,
                extra=extra,
            )
            RunEntry.objects.create(run=run, query=query, document=doc, rank=d + 1, score=1.0)
            PoolItem.objects.create(campaign=campaign, query=query, document=doc)


def open_judging(page: Page, base_url: str) -> None:
    log_in(page, base_url, "rater", home=False)
    page.goto(f"{base_url}/judge/campaign-a/")
    page.wait_for_selector("#judge[data-ready]")


def grade(page: Page) -> None:
    """Give the shown document the first label, and wait for the next one."""
    title = page.locator("#doc-title").inner_text()
    page.wait_for_timeout(200)  # the screen ignores a double tap within 150 ms
    page.keyboard.press("1")
    expect(page.locator("#doc-title")).not_to_have_text(title)


def settle(page: Page) -> None:
    expect(page.locator("#save-status")).to_have_text("All grades saved")
    page.goto("about:blank")


# ---- 1. Side-by-side readable at a glance ------------------------------------------------------

BASELINE = [f"b{i}" for i in range(8)]
# Three results at the same place on both sides, two that moved, three of its own.
CANDIDATE = ["b0", "c1", "b2", "b5", "c4", "b3", "c6", "b7"]


def sxs_world(campaign, queries: int = 2):
    base_sys = System.objects.create(campaign=campaign, name="SYS-A")
    cand_sys = System.objects.create(campaign=campaign, name="SYS-B")
    baseline = Run.objects.create(campaign=campaign, system=base_sys, name="RUN-A")
    candidate = Run.objects.create(campaign=campaign, system=cand_sys, name="RUN-B")
    for q in range(queries):
        query = Query.objects.create(
            campaign=campaign, external_id=f"q{q}", text=f"kettle descaler {q}"
        )
        docs = {}
        for name in dict.fromkeys(BASELINE + CANDIDATE):
            docs[name] = Document.objects.create(
                campaign=campaign,
                external_id=f"q{q}-{name}",
                title=f"Result {name}: how to descale a kettle at home, step by step",
                url=f"https://{name}.example.org/kettle/descale",
                snippet=SNIPPET,
            )
        for run, names in ((baseline, BASELINE), (candidate, CANDIDATE)):
            for i, name in enumerate(names):
                RunEntry.objects.create(
                    run=run, query=query, document=docs[name], rank=i + 1, score=10.0 - i
                )
    return comparison_create(
        campaign=campaign, name="A vs B", baseline=baseline, candidate=candidate, depth=8
    )


def open_sxs(page: Page, base_url: str) -> None:
    log_in(page, base_url, "rater")
    page.locator("#sxs-queues").get_by_role("link", name="Start comparing").click()
    page.wait_for_selector("#sxs[data-ready]")


def above(page: Page, selector: str, line: float) -> int:
    tops = page.eval_on_selector_all(selector, "els => els.map(e => e.getBoundingClientRect().top)")
    return sum(1 for top in tops if top < line)


def test_sxs_shows_six_results_a_side_above_the_verdict_bar(
    personas, live_server, browser, artifacts
):
    sxs_world(personas.campaign)
    page = new_page(browser, DESKTOP)
    errors = page_errors(page)
    open_sxs(page, live_server.url)
    bar = page.locator(".sxs-actions").bounding_box()
    page.screenshot(path=str(artifacts / "screens-sxs-desktop.png"))
    assert bar["y"] + bar["height"] <= DESKTOP["height"] + 1  # the bar is in the window
    for side in ("left", "right"):
        assert above(page, f"#results-{side} > li", bar["y"]) >= 6, side
    # Marked in words only where it helps: the two moved results on each side, not the three
    # that sit at the same place (they light up with their twin when pointed at).
    expect(page.locator("#sides .badge")).to_have_count(0)
    expect(page.locator("#results-left .sxs-twin")).to_have_count(2)
    expect(page.locator("#results-right .sxs-twin")).to_have_count(2)
    shared = page.locator("#results-left > li.is-shared").first
    pair = shared.get_attribute("data-pair")
    shared.hover()
    expect(page.locator(f"#results-right > li[data-pair='{pair}']")).to_have_class(
        "sxs-result is-shared is-paired"
    )
    page.screenshot(path=str(artifacts / "screens-sxs-desktop.png"))
    assert errors == []
    page.context.close()


def test_sxs_on_a_phone_compares_row_by_row_with_the_answers_in_reach(
    personas, live_server, browser, artifacts
):
    sxs_world(personas.campaign)
    page = new_page(browser, PHONE)
    open_sxs(page, live_server.url)
    left = page.locator("#results-left > li")
    right = page.locator("#results-right > li")
    for i in range(3):
        a, b = left.nth(i).bounding_box(), right.nth(i).bounding_box()
        assert abs(a["y"] - b["y"]) < 2, (i, a, b)  # the same row
        assert a["x"] < b["x"]
    # The three answers stay at the bottom of the screen while the lists scroll.
    for y in (0, 600):
        page.mouse.wheel(0, y)
        box = page.locator("#choose-right").bounding_box()
        assert box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"] + 1, (y, box)
    page.evaluate("window.scrollTo(0, 0)")
    left.first.screenshot(path=str(artifacts / "screens-sxs-phone-result.png"))
    page.screenshot(path=str(artifacts / "screens-sxs-phone.png"))
    page.screenshot(path=str(artifacts / "screens-sxs-phone-full.png"), full_page=True)
    page.context.close()


# ---- 2. Long text shortened, answers in reach ------------------------------------------------


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_long_snippet_is_shortened_and_opens_with_a_key_and_a_click(
    personas, live_server, browser, artifacts, viewport
):
    graded(personas.campaign, [("descale kettle", [("A long page", LONG_SNIPPET, {})])])
    page = new_page(browser, viewport)
    errors = page_errors(page)
    open_judging(page, live_server.url)
    snippet = page.locator("#doc-snippet")
    more = page.locator("#doc .card-more")
    short = snippet.bounding_box()["height"]
    assert short < 220, short
    expect(more).to_be_visible()
    expect(more).to_have_attribute("aria-expanded", "false")
    # The labels are on the screen, not below a long document.
    box = page.locator(".label-button").first.bounding_box()
    assert box["y"] + box["height"] <= viewport["height"], box
    name = "desktop" if viewport is DESKTOP else "phone"
    page.screenshot(path=str(artifacts / f"screens-judge-long-{name}.png"))

    page.keyboard.press(".")
    expect(more).to_have_attribute("aria-expanded", "true")
    assert snippet.bounding_box()["height"] > 3 * short
    box = page.locator(".label-button").first.bounding_box()
    assert box["y"] + box["height"] <= viewport["height"], box  # still in reach: sticky
    page.keyboard.press(".")
    expect(more).to_have_attribute("aria-expanded", "false")
    assert snippet.bounding_box()["height"] == pytest.approx(short, abs=1)
    more.click()
    expect(more).to_have_attribute("aria-expanded", "true")
    expect(more).to_have_text("Show less")
    assert errors == []
    page.goto("about:blank")
    page.context.close()


# ---- 3. The campaign's document card -----------------------------------------------------------


def test_the_card_shows_the_configured_parts_and_only_allowed_pictures(
    personas, live_server, browser, artifacts
):
    card = "image: picture\ntitle\nfields: price, brand\nsnippet"
    products = [
        ("Kettle from this site", SNIPPET, {"picture": "/static/card-test.png", "price": "€ 39"}),
        (
            "Kettle from an allowed host",
            SNIPPET,
            {"picture": "https://img.example.com/k.png", "price": "€ 45", "brand": "Acme"},
        ),
        (
            "Kettle from a tracker",
            SNIPPET,
            {"picture": "https://tracker.example.net/p.png", "brand": "Evil"},
        ),
    ]
    graded(
        personas.campaign, [("electric kettle", products)], card=card, image_hosts="img.example.com"
    )
    page = new_page(browser, DESKTOP)
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url))
    serve = lambda route: route.fulfill(status=200, content_type="image/png", body=PNG)  # noqa: E731
    page.route("**/static/card-test.png", serve)
    page.route("https://img.example.com/**", serve)
    page.route("https://tracker.example.net/**", serve)
    open_judging(page, live_server.url)
    seen = {}
    for i in range(3):
        title = page.locator("#doc-title").inner_text()
        image = page.locator("#doc .card-image")
        seen[title] = {
            "order": page.eval_on_selector_all(
                "#doc [data-part]", "els => els.map(e => e.dataset.part)"
            ),
            "shown": image.is_visible(),
            "src": image.get_attribute("src"),
            "lazy": image.get_attribute("loading"),
            "rows": page.eval_on_selector_all(
                "#doc .card-fields tr", "rows => rows.map(r => r.innerText.split('\\t'))"
            ),
        }
        if seen[title]["shown"]:
            page.wait_for_function(
                "document.querySelector('#doc .card-image').naturalWidth > 0"
            )  # loaded: the CSP lets it in
        if title == "Kettle from an allowed host":
            page.screenshot(path=str(artifacts / "screens-judge-card.png"))
        if i < 2:
            grade(page)
    assert all(s["order"] == ["image", "title", "fields", "snippet"] for s in seen.values())
    assert seen["Kettle from this site"]["src"] == "/static/card-test.png"
    assert seen["Kettle from this site"]["rows"] == [["price", "€ 39"]]
    assert seen["Kettle from an allowed host"]["src"] == "https://img.example.com/k.png"
    assert seen["Kettle from an allowed host"]["rows"] == [["price", "€ 45"], ["brand", "Acme"]]
    assert seen["Kettle from an allowed host"]["lazy"] == "lazy"
    tracker = seen["Kettle from a tracker"]
    assert not tracker["shown"] and tracker["src"] is None
    assert tracker["rows"] == [["brand", "Evil"]]
    assert not [url for url in asked if "tracker.example.net" in url]
    settle(page)
    page.context.close()


def test_the_sxs_results_use_the_same_card(personas, live_server, browser, artifacts):
    comparison = sxs_world(personas.campaign, queries=1)
    Document.objects.filter(campaign=personas.campaign).update(
        extra={"picture": "/static/card-test.png", "price": "€ 12"}
    )
    Campaign.objects.filter(pk=personas.campaign.pk).update(
        card="image: picture\ntitle\nfields: price"
    )
    page = new_page(browser, DESKTOP)
    page.route(
        "**/static/card-test.png",
        lambda route: route.fulfill(status=200, content_type="image/png", body=PNG),
    )
    open_sxs(page, live_server.url)
    first = page.locator("#results-left > li").first
    parts = first.evaluate("li => [...li.querySelectorAll('[data-part]')].map(e => e.dataset.part)")
    assert parts == ["image", "title", "fields"]
    expect(first.locator(".card-image")).to_have_attribute("src", "/static/card-test.png")
    expect(first.locator(".card-fields")).to_contain_text("€ 12")
    expect(page.locator("#results-right .card-image")).to_have_count(8)
    # The query's words are marked in the copies of the card too.
    expect(first.locator(".sxs-title mark")).to_have_text("kettle")
    page.screenshot(path=str(artifacts / "screens-sxs-card.png"))
    page.context.close()
    assert comparison.tasks.filter(mirror_of__isnull=True).count() == 1  # mirrors aside (#18)


# ---- 4. The query's words marked -------------------------------------------------------------

HIGHLIGHT_QUERIES = [
    (
        "kettle vinegar",
        [("Kettles and vinegar: kettle care", "Vinegar descales a KETTLE; vinegary kettles.", {})],
    ),
    ("北京天气", [("北京今天的天气预报", "今天北京的天气很好，北方天空晴朗。", {})]),
]


def marks(page: Page, selector: str) -> list[str]:
    return page.eval_on_selector_all(f"{selector} mark", "ms => ms.map(m => m.textContent)")


def test_the_querys_words_are_marked_whole_words_and_chinese_substrings(
    personas, live_server, browser, artifacts
):
    graded(personas.campaign, HIGHLIGHT_QUERIES)
    page = new_page(browser, DESKTOP)
    open_judging(page, live_server.url)
    found = {}
    for i in range(2):
        query = page.locator("#query-text").inner_text()
        found[query] = (marks(page, "#doc-title"), marks(page, "#doc-snippet"))
        if query == "北京天气":
            page.screenshot(path=str(artifacts / "screens-judge-highlight-zh.png"))
        if i == 0:
            grade(page)
    # Whole words only: not "Kettles", not "vinegary"; any case.
    assert found["kettle vinegar"] == (["vinegar", "kettle"], ["Vinegar", "KETTLE"])
    # No spaces between Chinese words: the query's pairs of characters anywhere.
    assert found["北京天气"] == (["北京", "天气"], ["北京", "天气"])
    settle(page)
    page.context.close()


def test_marking_is_off_when_the_campaign_switches_it_off(personas, live_server, browser):
    graded(personas.campaign, HIGHLIGHT_QUERIES[:1], highlight_terms=False)
    page = new_page(browser, DESKTOP)
    open_judging(page, live_server.url)
    expect(page.locator("#doc-title")).to_have_text("Kettles and vinegar: kettle care")
    assert marks(page, "#doc") == []
    page.context.close()


# ---- 5. A new query is seen ------------------------------------------------------------------


def test_the_first_document_of_a_new_query_says_so(personas, live_server, browser, artifacts):
    docs = [[(f"Document {q}.{d}", SNIPPET, {}) for d in range(2)] for q in range(2)]
    graded(personas.campaign, [("first query", docs[0]), ("second query", docs[1])])
    page = new_page(browser, PHONE)
    open_judging(page, live_server.url)
    banner = page.locator("#query-new")
    first = page.locator("#query-text").inner_text()
    expect(banner).to_be_hidden()
    grade(page)
    expect(page.locator("#query-text")).to_have_text(first)
    expect(banner).to_be_hidden()  # the same query: nothing to say
    grade(page)
    expect(page.locator("#query-text")).not_to_have_text(first)
    expect(banner).to_be_visible()
    expect(banner).to_have_text("New query")
    page.screenshot(path=str(artifacts / "screens-judge-new-query-phone.png"))
    grade(page)
    expect(banner).to_be_hidden()
    settle(page)
    page.context.close()


def test_the_next_sxs_task_of_another_query_says_so(personas, live_server, browser):
    sxs_world(personas.campaign, queries=2)
    page = new_page(browser, DESKTOP)
    open_sxs(page, live_server.url)
    expect(page.locator("#query-new")).to_be_hidden()
    first = page.locator("#query-text").inner_text()
    page.keyboard.press("ArrowDown")
    expect(page.locator("#query-text")).not_to_have_text(first)
    expect(page.locator("#query-new")).to_be_visible()
    expect(page.locator("#save-status")).to_have_text("All answers saved")
    page.context.close()
