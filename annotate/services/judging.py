"""The judging screen's two moves: record what the rater chose, and hand out what comes next."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser

from annotate.forms.judge import ACTION_CANT_JUDGE, ACTION_SKIP
from annotate.models import Campaign, PoolItem
from annotate.selectors_judge import campaign_progress, in_query_blocks, item_payload
from annotate.services.queue import (
    grade_submit,
    item_skip,
    queue_items,
    queue_lease_ahead,
    rater_progress,
)


def judgment_record(
    *,
    rater: AbstractBaseUser,
    campaign: Campaign,
    item_id: int,
    action: str,
    label_id: int | None = None,
    comment: str = "",
    seconds: float | None = None,
) -> str:
    """Store a grade, a can't-judge or a skip; returns what happened: "created", "changed",
    "unchanged" or "skipped". Raises GradeRefused when it must not be stored."""
    if action == ACTION_SKIP:
        item_skip(rater=rater, campaign=campaign, item_id=item_id)
        return "skipped"
    cant_judge = action == ACTION_CANT_JUDGE
    outcome = grade_submit(
        rater=rater,
        campaign=campaign,
        item_id=item_id,
        label_id=None if cant_judge else label_id,
        cant_judge=cant_judge,
        comment=comment,
        seconds=seconds,
    )
    if outcome.created:
        return "created"
    return "changed" if outcome.changed else "unchanged"


def judge_queue(
    *, rater: AbstractBaseUser, campaign: Campaign, look_ahead: bool = False
) -> list[PoolItem]:
    """The items the rater holds, one query after the other.

    With look_ahead, a rater down to the last item of a query also gets the next query now,
    so the client already has the following item when the key is pressed.
    """
    items = queue_items(rater=rater, campaign=campaign)
    if look_ahead and len(items) == 1:
        items += queue_lease_ahead(rater=rater, campaign=campaign)
    return in_query_blocks(items, rater)


def judge_state(
    *, rater: AbstractBaseUser, campaign: Campaign, progress: bool = True
) -> tuple[list[PoolItem], dict]:
    """The rater's queue (with the next item prefetched) and what the screen shows of it:
    the items as the rater may see them and, with progress, the rater's own progress and the
    campaign's. Counting progress scans the campaign's pool: an answer to a grade leaves it
    out (the client counts its own grades and asks for progress once per query)."""
    items = judge_queue(rater=rater, campaign=campaign, look_ahead=True)
    state: dict = {"items": [item_payload(item) for item in items]}
    if progress:
        state.update(progress_state(rater=rater, campaign=campaign))
    return items, state


def progress_state(*, rater: AbstractBaseUser, campaign: Campaign) -> dict:
    return {
        "progress": rater_progress(rater=rater, campaign=campaign),
        "campaign": campaign_progress(campaign),
    }
