"""20 real concurrent raters against PostgreSQL: nothing lost, nothing twice, never over N."""

from __future__ import annotations

import random
import threading
from collections import Counter

import pytest
from django.db import connection, connections
from django.db.models import Count, Q

from annotate.judging.graded import GradeRefused, grade_submit, queue_items
from annotate.models import Grade, PoolItem
from tests.annotate.queue_helpers import build_pool, make_raters

RATERS = 20
OVERLAP = 3


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_twenty_concurrent_raters_fill_every_item_exactly(personas):
    assert connection.vendor == "postgresql"
    campaign = personas.campaign
    campaign.overlap = OVERLAP
    campaign.save()
    items = build_pool(campaign, queries=12, docs_per_query=5)
    # A few items need more or fewer raters than the campaign's overlap.
    PoolItem.objects.filter(pk=items[0].pk).update(raters_needed=1)
    PoolItem.objects.filter(pk=items[1].pk).update(raters_needed=5)
    raters = make_raters(campaign, RATERS)
    labels = list(campaign.labels.values_list("pk", flat=True))
    stored: Counter = Counter()
    errors: list[BaseException] = []
    lock = threading.Lock()
    start = threading.Barrier(RATERS)

    def work(rater, seed: int) -> None:
        rng = random.Random(seed)
        try:
            start.wait(timeout=30)
            while batch := queue_items(rater=rater, campaign=campaign):
                for item in batch:
                    label = rng.choice(labels)
                    cant = rng.random() < 0.05
                    # Every grade is sent twice, as a double click or a network retry would.
                    for _ in range(2):
                        try:
                            outcome = grade_submit(
                                rater=rater,
                                campaign=campaign,
                                item_id=item.pk,
                                label_id=None if cant else label,
                                cant_judge=cant,
                            )
                        except GradeRefused:
                            continue
                        if outcome.created:
                            with lock:
                                stored[(item.pk, rater.pk)] += 1
        except BaseException as exc:  # the assertion below reports it
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=work, args=(r, i)) for i, r in enumerate(raters)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not errors, errors
    # A can't-judge sent late reopens an item after some raters already stopped; the
    # raters look in once more, as the "Check again" button lets them.
    start = threading.Barrier(1)
    for i, rater in enumerate(raters):
        work(rater, 1000 + i)
    assert not errors, errors
    assert all(count == 1 for count in stored.values())  # created once, never twice
    in_db = set(Grade.objects.values_list("pool_item_id", "rater_id"))
    assert in_db == set(stored)  # nothing lost, nothing extra
    counted = PoolItem.objects.annotate(
        n=Count("grades", filter=Q(grades__cant_judge=False))
    ).values_list("pk", "raters_needed", "n")
    for pk, needed, n in counted:
        assert n == (needed or OVERLAP), f"item {pk} has {n} counted grades"
