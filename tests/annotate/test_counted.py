"""PoolItem.counted, kept by database triggers, equals the item's counted grades after every
kind of write: the queue's grades, can't-judge, changes both ways, the admin moving a grade,
bulk inserts, single and bulk deletes, and the cascade when a rater's account is deleted."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import connection
from django.db.models import Count, Q

from annotate.counted import TRIGGERS, triggers_present
from annotate.judging.graded import grade_submit, queue_items
from annotate.models import Grade, PoolItem
from tests.annotate.queue_helpers import queue_setup


def assert_counted_exact() -> None:
    truth = PoolItem.objects.annotate(
        n=Count("grades", filter=Q(grades__cant_judge=False))
    ).values_list("pk", "n", "counted")
    wrong = [(pk, n, counted) for pk, n, counted in truth if n != counted]
    assert not wrong, f"(item, true count, counted column): {wrong}"


@pytest.fixture
def setup(personas):
    return queue_setup(personas.campaign, overlap=3, queries=2, docs_per_query=3, raters=3)


def test_the_triggers_are_installed(db):
    assert triggers_present(connection) == set(TRIGGERS)


def test_grades_and_cant_judge_through_the_queue(setup):
    campaign, items, raters, good, _ = setup
    for i, rater in enumerate(raters):
        for item in queue_items(rater=rater, campaign=campaign):
            cant = (item.pk + i) % 3 == 0
            grade_submit(
                rater=rater,
                campaign=campaign,
                item_id=item.pk,
                label_id=None if cant else good.pk,
                cant_judge=cant,
            )
    assert Grade.objects.filter(cant_judge=True).exists()
    assert Grade.objects.filter(cant_judge=False).exists()
    assert_counted_exact()


def test_changes_between_a_label_and_cant_judge(setup):
    campaign, items, (r0, *_), good, bad = setup
    item = queue_items(rater=r0, campaign=campaign)[0]
    grade_submit(rater=r0, campaign=campaign, item_id=item.pk, cant_judge=True)
    assert PoolItem.objects.get(pk=item.pk).counted == 0
    grade_submit(
        rater=r0, campaign=campaign, item_id=item.pk, label_id=good.pk, replaces="cant_judge"
    )
    assert PoolItem.objects.get(pk=item.pk).counted == 1
    grade_submit(
        rater=r0,
        campaign=campaign,
        item_id=item.pk,
        label_id=bad.pk,
        replaces=f"label:{good.pk}",
    )
    assert PoolItem.objects.get(pk=item.pk).counted == 1
    grade_submit(
        rater=r0, campaign=campaign, item_id=item.pk, cant_judge=True, replaces=f"label:{bad.pk}"
    )
    assert PoolItem.objects.get(pk=item.pk).counted == 0
    assert_counted_exact()


def test_writes_outside_the_queue(setup):
    campaign, items, (r0, r1, r2), good, _ = setup
    a, b, c = items[:3]
    Grade.objects.bulk_create(
        [
            Grade(pool_item=a, rater=r0, label=good),
            Grade(pool_item=a, rater=r1, label=good),
            Grade(pool_item=b, rater=r0, cant_judge=True),
            Grade(pool_item=c, rater=r2, label=good),
        ]
    )
    assert_counted_exact()
    moved = Grade.objects.get(pool_item=c, rater=r2)
    moved.pool_item = b  # an admin edit moving the grade to another item
    moved.save()
    assert_counted_exact()
    Grade.objects.filter(pool_item=b, rater=r0).update(cant_judge=False, label=good)
    assert_counted_exact()
    Grade.objects.get(pool_item=a, rater=r0).delete()
    assert_counted_exact()
    get_user_model().objects.filter(pk=r1.pk).delete()  # cascades to r1's grades
    assert_counted_exact()
    Grade.objects.all().delete()
    assert_counted_exact()
    assert set(PoolItem.objects.values_list("counted", flat=True)) == {0}


def test_a_second_migrate_keeps_the_triggers_and_the_count(setup):
    """On SQLite migrate drops the triggers and puts them back with a recount."""
    campaign, items, (r0, *_), good, _ = setup
    Grade.objects.create(pool_item=items[0], rater=r0, label=good)
    call_command("migrate", verbosity=0)
    assert triggers_present(connection) == set(TRIGGERS)
    Grade.objects.create(pool_item=items[1], rater=r0, label=good)
    assert_counted_exact()
    assert PoolItem.objects.filter(counted=1).count() == 2


def test_saving_a_stale_item_keeps_the_count(setup):
    """An item loaded before a grade changed (an admin change form, say) and saved after must
    not write its old count back."""
    campaign, items, (r0, r1, _), good, _ = setup
    item = items[0]
    Grade.objects.create(pool_item=item, rater=r0, label=good)
    Grade.objects.create(pool_item=item, rater=r1, label=good)
    stale = PoolItem.objects.get(pk=item.pk)
    assert stale.counted == 2
    Grade.objects.get(pool_item=item, rater=r0).delete()
    stale.raters_needed = 2
    stale.save()
    stale.origin = PoolItem.Origin.MANUAL
    stale.save(update_fields=["origin", "counted"])
    fresh = PoolItem.objects.get(pk=item.pk)
    assert (fresh.counted, fresh.raters_needed, fresh.origin) == (1, 2, "manual")
    assert_counted_exact()


def test_a_dump_loaded_again_keeps_the_count(setup, tmp_path):
    """loaddata writes each item with the count it was dumped with, then its grades, which
    the triggers count again: the count must come out exact, not doubled."""
    campaign, items, (r0, r1, _), good, _ = setup
    Grade.objects.create(pool_item=items[0], rater=r0, label=good)
    Grade.objects.create(pool_item=items[0], rater=r1, label=good)
    Grade.objects.create(pool_item=items[1], rater=r0, label=good)
    fixture = tmp_path / "pool.json"
    call_command("dumpdata", "annotate.PoolItem", "annotate.Grade", output=str(fixture))
    Grade.objects.all().delete()
    call_command("loaddata", str(fixture), verbosity=0)
    assert Grade.objects.count() == 3
    assert_counted_exact()
    call_command("loaddata", str(fixture), verbosity=0)  # loading again over the same rows
    assert_counted_exact()


def test_counted_check_finds_and_mends_a_count_the_triggers_did_not_see(setup):
    from io import StringIO

    from django.core.management.base import CommandError

    from annotate.counted import triggers_drop

    campaign, items, raters, good, _ = setup
    for rater in raters[:2]:
        for item in queue_items(rater=rater, campaign=campaign)[:2]:
            grade_submit(rater=rater, campaign=campaign, item_id=item.pk, label_id=good.pk)
    out = StringIO()
    call_command("counted_check", stdout=out)
    assert "every item matches its grades and leases" in out.getvalue()

    # What a restore with triggers disabled leaves: grades the column never counted.
    triggers_drop(connection)
    graded = Grade.objects.values_list("pool_item_id", flat=True)
    PoolItem.objects.filter(pk__in=list(graded)).update(counted=0)
    # (leased is left right here; test_lease_counters checks what a wrong one looks like)
    with pytest.raises(CommandError, match="--fix"):
        call_command("counted_check", stdout=(out := StringIO()))
    report = out.getvalue()
    assert "missing triggers: " + ", ".join(sorted(TRIGGERS)) in report
    assert f"{len(set(graded))} items whose counters differ" in report

    call_command("counted_check", "--fix", stdout=(out := StringIO()))
    assert "fixed" in out.getvalue()
    assert triggers_present(connection) == set(TRIGGERS)
    assert_counted_exact()
    call_command("counted_check", stdout=StringIO())  # clean again: no error
