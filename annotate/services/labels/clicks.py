"""Graded labels from a behaviour log's clicks, ``clicks:<name>``.

The default model (``pbm``; the numbers in metrics.core.clicks) separates what a click says
about the document from what it says about the position and about the query:

- a position-based click model fitted by EM gives each position's examination probability
  γ_p (EM starts from the whole log's click-through rate per position);
- a document's expected clicks E are the clicks an average document of *its query* would have
  had in the same places (its examinations Σ_p I·γ_p times the query's mean attractiveness), so
  a query whose users click more, or less, does not move its documents' labels;
- the ratio clicks / expected is shrunk toward 1, the query's mean (empirical Bayes, k
  estimated from the whole log), with the strength of the evidence measured at a reference
  click rate (the median query's), so that neither shrinkage nor floor depends on how much
  the query's users click;
- a pair with fewer than ``min_expected_clicks`` expected clicks at that rate, or of a query
  with fewer clicks than that in all, gets no label: "too little data", counted in the
  source's parameters.

The shrunk ratio is mapped to the campaign's scale, highest grade first, by descending
thresholds t_1 > t_2 > ... > t_(n-1): ratio >= t_1 gives the top grade, ..., ratio < t_(n-1)
the lowest. The defaults start at 1.5 and halve for each next grade (Good / Fair / Bad: 1.5 and
0.75; four grades: 1.5, 0.75, 0.375).

The earlier method (``ctr``) is kept, for sources made with it and as the baseline of
benchmarks/sim_clicks.py: CTR(p) pooled over the whole log, expected = Σ_p I(q,d,p) · CTR(p),
ratio = clicks / expected unshrunk, no label below ``min_impressions`` (default 20) impressions.
"""

from __future__ import annotations

import numpy as np
from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from annotate.models import (
    BehaviourLog,
    BehaviourPosition,
    BehaviourStat,
    Document,
    Query,
    SourceKind,
)
from annotate.services.imports.common import ImportSummary
from annotate.services.labels.common import labels_write, scale_grades, source_name, source_open
from metrics.core.clicks import (
    DEFAULT_MIN_EXPECTED_CLICKS,
    check_thresholds,
    click_model_scores,
    ctr_by_position,
    ctr_ratio_scores,
    default_thresholds,
    ratio_grades,
)
from metrics.core.clicks import CtrScores as ClickScores
from metrics.core.clicks import ctr_ratio_scores as click_scores

MODELS = ("pbm", "ctr")
METHOD = (
    "position-based click model (EM); clicks over the expected clicks of an average document "
    "of the query, shrunk toward the query's mean"
)
FORMULA = (
    "P(click at p) = gamma_p * alpha_qd, fitted by EM; n(q,d) = sum_p impressions(q,d,p) * "
    "gamma_p; expected(q,d) = n(q,d) * mean_q (the query's random-effects mean of clicks/n); "
    "on the reference scale (mean_ref = the median query's mean): clicks' = clicks * mean_ref "
    "/ mean_q, expected' = n(q,d) * mean_ref; ratio = (clicks' + k) / (expected' + k), "
    "k = 1 / tau^2 from the log by moments; no label where expected' or the query's clicks "
    "are below the floor"
)
CTR_METHOD = "clicks over expected clicks (position-bias corrected)"
CTR_FORMULA = (
    "CTR(p) = clicks(p) / impressions(p) over the whole log; "
    "expected(q,d) = sum_p impressions(q,d,p) * CTR(p); ratio = clicks(q,d) / expected(q,d)"
)
DEFAULT_MIN_IMPRESSIONS = 20  # the ctr model's floor
_SHOWN_POSITIONS = 50  # per-position figures kept in the source's params for the top positions
# "Too little data" pairs listed by name in the source's params, nearest the floor first: enough
# to see which they are and to find the ones worth more traffic, without a params of megabytes.
LISTED_TOO_LITTLE = 500

__all__ = [
    "DEFAULT_MIN_EXPECTED_CLICKS",
    "DEFAULT_MIN_IMPRESSIONS",
    "MODELS",
    "ClickScores",
    "click_scores",
    "ctr_by_position",
    "default_thresholds",
    "derive_clicks",
    "log_positions",
    "log_rows",
    "parse_thresholds",
    "ratio_grades",
]


def parse_thresholds(text: str) -> list[float]:
    """``"1.5,0.75"`` -> [1.5, 0.75]; strictly decreasing positive numbers."""
    try:
        values = [float(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise ValueError(
            _("thresholds %(text)s must be numbers, e.g. 1.5,0.75") % {"text": repr(text)}
        ) from None
    check_thresholds(values)
    return values


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


def _threshold_params(thresholds: list[float], grades: np.ndarray) -> dict:
    return {
        "thresholds": [
            {"ratio_at_least": t, "grade": float(g)}
            for t, g in zip(thresholds, grades, strict=False)
        ],
        "below_last_threshold_grade": float(grades[-1]),
    }


def _by_position(positions: np.ndarray, values: np.ndarray) -> dict[str, float]:
    shown = zip(positions[:_SHOWN_POSITIONS], values[:_SHOWN_POSITIONS], strict=True)
    return {str(int(p)): round(float(v), 6) for p, v in shown}


def _ctr_labels(log: BehaviourLog, rows: dict, min_impressions: int) -> tuple[dict, dict]:
    """The earlier method: (labels as arrays, params)."""
    positions, pos_imp, pos_clk = log_positions(log)
    ctr_pos, ctr = ctr_by_position(positions, pos_imp, pos_clk)
    scores = ctr_ratio_scores(
        query=rows["query"], document=rows["document"], position=rows["position"],
        impressions=rows["impressions"], clicks=rows["clicks"], ctr_positions=ctr_pos, ctr=ctr,
    )  # fmt: skip
    enough = scores.impressions >= min_impressions
    keep = enough & ~np.isnan(scores.ratio)
    params = {
        "method": CTR_METHOD,
        "model": "ctr",
        "formula": CTR_FORMULA,
        "min_impressions": min_impressions,
        "ctr_by_position": _by_position(ctr_pos, ctr),
        "pairs": int(scores.ratio.size),
        "labels": int(keep.sum()),
        "below_min_impressions": int((~enough).sum()),
        "no_expected_clicks": int((enough & np.isnan(scores.ratio)).sum()),
    }
    picked = {"query_id": scores.query_id[keep], "document_id": scores.document_id[keep]}
    return {**picked, "ratio": scores.ratio[keep]}, params


def _pbm_labels(log: BehaviourLog, rows: dict, min_expected: float) -> tuple[dict, dict]:
    """The click model: (labels as arrays, params)."""
    positions, pos_imp, pos_clk = log_positions(log)
    start_pos, start_ctr = ctr_by_position(positions, pos_imp, pos_clk)
    scores = click_model_scores(
        query=rows["query"], document=rows["document"], position=rows["position"],
        impressions=rows["impressions"], clicks=rows["clicks"], min_expected=min_expected,
        start_positions=start_pos, start_examination=start_ctr,
    )  # fmt: skip
    keep = scores.enough
    params = {
        "method": METHOD,
        "model": "pbm",
        "formula": FORMULA,
        "min_expected_clicks": min_expected,
        "examination_by_position": _by_position(scores.positions, scores.examination),
        "prior_strength": round(scores.prior_strength, 6),
        "em": {
            "iterations": scores.fit.iterations,
            "converged": scores.fit.converged,
            "log_likelihood": round(scores.fit.log_likelihood, 3),
        },
        "pairs": int(keep.size),
        "pairs_at_several_positions": scores.fitted_pairs,
        "labels": int(keep.sum()),
        "too_little_data": int((~keep).sum()),
        "too_little_data_pairs": _too_little_listed(scores),
    }
    picked = {"query_id": scores.query_id[keep], "document_id": scores.document_id[keep]}
    return {**picked, "ratio": scores.ratio[keep]}, params


def _too_little_listed(scores) -> list[dict]:
    """The first ``LISTED_TOO_LITTLE`` pairs without a label, most evidence first: query and
    document by external id, the expected clicks at the reference rate, the query's clicks."""
    thin = np.flatnonzero(~scores.enough)
    thin = thin[np.argsort(-scores.evidence[thin], kind="stable")][:LISTED_TOO_LITTLE]
    queries = dict(
        Query.objects.filter(pk__in=scores.query_id[thin].tolist()).values_list("pk", "external_id")
    )
    documents = dict(
        Document.objects.filter(pk__in=scores.document_id[thin].tolist()).values_list(
            "pk", "external_id"
        )
    )
    return [
        {
            "query": queries[int(scores.query_id[i])],
            "document": documents[int(scores.document_id[i])],
            "expected_clicks": round(float(scores.evidence[i]), 3),
            "query_clicks": int(scores.query_clicks[i]),
        }
        for i in thin.tolist()
    ]


def _check(
    model: str, grades: np.ndarray, thresholds: list[float], min_expected: float, min_imp
) -> None:
    if model not in MODELS:
        raise ValueError(
            _("unknown click model %(model)s: use %(names)s")
            % {"model": repr(model), "names": " or ".join(MODELS)}
        )
    if len(thresholds) != grades.size - 1:
        raise ValueError(
            _("the scale has %(size)s grades, so %(n)s thresholds are needed (got %(n2)s)")
            % {"size": grades.size, "n": grades.size - 1, "n2": len(thresholds)}
        )
    check_thresholds(thresholds)
    if model == "pbm" and min_imp is not None:
        raise ValueError(
            _(
                "the click model's floor is on expected clicks (min_expected_clicks); "
                "a minimum of impressions belongs to the ctr model"
            )
        )
    if model == "ctr" and min_imp is not None and min_imp < 1:
        raise ValueError(_("the minimum number of impressions must be at least 1"))
    if not (np.isfinite(min_expected) and min_expected >= 0):
        raise ValueError(_("the minimum of expected clicks must be a number, 0 or more"))


def derive_clicks(
    *,
    log: BehaviourLog,
    name: str,
    model: str = "pbm",
    min_expected_clicks: float = DEFAULT_MIN_EXPECTED_CLICKS,
    min_impressions: int | None = None,
    thresholds: list[float] | None = None,
    replace: bool = False,
) -> ImportSummary:
    """Store click labels of ``log`` as the source ``clicks:<name>`` (see the module
    docstring). Raises ValueError for bad parameters and ImportFailed for a name taken."""
    campaign = log.campaign
    grades = scale_grades(campaign)
    thresholds = default_thresholds(grades.size) if thresholds is None else thresholds
    _check(model, grades, thresholds, min_expected_clicks, min_impressions)
    rows = log_rows(log)
    if model == "pbm":
        labels, params = _pbm_labels(log, rows, float(min_expected_clicks))
    else:
        labels, params = _ctr_labels(log, rows, min_impressions or DEFAULT_MIN_IMPRESSIONS)
    params = {"log": log.name, **params, **_threshold_params(thresholds, grades)}
    summary = ImportSummary(
        kind="clicks",
        path=_("log %(name)s") % {"name": repr(log.name)},
        noun=pgettext("import summary", "labels"),
    )
    with transaction.atomic():
        source = source_open(
            campaign=campaign, name=source_name(SourceKind.CLICKS, name), kind=SourceKind.CLICKS,
            replace=replace, params=params, path=summary.path, summary=summary,
        )  # fmt: skip
        summary.created = labels_write(
            source=source,
            query_id=labels["query_id"],
            document_id=labels["document_id"],
            grade=ratio_grades(labels["ratio"], thresholds, grades),
        )
    summary.lines = int(rows["query"].size)
    _warn(summary, params)
    return summary


def _warn(summary: ImportSummary, params: dict) -> None:
    if params.get("too_little_data"):
        summary.warnings.append(
            _("%(n)s pairs had fewer than %(min)s expected clicks: too little data, no label")
            % {
                "n": format(params["too_little_data"], ","),
                "min": format(params["min_expected_clicks"], "g"),
            }
        )
    if params.get("below_min_impressions"):
        summary.warnings.append(
            _("%(n)s pairs were shown fewer than %(min)s times: no label")
            % {
                "n": format(params["below_min_impressions"], ","),
                "min": params["min_impressions"],
            }
        )
