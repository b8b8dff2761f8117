"""A model's labels read against human agreement: for each model source (`model:<name>`), its
agreement with every rater on the pairs both judged, beside the raters' agreement with each
other, so "the model agrees with the raters at κ 0.6" can be read against "the raters agree
with each other at κ 0.55".

Figures are those of metrics.services.label_sources.agreement (exact share, Cohen's kappa with
linear weights, Krippendorff's alpha with the ordinal metric, confusion matrix), on whole
grades. A rater is one source here: their counted grades ("can't judge" is no grade). Means
are plain means over the pairs of sources with at least MIN_SHARED pairs in common (a kappa on
one shared item says nothing). Also: which pairs of runs a model source orders the other way
round than the raters' aggregate does (a launch decision that would flip).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np
from django.contrib.auth import get_user_model

from annotate.models import Campaign, Grade
from annotate.selectors.real import real_grades
from metrics.core.stats import krippendorff_alpha
from metrics.services.label_sources import Agreement, agreement, round_half_up

MIN_SHARED = 2


@dataclass(frozen=True)
class MeanAgreement:
    kappa: float | None
    alpha: float | None
    pairs: int  # pairs of sources averaged


@dataclass(frozen=True)
class ModelAgainstRaters:
    source: str
    per_rater: list[Agreement]  # a: the model source, b: "rater:<username>"
    mean: MeanAgreement


@dataclass(frozen=True)
class RaterComparison:
    raters: list[str]
    between_raters: list[Agreement]
    human: MeanAgreement
    models: list[ModelAgainstRaters]
    raters_alpha: float | None  # every rater at once, items with two grades or more


@dataclass(frozen=True)
class Flip:
    run_a: str
    run_b: str
    raters_delta: float  # NDCG@k of run a minus run b under the raters' aggregate
    model_delta: float


def rater_labels(campaign: Campaign) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """ "rater:<username>" -> (packed pair keys sorted, whole grades), as ``labelled`` gives."""
    rows = np.array(
        real_grades(Grade.objects.filter(pool_item__campaign=campaign, cant_judge=False), campaign)
        .values_list("rater_id", "pool_item__query_id", "pool_item__document_id", "label__grade")
        .order_by(),
        dtype=np.float64,
    ).reshape(-1, 4)
    names = dict(
        get_user_model()
        .objects.filter(pk__in=np.unique(rows[:, 0]).astype(int).tolist())
        .values_list("pk", "username")
    )
    out = {}
    for pk in sorted(names, key=lambda p: names[p]):
        mine = rows[rows[:, 0] == pk]
        key = (mine[:, 1].astype(np.int64) << 32) | mine[:, 2].astype(np.int64)
        order = np.argsort(key, kind="stable")
        out[f"rater:{names[pk]}"] = (key[order], round_half_up(mine[order, 3]))
    return out


def _mean(items: list[Agreement]) -> MeanAgreement:
    usable = [a for a in items if a.both >= MIN_SHARED]
    kappas = [a.kappa for a in usable if a.kappa is not None]
    alphas = [a.alpha for a in usable if a.alpha is not None]
    return MeanAgreement(
        kappa=float(np.mean(kappas)) if kappas else None,
        alpha=float(np.mean(alphas)) if alphas else None,
        pairs=len(usable),
    )


def _all_raters_alpha(raters: dict, scale: np.ndarray) -> float | None:
    """Krippendorff's alpha over every rater at once (the multi-coder form: missing cells)."""
    if len(raters) < 2:
        return None
    keys = np.unique(np.concatenate([k for k, _ in raters.values()]))
    matrix = np.full((len(raters), keys.size), np.nan)
    for row, (k, g) in enumerate(raters.values()):
        matrix[row, np.searchsorted(keys, k)] = g
    if np.sum(np.sum(~np.isnan(matrix), axis=0) >= 2) == 0:
        return None
    value = krippendorff_alpha(matrix, level="ordinal", value_domain=scale)
    return None if np.isnan(value) else float(value)


def rater_comparison(
    *, campaign: Campaign, models: dict[str, tuple[np.ndarray, np.ndarray]], scale: np.ndarray
) -> RaterComparison:
    """``models``: each model source's ``labelled`` arrays, by source key."""
    raters = rater_labels(campaign)
    between = [
        agreement(a=a, b=b, a_labels=raters[a], b_labels=raters[b], scale=scale)
        for a, b in combinations(raters, 2)
    ]
    per_model = []
    for key, labels in models.items():
        rows = [
            agreement(a=key, b=r, a_labels=labels, b_labels=raters[r], scale=scale) for r in raters
        ]
        per_model.append(ModelAgainstRaters(key, rows, _mean(rows)))
    return RaterComparison(
        raters=list(raters),
        between_raters=between,
        human=_mean(between),
        models=per_model,
        raters_alpha=_all_raters_alpha(raters, scale),
    )


def flips(*, runs: list, a: str, b: str, ndcg: str) -> list[Flip]:
    """Pairs of runs that ``a`` and ``b`` order the opposite way by ``ndcg`` (ties in either
    are not a flip). ``runs``: the report's RunScores."""
    out = []
    for x, y in combinations(runs, 2):
        da = x.values[a][ndcg] - y.values[a][ndcg]
        db = x.values[b][ndcg] - y.values[b][ndcg]
        if da * db < 0:
            out.append(Flip(x.run, y.run, da, db))
    return out
