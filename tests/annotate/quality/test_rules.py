"""The automatic rules (#18), evaluated after answers are stored: every EVERY-th answer on the
graded path (a modulo, nothing more), after each mirrored answer on the side-by-side path.
Many fast answers flag a rater for review without pausing; the rules are a list a gold rule
joins; the manager's resume holds until the rule has enough new evidence."""

from __future__ import annotations

import pytest

from annotate.judging.graded import grade_submit, queue_items
from annotate.models import Membership, QualityEvent
from annotate.selectors.quality import RaterQuality
from annotate.services import quality
from annotate.services.quality_rules import PAUSE, RULES, Finding, findings, reason_text
from metrics.core.stats.rater_quality import wilson
from tests.annotate.queue_helpers import queue_setup

pytestmark = pytest.mark.django_db


def grade_everything(campaign, rater, label, seconds: float) -> int:
    n = 0
    while items := queue_items(rater=rater, campaign=campaign):
        for item in items:
            grade_submit(
                rater=rater, campaign=campaign, item_id=item.pk, label_id=label.pk, seconds=seconds
            )
            n += 1
    return n


def test_fast_answers_flag_for_review_without_pausing(personas):
    campaign, _, (fast, slow), good, _ = queue_setup(
        personas.campaign, overlap=2, queries=10, docs_per_query=5, raters=2
    )
    assert grade_everything(campaign, fast, good, seconds=0.4) == 50
    assert grade_everything(campaign, slow, good, seconds=8.0) == 50
    flagged = Membership.objects.get(campaign=campaign, user=fast)
    assert flagged.paused_at is None  # a flag, not a pause
    assert flagged.review_reason["rule"] == "fast"
    assert flagged.review_reason["k"] == flagged.review_reason["n"]
    assert "faster than 2 s" in reason_text(flagged.review_reason)
    assert not Membership.objects.get(campaign=campaign, user=slow).review_reason
    assert list(QualityEvent.objects.values_list("action", flat=True)) == ["flag"]


def test_rules_run_only_every_nth_answer():
    assert [n for n in range(1, 101) if quality.due(n)] == [20, 40, 60, 80, 100]


def test_a_new_rule_plugs_into_the_list(personas, monkeypatch):
    """The seam for the gold-accuracy rules: a function appended to RULES is evaluated and its
    pausing finding pauses, with its reason recorded."""
    campaign = personas.campaign

    def gold(campaign, figures: RaterQuality):
        return Finding(rule="gold", action=PAUSE, figures={"k": 1, "n": 10})

    monkeypatch.setattr("annotate.services.quality_rules.RULES", [*RULES, gold])
    assert [f.rule for f in findings(campaign, RaterQuality(rater_id=1, username=""))] == ["gold"]
    found = quality.rules_apply(campaign=campaign, rater=personas.rater)
    assert [f.rule for f in found] == ["gold"]
    membership = Membership.objects.get(campaign=campaign, user=personas.rater)
    assert membership.pause_reason == {"rule": "gold", "k": 1, "n": 10}


def _figures(**gold) -> RaterQuality:
    return RaterQuality(rater_id=1, username="", **gold)


def test_the_gold_rules_pause_below_their_floors_once_enough_answers_are_in(personas):
    campaign = personas.campaign  # the defaults: 10 answers; 70% / 40%; 60%
    rules = lambda figures: [f.rule for f in findings(campaign, figures)]  # noqa: E731
    assert rules(_figures(gold_exact=wilson(5, 12), gold_within=wilson(8, 12))) == ["gold_within"]
    assert rules(_figures(gold_exact=wilson(4, 12), gold_within=wilson(9, 12))) == ["gold_exact"]
    assert rules(_figures(gold_exact=wilson(5, 12), gold_within=wilson(9, 12))) == []
    assert rules(_figures(gold_exact=wilson(0, 9), gold_within=wilson(0, 9))) == []  # too few
    assert rules(_figures(sxs_gold=wilson(5, 10))) == ["gold_sxs"]
    assert rules(_figures(sxs_gold=wilson(6, 10))) == []
    campaign.min_gold_within = 0  # a floor of 0 never pauses
    assert rules(_figures(gold_exact=wilson(5, 12), gold_within=wilson(8, 12))) == []


def test_a_rater_missing_graded_gold_is_paused_and_told_why(personas, monkeypatch):
    from datetime import timedelta

    from django.utils import timezone

    from annotate.models import Lease
    from annotate.services.gold import gold_item_set

    campaign, items, (rater, _other), _good, _bad = queue_setup(
        personas.campaign, overlap=1, queries=3, docs_per_query=4, raters=2
    )
    bad, _fair, good = campaign.labels.order_by("grade")
    # The rules run on every 20th answer id: which of these answers that is depends on the
    # tests before. Here they run once, after the last answer.
    monkeypatch.setattr(quality, "due", lambda answer_id: False)
    for item in items:  # twelve gold items whose answer is Good; the rater says Bad to each
        gold_item_set(campaign=campaign, manager=None, item_id=item.pk, label_id=good.pk)
        Lease.objects.create(
            pool_item=item, rater=rater, expires_at=timezone.now() + timedelta(minutes=5)
        )
        grade_submit(rater=rater, campaign=campaign, item_id=item.pk, label_id=bad.pk)
    found = quality.rules_apply(campaign=campaign, rater=rater)
    assert [f.rule for f in found] == ["gold_within"]
    membership = Membership.objects.get(campaign=campaign, user=rater)
    assert membership.paused_at is not None
    assert membership.pause_reason == {"rule": "gold_within", "k": 0, "n": 12, "threshold": 0.7}
    assert reason_text(membership.pause_reason) == (
        "Graded gold within one grade: 0 of 12 right (0%), below 70%."
    )
    assert Lease.objects.filter(rater=rater).count() == 0  # what they held is free again


def test_the_raters_page_csv_and_api_show_accuracy_on_gold(personas):
    import csv
    import io

    from django.urls import reverse

    from tests.annotate.gold.test_gold_accuracy import (
        test_graded_accuracy_counts_exact_and_within_one_grade,
    )

    test_graded_accuracy_counts_exact_and_within_one_grade(personas)  # 6 and 10 of 12 right
    campaign = personas.campaign
    from annotate.selectors.gold import graded_gold_accuracy

    (name,) = [a.username for a in graded_gold_accuracy(campaign=campaign) if a.answers == 12]
    client = personas.client_for("manager")
    url = reverse("metrics:raters", kwargs={"slug": campaign.slug})
    page = client.get(url)
    row = page.content.decode().split(f'data-rater="{name}"')[1].split("data-rater=")[0]
    assert "(6/12;" in row.split('data-testid="gold-exact"')[1].split("</td>")[0]
    assert "(10/12;" in row.split('data-testid="gold-within"')[1].split("</td>")[0]
    download = client.get(url + "?download=csv")
    lines = [x for x in download.content.decode().lstrip("\ufeff").splitlines() if x[:1] != "#"]
    table = {r["rater"]: r for r in csv.DictReader(io.StringIO("\n".join(lines)))}
    assert (table[name]["gold_k"], table[name]["gold_n"], table[name]["gold_within_k"]) == (
        "6",
        "12",
        "10",
    )
