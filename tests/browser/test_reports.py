"""The report pages in a real Chromium: the charts are there and draw the right series (each
system, each rater, by the text in the SVG), a manager settles a disagreement through the form,
and screenshots are kept as test artifacts."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser import session
from tests.metrics.report_helpers import make_world

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SYSTEMS = ("alpha", "beta", "gamma")


def log_in(page, live_server, username: str = "manager", *, home: bool = True) -> None:
    session.log_in(page, live_server.url, username, home=home)


def chart_texts(page, testid: str) -> list[str]:
    # SVG elements have no innerText: read their text content.
    return [t.strip() for t in page.locator(f"[data-testid={testid}] svg text").all_text_contents()]


@pytest.fixture
def world(personas):
    return make_world(personas.campaign, run_names=SYSTEMS)


def test_the_systems_page_draws_every_system(world, live_server, page, artifacts):
    log_in(page, live_server)
    page.get_by_role("link", name="Reports", exact=True).click()
    page.get_by_role("row", name="Campaign A").get_by_role("link", name="System scores").click()
    expect(page.get_by_role("heading", name="Campaign A: system scores")).to_be_visible()
    assert "aggregated by mean" in page.get_by_test_id("basis").inner_text()

    # Paired differences against the baseline (the first system until one is marked as in
    # production), not unpaired per-system interval bars.
    assert page.get_by_test_id("bars-chart").count() == 0
    paired = page.get_by_test_id("paired-chart").locator("svg")
    title = f"Difference from the baseline {SYSTEMS[0]}, paired by query"
    assert paired.get_attribute("aria-label") == title
    texts = chart_texts(page, "paired-chart")
    for name in SYSTEMS[1:]:
        assert name in texts  # the legend names each other system
    for label in ("NDCG@10", "MAP", "P@10", "MRR", "judged@10"):
        assert label in texts
    curves = chart_texts(page, "curves-chart")
    assert "NDCG@1 … NDCG@10 per system" in curves
    assert all(name in curves for name in SYSTEMS)
    # The numbers are also a table: one row per system.
    rows = page.get_by_test_id("systems-table").locator("tbody tr")
    assert rows.count() == 3
    names = [rows.nth(i).locator("th").inner_text().strip() for i in range(3)]
    # The baseline's row comes first and says so (no system is marked as in production here).
    assert names == [f"{SYSTEMS[0]} (baseline)", *SYSTEMS[1:]]
    page.screenshot(path=str(artifacts / "reports-systems.png"), full_page=True)

    # Another k on the page: the curves follow.
    page.get_by_label("k", exact=True).fill("5")
    page.get_by_role("button", name="Show").click()
    # Waits for the new page: read at once, the texts came from the old one or from none.
    expect(page.get_by_test_id("curves-chart")).to_contain_text("NDCG@1 … NDCG@5 per system")

    page.get_by_role("button", name="Compare").click()
    expect(page.get_by_test_id("comparison")).to_be_visible()
    histogram = chart_texts(page, "histogram-chart")
    assert any(t.startswith("Per-query NDCG@5 differences, beta − alpha") for t in histogram)
    page.screenshot(path=str(artifacts / "reports-compare.png"), full_page=True)


def test_the_dashboard_draws_progress_and_agreement(world, live_server, page, artifacts):
    log_in(page, live_server, home=False)
    page.goto(f"{live_server.url}/reports/campaign-a/")
    timeline = chart_texts(page, "timeline-chart")
    assert "Grades per hour, by rater" in timeline
    assert all(f"judge{i}" in timeline for i in (1, 2, 3))
    kappa = chart_texts(page, "kappa-chart")
    assert "Weighted Cohen's kappa between raters (linear weights)" in kappa
    assert all(f"judge{i}" in kappa for i in (1, 2, 3))
    assert page.get_by_test_id("alpha").inner_text() != "–"
    page.screenshot(path=str(artifacts / "reports-dashboard.png"), full_page=True)


def test_a_manager_settles_a_disagreement(world, live_server, page, artifacts):
    log_in(page, live_server, home=False)
    page.goto(f"{live_server.url}/reports/campaign-a/disagreements/")
    first = page.get_by_test_id("disagreements").locator("tbody tr").first
    item = first.get_attribute("data-item")
    first.locator("select[name=label]").select_option(label="Bad (1)")
    first.locator("input[name=note]").fill("an accessory, not the product")
    first.get_by_role("button", name="Settle").click()
    assert "now wins over the raters' aggregate" in page.locator(".messages").inner_text()
    row = page.locator(f"#item-{item}")
    assert "Adjudicated" in row.get_by_test_id("adjudicated").inner_text()
    assert "an accessory" in row.inner_text()
    page.screenshot(path=str(artifacts / "reports-disagreements.png"), full_page=False)


def test_a_rater_cannot_open_the_reports(world, live_server, page):
    log_in(page, live_server, "rater")
    assert page.get_by_role("link", name="Reports", exact=True).count() == 0
    response = page.goto(f"{live_server.url}/reports/campaign-a/systems/")
    assert response.status == 404
