"""Graded labels from clicks: a position-based click model with shrinkage toward the query.

Pure numpy (no Django). The input is a click log summed per (query, document, position): the
impressions I and clicks C of each row.

1. **Position-based model** (PBM; Chuklin, Markov and de Rijke, *Click Models for Web Search*,
   2015, sections 3.4 and 4.2): a result at position p is examined with probability γ_p and,
   once examined, clicked with probability α_qd (its attractiveness for the query), so
   P(click) = γ_p · α_qd. Both are fitted by expectation-maximisation on the summed rows: in a
   row's I − C impressions without a click, the document was examined but not attractive, or
   attractive but not examined, with the posterior shares

       P(E=1 | C=0) = γ(1 − α) / (1 − γα),    P(A=1 | C=0) = α(1 − γ) / (1 − γα)

   and the M-step sets γ_p (α_qd) to the expected examinations (attractions) over the
   impressions of the position (pair). Every step is a handful of vector operations and
   ``np.bincount`` over the rows: no loop over queries, documents or positions.
   Position and attractiveness can only be told apart where documents were shown at several
   positions, so EM is fitted on those pairs' rows; a position none of them reaches keeps its
   starting γ, the click-through rate per position (relative to the top).
2. **Expected clicks within the query.** The examinations of a pair are n_qd = Σ_p I_qdp γ_p.
   The query's mean attractiveness ᾱ_q is the random-effects mean of the C/n of its documents
   (weights n / (1 + τ² E'), so a well-examined document counts once, not by its exposure, and
   the ranking's choice of what it showed on top does not set the mean). A document's expected
   clicks E_qd = n_qd · ᾱ_q are the clicks an average document of *this* query would have had
   in the same places; the raw ratio C / E does not move when the query's clicks are scaled.
3. **Empirical-Bayes shrinkage, on the reference scale.** A query's click rate is a nuisance
   scale, so shrinkage and floor are measured in examinations, not in the query's own clicks:
   the clicks are put on the scale of a reference query, C' = C · ᾱ / ᾱ_q, with ᾱ the median
   of the queries' ᾱ_q, and the evidence is E' = n · ᾱ (C' / E' = C / E). Then C' ~ Poisson(θ
   E') with θ ~ Gamma(k, k) (mean 1: the query's mean), and θ̂ = (C' + k) / (E' + k), with the
   prior's variance 1/k = τ² estimated from all pairs by moments, τ² = Σ[(C' − E')² − r E'] /
   Σ E'², r = ᾱ / ᾱ_q (the Poisson variance of C'), clipped to [``TAU2_MIN``, ``TAU2_MAX``].
   A document with little evidence is pulled toward 1 (the query's mean: the middle grade by
   default), one with much keeps its own ratio. (Shrinking with k in the query's own clicks,
   θ̂ = (C + k) / (E + k), pulls a query's ratios harder toward 1 when its users click less.)
4. **Floor.** A pair with E' < ``min_expected`` gets no grade: "too little data", as does every
   pair of a query with fewer than ``min_expected`` clicks in all, or with none (its own mean
   must be known at least as well as one document's ratio at the floor).

Invariance: multiplying one query's clicks by any factor multiplies C and ᾱ_q alike and leaves
C', E', θ̂ and the floor's verdict of each of its pairs as they were, unless it takes the
query below ``min_expected`` clicks in all. What does depend on every query, γ_p, ᾱ (a median)
and τ², moves by that query's share of the log. A *propensity* change is not an exact scaling:
the clicks are a new draw, fewer clicks carry less information, and a label near a threshold
can move either way (tests/annotate/services/labels/test_labels_click_model.py).

Why not a click-model package: PyClick (the book's own library) is installed from its
repository only, ClickModels (2014) is a set of scripts, pyClickModels fits the DBN only, and
CLAX trains with JAX and Flax; all of them read one record per search session, while the log is
stored summed per (query, document, position), which is all the PBM's EM needs. The EM here is
checked against the likelihood's maximum found by scipy (tests/metrics/core/test_core_clicks.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

import numpy as np

__all__ = [
    "DEFAULT_MIN_EXPECTED_CLICKS",
    "ClickModelScores",
    "CtrScores",
    "PBMFit",
    "Shrinkage",
    "check_thresholds",
    "click_model_scores",
    "ctr_by_position",
    "ctr_ratio_scores",
    "default_thresholds",
    "fit_pbm",
    "pair_index",
    "ratio_grades",
    "shrunk_ratios",
]

DEFAULT_MIN_EXPECTED_CLICKS = 10.0
FIRST_THRESHOLD = 1.5
TAU2_MIN = 1e-3  # prior variance of θ: at most k = 1,000 clicks' worth of shrinkage
TAU2_MAX = 100.0
_EPS = 1e-9


def default_thresholds(n_grades: int) -> list[float]:
    """1.5, then half of the previous threshold, one fewer than the grades."""
    return [FIRST_THRESHOLD / 2**i for i in range(n_grades - 1)]


def check_thresholds(thresholds: Sequence[float]) -> None:
    """ValueError unless the thresholds are positive, finite and strictly decreasing."""
    if not np.all(np.isfinite(thresholds)) or any(v <= 0 for v in thresholds):
        raise ValueError("thresholds must be positive numbers")
    if any(b >= a for a, b in pairwise(thresholds)):
        raise ValueError("thresholds must go down, highest first (e.g. 1.5,0.75)")


def ratio_grades(ratio: np.ndarray, thresholds: Sequence[float], grades: np.ndarray) -> np.ndarray:
    """Grade per ratio: grades[i] where i = the number of thresholds above the ratio."""
    ascending = np.asarray(thresholds[::-1], dtype=np.float64)
    above = ascending.size - np.searchsorted(ascending, ratio, side="right")
    return grades[above]


def pair_index(
    query: np.ndarray, document: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(distinct queries of the pairs, distinct documents, each row's pair number); pairs
    sorted by query then document."""
    n = query.size
    order = np.lexsort((document, query))
    q, d = query[order], document[order]
    start = np.ones(n, dtype=bool)
    start[1:] = (q[1:] != q[:-1]) | (d[1:] != d[:-1])
    sorted_pair = np.cumsum(start) - 1
    row_pair = np.empty(n, dtype=np.int64)
    row_pair[order] = sorted_pair
    return q[start], d[start], row_pair


# --- today's method, kept as the baseline --------------------------------------------------


@dataclass(frozen=True)
class CtrScores:
    """Per (query, document) pair of the log: its sums and its ratio (NaN: no expectation)."""

    query_id: np.ndarray
    document_id: np.ndarray
    impressions: np.ndarray
    clicks: np.ndarray
    expected: np.ndarray
    ratio: np.ndarray


def ctr_by_position(
    positions: np.ndarray, impressions: np.ndarray, clicks: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """CTR(p) as a lookup: (sorted positions, their CTR; 0 where never shown)."""
    ctr = np.where(impressions > 0, clicks / np.maximum(impressions, 1), 0.0)
    return positions, ctr


def _rate_at(position: np.ndarray, positions: np.ndarray, rates: np.ndarray) -> np.ndarray:
    """rates[i] where positions[i] == position (positions sorted); 0 for a position not there."""
    if not positions.size:
        return np.zeros(position.size)
    at = np.minimum(np.searchsorted(positions, position), positions.size - 1)
    return np.where(positions[at] == position, rates[at], 0.0)


def ctr_ratio_scores(
    *,
    query: np.ndarray,
    document: np.ndarray,
    position: np.ndarray,
    impressions: np.ndarray,
    clicks: np.ndarray,
    ctr_positions: np.ndarray,
    ctr: np.ndarray,
) -> CtrScores:
    """The earlier method: expected = Σ_p I(q,d,p) · CTR(p) with CTR(p) pooled over every
    query, ratio = clicks / expected, no shrinkage."""
    q, d, pair = pair_index(query, document)
    n = q.size
    imp = np.bincount(pair, weights=impressions, minlength=n).astype(np.int64)
    clk = np.bincount(pair, weights=clicks, minlength=n).astype(np.int64)
    exp = np.bincount(
        pair, weights=impressions * _rate_at(position, ctr_positions, ctr), minlength=n
    )
    ratio = np.where(exp > 0, clk / np.where(exp > 0, exp, 1.0), np.nan)
    return CtrScores(q, d, imp, clk, exp, ratio)


# --- the position-based model -------------------------------------------------------------


@dataclass(frozen=True)
class PBMFit:
    """γ per position index (scaled so the best-examined position is 1) and α per pair (scaled
    the other way, so γ·α is the fitted click probability); the EM's own bookkeeping."""

    examination: np.ndarray
    attractiveness: np.ndarray
    iterations: int
    converged: bool
    log_likelihood: float


def _em_start(pair, position, impressions, clicks, n_pairs, n_positions, examination):
    if examination is None:  # the click-through rate per position, top = 1
        shown = np.bincount(position, weights=impressions, minlength=n_positions)
        hit = np.bincount(position, weights=clicks, minlength=n_positions)
        examination = hit / np.maximum(shown, 1)
        examination = examination / max(float(examination.max(initial=0)), _EPS)
    gamma = _examination(np.asarray(examination, dtype=np.float64))
    exams = np.bincount(pair, weights=impressions * gamma[position], minlength=n_pairs)
    hits = np.bincount(pair, weights=clicks, minlength=n_pairs)
    alpha = _attraction(hits / np.maximum(exams, _EPS))
    return gamma, alpha


class _PBMStep:
    """One EM step of the PBM on fixed rows, and the rows' log-likelihood."""

    def __init__(self, pair, position, impressions, clicks, n_pairs, n_positions) -> None:
        self.pair, self.position = pair, position
        self.n_pairs, self.n_positions = n_pairs, n_positions
        self.clk = np.asarray(clicks, dtype=np.float64)
        self.imp = np.asarray(impressions, dtype=np.float64)
        self.skipped = self.imp - self.clk
        self.shown_pair = np.maximum(np.bincount(pair, weights=self.imp, minlength=n_pairs), _EPS)
        shown_pos = np.bincount(position, weights=self.imp, minlength=n_positions)
        self.seen_pos = shown_pos > 0  # a position without rows keeps the γ it has
        self.shown_pos = np.maximum(shown_pos, _EPS)

    def __call__(self, gamma: np.ndarray, alpha: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        g, a = gamma[self.position], alpha[self.pair]
        ga = g * a
        rest = self.skipped / np.maximum(1.0 - ga, _EPS)  # non-clicks over P(no click)
        attracted = np.bincount(self.pair, weights=self.clk + rest * (a - ga),
                                minlength=self.n_pairs)  # fmt: skip
        examined = np.bincount(self.position, weights=self.clk + rest * (g - ga),
                               minlength=self.n_positions)  # fmt: skip
        gamma = np.where(self.seen_pos, examined / self.shown_pos, gamma)
        return _examination(gamma), _attraction(attracted / self.shown_pair)

    def log_likelihood(self, gamma: np.ndarray, alpha: np.ndarray) -> float:
        p = np.clip(gamma[self.position] * alpha[self.pair], _EPS, 1 - _EPS)
        return float(np.sum(self.clk * np.log(p) + self.skipped * np.log1p(-p)))


def _examination(x: np.ndarray) -> np.ndarray:
    return np.clip(x, 1e-9, 1.0)


def _attraction(x: np.ndarray) -> np.ndarray:
    # 0 is allowed, and is the estimate of a pair never clicked (EM then keeps it there: a
    # floor above 0 would make EM creep toward 0 for ever). Below 1, so that γα < 1.
    return np.clip(x, 0.0, 1 - 1e-9)


_MAX_STEP = 8.0  # SQUAREM's step length, at most: a bounded extrapolation
_FLAT = 1e-9  # a gain in log-likelihood below this share of it: converged


def _squarem(step: _PBMStep, gamma: np.ndarray, alpha: np.ndarray):
    """One SQUAREM update (Varadhan and Roland, 2008, scheme S3): two EM steps, an
    extrapolation along them with the step length -|r|/|v| kept in [-8, -1] (-1 is the plain
    two steps), projected into the bounds, then one EM step from there. Without the
    likelihood check of the original (two more passes over the rows), as in their squarem2:
    the bounded step keeps it stable, and the stopping rule is on γ."""
    g1, a1 = step(gamma, alpha)
    g2, a2 = step(g1, a1)
    rg, ra = g1 - gamma, a1 - alpha
    vg, va = g2 - g1 - rg, a2 - a1 - ra
    norm_v = float(np.sqrt(vg @ vg + va @ va))
    if norm_v <= 0:
        return g2, a2
    s = min(-1.0, max(-_MAX_STEP, -float(np.sqrt(rg @ rg + ra @ ra)) / norm_v))
    gj = _examination(gamma - 2 * s * rg + s * s * vg)
    aj = _attraction(alpha - 2 * s * ra + s * s * va)
    gj, aj = step(gj, aj)
    if not (np.all(np.isfinite(gj)) and np.all(np.isfinite(aj))):
        return g2, a2
    return gj, aj


def fit_pbm(
    *,
    pair: np.ndarray,
    position: np.ndarray,
    impressions: np.ndarray,
    clicks: np.ndarray,
    n_pairs: int,
    n_positions: int,
    examination: np.ndarray | None = None,
    max_iter: int = 100,
    tol: float = 1e-4,
) -> PBMFit:
    """EM for the PBM on summed rows, accelerated by SQUAREM. ``pair`` and ``position`` are
    0-based indexes (each row's); ``examination`` is the starting γ per position index
    (default: the rows' own click-through rate per position, scaled to a top of 1). Stops when
    no γ (relative to the largest) moves by more than ``tol``, when the log-likelihood gains
    less than a billionth of itself, or after ``max_iter`` updates (each three EM steps).

    The rule watches γ, which is what the labels use, not α: the α of rarely shown pairs
    converge far more slowly and would set the pace for nothing. On the simulated logs of
    benchmarks/sim_clicks.py the γ it stops at are within 0.5% of the maximum-likelihood ones
    (tests/metrics/core/test_core_clicks.py checks the fit against scipy with a tight ``tol``),
    while the grade thresholds are 25% and more apart."""
    step = _PBMStep(pair, position, impressions, clicks, n_pairs, n_positions)
    gamma, alpha = _em_start(pair, position, step.imp, step.clk, n_pairs, n_positions, examination)
    converged, iterations = not step.imp.size, 0  # no rows: nothing to fit, γ as it starts
    ll = step.log_likelihood(gamma, alpha)
    while iterations < max_iter and not converged:
        iterations += 1
        new_gamma, new_alpha = _squarem(step, gamma, alpha)
        change = np.abs(new_gamma / new_gamma.max() - gamma / gamma.max()).max(initial=0)
        gamma, alpha, before = new_gamma, new_alpha, ll
        ll = step.log_likelihood(gamma, alpha)
        # Or the likelihood is flat: documents seldom shown at two positions leave γ adrift
        # along a ridge where nothing is learnt.
        converged = bool(change <= tol or ll - before <= _FLAT * abs(ll))
    scale = max(float(gamma.max(initial=0)), _EPS)
    return PBMFit(gamma / scale, alpha * scale, iterations, converged, ll)


# --- expected clicks within the query, and shrinkage ---------------------------------------


def _dispersion(clicks: np.ndarray, expected: np.ndarray, noise: np.ndarray) -> float:
    """τ², the variance of θ = clicks / expected across pairs, by moments: Σ[(C − E)² − noise]
    / Σ E², ``noise`` being each pair's Poisson variance of C; clipped to [TAU2_MIN, TAU2_MAX]."""
    squares = float(np.sum(expected**2))
    if squares <= 0:
        return TAU2_MAX
    tau2 = float(np.sum((clicks - expected) ** 2 - noise)) / squares
    return float(np.clip(tau2, TAU2_MIN, TAU2_MAX))


@dataclass(frozen=True)
class Shrinkage:
    """Per pair: the expected clicks E at its query's own click rate, the evidence E' (expected
    clicks at the reference rate), the shrunk ratio θ̂ (NaN where the query has no clicks); per
    query its clicks; the prior strength k (in clicks at the reference rate) and that rate."""

    expected: np.ndarray
    evidence: np.ndarray
    ratio: np.ndarray
    query_clicks: np.ndarray
    prior_strength: float
    reference: float


def shrunk_ratios(
    *,
    clicks: np.ndarray,
    examinations: np.ndarray,
    query: np.ndarray,
    n_queries: int,
    rounds: int = 3,
) -> Shrinkage:
    """The shrunk ratio of each pair (module docstring, steps 2 and 3). ``query`` is each
    pair's 0-based query index. A query's clicks are put on the reference scale, ×ᾱ / ᾱ_q,
    before τ² and the shrinkage are taken, so that they do not depend on its click rate."""
    c = np.asarray(clicks, dtype=np.float64)
    n = np.asarray(examinations, dtype=np.float64)
    query_clicks = np.bincount(query, weights=c, minlength=n_queries)
    known = (query_clicks > 0)[query]  # a query without clicks says nothing within itself
    weight = np.ones(c.size)
    tau2 = TAU2_MAX
    for _ in range(rounds):  # the random-effects means and τ² depend on each other
        pooled_c = np.bincount(query, weights=c * weight, minlength=n_queries)
        pooled_n = np.bincount(query, weights=n * weight, minlength=n_queries)
        mean = pooled_c / np.maximum(pooled_n, _EPS)
        clicked = mean[mean > 0]
        reference = float(np.median(clicked)) if clicked.size else 0.0
        to_reference = np.where(known, reference / np.maximum(mean[query], _EPS), 0.0)
        evidence, scaled = n * reference, c * to_reference
        # Var(C') = r² Var(C) = r · E' for a Poisson count at θ = 1, r = ᾱ / ᾱ_q.
        tau2 = _dispersion(scaled[known], evidence[known], (to_reference * evidence)[known])
        weight = 1.0 / (1.0 + tau2 * evidence)
    k = 1.0 / tau2
    ratio = np.where(known, (scaled + k) / (evidence + k), np.nan)
    return Shrinkage(n * mean[query], evidence, ratio, query_clicks, k, reference)


@dataclass(frozen=True)
class ClickModelScores:
    """Per (query, document) pair: the sums, the examinations Σ I·γ, the expected clicks of an
    average document of the query there (E) and at the reference click rate (E', the floor's
    quantity), its query's clicks, the shrunk ratio, and whether it clears the floor."""

    query_id: np.ndarray
    document_id: np.ndarray
    impressions: np.ndarray
    clicks: np.ndarray
    examinations: np.ndarray
    expected: np.ndarray
    evidence: np.ndarray
    query_clicks: np.ndarray
    ratio: np.ndarray
    enough: np.ndarray
    prior_strength: float
    reference: float  # ᾱ, the median query's mean attractiveness
    positions: np.ndarray  # the distinct positions, with their fitted examination
    examination: np.ndarray
    fit: PBMFit  # its α are those of the pairs shown at several positions, in pair order
    fitted_pairs: int  # how many pairs those were


def _at_several_positions(pair, position, n_pairs: int, n_positions: int) -> np.ndarray:
    """Per pair: was it shown at two or more positions?"""
    distinct = np.unique(pair * n_positions + position) // n_positions
    return np.bincount(distinct, minlength=n_pairs) >= 2


def _own_rate(position, impressions, clicks, n_positions: int, given) -> np.ndarray:
    """The starting γ: ``given`` where it is a number, else the rows' own click-through rate
    at that position; scaled to a top of 1."""
    own = np.bincount(position, weights=clicks, minlength=n_positions) / np.maximum(
        np.bincount(position, weights=impressions, minlength=n_positions), 1
    )
    start = own if given is None else np.where(np.isnan(given), own, given)
    return start / max(float(start.max(initial=0)), _EPS)


def _start_examination(positions: np.ndarray, start_positions, start_examination):
    """The given starting γ at ``positions`` (NaN where none is given), or None."""
    if start_positions is None or start_examination is None:
        return None
    gamma0 = _rate_at(positions, np.asarray(start_positions), np.asarray(start_examination))
    return np.where(np.isin(positions, start_positions), gamma0, np.nan)


def _fit_where_told_apart(
    pair, pos_index, impressions, clicks, n_pairs: int, n_positions: int, gamma0, max_iter: int
) -> tuple[PBMFit, int]:
    """PBM fitted by EM on the rows of the pairs shown at two or more positions; the fit and
    how many pairs it saw.

    A pair seen at one position fits any γ equally well (α = CTR / γ), except where α reaches
    its bound of 1: a pair clicked on its only impression at position 10 "needs" γ_10 = 1.
    Thousands of such thin pairs (α is a parameter per pair: the incidental-parameter problem)
    drag the fitted γ toward 1 at the low positions; left out, they cannot, and EM has far
    fewer rows to go over. A position no such pair reaches keeps its starting γ."""
    several = _at_several_positions(pair, pos_index, n_pairs, n_positions)[pair]
    fitted, fit_pair = np.unique(pair[several], return_inverse=True)  # numbered 0..n-1
    fit = fit_pbm(
        pair=fit_pair, position=pos_index[several], impressions=impressions[several],
        clicks=clicks[several], n_pairs=fitted.size, n_positions=n_positions,
        examination=_own_rate(pos_index, impressions, clicks, n_positions, gamma0),
        max_iter=max_iter,
    )  # fmt: skip
    return fit, int(fitted.size)


def click_model_scores(
    *,
    query: np.ndarray,
    document: np.ndarray,
    position: np.ndarray,
    impressions: np.ndarray,
    clicks: np.ndarray,
    min_expected: float = DEFAULT_MIN_EXPECTED_CLICKS,
    start_positions: np.ndarray | None = None,
    start_examination: np.ndarray | None = None,
    max_iter: int = 100,
) -> ClickModelScores:
    """The whole method on rows (q, d, p, I, C): PBM by EM, expected clicks within the query,
    shrinkage, floor. ``start_positions``/``start_examination`` give the EM's starting γ (e.g.
    the whole log's click-through rate per position); positions missing there start from the
    rows' own rate. EM sees only the rows of pairs shown at two or more positions
    (:func:`_fit_where_told_apart` says why)."""
    q_ids, d_ids, pair = pair_index(query, document)
    by_pair = np.argsort(pair, kind="stable")  # rows of a pair together: the gathers and
    pair, position = pair[by_pair], position[by_pair]  # bincounts of EM stay in cache
    impressions, clicks = impressions[by_pair], clicks[by_pair]
    positions, pos_index = np.unique(position, return_inverse=True)
    gamma0 = _start_examination(positions, start_positions, start_examination)
    fit, fitted_pairs = _fit_where_told_apart(
        pair, pos_index, impressions, clicks, q_ids.size, positions.size, gamma0, max_iter
    )
    imp = np.bincount(pair, weights=impressions, minlength=q_ids.size)
    clk = np.bincount(pair, weights=clicks, minlength=q_ids.size)
    exams = np.bincount(
        pair, weights=impressions * fit.examination[pos_index], minlength=q_ids.size
    )
    queries, query_index = np.unique(q_ids, return_inverse=True)
    shrunk = shrunk_ratios(
        clicks=clk, examinations=exams, query=query_index, n_queries=queries.size
    )
    query_clicks = shrunk.query_clicks[query_index]
    # The query's own mean must be known at least as well as a document's ratio at the floor
    # (and a query without clicks cannot rank its documents, whatever the floor).
    known = (query_clicks >= min_expected) & (query_clicks > 0)
    return ClickModelScores(
        query_id=q_ids, document_id=d_ids, impressions=imp.astype(np.int64),
        clicks=clk.astype(np.int64), examinations=exams, expected=shrunk.expected,
        evidence=shrunk.evidence, query_clicks=query_clicks, ratio=shrunk.ratio,
        enough=known & (shrunk.evidence >= min_expected), prior_strength=shrunk.prior_strength,
        reference=shrunk.reference, positions=positions, examination=fit.examination, fit=fit,
        fitted_pairs=fitted_pairs,
    )  # fmt: skip
