"""GSB from individual verdicts: parsing, sides, strengths, agreement, then the statistics.

Each row is one verdict of one rater on one task (a query, or a query and position). Rows of
identical-list tasks are Same verdicts no rater made: they count in G/S/B and in the clustering
(once per rater the task would have had), but not in the position-bias test, the shuffle check
or rater agreement.
"""

from __future__ import annotations

import numpy as np

from metrics.core.stats.agreement import (
    krippendorff_alpha,
    pairwise_agreement,
    reliability_matrix,
)
from metrics.core.stats.cluster import MIN_RATER_CLUSTERS, clustered_variance
from metrics.core.stats.gsb import GsbResult, gsb_from_query_counts
from metrics.core.stats.position import position_bias, shuffle_check
from metrics.core.stats.resampling import DEFAULT_RESAMPLES

__all__ = [
    "few_raters_warning",
    "gsb_from_verdicts",
    "no_raters_warning",
    "parse_sides",
    "parse_strengths",
    "parse_verdicts",
]


def few_raters_warning(n_raters: int) -> str:
    """The warning when raters are too few to cluster by (pages translate it by this text)."""
    return (
        f"only {n_raters} raters: the interval describes these raters, not raters in general "
        f"(at least {MIN_RATER_CLUSTERS} are needed to allow for how raters differ)"
    )


def no_raters_warning() -> str:
    """The warning when the raters are unknown: nothing tells whether they were shared."""
    return (
        "no rater column: the interval allows for queries only and uses the normal critical "
        "value z; if the same raters judged many queries it can be too narrow"
    )


_VERDICT_CODES = {
    "G": 1, "GOOD": 1, "+1": 1, "1": 1,
    "S": 0, "SAME": 0, "0": 0,
    "B": -1, "BAD": -1, "-1": -1,
}  # fmt: skip
_SIDE_CODES = {"LEFT": 1, "L": 1, "RIGHT": 2, "R": 2, "": 0, "SAME": 0, "NONE": 0, "NAN": 0}
_STRENGTH_CODES = {"": -1, "NAN": -1, "NONE": -1, "0": 0, "1": 1, "2": 2, "3": 3}
_STRENGTH_CODES |= {"SLIGHTLY": 1, "CLEARLY": 2, "MUCH": 3}


def _canonical(token: str) -> str:
    """Upper-case text; numbers in their integer spelling (1.0 → 1, -1.0 → -1)."""
    try:
        x = float(token)
    except ValueError:
        return token
    return str(int(x)) if x.is_integer() else token


def _map(values, codes: dict[str, int], name: str, n: int) -> np.ndarray:
    arr = np.asarray(values, dtype=object)
    if arr.ndim != 1 or arr.size != n:
        raise ValueError(f"{name} must be a 1-d array with one entry per verdict")
    text = np.array(["" if v is None else str(v).strip().upper() for v in arr.tolist()])
    # Map each distinct token once, then broadcast through the inverse index.
    uniq, inv = np.unique(text, return_inverse=True)
    canon = [_canonical(u) for u in uniq.tolist()]
    bad = [u for u, c in zip(uniq.tolist(), canon, strict=True) if c not in codes]
    if bad:
        raise ValueError(f"unknown {name} {bad[0]!r} (expected one of {sorted(set(codes))})")
    return np.array([codes[c] for c in canon], dtype=np.int64)[inv].reshape(n)


def parse_verdicts(verdicts) -> np.ndarray:
    """Code verdicts as +1 Good, 0 Same, −1 Bad (accepts G/S/B, good/same/bad, +1/0/−1)."""
    arr = np.asarray(verdicts, dtype=object)
    return _map(arr, _VERDICT_CODES, "verdict", arr.size)


def parse_sides(sides, n: int) -> np.ndarray:
    """Code sides as 1 left, 2 right, 0 none (Same or missing)."""
    return _map(sides, _SIDE_CODES, "side", n)


def parse_strengths(strengths, n: int) -> np.ndarray:
    """Code strengths 1-3 (slightly, clearly, much), 0 for none given with Same, −1 missing."""
    return _map(strengths, _STRENGTH_CODES, "strength", n)


def gsb_from_verdicts(
    query_ids,
    verdicts,
    *,
    raters=None,
    candidate_sides=None,
    chosen_sides=None,
    strengths=None,
    identical=None,
    agreement: bool = True,
    confidence: float = 0.95,
    threshold: float = 0.0,
    min_queries: int = 30,
    bootstrap: bool = False,
    seed: int | None = None,
    n_resamples: int = DEFAULT_RESAMPLES,
) -> GsbResult:
    """GSB report (a :class:`GsbResult`) from one row per verdict.

    Parameters
    ----------
    query_ids : array_like, shape (k,)
        The task (query) of each verdict; verdicts are clustered by it.
    verdicts : array_like, shape (k,)
        For the candidate: 'G'/'S'/'B' (or good/same/bad, +1/0/−1).
    raters : array_like, optional
        Rater of each verdict: verdicts are then clustered by rater too (two-way, STATISTICS.md
        §1), and Krippendorff's ordinal alpha and raw agreement are computed (a rater may then
        give one verdict per query).
    candidate_sides : array_like, optional
        'left'/'right': where the candidate was shown; enables the shuffle check.
    chosen_sides : array_like, optional
        'left'/'right' for the side the rater preferred, empty for Same. Derived from the
        candidate side and the verdict when absent; checked against them when both are given.
    strengths : array_like, optional
        1-3 or slightly/clearly/much (empty when not given); gives the −3 … +3 distribution,
        and agreement on that scale when every rated G/B verdict has one.
    identical : array_like of bool, optional
        Rows of identical-list tasks (must be Same). A query whose every row is identical does
        not count towards n_min; these rows are each their own rater cluster.
    agreement : bool
        Compute rater agreement (False when a rater answers several tasks of a query, as per
        position: the raters still cluster the verdicts).
    confidence, threshold, min_queries, bootstrap, seed, n_resamples
        As in :func:`metrics.core.stats.gsb.gsb_from_query_counts`.
    """
    q, v, ident = _checked_rows(query_ids, verdicts, identical, raters)
    result = _gsb_by_query(
        q, v, ident, raters, confidence=confidence, threshold=threshold,
        min_queries=min_queries, bootstrap=bootstrap, seed=seed, n_resamples=n_resamples,
    )  # fmt: skip
    point = _add_sides_and_strengths(result, v, ident, candidate_sides, chosen_sides, strengths)
    if raters is not None and agreement:
        _add_agreement(result, q, v, ident, raters, point)
    return result


def _gsb_by_query(q: np.ndarray, v: np.ndarray, ident: np.ndarray, raters, **settings) -> GsbResult:
    """The G/S/B statistics of the verdicts counted per query, clustered by query and rater.

    ``settings`` are :func:`gsb_from_query_counts`'s (confidence, threshold, ...).
    """
    q_ids, q_idx = np.unique(q, return_inverse=True)
    g, s, b = (
        np.bincount(q_idx, weights=v == code, minlength=q_ids.size).astype(np.int64)
        for code in (1, 0, -1)
    )
    clustered = clustered_variance(v, q_idx, raters, singleton=ident)
    result = gsb_from_query_counts(
        g, s, b,
        informative=np.bincount(q_idx, weights=~ident, minlength=q_ids.size) > 0,
        deff=clustered.deff, df=clustered.df, **settings,
    )  # fmt: skip
    result.n_raters = clustered.n_raters
    result.rater_clustered = clustered.rater_clustered
    if raters is None:
        result.warnings.append(no_raters_warning())
    elif not clustered.rater_clustered:
        result.warnings.append(few_raters_warning(clustered.n_raters))
    result.identical_verdicts = int(ident.sum())
    result.identical_queries = int(np.unique(q_idx[ident]).size)
    return result


def _add_sides_and_strengths(
    result: GsbResult, v: np.ndarray, ident: np.ndarray, candidate_sides, chosen_sides, strengths
) -> np.ndarray:
    """Checks and adds what the sides and strengths show; returns each verdict's point on the
    scale agreement is measured on (G/S/B, or −3 … +3 when every rated G/B has a strength)."""
    _add_sides(result, v, ident, candidate_sides, chosen_sides)
    if strengths is None:
        return v.astype(np.float64)
    return _add_strengths(result, v, ident, strengths)


def _checked_rows(query_ids, verdicts, identical, raters):
    """(query ids, coded verdicts, identical flags), each one entry per verdict, checked."""
    q = np.asarray(query_ids)
    if q.ndim != 1 or q.size == 0:
        raise ValueError("need at least one verdict")
    n = q.size
    v = parse_verdicts(verdicts)
    if v.size != n:
        raise ValueError("query_ids and verdicts must have the same length")
    ident = np.zeros(n, bool) if identical is None else np.asarray(identical, dtype=bool)
    if ident.shape != (n,):
        raise ValueError("identical must have one entry per verdict")
    if np.any(v[ident] != 0):
        raise ValueError("a verdict on an identical-list task must be Same")
    if raters is not None and np.asarray(raters).shape != (n,):
        raise ValueError("raters must have one entry per verdict")
    return q, v, ident


def _add_sides(result: GsbResult, v, ident, candidate_sides, chosen_sides) -> None:
    n = v.size
    cand = None if candidate_sides is None else parse_sides(candidate_sides, n)
    chosen = None if chosen_sides is None else parse_sides(chosen_sides, n)
    rated = ~ident
    if cand is not None:
        if np.any(rated & (cand == 0)):
            raise ValueError("candidate_side is missing for a rated verdict (left or right)")
        # Good picks the candidate's side, Bad the other one, Same neither.
        other = np.where(cand == 1, 2, 1)
        implied = np.where(v == 1, cand, np.where(v == -1, other, 0))
        if chosen is not None:
            wrong = np.nonzero(rated & (chosen != implied))[0]
            if wrong.size:
                raise ValueError(
                    f"verdict row {wrong[0] + 1}: chosen_side disagrees with the verdict and "
                    "candidate_side"
                )
        chosen = implied
        result.shuffle = shuffle_check(int(np.count_nonzero(rated & (cand == 1))), int(rated.sum()))
        if result.shuffle is not None and result.shuffle.error:
            result.errors.append(
                f"the candidate was on the left in {result.shuffle.share_left:.1%} of tasks "
                f"(p = {result.shuffle.p_value:.2g}): the sides were not shuffled"
            )
    if chosen is not None:
        if np.any(rated & (v != 0) & (chosen == 0)):
            raise ValueError("chosen_side is missing for a Good or Bad verdict")
        if np.any(rated & (v == 0) & (chosen != 0)):
            raise ValueError("chosen_side must be empty for a Same verdict")
        result.position_bias = position_bias(
            int(np.count_nonzero(rated & (chosen == 1))),
            int(np.count_nonzero(rated & (chosen == 2))),
        )
        pb = result.position_bias
        if pb is not None and pb.warn:
            result.warnings.append(
                f"position bias: {pb.share_left:.1%} of preferences went to the left side "
                f"(p = {pb.p_value:.2g})"
            )


def _add_strengths(result: GsbResult, v, ident, strengths) -> np.ndarray:
    st = parse_strengths(strengths, v.size)
    if np.any((v == 0) & (st > 0)):
        raise ValueError("a Same verdict cannot have a strength")
    if np.any((v != 0) & (st == 0)):
        raise ValueError("a Good or Bad verdict's strength must be 1, 2 or 3")
    # Same is 0 on the 7-point scale whatever was recorded; G/B need a strength.
    known = (v == 0) | (st > 0)
    point = np.where(v == 0, 0, v * st).astype(np.float64)
    counts = np.bincount((point[known] + 3).astype(np.int64), minlength=7)
    result.strength_distribution = {k - 3: int(c) for k, c in enumerate(counts)}
    result.strength_missing = int(np.count_nonzero(~known))
    if np.all(known[~ident]):
        return point
    return v.astype(np.float64)


def _add_agreement(result: GsbResult, q, v, ident, raters, point) -> None:
    r = np.asarray(raters)
    if r.shape != v.shape:
        raise ValueError("raters must have one entry per verdict")
    rated = ~ident
    matrix, _, _ = reliability_matrix(q[rated], r[rated], point[rated])
    if np.any(np.count_nonzero(~np.isnan(matrix), axis=0) >= 2):
        result.alpha = krippendorff_alpha(matrix, level="ordinal")
        result.raw_agreement = pairwise_agreement(matrix)
