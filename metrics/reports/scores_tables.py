"""The system-score pages' tables, from a snapshot's summary and per-query values: the rows each
page shows and the CSV it offers. No queries here (the pages' reads are metrics.selectors)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from metrics.decide.ndcg import ComparisonReport
from metrics.selectors.drilldown import QueryDrilldown
from metrics.services.scores import MeasureSettings

Table = tuple[list[str], list]  # (header, rows)


@dataclass(frozen=True)
class _Unranked:
    """A judged document outside every top k, shaped like a ranked row for the CSV."""

    document: object
    position: None = None
    rank: None = None
    score: None = None


def systems_table(summary: dict) -> Table:
    """Every system's mean and interval bounds of every measure."""
    measures = summary["measures"]
    header = ["system", "run"]
    for m in measures:
        header += [m["label"], f"{m['label']} low", f"{m['label']} high"]
    rows = []
    for s in summary["systems"]:
        row = [s["system"], s["run"]]
        for m in measures:
            v = s["values"][m["key"]]
            row += [v["mean"], v["low"], v["high"]]
        rows.append(row)
    return header, rows


def curve_rows(summary: dict, settings: MeasureSettings) -> list[tuple[int, list[float]]]:
    """(k, NDCG@k of every system) for k = 1 … the page's k."""
    systems = summary["systems"]
    return [(k, [s["curve"][k - 1] for s in systems]) for k in range(1, settings.k + 1)]


def curves_table(summary: dict, settings: MeasureSettings, names: list[str]) -> Table:
    return ["k", *names], [(k, *values) for k, values in curve_rows(summary, settings)]


def comparison_tables(report: ComparisonReport) -> dict[str, Table]:
    """The comparison page's three downloads, by name."""
    return {
        "differences": (
            ["query_id", f"A {report.a_name}", f"B {report.b_name}", "B - A"],
            report.differences,
        ),
        "tests": (
            ["test", "measure", "B - A", "statistic", "p", "p_holm", "low", "high"],
            report.test_rows(),
        ),
        "histogram": (["B - A from", "to", "queries"], report.bins),
    }


def measure_columns(summary: dict, per_query: dict) -> dict[str, np.ndarray]:
    """Per measure, a (systems × queries) array of the per-query values."""
    systems = summary["systems"]
    return {
        m["key"]: np.array([per_query["runs"][str(s["run_id"])][m["key"]] for s in systems])
        for m in summary["measures"]
    }


def queries_table(summary: dict, per_query: dict, names: list[str]) -> Table:
    """One row per query: every system's value of every measure."""
    measures = summary["measures"]
    columns = measure_columns(summary, per_query)
    header = ["query_id"]
    for name in names:
        header += [f"{name} {m['label']}" for m in measures]
    rows = []
    for i, qid in enumerate(per_query.get("qids", [])):
        row = [qid]
        for j in range(len(summary["systems"])):
            row += [float(columns[m["key"]][j, i]) for m in measures]
        rows.append(row)
    return header, rows


def query_order(
    columns: dict[str, np.ndarray], settings: MeasureSettings, n_queries: int, sort: str
) -> tuple[np.ndarray, str]:
    """The queries page's order and the sort it applied: "spread" (largest NDCG@k range across
    systems first), "judged" (lowest judged@k first), else "query" (snapshot order)."""
    order = np.arange(n_queries)
    ndcg, judged = columns.get(settings.ndcg), columns.get(settings.judged)
    if sort == "spread" and ndcg is not None and ndcg.shape[0]:
        spread = ndcg.max(axis=0) - ndcg.min(axis=0)
        return np.lexsort((order, -spread)), sort
    if sort == "judged" and judged is not None and judged.shape[0]:
        return np.lexsort((order, judged.min(axis=0))), sort
    return order, "query"


def query_scores_table(
    summary: dict, per_query: dict, names: list[str], index: int | None
) -> Table:
    """One query's value of every measure, per system (no rows when the query has none)."""
    measures = summary["measures"]
    rows = [
        (name, *(per_query["runs"][str(s["run_id"])][m["key"]][index] for m in measures))
        for name, s in zip(names, summary["systems"], strict=True)
    ]
    return ["system", *(m["label"] for m in measures)], rows if index is not None else []


LIST_HEADER = [
    "system",
    "position",
    "rank_in_file",
    "score",
    "doc_id",
    "title",
    "grades",
    "label_used",
    "adjudicated",
]


def query_lists_table(drill: QueryDrilldown, names: list[str]) -> Table:
    """Every system's top k of one query, each document with its grades and the label used;
    the judged documents no system put in its top k close the list (they shape IDCG)."""
    listed = [(name, sl.rows) for name, sl in zip(names, drill.lists, strict=True)]
    listed.append(("(judged, in no top k)", [_Unranked(d) for d in drill.unretrieved]))
    rows = []
    for name, ranked in listed:
        for r in ranked:
            d = r.document
            grades = "; ".join(f"{g.rater}: {g.label or 'cannot judge'}" for g in d.grades)
            rows.append(
                (name, r.position, r.rank, r.score, d.external_id, d.title, grades, d.label,
                 d.adjudicated or "")
            )  # fmt: skip
    return LIST_HEADER, rows
