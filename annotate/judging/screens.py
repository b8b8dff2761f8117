"""What a judging screen asks of the mechanism, for either kind: record what the rater chose,
and hand out what comes next (the held tasks as the rater may see them, with the progress).
The page views, their JSON endpoints and the REST API all call these."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.utils import timezone

from annotate.forms.judge import ACTION_CANT_JUDGE, ACTION_SKIP, ACTION_UNSKIP
from annotate.judging import handles
from annotate.judging.graded import GRADED, grade_submit, queue_items
from annotate.judging.kinds import SKIP_TOKEN, Outcome, TaskKind
from annotate.judging.progress import rater_progress, rater_sxs_progress
from annotate.judging.skips import skip_submit, skip_undo
from annotate.judging.sxs import SXS, sxs_queue, verdict_submit
from annotate.models import Campaign, Comparison, Lease, PoolItem, SxsTask, TaskLease
from annotate.selectors_judge import Card, campaign_progress, item_payload, known_stub
from annotate.selectors_sxs import comparison_progress, task_payloads


def judgment_record(*, rater: AbstractBaseUser, campaign: Campaign, data: dict) -> Outcome:
    """Store a grade, a can't-judge or a skip from a JudgeForm's cleaned data; the outcome's
    result says what happened: "created", "changed", "unchanged" or "skipped". Raises
    GradeRefused when it must not be stored."""
    item_id, action = item_of(rater, data["item"]), data["action"]
    if action in (ACTION_SKIP, ACTION_UNSKIP):
        return skip_record(GRADED, rater=rater, scope=campaign, task_id=item_id, action=action)
    cant_judge = action == ACTION_CANT_JUDGE
    return grade_submit(
        rater=rater,
        campaign=campaign,
        item_id=item_id,
        label_id=None if cant_judge else data.get("label"),
        cant_judge=cant_judge,
        comment=data.get("comment") or "",
        seconds=data.get("seconds"),
        replaces=data.get("replaces"),
    )


def item_of(rater: AbstractBaseUser, handle: object) -> int | None:
    """The pool item a rater's handle names (None: refused as not found, 404). A numeric id,
    as sent before handles, only for an item the rater held then (handles.py)."""
    return _task_named(rater, handle, handles.GRADED, Lease, "pool_item_id")


def task_of(rater: AbstractBaseUser, handle: object) -> int | None:
    """The side-by-side task a rater's handle names; see item_of."""
    return _task_named(rater, handle, handles.SXS, TaskLease, "task_id")


def _task_named(
    rater: AbstractBaseUser, handle: object, kind: str, lease_model: type, fk: str
) -> int | None:
    task_id = handles.task_id_for(rater.pk, kind, handle)
    old = handles.legacy_id(handle) if task_id is None else None
    if old is None:
        return task_id
    held = lease_model.objects.filter(**{fk: old}, rater=rater, legacy=True)
    return old if held.exists() else task_id


def answer_token(kind: TaskKind, answer: Any, skipped: bool) -> str:
    """What a page showing the rater's stored answer (or skip) sends back as `replaces`."""
    if answer is not None:
        return kind.token(answer)
    return SKIP_TOKEN if skipped else ""


def skip_record(
    kind: TaskKind, *, rater: AbstractBaseUser, scope: Any, task_id: object, action: str
) -> Outcome:
    """A skip ("skip") or undoing one ("unskip"), for either kind."""
    if action == ACTION_UNSKIP:
        return skip_undo(kind, rater=rater, scope=scope, task_id=task_id)
    return skip_submit(kind, rater=rater, scope=scope, task_id=task_id)


def judge_queue(
    *, rater: AbstractBaseUser, campaign: Campaign, look_ahead: bool = False
) -> list[PoolItem]:
    """The items the rater holds, one query after the other (the next prefetched with
    look_ahead)."""
    return queue_items(rater=rater, campaign=campaign, look_ahead=look_ahead)


def judge_state(
    *,
    rater: AbstractBaseUser,
    campaign: Campaign,
    progress: bool = True,
    known: frozenset[str] = frozenset(),
) -> tuple[list[PoolItem], dict]:
    """The rater's queue (with the next item prefetched) and what the screen shows of it:
    the items as the rater may see them and, with progress, the rater's own progress and the
    campaign's. Counting progress scans the campaign's pool: an answer to a grade leaves it
    out (the client counts its own grades and asks for progress once per query). Items whose
    handle is in `known` go as their handle alone (selectors_judge.known_stub)."""
    items = judge_queue(rater=rater, campaign=campaign, look_ahead=True)
    card = Card.of(campaign)
    state: dict = {"items": []}
    for item in items:
        handle = handles.handle_for(rater.pk, handles.GRADED, item.pk)
        shown = known_stub(handle) if handle in known else item_payload(item, rater, card, handle)
        state["items"].append(shown)
    if progress:
        state.update(progress_state(rater=rater, campaign=campaign))
    return items, state


def progress_state(*, rater: AbstractBaseUser, campaign: Campaign) -> dict:
    return {
        "progress": rater_progress(rater=rater, campaign=campaign),
        "campaign": campaign_progress(campaign),
    }


def sxs_record(*, rater: AbstractBaseUser, comparison: Comparison, data: dict) -> Outcome:
    """Store a verdict from a VerdictForm's cleaned data. Raises VerdictRefused when it must
    not be stored."""
    if data.get("action") in (ACTION_SKIP, ACTION_UNSKIP):
        task_id = task_of(rater, data["task"])
        return skip_record(
            SXS, rater=rater, scope=comparison, task_id=task_id, action=data["action"]
        )
    return verdict_submit(
        rater=rater,
        comparison=comparison,
        task_id=task_of(rater, data["task"]),
        chosen=data["chosen"],
        strength=data.get("strength"),
        reason=data.get("reason") or "",
        seconds=data.get("seconds"),
        replaces=data.get("replaces"),
    )


def sxs_state(
    *,
    rater: AbstractBaseUser,
    comparison: Comparison,
    progress: bool = True,
    known: frozenset[str] = frozenset(),
) -> tuple[list[tuple[SxsTask, str]], dict]:
    """The rater's held tasks (the next one prefetched) and what the screen shows of them
    (tasks whose handle is in `known` as their handle alone)."""
    held = sxs_queue(rater=rater, comparison=comparison, look_ahead=True)
    state: dict = {"tasks": task_payloads(comparison, held, rater, known)}
    if progress:
        state.update(sxs_progress_state(rater=rater, comparison=comparison))
    return held, state


def sxs_progress_state(*, rater: AbstractBaseUser, comparison: Comparison) -> dict:
    return {
        "progress": rater_sxs_progress(rater=rater, comparison=comparison, now=timezone.now()),
        "overall": overall_progress(comparison),
    }


def overall_progress(comparison: Comparison) -> dict[str, int]:
    progress = comparison_progress(comparison)
    return {"counted": progress["counted"], "needed": progress["needed"]}
