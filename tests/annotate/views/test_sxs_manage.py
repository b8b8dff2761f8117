"""The manager's side-by-side pages: who gets in, setting a comparison up through the form, the
report page, its CSV downloads and the look at one query's two lists."""

from __future__ import annotations

import csv
import io

import pytest
from django.urls import reverse

from annotate.judging.sxs import sxs_queue, verdict_submit
from annotate.models import Comparison, Run, Side, System
from tests.annotate.sxs_helpers import (
    BASE_RUN,
    CAND_RUN,
    build_runs,
    distinct_lists,
    make_comparison,
    report_url,
)
from tests.conftest import PERSONA_NAMES


def seed_002(personas) -> Comparison:
    """Seed 002's example: over four queries the candidate gets G, S, B, B."""
    comparison = make_comparison(personas.campaign, distinct_lists(4))
    wanted = {"q0": "G", "q1": "S", "q2": "B", "q3": "B"}
    while held := sxs_queue(rater=personas.rater, comparison=comparison):
        for task, side in held:
            cand = "left" if side == Side.LEFT else "right"
            other = "right" if cand == "left" else "left"
            value = wanted[task.query.external_id]
            chosen = {"G": cand, "S": "same", "B": other}[value]
            verdict_submit(
                rater=personas.rater, task_id=task.pk, chosen=chosen, reason=f"r-{value}"
            )
    return comparison


def list_url(slug: str = "campaign-a") -> str:
    return reverse("annotate:sxs_comparisons", kwargs={"slug": slug})


@pytest.mark.parametrize("persona", PERSONA_NAMES)
def test_only_the_campaigns_managers_reach_every_manager_page(personas, persona):
    comparison = seed_002(personas)
    query_id = comparison.tasks.first().query_id
    urls = [
        list_url(),
        report_url(comparison),
        report_url(comparison, "sxs_report_csv"),
        report_url(comparison, "sxs_queries_csv"),
        report_url(comparison, "sxs_query", query_id=query_id),
    ]
    client = personas.client_for(persona)
    for url in urls:
        response = client.get(url)
        if persona == "anonymous":
            assert response.status_code == 302 and "/login/" in response["Location"], url
        elif persona == "manager":
            assert response.status_code == 200, url
        else:
            assert response.status_code == 404, (persona, url)
    before = Comparison.objects.count()
    response = client.post(list_url(), {"name": "x"})
    assert response.status_code == {"anonymous": 302, "manager": 400}.get(persona, 404)
    assert Comparison.objects.count() == before


def test_another_campaigns_comparison_is_404_under_my_campaigns_slug(personas):
    comparison = seed_002(personas)
    url = reverse(
        "annotate:sxs_report", kwargs={"slug": "campaign-b", "comparison_id": comparison.pk}
    )
    assert personas.client_for("other_manager").get(url).status_code == 404


def form_data(base_run, cand_run, **changes) -> dict:
    data = {
        "name": "BERT against prod",
        "baseline": base_run.pk,
        "candidate": cand_run.pk,
        "unit": "list",
        "queries": "all",
        "sample_size": "",
        "depth": 10,
        "raters_per_task": 2,
        "min_gsb": 0,
        "confidence": 0.95,
        "min_queries": 30,
        "seed": 7,
    }
    data.update(changes)
    return data


def test_a_manager_sets_up_a_comparison_through_the_form(personas):
    baseline, candidate = build_runs(personas.campaign, distinct_lists(12))
    client = personas.client_for("manager")
    page = client.get(list_url())
    html = page.content.decode()
    assert BASE_RUN in html and CAND_RUN in html
    assert 'value="10"' in html and 'value="0.95"' in html and 'value="30"' in html  # defaults
    response = client.post(
        list_url(), form_data(baseline, candidate, queries="sample", sample_size=5)
    )
    comparison = Comparison.objects.get()
    assert response.status_code == 302
    assert response["Location"] == report_url(comparison)
    assert comparison.tasks.count() == 5 and comparison.raters_per_task == 2
    assert comparison.seed == 7 and comparison.baseline == baseline
    html = client.get(list_url()).content.decode()
    assert "BERT against prod" in html and report_url(comparison) in html


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"candidate": "BASE"}, "Choose two different runs"),
        ({"candidate": "OTHER"}, "Select a valid choice"),
        ({"queries": "sample", "sample_size": ""}, "How many queries should the sample have?"),
        ({"queries": "sample", "sample_size": 13}, "only 12 queries"),
        ({"name": "taken"}, "already has a comparison named"),
        ({"confidence": 1.5}, "less than or equal to 0.999"),
        ({"min_gsb": 1}, "less than or equal to 0.99"),
        ({"depth": 0}, "greater than or equal to 1"),
    ],
)
def test_the_form_refuses_bad_setups_with_a_clear_message(personas, changes, message):
    baseline, candidate = build_runs(personas.campaign, distinct_lists(12))
    make_other = System.objects.create(campaign=personas.other_campaign, name="s")
    other_run = Run.objects.create(campaign=personas.other_campaign, system=make_other, name="r")
    client = personas.client_for("manager")
    client.post(list_url(), form_data(baseline, candidate, name="taken"))
    changes = {
        k: {"BASE": baseline.pk, "OTHER": other_run.pk}.get(v, v) for k, v in changes.items()
    }
    before = Comparison.objects.count()
    response = client.post(list_url(), form_data(baseline, candidate, **changes))
    assert response.status_code == 400
    assert message in response.content.decode()
    assert Comparison.objects.count() == before


def test_the_report_shows_seed_002_as_a_product_manager_reads_it(personas):
    comparison = seed_002(personas)
    response = personas.client_for("manager").get(report_url(comparison))
    html = response.content.decode()
    assert response.status_code == 200
    assert 'data-decision="do_not_launch"' in html
    assert "Do not launch — the candidate did not beat the bar" in html
    assert 'data-testid="gsb">-0.2500<' in html
    assert "[-0.7783, 0.5047]" in html
    assert 'data-testid="count-good">1<' in html and 'data-testid="count-bad">2<' in html
    assert "<svg " in html and "Verdicts for the candidate (4 in all)" in html
    assert BASE_RUN in html and CAND_RUN in html  # the manager may see who is who
    assert "Position bias" in html and "Shuffle check" in html
    assert "Needs tasks answered by two or more raters" in html
    for value in ("r-G", "r-S", "r-B"):
        assert value in html  # the reasons


def test_the_report_shows_only_clustered_figures_and_says_when_raters_are_few(personas):
    comparison = seed_002(personas)
    html = personas.client_for("manager").get(report_url(comparison)).content.decode()
    # No unclustered cross-check (seed 002's Wald interval is [−1.0626, 0.5626]).
    assert "Wald" not in html and "0.5626" not in html and "-1.0626" not in html
    assert "Standard error (clustered)" in html and 'data-testid="se">0.4146<' in html
    # One rater judged every query: the interval cannot speak for raters in general.
    assert "the interval describes these raters, not raters in general" in html


def test_the_few_raters_warning_speaks_the_managers_language(personas):
    # The sentence comes from metrics.core (no Django); the page words it in the reader's
    # language, with the same figures.
    comparison = seed_002(personas)
    client = personas.client_for("manager")
    html = client.get(report_url(comparison), HTTP_ACCEPT_LANGUAGE="zh-CN,zh;q=0.9").content
    html = html.decode()
    assert '<html lang="zh-hans">' in html
    assert "describes these raters" not in html
    assert "区间只描述这 1 位评估员" in html and "至少需要 10 位" in html


def test_the_per_query_table_sorts_by_any_column(personas):
    comparison = seed_002(personas)
    client = personas.client_for("manager")

    def order(sort: str) -> list[str]:
        response = client.get(report_url(comparison), {"sort": sort})
        return [row.external_id for row in response.context["rows"]]

    assert order("query") == ["q0", "q1", "q2", "q3"]
    assert order("-query") == ["q3", "q2", "q1", "q0"]
    assert order("y") == ["q2", "q3", "q1", "q0"]
    assert order("-good")[0] == "q0"
    assert order("nonsense") == ["q0", "q1", "q2", "q3"]
    html = client.get(report_url(comparison), {"sort": "y"}).content.decode()
    assert 'aria-sort="ascending"><a href="?sort=-y#queries">' in html


def test_the_csv_downloads_carry_the_same_numbers(personas):
    comparison = seed_002(personas)
    client = personas.client_for("manager")
    response = client.get(report_url(comparison, "sxs_report_csv"))
    assert response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    figures = dict(csv.reader(io.StringIO(response.content.decode())))
    report = client.get(report_url(comparison)).context["result"]
    assert float(figures["gsb"]) == report.gsb == -0.25
    assert float(figures["ci_low"]) == report.ci_low
    assert figures["decision"] == "do_not_launch"
    assert figures["candidate_run"] == CAND_RUN and figures["identical_tasks"] == "0"
    assert figures["position_bias.left"] == str(report.position_bias.left)
    rows = list(csv.DictReader(io.StringIO(client.get(
        report_url(comparison, "sxs_queries_csv")).content.decode())))  # fmt: skip
    assert [(r["query"], r["good"], r["same"], r["bad"], r["y"], r["majority"]) for r in rows] == [
        ("q0", "1", "0", "0", "1", "candidate"),
        ("q1", "0", "1", "0", "0", "tie"),
        ("q2", "0", "0", "1", "-1", "baseline"),
        ("q3", "0", "0", "1", "-1", "baseline"),
    ]


def test_the_manager_sees_both_lists_named_with_ranks_scores_and_verdicts(personas):
    comparison = seed_002(personas)
    task = comparison.tasks.get(query__external_id="q0")
    response = personas.client_for("manager").get(
        report_url(comparison, "sxs_query", query_id=task.query_id)
    )
    html = response.content.decode()
    assert "Baseline (A): RUNBASE-7731" in html and "Candidate (B): RUNCAND-9917" in html
    assert "Title of q0-a0" in html and "Title of q0-b2" in html
    assert "score 91.123457" in html and "Good (candidate better)" in html and "r-G" in html
    # A query outside the comparison, or of another campaign, is 404.
    other = make_comparison(personas.other_campaign, {"x": (["1"], ["2"])})
    url = report_url(comparison, "sxs_query", query_id=other.tasks.get().query_id)
    assert personas.client_for("manager").get(url).status_code == 404


def test_identical_tasks_are_counted_and_shown(personas):
    lists = {"q0": (["a"], ["b"]), "q1": (["c"], ["c"])}
    comparison = make_comparison(personas.campaign, lists, raters_per_task=3)
    client = personas.client_for("manager")
    html = client.get(report_url(comparison)).content.decode()
    assert 'data-testid="identical-tasks">1<' in html
    assert "Same verdict" in html or "3 per task" in html
    html = client.get(list_url()).content.decode()
    assert "Report" in html


def test_the_campaign_page_links_the_comparisons(personas):
    html = personas.client_for("manager").get(reverse("annotate:campaign", args=["campaign-a"]))
    assert list_url() in html.content.decode()
