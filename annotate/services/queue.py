"""The rater queue: leasing a query's open items, and taking grades and skips.

Every write that can change how many raters an item still needs (a lease, a counted grade, a
skip) first locks the pool item's row, so concurrent raters are serialised per item and no item
collects more counted grades than it needs. On PostgreSQL leasing skips rows another rater is
locking right now instead of waiting for them.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.contrib.auth.models import AbstractBaseUser
from django.db import connection, transaction
from django.db.models import Count, Q
from django.utils import timezone

from annotate.models import Campaign, Grade, GradeChange, Lease, PoolItem, Role, Skip
from annotate.selectors_judge import rater_checked
from annotate.selectors_queue import (
    ITEM_COLUMNS,
    aware,
    first_open_query,
    held_items,
    item_from_row,
    open_item_ids,
    open_items,
    slots_taken,
)
from config.db import hot_cursor

# How long to wait when every open query is being leased by someone else at this instant.
CONTENDED_WAIT = 0.05
CONTENDED_ROUNDS = 4


class GradeRefused(Exception):
    """A grade or skip that must not be stored. `status` is the HTTP status to answer with."""

    def __init__(self, message: str, *, status: int = 400) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


@dataclass(frozen=True)
class GradeOutcome:
    grade: Grade
    created: bool
    changed: bool


def rater_order_key(rater_id: int, item_id: int) -> bytes:
    """A stable per-rater shuffle: documents of a query never appear in the systems' order."""
    return hashlib.blake2b(f"{rater_id}:{item_id}".encode(), digest_size=8).digest()


def _lease_until(campaign: Campaign, now: datetime) -> datetime:
    return now + timedelta(minutes=campaign.lease_minutes)


def _ensure_rater(campaign: Campaign, rater: AbstractBaseUser) -> None:
    if rater_checked(campaign, rater):
        return  # campaign_rated_by asked the database earlier in this request
    if not campaign.memberships.filter(user=rater, role=Role.RATER).exists():
        raise GradeRefused("You are not a rater of this campaign.", status=403)


def queue_items(*, rater: AbstractBaseUser, campaign: Campaign) -> list[PoolItem]:
    """The items the rater holds now, in their own order; leases the next query when empty.

    Working renews the lease, so a rater who keeps grading never loses their query. Each item
    carries `lease_started` (when the rater's lease on it began) for in_query_blocks.
    """
    _ensure_rater(campaign, rater)
    now = timezone.now()
    renew_before = _renew_after(campaign, now)
    held, renew_due = held_items(campaign=campaign, rater=rater, now=now, renew_before=renew_before)
    if not held:
        held = _lease_next_query(rater=rater, campaign=campaign, now=now)
    elif renew_due:
        until = _lease_until(campaign, now)
        # Never earlier: a manager may have shortened the campaign's leases since.
        Lease.objects.filter(rater=rater, pool_item__in=held, expires_at__lt=until).update(
            expires_at=until
        )
    held.sort(key=lambda item: (item.query_id, rater_order_key(rater.pk, item.pk)))
    return held


def queue_lease_ahead(*, rater: AbstractBaseUser, campaign: Campaign) -> list[PoolItem]:
    """Lease the next query while the rater is still on the last item of the current one.

    The judging screen calls this so the item after a query's last one is already on the
    client when the rater presses a key: no wait at a query boundary. Returns the newly
    leased items in the rater's order (empty when nothing is open).
    """
    _ensure_rater(campaign, rater)
    leased = _lease_next_query(rater=rater, campaign=campaign, now=timezone.now())
    leased.sort(key=lambda item: (item.query_id, rater_order_key(rater.pk, item.pk)))
    return leased


def _lease_next_query(
    *, rater: AbstractBaseUser, campaign: Campaign, now: datetime
) -> list[PoolItem]:
    """Lease the open items of the first query that has any, walking past queries whose rows
    another rater is locking right now. Only when every open query was contended does it wait
    briefly and look again, so "all done" is never said while items are merely busy."""
    for round_ in range(CONTENDED_ROUNDS):
        after: int | None = None
        contended = False
        while True:
            # Past a contended query the walk goes on from there, not from the pool's start:
            # when many raters lease at once (a class starting together) every one of them
            # would otherwise walk the whole filled and leased front of the pool again.
            first = first_open_query(campaign=campaign, rater=rater, now=now, after=after)
            if first is None:
                break
            after = first
            leased, skipped = _lease_query(rater=rater, campaign=campaign, query_id=first, now=now)
            if leased:
                return leased
            contended = contended or skipped
        if not contended:
            return []
        time.sleep(CONTENDED_WAIT * (round_ + 1))
        now = timezone.now()
    return []


_LOCK_FOR_LEASE = f"""
SELECT {ITEM_COLUMNS}
FROM annotate_poolitem p
INNER JOIN annotate_query q ON q.id = p.query_id
INNER JOIN annotate_document d ON d.id = p.document_id
WHERE p.id IN ({{marks}})
"""


@transaction.atomic
def _lease_query(
    *, rater: AbstractBaseUser, campaign: Campaign, query_id: int, now: datetime
) -> tuple[list[PoolItem], bool]:
    """The items leased on the query (each with `lease_started`), and whether some rows were
    skipped because another rater was locking them."""
    ids = open_item_ids(campaign=campaign, rater=rater, now=now, query_id=query_id)
    if not ids:
        return [], False
    # Lock the rows, skipping those another rater is leasing at this very moment; then
    # recount under the lock, since the first read may already be stale.
    sql = _LOCK_FOR_LEASE.format(marks=", ".join(["%s"] * len(ids)))
    if connection.features.has_select_for_update_skip_locked:
        sql += " FOR UPDATE OF p SKIP LOCKED"
    with connection.cursor() as cursor:
        cursor.execute(sql, ids)
        locked = [item_from_row(campaign, row) for row in cursor.fetchall()]
    taken = slots_taken({item.pk: item.counted for item in locked}, now=now, exclude_rater=rater)
    free = [item for item in locked if taken[item.pk] < (item.raters_needed or campaign.overlap)]
    if free:
        _leases_upsert(free, rater=rater, campaign=campaign, now=now)
    return free, len(locked) < len(ids)


def _leases_upsert(
    items: list[PoolItem], *, rater: AbstractBaseUser, campaign: Campaign, now: datetime
) -> None:
    """Lease the items (a lease that expired is taken again, keeping its start), and set each
    item's `lease_started` from what the database holds."""
    at = connection.ops.adapt_datetimefield_value
    expires, created = at(_lease_until(campaign, now)), at(now)
    rows = ", ".join(["(%s, %s, %s, %s)"] * len(items))
    sql = (
        f"INSERT INTO annotate_lease (pool_item_id, rater_id, expires_at, created_at) "
        f"VALUES {rows} ON CONFLICT (pool_item_id, rater_id) "
        "DO UPDATE SET expires_at = excluded.expires_at RETURNING pool_item_id, created_at"
    )
    params = [value for item in items for value in (item.pk, rater.pk, expires, created)]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        started = {item_id: aware(at_) for item_id, at_ in cursor.fetchall()}
    for item in items:
        item.lease_started = started[item.pk]


def _lock_item(campaign: Campaign, item_id: int) -> PoolItem:
    try:
        return PoolItem.objects.select_for_update(of=("self",)).get(pk=item_id, campaign=campaign)
    except (PoolItem.DoesNotExist, ValueError, TypeError):
        raise GradeRefused("This item is not part of this campaign.", status=404) from None


def _has_capacity(locked: _Locked, rater: AbstractBaseUser, now: datetime) -> bool:
    """Counted grades plus other raters' live leases leave a slot (the rater's own grade, if
    any, is a can't-judge: it is not in `counted`)."""
    counted = {locked.item_id: locked.counted}
    return slots_taken(counted, now=now, exclude_rater=rater)[locked.item_id] < locked.needed


@dataclass(frozen=True)
class _Locked:
    """What grade_submit reads with the item's row lock, in one round trip."""

    item_id: int
    query_id: int
    needed: int
    counted: int
    grade_id: int | None
    lease_id: int | None
    lease_expired: bool
    label_on_scale: bool
    renew_due: bool


# The item's row, locked; the rater's grade and lease on it; whether the label is on the
# campaign's scale; and whether the rater's leases on the query are due for renewal. The ORM
# would take seven statements for this, each costing more CPU to compile than to run.
# Under READ COMMITTED the joined rows are read as the statement began, not after the lock
# wait: a grade the same rater's other request stored meanwhile can be missed, and the insert
# below (ON CONFLICT DO NOTHING) catches exactly that case. `counted` is read from the locked
# row itself, which is always the newest version.
_LOCK_FOR_GRADE = """
SELECT p.query_id, p.raters_needed, p.counted, g.id, l.id,
    CASE WHEN l.expires_at <= %s THEN 1 ELSE 0 END,
    lab.id,
    CASE WHEN (
        SELECT MIN(o.expires_at) FROM annotate_lease o
        INNER JOIN annotate_poolitem op ON op.id = o.pool_item_id
        WHERE o.rater_id = %s AND op.query_id = p.query_id AND o.expires_at > %s
    ) < %s THEN 1 ELSE 0 END
FROM annotate_poolitem p
LEFT JOIN annotate_grade g ON g.pool_item_id = p.id AND g.rater_id = %s
LEFT JOIN annotate_lease l ON l.pool_item_id = p.id AND l.rater_id = %s
LEFT JOIN annotate_label lab ON lab.id = %s AND lab.campaign_id = p.campaign_id
WHERE p.id = %s AND p.campaign_id = %s
"""

_INSERT_GRADE = """
INSERT INTO annotate_grade
    (pool_item_id, rater_id, label_id, cant_judge, comment, seconds, created_at, changed_at)
VALUES (%s, %s, %s, %s, %s, %s, %s, %s)
ON CONFLICT (pool_item_id, rater_id) DO NOTHING
RETURNING id
"""

# Live leases only: an expired lease's item may have been leased to others since, and reviving
# it would hand the item to more raters than it needs (the one then refused is the other).
# Never earlier than a lease's end: a manager may have shortened the campaign's leases since,
# and an earlier end would make the lease triggers lock other raters' items (counted.py).
_RENEW_QUERY_LEASES = """
UPDATE annotate_lease SET expires_at = %s
WHERE expires_at < %s AND rater_id = %s AND expires_at > %s
    AND pool_item_id IN (SELECT id FROM annotate_poolitem WHERE query_id = %s)
"""

# Ids beyond a signed 64-bit integer can name no row; SQLite would raise on them.
_MAX_ID = 2**63 - 1


def _as_id(value: object) -> int | None:
    try:
        number = int(value)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        return None
    return number if 0 < number <= _MAX_ID else None


def _renew_after(campaign: Campaign, now: datetime) -> datetime:
    """Leases expiring before this are renewed. Renewing on every grade would cost a write
    per grade; a minute of slack (less for short leases) costs at most one a minute."""
    length = timedelta(minutes=campaign.lease_minutes)
    return now + length - min(timedelta(minutes=1), length / 10)


def _lock_for_grade(
    campaign: Campaign, rater: AbstractBaseUser, item_id: int, label_id: int | None, now: datetime
) -> _Locked | None:
    sql = _LOCK_FOR_GRADE
    if connection.features.has_select_for_update_of:
        sql += " FOR UPDATE OF p"
    at = connection.ops.adapt_datetimefield_value
    params = [at(now), rater.pk, at(now), at(_renew_after(campaign, now))]
    params += [rater.pk, rater.pk, label_id, item_id, campaign.pk]
    with hot_cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    if row is None:
        return None
    query_id, raters_needed, counted, grade_id, lease_id, expired, label, renew = row
    return _Locked(
        item_id=item_id,
        query_id=query_id,
        needed=raters_needed or campaign.overlap,
        counted=counted,
        grade_id=grade_id,
        lease_id=lease_id,
        lease_expired=bool(expired),
        label_on_scale=label is not None,
        renew_due=bool(renew),
    )


@transaction.atomic
def grade_submit(
    *,
    rater: AbstractBaseUser,
    campaign: Campaign,
    item_id: int,
    label_id: int | None = None,
    cant_judge: bool = False,
    comment: str = "",
    seconds: float | None = None,
) -> GradeOutcome:
    """Store or change the rater's grade for one item.

    Sending the same grade twice stores it once (a double click or a network retry). A new
    grade needs the rater's lease on the item; after the lease expired it is still taken if
    the item needs it. A change keeps the old value and its time in the grade's history.
    No item takes more counted grades than it needs: `counted` is checked under the row lock.
    """
    _ensure_rater(campaign, rater)
    item = _as_id(item_id)
    if item is None:
        raise GradeRefused("This item is not part of this campaign.", status=404)
    label = None if cant_judge or label_id is None else _as_id(label_id)
    now = timezone.now()
    locked = _lock_for_grade(campaign, rater, item, label, now)
    if locked is None:
        raise GradeRefused("This item is not part of this campaign.", status=404)
    if not cant_judge:
        if label_id is None:
            raise GradeRefused("Choose a label.")
        if not locked.label_on_scale:
            raise GradeRefused("That label is not on this campaign's scale.")
    seconds = None if seconds is None else min(max(float(seconds), 0.0), 3600.0)
    comment = (comment or "").strip()[:2000]
    if locked.grade_id is not None:
        existing = Grade.objects.get(pk=locked.grade_id)
        return _grade_change(existing, locked, rater, label, cant_judge, comment, now)

    if locked.lease_id is None:
        raise GradeRefused("This item is not assigned to you.", status=403)
    refusal = None if cant_judge else _no_room(locked, rater, now)
    if refusal is not None:
        # The grade that filled the item may be this rater's own, from a resend that
        # committed while this request waited for the lock: then this is a resend too.
        existing = Grade.objects.filter(pool_item_id=item, rater=rater).first()
        if existing is not None:
            return _grade_change(existing, locked, rater, label, cant_judge, comment, now)
        raise refusal
    at = connection.ops.adapt_datetimefield_value
    with hot_cursor() as cursor:
        cursor.execute(
            _INSERT_GRADE,
            [item, rater.pk, label, cant_judge, comment, seconds, at(now), at(now)],
        )
        inserted = cursor.fetchone()
        if inserted is None:
            # The same grade sent twice at once: the other request stored it after this one
            # read the item. Answer as a resend after it would.
            existing = Grade.objects.get(pool_item_id=item, rater=rater)
            return _grade_change(existing, locked, rater, label, cant_judge, comment, now)
        cursor.execute("DELETE FROM annotate_lease WHERE id = %s", [locked.lease_id])
        if locked.renew_due:
            # Working keeps the rest of the query leased.
            until = at(_lease_until(campaign, now))
            params = [until, until, rater.pk, at(now), locked.query_id]
            cursor.execute(_RENEW_QUERY_LEASES, params)
    grade = Grade(
        pk=inserted[0],
        pool_item_id=item,
        rater=rater,
        label_id=label,
        cant_judge=cant_judge,
        comment=comment,
        seconds=seconds,
        created_at=now,
        changed_at=now,
    )
    return GradeOutcome(grade=grade, created=True, changed=False)


def _no_room(locked: _Locked, rater: AbstractBaseUser, now: datetime) -> GradeRefused | None:
    """Why a new counted grade must be refused, if it must."""
    if locked.lease_expired and not _has_capacity(locked, rater, now):
        # The expired lease is left alone (it no longer counts anywhere), and the raise
        # rolls the transaction back anyway; a resend gets the same answer.
        return GradeRefused(
            "Your time on this item ran out and other raters have graded it since; "
            "your grade was not needed. Continue with the next item.",
            status=409,
        )
    if locked.counted >= locked.needed:
        # Only when a manager lowered the number of raters after this lease was given.
        return GradeRefused("This item already has all the grades it needs.", status=409)
    return None


def _grade_change(
    grade: Grade,
    locked: _Locked,
    rater: AbstractBaseUser,
    label_id: int | None,
    cant_judge: bool,
    comment: str,
    now: datetime,
) -> GradeOutcome:
    if grade.label_id == label_id and grade.cant_judge == cant_judge:
        if comment and comment != grade.comment:
            grade.comment = comment
            grade.save(update_fields=["comment", "changed_at"])
        return GradeOutcome(grade=grade, created=False, changed=False)
    if grade.cant_judge and not cant_judge and not _has_capacity(locked, rater, now):
        raise GradeRefused("This item already has all the grades it needs.", status=409)
    GradeChange.objects.create(
        grade=grade,
        label_id=grade.label_id,
        cant_judge=grade.cant_judge,
        comment=grade.comment,
        given_at=grade.changed_at,
    )
    grade.label_id = label_id
    grade.cant_judge = cant_judge
    grade.comment = comment
    grade.save(update_fields=["label", "cant_judge", "comment", "changed_at"])
    return GradeOutcome(grade=grade, created=False, changed=True)


@transaction.atomic
def item_skip(*, rater: AbstractBaseUser, campaign: Campaign, item_id: int) -> Skip:
    """Skip an item: it is not offered to this rater again."""
    _ensure_rater(campaign, rater)
    item = _lock_item(campaign, item_id)
    if Grade.objects.filter(pool_item=item, rater=rater).exists():
        raise GradeRefused("You already graded this item; change the grade instead.", status=409)
    held = Lease.objects.filter(pool_item=item, rater=rater).exists()
    if not held and not Skip.objects.filter(pool_item=item, rater=rater).exists():
        raise GradeRefused("This item is not assigned to you.", status=403)
    skip, _ = Skip.objects.get_or_create(pool_item=item, rater=rater)
    Lease.objects.filter(pool_item=item, rater=rater).delete()
    return skip


@transaction.atomic
def lease_release(
    *, campaign: Campaign, rater: AbstractBaseUser | None = None, query_id: int | None = None
) -> int:
    """A manager frees leases (all of a rater's, or a query's); returns how many."""
    leases = Lease.objects.filter(pool_item__campaign=campaign)
    if rater is not None:
        leases = leases.filter(rater=rater)
    if query_id is not None:
        leases = leases.filter(pool_item__query_id=query_id)
    # The items first, as the queue locks them: deleting a lease updates its item's counters
    # (a trigger), and a rater grading that item holds the item while it deletes the lease.
    # Lease first and item second, the two would wait for each other.
    items = PoolItem.objects.filter(pk__in=leases.values("pool_item_id")).order_by("pk")
    locked = list(items.select_for_update().values_list("pk", flat=True))
    # Only on the items locked: a lease taken since is on an item this did not lock.
    deleted, _ = leases.filter(pool_item_id__in=locked).delete()
    return deleted


def rater_progress(*, rater: AbstractBaseUser, campaign: Campaign) -> dict[str, int]:
    """Done (grades and skips) and what is left that this rater could still take."""
    now = timezone.now()
    graded = Grade.objects.filter(pool_item__campaign=campaign, rater=rater).aggregate(
        total=Count("pk"), cant=Count("pk", filter=Q(cant_judge=True))
    )
    skipped = Skip.objects.filter(pool_item__campaign=campaign, rater=rater).count()
    left = open_items(campaign=campaign, rater=rater, now=now).count()
    held = Lease.objects.filter(
        pool_item__campaign=campaign, rater=rater, expires_at__gt=now
    ).count()
    done = graded["total"] + skipped
    return {
        "done": done,
        "graded": graded["total"] - graded["cant"],
        "cant_judge": graded["cant"],
        "skipped": skipped,
        "left": left + held,
        "assigned": done + left + held,
    }
