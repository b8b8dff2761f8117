"""Reads behind the rater queue: which items are open, and how many raters hold each."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import connection
from django.db.models import QuerySet
from django.db.models.base import ModelState
from django.db.models.expressions import RawSQL
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from annotate.models import Campaign, Document, PoolItem, Query
from config.db import hot_cursor

# The rule for an open item, written once in SQL: the queue walks the pool with it at every
# query boundary, where the ORM's version cost ~4 ms of CPU to compile each time (twice per
# lease). `p` is the pool item; the parameters come from _open_params.
# Room is counted grades plus live leases below the raters needed. The walk passes every item
# other raters hold (thousands, in a busy campaign), so the row decides whenever it can
# (annotate/counted.py keeps its counters): with fewer lease rows than free slots the item has
# room, expired leases or not; when its first lease end is still to come, all its leases are
# live and it has none. Only an item that would be full if every lease were live, and whose
# first lease end has passed (a lease expired, or was renewed since: the counter keeps the
# earlier end), counts its live ones.
_OPEN = """
FROM annotate_poolitem p
WHERE p.campaign_id = %s
    AND p.counted < COALESCE(p.raters_needed, %s)
    AND (
        p.counted + p.leased < COALESCE(p.raters_needed, %s)
        OR p.first_lease_end <= %s AND p.counted + (
            SELECT COUNT(*) FROM annotate_lease o
            WHERE o.pool_item_id = p.id AND o.expires_at > %s
        ) < COALESCE(p.raters_needed, %s)
    )
    AND NOT EXISTS (
        SELECT 1 FROM annotate_grade g WHERE g.pool_item_id = p.id AND g.rater_id = %s
    )
    AND NOT EXISTS (
        SELECT 1 FROM annotate_skip s WHERE s.pool_item_id = p.id AND s.rater_id = %s
    )
    AND NOT EXISTS (
        SELECT 1 FROM annotate_lease m
        WHERE m.pool_item_id = p.id AND m.rater_id = %s AND m.expires_at > %s
    )
"""


def _open_params(campaign: Campaign, rater: AbstractBaseUser, now: datetime) -> list:
    at = connection.ops.adapt_datetimefield_value(now)
    overlap = campaign.overlap
    return [campaign.pk, overlap, overlap, at, at, overlap, rater.pk, rater.pk, rater.pk, at]


def open_items(*, campaign: Campaign, rater: AbstractBaseUser, now: datetime) -> QuerySet:
    """Items this rater has not touched (graded, skipped or holds) that still have a free slot:
    counted grades plus other raters' live leases below the number of raters needed.

    Counted grades come from PoolItem.counted (kept by triggers), so finding the next open
    query walks the pool in query order and drops filled items on one column, before any
    per-item subquery; nothing aggregates the whole pool.
    """
    ids = RawSQL("SELECT p.id " + _OPEN, _open_params(campaign, rater, now))
    return PoolItem.objects.filter(pk__in=ids)


def first_open_query(
    *, campaign: Campaign, rater: AbstractBaseUser, now: datetime, after: int | None = None
) -> int | None:
    """The lowest query id above `after` with an item open to this rater."""
    sql = "SELECT p.query_id " + _OPEN + " AND p.query_id > %s ORDER BY p.query_id LIMIT 1"
    with connection.cursor() as cursor:
        cursor.execute(sql, [*_open_params(campaign, rater, now), after or 0])
        row = cursor.fetchone()
    return row[0] if row else None


def open_item_ids(
    *, campaign: Campaign, rater: AbstractBaseUser, now: datetime, query_id: int
) -> list[int]:
    sql = "SELECT p.id " + _OPEN + " AND p.query_id = %s"
    with connection.cursor() as cursor:
        cursor.execute(sql, [*_open_params(campaign, rater, now), query_id])
        return [row[0] for row in cursor.fetchall()]


def slots_taken(
    counted: dict[int, int], *, now: datetime, exclude_rater: AbstractBaseUser
) -> dict[int, int]:
    """Counted grades (item id -> PoolItem.counted, read under the item's lock) plus other
    raters' live leases, per item. Callers ask for items the rater has no counted grade on,
    so the count needs no correction for the rater's own."""
    taken = dict(counted)
    if not taken:
        return taken
    marks = ", ".join(["%s"] * len(taken))
    sql = (
        f"SELECT pool_item_id, COUNT(*) FROM annotate_lease WHERE pool_item_id IN ({marks}) "
        "AND expires_at > %s AND rater_id <> %s GROUP BY pool_item_id"
    )
    at = connection.ops.adapt_datetimefield_value(now)
    with connection.cursor() as cursor:
        cursor.execute(sql, [*taken, at, exclude_rater.pk])
        for item_id, n in cursor.fetchall():
            taken[item_id] += n
    return taken


# Every grade's answer reads the rater's held items; through the ORM (three joins, sixty model
# instances) this one read cost more CPU than the whole grade. The fields the judging screen
# and the queue use are loaded; any other is fetched on access, as with .only().
ITEM_COLUMNS = """p.id, p.query_id, p.document_id, p.raters_needed, p.counted,
    q.external_id, q.text, q.description, d.external_id, d.title, d.url, d.snippet"""
_HELD = f"""
SELECT {ITEM_COLUMNS}, l.created_at, CASE WHEN l.expires_at < %s THEN 1 ELSE 0 END
FROM annotate_lease l
INNER JOIN annotate_poolitem p ON p.id = l.pool_item_id
INNER JOIN annotate_query q ON q.id = p.query_id
INNER JOIN annotate_document d ON d.id = p.document_id
WHERE l.rater_id = %s AND l.expires_at > %s AND p.campaign_id = %s
"""
_ITEM_FIELDS = ("id", "campaign_id", "query_id", "document_id")
_QUERY_FIELDS = ("id", "campaign_id", "external_id", "text", "description")
_DOCUMENT_FIELDS = ("id", "campaign_id", "external_id", "title", "url", "snippet")


def held_items(
    *, campaign: Campaign, rater: AbstractBaseUser, now: datetime, renew_before: datetime
) -> tuple[list[PoolItem], bool]:
    """The items the rater holds a live lease on (query and document loaded, `lease_started`
    set to when the lease began), and whether any of those leases expires before
    `renew_before`."""
    at = connection.ops.adapt_datetimefield_value
    with hot_cursor() as cursor:
        cursor.execute(_HELD, [at(renew_before), rater.pk, at(now), campaign.pk])
        rows = cursor.fetchall()
    items = []
    for *values, started, _due in rows:
        item = item_from_row(campaign, values)
        item.lease_started = aware(started)
        items.append(item)
    return items, any(row[-1] for row in rows)


def item_from_row(campaign: Campaign, row: list | tuple) -> PoolItem:
    """A pool item with its query and document from a row of ITEM_COLUMNS."""
    item_id, query_id, document_id, needed, counted, *texts = row
    db = connection.alias
    item = _loaded(PoolItem, db, _ITEM_FIELDS, (item_id, campaign.pk, query_id, document_id))
    item.raters_needed, item.counted = needed, counted
    query = _loaded(Query, db, _QUERY_FIELDS, (query_id, campaign.pk, *texts[:3]))
    document = _loaded(Document, db, _DOCUMENT_FIELDS, (document_id, campaign.pk, *texts[3:]))
    item._state.fields_cache.update(campaign=campaign, query=query, document=document)
    return item


def _loaded(model: type, db: str, fields: tuple[str, ...], values: tuple) -> Any:
    """What Model.from_db builds, without Model.__init__'s walk over every field: a grade's
    answer builds about forty of these, and __init__ was a sixth of the request's CPU. A field
    left out is deferred, loaded on first access, since Django reads a field missing from the
    instance's __dict__ from the database."""
    instance = model.__new__(model)
    instance._state = ModelState()
    instance._state.adding = False
    instance._state.db = db
    instance.__dict__.update(zip(fields, values, strict=True))
    return instance


def aware(value: datetime | str) -> datetime:
    """A datetime read by raw SQL: SQLite gives naive UTC (or text), PostgreSQL aware."""
    if isinstance(value, str):
        value = parse_datetime(value)
    return value if timezone.is_aware(value) else value.replace(tzinfo=UTC)
