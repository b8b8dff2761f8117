"""Agreement between a campaign's raters on graded judgments (STATISTICS.md section 5), from
the metrics core, summarised as a snapshot stores it.

Only items with two or more counted grades take part ("can't judge" is no grade): an item one
rater graded says nothing about agreement. Grades are the labels' numeric grades; the weights of
Cohen's kappa count steps on the whole label scale (a label nobody used still sits between its
neighbours), and alpha is given the scale as its value domain.

- Krippendorff's alpha, ordinal metric (any number of raters per item, missing cells fine);
- raw pairwise agreement (share of agreeing rater pairs), beside alpha because skewed data
  give a low alpha with high raw agreement;
- Fleiss' kappa only when every such item has the same number of raters;
- linearly weighted Cohen's kappa for every pair of raters who share at least two items;
- per rater: how often they match the others' majority (items where the others have a unique
  most frequent grade), and their mean signed deviation from the others' mean grade: above
  +LEANING is lenient, below −LEANING severe.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
from django.contrib.auth import get_user_model

from annotate.models import Campaign, Grade, Label
from annotate.selectors.real import real_grades
from metrics.adapters.columns import fetch_frame
from metrics.core.stats import (
    cohen_kappa,
    fleiss_kappa,
    fleiss_table,
    krippendorff_alpha,
    pairwise_agreement,
    rater_figures,
    reliability_matrix,
)

LEANING = 0.1  # grades: a mean deviation smaller than this is "in line"
MIN_SHARED = 2  # items two raters must share for their kappa


def grade_frame(*, campaign: Campaign) -> pl.DataFrame:
    """(item, rater, grade) of every counted grade of the campaign."""
    return fetch_frame(
        real_grades(
            Grade.objects.filter(pool_item__campaign=campaign, cant_judge=False), campaign
        ).order_by(),
        {"pool_item_id": pl.Int64, "rater_id": pl.Int64, "label__grade": pl.Float64},
    ).rename({"pool_item_id": "item", "rater_id": "rater", "label__grade": "grade"})


def _number(value: float | None) -> float | None:
    """JSON has no NaN: an undefined figure is stored as None."""
    if value is None or not math.isfinite(value):
        return None
    return float(value)


def leaning(deviation: float | None) -> str:
    if deviation is None:
        return ""
    if deviation > LEANING:
        return "lenient"
    if deviation < -LEANING:
        return "severe"
    return "in line"


def agreement_compute(*, campaign: Campaign) -> dict:
    """The agreement figures of the campaign as a JSON-ready dict."""
    grades = grade_frame(campaign=campaign)
    domain = sorted(
        float(g) for g in Label.objects.filter(campaign=campaign).values_list("grade", flat=True)
    )
    multi = grades.filter(pl.len().over("item") >= 2)
    summary: dict = {
        "version": 1,
        "domain": domain,
        "graded_items": int(grades["item"].n_unique()),
        "n_items": int(multi["item"].n_unique()),
        "n_ratings": multi.height,
        "alpha": None,
        "raw_agreement": None,
        "fleiss": None,
        "fleiss_reason": "no item has two grades",
        "raters": [],
        "pairs": [],
        "leaning_threshold": LEANING,
    }
    if multi.height == 0:
        return summary
    matrix, _, rater_ids = reliability_matrix(
        multi["item"].to_numpy(), multi["rater"].to_numpy(), multi["grade"].to_numpy()
    )
    summary["alpha"] = _number(
        krippendorff_alpha(matrix, level="ordinal", value_domain=np.array(domain))
    )
    summary["raw_agreement"] = _number(pairwise_agreement(matrix))
    per_item = np.count_nonzero(~np.isnan(matrix), axis=0)
    if np.unique(per_item).size == 1:
        summary["fleiss"] = _number(fleiss_kappa(fleiss_table(matrix)[0]))
        summary["fleiss_reason"] = None
    else:
        summary["fleiss_reason"] = "items have different numbers of raters"
    names = dict(
        get_user_model()
        .objects.filter(pk__in=rater_ids.tolist())
        .values_list("pk", get_user_model().USERNAME_FIELD)
    )
    figures = rater_figures(matrix)
    present = ~np.isnan(matrix)
    for i, rater in enumerate(rater_ids.tolist()):
        deviation = _number(figures.mean_deviation[i])
        summary["raters"].append(
            {
                "id": rater,
                "username": names.get(rater, f"#{rater}"),
                "grades": int(present[i].sum()),
                "majority_rate": _number(figures.majority_rate[i]),
                "majority_items": int(figures.majority_items[i]),
                "mean_deviation": deviation,
                "deviation_items": int(figures.deviation_items[i]),
                "leaning": leaning(deviation),
            }
        )
    summary["pairs"] = _pairs(matrix, present, np.array(domain))
    return summary


def _pairs(matrix: np.ndarray, present: np.ndarray, domain: np.ndarray) -> list[dict]:
    """Weighted (linear) Cohen's kappa of every pair of raters with shared items."""
    shared = present.astype(np.int32) @ present.T.astype(np.int32)
    out = []
    for a in range(matrix.shape[0]):
        for b in range(a + 1, matrix.shape[0]):
            n = int(shared[a, b])
            if n == 0:
                continue
            kappa = None
            if n >= MIN_SHARED:
                both = present[a] & present[b]
                kappa = _number(
                    cohen_kappa(matrix[a, both], matrix[b, both], weights="linear", labels=domain)
                )
            out.append({"a": a, "b": b, "shared": n, "kappa": kappa})
    return out
