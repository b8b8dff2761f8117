"""A comparison's plan (#17): a graded primary measure with its settings, changes after answers
recorded with who, when and why and shown on the decision, the memo and the API, and
comparisons made before plans shown as "no plan" and decided by the fixed-sample rule."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import ttest_rel

from annotate.models import Comparison, Grade, PlanChange, PoolItem, Run
from annotate.services.sxs_plan import PlanRefused, PlanUpdate, plan_change
from annotate.services.sxs_setup import comparison_create
from metrics.core.stats import Decision
from metrics.decide.gsb import comparison_report
from metrics.decide.launch import LaunchState, launch_decision
from metrics.decide.memo import launch_memo
from metrics.decide.review import launch_review
from tests.annotate.sxs_helpers import distinct_lists, make_comparison, report_url
from tests.metrics.decide.test_launch import answer
from tests.metrics.report_helpers import make_world

pytestmark = pytest.mark.django_db


def update(comparison: Comparison, **changes) -> PlanUpdate:
    fields = {
        "primary": comparison.primary,
        "graded_settings": comparison.graded_settings,
        "min_gsb": comparison.min_gsb,
        "equivalence_margin": comparison.equivalence_margin,
        "confidence": comparison.confidence,
        "min_queries": comparison.min_queries,
    }
    return PlanUpdate(**(fields | changes))


def test_a_change_before_answers_is_recorded_and_needs_no_reason(personas):
    comparison = make_comparison(personas.campaign, distinct_lists(4))
    change = plan_change(comparison=comparison, user=personas.manager,
                         update=update(comparison, min_gsb=0.1))  # fmt: skip
    assert change.changed_by == personas.manager and change.answers_in == 0
    assert change.changes == [["min_gsb", 0.0, 0.1]]
    comparison.refresh_from_db()
    assert comparison.min_gsb == 0.1
    # The same values again change nothing and record nothing.
    assert plan_change(comparison=comparison, user=personas.manager,
                       update=update(comparison)) is None  # fmt: skip
    assert PlanChange.objects.count() == 1


def test_a_change_after_answers_needs_a_reason_and_the_decision_says_so(personas):
    comparison = make_comparison(personas.campaign, distinct_lists(40), min_queries=5)
    answer(comparison, personas.rater, {f"q{i}": "G" for i in range(10)})
    with pytest.raises(PlanRefused):
        plan_change(comparison=comparison, user=personas.manager,
                    update=update(comparison, min_queries=3))  # fmt: skip
    comparison.refresh_from_db()
    assert comparison.min_queries == 5 and not PlanChange.objects.exists()  # nothing written

    plan_change(comparison=comparison, user=personas.manager,
                update=update(comparison, min_queries=3, equivalence_margin=0.05),
                reason="launch review moved up")  # fmt: skip
    change = PlanChange.objects.get()
    assert change.answers_in == 10 and change.reason == "launch review moved up"
    d = launch_decision(comparison, comparison_report(comparison))
    assert "changed after answers came in" in d.plan_note and "manager" in d.plan_note
    review = launch_review(comparison, comparison_report(comparison))
    memo = launch_memo(comparison, comparison_report(comparison), review)
    assert "with 10 answers in" in memo and "launch review moved up" in memo
    assert "Minimum informative queries: 5 → 3" in memo


def test_the_plan_page_changes_and_lists_for_managers_only(personas):
    comparison = make_comparison(personas.campaign, distinct_lists(6), min_queries=2)
    url = report_url(comparison, "sxs_plan")
    for outsider in ("outsider", "rater"):
        client = personas.client_for(outsider)
        assert client.get(url).status_code == 404
        assert client.post(url, {"min_gsb": "0.5"}).status_code == 404
    answer(comparison, personas.rater, {"q0": "G"})
    manager = personas.client_for("manager")
    form = {"primary": "gsb", "graded_gain": "linear", "graded_discount": "log2",
            "graded_ideal": "judged", "min_gsb": "0.2", "confidence": "0.9",
            "min_queries": "2", "equivalence_margin": "0"}  # fmt: skip
    refused = manager.post(url, form)
    assert refused.status_code == 400 and "say why the plan changes" in refused.content.decode()
    done = manager.post(url, {**form, "reason": "the bar agreed with product"})
    assert done.status_code == 302
    comparison.refresh_from_db()
    assert (comparison.min_gsb, comparison.confidence) == (0.2, 0.9)
    html = manager.get(url).content.decode()
    assert "the bar agreed with product" in html and "+0.00 → +0.20" in html
    report = manager.get(report_url(comparison)).content.decode()
    assert 'data-testid="plan-note"' in report


def test_a_comparison_without_a_plan_is_decided_by_the_fixed_rule_and_says_so(personas):
    comparison = make_comparison(personas.campaign, distinct_lists(60), min_queries=30)
    answer(comparison, personas.rater, {f"q{i}": "G" for i in range(40)})
    planned = launch_decision(comparison, comparison_report(comparison))
    assert planned.state != LaunchState.COLLECTING or planned.path == ""  # a plan: 40 of 60 in
    Comparison.objects.filter(pk=comparison.pk).update(plan_fixed=False)
    comparison.refresh_from_db()
    report = comparison_report(comparison)
    d = launch_decision(comparison, report)
    assert report.result.decision == Decision.LAUNCH
    assert d.no_plan and d.path == "fixed" and d.state == LaunchState.LAUNCH
    assert "no plan" in d.headline and "No plan" in d.plan_note
    assert d.to_dict()["no_plan"] is True
    memo = launch_memo(comparison, report, launch_review(comparison, report))
    assert "## No plan" in memo


def test_comparisons_made_before_plans_get_no_plan_and_new_ones_a_plan(personas):
    # The migration adds the column as False for existing rows; the model's default is True.
    field = Comparison._meta.get_field("plan_fixed")
    assert field.default is True
    from importlib import import_module

    migration = import_module("annotate.migrations.0023_comparison_plan").Migration
    added = next(op for op in migration.operations if getattr(op, "name", "") == "plan_fixed")
    assert added.field.default is False
    assert make_comparison(personas.campaign, distinct_lists(2)).plan_fixed


@pytest.fixture
def graded(personas):
    make_world(personas.campaign, missing=None)
    base, cand = (Run.objects.get(campaign=personas.campaign, name=n) for n in ("alpha", "beta"))
    return comparison_create(
        campaign=personas.campaign, name="graded", baseline=base, candidate=cand,
        min_queries=1, primary="ndcg_cut", graded_settings="k=5;gain=exponential;"
        "discount=log2;ideal=judged", confidence=0.9,
    )  # fmt: skip


def _complete_every_item(campaign) -> None:
    label = campaign.labels.order_by("grade").first()
    rater = campaign.memberships.first().user
    for item in PoolItem.objects.filter(campaign=campaign, counted=0):
        Grade.objects.update_or_create(
            pool_item=item, rater=rater, defaults={"label": label, "cant_judge": False}
        )


def test_a_graded_primary_measure_decides_at_the_plans_settings(graded):
    review = launch_review(graded, comparison_report(graded))
    p = review.primary_graded
    assert p is not None and p.measure_label == "NDCG@5"
    assert review.graded.measure == "ndcg_cut_5"
    _complete_every_item(graded.campaign)
    review = launch_review(graded, comparison_report(graded))
    p = review.primary_graded
    assert p.completed == p.planned and p.path == "fixed"
    a = [x for _q, x, _b, _d in review.graded.differences]
    b = [y for _q, _a, y, _d in review.graded.differences]
    ci = ttest_rel(b, a).confidence_interval(0.9)
    assert p.fixed == pytest.approx((max(ci.low, -1), min(ci.high, 1)))
    expected = (
        LaunchState.LAUNCH if ci.low > 0 else
        LaunchState.DO_NOT_LAUNCH if ci.high < 0 else LaunchState.INCONCLUSIVE
    )  # fmt: skip
    assert p.state == expected
    memo = launch_memo(graded, comparison_report(graded), review)
    assert "Decision on the primary measure (NDCG@5)" in memo
    assert "exponential gain" in memo


def test_a_graded_primary_collects_until_every_planned_query_has_its_grades(graded):
    # Every item graded, then one query's items made to need more grades than they have: 7 of
    # the 8 planned queries are complete, whatever the seeded world graded.
    _complete_every_item(graded.campaign)
    PoolItem.objects.filter(campaign=graded.campaign, query__external_id="q01").update(
        raters_needed=9
    )
    p = launch_review(graded, comparison_report(graded)).primary_graded
    assert (p.completed, p.planned) == (7, 8)
    # Only the sequence may declare before the plan is complete; the fixed rule never does.
    assert p.path in ("", "sequence")
    assert (p.path == "") == (p.state == LaunchState.COLLECTING) == p.provisional
    assert p.state != LaunchState.INCONCLUSIVE
    # The sequence runs over the completed queries' differences only.
    assert -1 <= p.sequence[0] <= p.sequence[1] <= 1
    assert np.isfinite(p.diff)


def test_the_setup_form_records_the_primary_measure(personas):
    from tests.annotate.sxs_helpers import build_runs

    base, cand = build_runs(personas.campaign, distinct_lists(3))
    url = f"/campaigns/{personas.campaign.slug}/comparisons/"
    form = {"name": "with plan", "baseline": base.pk, "candidate": cand.pk, "unit": "list",
            "queries": "all", "depth": "3", "raters_per_task": "1", "seed": "1",
            "primary": "err_cut", "graded_k": "3", "graded_gain": "exponential",
            "graded_discount": "log2", "graded_ideal": "judged", "min_gsb": "0",
            "confidence": "0.95", "min_queries": "1", "equivalence_margin": "0"}  # fmt: skip
    response = personas.client_for("manager").post(url, form)
    assert response.status_code == 302, response.content.decode()[:2000]
    made = Comparison.objects.get(name="with plan")
    assert made.primary == "err_cut" and made.plan_fixed
    assert made.graded_settings == "k=3;gain=exponential;discount=log2;ideal=judged"


def test_the_api_returns_the_plan_its_changes_and_the_primary_decision(personas, graded):
    from tests.api.conftest import api_client_for

    client = api_client_for(personas, "manager")
    plan_change(comparison=graded, user=personas.manager,
                update=update(graded, min_gsb=0.05))  # fmt: skip
    body = client.get(f"/api/v1/comparisons/{graded.pk}/gsb/").json()
    assert body["comparison"]["primary"] == "ndcg_cut" and body["comparison"]["plan_fixed"]
    assert body["comparison"]["graded_settings"].startswith("k=5;gain=exponential")
    assert body["plan_changes"][0]["changes"] == [["Bar", "+0.00", "+0.05"]]
    assert body["plan_changes"][0]["changed_by"] == "manager"
    primary = body["primary_decision"]
    assert primary["measure"] == "NDCG@5" and primary["state"] in {s.value for s in LaunchState}
    # The rater sees none of the plan.
    rater = api_client_for(personas, "rater").get(f"/api/v1/comparisons/{graded.pk}/").json()
    assert rater["primary"] is None and rater["graded_settings"] is None


def test_the_api_creates_a_plan_and_refuses_bad_settings(personas):
    from tests.annotate.sxs_helpers import BASE_RUN, CAND_RUN, build_runs
    from tests.api.conftest import api_client_for

    build_runs(personas.campaign, distinct_lists(3))
    client = api_client_for(personas, "manager")
    body = {
        "campaign": "campaign-a",
        "baseline": BASE_RUN,
        "candidate": CAND_RUN,
        "primary": "P",
        "graded_settings": "k=3;gain=linear;discount=log2;ideal=judged",
    }
    made = client.post("/api/v1/comparisons/", {**body, "name": "a"}, format="json")
    assert made.status_code == 201, made.content
    assert made.json()["primary"] == "P"
    bad = client.post("/api/v1/comparisons/", {**body, "name": "b", "graded_settings": "k=0"},
                      format="json")  # fmt: skip
    assert bad.status_code == 400 and "graded_settings" in bad.content.decode()
    assert not Comparison.objects.filter(name="b").exists()


def test_the_review_counts_the_queries_without_any_judgment(graded):
    from annotate.models import Grade as G

    first = launch_review(graded, comparison_report(graded))
    assert first.unjudged == 0
    G.objects.filter(pool_item__query__external_id="q01").delete()
    review = launch_review(graded, comparison_report(graded))
    assert review.unjudged == 1
    memo = launch_memo(graded, comparison_report(graded), review)
    assert "Queries without any judgment (left out of the graded measures): 1" in memo


def test_an_excluded_raters_grades_complete_no_query(graded):
    """`counted` holds an excluded rater's grades too (#18): the primary measure's completion
    takes them off, so a query is complete only with the grades of raters who count."""
    from annotate.models import Membership, Role

    campaign = graded.campaign
    filler = campaign.memberships.filter(role=Role.RATER).first()
    label = campaign.labels.order_by("grade").first()
    for item in PoolItem.objects.filter(campaign=campaign, counted=0):
        Grade.objects.create(pool_item=item, rater=filler.user, label=label, cant_judge=False)
    Membership.objects.filter(pk=filler.pk).update(answers_excluded=True)

    def complete_without(excluded_user) -> int:
        """Counted independently: each planned query's every non-gold item has, from raters
        other than the excluded one, as many counted grades as it needs."""
        planned = set(graded.tasks.values_list("query__external_id", flat=True))
        complete = 0
        for qid in planned:
            items = PoolItem.objects.filter(campaign=campaign, query__external_id=qid, gold=False)
            complete += all(
                Grade.objects.filter(pool_item=item, cant_judge=False, gold=False)
                .exclude(rater=excluded_user)
                .count()
                >= (item.raters_needed or campaign.overlap)
                for item in items
            )
        return complete

    expected = complete_without(filler.user)
    p = launch_review(graded, comparison_report(graded)).primary_graded
    assert p.completed == expected < p.planned  # the filler completed every query
    Membership.objects.filter(pk=filler.pk).update(answers_excluded=False)
    p = launch_review(graded, comparison_report(graded)).primary_graded
    assert p.completed == p.planned
