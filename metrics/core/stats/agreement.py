"""Agreement between raters (``shared/STATISTICS.md`` §5).

Ratings are a reliability matrix of shape (raters, items) with NaN for a missing cell, the layout
of the ``krippendorff`` package; :func:`reliability_matrix` builds it from long-format arrays.
Verdicts are coded Bad −1, Same 0, Good +1 (with strength −3 … +3), graded labels by their grade.
"""

from __future__ import annotations

from dataclasses import dataclass

import krippendorff
import numpy as np

__all__ = [
    "AgreementSummary",
    "RaterFigures",
    "agreement_summary",
    "cohen_kappa",
    "fleiss_kappa",
    "fleiss_table",
    "krippendorff_alpha",
    "pairwise_agreement",
    "rater_figures",
    "reliability_matrix",
]


def reliability_matrix(
    items: np.ndarray, raters: np.ndarray, values: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Build the (raters × items) matrix from long-format ratings.

    Parameters
    ----------
    items, raters : array_like, shape (k,)
        Item and rater id of each rating (any sortable ids).
    values : array_like of float, shape (k,)
        The ratings; NaN is treated as missing.

    Returns
    -------
    matrix : ndarray of shape (n_raters, n_items)
        ``matrix[r, i]`` is rater r's rating of item i, NaN where missing.
    item_ids, rater_ids : ndarray
        The sorted unique ids labelling the columns and rows.

    Raises
    ------
    ValueError
        On arrays of different lengths or a rater rating one item twice.
    """
    items, raters = np.asarray(items), np.asarray(raters)
    values = np.asarray(values, dtype=np.float64)
    if not (items.ndim == raters.ndim == values.ndim == 1):
        raise ValueError("items, raters and values must be 1-d arrays")
    if not (items.size == raters.size == values.size):
        raise ValueError("items, raters and values must have the same length")
    item_ids, item_idx = np.unique(items, return_inverse=True)
    rater_ids, rater_idx = np.unique(raters, return_inverse=True)
    cell = rater_idx * item_ids.size + item_idx
    uniq, counts = np.unique(cell, return_counts=True)
    if np.any(counts > 1):
        dup = uniq[counts > 1][0]
        raise ValueError(
            f"rater {rater_ids.tolist()[dup // item_ids.size]!r} rated item "
            f"{item_ids.tolist()[dup % item_ids.size]!r} more than once"
        )
    matrix = np.full((rater_ids.size, item_ids.size), np.nan)
    matrix[rater_idx, item_idx] = values
    return matrix, item_ids, rater_ids


def _as_matrix(matrix: np.ndarray) -> np.ndarray:
    m = np.asarray(matrix, dtype=np.float64)
    if m.ndim != 2:
        raise ValueError("ratings must be a 2-d (raters × items) matrix")
    if np.any(np.isinf(m)):
        raise ValueError("ratings must be finite or NaN for missing")
    return m


def _value_counts(m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Items × values count table (``n_ic``) and the sorted values present."""
    present = ~np.isnan(m)
    values, codes = np.unique(m[present], return_inverse=True)
    item_of = np.broadcast_to(np.arange(m.shape[1]), m.shape)[present]
    table = np.zeros((m.shape[1], values.size), dtype=np.int64)
    np.add.at(table, (item_of, codes), 1)
    return table, values


def krippendorff_alpha(
    matrix: np.ndarray,
    *,
    level: str = "ordinal",
    value_domain: np.ndarray | None = None,
) -> float:
    """Krippendorff's alpha, ``α = 1 − D_o / D_e``, from the ``krippendorff`` package.

    Items with fewer than two ratings drop out (they cannot be paired).

    Parameters
    ----------
    matrix : array_like of shape (raters, items)
        Ratings with NaN for missing cells.
    level : {"ordinal", "interval", "nominal", "ratio"}
        Level of measurement (the distance metric).
    value_domain : array_like, optional
        The ordered possible values (matters for the ordinal metric); by default the values that
        occur.

    Returns
    -------
    float
        NaN when alpha is undefined: no item with two ratings, or a single value throughout
        (``D_e = 0``).
    """
    if level not in ("ordinal", "interval", "nominal", "ratio"):
        raise ValueError(f"unknown level of measurement {level!r}")
    m = _as_matrix(matrix)
    pairable = np.count_nonzero(~np.isnan(m), axis=0) >= 2
    m = m[:, pairable]
    if m.size == 0:
        return float("nan")
    if value_domain is None and np.unique(m[~np.isnan(m)]).size < 2:
        return float("nan")
    return float(
        krippendorff.alpha(
            reliability_data=m, level_of_measurement=level, value_domain=value_domain
        )
    )


def pairwise_agreement(matrix: np.ndarray) -> float:
    """Raw pairwise agreement: the share of agreeing pairs among all rater pairs.

    Over items with at least two ratings, ``Σ_i Σ_c n_ic(n_ic − 1) / Σ_i m_i(m_i − 1)``
    (n_ic ratings of value c on item i, m_i ratings on item i). NaN when no item has two.
    """
    table, _ = _value_counts(_as_matrix(matrix))
    m_i = table.sum(axis=1)
    pairs = float(np.sum(m_i * (m_i - 1)))
    if pairs == 0.0:
        return float("nan")
    return float(np.sum(table * (table - 1))) / pairs


def fleiss_table(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Items × categories count table from a reliability matrix (and the category values)."""
    return _value_counts(_as_matrix(matrix))


def fleiss_kappa(table: np.ndarray) -> float:
    """Fleiss' kappa from an items × categories count table with a constant row sum n.

    ``P_i = (Σ_j n_ij² − n) / (n(n − 1))``, ``P̄ = mean P_i``, ``p_j = Σ_i n_ij / (N n)``,
    ``P_e = Σ_j p_j²``, ``κ = (P̄ − P_e) / (1 − P_e)``; NaN when P_e = 1.

    Raises
    ------
    ValueError
        When items have different numbers of ratings (then Fleiss' kappa does not apply; use
        Krippendorff's alpha) or fewer than two.
    """
    t = np.asarray(table, dtype=np.float64)
    if t.ndim != 2 or t.shape[0] == 0:
        raise ValueError("the count table must be a non-empty 2-d (items × categories) array")
    if np.any(t < 0) or np.any(t != np.round(t)):
        raise ValueError("the count table must hold non-negative whole numbers")
    n_per = t.sum(axis=1)
    if np.any(n_per != n_per[0]):
        raise ValueError("Fleiss' kappa needs the same number of raters on every item")
    n = n_per[0]
    if n < 2:
        raise ValueError("Fleiss' kappa needs at least two raters per item")
    p_i = (np.sum(t * t, axis=1) - n) / (n * (n - 1))
    p_bar = float(p_i.mean())
    p_j = t.sum(axis=0) / (t.shape[0] * n)
    p_e = float(np.sum(p_j * p_j))
    if p_e >= 1.0:
        return float("nan")
    return (p_bar - p_e) / (1.0 - p_e)


def cohen_kappa(
    x: np.ndarray,
    y: np.ndarray,
    *,
    weights: str | None = None,
    labels: np.ndarray | None = None,
) -> float:
    """(Weighted) Cohen's kappa between two raters.

    ``κ = 1 − Σ w_ij O_ij / Σ w_ij E_ij`` with O the observed confusion matrix, E the one
    expected from the marginals (``E_ij = r_i c_j / n``) and disagreement weights over the
    category positions i, j of ``labels`` (k categories): ``w = [i ≠ j]`` unweighted,
    ``|i − j|`` linear, ``(i − j)²`` quadratic. Pairs with a NaN on either side are dropped.

    Parameters
    ----------
    x, y : array_like, shape (n,)
        The two raters' labels on the same items.
    weights : {None, "linear", "quadratic"}
    labels : array_like, optional
        The ordered categories; by default the sorted values that occur. Pass them to keep
        categories nobody used in the distance (e.g. −3 … 3).

    Returns
    -------
    float
        NaN when the expected disagreement is 0 (both raters used one category only).
    """
    if weights not in (None, "linear", "quadratic"):
        raise ValueError(f"weights must be None, 'linear' or 'quadratic', got {weights!r}")
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.ndim != 1 or x.shape != y.shape:
        raise ValueError("x and y must be 1-d arrays of the same length")
    keep = ~(np.isnan(x) | np.isnan(y))
    x, y = x[keep], y[keep]
    if x.size == 0:
        raise ValueError("no item was rated by both raters")
    cats = np.unique(np.concatenate([x, y])) if labels is None else np.asarray(labels, float)
    if cats.ndim != 1 or np.any(np.diff(cats) <= 0):
        raise ValueError("labels must be strictly increasing")
    if not (np.all(np.isin(x, cats)) and np.all(np.isin(y, cats))):
        raise ValueError("a rating is not among the labels")
    xi, yi = np.searchsorted(cats, x), np.searchsorted(cats, y)
    k = cats.size
    observed = np.zeros((k, k))
    np.add.at(observed, (xi, yi), 1.0)
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0)) / x.size
    diff = np.subtract.outer(np.arange(k), np.arange(k))
    if weights is None:
        w = (diff != 0).astype(np.float64)
    elif weights == "linear":
        w = np.abs(diff).astype(np.float64)
    else:
        w = (diff**2).astype(np.float64)
    denom = float(np.sum(w * expected))
    if denom == 0.0:
        return float("nan")
    return 1.0 - float(np.sum(w * observed)) / denom


@dataclass(frozen=True)
class RaterFigures:
    """Per-rater figures, rows aligned with ``rater_ids`` of the matrix."""

    majority_rate: np.ndarray  # share of items where the rater matched the others' majority
    majority_items: np.ndarray  # items counted in it (others present with a unique mode)
    mean_deviation: np.ndarray  # mean of (own − others' mean); > 0 lenient, < 0 severe
    deviation_items: np.ndarray  # items shared with at least one other rater


def rater_figures(matrix: np.ndarray) -> RaterFigures:
    """How each rater relates to the others on shared items.

    For rater r on item i (with other ratings present), the others' counts are
    ``n_ic − [x_ri = c]`` and their mean ``(S_i − x_ri) / (m_i − 1)``.

    - Majority rate: share of items where ``x_ri`` equals the others' most frequent value,
      counting only items where that value is unique (a tie among the others has no majority).
    - Mean signed deviation: mean over shared items of ``x_ri − (S_i − x_ri)/(m_i − 1)``;
      positive means lenient (rates higher than the others), negative severe.

    Raters without a qualifying item get NaN.
    """
    m = _as_matrix(matrix)
    table, values = _value_counts(m)
    present = ~np.isnan(m)
    r_idx, i_idx = np.nonzero(present)
    x = m[r_idx, i_idx]
    codes = np.searchsorted(values, x)
    m_i = present.sum(axis=0)
    shared = m_i[i_idx] >= 2
    n_raters = m.shape[0]

    # Others' value counts per (rater, item) cell: the item's counts minus the rater's own.
    others = table[i_idx].copy()
    others[np.arange(x.size), codes] -= 1
    top2 = -np.sort(-others, axis=1)[:, :2] if values.size > 1 else np.c_[others, others * 0]
    unique_mode = shared & (top2[:, 0] > top2[:, 1])
    matched = unique_mode & (others.argmax(axis=1) == codes)
    maj_items = np.bincount(r_idx[unique_mode], minlength=n_raters)
    maj_hits = np.bincount(r_idx[matched], minlength=n_raters)

    sums = np.nansum(m, axis=0)
    dev = x[shared] - (sums[i_idx[shared]] - x[shared]) / (m_i[i_idx[shared]] - 1)
    dev_items = np.bincount(r_idx[shared], minlength=n_raters)
    dev_sum = np.bincount(r_idx[shared], weights=dev, minlength=n_raters)
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(maj_items > 0, maj_hits / np.maximum(maj_items, 1), np.nan)
        mean_dev = np.where(dev_items > 0, dev_sum / np.maximum(dev_items, 1), np.nan)
    return RaterFigures(
        majority_rate=rate,
        majority_items=maj_items,
        mean_deviation=mean_dev,
        deviation_items=dev_items,
    )


@dataclass(frozen=True)
class AgreementSummary:
    """The agreement figures a report shows, with why a figure is missing."""

    n_raters: int
    n_items: int  # items with at least two ratings (the others drop out)
    n_ratings: int
    alpha: float  # Krippendorff, at the requested level; NaN when undefined
    raw_agreement: float
    fleiss_kappa: float | None
    fleiss_reason: str | None  # why Fleiss' kappa is not given
    cohen_kappa: float | None  # weighted (linear) Cohen's kappa when there are exactly two raters


def agreement_summary(matrix: np.ndarray, *, level: str = "ordinal") -> AgreementSummary:
    """Krippendorff's alpha, raw agreement, and Fleiss' / Cohen's kappa where they apply.

    Fleiss' kappa is computed over the items with two or more ratings only when all of them
    have the same number; otherwise it is None with the reason. Cohen's kappa (linear weights,
    on items both rated) is given for exactly two raters.
    """
    m = _as_matrix(matrix)
    counts = np.count_nonzero(~np.isnan(m), axis=0)
    pairable = counts >= 2
    fleiss, reason = None, None
    if not np.any(pairable):
        reason = "no item has two ratings"
    elif np.unique(counts[pairable]).size > 1:
        reason = "items have different numbers of raters"
    else:
        table, _ = _value_counts(m[:, pairable])
        fleiss = fleiss_kappa(table)
    cohen = None
    if m.shape[0] == 2 and np.any(pairable):
        cohen = cohen_kappa(m[0], m[1], weights="linear")
    return AgreementSummary(
        n_raters=int(m.shape[0]),
        n_items=int(pairable.sum()),
        n_ratings=int(counts.sum()),
        alpha=krippendorff_alpha(m, level=level),
        raw_agreement=pairwise_agreement(m),
        fleiss_kappa=fleiss,
        fleiss_reason=reason,
        cohen_kappa=cohen,
    )
