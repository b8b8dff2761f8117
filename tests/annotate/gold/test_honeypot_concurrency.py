"""20 real concurrent raters against PostgreSQL with honeypots in the queue: every real item
gets exactly the answers it needs, none more; answers to gold never count; gold goes beyond the
needed raters, to each rater at most once; the counters and gold flags check clean."""

from __future__ import annotations

from collections import Counter
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.models import Count, Q

from annotate.models import Grade, PoolItem
from annotate.services.gold import gold_item_set
from tests.annotate.queue_helpers import build_pool, grade_race, make_raters

RATERS = 20
OVERLAP = 3
HONEYPOT_QUERIES = 2


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_twenty_concurrent_raters_with_honeypots(personas):
    assert connection.vendor == "postgresql"
    campaign = personas.campaign
    campaign.overlap = OVERLAP
    campaign.save()
    items = build_pool(campaign, queries=12 + HONEYPOT_QUERIES, docs_per_query=5)
    good = campaign.labels.get(name="Good")
    gold = items[-5 * HONEYPOT_QUERIES :]
    for item in gold:
        gold_item_set(campaign=campaign, manager=None, item_id=item.pk, label_id=good.pk)
    campaign.refresh_from_db()
    campaign.honeypot_share = 0.5  # high, so that many raters meet each honeypot
    # Random answers miss gold: the gold rules would pause raters mid-race (a test of its own,
    # tests/annotate/quality); this one is about serving and counting.
    campaign.min_gold_within = campaign.min_gold_exact = 0
    campaign.save()
    raters = make_raters(campaign, RATERS)
    stored = grade_race(campaign, raters)
    assert all(count == 1 for count in stored.values())  # once per rater and item
    assert set(Grade.objects.values_list("pool_item_id", "rater_id")) == set(stored)
    gold_ids = {item.pk for item in gold}
    per_item = PoolItem.objects.annotate(
        real=Count("grades", filter=Q(grades__cant_judge=False, grades__gold=False)),
        golden=Count("grades", filter=Q(grades__gold=True)),
    ).values_list("pk", "counted", "real", "golden")
    most_gold = 0
    for pk, counted, real, golden in per_item:
        if pk in gold_ids:
            assert (counted, real) == (0, 0), f"gold item {pk}: counted {counted}, real {real}"
            most_gold = max(most_gold, golden)
        else:
            assert golden == 0, f"real item {pk} has answers marked gold"
            assert counted == real == OVERLAP, f"item {pk}: counted {counted}, real {real}"
    assert most_gold > OVERLAP  # gold is not capped by the raters a task needs
    # A rater meets a honeypot query whole: all its items or none.
    for query_items in (gold[:5], gold[5:]):
        ids = {item.pk for item in query_items}
        by_rater = Counter(r for i, r in stored if i in ids)
        assert set(by_rater.values()) <= {5}, by_rater
    call_command("counted_check", stdout=StringIO())  # raises on any counter or flag astray
