"""Which answers are real work (#18): every read that aggregates, reports, decides or exports
goes through these. Left out are the answers to gold (a test of the rater, not a judgment of
the task: a gold item's label is its accepted one), the verdicts on mirrored duplicates (a
consistency check) and the answers of raters a manager excluded."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, Exists, OuterRef, Q, QuerySet

from annotate.models import Campaign, Comparison, Grade, Membership, QualityEvent, Role, Verdict


def excluded_raters(campaign: Campaign | int) -> QuerySet:
    """The ids of the raters whose answers in this campaign are excluded (a subquery)."""
    return Membership.objects.filter(
        campaign=campaign, role=Role.RATER, answers_excluded=True
    ).values("user_id")


def excluded_answer(campaign_path: str) -> Q:
    """An answer whose rater is excluded in the answer's own campaign, for reads over
    several campaigns at once (the API's lists); `campaign_path` leads from the answer to its
    campaign's id ("pool_item__campaign_id", "task__comparison__campaign_id")."""
    return Q(
        Exists(
            Membership.objects.filter(
                campaign_id=OuterRef(campaign_path),
                user_id=OuterRef("rater_id"),
                role=Role.RATER,
                answers_excluded=True,
            )
        )
    )


def real_grades(grades: QuerySet, campaign: Campaign | int) -> QuerySet:
    """Grades that count as work: no answers to gold, no excluded rater's."""
    return grades.filter(gold=False).exclude(rater_id__in=excluded_raters(campaign))


def real_verdicts(verdicts: QuerySet, campaign: Campaign | int) -> QuerySet:
    """Verdicts that count as work: none on gold or on mirrored duplicates, none of an
    excluded rater's."""
    return verdicts.filter(gold=False, task__mirror_of__isnull=True).exclude(
        rater_id__in=excluded_raters(campaign)
    )


def real_tasks(tasks: QuerySet) -> QuerySet:
    """Side-by-side tasks without the mirrored duplicates and the gold tasks."""
    return tasks.filter(mirror_of__isnull=True, gold=False)


@dataclass(frozen=True)
class Excluded:
    """How many counted answers a report leaves out because their raters were excluded."""

    grades: int
    verdicts: int

    @property
    def total(self) -> int:
        return self.grades + self.verdicts


def excluded_answers(campaign: Campaign) -> Excluded:
    """The counted answers of the campaign's excluded raters: one query when there are none
    (the reports ask on every page)."""
    raters = list(excluded_raters(campaign).values_list("user_id", flat=True))
    if not raters:
        return Excluded(grades=0, verdicts=0)
    grades = Grade.objects.filter(
        pool_item__campaign=campaign, cant_judge=False, rater_id__in=raters
    ).count()
    verdicts = Verdict.objects.filter(
        task__comparison__campaign=campaign,
        task__mirror_of__isnull=True,
        cant_judge=False,
        rater_id__in=raters,
    ).count()
    return Excluded(grades=grades, verdicts=verdicts)


@dataclass(frozen=True)
class ExcludedRater:
    """One excluded rater's answers that a comparison's figures leave out, and who excluded
    the rater when (the last exclusion: a rater can be taken in again and excluded again)."""

    rater: str
    verdicts: int  # side-by-side answers on the comparison's tasks
    grades: int  # grades of documents of the comparison's queries (the graded measures)
    by: str  # the manager's user name; "" when a rule excluded or the account was removed
    at: datetime | None


def comparison_exclusions(comparison: Comparison) -> list[ExcludedRater]:
    """The campaign's excluded raters with the answers they gave this comparison, by name.

    Counted as the reports leave them out: no can't-judge answers, no verdicts on mirrored
    duplicates (they never counted), no answers to gold. Raters who gave it nothing are left
    out: their exclusion changes none of its figures."""
    members = Membership.objects.filter(
        campaign=comparison.campaign, role=Role.RATER, answers_excluded=True
    ).select_related("user")
    if not members:
        return []
    ids = [m.user_id for m in members]
    verdicts = dict(
        Verdict.objects.filter(task__comparison=comparison, task__mirror_of__isnull=True,
                               cant_judge=False, gold=False, rater_id__in=ids)
        .values_list("rater_id").annotate(n=Count("pk"))
    )  # fmt: skip
    queries = comparison.tasks.values("query_id")
    grades = dict(
        Grade.objects.filter(pool_item__campaign=comparison.campaign, cant_judge=False,
                             gold=False, pool_item__query_id__in=queries, rater_id__in=ids)
        .values_list("rater_id").annotate(n=Count("pk"))
    )  # fmt: skip
    last = {}
    events = QualityEvent.objects.filter(
        membership__in=members, action=QualityEvent.Action.EXCLUDE
    ).select_related("by")
    for event in events.order_by("at", "pk"):  # the last one wins
        last[event.membership_id] = event
    rows = []
    for m in members:
        n_verdicts, n_grades = verdicts.get(m.user_id, 0), grades.get(m.user_id, 0)
        if not n_verdicts and not n_grades:
            continue
        event = last.get(m.pk)
        by = event.by.get_username() if event and event.by else ""
        rows.append(ExcludedRater(m.user.get_username(), n_verdicts, n_grades, by,
                                  event.at if event else None))  # fmt: skip
    return sorted(rows, key=lambda r: r.rater)


__all__ = [
    "Excluded",
    "ExcludedRater",
    "comparison_exclusions",
    "excluded_answer",
    "excluded_answers",
    "excluded_raters",
    "real_grades",
    "real_tasks",
    "real_verdicts",
]
