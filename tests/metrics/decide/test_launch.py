"""The launch decision's four states (metrics.decide.launch): a decision shown before the planned
queries are in is provisional, only the always-valid range may declare early, and the complete
plan is decided by STATISTICS.md section 3's fixed-sample rule."""

from __future__ import annotations

import numpy as np
import pytest

from annotate.models import Verdict
from metrics.core.stats import betting_confidence_sequence
from metrics.decide.gsb import comparison_report
from metrics.decide.launch import LaunchState, completed_queries, launch_decision
from tests.annotate.sxs_helpers import distinct_lists, make_comparison, report_url

pytestmark = pytest.mark.django_db


def answer(comparison, rater, values: dict[str, str]) -> None:
    """One verdict by `rater` on each task of the named queries (G, S or B for the candidate),
    in the order of `values`: the order queries complete in, which the confidence sequence
    follows. (Tasks are made in a random order, issue 24: their database order would make the
    sequence, and these tests, vary from run to run.)"""
    tasks = comparison.tasks.select_related("query").filter(query__external_id__in=values)
    order = {qid: i for i, qid in enumerate(values)}
    Verdict.objects.bulk_create(
        Verdict(task=t, rater=rater, value=values[t.query.external_id], candidate_side="L")
        for t in sorted(tasks, key=lambda t: (order[t.query.external_id], t.position or 0))
    )


def decide(comparison):
    return launch_decision(comparison, comparison_report(comparison))


def test_the_issue_case_45_of_56_in_is_provisional_not_a_green_launch(personas):
    # 45 of 56 queries answered, 20 Good, 8 Bad, mixed: the fixed interval already clears 0.
    comparison = make_comparison(personas.campaign, distinct_lists(56), min_queries=30)
    values = np.random.default_rng(1).permutation(["G"] * 20 + ["B"] * 8 + ["S"] * 17).tolist()
    answer(comparison, personas.rater, {f"q{i}": v for i, v in enumerate(values)})
    report = comparison_report(comparison)
    assert report.result.ci_low > 0  # the old page showed a green "Launch" here
    d = launch_decision(comparison, report)
    assert d.state == LaunchState.COLLECTING and d.provisional and d.tone == "provisional"
    assert (d.completed, d.planned, d.path) == (45, 56, "")
    assert "provisional" in d.sentence and "Launch" not in d.headline
    assert d.sequence_low <= 0 <= d.sequence_high
    assert d.query_weighted_gsb == pytest.approx(12 / 45)


def test_strong_early_data_may_launch_through_the_sequence_only(personas):
    comparison = make_comparison(personas.campaign, distinct_lists(80), min_queries=30)
    answer(comparison, personas.rater, {f"q{i}": "G" for i in range(50)})
    d = decide(comparison)
    expected_low, _ = betting_confidence_sequence(np.ones(50), comparison.confidence).last
    assert d.state == LaunchState.LAUNCH and d.path == "sequence"
    assert d.sequence_low == pytest.approx(expected_low) and d.sequence_low > 0
    assert "may launch" in d.sentence


def test_never_before_the_minimum_number_of_informative_queries(personas):
    comparison = make_comparison(personas.campaign, distinct_lists(80), min_queries=60)
    answer(comparison, personas.rater, {f"q{i}": "G" for i in range(50)})
    assert decide(comparison).state == LaunchState.COLLECTING


def test_early_and_clearly_worse_is_do_not_launch_by_the_sequence(personas):
    comparison = make_comparison(personas.campaign, distinct_lists(80), min_queries=30)
    answer(comparison, personas.rater, {f"q{i}": "B" for i in range(50)})
    d = decide(comparison)
    assert d.state == LaunchState.DO_NOT_LAUNCH and d.path == "sequence"


@pytest.mark.parametrize(
    ("counts", "state"),
    [((1, 1, 2), LaunchState.DO_NOT_LAUNCH), ((20, 5, 15), LaunchState.INCONCLUSIVE)],
)
def test_the_complete_plan_is_decided_by_the_fixed_sample_rule(personas, counts, state):
    g, s, b = counts
    comparison = make_comparison(personas.campaign, distinct_lists(g + s + b), min_queries=4)
    values = ["G"] * g + ["S"] * s + ["B"] * b
    answer(comparison, personas.rater, {f"q{i}": v for i, v in enumerate(values)})
    d = decide(comparison)
    assert d.state == state and d.path == "fixed" and not d.provisional
    if state == LaunchState.INCONCLUSIVE:
        assert "cannot tell" in d.sentence and f"{d.fixed_low:+.2f}" in d.sentence


def test_queries_count_as_complete_only_with_all_their_raters(personas):
    comparison = make_comparison(
        personas.campaign, distinct_lists(3), min_queries=1, raters_per_task=2
    )
    answer(comparison, personas.rater, {"q0": "G", "q1": "B"})
    answer(comparison, personas.other_rater, {"q0": "S"})
    done = completed_queries(comparison)
    assert done.values.tolist() == [0.5] and done.planned == 3


def test_the_page_marks_a_provisional_decision(personas):
    comparison = make_comparison(personas.campaign, distinct_lists(40), min_queries=30)
    answer(comparison, personas.rater, {f"q{i}": "G" for i in range(10)})
    html = personas.client_for("manager").get(report_url(comparison)).content.decode()
    assert 'data-decision="collecting"' in html and "decision-provisional" in html
    assert 'data-testid="provisional"' in html and "10 of 40 planned queries" in html
    assert 'data-testid="sequence-interval"' in html


def _balanced(n_each: int, n_same: int) -> list[str]:
    return np.random.default_rng(2).permutation(["G"] * n_each + ["B"] * n_each + ["S"] * n_same)


def test_inside_the_equivalence_margin_early_is_no_meaningful_difference(personas):
    comparison = make_comparison(
        personas.campaign, distinct_lists(150), min_queries=30, equivalence_margin=0.3
    )
    values = _balanced(5, 90).tolist()
    answer(comparison, personas.rater, {f"q{i}": v for i, v in enumerate(values)})
    d = decide(comparison)
    assert d.state == LaunchState.NO_DIFFERENCE and d.path == "sequence"
    assert d.sequence_low > -0.3 and d.sequence_high < 0.3


def test_inside_the_margin_at_the_planned_size_by_the_fixed_interval(personas):
    comparison = make_comparison(
        personas.campaign, distinct_lists(100), min_queries=30, equivalence_margin=0.2
    )
    answer(comparison, personas.rater, {f"q{i}": v for i, v in enumerate(_balanced(10, 80))})
    d = decide(comparison)
    assert d.state == LaunchState.NO_DIFFERENCE and d.path == "fixed"
    assert d.fixed_low > -0.2 and d.fixed_high < 0.2
    # Without a margin the same data are the fixed rule's "do not launch" (GSB 0 is not above 0).
    comparison.equivalence_margin = 0.0
    assert decide(comparison).state == LaunchState.DO_NOT_LAUNCH


def test_the_plan_is_read_only_in_the_admin_before_and_after_answers(personas, admin_client):
    # The plan changes only on the plan page, which records who, when and why (test_plan.py):
    # an edit in the admin would change it silently.
    from django.urls import reverse

    comparison = make_comparison(personas.campaign, distinct_lists(3), min_queries=1)
    address = reverse("admin:annotate_comparison_change", args=[comparison.pk])
    for moment in ("before", "after"):
        if moment == "after":
            answer(comparison, personas.rater, {"q0": "G"})
        html = admin_client.get(address).content.decode()
        assert 'name="name"' in html  # the form is there, without the plan's inputs
        for field in ("min_gsb", "confidence", "min_queries", "equivalence_margin", "primary"):
            assert f'name="{field}"' not in html


def test_the_api_records_the_margin_with_the_plan(personas):
    from tests.annotate.sxs_helpers import BASE_RUN, CAND_RUN, build_runs
    from tests.api.conftest import api_client_for

    build_runs(personas.campaign, distinct_lists(3))
    client = api_client_for(personas, "manager")
    body = {"campaign": "campaign-a", "name": "p", "baseline": BASE_RUN, "candidate": CAND_RUN}
    made = client.post("/api/v1/comparisons/", {**body, "equivalence_margin": 0.05}, format="json")
    assert made.status_code == 201, made.content
    assert made.json()["equivalence_margin"] == 0.05
    bad = client.post("/api/v1/comparisons/", {**body, "name": "q", "equivalence_margin": 0.9},
                      format="json")  # fmt: skip
    assert bad.status_code == 400


def test_the_planner_on_the_setup_page_gives_queries_and_rater_hours(personas):
    from django.urls import reverse

    from metrics.core.stats.plan_size import planned_queries

    comparison = make_comparison(personas.campaign, distinct_lists(3), min_queries=1)
    for i, t in enumerate(comparison.tasks.all()):
        Verdict.objects.create(task=t, rater=personas.rater, value="G", candidate_side="L",
                               seconds=[10.0, 30.0, 20.0][i])  # fmt: skip
    url = reverse("annotate:sxs_comparisons", kwargs={"slug": "campaign-a"})
    client = personas.client_for("manager")
    asked = {"plan": "1", "effect": 0.1, "same_share": 0.5, "plan_raters": 2, "correlation": 0.2,
             "power": 0.8, "plan_bar": 0, "plan_confidence": 0.95}  # fmt: skip
    html = client.get(url, asked).content.decode()
    plan = planned_queries(effect=0.1, same_share=0.5, raters=2, correlation=0.2)
    hours = plan.answers * 20.0 / 3600  # median of 10, 20, 30 seconds
    assert f"{plan.queries} queries" in html and f"about {hours:.1f} rater-hours" in html
    refused = client.get(url, {**asked, "effect": 0.6}).content.decode()
    assert "cannot reach the bar" in refused
    assert client.get(url, {**asked, "effect": "x"}).status_code == 200  # the form says why
    assert personas.client_for("outsider").get(url, asked).status_code == 404
