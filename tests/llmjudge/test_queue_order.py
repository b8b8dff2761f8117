"""The raters' queue ordered by a model judge's doubts: the queries where the model gave no
usable label, or disagrees with the first rater, are leased first; the manager sees what the
raters said on them; and the order can be undone."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotate.judging.graded import grade_submit, queue_items
from annotate.models import Grade, LabelSource, Query, SourceKind, SourceLabel
from llmjudge.queue_order import model_doubts, queue_order_by_doubt, queue_order_reset
from tests.annotate.queue_helpers import make_raters
from tests.llmjudge.helpers import make_items, make_judge

pytestmark = pytest.mark.django_db(databases=["default", "jobs"])


@pytest.fixture
def setup(personas):
    c = personas.campaign
    c.overlap = 2
    c.save()
    items = make_items(c, {(f"q{q}", f"d{q}-{d}"): "" for q in range(6) for d in range(2)})
    judge = make_judge(c, "http://127.0.0.1:9/v1")
    source = LabelSource.objects.create(campaign=c, name=judge.source_name, kind=SourceKind.MODEL)
    good = c.labels.get(name="Good")
    # The model labels every item Good but q4's second document (no usable answer).
    for item in items:
        if (item.query.external_id, item.document.external_id) != ("q4", "d4-1"):
            SourceLabel.objects.create(
                source=source, query=item.query, document=item.document, grade=good.grade
            )
    return c, items, judge


def test_doubted_queries_are_leased_first_and_the_order_can_be_undone(setup):
    c, items, judge = setup
    first, later = make_raters(c, 2)
    good, bad = c.labels.get(name="Good"), c.labels.get(name="Bad")
    # The first rater agrees with the model (Good) but on q3, which they grade Bad: two grades
    # off the model's Good.
    while held := queue_items(rater=first, campaign=c):
        for item in held:
            label = bad if item.query.external_id == "q3" else good
            grade_submit(rater=first, campaign=c, item_id=item.pk, label_id=label.pk)
    doubted = {d.query for d in model_doubts(judge)}
    assert doubted == {"q3", "q4"}
    assert queue_order_by_doubt(judge) == len(doubted)
    c.refresh_from_db()  # as the next request loads it
    assert c.prioritized_queries == 2
    held = queue_items(rater=later, campaign=c)
    # The doubted query with the most doubts (q3: both items) comes first.
    assert {item.query.external_id for item in held} == {"q3"}
    assert Query.objects.get(campaign=c, external_id="q3").priority == 2
    queue_order_reset(c)
    assert not Query.objects.filter(campaign=c, priority__gt=0).exists()
    c.refresh_from_db()
    assert c.prioritized_queries == 0


def test_the_manager_orders_the_queue_and_sees_what_raters_said(setup, personas):
    c, items, judge = setup
    url = reverse("llmjudge:judge", args=[c.slug, judge.name])
    client = personas.client_for("manager")
    assert client.post(url, {"action": "order"}).status_code == 302
    assert Query.objects.get(campaign=c, external_id="q4").priority == 1
    page = client.get(url).content.decode()
    assert 'data-testid="doubts"' in page and "d4-1" in page and "no answer" in page
    for who in ("rater", "other_manager", "outsider"):
        assert personas.client_for(who).post(url, {"action": "order"}).status_code == 404
    client.post(url, {"action": "unorder"})
    assert not Query.objects.filter(campaign=c, priority__gt=0).exists()
    assert Grade.objects.count() == 0


def test_an_excluded_raters_grades_raise_no_doubt(setup, personas):
    from annotate.services.quality import answers_exclude

    c, items, judge = setup
    (rater,) = make_raters(c, 1)
    bad = c.labels.get(name="Bad")
    for item in items:
        if item.query.external_id == "q3":  # two grades off the model's Good
            Grade.objects.create(pool_item=item, rater=rater, label=bad)
    assert {d.query for d in model_doubts(judge)} == {"q3", "q4"}
    answers_exclude(campaign=c, rater=rater, by=personas.manager)
    assert {d.query for d in model_doubts(judge)} == {"q4"}
    assert queue_order_by_doubt(judge) == 1
