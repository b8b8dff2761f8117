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
from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone

from annotate.models import Campaign, Grade, GradeChange, Label, Lease, PoolItem, Role, Skip
from annotate.selectors_queue import open_items, slots_taken

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
    if not campaign.memberships.filter(user=rater, role=Role.RATER).exists():
        raise GradeRefused("You are not a rater of this campaign.", status=403)


def queue_items(*, rater: AbstractBaseUser, campaign: Campaign) -> list[PoolItem]:
    """The items the rater holds now, in their own order; leases the next query when empty.

    Working renews the lease, so a rater who keeps grading never loses their query.
    """
    _ensure_rater(campaign, rater)
    now = timezone.now()
    held = list(
        PoolItem.objects.filter(
            leases__rater=rater, leases__expires_at__gt=now, campaign=campaign
        ).select_related("query", "document")
    )
    if not held:
        held = _lease_next_query(rater=rater, campaign=campaign, now=now)
    else:
        Lease.objects.filter(rater=rater, pool_item__in=held).update(
            expires_at=_lease_until(campaign, now)
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
        tried: set[int] = set()
        contended = False
        while True:
            first = (
                open_items(campaign=campaign, rater=rater, now=now)
                .exclude(query_id__in=tried)
                .order_by("query_id")
                .values_list("query_id", flat=True)
                .first()
            )
            if first is None:
                break
            tried.add(first)
            leased, skipped = _lease_query(rater=rater, campaign=campaign, query_id=first, now=now)
            if leased:
                return leased
            contended = contended or skipped
        if not contended:
            return []
        time.sleep(CONTENDED_WAIT * (round_ + 1))
        now = timezone.now()
    return []


@transaction.atomic
def _lease_query(
    *, rater: AbstractBaseUser, campaign: Campaign, query_id: int, now: datetime
) -> tuple[list[PoolItem], bool]:
    """The items leased on the query, and whether some rows were skipped because another
    rater was locking them."""
    ids = list(
        open_items(campaign=campaign, rater=rater, now=now)
        .filter(query_id=query_id)
        .values_list("pk", flat=True)
    )
    # Lock the rows, skipping those another rater is leasing at this very moment; then
    # recount under the lock, since the first read may already be stale.
    locked = list(
        PoolItem.objects.select_for_update(skip_locked=True, of=("self",))
        .filter(pk__in=ids)
        .select_related("query", "document")
    )
    taken = slots_taken([item.pk for item in locked], now=now, exclude_rater=rater)
    overlap = campaign.overlap
    free = [item for item in locked if taken.get(item.pk, 0) < (item.raters_needed or overlap)]
    expires = _lease_until(campaign, now)
    Lease.objects.bulk_create(
        [Lease(pool_item=item, rater=rater, expires_at=expires) for item in free],
        update_conflicts=True,
        unique_fields=["pool_item", "rater"],
        update_fields=["expires_at"],
    )
    return free, len(locked) < len(ids)


def _lock_item(campaign: Campaign, item_id: int) -> PoolItem:
    try:
        return PoolItem.objects.select_for_update(of=("self",)).get(pk=item_id, campaign=campaign)
    except (PoolItem.DoesNotExist, ValueError, TypeError):
        raise GradeRefused("This item is not part of this campaign.", status=404) from None


def _has_capacity(item: PoolItem, rater: AbstractBaseUser, campaign: Campaign) -> bool:
    now = timezone.now()
    taken = slots_taken([item.pk], now=now, exclude_rater=rater).get(item.pk, 0)
    return taken < (item.raters_needed or campaign.overlap)


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
    """
    _ensure_rater(campaign, rater)
    item = _lock_item(campaign, item_id)
    label = _label_for(campaign, label_id, cant_judge)
    seconds = None if seconds is None else min(max(float(seconds), 0.0), 3600.0)
    comment = (comment or "").strip()[:2000]
    existing = Grade.objects.filter(pool_item=item, rater=rater).first()
    if existing is not None:
        return _grade_change(existing, item, rater, campaign, label, cant_judge, comment)

    lease = Lease.objects.filter(pool_item=item, rater=rater).first()
    if lease is None:
        raise GradeRefused("This item is not assigned to you.", status=403)
    expired = lease.expires_at <= timezone.now()
    if expired and not cant_judge and not _has_capacity(item, rater, campaign):
        # The expired lease is left alone (it no longer counts anywhere), and the raise
        # rolls the transaction back anyway; a resend gets the same answer.
        raise GradeRefused(
            "Your time on this item ran out and other raters have graded it since; "
            "your grade was not needed. Continue with the next item.",
            status=409,
        )
    grade = Grade.objects.create(
        pool_item=item,
        rater=rater,
        label=label,
        cant_judge=cant_judge,
        comment=comment,
        seconds=seconds,
    )
    lease.delete()
    # Working keeps the rest of the query leased.
    Lease.objects.filter(rater=rater, pool_item__query_id=item.query_id).update(
        expires_at=_lease_until(campaign, timezone.now())
    )
    return GradeOutcome(grade=grade, created=True, changed=False)


def _label_for(campaign: Campaign, label_id: int | None, cant_judge: bool) -> Label | None:
    if cant_judge:
        return None
    if label_id is None:
        raise GradeRefused("Choose a label.")
    try:
        return campaign.labels.get(pk=label_id)
    except (Label.DoesNotExist, ValueError, TypeError):
        raise GradeRefused("That label is not on this campaign's scale.") from None


def _grade_change(
    grade: Grade,
    item: PoolItem,
    rater: AbstractBaseUser,
    campaign: Campaign,
    label: Label | None,
    cant_judge: bool,
    comment: str,
) -> GradeOutcome:
    if grade.label_id == (label.pk if label else None) and grade.cant_judge == cant_judge:
        if comment and comment != grade.comment:
            grade.comment = comment
            grade.save(update_fields=["comment", "changed_at"])
        return GradeOutcome(grade=grade, created=False, changed=False)
    if grade.cant_judge and not cant_judge and not _has_capacity(item, rater, campaign):
        raise GradeRefused("This item already has all the grades it needs.", status=409)
    GradeChange.objects.create(
        grade=grade,
        label=grade.label,
        cant_judge=grade.cant_judge,
        comment=grade.comment,
        given_at=grade.changed_at,
    )
    grade.label = label
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


def lease_release(
    *, campaign: Campaign, rater: AbstractBaseUser | None = None, query_id: int | None = None
) -> int:
    """A manager frees leases (all of a rater's, or a query's); returns how many."""
    leases = Lease.objects.filter(pool_item__campaign=campaign)
    if rater is not None:
        leases = leases.filter(rater=rater)
    if query_id is not None:
        leases = leases.filter(pool_item__query_id=query_id)
    deleted, _ = leases.delete()
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
