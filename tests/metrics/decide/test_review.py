"""The launch review: GSB beside the graded comparison of the same runs on the same queries,
saying when they point different ways and listing the queries that disagree most."""

from __future__ import annotations

from datetime import timedelta

import numpy as np
import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone
from scipy.stats import ttest_rel

from annotate.models import Grade, PoolItem, QualityEvent, Run, Verdict
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


def _exclude(comparison, manager, rater) -> None:
    act = reverse(
        "metrics:rater_action",
        kwargs={"slug": comparison.campaign.slug, "user_id": rater.pk, "action": "exclude"},
    )
    assert manager.post(act).status_code == 302


def test_the_memo_and_review_count_the_excluded_raters_answers_and_say_who_excluded_them(
    setup, personas
):
    comparison = setup
    judge2 = get_user_model().objects.get(username="judge2")
    tasks = list(comparison.tasks.filter(mirror_of__isnull=True).order_by("pk"))
    Verdict.objects.bulk_create(
        Verdict(task=t, rater=judge2, candidate_side="L", value="G") for t in tasks[:5]
    )
    # judge2's grades in the campaign (every query of the campaign is the comparison's).
    grades = Grade.objects.filter(rater=judge2, cant_judge=False, gold=False).count()
    assert grades > 0
    manager = personas.client_for("manager")
    text = manager.get(report_url(comparison, "sxs_memo")).content.decode()
    assert "- Answers excluded by rater quality: none" in text
    _exclude(comparison, manager, judge2)
    when = QualityEvent.objects.get(action="exclude").at
    text = manager.get(report_url(comparison, "sxs_memo")).content.decode()
    assert "no such rules yet" not in text
    assert (
        "- Answers excluded by rater quality (left out of every figure): 5 side-by-side "
        f"answers, {grades} grades" in text
    )
    assert f"  - judge2: 5 answers, {grades} grades; excluded by manager on " in text
    assert f"excluded by manager on {when:%Y-%m-%d %H:%M} UTC" in text
    html = manager.get(report_url(comparison, "sxs_review")).content.decode()
    assert 'data-testid="excluded-note"' in html
    section = html.split('data-testid="review-excluded"')[1].split("</section>")[0]
    assert "judge2" in section and "manager" in section and f"{when:%Y-%m-%d %H:%M}" in section
    assert f"5 side-by-side answers and {grades} grades" in section


def _holm_by_hand(p: list[float]) -> list[float]:
    """Holm's step-down adjustment written out: sorted p times (m − rank), running maximum,
    capped at 1, back in the original order."""
    m, order = len(p), sorted(range(len(p)), key=lambda i: p[i])
    adjusted, running = [0.0] * m, 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        adjusted[i] = running
    return adjusted


def test_under_a_gsb_plan_ndcg_is_exploratory_with_its_holm_p_in_the_memo_and_review(
    setup, personas
):
    comparison = setup
    review = launch_review(comparison, comparison_report(comparison))
    _answer_against(comparison, review.graded)
    review = launch_review(comparison, comparison_report(comparison))
    g = review.graded
    assert review.primary_graded is None and g.measure_label == "NDCG@10"
    a = [x for _q, x, _b, _d in g.differences]
    b = [y for _q, _a, y, _d in g.differences]
    assert g.result.p_t == pytest.approx(ttest_rel(b, a).pvalue)
    holm = _holm_by_hand([f.p_t for f in g.family])
    ndcg = next(i for i, f in enumerate(g.family) if f.label == "NDCG@10")
    assert review.holm_p == pytest.approx(holm[ndcg])
    text = personas.client_for("manager").get(report_url(comparison, "sxs_memo")).content.decode()
    row = next(line for line in text.splitlines() if line.startswith("| NDCG@10 |"))
    assert row.endswith("| exploratory |") and f"| {holm[ndcg]:.4f} |" in row
    assert "| primary |" not in text and "Primary range" not in text
    assert "Range of NDCG@10: [" in text and "GSB is the plan's primary measure" in text
    html = personas.client_for("manager").get(report_url(comparison, "sxs_review")).content
    html = html.decode()
    assert 'data-testid="graded-role"' in html
    assert f'data-testid="graded-p-holm">{holm[ndcg]:.4f}<' in html


def test_the_review_prints_the_plan_the_verdict_chart_and_the_caveats_and_the_memo_counts(
    setup, personas
):
    comparison = setup
    review = launch_review(comparison, comparison_report(comparison))
    _answer_against(comparison, review.graded)
    real = Verdict.objects.filter(task__comparison=comparison, task__mirror_of__isnull=True)
    values = list(real.values_list("value", flat=True))
    good, bad, n = values.count("G"), values.count("B"), len(values)
    manager = personas.client_for("manager")
    html = manager.get(report_url(comparison, "sxs_review")).content.decode()
    plan = html.split('data-testid="review-plan"')[1].split("</section>")[0]
    assert "Planned queries" in plan and f"<dd>{n}</dd>" in plan  # one answer per query
    assert "GSB = (Good − Bad) / all answers" in plan and "above +0.00" in plan
    chart = html.split('data-testid="review-chart"')[1].split("</figure>")[0]
    assert "<svg" in chart
    caveats = html.split('data-testid="review-caveats"')[1].split("</section>")[0]
    assert "Few raters (1) judged every query" in caveats  # one rater gave every answer
    assert "title=" in html.split("Always-valid range")[0][-400:]  # explained where shown
    text = manager.get(report_url(comparison, "sxs_memo")).content.decode()
    assert "## Verdicts" in text
    assert f"| Good: the candidate is better | {good} | {good / n:.0%} |" in text
    assert f"| Bad: the candidate is worse | {bad} | {bad / n:.0%} |" in text
    assert f"| All | {n} | 100% |" in text
    assert "- Few raters (1) judged every query" in text


@pytest.mark.parametrize(
    ("n_raters", "weighted", "few", "query_weighted"),
    [(3, 0.2, True, False), (12, 0.2, False, False), (12, 0.25, False, True), (12, None, 0, 0)],
)
def test_the_caveats_say_only_what_applies(n_raters, weighted, few, query_weighted):
    from types import SimpleNamespace

    from metrics.decide.review import launch_caveats

    result = SimpleNamespace(n_raters=n_raters, warnings=[], position_bias=None)
    launch = SimpleNamespace(gsb=0.2, query_weighted_gsb=weighted)
    caveats = launch_caveats(SimpleNamespace(result=result), launch)
    assert any("Few raters" in c for c in caveats) == few
    assert any("query-weighted GSB (+0.2500)" in c for c in caveats) == query_weighted


def test_the_graded_always_valid_range_beside_gsb_runs_over_completed_queries_in_order(setup):
    """Beside a GSB plan the graded range is the confidence sequence of the queries with all
    their grades, in the order their last grade came in (here the reverse of the ids), checked
    against the paper authors' code (tests/reference); a query still missing grades is left
    out."""
    from tests.reference.confseq_betting import betting_cs

    comparison = setup
    campaign = comparison.campaign
    campaign.overlap = 1
    campaign.save(update_fields=["overlap"])
    label = campaign.labels.order_by("grade").first()
    rater = get_user_model().objects.get(username="judge1")
    for item in PoolItem.objects.filter(campaign=campaign, counted=0):
        Grade.objects.update_or_create(
            pool_item=item, rater=rater, defaults={"label": label, "cant_judge": False}
        )
    PoolItem.objects.filter(campaign=campaign, query__external_id="q01").update(raters_needed=9)
    start = timezone.now() - timedelta(days=1)
    for i, query in enumerate(campaign.queries.order_by("-external_id")):
        Grade.objects.filter(pool_item__query=query).update(created_at=start + timedelta(hours=i))
    review = launch_review(comparison, comparison_report(comparison))
    diff = {q: d for q, _a, _b, d in review.graded.differences}
    assert "q01" in diff  # judged, but not every item has its grades
    order = sorted((q for q in diff if q != "q01"), reverse=True)
    x = np.array([diff[q] for q in order])
    low, high = betting_cs(
        (x + 1) / 2, alpha=0.05, breaks=400, running_intersection=True, convex_comb=True
    )
    assert review.graded_sequence == pytest.approx((low[-1] * 2 - 1, high[-1] * 2 - 1), abs=1e-12)


def test_the_report_explains_the_clustered_standard_error(setup, personas):
    comparison = setup
    review = launch_review(comparison, comparison_report(comparison))
    _answer_against(comparison, review.graded)
    html = personas.client_for("manager").get(report_url(comparison, "sxs_report")).content
    html = html.decode()
    assert 'data-testid="se-help"' in html
    tip = html.split('data-testid="se-help"')[0].rsplit("<abbr", 1)[1]
    assert "same query" in tip and "same rater" in tip
