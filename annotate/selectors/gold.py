"""Gold, read: the gold items and tasks of a campaign, and each rater's accuracy on them.

Accuracy counts a rater's answers to tasks that are gold now (answered as a honeypot, or
before the task was marked gold); can't-judge answers are left out. A graded answer is exact
when its label is among the accepted ones, and within one grade when it is at most one step
of the scale (labels ordered by grade) from an accepted label. Each share comes with Wilson's
95% interval (metrics.core.stats.rater_quality.wilson), which stays inside [0, 1] for the few
answers a rater has early on. This is the figure pausing a rater reads (issue 18's
thresholds), so the counts are taken by the database, for one rater when asked, in one query
each.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db.models import (
    Case,
    Count,
    Exists,
    F,
    IntegerField,
    OuterRef,
    Q,
    QuerySet,
    Value,
    When,
)

from annotate.models import (
    Campaign,
    Comparison,
    GoldItem,
    GoldTask,
    Grade,
    QuizAnswer,
    QuizAttempt,
    Verdict,
)
from metrics.core.stats.rater_quality import Proportion, wilson

CONFIDENCE = 0.95


@dataclass(frozen=True)
class GoldAccuracy:
    """One rater's accuracy on gold: `exact`, and for graded work `within_one` (None for
    side-by-side, where a verdict is right or wrong)."""

    rater_id: int
    username: str
    answers: int
    exact: Proportion
    within_one: Proportion | None


def gold_items(*, campaign: Campaign) -> QuerySet[GoldItem]:
    return (
        GoldItem.objects.filter(pool_item__campaign=campaign)
        .select_related("pool_item__query", "pool_item__document", "label")
        .prefetch_related("accepted")
        .order_by("pool_item__query__external_id", "pool_item__document__external_id")
    )


def gold_tasks(*, comparison: Comparison) -> QuerySet[GoldTask]:
    return (
        GoldTask.objects.filter(task__comparison=comparison)
        .select_related("task__query")
        .order_by("task__query__external_id", "task__position")
    )


def item_shown_in_quiz(*, campaign: Campaign, item_id: int) -> bool:
    """Whether a rater has met this pool item in the campaign's quiz: answered it (and so
    saw its accepted answer or learnt theirs was right), or has it drawn in an attempt under
    way (maybe on screen now). A finished attempt has every drawn question answered."""
    if QuizAnswer.objects.filter(pool_item_id=item_id).exists():
        return True
    open_attempts = QuizAttempt.objects.filter(
        campaign=campaign, comparison=None, finished_at__isnull=True
    )
    return any(item_id in drawn for drawn in open_attempts.values_list("drawn", flat=True))


def task_shown_in_quiz(*, comparison: Comparison, task_id: int) -> bool:
    """Whether a rater has met this side-by-side task in the comparison's quiz (as
    item_shown_in_quiz)."""
    if QuizAnswer.objects.filter(task_id=task_id).exists():
        return True
    open_attempts = QuizAttempt.objects.filter(comparison=comparison, finished_at__isnull=True)
    return any(task_id in drawn for drawn in open_attempts.values_list("drawn", flat=True))


def _steps(campaign: Campaign) -> dict[int, int]:
    """Each label's step on the scale (0 for the lowest grade)."""
    ids = campaign.labels.order_by("grade").values_list("pk", flat=True)
    return {label_id: step for step, label_id in enumerate(ids)}


def graded_gold_counts(
    *, campaign: Campaign, rater_id: int | None = None
) -> dict[int, tuple[int, int, int]]:
    """Per rater (or the one asked for): (answers, exact, within one grade) on graded gold,
    counted by the database in one query. A label's step is written into the query (a scale
    has a handful of labels), so "within one" is an EXISTS over the item's accepted labels."""
    steps = _steps(campaign)
    if not steps:
        return {}
    accepted = GoldItem.accepted.through.objects.filter(
        golditem__pool_item_id=OuterRef("pool_item_id")
    )
    answers = Grade.objects.filter(
        pool_item__campaign=campaign, gold=True, cant_judge=False, pool_item__gold=True
    ).filter(Exists(accepted))
    if rater_id is not None:
        answers = answers.filter(rater_id=rater_id)
    near = accepted.annotate(step=_step_of("label_id", steps)).filter(
        step__gte=OuterRef("step") - 1, step__lte=OuterRef("step") + 1
    )
    rows = (
        answers.annotate(
            step=_step_of("label_id", steps),
            exact=Exists(accepted.filter(label_id=OuterRef("label_id"))),
            within=Exists(near),
        )
        .order_by()
        .values("rater_id")
        .annotate(
            n=Count("pk"),
            k=Count("pk", filter=Q(exact=True)),
            near=Count("pk", filter=Q(within=True)),
        )
        .values_list("rater_id", "n", "k", "near")
    )
    return {rater: (n, k, near) for rater, n, k, near in rows}


def _step_of(field: str, steps: dict[int, int]) -> Case:
    return Case(
        *(When(**{field: label_id}, then=Value(step)) for label_id, step in steps.items()),
        output_field=IntegerField(),
    )


def sxs_gold_counts(
    *,
    campaign: Campaign | None = None,
    comparison: Comparison | None = None,
    rater_id: int | None = None,
) -> dict[int, tuple[int, int]]:
    """Per rater (or the one asked for): (answers, exact) on the side-by-side gold of a
    comparison, or of all the campaign's comparisons at once (a rater is one rater across
    them), counted by the database in one query."""
    if (campaign is None) == (comparison is None):
        raise ValueError("give a campaign or a comparison")
    scope = (
        {"task__comparison": comparison} if comparison else {"task__comparison__campaign": campaign}
    )
    answers = Verdict.objects.filter(
        **scope, gold=True, cant_judge=False, task__gold=True, task__gold_entry__isnull=False
    )
    if rater_id is not None:
        answers = answers.filter(rater_id=rater_id)
    rows = (
        answers.order_by()
        .values("rater_id")
        .annotate(n=Count("pk"), k=Count("pk", filter=Q(value=F("task__gold_entry__value"))))
        .values_list("rater_id", "n", "k")
    )
    return {rater: (n, k) for rater, n, k in rows}


def graded_gold_accuracy(*, campaign: Campaign) -> list[GoldAccuracy]:
    """Every rater with an answer to gold in the campaign, by username."""
    counts = graded_gold_counts(campaign=campaign)
    names = _usernames(counts)
    return sorted(
        (
            GoldAccuracy(
                rater_id=rater_id,
                username=names[rater_id],
                answers=n,
                exact=wilson(exact, n, CONFIDENCE),
                within_one=wilson(near, n, CONFIDENCE),
            )
            for rater_id, (n, exact, near) in counts.items()
        ),
        key=lambda a: a.username,
    )


def sxs_gold_accuracy(*, comparison: Comparison) -> list[GoldAccuracy]:
    """Every rater with a verdict on the comparison's gold tasks, by username."""
    counts = sxs_gold_counts(comparison=comparison)
    names = _usernames(counts)
    return sorted(
        (
            GoldAccuracy(
                rater_id=rater_id,
                username=names[rater_id],
                answers=n,
                exact=wilson(exact, n, CONFIDENCE),
                within_one=None,
            )
            for rater_id, (n, exact) in counts.items()
        ),
        key=lambda a: a.username,
    )


def _usernames(ids: object) -> dict[int, str]:
    users = get_user_model().objects.filter(pk__in=list(ids))  # type: ignore[call-overload]
    return dict(users.values_list("pk", "username"))
