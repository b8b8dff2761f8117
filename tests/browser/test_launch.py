"""A manager sets up a comparison with a plan, watches the decision move from "collecting" to a
verdict while a test fills in answers, reads the launch review and downloads the memo
(issue 17)."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from annotate.models import Comparison, System, Verdict
from tests.annotate.sxs_helpers import BASE_RUN, CAND_RUN, build_runs, distinct_lists
from tests.browser.session import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def answer(comparison: Comparison, rater, queries: list[str]) -> None:
    tasks = comparison.tasks.filter(query__external_id__in=queries)
    Verdict.objects.bulk_create(
        Verdict(task=t, rater=rater, value="G", candidate_side="L") for t in tasks
    )


def test_the_decision_is_provisional_until_the_plan_is_complete(
    personas, live_server, page: Page, artifacts
):
    build_runs(personas.campaign, distinct_lists(12))
    System.objects.filter(campaign=personas.campaign, runs__name=BASE_RUN).update(
        is_production=True
    )
    log_in(page, live_server.url, "manager", home=False)
    page.goto(f"{live_server.url}/campaigns/campaign-a/comparisons/")
    # The form is preset the right way round: production as the baseline.
    expect(page.get_by_label("Baseline run (A, in production)")).to_have_value(
        str(personas.campaign.runs.get(name=BASE_RUN).pk)
    )
    expect(page.get_by_label("Candidate run (B)")).to_have_value(
        str(personas.campaign.runs.get(name=CAND_RUN).pk)
    )
    page.get_by_label("Name").fill("New ranker")
    page.get_by_label("Minimum number of queries").fill("5")
    page.get_by_label("No meaningful difference within ±").fill("0.05")
    page.get_by_role("button", name="Set up the comparison").click()
    comparison = Comparison.objects.get(name="New ranker")
    assert (comparison.min_queries, comparison.equivalence_margin) == (5, 0.05)

    report = f"{live_server.url}/campaigns/campaign-a/comparisons/{comparison.pk}/"
    answer(comparison, personas.rater, [f"q{i}" for i in range(6)])
    page.goto(report)
    decision = page.get_by_test_id("decision")
    expect(decision).to_have_attribute("data-decision", "collecting")
    expect(decision).to_contain_text("6 of 12 planned queries")
    expect(page.get_by_test_id("provisional")).to_be_visible()
    page.screenshot(path=str(artifacts / "launch-collecting.png"), full_page=True)

    # The manager changes the plan with answers in: refused without a reason, then recorded.
    page.get_by_test_id("plan-link").click()
    page.get_by_label("Minimum number of queries").fill("4")
    page.get_by_role("button", name="Change the plan").click()
    expect(page.get_by_text("say why the plan changes")).to_be_visible()
    page.get_by_label("Why the plan changes").fill("product asked for an earlier read")
    page.get_by_role("button", name="Change the plan").click()
    expect(page.get_by_test_id("plan-changes")).to_contain_text("product asked for an earlier")
    comparison.refresh_from_db()
    assert comparison.min_queries == 4 and comparison.plan_changes.get().answers_in == 6

    answer(comparison, personas.rater, [f"q{i}" for i in range(6, 12)])
    page.goto(report)
    expect(decision).to_have_attribute("data-decision", "launch")
    expect(decision).to_have_attribute("data-path", "fixed")
    expect(page.get_by_test_id("plan-note")).to_contain_text("changed after answers came in")
    expect(page.get_by_test_id("decision-sentence")).to_contain_text(
        "preferred on 12 of 12 answers"
    )
    page.get_by_test_id("review-link").click()
    expect(page.get_by_test_id("review-gsb")).to_contain_text("Launch")
    page.screenshot(path=str(artifacts / "launch-review.png"), full_page=True)
    with page.expect_download() as download:
        page.get_by_test_id("memo-link").click()
    text = Path(download.value.path()).read_text(encoding="utf-8")
    assert "# Launch memo: New ranker" in text
    assert "No meaningful difference within: ±0.05" in text
    assert "Declared by: the fixed-sample rule" in text
    assert "with 6 answers in: Minimum informative queries: 5 → 4" in text
    assert "changed after answers came in" in text
