"""The grade request's database work: how many round trips a steady-state grade costs, that
membership is asked once, that leases are renewed only when due, and the rare paths of the
one-statement item lock (a double submit racing itself, an item filled under a live lease)."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from annotate.judging import answers, handles
from annotate.judging.graded import GradeRefused, grade_submit, queue_items
from annotate.models import Grade, Lease, PoolItem
from annotate.selectors_judge import campaign_rated_by

# session, user, campaign and membership, BEGIN, lock the item (with the rater's grade, lease
# and the label), INSERT the grade, DELETE the lease, COMMIT, the held items for the answer.
# It was 16 before the lock read everything at once and membership was asked once.
STEADY_STATE_ROUND_TRIPS = 9


@pytest.fixture(autouse=True)
def _no_rule_check(monkeypatch):
    """The counts here are of an answer that does not run the quality rules. Every 20th answer
    by id also reads the rater's figures (annotate/services/quality.py `due`); which answer
    that is depends on the ids earlier tests used, so a count taken on one failed about one run
    in twenty. The rules' own queries: tests/annotate/quality/test_quality_queries.py."""
    from annotate.services import quality

    monkeypatch.setattr(quality, "due", lambda answer_id: False)


@pytest.fixture
def held(personas):
    from tests.annotate.queue_helpers import build_pool

    build_pool(personas.campaign, queries=3, docs_per_query=6)
    client = personas.client_for("rater")
    url = reverse("annotate:judge_api_queue", kwargs={"slug": personas.campaign.slug})
    items = [item["id"] for item in client.get(url).json()["items"]]
    return client, items


def item_id(personas, handle: str) -> int:
    """The pool item a handle from the queue's JSON names (the services take ids)."""
    return handles.task_id_for(personas.rater.pk, handles.GRADED, handle)


def post_grade(personas, client, item_id: int, label: int | None = None):
    url = reverse("annotate:judge_api", kwargs={"slug": personas.campaign.slug})
    label = label or personas.campaign.labels.get(name="Good").pk
    body = {"item": item_id, "action": "label", "label": label, "seconds": 3}
    return client.post(url, json.dumps(body), content_type="application/json")


def test_a_steady_state_grade_takes_nine_round_trips_and_asks_membership_once(personas, held):
    client, items = held
    label = personas.campaign.labels.get(name="Good").pk
    assert post_grade(personas, client, items[0], label).json()["result"] == "created"
    with CaptureQueriesContext(connection) as captured:
        answer = post_grade(personas, client, items[1], label)
    assert answer.status_code == 200 and answer.json()["result"] == "created"
    sql = [query["sql"] for query in captured.captured_queries]
    assert len(sql) <= STEADY_STATE_ROUND_TRIPS, "\n".join(sql)
    assert any("LEFT JOIN annotate_grade" in statement for statement in sql)  # the lock
    assert sum("annotate_membership" in statement for statement in sql) == 1
    assert not any(statement.lstrip().startswith("UPDATE") for statement in sql)  # no renewal


def test_a_grade_renews_the_querys_leases_only_when_they_run_low(personas, held):
    client, items = held
    soon = timezone.now() + timedelta(minutes=2)
    Lease.objects.filter(rater=personas.rater).update(expires_at=soon)
    post_grade(personas, client, items[0])
    renewed = Lease.objects.filter(rater=personas.rater).values_list("expires_at", flat=True)
    lease = timedelta(minutes=personas.campaign.lease_minutes)
    assert renewed and all(at > timezone.now() + lease - timedelta(minutes=1) for at in renewed)


def test_a_campaign_checked_for_one_rater_does_not_let_another_in(personas):
    campaign = campaign_rated_by(personas.rater, personas.campaign.slug)
    for intruder in (personas.outsider, personas.manager, personas.other_rater):
        with pytest.raises(GradeRefused) as refused:
            queue_items(rater=intruder, campaign=campaign)
        assert refused.value.status == 403


@pytest.mark.parametrize("overlap", [1, 2])
def test_a_double_submit_that_raced_past_the_lock_read_stores_one_grade(
    personas, held, monkeypatch, overlap
):
    """Under READ COMMITTED the lock statement's joins can miss a grade the same rater's other
    request committed while this one waited for the lock; the insert must then give way
    (overlap 2), or the item looks full with the rater's own grade (overlap 1): either way the
    answer is a resend's."""
    client, items = held
    campaign, rater = personas.campaign, personas.rater
    campaign.overlap = overlap
    campaign.save()
    good = campaign.labels.get(name="Good").pk
    grade_submit(rater=rater, campaign=campaign, item_id=item_id(personas, items[0]), label_id=good)
    lock = answers.lock_for_answer

    def stale(*args, **kwargs):
        locked = lock(*args, **kwargs)
        return replace(locked, answer_id=None, lease_id=1, lease_expired=False)

    monkeypatch.setattr(answers, "lock_for_answer", stale)
    outcome = grade_submit(
        rater=rater, campaign=campaign, item_id=item_id(personas, items[0]), label_id=good
    )
    assert not outcome.created and not outcome.changed
    assert Grade.objects.filter(pool_item_id=item_id(personas, items[0]), rater=rater).count() == 1
    assert PoolItem.objects.get(pk=item_id(personas, items[0])).counted == 1


def test_an_item_filled_while_leased_refuses_another_counted_grade(personas, held):
    """A manager lowered the overlap after the lease was given: the row's count decides."""
    client, items = held
    campaign = personas.campaign
    campaign.overlap = 1
    campaign.save()
    from tests.annotate.queue_helpers import make_raters

    (other,) = make_raters(campaign, 1, prefix="late")
    Grade.objects.create(
        pool_item_id=item_id(personas, items[0]), rater=other, label=campaign.labels.first()
    )
    answer = post_grade(personas, client, items[0])
    assert answer.status_code == 409
    assert PoolItem.objects.get(pk=item_id(personas, items[0])).counted == 1
    assert not Grade.objects.filter(
        pool_item_id=item_id(personas, items[0]), rater=personas.rater
    ).exists()


@pytest.mark.parametrize("item", [0, -3, 2**63, 10**30, "x"])
def test_ids_no_row_can_have_are_refused_not_an_error(personas, held, item):
    good = personas.campaign.labels.get(name="Good").pk
    with pytest.raises(GradeRefused) as refused:
        grade_submit(rater=personas.rater, campaign=personas.campaign, item_id=item, label_id=good)
    assert refused.value.status == 404
    _, items = held
    with pytest.raises(GradeRefused) as refused:
        grade_submit(
            rater=personas.rater,
            campaign=personas.campaign,
            item_id=item_id(personas, items[0]),
            label_id=item,
        )
    assert refused.value.status == 400


# The steady state's nine, then finding the next open query, reading its open items, locking
# them (BEGIN, COMMIT or a savepoint), other raters' leases on them and one upsert of the leases.
LEASE_AHEAD_ROUND_TRIPS = 16


def test_a_grade_that_leases_the_next_query_stays_bounded(personas, held):
    client, items = held
    label = personas.campaign.labels.get(name="Good").pk
    for item in items[:4]:
        assert post_grade(personas, client, item, label).json()["result"] == "created"
    with CaptureQueriesContext(connection) as captured:
        answer = post_grade(personas, client, items[4], label).json()
    assert answer["result"] == "created"
    assert len({item["id"] for item in answer["items"]}) == 7  # the last one and the next query
    sql = [query["sql"] for query in captured.captured_queries]
    assert len(sql) <= LEASE_AHEAD_ROUND_TRIPS, "\n".join(sql)


def test_the_queues_items_read_like_the_orms_every_field_loaded_or_deferred(personas, held):
    """The queue builds its items from raw rows (judging.open.loaded); a field it did not
    read is fetched on access, so no caller ever sees a default instead of the stored value."""
    PoolItem.objects.update(raters_needed=2, origin=PoolItem.Origin.MANUAL)
    for item in queue_items(rater=personas.rater, campaign=personas.campaign):
        stored = PoolItem.objects.select_related("query", "document").get(pk=item.pk)
        for model_item, orm_item in ((item, stored), (item.query, stored.query)):
            for field in model_item._meta.concrete_fields:
                assert getattr(model_item, field.attname) == getattr(orm_item, field.attname)
        for field in item.document._meta.concrete_fields:
            assert getattr(item.document, field.attname) == getattr(stored.document, field.attname)
        assert item.campaign == personas.campaign and item.needed == 2
        assert not item._state.adding and item == stored
