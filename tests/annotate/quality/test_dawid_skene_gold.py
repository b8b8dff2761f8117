"""The dawid_skene rule learns its raters' reliabilities from gold too (#18): the campaign's one
fit takes the real grades and the answers to gold, each gold item clamped to its accepted label,
and the rater quality page shows the matrices of that same fit.

The campaign of these tests, on the labels Good and Bad (three raters, A, B and C):

- 4 items all three call Good, 4 all three call Bad;
- 4 contested items: A and B say Good, C says Bad, so the majority (and Dawid–Skene fitted on
  the real grades alone, where A and B are never outvoted) says Good;
- 6 gold items, 3 Good and 3 Bad: A and B always give the other label, C the accepted one.

Clamped to gold, C is right on every item whose truth is known and A and B wrong on every one,
so C's Bad is strong evidence (C has never said Bad on a Good item) while A's and B's Good is
nearly none (they said Good on 3 of the Bad items and Bad on 3 of the Good ones): the
contested items become Bad. Without the clamp the gold answers do not exist for the fit and
nothing tells A and B from C but the vote."""

from __future__ import annotations

import numpy as np
import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from annotate.models import Aggregation, Grade
from annotate.selectors import confusion
from annotate.services.aggregation import aggregate_qrels, qrels_stream
from annotate.services.campaigns import membership_set
from annotate.services.gold import gold_item_set
from metrics.core import aggregate as aggregate_kernel
from metrics.core.dawid_skene import dawid_skene
from metrics.selectors.disagreements import disagreements
from metrics.selectors.drilldown import query_drilldown
from tests.annotate.judgment_data import grade, pool_item

pytestmark = pytest.mark.django_db

DS = Aggregation.DAWID_SKENE


@pytest.fixture
def campaign_with_gold(personas):
    campaign = personas.campaign
    a = personas.rater
    b, c = (get_user_model().objects.create_user(username=name) for name in ("b", "c"))
    for user in (b, c):
        membership_set(campaign=campaign, user=user, role="rater")
    for n, truth in enumerate(["Good"] * 4 + ["Bad"] * 4):
        item = pool_item(campaign, "q1", f"agreed{n}")
        for rater in (a, b, c):
            grade(item, rater, truth)
    for n in range(4):
        item = pool_item(campaign, "q1", f"contested{n}")
        grade(item, a, "Good")
        grade(item, b, "Good")
        grade(item, c, "Bad")
    for n, truth in enumerate(["Good"] * 3 + ["Bad"] * 3):
        item = pool_item(campaign, "q2", f"gold{n}")
        wrong = "Bad" if truth == "Good" else "Good"
        grade(item, a, wrong)
        grade(item, b, wrong)
        grade(item, c, truth)
        gold_item_set(
            campaign=campaign,
            manager=personas.manager,
            item_id=item.pk,
            label_id=campaign.labels.get(name=truth).pk,
        )
    return campaign, (a, b, c)


def grades_by_document(table_or_lines) -> dict[str, float]:
    return {d: g for _, d, g, _ in table_or_lines}


def test_gold_makes_dawid_skene_distrust_the_raters_wrong_on_it(campaign_with_gold):
    campaign, _ = campaign_with_gold
    good = campaign.labels.get(name="Good").grade
    bad = campaign.labels.get(name="Bad").grade
    contested = [f"contested{n}" for n in range(4)]
    majority = grades_by_document(aggregate_qrels(campaign=campaign, rule="majority").rows())
    assert [majority[d] for d in contested] == [good] * 4
    # The same real grades fitted without gold (the kernel alone) side with A and B too.
    real = Grade.objects.filter(pool_item__campaign=campaign, gold=False)
    rows = np.array(real.values_list("pool_item_id", "rater_id", "label__grade"))
    items, unclamped, _ = aggregate_kernel.aggregate(rows[:, 0], rows[:, 2], DS, rater=rows[:, 1])
    contested_ids = set(
        real.filter(pool_item__document__external_id__in=contested).values_list(
            "pool_item_id", flat=True
        )
    )
    assert len(contested_ids) == 4
    assert [g for i, g in zip(items, unclamped, strict=True) if i in contested_ids] == [good] * 4

    table = aggregate_qrels(campaign=campaign, rule=DS)
    ds = grades_by_document(table.rows())
    assert [ds[d] for d in contested] == [bad] * 4
    assert grades_by_document(qrels_stream(campaign=campaign, rule=DS).rows()) == ds
    # The agreed items keep their label; the gold items' lines are their rulings (no answers).
    assert [ds[f"agreed{n}"] for n in range(8)] == [good] * 4 + [bad] * 4
    gold_lines = [(d, g, n) for _, d, g, n in table.rows() if d.startswith("gold")]
    assert gold_lines == [(f"gold{n}", good if n < 3 else bad, 0) for n in range(6)]


def test_the_page_shows_the_matrices_the_rule_used(campaign_with_gold, personas, monkeypatch):
    campaign, raters = campaign_with_gold
    fits: dict[str, list] = {"rule": [], "page": []}
    calling = ["rule"]

    def spy(*args, **kwargs):
        fit = dawid_skene(*args, **kwargs)
        fits[calling[0]].append(fit.confusion)
        return fit

    # Every place that fits Dawid–Skene, whichever the rule goes through.
    monkeypatch.setattr(confusion, "dawid_skene", spy)
    monkeypatch.setattr(aggregate_kernel, "dawid_skene", spy)
    aggregate_qrels(campaign=campaign, rule=DS)
    list(qrels_stream(campaign=campaign, rule=DS).lines())
    calling[0] = "page"
    client = Client()
    client.force_login(personas.manager)
    response = client.get(reverse("metrics:raters", kwargs={"slug": campaign.slug}))
    assert response.status_code == 200
    assert len(fits["rule"]) == 2 and len(fits["page"]) == 1
    shown = {
        row.rater_id: np.array([cells for _, cells in row.confusion])
        for row in response.context["rows"]
    }
    ids = sorted(rater.pk for rater in raters)
    assert set(shown) == set(ids)
    for used in fits["rule"]:
        for code, rater_id in enumerate(ids):
            assert np.array_equal(used[code].T, shown[rater_id]), rater_id
    # And the page prints them: C's row for a true Bad is all Bad.
    c = np.array(shown[raters[2].pk])
    assert c[0, 0] > 0.99


def test_the_disagreements_and_the_query_page_show_the_rules_labels(campaign_with_gold, personas):
    """Under dawid_skene both pages read the campaign's one fit (they used to fail: the kernel
    was given no raters)."""
    campaign, _ = campaign_with_gold
    bad = campaign.labels.get(name="Bad").grade
    qrels = grades_by_document(aggregate_qrels(campaign=campaign, rule=DS).rows())
    found = disagreements(campaign=campaign, rule=DS, limit=None)
    assert {row.document_external_id: row.aggregate for row in found.rows} == {
        f"contested{n}": bad for n in range(4)
    }
    q1 = campaign.queries.get(external_id="q1")
    drill = query_drilldown(campaign=campaign, query=q1, k=10, rule=DS, source=None, runs=[])
    labels = {row.external_id: row.label for row in drill.documents.values()}
    assert labels == {d: g for d, g in qrels.items() if d.startswith(("agreed", "contested"))}
    client = Client()
    client.force_login(personas.manager)
    slug = {"slug": campaign.slug}
    page = client.get(reverse("metrics:disagreements", kwargs=slug), {"aggregation": DS})
    assert page.status_code == 200
    page = client.get(
        reverse("metrics:query", kwargs={**slug, "query_id": q1.pk}), {"aggregation": DS}
    )
    assert page.status_code == 200
