"""PoolItem.leased and first_lease_end, kept by triggers on annotate_lease, after every kind of
lease write; the open-item rule that reads them gives the same items as counting live leases.
(A manager releasing leases while their rater answers, for both kinds of task: in
test_judging_counters.py.)"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db import connection, connections, transaction
from django.db.models import Count, Min, Q
from django.utils import timezone

from annotate.judging.graded import grade_submit, item_skip, lease_release, open_items, queue_items
from annotate.models import Grade, Lease, PoolItem, Skip
from tests.annotate.queue_helpers import build_pool, make_raters, queue_setup


def assert_held_exact(*, renewed: bool = False) -> None:
    """`leased` is the number of lease rows; `first_lease_end` is their earliest end, or at or
    before it once a renewal pushed an end later (the triggers leave it then)."""
    truth = PoolItem.objects.annotate(n=Count("leases"), first=Min("leases__expires_at"))
    wrong = []
    for item in truth:
        end_ok = (
            item.first_lease_end is not None and item.first_lease_end <= item.first
            if renewed and item.n
            else item.first_lease_end == item.first
        )
        if item.leased != item.n or not end_ok:
            wrong.append((item.pk, item.n, item.leased, item.first, item.first_lease_end))
    assert not wrong, f"(item, leases, leased, first end, first_lease_end): {wrong}"


def in_threads(*work: Callable[[], None]) -> list[BaseException]:
    """Run each function in a thread of its own (each with its own connection) and return
    what they raised."""
    errors: list[BaseException] = []

    def run(function: Callable[[], None]) -> None:
        try:
            function()
        except BaseException as exc:  # returned to the test, which asserts on it
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(function,)) for function in work]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    return errors


@pytest.fixture
def setup(personas):
    return queue_setup(personas.campaign, overlap=2, queries=3, docs_per_query=4, raters=4)


def test_leasing_grading_skipping_and_releasing(setup):
    campaign, items, raters, good, _ = setup
    held = {rater.pk: queue_items(rater=rater, campaign=campaign) for rater in raters}
    assert PoolItem.objects.filter(leased__gt=0).exists()
    assert_held_exact()
    first, second = raters[0], raters[1]
    grade_submit(rater=first, campaign=campaign, item_id=held[first.pk][0].pk, label_id=good.pk)
    item_skip(rater=first, campaign=campaign, item_id=held[first.pk][1].pk)
    assert_held_exact()
    assert lease_release(campaign=campaign, rater=second) > 0
    assert_held_exact()
    assert lease_release(campaign=campaign, query_id=held[raters[2].pk][0].query_id) > 0
    assert_held_exact()
    assert lease_release(campaign=campaign) > 0
    assert not PoolItem.objects.filter(Q(leased__gt=0) | Q(first_lease_end__isnull=False))


def test_an_end_moved_earlier_is_written_through_and_a_renewal_leaves_a_lower_bound(setup):
    campaign, items, raters, good, _ = setup
    rater = raters[0]
    held = queue_items(rater=rater, campaign=campaign)
    past = timezone.now() - timedelta(minutes=5)
    Lease.objects.filter(rater=rater, pool_item=held[0]).update(expires_at=past)
    assert PoolItem.objects.get(pk=held[0].pk).first_lease_end == past
    assert_held_exact()
    # Renewal pushes every end later; the counters keep their earlier (still safe) time.
    later = timezone.now() + timedelta(hours=1)
    Lease.objects.filter(rater=rater).update(expires_at=later)
    assert PoolItem.objects.get(pk=held[0].pk).first_lease_end == past
    assert_held_exact(renewed=True)


def test_retaking_an_expired_lease_and_a_lease_moved_to_another_item(setup):
    campaign, items, raters, good, _ = setup
    rater = raters[0]
    held = queue_items(rater=rater, campaign=campaign)
    Lease.objects.filter(rater=rater).update(expires_at=timezone.now() - timedelta(minutes=1))
    again = queue_items(rater=rater, campaign=campaign)  # the upsert retakes expired rows
    assert {item.pk for item in again} == {item.pk for item in held}
    assert Lease.objects.filter(rater=rater).count() == len(held)
    assert_held_exact(renewed=True)
    other = next(item for item in items if item.query_id != held[0].query_id)
    Lease.objects.filter(rater=rater, pool_item=held[0]).update(pool_item=other)
    assert_held_exact(renewed=True)
    assert PoolItem.objects.get(pk=other.pk).leased == 1


def test_deleting_a_rater_or_an_item_cascades_into_the_counters(setup):
    campaign, items, raters, good, _ = setup
    for rater in raters:
        queue_items(rater=rater, campaign=campaign)
    get_user_model().objects.filter(pk=raters[0].pk).delete()
    assert_held_exact()
    leased = Lease.objects.values_list("pool_item_id", flat=True).first()
    Grade.objects.filter(pool_item_id=leased).delete()
    PoolItem.objects.filter(pk=leased).delete()
    assert_held_exact()


def _open_by_counting(campaign, rater, now) -> set[int]:
    """The open-item rule the straightforward way: count grades and live leases in Python."""
    open_ids = set()
    for item in PoolItem.objects.filter(campaign=campaign):
        grades = Grade.objects.filter(pool_item=item)
        live = Lease.objects.filter(pool_item=item, expires_at__gt=now)
        counted = grades.filter(cant_judge=False).count()
        needed = item.raters_needed or campaign.overlap
        if (
            counted < needed
            and counted + live.count() < needed
            and not grades.filter(rater=rater).exists()
            and not Skip.objects.filter(pool_item=item, rater=rater).exists()
            and not live.filter(rater=rater).exists()
        ):
            open_ids.add(item.pk)
    return open_ids


@pytest.mark.parametrize("seed", range(6))
def test_the_open_rule_on_the_counters_equals_counting_live_leases(personas, seed):
    rng = random.Random(seed)
    campaign = personas.campaign
    campaign.overlap = 2
    campaign.save()
    items = build_pool(campaign, queries=4, docs_per_query=5)
    raters = make_raters(campaign, 5)
    good = campaign.labels.get(name="Good")
    now = timezone.now()
    for item in items:
        if rng.random() < 0.2:
            PoolItem.objects.filter(pk=item.pk).update(raters_needed=rng.choice([1, 3]))
        for rater in rng.sample(raters, rng.randint(0, 3)):
            kind = rng.random()
            if kind < 0.3:
                cant = rng.random() < 0.2
                Grade.objects.create(
                    pool_item=item, rater=rater, label=None if cant else good, cant_judge=cant
                )
            elif kind < 0.4:
                Skip.objects.create(pool_item=item, rater=rater)
            else:
                ends = now + timedelta(minutes=rng.choice([-30, -1, 1, 30]))
                Lease.objects.create(pool_item=item, rater=rater, expires_at=ends)
    # Some renewals, which leave first_lease_end below the true first end.
    for lease in Lease.objects.filter(expires_at__gt=now):
        if rng.random() < 0.3:
            Lease.objects.filter(pk=lease.pk).update(expires_at=now + timedelta(hours=1))
    assert_held_exact(renewed=True)
    for rater in raters:
        found = set(
            open_items(campaign=campaign, rater=rater, now=now).values_list("pk", flat=True)
        )
        assert found == _open_by_counting(campaign, rater, now), rater.username


def test_counted_check_finds_and_mends_wrong_lease_counters(setup):
    from io import StringIO

    from django.core.management import call_command
    from django.core.management.base import CommandError

    campaign, items, raters, good, _ = setup
    held = queue_items(rater=raters[0], campaign=campaign)
    PoolItem.objects.filter(pk=held[0].pk).update(leased=0)
    tomorrow = timezone.now() + timedelta(days=1)
    PoolItem.objects.filter(pk=held[1].pk).update(first_lease_end=tomorrow)  # after the end
    PoolItem.objects.filter(pk=items[-1].pk).update(first_lease_end=timezone.now())  # no lease
    with pytest.raises(CommandError):
        call_command("counted_check", stdout=(out := StringIO()))
    report = out.getvalue()
    assert "3 items whose counters differ" in report
    assert f"item {held[0].pk}: counted 0 for 0 grades, leased 0 for 1 leases" in report
    call_command("counted_check", "--fix", stdout=StringIO())
    assert_held_exact()


def test_renewal_never_moves_an_end_earlier(setup):
    """A manager shortened the campaign's leases after a look-ahead lease was taken: renewing
    the due lease must not cut the longer one short (nor make the triggers lock items)."""
    campaign, items, raters, good, _ = setup
    rater = raters[0]
    held = queue_items(rater=rater, campaign=campaign)
    now = timezone.now()
    due, long = held[0], held[1]
    Lease.objects.filter(rater=rater, pool_item=due).update(expires_at=now + timedelta(seconds=5))
    far = now + timedelta(hours=2)
    Lease.objects.filter(rater=rater, pool_item=long).update(expires_at=far)
    queue_items(rater=rater, campaign=campaign)
    ends = dict(Lease.objects.filter(rater=rater).values_list("pool_item_id", "expires_at"))
    assert ends[due.pk] > now + timedelta(minutes=campaign.lease_minutes - 1)  # renewed
    assert ends[long.pk] == far  # not shortened
    assert_held_exact(renewed=True)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_lease_deleted_while_another_is_taken_on_the_item_keeps_the_first_end(personas):
    """A cascade deletes a lease (no item lock first) while a rater leases the same item: the
    delete's recount must see the new lease, not leave first_lease_end empty beside it."""
    assert connection.vendor == "postgresql"
    campaign, items, raters, good, _ = queue_setup(
        personas.campaign, overlap=3, queries=1, docs_per_query=1, raters=2
    )
    item = items[0]
    first, second = raters
    Lease.objects.create(pool_item=item, rater=first, expires_at=timezone.now() + timedelta(1))
    holding = threading.Event()

    def lease() -> None:
        with transaction.atomic():
            PoolItem.objects.select_for_update().get(pk=item.pk)  # as _lease_query does
            ends = timezone.now() + timedelta(minutes=15)
            Lease.objects.create(pool_item=item, rater=second, expires_at=ends)
            holding.set()
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_sleep(0.5)")  # the delete starts meanwhile

    def delete() -> None:
        holding.wait(timeout=10)
        Lease.objects.filter(rater=first).delete()

    errors = in_threads(lease, delete)
    assert not errors, errors
    assert Lease.objects.count() == 1
    assert_held_exact()
