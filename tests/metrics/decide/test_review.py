"""The launch review: GSB beside the graded comparison of the same runs on the same queries,
saying when they point different ways and listing the queries that disagree most."""

from __future__ import annotations

import pytest
from scipy.stats import ttest_rel

from annotate.models import Run, Verdict
from annotate.services.sxs_setup import comparison_create
from metrics.decide.gsb import comparison_report
from metrics.decide.review import launch_review
from tests.annotate.sxs_helpers import report_url
from tests.metrics.report_helpers import make_world

pytestmark = pytest.mark.django_db


@pytest.fixture
def setup(personas):
    make_world(personas.campaign, missing=None)
    base, cand = (Run.objects.get(campaign=personas.campaign, name=n) for n in ("alpha", "beta"))
    comparison = comparison_create(
        campaign=personas.campaign, name="c", baseline=base, candidate=cand, min_queries=1
    )
    return comparison


def _answer_against(comparison, graded) -> None:
    """Each query's verdict opposite to the graded difference: GSB and NDCG must disagree."""
    diff = {q: d for q, _a, _b, d in graded.differences}
    rater = comparison.campaign.memberships.first().user
    Verdict.objects.bulk_create(
        Verdict(
            task=t,
            rater=rater,
            candidate_side="L",
            value="B" if diff[t.query.external_id] > 0 else "G",
        )
        # In a fixed order: the sequence follows completion order, and tasks are made in a
        # random one (issue 24).
        for t in comparison.tasks.select_related("query").order_by("query_id", "position")
    )


def test_the_review_puts_ndcg_from_scipy_beside_gsb_and_says_when_they_disagree(setup):
    comparison = setup
    first = launch_review(comparison, comparison_report(comparison))
    assert first.launch is None and first.graded is not None
    _answer_against(comparison, first.graded)
    review = launch_review(comparison, comparison_report(comparison))
    g = review.graded
    a = [x for _q, x, _b, _d in g.differences]
    b = [y for _q, _a, y, _d in g.differences]
    ref = ttest_rel(b, a)
    assert g.result.p_t == pytest.approx(ref.pvalue)
    # The comparison's queries, no others (nor its mirrored duplicates, #18).
    assert len(a) == comparison.tasks.filter(mirror_of__isnull=True).count()
    d = [x for *_q, x in g.differences]
    goods, bads = sum(x < 0 for x in d), sum(x > 0 for x in d)
    opposite = (goods - bads) * (sum(d) / len(d)) < 0
    assert (review.agreement == "disagree") == opposite
    if opposite:
        assert "point different ways" in review.agreement_text
    assert review.disagreements  # every query disagrees in sign
    assert {r.external_id for r in review.disagreements} <= {q for q, *_ in g.differences}
    assert all(r.gsb * r.graded < 0 for r in review.disagreements)
    assert review.judged is not None and all(0 <= j <= 1 for j in review.judged)
    low, high = review.graded_sequence
    assert -1 <= low <= high <= 1
    assert low <= ref.confidence_interval(0.95).high and high >= ref.confidence_interval(0.95).low


def test_the_review_page_for_managers_only(setup, personas):
    url = report_url(setup, "sxs_review")
    assert personas.client_for("outsider").get(url).status_code == 404
    assert personas.client_for("rater").get(url).status_code == 404
    html = personas.client_for("manager").get(url).content.decode()
    assert 'data-testid="review-gsb"' in html and 'data-testid="review-graded"' in html
    assert "Other measures (exploratory)" in html


@pytest.mark.parametrize(
    ("gsb", "gsb_range", "diff", "diff_range", "expected"),
    [
        (0.2, (0.1, 0.3), -0.03, (-0.06, -0.01), "disagree"),
        (0.2, (0.1, 0.3), 0.03, (0.01, 0.05), "agree"),
        (0.2, (0.1, 0.3), 0.01, (-0.01, 0.03), "gsb_only"),  # the Launch with p_Holm .24
        (0.05, (-0.1, 0.2), 0.03, (0.01, 0.05), "graded_only"),
        (0.05, (-0.1, 0.2), 0.01, (-0.01, 0.03), "neither"),
    ],
)
def test_the_words_for_each_way_gsb_and_the_graded_measure_can_relate(
    gsb, gsb_range, diff, diff_range, expected
):
    from types import SimpleNamespace

    from metrics.decide.launch import LaunchState
    from metrics.decide.review import agreement_words

    launch = SimpleNamespace(state=LaunchState.LAUNCH, path="fixed", gsb=gsb,
                             fixed_low=gsb_range[0], fixed_high=gsb_range[1])  # fmt: skip
    graded = SimpleNamespace(measure_label="NDCG@10", ci_t=diff_range,
                             result=SimpleNamespace(diff=diff))  # fmt: skip
    kind, text = agreement_words(launch, graded)
    assert kind == expected and "NDCG@10" in text


def test_the_memo_downloads_as_markdown_with_plan_decision_and_path(setup, personas):
    comparison = setup
    review = launch_review(comparison, comparison_report(comparison))
    _answer_against(comparison, review.graded)
    url = report_url(comparison, "sxs_memo")
    assert personas.client_for("outsider").get(url).status_code == 404
    response = personas.client_for("manager").get(url)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/markdown")
    assert "attachment" in response["Content-Disposition"]
    text = response.content.decode()
    for heading in ("# Launch memo: c", "## Plan", "## Data coverage", "## Decision",
                    "## Graded measures", "## Caveats"):  # fmt: skip
        assert heading in text
    assert "Declared by: the fixed-sample rule" in text  # every planned query is in
    assert f"Planned queries: {comparison.tasks.filter(mirror_of__isnull=True).count()}" in text
