"""The one pool-completion selector and the one live-lease read, on hand-built pools; the
manager's raters page and the reports' dashboard both show these figures."""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth import get_user_model
from django.utils import timezone

from annotate.models import Lease
from annotate.selectors.progress import live_leases, pool_completion
from metrics.selectors.progress import pool_progress
from tests.annotate.judgment_data import grade, pool_item


def _raters(n: int):
    return [get_user_model().objects.create_user(username=f"p{i}") for i in range(n)]


def test_pool_completion_by_hand(personas):
    campaign = personas.campaign
    campaign.overlap = 2
    campaign.save(update_fields=["overlap"])
    r = _raters(3)
    full = pool_item(campaign, "q1", "a")  # needs 2, has 3 counted: complete, gives 2
    for rater in r:
        grade(full, rater, "Good")
    half = pool_item(campaign, "q1", "b")  # needs 2, has 1 counted and 1 can't judge: partial
    grade(half, r[0], "Fair")
    grade(half, r[1], None)
    one = pool_item(campaign, "q2", "c")  # needs 1 (its own setting), has 1: complete
    one.raters_needed = 1
    one.save(update_fields=["raters_needed"])
    grade(one, r[2], "Bad")
    pool_item(campaign, "q2", "d")  # needs 2, nothing yet: untouched
    assert pool_completion(campaign=campaign) == {
        "items": 4,
        "complete": 2,
        "partial": 1,
        "untouched": 1,
        "grades_given": 2 + 1 + 1 + 0,
        "grades_needed": 2 + 2 + 1 + 2,
        "cant_judge": 1,
    }


def test_live_leases_count_leases_per_rater_and_distinct_items(personas):
    campaign = personas.campaign
    shared = pool_item(campaign, "q1", "a")
    own = pool_item(campaign, "q1", "b")
    other = pool_item(campaign, "q2", "c")
    a, b = _raters(2)
    soon = timezone.now() + timedelta(minutes=5)
    Lease.objects.create(pool_item=shared, rater=a, expires_at=soon)
    Lease.objects.create(pool_item=own, rater=a, expires_at=soon)
    Lease.objects.create(pool_item=shared, rater=b, expires_at=soon)
    Lease.objects.create(pool_item=other, rater=b, expires_at=timezone.now() - timedelta(1))
    leases = live_leases(campaign=campaign)
    assert [(h.username, h.query_external_id, h.items) for h in leases.holdings] == [
        ("p0", "q1", 2),
        ("p1", "q1", 1),
    ]
    assert leases.by_rater == {a.pk: 2, b.pk: 1}
    assert leases.items == 2  # the shared item once; the expired lease not at all
    assert pool_progress(campaign=campaign).leased == 2
