"""Clicks over expected clicks: graded labels from a behaviour log, ``clicks:<name>``.

Raw click-through rates favour whatever was shown on top: position 1 gets clicks because it is
position 1. The label therefore compares a document's clicks with the clicks an average result
would have had in the same places:

    CTR(p)    = C(p) / I(p)                     clicks over impressions at position p, over the
                                                whole log (every query, the campaign's or not)
    expected  = Σ_p I(q, d, p) · CTR(p)          for the pair (q, d)
    observed  = Σ_p C(q, d, p)
    ratio     = observed / expected

The ratio is mapped to the campaign's scale, highest grade first, by descending thresholds
t_1 > t_2 > ... > t_(n-1): ratio >= t_1 gives the top grade, t_2 <= ratio < t_1 the second,
..., ratio < t_(n-1) the lowest. The default thresholds start at 1.5 and halve for each next
grade (Good / Fair / Bad: 1.5 and 0.75; four grades: 1.5, 0.75, 0.375). A pair shown fewer than
``min_impressions`` times (default 20) gets no label, and neither does one whose expected
clicks are 0 (shown only where nobody ever clicks).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise

import numpy as np
from django.db import transaction

from annotate.models import BehaviourLog, BehaviourPosition, BehaviourStat, SourceKind
from annotate.services.imports.common import ImportSummary
from annotate.services.labels.common import labels_write, scale_grades, source_name, source_open
from annotate.services.labels.sums import group_sums

METHOD = "clicks over expected clicks (position-bias corrected)"
FORMULA = (
    "CTR(p) = clicks(p) / impressions(p) over the whole log; "
    "expected(q,d) = sum_p impressions(q,d,p) * CTR(p); ratio = clicks(q,d) / expected(q,d)"
)
DEFAULT_MIN_IMPRESSIONS = 20
FIRST_THRESHOLD = 1.5
_SHOWN_POSITIONS = 50  # CTR(p) kept in the source's params for the top positions


def default_thresholds(n_grades: int) -> list[float]:
    """1.5, then half of the previous threshold, one fewer than the grades."""
    return [FIRST_THRESHOLD / 2**i for i in range(n_grades - 1)]


def parse_thresholds(text: str) -> list[float]:
    """``"1.5,0.75"`` -> [1.5, 0.75]; strictly decreasing positive numbers."""
    try:
        values = [float(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise ValueError(f"thresholds {text!r} must be numbers, e.g. 1.5,0.75") from None
    if not np.all(np.isfinite(values)) or any(v <= 0 for v in values):
        raise ValueError("thresholds must be positive numbers")
    if any(b >= a for a, b in pairwise(values)):
        raise ValueError("thresholds must go down, highest first (e.g. 1.5,0.75)")
    return values


@dataclass(frozen=True)
class ClickScores:
    """Per (query, document) pair of the log: its sums and its ratio (NaN: no expectation)."""

    query_id: np.ndarray
    document_id: np.ndarray
    impressions: np.ndarray
    clicks: np.ndarray
    expected: np.ndarray
    ratio: np.ndarray


def ctr_by_position(positions: np.ndarray, impressions: np.ndarray, clicks: np.ndarray):
    """CTR(p) as a lookup: (sorted positions, their CTR; 0 where never shown)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        ctr = np.where(impressions > 0, clicks / np.maximum(impressions, 1), 0.0)
    return positions, ctr


def click_scores(
    *,
    query: np.ndarray,
    document: np.ndarray,
    position: np.ndarray,
    impressions: np.ndarray,
    clicks: np.ndarray,
    ctr_positions: np.ndarray,
    ctr: np.ndarray,
) -> ClickScores:
    """The pure kernel: rows (q, d, p, I, C) and CTR(p) -> per-pair observed, expected, ratio."""
    if ctr_positions.size:
        at = np.minimum(np.searchsorted(ctr_positions, position), ctr_positions.size - 1)
        rate = np.where(ctr_positions[at] == position, ctr[at], 0.0)
    else:
        rate = np.zeros(position.size)
    expected_rows = impressions * rate
    (q, d), (imp, clk, exp) = group_sums(
        [query, document],
        [impressions.astype(np.int64), clicks.astype(np.int64), expected_rows],
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(exp > 0, clk / np.where(exp > 0, exp, 1.0), np.nan)
    return ClickScores(q, d, imp, clk, exp, ratio)


def ratio_grades(ratio: np.ndarray, thresholds: list[float], grades: np.ndarray) -> np.ndarray:
    """Grade per ratio: grades[i] where i = the number of thresholds above the ratio."""
    ascending = np.asarray(thresholds[::-1], dtype=np.float64)
    above = ascending.size - np.searchsorted(ascending, ratio, side="right")
    return grades[above]


def log_rows(log: BehaviourLog) -> dict[str, np.ndarray]:
    """The log's per (query, document, position) totals as columns."""
    dtype = np.dtype([("q", "i8"), ("d", "i8"), ("p", "i8"), ("i", "i8"), ("c", "i8"), ("v", "i8")])
    rows = np.fromiter(
        BehaviourStat.objects.filter(log=log)
        .values_list("query_id", "document_id", "position", "impressions", "clicks", "conversions")
        .iterator(chunk_size=20_000),
        dtype=dtype,
    )
    return {
        "query": rows["q"],
        "document": rows["d"],
        "position": rows["p"],
        "impressions": rows["i"],
        "clicks": rows["c"],
        "conversions": rows["v"],
    }


def log_positions(log: BehaviourLog) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rows = list(
        BehaviourPosition.objects.filter(log=log)
        .order_by("position")
        .values_list("position", "impressions", "clicks")
    )
    cols = np.asarray(rows, dtype=np.int64).reshape(-1, 3)
    return cols[:, 0], cols[:, 1], cols[:, 2]


def derive_clicks(
    *,
    log: BehaviourLog,
    name: str,
    min_impressions: int = DEFAULT_MIN_IMPRESSIONS,
    thresholds: list[float] | None = None,
    replace: bool = False,
) -> ImportSummary:
    """Store clicks-over-expected labels of ``log`` as the source ``clicks:<name>``. Raises
    ValueError for bad parameters and ImportFailed for a name already taken."""
    campaign = log.campaign
    grades = scale_grades(campaign)
    thresholds = default_thresholds(grades.size) if thresholds is None else thresholds
    if len(thresholds) != grades.size - 1:
        raise ValueError(
            f"the scale has {grades.size} grades, so {grades.size - 1} thresholds are needed "
            f"(got {len(thresholds)})"
        )
    if min_impressions < 1:
        raise ValueError("the minimum number of impressions must be at least 1")
    full_name = source_name(SourceKind.CLICKS, name)
    positions, pos_imp, pos_clk = log_positions(log)
    ctr_pos, ctr = ctr_by_position(positions, pos_imp, pos_clk)
    rows = log_rows(log)
    scores = click_scores(
        query=rows["query"],
        document=rows["document"],
        position=rows["position"],
        impressions=rows["impressions"],
        clicks=rows["clicks"],
        ctr_positions=ctr_pos,
        ctr=ctr,
    )
    enough = scores.impressions >= min_impressions
    keep = enough & ~np.isnan(scores.ratio)
    params = {
        "method": METHOD,
        "formula": FORMULA,
        "log": log.name,
        "min_impressions": min_impressions,
        "thresholds": [
            {"ratio_at_least": t, "grade": float(g)}
            for t, g in zip(thresholds, grades, strict=False)
        ],
        "below_last_threshold_grade": float(grades[-1]),
        "ctr_by_position": {
            str(int(p)): round(float(c), 6)
            for p, c in zip(ctr_pos[:_SHOWN_POSITIONS], ctr[:_SHOWN_POSITIONS], strict=True)
        },
        "pairs": int(scores.ratio.size),
        "labels": int(keep.sum()),
        "below_min_impressions": int((~enough).sum()),
        "no_expected_clicks": int((enough & np.isnan(scores.ratio)).sum()),
    }
    summary = ImportSummary(kind="clicks", path=f"log {log.name!r}", noun="labels")
    with transaction.atomic():
        source = source_open(
            campaign=campaign,
            name=full_name,
            kind=SourceKind.CLICKS,
            replace=replace,
            params=params,
            path=summary.path,
            summary=summary,
        )
        summary.created = labels_write(
            source=source,
            query_id=scores.query_id[keep],
            document_id=scores.document_id[keep],
            grade=ratio_grades(scores.ratio[keep], thresholds, grades),
        )
    summary.lines = int(rows["query"].size)
    if params["below_min_impressions"]:
        summary.warnings.append(
            f"{params['below_min_impressions']:,} pairs were shown fewer than {min_impressions} "
            "times: no label"
        )
    return summary
