"""The dashboard's and the disagreements page's CSV tables, from what the pages already hold
(a progress snapshot's raters and timeline, an agreement snapshot, the disagreements found).
No queries here."""

from __future__ import annotations

from metrics.reports.scores_tables import Table
from metrics.selectors.disagreements import DisagreementList
from metrics.selectors.progress import Timeline


def raters_table(raters: list[dict]) -> Table:
    header = ["rater", "grades", "cant_judge", "skips", "median_seconds", "last_activity",
              "leased_now"]  # fmt: skip
    rows = [
        (
            r["username"],
            r["grades"],
            r["cant_judge"],
            r["skips"],
            r["median_seconds"],
            r["last_activity"].isoformat() if r["last_activity"] else None,
            r["holding"],
        )
        for r in raters
    ]
    return header, rows


def timeline_table(timeline: Timeline) -> Table:
    header = [f"{timeline.unit}_starting", *timeline.series, "total"]
    return header, [(b.isoformat(), *counts, total) for b, counts, total in timeline.rows()]


def agreement_table(agreement: dict) -> Table:
    header = ["rater", "grades_on_shared_items", "majority_rate", "majority_items",
              "mean_signed_deviation", "leaning"]  # fmt: skip
    rows = [
        (r["username"], r["grades"], r["majority_rate"], r["majority_items"],
         r["mean_deviation"], r["leaning"])
        for r in agreement["raters"]
    ]  # fmt: skip
    return header, rows


def pairs_table(agreement: dict, names: list[str]) -> Table:
    header = ["rater_a", "rater_b", "shared_items", "weighted_kappa_linear"]
    rows = [(names[p["a"]], names[p["b"]], p["shared"], p["kappa"]) for p in agreement["pairs"]]
    return header, rows


def disagreements_table(found: DisagreementList, rule: str) -> Table:
    header = ["query_id", "doc_id", "grades", "n", "lowest", "highest", "range",
              f"aggregate_{rule}", "adjudicated_label", "adjudicated_grade", "adjudicated_by",
              "note"]  # fmt: skip
    rows = [
        (
            d.query_external_id,
            d.document_external_id,
            "; ".join(f"{g.rater}: {g.label or 'cannot judge'}" for g in d.grades),
            d.n,
            d.low,
            d.high,
            d.range,
            d.aggregate,
            d.ruling,
            d.ruling_grade,
            d.ruling_by,
            d.ruling_note,
        )
        for d in found.rows
    ]
    return header, rows
