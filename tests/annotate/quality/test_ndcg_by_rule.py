"""NDCG under each aggregation rule side by side (#18): five raters grade two documents so that
the mean puts d1 first and the median and majority put d2 first; system A ranks d1 first, B d2.
The systems page shows that the rule changes the ranking; the API takes the rule as a
parameter of scores and qrels."""

from __future__ import annotations

import json

import pytest
from django.test import Client
from django.urls import reverse

from metrics.services.scores import MeasureSettings
from metrics.services.scores_by_rule import ndcg_by_rule
from tests.annotate.judgment_data import grade, make_run, pool_item
from tests.annotate.queue_helpers import make_raters
from tests.api.conftest import api_client_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def split(personas):
    campaign = personas.campaign
    make_run(campaign, "A", [("q1", "d1", 1, 2.0), ("q1", "d2", 2, 1.0)])
    make_run(campaign, "B", [("q1", "d2", 1, 2.0), ("q1", "d1", 2, 1.0)])
    raters = make_raters(campaign, 5)
    d1, d2 = pool_item(campaign, "q1", "d1"), pool_item(campaign, "q1", "d2")
    # d1: Bad Bad Bad Good Good (mean 1.8, median 1); d2: Fair Fair Fair Bad Bad (1.6, 2).
    firsts, seconds = ["Bad"] * 3 + ["Good"] * 2, ["Fair"] * 3 + ["Bad"] * 2
    for rater, a, b in zip(raters, firsts, seconds, strict=True):
        grade(d1, rater, a)
        grade(d2, rater, b)
    return campaign


def test_the_rules_rank_the_systems_differently(split):
    table = ndcg_by_rule(campaign=split, settings=MeasureSettings(k=10))
    ranks = {row.system["system"]: row.ranks for row in table.rows}
    rules = table.rules
    assert ranks["A"][rules.index("mean")] == 1 and ranks["B"][rules.index("mean")] == 2
    assert ranks["B"][rules.index("median")] == 1 and ranks["B"][rules.index("majority")] == 1
    assert table.ranking_changes
    values = {row.system["system"]: row.values for row in table.rows}
    assert values["A"][rules.index("mean")] == pytest.approx(1.0)
    assert values["B"][rules.index("median")] == pytest.approx(1.0)


def test_the_systems_page_shows_them_side_by_side(split, personas):
    client = Client()
    client.force_login(personas.manager)
    url = reverse("metrics:systems", kwargs={"slug": split.slug})
    plain = client.get(url)
    assert b"by-rule-link" in plain.content and b"by-rule-table" not in plain.content
    page = client.get(url + "?rules=all")
    assert page.status_code == 200
    assert b"by-rule-table" in page.content
    assert b"The choice of rule changes the systems" in page.content


def test_the_api_takes_the_rule_for_scores_and_qrels(split, personas):
    api = api_client_for(personas, "manager")
    ndcg = {}
    for rule in ("mean", "median"):
        answer = api.get(f"/api/v1/campaigns/{split.slug}/scores/?aggregation={rule}")
        assert answer.status_code == 200, answer.content
        assert answer.json()["basis"]["rule"] == rule
        ndcg[rule] = {s["system"]: s["values"] for s in answer.json()["systems"]}
    assert ndcg["mean"] != ndcg["median"]
    qrels = api.get(f"/api/v1/campaigns/{split.slug}/qrels.json?aggregation=median")
    assert qrels.status_code == 200
    body = json.loads(b"".join(qrels.streaming_content))
    assert {(q["document"], q["grade"]) for q in body["qrels"]} == {("d1", 1), ("d2", 2)}
    assert api.get(f"/api/v1/campaigns/{split.slug}/scores/?aggregation=nope").status_code == 400
