"""20 real concurrent raters against PostgreSQL: nothing lost, nothing twice, never over N."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.models import Count, Q

from annotate.models import Grade, PoolItem
from tests.annotate.queue_helpers import build_pool, grade_race, make_raters

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
    stored = grade_race(campaign, raters)
    assert all(count == 1 for count in stored.values())  # created once, never twice
    in_db = set(Grade.objects.values_list("pool_item_id", "rater_id"))
    assert in_db == set(stored)  # nothing lost, nothing extra
    counted = PoolItem.objects.annotate(
        n=Count("grades", filter=Q(grades__cant_judge=False))
    ).values_list("pk", "raters_needed", "n")
    for pk, needed, n in counted:
        assert n == (needed or OVERLAP), f"item {pk} has {n} counted grades"
