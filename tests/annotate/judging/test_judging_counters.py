"""Side-by-side tasks count as pool items do: SxsTask.counted, leased and first_lease_end,
kept by the same triggers, after every kind of write; counted_check covers them; and the
shared mechanism's releases take the task before the lease for both kinds (PostgreSQL; moved
here from test_lease_counters.py, which keeps the graded items' counter tests)."""

from __future__ import annotations

import threading
from datetime import timedelta
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection, transaction
from django.db.models import Count, Min, Q
from django.utils import timezone

from annotate.judging.graded import lease_release, queue_items
from annotate.judging.sxs import sxs_lease_release, sxs_queue, verdict_submit
from annotate.models import Lease, PoolItem, SxsTask, TaskLease, Verdict
from tests.annotate.judging.test_lease_counters import assert_held_exact, in_threads
from tests.annotate.queue_helpers import make_raters, queue_setup
from tests.annotate.sxs_helpers import distinct_lists, make_comparison


def assert_tasks_exact(*, renewed: bool = False) -> None:
    """`counted` is the number of verdicts, `leased` of lease rows, `first_lease_end` their
    earliest end (or at or before it once a renewal pushed an end later)."""
    truth = SxsTask.objects.annotate(
        v=Count("verdicts", distinct=True),
        n=Count("leases", distinct=True),
        first=Min("leases__expires_at"),
    )
    wrong = []
    for task in truth:
        end_ok = (
            task.first_lease_end is not None and task.first_lease_end <= task.first
            if renewed and task.n
            else task.first_lease_end == task.first
        )
        if task.counted != task.v or task.leased != task.n or not end_ok:
            wrong.append((task.pk, task.v, task.counted, task.n, task.leased, task.first))
    assert not wrong, f"(task, verdicts, counted, leases, leased, first end): {wrong}"


@pytest.fixture
def comparison(personas):
    return make_comparison(personas.campaign, distinct_lists(3, depth=2), raters_per_task=2)


def test_leasing_answering_and_releasing_keep_the_task_counters(personas, comparison):
    raters = make_raters(personas.campaign, 3)
    held = {r.pk: sxs_queue(rater=r, comparison=comparison) for r in raters}
    assert SxsTask.objects.filter(leased__gt=0).exists()
    assert_tasks_exact()
    first, second, _ = raters
    (task, _side), *_ = held[first.pk]
    verdict_submit(rater=first, comparison=comparison, task_id=task.pk, chosen="left")
    assert SxsTask.objects.get(pk=task.pk).counted == 1
    verdict_submit(  # a change
        rater=first, comparison=comparison, task_id=task.pk, chosen="right", replaces="left"
    )
    assert SxsTask.objects.get(pk=task.pk).counted == 1
    assert_tasks_exact()
    assert sxs_lease_release(comparison=comparison, rater=second) > 0
    assert_tasks_exact()
    assert sxs_lease_release(comparison=comparison) > 0
    assert not SxsTask.objects.filter(Q(leased__gt=0) | Q(first_lease_end__isnull=False))
    get_user_model().objects.filter(pk=first.pk).delete()  # cascades to the verdict
    assert_tasks_exact()
    assert set(SxsTask.objects.values_list("counted", flat=True)) == {0}


def test_writes_outside_the_queue_and_an_expired_lease_retaken(personas, comparison):
    (rater,) = make_raters(personas.campaign, 1)
    ((task, side),) = sxs_queue(rater=rater, comparison=comparison)
    past = timezone.now() - timedelta(minutes=1)
    TaskLease.objects.filter(rater=rater).update(expires_at=past)  # an earlier end
    assert SxsTask.objects.get(pk=task.pk).first_lease_end == past
    again = sxs_queue(rater=rater, comparison=comparison)  # the upsert retakes the row
    assert again == [(task, side)]
    assert_tasks_exact(renewed=True)
    other = comparison.tasks.exclude(pk=task.pk).first()
    Verdict.objects.create(task=other, rater=rater, value="S", candidate_side=side)
    assert SxsTask.objects.get(pk=other.pk).counted == 1
    stale = SxsTask.objects.get(pk=other.pk)
    Verdict.objects.filter(task=other).delete()
    stale.save()  # a stale instance saved must not write its old count back
    assert SxsTask.objects.get(pk=other.pk).counted == 0
    assert_tasks_exact(renewed=True)


def test_counted_check_finds_and_mends_wrong_task_counters(personas, comparison):
    (rater,) = make_raters(personas.campaign, 1)
    ((task, _),) = sxs_queue(rater=rater, comparison=comparison)
    call_command("counted_check", stdout=(out := StringIO()))
    assert "every side-by-side task its verdicts and leases" in out.getvalue()
    SxsTask.objects.filter(pk=task.pk).update(leased=0, counted=3)
    with pytest.raises(CommandError):
        call_command("counted_check", stdout=(out := StringIO()))
    report = out.getvalue()
    assert "1 side-by-side tasks whose counters differ from their verdicts and leases" in report
    assert f"task {task.pk}: counted 3 for 0 verdicts, leased 0 for 1 leases" in report
    call_command("counted_check", "--fix", stdout=StringIO())
    assert_tasks_exact()


def _graded_holding(personas) -> tuple:
    """A rater holding pool items: (task model, lease model, lease filter of the first one,
    the release, the check of the counters)."""
    campaign, items, raters, good, _ = queue_setup(
        personas.campaign, overlap=1, queries=1, docs_per_query=3, raters=1
    )
    rater = raters[0]
    held = queue_items(rater=rater, campaign=campaign)
    return (
        PoolItem.objects.filter(pk=held[0].pk),
        Lease.objects.filter(rater=rater, pool_item=held[0]),
        lambda: lease_release(campaign=campaign, rater=rater),
        Lease,
        assert_held_exact,
    )


def _sxs_holding(personas) -> tuple:
    comparison = make_comparison(personas.campaign, distinct_lists(1, depth=2))
    (rater,) = make_raters(personas.campaign, 1)
    ((task, _),) = sxs_queue(rater=rater, comparison=comparison)
    return (
        SxsTask.objects.filter(pk=task.pk),
        TaskLease.objects.filter(rater=rater, task=task),
        lambda: sxs_lease_release(comparison=comparison, rater=rater),
        TaskLease,
        assert_tasks_exact,
    )


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("holding", [_graded_holding, _sxs_holding], ids=["graded", "sxs"])
def test_releasing_leases_while_their_rater_answers_does_not_deadlock(personas, holding):
    """The rater's answer holds the task, then deletes its lease; the release, whose lease
    delete updates the task (a trigger), must take the task first, not the lease."""
    assert connection.vendor == "postgresql"
    task, lease, release_all, lease_model, check = holding(personas)
    holding_now = threading.Event()

    def answer() -> None:
        with transaction.atomic():
            task.select_for_update().get()  # as the answer's lock does
            holding_now.set()
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_sleep(0.5)")  # the release starts meanwhile
            lease.delete()

    def release() -> None:
        holding_now.wait(timeout=10)
        release_all()

    errors = in_threads(answer, release)
    assert not errors, errors
    assert not lease_model.objects.exists()
    check()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_raters_leave_exact_task_counters(personas):
    """Six raters answering at once through the shared mechanism: every task gets exactly the
    verdicts it needs, and its counters match its rows afterwards."""
    assert connection.vendor == "postgresql"
    comparison = make_comparison(
        personas.campaign, distinct_lists(6, depth=2), unit="position", raters_per_task=2
    )
    raters = make_raters(personas.campaign, 6)

    def work(rater) -> None:
        while held := sxs_queue(rater=rater, comparison=comparison, look_ahead=True):
            for task, _ in held:
                verdict_submit(rater=rater, comparison=comparison, task_id=task.pk, chosen="same")

    errors = in_threads(*(lambda r=r: work(r) for r in raters))
    assert not errors, errors
    real = SxsTask.objects.filter(mirror_of__isnull=True)  # not the mirrored duplicates (#18)
    per_task = real.annotate(n=Count("verdicts")).values_list("n", flat=True)
    assert set(per_task) == {2}
    assert_tasks_exact()
