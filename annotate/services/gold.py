"""Gold: a manager settles the right answer of a pool item or a side-by-side task, to measure
raters by (annotate/selectors/gold.py) and to hide in their queues as honeypots
(annotate/judging/honeypots.py).

Marking gold sets the task's `gold` flag and the flag of every answer already given to it, in
one transaction under the task's row lock (the lock the judging path takes): the counting
triggers then leave those answers out (annotate/counted.py), and so do aggregation, GSB and
the exports of real work. A gold pool item's accepted label becomes its label in aggregation
by being its ruling (annotate/services/adjudication.py), the one merge every qrels path runs.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils.translation import gettext as _

from annotate.models import (
    Adjudication,
    Campaign,
    Comparison,
    GoldItem,
    GoldPurpose,
    GoldTask,
    Grade,
    Label,
    PoolItem,
    SxsTask,
    Verdict,
    VerdictValue,
)
from annotate.models.gold import MAX_EXPLANATION
from annotate.selectors.gold import item_shown_in_quiz, task_shown_in_quiz


class GoldRefused(Exception):
    """Gold that cannot be stored; the message says why, for the manager."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _checked_text(explanation: str, purpose: str) -> str:
    explanation = (explanation or "").strip()
    if len(explanation) > MAX_EXPLANATION:
        raise GoldRefused(
            _("Keep the explanation under %(n)s characters.") % {"n": MAX_EXPLANATION}
        )
    if purpose not in GoldPurpose.values:
        raise GoldRefused(_("Choose what the gold is for: honeypot or quiz."))
    return explanation


def labels_in_range(*, campaign: Campaign, low: float, high: float) -> list[Label]:
    """The campaign's labels whose grade lies in [low, high]: a range of accepted answers."""
    if low > high:
        raise GoldRefused(_("The range's low end is above its high end."))
    labels = list(campaign.labels.filter(grade__gte=low, grade__lte=high).order_by("grade"))
    if not labels:
        raise GoldRefused(_("No label of the scale lies in that range."))
    return labels


def _accepted_labels(campaign: Campaign, label_id: object, accepted: Iterable[object]) -> tuple:
    ids = {_as_int(label_id), *(_as_int(x) for x in accepted)}
    if None in ids:
        raise GoldRefused(_("Choose one of the campaign's labels."))
    labels = {label.pk: label for label in campaign.labels.filter(pk__in=ids)}
    if len(labels) != len(ids):
        raise GoldRefused(_("Choose one of the campaign's labels."))
    return labels[_as_int(label_id)], list(labels.values())


def _as_int(value: object) -> int | None:
    try:
        number = int(value)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        return None
    return number if 0 < number < 2**63 else None


@transaction.atomic
def gold_item_set(
    *,
    campaign: Campaign,
    manager: AbstractBaseUser | None,
    item_id: object,
    label_id: object,
    accepted: Iterable[object] = (),
    explanation: str = "",
    purpose: str = GoldPurpose.HONEYPOT,
) -> GoldItem:
    """Mark a pool item gold: `label_id` is its answer (its label in aggregation), `accepted`
    more labels counted right (a range: labels_in_range). Marking it again replaces the
    accepted answers. Raises GoldRefused for another campaign's item or label."""
    explanation = _checked_text(explanation, purpose)
    item = _locked_item(campaign, item_id)
    label, labels = _accepted_labels(campaign, label_id, accepted)
    # Locked before the quiz check: quiz_start locks the quiz gold it draws from, so an
    # attempt drawing this item is either seen below or drew it no more (#18).
    gold = GoldItem.objects.select_for_update().filter(pool_item=item).first()
    if purpose == GoldPurpose.HONEYPOT and item_shown_in_quiz(campaign=campaign, item_id=item.pk):
        # The quiz and the honeypots a rater meets stay disjoint (#18).
        raise GoldRefused(
            _(
                "Raters have already seen this pair in the qualification quiz, so it cannot "
                "be a honeypot: they would recognise it in their queue. Keep it for the quiz, "
                "or make another pair the honeypot."
            )
        )
    if gold is None:
        ruled = Adjudication.objects.filter(pool_item=item).exists()
        gold = GoldItem(pool_item=item, made_ruling=not ruled)
    gold.label, gold.explanation, gold.purpose, gold.manager = label, explanation, purpose, manager
    gold.save()
    gold.accepted.set(labels)
    _ruling_follows(gold, manager)
    PoolItem.objects.filter(pk=item.pk).update(gold=True)
    Grade.objects.filter(pool_item=item, gold=False).update(gold=True)
    _honeypots_counted(campaign)
    return gold


def _honeypots_counted(campaign: Campaign) -> None:
    """Keep Campaign.honeypot_gold, which spares the queue its draw when there is none."""
    honeypot = GoldPurpose.HONEYPOT
    n = GoldItem.objects.filter(pool_item__campaign=campaign, purpose=honeypot).count()
    n += GoldTask.objects.filter(task__comparison__campaign=campaign, purpose=honeypot).count()
    Campaign.objects.filter(pk=campaign.pk).update(honeypot_gold=n)
    campaign.honeypot_gold = n


def _locked_item(campaign: Campaign, item_id: object) -> PoolItem:
    pk = _as_int(item_id)
    # The row lock of the judging path: no answer is stored between the flags' updates.
    item = PoolItem.objects.select_for_update().filter(campaign=campaign, pk=pk).first()
    if pk is None or item is None:
        raise GoldRefused(_("That pool item is not part of this campaign."))
    return item


def _ruling_follows(gold: GoldItem, manager: AbstractBaseUser | None) -> None:
    note = gold.explanation or _("Gold answer.")
    ruling = Adjudication.objects.filter(pool_item_id=gold.pool_item_id).first()
    if ruling is None:
        Adjudication.objects.create(
            pool_item_id=gold.pool_item_id, label=gold.label, manager=manager, note=note
        )
    elif ruling.label_id != gold.label_id:
        ruling.label, ruling.manager = gold.label, manager
        ruling.save(update_fields=["label", "manager", "changed_at"])


@transaction.atomic
def gold_item_clear(*, campaign: Campaign, item_id: object) -> bool:
    """The item is real work again: its answers count again, and the ruling marking it gold
    made goes (a ruling the manager made before stays). Whether it was gold."""
    item = _locked_item(campaign, item_id)
    gold = GoldItem.objects.filter(pool_item=item).first()
    if gold is None:
        return False
    if gold.made_ruling:
        Adjudication.objects.filter(pool_item=item).delete()
    gold.delete()
    PoolItem.objects.filter(pk=item.pk).update(gold=False)
    Grade.objects.filter(pool_item=item, gold=True).update(gold=False)
    _honeypots_counted(campaign)
    return True


@transaction.atomic
def gold_task_set(
    *,
    comparison: Comparison,
    manager: AbstractBaseUser | None,
    task_id: object,
    value: str,
    explanation: str = "",
    purpose: str = GoldPurpose.HONEYPOT,
) -> GoldTask:
    """Mark a side-by-side task gold with its accepted verdict (G, S or B, for the candidate).
    Raises GoldRefused for another comparison's task or a value that is none of those."""
    explanation = _checked_text(explanation, purpose)
    if value not in VerdictValue.values:
        raise GoldRefused(_("Choose the accepted verdict: better, same or worse."))
    task = _locked_task(comparison, task_id)
    if task.identical:
        raise GoldRefused(_("Both sides of this task are identical; it cannot be gold."))
    GoldTask.objects.select_for_update().filter(task=task).first()  # as in gold_item_set
    if purpose == GoldPurpose.HONEYPOT and task_shown_in_quiz(
        comparison=comparison, task_id=task.pk
    ):
        raise GoldRefused(
            _(
                "Raters have already seen this task in the qualification quiz, so it cannot "
                "be a honeypot: they would recognise it in their queue. Keep it for the quiz, "
                "or make another task the honeypot."
            )
        )
    gold, _created = GoldTask.objects.update_or_create(
        task=task,
        defaults={
            "value": value,
            "explanation": explanation,
            "purpose": purpose,
            "manager": manager,
        },
    )
    SxsTask.objects.filter(pk=task.pk).update(gold=True)
    Verdict.objects.filter(task=task, gold=False).update(gold=True)
    _honeypots_counted(comparison.campaign)
    return gold


def _locked_task(comparison: Comparison, task_id: object) -> SxsTask:
    pk = _as_int(task_id)
    task = SxsTask.objects.select_for_update().filter(comparison=comparison, pk=pk).first()
    if pk is None or task is None:
        raise GoldRefused(_("That task is not part of this comparison."))
    return task


@transaction.atomic
def gold_task_clear(*, comparison: Comparison, task_id: object) -> bool:
    task = _locked_task(comparison, task_id)
    deleted, _by_model = GoldTask.objects.filter(task=task).delete()
    SxsTask.objects.filter(pk=task.pk).update(gold=False)
    Verdict.objects.filter(task=task, gold=True).update(gold=False)
    _honeypots_counted(comparison.campaign)
    return bool(deleted)


@transaction.atomic
def gold_from_adjudications(
    *,
    campaign: Campaign,
    manager: AbstractBaseUser | None,
    purpose: str = GoldPurpose.HONEYPOT,
) -> int:
    """Every adjudicated item not yet gold becomes gold, its ruling the accepted answer and
    the ruling's note the explanation. How many items became gold. As honeypots, the items
    raters met in the quiz are left as they are (gold_item_set would refuse them)."""
    rulings = (
        Adjudication.objects.filter(pool_item__campaign=campaign, pool_item__gold=False)
        .select_related("label")
        .order_by("pool_item_id")
    )
    made = 0
    for ruling in rulings:
        if purpose == GoldPurpose.HONEYPOT and item_shown_in_quiz(
            campaign=campaign, item_id=ruling.pool_item_id
        ):
            continue
        gold_item_set(
            campaign=campaign,
            manager=manager,
            item_id=ruling.pool_item_id,
            label_id=ruling.label_id,
            explanation=ruling.note[:MAX_EXPLANATION],
            purpose=purpose,
        )
        made += 1
    return made


def honeypot_share_set(*, campaign: Campaign, share: float) -> None:
    """The share of each rater's queries that are honeypots (0 to 1)."""
    if not 0 <= share <= 1:
        raise GoldRefused(_("The share of honeypots is a number from 0 to 1."))
    Campaign.objects.filter(pk=campaign.pk).update(honeypot_share=share)
    campaign.honeypot_share = share


def no_such_task() -> GoldRefused:
    return GoldRefused(_("That comparison has no task for this query and position."))


def gold_task_by_names(*, comparison: Comparison, query: str, position: int | None) -> SxsTask:
    """The comparison's task for a query's external id (and position, per position); never a
    rater's mirrored copy of it, which shares its query and position."""
    task = comparison.tasks.filter(
        query__external_id=query, position=position, mirror_of__isnull=True
    ).first()
    if task is None:
        raise no_such_task()
    return task


def pool_item_by_names(*, campaign: Campaign, query: str, document: str) -> PoolItem:
    item = PoolItem.objects.filter(
        campaign=campaign, query__external_id=query, document__external_id=document
    ).first()
    if item is None:
        raise GoldRefused(_("That query and document are not a pair of this campaign's pool."))
    return item
