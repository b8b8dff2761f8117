"""What a snapshot's inputs look like, cheaply: counts, largest ids and last change times.

Each figure moves when its input changes in any way the services allow:

- grades: a new or deleted grade changes the count, a changed grade its ``changed_at``;
- adjudications: the same, with their ``changed_at``;
- the label scale: each label's id and grade (a grade edited on the scale page);
- queries: count and largest id (a query added counts as 0 for every system);
- runs: their ids, and for each the ids of its first and last entry in (query, rank) order,
  read through the (run, query, rank) index: the entries are only ever written by an import,
  and replacing a run keeps the run but writes all its entries anew, with new ids. (Counting
  millions of entries on every view would cost a second.)
- a label source's labels: count and largest id (a re-import writes new rows);
- the campaign's relevance level;
- for the judging progress: skips (count, last), the raters (ids and names), and the pool
  (count, largest id, the raters each item needs, the campaign's overlap).

Each is one small query, so checking a snapshot costs milliseconds at any size.
"""

from __future__ import annotations

from django.db.models import Count, Max, OuterRef, Q, Subquery, Sum

from annotate.models import (
    Adjudication,
    Campaign,
    Grade,
    Label,
    LabelSource,
    Membership,
    PoolItem,
    Role,
    Run,
    RunEntry,
    Skip,
    SourceLabel,
)
from annotate.selectors.real import excluded_raters


def _stamp(value) -> str | None:
    return value.isoformat() if value is not None else None


def _count_max(queryset, field: str) -> list:
    row = queryset.aggregate(n=Count("pk"), m=Max(field))
    value = row["m"]
    return [row["n"], _stamp(value) if hasattr(value, "isoformat") else value]


def _grades_stamp(campaign: Campaign) -> list:
    """Count and latest change of the campaign's grades, and how many of them are by excluded
    raters (#18): excluding or including a rater changes every figure built on the grades. One
    query, as before the exclusions."""
    row = Grade.objects.filter(pool_item__campaign=campaign).aggregate(
        n=Count("pk"),
        m=Max("changed_at"),
        x=Count("pk", filter=Q(rater_id__in=excluded_raters(campaign))),
    )
    return [row["n"], _stamp(row["m"]), row["x"]]


def grades_fingerprint(*, campaign: Campaign) -> dict:
    return {
        "grades": _grades_stamp(campaign),
        "labels": [
            [pk, grade]
            for pk, grade in Label.objects.filter(campaign=campaign)
            .order_by("pk")
            .values_list("pk", "grade")
        ],
    }


def scores_fingerprint(*, campaign: Campaign, source: LabelSource | None) -> dict:
    """Everything the system scores depend on."""
    entries = RunEntry.objects.filter(run=OuterRef("pk"))
    runs = (
        Run.objects.filter(campaign=campaign)
        .order_by("pk")
        .annotate(
            first=Subquery(entries.order_by("query_id", "rank").values("pk")[:1]),
            last=Subquery(entries.order_by("-query_id", "-rank").values("pk")[:1]),
        )
        .values_list("pk", "first", "last")
    )
    out = {
        "relevant_from": campaign.relevant_from,
        "queries": _count_max(campaign.queries.order_by(), "pk"),
        "runs": [list(row) for row in runs],
    }
    if source is None:
        out.update(grades_fingerprint(campaign=campaign))
        out["adjudications"] = _count_max(
            Adjudication.objects.filter(pool_item__campaign=campaign), "changed_at"
        )
    else:
        labels = Label.objects.filter(campaign=campaign).order_by("pk")
        out["labels"] = [list(pair) for pair in labels.values_list("pk", "grade")]
        out["source_labels"] = _count_max(SourceLabel.objects.filter(source=source), "pk")
    return out


def agreement_fingerprint(*, campaign: Campaign, grades: dict | None = None) -> dict:
    return grades or grades_fingerprint(campaign=campaign)


def progress_fingerprint(*, campaign: Campaign, grades: dict | None = None) -> dict:
    """The judging progress: grades, skips, who rates, and the pool with what it needs."""
    pool = PoolItem.objects.filter(campaign=campaign).aggregate(
        n=Count("pk"), m=Max("pk"), needed=Sum("raters_needed"), set=Count("raters_needed")
    )
    return {
        **(grades or grades_fingerprint(campaign=campaign)),
        "skips": _count_max(Skip.objects.filter(pool_item__campaign=campaign), "created_at"),
        "raters": [
            list(row)
            for row in Membership.objects.filter(campaign=campaign, role=Role.RATER)
            .order_by("user_id")
            .values_list("user_id", "user__username")
        ],
        "pool": [pool["n"], pool["m"], pool["needed"], pool["set"], campaign.overlap],
    }
