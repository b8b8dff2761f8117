"""Two-way cluster-robust variance of GSB: verdicts clustered by query and by rater.

``shared/STATISTICS.md`` §1, after Cameron, Gelbach and Miller (2011), "Robust inference with
multiway clustering", *Journal of Business & Economic Statistics* 29(2):238-249. Verdict v has
score x_v ∈ {−1, 0, 1} and residual e_v = x_v − R. For a grouping with G groups

    V_grouping = G/(G − 1) · Σ_groups (Σ_{v in group} e_v)² / N²,

V_2 = V_query + V_rater − V_query×rater, V_CR = max(V_query, V_rater, V_2), and against the naive
V = (p_G + p_B − R²)/N the design effect is deff = max(1, V_CR/V). With fewer than
``MIN_RATER_CLUSTERS`` distinct raters V_rater rests on too few groups to be estimated: it (and
the pair term) is left out, and the interval describes these raters, not raters in general.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["MIN_RATER_CLUSTERS", "ClusteredVariance", "cluster_variance", "clustered_variance"]

# Below this many distinct raters the rater clustering is not estimated (STATISTICS.md §1).
MIN_RATER_CLUSTERS = 10


@dataclass(frozen=True)
class ClusteredVariance:
    """The variances behind the design effect (each the variance of R, not of a verdict)."""

    naive: float
    query: float
    rater: float | None  # None when the raters are unknown or too few to cluster by
    pair: float | None
    robust: float  # V_CR
    deff: float
    n_raters: int | None  # distinct raters among the verdicts raters made
    rater_clustered: bool
    # Degrees of freedom of the interval's critical value when clustered by rater too (t with
    # G − 1, G the clusters of the grouping the variance rests on: CGM 2011 use
    # G = min(G_query, G_rater)); None: the normal quantile.
    df: int | None = None


def _codes(labels) -> np.ndarray:
    return np.unique(np.asarray(labels), return_inverse=True)[1].reshape(-1)


def cluster_variance(e: np.ndarray, groups: np.ndarray) -> float:
    """``G/(G − 1) · Σ_groups (Σ e)² / N²`` for residuals ``e`` and integer group codes.

    A single group has no between-group spread to estimate (and Σe = 0 over all verdicts): 0.
    """
    e = np.asarray(e, dtype=np.float64)
    codes = _codes(groups)
    sums = np.bincount(codes, weights=e)
    n_groups = sums.size
    if n_groups < 2:
        return 0.0
    return n_groups / (n_groups - 1) * float(np.dot(sums, sums)) / e.size**2


def clustered_variance(x, query, rater=None, *, singleton=None) -> ClusteredVariance:
    """Two-way clustered variance and design effect of R = mean(x) (STATISTICS.md §1).

    Parameters
    ----------
    x : array_like of {−1, 0, 1}, shape (N,)
        Each verdict's score for the candidate.
    query : array_like, shape (N,)
        The query of each verdict.
    rater : array_like, shape (N,), optional
        The rater of each verdict; without it verdicts are clustered by query only.
    singleton : array_like of bool, shape (N,), optional
        Verdicts no rater made (identical lists' implied Sames): each is its own rater group and
        they do not count towards the number of raters.

    Returns
    -------
    ClusteredVariance
        ``deff = 1`` when no query and no rater clustered by has more than one verdict (nothing
        to cluster: one rater judging every query once is not clustered by, fewer than 10),
        ``deff = N/n`` when every verdict is alike (V = 0), else ``max(1, V_CR/V)``.
    """
    x = np.asarray(x, dtype=np.float64)
    n_verdicts = x.size
    if n_verdicts == 0:
        raise ValueError("need at least one verdict")
    q = _codes(query)
    n_queries = int(q.max()) + 1
    r = None if rater is None else _rater_codes(rater, singleton, n_verdicts)
    n_raters = None
    if r is not None:
        made = np.ones(n_verdicts, bool) if singleton is None else ~np.asarray(singleton, bool)
        n_raters = int(np.unique(r[made]).size)
    e = x - x.mean()
    naive = float(np.dot(e, e)) / n_verdicts**2
    v_query = cluster_variance(e, q)
    use_raters = r is not None and n_raters >= MIN_RATER_CLUSTERS
    v_rater = v_pair = None
    robust = v_query
    df = None
    if use_raters:
        v_rater = cluster_variance(e, r)
        v_pair = cluster_variance(e, q * (int(r.max()) + 1) + r)
        robust = max(v_query, v_rater, v_query + v_rater - v_pair)
        n_groups = n_queries if robust == v_query else min(n_queries, int(np.unique(r).size))
        df = max(1, n_groups - 1)
    deff = _deff(x, q, r if use_raters else None, naive, robust, n_queries)
    if deff == 1.0 or np.all(x == x[0]):
        df = None  # nothing clustered, or no variance estimated: nothing to correct
    return ClusteredVariance(
        naive=naive,
        query=v_query,
        rater=v_rater,
        pair=v_pair,
        robust=robust,
        deff=deff,
        n_raters=n_raters,
        rater_clustered=use_raters,
        df=df,
    )


def _rater_codes(rater, singleton, n_verdicts: int) -> np.ndarray:
    r = _codes(np.asarray(rater).astype(str))
    if r.size != n_verdicts:
        raise ValueError("rater must have one entry per verdict")
    if singleton is not None:
        single = np.asarray(singleton, bool)
        # Own groups, numbered after every real rater.
        r = r.copy()
        r[single] = int(r.max()) + 1 + np.arange(int(single.sum()))
    return r


def _deff(x, q, r, naive: float, robust: float, n_queries: int) -> float:
    largest_query = int(np.bincount(q).max())
    largest_rater = 1 if r is None else int(np.bincount(r).max())
    if largest_query == 1 and largest_rater == 1:
        return 1.0
    # V = 0 exactly when every verdict is alike: test the scores, not a rounded variance.
    if np.all(x == x[0]):
        return x.size / n_queries
    ratio = robust / naive
    # Equal to V algebraically in some designs; rounding must not yield 1 + 1e-16.
    return 1.0 if ratio <= 1.0 + 1e-9 else ratio
