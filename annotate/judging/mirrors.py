"""Mirrored duplicates of side-by-side tasks (#18): a share of the tasks a rater answers comes
back to the same rater later with the sides swapped, so their consistency can be measured.

A mirror is its own task (SxsTask with `mirror_of`), open to its rater alone from
`offer_after` on (annotate/judging/sxs.py's open rule), shown with the candidate on the other
side than on the rater's answer to the original. To the rater it is a task like any other: the
same page, the same JSON and the same handle scheme. Which answers are mirrored is a keyed draw
(an HMAC under the comparison's side secret), so nobody outside the server can predict it.
Mirrors are never real work: annotate/selectors/real.py leaves them out of GSB, progress and
exports, and a mirror's verdict counts on the mirror alone, never on the original's counters.
"""

from __future__ import annotations

import hashlib
import hmac
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils import timezone

from annotate.models import Comparison, Side, SxsTask, Verdict
from config.db import hot_cursor

# Seconds between answering a task and its mirror being offered (settings can override it).
DEFAULT_DELAY_SECONDS = 600


def mirror_drawn(*, secret: str, rater_id: int, task_id: int, share: float) -> bool:
    """Whether this rater's answer to this task is mirrored: a keyed uniform draw below
    `share`, the same every time it is asked."""
    if share <= 0:
        return False
    mac = hmac.new(bytes.fromhex(secret), f"mirror:{rater_id}:{task_id}".encode(), hashlib.sha256)
    draw = int.from_bytes(mac.digest()[:8], "big") / 2**64
    return draw < share


def swapped(side: str) -> str:
    return Side.RIGHT if side == Side.LEFT else Side.LEFT


def delay() -> timedelta:
    return timedelta(seconds=getattr(settings, "SXS_MIRROR_DELAY_SECONDS", DEFAULT_DELAY_SECONDS))


def mirror_make(*, comparison: Comparison, verdict: Verdict, rater: AbstractBaseUser) -> SxsTask:
    """The mirror of the verdict's task for its rater (made once; made again it is found)."""
    original = SxsTask.objects.only("query_id", "position").get(pk=verdict.task_id)
    try:
        with transaction.atomic():
            return SxsTask.objects.create(
                comparison=comparison,
                query_id=original.query_id,
                position=original.position,
                mirror_of=original,
                mirror_rater=rater,
                mirror_side=swapped(verdict.candidate_side),
                offer_after=timezone.now() + delay(),
            )
    except IntegrityError:  # made by a concurrent resend of the same answer
        return SxsTask.objects.get(mirror_of=original, mirror_rater=rater)


_MIRROR_OF = "SELECT mirror_of_id FROM annotate_sxstask WHERE id = %s"


def after_verdict(*, comparison: Comparison, verdict: Verdict, rater: AbstractBaseUser) -> bool:
    """What a newly stored verdict sets off: the mirror of its task when drawn. Returns
    whether the verdict answered a mirror (its rater's consistency may have changed)."""
    # A hot statement: every verdict asks, and the ORM's query cost more to compile than to run.
    with hot_cursor() as cursor:
        cursor.execute(_MIRROR_OF, [verdict.task_id])
        row = cursor.fetchone()
    if row is not None and row[0] is not None:
        return True
    if verdict.cant_judge:
        return False
    if mirror_drawn(
        secret=comparison.side_secret,
        rater_id=rater.pk,
        task_id=verdict.task_id,
        share=comparison.mirror_share,
    ):
        mirror_make(comparison=comparison, verdict=verdict, rater=rater)
    return False
