"""The rater queue: leases, overlap, grades, changes, skips, expiry and refusals."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from annotate.judging.graded import (
    GradeRefused,
    grade_submit,
    item_skip,
    lease_release,
    queue_items,
)
from annotate.judging.progress import rater_progress
from annotate.models import Grade, GradeChange, Lease, PoolItem, Skip
from tests.annotate.queue_helpers import build_pool, make_raters, queue_setup


@pytest.fixture
def setup(personas):
    return queue_setup(personas.campaign, overlap=2, queries=3, docs_per_query=4, raters=3)


def test_a_rater_leases_the_open_items_of_one_query(setup):
    campaign, items, (r0, *_), *_ = setup
    held = queue_items(rater=r0, campaign=campaign)
    assert len(held) == 4
    assert len({item.query_id for item in held}) == 1
    assert Lease.objects.filter(rater=r0).count() == 4


def test_asking_again_returns_the_same_items_without_new_leases(setup):
    campaign, items, (r0, *_), *_ = setup
    first = queue_items(rater=r0, campaign=campaign)
    second = queue_items(rater=r0, campaign=campaign)
    assert [i.pk for i in first] == [i.pk for i in second]
    assert Lease.objects.filter(rater=r0).count() == 4


def test_documents_come_in_a_per_rater_order_not_the_pool_order(personas):
    campaign = personas.campaign
    campaign.overlap = 2
    campaign.save()
    build_pool(campaign, queries=1, docs_per_query=12)
    r0, r1 = make_raters(campaign, 2)
    order0 = [i.pk for i in queue_items(rater=r0, campaign=campaign)]
    order1 = [i.pk for i in queue_items(rater=r1, campaign=campaign)]
    assert sorted(order0) == sorted(order1)
    pool_order = sorted(order0)
    assert order0 != pool_order or order1 != pool_order
    assert order0 != order1


def test_no_item_is_leased_to_more_raters_than_it_needs(setup):
    campaign, items, (r0, r1, r2), *_ = setup
    q0 = {i.query_id for i in queue_items(rater=r0, campaign=campaign)}
    q1 = {i.query_id for i in queue_items(rater=r1, campaign=campaign)}
    q2 = {i.query_id for i in queue_items(rater=r2, campaign=campaign)}
    assert q0 == q1  # overlap 2: two raters share the first query
    assert q2 != q0  # the third rater gets the next query


def test_a_grade_is_stored_once_even_when_sent_twice(setup):
    campaign, items, (r0, *_), good, _ = setup
    item = queue_items(rater=r0, campaign=campaign)[0]
    first = grade_submit(rater=r0, campaign=campaign, item_id=item.pk, label_id=good.pk, seconds=4)
    again = grade_submit(rater=r0, campaign=campaign, item_id=item.pk, label_id=good.pk, seconds=4)
    assert first.created and not again.created and not again.changed
    assert Grade.objects.filter(pool_item=item, rater=r0).count() == 1
    assert not Lease.objects.filter(pool_item=item, rater=r0).exists()


def test_changing_a_grade_keeps_the_old_value_and_its_time(setup):
    campaign, items, (r0, *_), good, bad = setup
    item = queue_items(rater=r0, campaign=campaign)[0]
    grade = grade_submit(rater=r0, campaign=campaign, item_id=item.pk, label_id=good.pk).grade
    given_at = grade.changed_at
    # A page that had not shown the stored grade (a second tab) is refused: a conflict.
    with pytest.raises(GradeRefused) as refused:
        grade_submit(rater=r0, campaign=campaign, item_id=item.pk, label_id=bad.pk)
    assert refused.value.status == 409
    assert refused.value.details["conflict"] == {
        "stored": {"label": good.pk, "cant_judge": False},
        "replaces": f"label:{good.pk}",
    }
    outcome = grade_submit(
        rater=r0, campaign=campaign, item_id=item.pk, label_id=bad.pk, replaces=f"label:{good.pk}"
    )
    assert outcome.changed
    grade.refresh_from_db()
    assert grade.label == bad
    change = GradeChange.objects.get(grade=grade)
    assert (change.label, change.given_at) == (good, given_at)


def test_cant_judge_does_not_count_toward_the_overlap(setup):
    campaign, items, (r0, r1, r2), good, _ = setup
    held = queue_items(rater=r0, campaign=campaign)
    queue_items(rater=r1, campaign=campaign)
    target = held[0]
    grade_submit(rater=r0, campaign=campaign, item_id=target.pk, cant_judge=True, comment="404")
    grade = Grade.objects.get(pool_item=target, rater=r0)
    assert grade.cant_judge and grade.label is None and grade.comment == "404"
    # r2 can now take the slot r0 freed: r2's queue is r0's query's freed item first? It gets a
    # query with open items; the freed item is open to r2.
    from annotate.judging.graded import open_items

    assert open_items(campaign=campaign, rater=r2, now=timezone.now()).filter(pk=target.pk).exists()


def test_a_skipped_item_is_not_offered_again(setup):
    campaign, items, (r0, *_), good, _ = setup
    held = queue_items(rater=r0, campaign=campaign)
    item_skip(rater=r0, campaign=campaign, item_id=held[0].pk)
    assert Skip.objects.filter(rater=r0, pool_item=held[0]).exists()
    for item in held[1:]:
        grade_submit(rater=r0, campaign=campaign, item_id=item.pk, label_id=good.pk)
    offered = {i.pk for i in queue_items(rater=r0, campaign=campaign)}
    assert held[0].pk not in offered
    assert offered  # the next query


def test_a_rater_never_gets_an_item_twice(setup):
    campaign, items, (r0, *_), good, _ = setup
    seen: list[int] = []
    while batch := queue_items(rater=r0, campaign=campaign):
        for item in batch:
            seen.append(item.pk)
            grade_submit(rater=r0, campaign=campaign, item_id=item.pk, label_id=good.pk)
    assert sorted(seen) == sorted(i.pk for i in items)


def test_a_late_grade_is_stored_when_the_item_still_needs_it(setup):
    campaign, items, (r0, *_), good, _ = setup
    item = queue_items(rater=r0, campaign=campaign)[0]
    Lease.objects.filter(rater=r0).update(expires_at=timezone.now() - timedelta(minutes=1))
    outcome = grade_submit(rater=r0, campaign=campaign, item_id=item.pk, label_id=good.pk)
    assert outcome.created


def test_a_late_grade_is_refused_when_others_filled_the_item(setup):
    campaign, items, (r0, r1, r2), good, _ = setup
    item = queue_items(rater=r0, campaign=campaign)[0]
    Lease.objects.filter(rater=r0).update(expires_at=timezone.now() - timedelta(minutes=1))
    for other in (r1, r2):
        held = queue_items(rater=other, campaign=campaign)
        assert item.pk in {i.pk for i in held}
        grade_submit(rater=other, campaign=campaign, item_id=item.pk, label_id=good.pk)
    with pytest.raises(GradeRefused) as refused:
        grade_submit(rater=r0, campaign=campaign, item_id=item.pk, label_id=good.pk)
    assert refused.value.status == 409
    assert Grade.objects.filter(pool_item=item, cant_judge=False).count() == 2


@pytest.mark.parametrize("case", ["unassigned", "other_campaign", "foreign_label", "no_label"])
def test_bad_grades_are_refused_and_change_nothing(setup, personas, case):
    campaign, items, (r0, r1, _), good, _ = setup
    held = queue_items(rater=r0, campaign=campaign)
    kwargs = {"rater": r0, "campaign": campaign, "item_id": held[0].pk, "label_id": good.pk}
    if case == "unassigned":
        other_query_item = next(i for i in items if i.query_id != held[0].query_id)
        kwargs["item_id"] = other_query_item.pk
    elif case == "other_campaign":
        foreign = build_pool(personas.other_campaign, queries=1, docs_per_query=1)[0]
        kwargs["item_id"] = foreign.pk
    elif case == "foreign_label":
        kwargs["label_id"] = personas.other_campaign.labels.get(name="Good").pk
    else:
        kwargs["label_id"] = None
    with pytest.raises(GradeRefused) as refused:
        grade_submit(**kwargs)
    assert 400 <= refused.value.status < 500
    assert Grade.objects.count() == 0


def test_only_raters_of_the_campaign_may_grade(setup, personas):
    campaign, items, *_ = setup
    for outsider in (personas.manager, personas.other_rater, personas.outsider):
        with pytest.raises(GradeRefused) as refused:
            queue_items(rater=outsider, campaign=campaign)
        assert refused.value.status == 403


def test_a_manager_can_release_leases(setup):
    campaign, items, (r0, r1, r2), *_ = setup
    queue_items(rater=r0, campaign=campaign)
    assert lease_release(campaign=campaign, rater=r0) == 4
    assert not Lease.objects.filter(rater=r0).exists()


def test_progress_counts_done_and_left(setup):
    campaign, items, (r0, *_), good, _ = setup
    held = queue_items(rater=r0, campaign=campaign)
    grade_submit(rater=r0, campaign=campaign, item_id=held[0].pk, label_id=good.pk)
    grade_submit(rater=r0, campaign=campaign, item_id=held[1].pk, cant_judge=True)
    item_skip(rater=r0, campaign=campaign, item_id=held[2].pk)
    progress = rater_progress(rater=r0, campaign=campaign)
    assert progress == {
        "done": 3,
        "graded": 1,
        "cant_judge": 1,
        "skipped": 1,
        "left": 9,
        "assigned": 12,
    }
    assert PoolItem.objects.filter(campaign=campaign).count() == 12


def test_a_grade_does_not_revive_the_raters_expired_leases(setup):
    """Working on a query renews the rater's live leases of it, not expired ones: an expired
    lease's item may have gone to others since (overlap 2 here, both slots taken)."""
    campaign, items, (r0, r1, r2), good, _ = setup
    x, y = queue_items(rater=r0, campaign=campaign)[:2]
    Lease.objects.filter(rater=r0, pool_item=x).update(
        expires_at=timezone.now() - timedelta(minutes=1)
    )
    for other in (r1, r2):
        Lease.objects.create(
            pool_item=x, rater=other, expires_at=timezone.now() + timedelta(minutes=10)
        )
    grade_submit(rater=r0, campaign=campaign, item_id=y.pk, label_id=good.pk)
    assert Lease.objects.get(rater=r0, pool_item=x).expires_at <= timezone.now()
    assert x.pk not in {i.pk for i in queue_items(rater=r0, campaign=campaign)}
