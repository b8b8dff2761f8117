"""What a snapshot's inputs look like, cheaply: counts, largest ids and last change times.

Each figure moves when its input changes in any way the services allow:

- grades: a new or deleted grade changes the count, a changed grade its ``changed_at``;
- adjudications: the same, with their ``changed_at``;
- the label scale: each label's id and grade (a grade edited on the scale page);
- queries: count and largest id (a query added counts as 0 for every system);
- runs: their ids; entries: count and largest id. Replacing a run keeps the run but writes new
  entries, with ids above every earlier one, so the largest id moves even when the count does
  not;
- a label source's labels: count and largest id (a re-import writes new rows);
- the campaign's relevance level.

Each is one aggregate query, so checking a snapshot costs a few milliseconds at any size
(grades and run entries are read through their indexes).
"""

from __future__ import annotations

from django.db.models import Count, Max

from annotate.models import (
    Adjudication,
    Campaign,
    Grade,
    Label,
    LabelSource,
    Run,
    RunEntry,
    SourceLabel,
)


def _stamp(value) -> str | None:
    return value.isoformat() if value is not None else None


def _count_max(queryset, field: str) -> list:
    row = queryset.aggregate(n=Count("pk"), m=Max(field))
    value = row["m"]
    return [row["n"], _stamp(value) if hasattr(value, "isoformat") else value]


def grades_fingerprint(*, campaign: Campaign) -> dict:
    return {
        "grades": _count_max(Grade.objects.filter(pool_item__campaign=campaign), "changed_at"),
        "labels": [
            [pk, grade]
            for pk, grade in Label.objects.filter(campaign=campaign)
            .order_by("pk")
            .values_list("pk", "grade")
        ],
    }


def scores_fingerprint(*, campaign: Campaign, source: LabelSource | None) -> dict:
    """Everything the system scores depend on."""
    runs = Run.objects.filter(campaign=campaign).order_by("pk")
    run_ids = list(runs.values_list("pk", flat=True))
    out = {
        "relevant_from": campaign.relevant_from,
        "queries": _count_max(campaign.queries.order_by(), "pk"),
        "runs": run_ids,
        # Filtering on the run ids (not a join on the campaign) lets the database answer
        # from the (run, query, rank) index and the primary key.
        "entries": _count_max(RunEntry.objects.filter(run_id__in=run_ids), "pk"),
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


def agreement_fingerprint(*, campaign: Campaign) -> dict:
    return grades_fingerprint(campaign=campaign)
