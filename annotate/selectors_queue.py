"""Reads behind the rater queue: which items are open, and how many raters hold each."""

from __future__ import annotations

from datetime import UTC, datetime

from django.contrib.auth.models import AbstractBaseUser
from django.db import connection
from django.db.models import (
    Count,
    Exists,
    F,
    Func,
    IntegerField,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Value,
)
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from annotate.models import Campaign, Document, Grade, Lease, PoolItem, Query, Skip


def open_items(*, campaign: Campaign, rater: AbstractBaseUser, now: datetime) -> QuerySet:
    """Items this rater has not touched (graded, skipped or holds) that still have a free slot:
    counted grades plus other raters' live leases below the number of raters needed.

    Counted grades come from PoolItem.counted (kept by triggers), so finding the next open
    query walks the pool in query order and drops filled items on one column, before any
    per-item subquery; nothing aggregates the whole pool.
    """
    mine = Q(rater=rater, pool_item=OuterRef("pk"))
    # A plain COUNT, not Count(): no GROUP BY in a subquery evaluated for every item walked.
    live_leases = (
        Lease.objects.filter(pool_item=OuterRef("pk"), expires_at__gt=now)
        .order_by()
        .annotate(n=Func(F("pk"), function="COUNT"))
        .values("n")
    )
    return (
        PoolItem.objects.filter(campaign=campaign)
        .alias(
            needed=Coalesce(
                F("raters_needed"), Value(campaign.overlap), output_field=IntegerField()
            )
        )
        .filter(counted__lt=F("needed"))
        .exclude(Exists(Grade.objects.filter(mine)))
        .exclude(Exists(Skip.objects.filter(mine)))
        .exclude(Exists(Lease.objects.filter(mine, expires_at__gt=now)))
        .alias(leased=Subquery(live_leases, output_field=IntegerField()))
        .filter(counted__lt=F("needed") - F("leased"))
    )


def slots_taken(
    counted: dict[int, int], *, now: datetime, exclude_rater: AbstractBaseUser
) -> dict[int, int]:
    """Counted grades (item id -> PoolItem.counted, read under the item's lock) plus other
    raters' live leases, per item. Callers ask for items the rater has no counted grade on,
    so the count needs no correction for the rater's own."""
    taken = dict(counted)
    leased = (
        Lease.objects.filter(pool_item_id__in=list(counted), expires_at__gt=now)
        .exclude(rater=exclude_rater)
        .values_list("pool_item_id")
        .annotate(n=Count("pk"))
    )
    for item_id, n in leased:
        taken[item_id] += n
    return taken


# Every grade's answer reads the rater's held items; through the ORM (three joins, sixty model
# instances) this one read cost more CPU than the whole grade. The fields the judging screen
# and the queue use are loaded; any other is fetched on access, as with .only().
_HELD = """
SELECT p.id, p.query_id, p.document_id, p.raters_needed, p.counted,
    q.external_id, q.text, q.description,
    d.external_id, d.title, d.url, d.snippet,
    l.created_at, CASE WHEN l.expires_at < %s THEN 1 ELSE 0 END
FROM annotate_lease l
INNER JOIN annotate_poolitem p ON p.id = l.pool_item_id
INNER JOIN annotate_query q ON q.id = p.query_id
INNER JOIN annotate_document d ON d.id = p.document_id
WHERE l.rater_id = %s AND l.expires_at > %s AND p.campaign_id = %s
"""
_ITEM_FIELDS = ("id", "campaign_id", "query_id", "document_id", "raters_needed", "counted")
_QUERY_FIELDS = ("id", "campaign_id", "external_id", "text", "description")
_DOCUMENT_FIELDS = ("id", "campaign_id", "external_id", "title", "url", "snippet")


def held_items(
    *, campaign: Campaign, rater: AbstractBaseUser, now: datetime, renew_before: datetime
) -> tuple[list[PoolItem], bool]:
    """The items the rater holds a live lease on (query and document loaded, `lease_started`
    set to when the lease began), and whether any of those leases expires before
    `renew_before`."""
    at = connection.ops.adapt_datetimefield_value
    db = connection.alias
    with connection.cursor() as cursor:
        cursor.execute(_HELD, [at(renew_before), rater.pk, at(now), campaign.pk])
        rows = cursor.fetchall()
    items = []
    for item_id, query_id, document_id, needed, counted, *texts, started, _due in rows:
        item = PoolItem.from_db(
            db, _ITEM_FIELDS, (item_id, campaign.pk, query_id, document_id, needed, counted)
        )
        item.campaign = campaign
        item.query = Query.from_db(db, _QUERY_FIELDS, (query_id, campaign.pk, *texts[:3]))
        item.document = Document.from_db(
            db, _DOCUMENT_FIELDS, (document_id, campaign.pk, *texts[3:])
        )
        item.lease_started = _aware(started)
        items.append(item)
    return items, any(row[-1] for row in rows)


def _aware(value: datetime | str) -> datetime:
    """A datetime read by raw SQL: SQLite gives naive UTC (or text), PostgreSQL aware."""
    if isinstance(value, str):
        value = parse_datetime(value)
    return value if timezone.is_aware(value) else value.replace(tzinfo=UTC)
