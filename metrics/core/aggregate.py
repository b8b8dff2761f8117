"""Grades into one label per pool item, and the manager's rulings over them: the pure kernel of
the qrels (numpy only; the database side is annotate.services.aggregation).

The rules, over the counted grades of one item ("can't judge" answers are left out before):

- mean: sum(g) / n;
- median: the middle grade; for an even count, the mean of the two middle grades (so 1, 3 gives
  2 and 2, 3 gives 2.5: a real grade, as the mean can be);
- majority: the most frequent grade; a tie goes to the LOWER grade (conservative: a pair two
  raters call Good and two call Bad is not counted as Good);
- dawid_skene: the most probable grade under Dawid–Skene (dawid_skene.py): each rater weighted
  by a confusion matrix estimated from all the campaign's grades, so it needs every item's
  answers at once, with their raters. (A campaign's qrels fit it with its gold answers
  clamped too: annotate.selectors.confusion.campaign_fit calls dawid_skene directly.)

A ruling (a manager settling an item by hand) replaces the item's aggregate grade and keeps its
number of grades; a ruled item without any counted grade gets a line of its own with n = 0.
``merge_rulings`` is that merge, written once: the column form of the qrels (every line at once,
``apply_adjudications``) and the streamed form (a batch of items at a time) both call it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from metrics.core.dawid_skene import dawid_skene

MEAN, MEDIAN, MAJORITY, DAWID_SKENE = "mean", "median", "majority", "dawid_skene"
RULES = (MEAN, MEDIAN, MAJORITY, DAWID_SKENE)


def check_rule(rule: str) -> str:
    """`rule` if it is one of RULES; ValueError otherwise."""
    if rule not in RULES:
        raise ValueError(
            f"unknown aggregation rule {rule!r}: use mean, median, majority or dawid_skene"
        )
    return rule


def aggregate(
    item: np.ndarray, grade: np.ndarray, rule: str, rater: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The grades of many items (parallel arrays) -> (items ascending, their aggregate grade,
    their number of grades). Dawid–Skene needs `rater`, parallel to the grades."""
    check_rule(rule)
    item = np.asarray(item, dtype=np.int64)
    grade = np.asarray(grade, dtype=np.float64)
    if item.size == 0:
        return item, grade, np.zeros(0, dtype=np.int64)
    if rule == DAWID_SKENE:
        if rater is None:
            raise ValueError("the dawid_skene rule needs each grade's rater")
        return _dawid_skene(item, grade, np.asarray(rater, dtype=np.int64))
    order = np.lexsort((grade, item))
    item, grade = item[order], grade[order]
    starts = np.flatnonzero(np.r_[True, item[1:] != item[:-1]])
    counts = np.diff(np.r_[starts, item.size])
    items = item[starts]
    if rule == MEAN:
        values = np.add.reduceat(grade, starts) / counts
    elif rule == MEDIAN:
        # Grades are sorted within each item, so the middle ones are at fixed offsets.
        values = (grade[starts + (counts - 1) // 2] + grade[starts + counts // 2]) / 2
    else:
        values = _majority(item, grade)
    return items, values, counts


def _dawid_skene(
    item: np.ndarray, grade: np.ndarray, rater: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    items, item_code, counts = np.unique(item, return_inverse=True, return_counts=True)
    grades, grade_code = np.unique(grade, return_inverse=True)  # ascending: ties go lower
    _, rater_code = np.unique(rater, return_inverse=True)
    fit = dawid_skene(item_code, rater_code, grade_code, classes=grades.size)
    return items, grades[fit.labels], counts


def _majority(item: np.ndarray, grade: np.ndarray) -> np.ndarray:
    """For (item, grade) sorted ascending: per item, the most frequent grade, lowest on a tie."""
    run_starts = np.flatnonzero(np.r_[True, (item[1:] != item[:-1]) | (grade[1:] != grade[:-1])])
    run_counts = np.diff(np.r_[run_starts, item.size])
    run_item, run_grade = item[run_starts], grade[run_starts]
    # Per item: highest count first, then the lowest grade; take the first of each item.
    best = np.lexsort((run_grade, -run_counts, run_item))
    first = np.r_[True, run_item[best][1:] != run_item[best][:-1]]
    return run_grade[best][first]


@dataclass(frozen=True)
class Merged:
    """Labels after the rulings: one line per item aggregated or ruled, items ascending.
    `at` and `ruled_at` say where each line came from: its index among the aggregated items
    (-1: a ruling alone made it) and among the rulings (-1: no ruling)."""

    item: np.ndarray
    grade: np.ndarray
    n: np.ndarray
    adjudicated: np.ndarray  # bool: the grade is a manager's ruling
    at: np.ndarray
    ruled_at: np.ndarray


def merge_rulings(
    *,
    item: np.ndarray,
    grade: np.ndarray,
    n: np.ndarray,
    ruled_item: np.ndarray,
    ruled_grade: np.ndarray,
) -> Merged:
    """The one ruling merge: aggregated items (`item` ascending, as ``aggregate`` returns
    them, with their `grade` and `n`) and rulings (`ruled_item`, distinct, any order, with the
    ruled grade). A ruled item takes the ruling's grade and keeps its n; a ruled item without
    an aggregate gets a line with n = 0."""
    item = np.asarray(item, dtype=np.int64)
    ruled_item = np.asarray(ruled_item, dtype=np.int64)
    ruled_grade = np.asarray(ruled_grade, dtype=np.float64)
    # Rulings are few and the items many (a million): find the rulings among the sorted items
    # by binary search and write them in place; sort again only when a ruling adds an item.
    pos = np.searchsorted(item, ruled_item)
    found = pos < item.size
    found[found] = item[pos[found]] == ruled_item[found]
    hit = pos[found]
    out_grade = np.array(grade, dtype=np.float64)
    out_grade[hit] = ruled_grade[found]
    out_n = np.array(n, dtype=np.int64)
    adjudicated = np.zeros(item.size, dtype=bool)
    adjudicated[hit] = True
    at = np.arange(item.size)
    ruled_at = np.full(item.size, -1, dtype=np.int64)
    ruled_at[hit] = np.flatnonzero(found)
    extra = np.flatnonzero(~found)
    if not extra.size:
        return Merged(item, out_grade, out_n, adjudicated, at, ruled_at)
    lines = np.concatenate([item, ruled_item[extra]])
    order = np.argsort(lines, kind="stable")
    return Merged(
        item=lines[order],
        grade=np.concatenate([out_grade, ruled_grade[extra]])[order],
        n=np.concatenate([out_n, np.zeros(extra.size, dtype=np.int64)])[order],
        adjudicated=np.concatenate([adjudicated, np.ones(extra.size, dtype=bool)])[order],
        at=np.concatenate([at, np.full(extra.size, -1)])[order],
        ruled_at=np.concatenate([ruled_at, extra])[order],
    )


@dataclass(frozen=True)
class Adjudicated:
    """Qrels columns after the rulings are applied (items ascending)."""

    item: np.ndarray
    query_id: np.ndarray
    document_id: np.ndarray
    grade: np.ndarray
    n: np.ndarray
    adjudicated: np.ndarray  # bool: the grade is a manager's ruling


def apply_adjudications(
    *,
    item: np.ndarray,
    query_id: np.ndarray,
    document_id: np.ndarray,
    grade: np.ndarray,
    n: np.ndarray,
    rulings: np.ndarray,
) -> Adjudicated:
    """The column form: ``merge_rulings`` on whole columns, carrying each line's query and
    document ids (a ruling's own for a line only a ruling makes). `rulings` is a structured
    array with fields item, q, d and g."""
    merged = merge_rulings(
        item=item, grade=grade, n=n, ruled_item=rulings["item"], ruled_grade=rulings["g"]
    )
    alone = merged.at < 0

    def carried(own: np.ndarray, ruled: np.ndarray) -> np.ndarray:
        if merged.item.size == np.size(own):  # no ruling made a line of its own
            return np.asarray(own, dtype=np.int64)
        out = np.empty(merged.item.size, dtype=np.int64)
        out[~alone] = np.asarray(own, dtype=np.int64)[merged.at[~alone]]
        out[alone] = np.asarray(ruled, dtype=np.int64)[merged.ruled_at[alone]]
        return out

    return Adjudicated(
        item=merged.item,
        query_id=carried(query_id, rulings["q"]),
        document_id=carried(document_id, rulings["d"]),
        grade=merged.grade,
        n=merged.n,
        adjudicated=merged.adjudicated,
    )
