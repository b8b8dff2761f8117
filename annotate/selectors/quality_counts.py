"""The counts under the per-rater quality figures (#18), each taken by the database in one
query whatever the size of the campaign: answers, agreement pairs, mirrored pairs and labels
given, per rater. Only the answer times come back one row per answer (the medians need them),
and then as two columns, not as model instances. annotate/selectors/quality.py turns the
counts into proportions, shares and medians.

Graded items and side-by-side tasks both count: a grade agrees with another rater's grade of
the same item when the labels are the same, a verdict with another's verdict on the same task
when both say the same of the candidate (Good, Same, Bad). Can't-judge answers are no answer.
"""

from __future__ import annotations

from django.db.models import Count, F, Q, QuerySet

from annotate.models import Campaign, Grade, Label, Verdict


def answer_counts(campaign: Campaign) -> dict[int, int]:
    """Per rater: their answers, graded and side-by-side, can't-judge included."""
    counts: dict[int, int] = {}
    for qs in (
        Grade.objects.filter(pool_item__campaign=campaign),
        Verdict.objects.filter(task__comparison__campaign=campaign),
    ):
        for rater, n in qs.order_by().values_list("rater_id").annotate(n=Count("pk")):
            counts[rater] = counts.get(rater, 0) + n
    return counts


def answer_times(campaign: Campaign, rater_id: int | None = None) -> dict[int, list]:
    """Per rater (or the one asked for): (day, seconds) of every answer that recorded its time."""
    grades = Grade.objects.filter(pool_item__campaign=campaign, seconds__isnull=False)
    verdicts = Verdict.objects.filter(task__comparison__campaign=campaign, seconds__isnull=False)
    if rater_id is not None:
        grades, verdicts = grades.filter(rater_id=rater_id), verdicts.filter(rater_id=rater_id)
    times: dict[int, list] = {}
    for qs in (grades, verdicts):
        for rater, seconds, at in qs.values_list("rater_id", "seconds", "created_at"):
            times.setdefault(rater, []).append((at.date().isoformat(), seconds))
    return times


def agreement_counts(campaign: Campaign) -> dict[int, tuple[int, int]]:
    """Per rater: (agreeing pairs, pairs) of their answer with another rater's answer on the
    same item or task, over graded items and side-by-side tasks together (mirrors apart)."""
    grades = Grade.objects.filter(pool_item__campaign=campaign, cant_judge=False)
    verdicts = Verdict.objects.filter(
        task__comparison__campaign=campaign, task__mirror_of__isnull=True, cant_judge=False
    )
    counts: dict[int, tuple[int, int]] = {}
    for answers, others, value in (
        (grades, "pool_item__grades", "label_id"),
        (verdicts, "task__verdicts", "value"),
    ):
        for rater, (k, n) in _pair_counts(answers, others, value).items():
            before = counts.get(rater, (0, 0))
            counts[rater] = (before[0] + k, before[1] + n)
    return counts


def _pair_counts(answers: QuerySet, others: str, value: str) -> dict[int, tuple[int, int]]:
    """Joins each answer to every answer of its item (`others`): per rater, the joined rows
    are sum(n_item) and those with the same value sum(same_item); each answer meets itself
    once in both, so taking off the rater's answers leaves the pairs with the others."""
    judged = Q(**{f"{others}__cant_judge": False})
    rows = (
        answers.order_by()
        .values("rater_id")
        .annotate(
            mine=Count("pk", distinct=True),
            seen=Count(others, filter=judged),
            same=Count(others, filter=judged & Q(**{f"{others}__{value}": F(value)})),
        )
        .values_list("rater_id", "mine", "seen", "same")
    )
    return {rater: (same - mine, seen - mine) for rater, mine, seen, same in rows}


def mirror_counts(campaign: Campaign, rater_id: int | None = None) -> dict[int, tuple[int, int]]:
    """Per rater (or the one asked for): (same, pairs) of their verdict on a mirrored duplicate
    and their own verdict on its original, both in the candidate's terms (Good, Same, Bad), so
    a swapped side needs no undoing: the side each verdict was given on is stored with it."""
    mirrors = Verdict.objects.filter(
        task__comparison__campaign=campaign, task__mirror_of__isnull=False, cant_judge=False
    )
    if rater_id is not None:
        mirrors = mirrors.filter(rater_id=rater_id)
    first = "task__mirror_of__verdicts"
    own = Q(**{f"{first}__rater_id": F("rater_id"), f"{first}__cant_judge": False})
    rows = (
        mirrors.order_by()
        .values("rater_id")
        .annotate(
            n=Count(first, filter=own),
            k=Count(first, filter=own & Q(**{f"{first}__value": F("value")})),
        )
        .values_list("rater_id", "k", "n")
    )
    return {rater: (k, n) for rater, k, n in rows}


def label_counts(campaign: Campaign) -> tuple[list[tuple[int, str]], dict[int, list[int]]]:
    """The scale's (label id, name) in order, and per rater how many grades gave each label,
    in that order (can't-judge left out)."""
    scale = list(
        Label.objects.filter(campaign=campaign).order_by("position").values_list("pk", "name")
    )
    index = {pk: i for i, (pk, _) in enumerate(scale)}
    rows = (
        Grade.objects.filter(pool_item__campaign=campaign, cant_judge=False)
        .order_by()
        .values_list("rater_id", "label_id")
        .annotate(n=Count("pk"))
    )
    given: dict[int, list[int]] = {}
    for rater, label, n in rows:
        given.setdefault(rater, [0] * len(scale))[index[label]] = n
    return scale, given


__all__ = ["agreement_counts", "answer_counts", "answer_times", "label_counts", "mirror_counts"]
