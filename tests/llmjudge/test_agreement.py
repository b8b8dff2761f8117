"""The label-sources report with a model source, on generated data where the raters and the
"model" (the fake server, answering what each document tells it) are right with known
probabilities: the model's agreement with each rater and the raters' with each other, checked
against statsmodels' Cohen's kappa and the krippendorff package."""

from __future__ import annotations

import itertools

import krippendorff
import numpy as np
import pytest
from django.urls import reverse
from statsmodels.stats.inter_rater import cohens_kappa

from annotate.models import Grade, Label, SourceLabel
from llmjudge.models import JudgeRun
from llmjudge.run import judge_run
from metrics.services.label_sources import RATERS, RunScores, sources_report
from metrics.services.label_sources_raters import flips
from tests.llmjudge.helpers import make_items, make_judge
from tests.metrics.report_helpers import make_raters

pytestmark = pytest.mark.django_db

GRADES = [1.0, 2.0, 3.0]
N_ITEMS, P_MODEL, P_RATER = 150, 0.7, 0.85


def noisy(rng, truth: float, p: float) -> float:
    if rng.random() < p:
        return truth
    return float(rng.choice([g for g in GRADES if g != truth]))


@pytest.fixture
def world(personas, server):
    rng = np.random.default_rng(22)
    c = personas.campaign
    truth = {(f"q{i // 10:02d}", f"d{i:03d}"): float(rng.choice(GRADES)) for i in range(N_ITEMS)}
    said = {pair: noisy(rng, g, P_MODEL) for pair, g in truth.items()}
    items = make_items(c, {pair: f"ANSWER={said[pair]:g}" for pair in truth})
    raters = make_raters(c, 3)
    labels = {label.grade: label for label in Label.objects.filter(campaign=c)}
    for item in items:
        pair = (item.query.external_id, item.document.external_id)
        for rater in raters:
            if rng.random() < 0.8:  # not every rater grades every item
                grade = noisy(rng, truth[pair], P_RATER)
                Grade.objects.create(pool_item=item, rater=rater, label=labels[grade])
    judge = make_judge(c, server.base_url, max_concurrency=4)
    judge_run(judge=judge, run=JudgeRun.objects.create(judge=judge), progress=lambda d, t: None)
    return c, truth, raters


def by_pair(rows) -> dict[tuple[int, int], float]:
    return {(q, d): g for q, d, g in rows}


def reference(x: dict, y: dict) -> tuple[int, float, float]:
    """(shared pairs, statsmodels' linear kappa, krippendorff's ordinal alpha)."""
    shared = sorted(set(x) & set(y))
    table = np.zeros((3, 3))
    for pair in shared:
        table[GRADES.index(x[pair]), GRADES.index(y[pair])] += 1
    kappa = cohens_kappa(table, wt="linear").kappa
    data = np.array([[x[p] for p in shared], [y[p] for p in shared]])
    alpha = krippendorff.alpha(data, level_of_measurement="ordinal", value_domain=GRADES)
    return len(shared), kappa, alpha


def test_the_model_is_right_about_as_often_as_it_was_made_to_be(world):
    campaign, truth, _ = world
    rows = SourceLabel.objects.filter(source__name="model:fake").values_list(
        "query__external_id", "document__external_id", "grade"
    )
    model = by_pair(rows)
    assert set(model) == set(truth)
    right = np.mean([model[p] == truth[p] for p in truth])
    bound = 4 * np.sqrt(P_MODEL * (1 - P_MODEL) / N_ITEMS)
    assert abs(right - P_MODEL) < bound, right


def test_agreement_with_each_rater_and_between_raters_matches_reference_libraries(world):
    campaign, _, raters = world
    report = sources_report(campaign=campaign)
    comparison = report.raters
    model = by_pair(
        SourceLabel.objects.filter(source__name="model:fake").values_list(
            "query_id", "document_id", "grade"
        )
    )
    human = {
        r.username: by_pair(
            Grade.objects.filter(rater=r).values_list(
                "pool_item__query_id", "pool_item__document_id", "label__grade"
            )
        )
        for r in raters
    }
    [against] = comparison.models
    assert against.source == "model:fake"
    for row in against.per_rater:
        both, kappa, alpha = reference(model, human[row.b.removeprefix("rater:")])
        assert row.both == both
        assert row.kappa == pytest.approx(kappa, abs=1e-9)
        assert row.alpha == pytest.approx(alpha, abs=1e-9)
    assert against.mean.kappa == pytest.approx(np.mean([a.kappa for a in against.per_rater]))
    pairs = list(itertools.combinations(sorted(human), 2))
    assert [(a.a, a.b) for a in comparison.between_raters] == [
        (f"rater:{x}", f"rater:{y}") for x, y in pairs
    ]
    for row, (x, y) in zip(comparison.between_raters, pairs, strict=True):
        both, kappa, alpha = reference(human[x], human[y])
        assert (row.both, row.kappa, row.alpha) == (
            both, pytest.approx(kappa, abs=1e-9), pytest.approx(alpha, abs=1e-9)
        )  # fmt: skip
    # Every rater at once: the multi-coder alpha, items as columns, missing cells as NaN.
    keys = sorted(set().union(*human.values()))
    matrix = np.array([[human[u].get(k, np.nan) for k in keys] for u in sorted(human)])
    expected = krippendorff.alpha(matrix, level_of_measurement="ordinal", value_domain=GRADES)
    assert comparison.raters_alpha == pytest.approx(expected, abs=1e-9)
    # Raters right 85% of the time agree more with each other than a model right 70%.
    assert comparison.human.kappa > against.mean.kappa
    # The model also stands against the raters' aggregate, as every source does.
    assert any(a.a == RATERS and a.b == "model:fake" for a in report.agreements)


def test_a_pair_of_runs_flips_when_the_two_sources_order_it_differently():
    def scores(name, raters, model):
        return RunScores(0, name, name, {"raters": {"n": raters}, "model:x": {"n": model}})

    runs = [scores("a", 0.5, 0.4), scores("b", 0.4, 0.45), scores("c", 0.3, 0.1),
            scores("d", 0.3, 0.2)]  # fmt: skip
    found = [(f.run_a, f.run_b) for f in flips(runs=runs, a="raters", b="model:x", ndcg="n")]
    # a > b under the raters, b > a under the model; c = d under the raters is no decision.
    assert found == [("a", "b")]


def test_the_report_page_shows_the_model_against_the_raters_to_its_managers_only(world, personas):
    campaign = world[0]
    url = reverse("metrics:sources", args=[campaign.slug])
    page = personas.client_for("manager").get(url)
    assert page.status_code == 200
    text = page.content.decode()
    assert "Language models against the raters" in text and "Human baseline" in text
    assert 'data-testid="model-raters-table"' in text and "rater:judge1" in text
    assert "language model fake-1 at" in text  # how the source was made
    for who in ("other_manager", "outsider", "rater"):
        assert personas.client_for(who).get(url).status_code == 404
    csv = body(personas.client_for("manager").get(url, {"download": "raters"}))
    rows = [line for line in csv.splitlines() if line.startswith(("model:fake,", "rater:"))]
    assert len(rows) == 3 + 3  # the model against 3 raters, 3 pairs of raters
    assert rows[0].startswith("model:fake,rater:judge1,")


def body(response) -> str:
    if response.streaming:
        return b"".join(response.streaming_content).decode()
    return response.content.decode()


def test_the_model_source_serves_qrels_and_scores_like_any_other(personas, server):
    from annotate.models import Run, RunEntry, System

    c = personas.campaign
    items = make_items(c, {("q1", "d1"): "ANSWER=3", ("q1", "d2"): "ANSWER=1"})
    system = System.objects.create(campaign=c, name="sys")
    run = Run.objects.create(campaign=c, system=system, name="sys")
    for rank, item in enumerate(items, 1):
        RunEntry.objects.create(run=run, query=item.query, document=item.document, rank=rank,
                                score=10.0 - rank)  # fmt: skip
    judge = make_judge(c, server.base_url)
    judge_run(judge=judge, run=JudgeRun.objects.create(judge=judge), progress=lambda d, t: None)
    client = personas.client_for("manager")
    qrels = client.get(f"/api/v1/campaigns/{c.slug}/qrels/", {"source": "model:fake"})
    assert qrels.status_code == 200, qrels.content
    lines = [line for line in body(qrels).splitlines() if not line.startswith("#")]
    assert lines == ["q1 0 d1 3", "q1 0 d2 1"]
    export = client.get(reverse("annotate:export_qrels", args=[c.slug]), {"source": "model:fake"})
    assert "q1 0 d1 3" in body(export)
    scores = client.get(f"/api/v1/campaigns/{c.slug}/scores/",
                        {"source": "model:fake", "measure": "P.1"})  # fmt: skip
    assert scores.status_code == 200, scores.content
    # d1 (grade 3, relevant) is ranked first: P@1 = 1 under the model's labels.
    data = scores.json()
    assert data["basis"]["source"] == "model:fake"
    assert data["systems"][0]["values"]["P_1"]["mean"] == 1.0
    assert (
        personas.client_for("outsider")
        .get(f"/api/v1/campaigns/{c.slug}/qrels/", {"source": "model:fake"})
        .status_code
        == 404
    )
