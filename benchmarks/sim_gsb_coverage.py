"""Coverage of the GSB interval (Tango's, two-way clustered design effect) by simulation.

Two families of designs, each cell ``--datasets`` data sets (default 2,000), seeded:

* **nested** (the audit's grid): each query's verdict probabilities are drawn around the true
  (p_G, p_S, p_B) with intra-query correlation ICC ∈ {0, 0.3, 0.9} (a Dirichlet with
  concentration 1/ICC − 1; the ICC of the verdict score is then exactly ICC); 1, 3, 5 or
  1–5 raters a query, every verdict from a different rater (raters not shared); true GSB
  0, 0.1, 0.2, 0.3, 0.4, 0.55 with 40% Same; 10, 30 or 100 queries.
* **crossed**: the same K ∈ {3, 10, 30} raters judge every query. Verdict = sign of a latent
  μ + θ_query + u_rater + ε cut at ±c (θ ~ N(0, 0.5²), ε ~ N(0, 1), rater leniency
  u ~ N(0, SD²), SD ∈ {0, 0.3, 0.6}); c gives 40% Same at μ = 0 and μ the true GSB over the
  population of queries *and raters* (which is what coverage is measured against).

The design effect and interval are computed vectorised here, exactly as
``metrics.core.stats`` computes them (two-way cluster-robust variance with G/(G − 1) factors,
V_CR = max(V_query, V_rater, V_2), raters clustered from 10 on; Tango's interval on G/deff,
B/deff, N/deff); the script first checks that on a few data sets of every design against
``gsb_from_verdicts`` itself, and stops if they differ.

Usage::

    python benchmarks/sim_gsb_coverage.py [--datasets 2000] [--seed 20261124] [--quick]

Prints a Markdown table per family; the Monte Carlo standard error of a coverage near 0.95 is
√(0.95·0.05/datasets) (0.005 at 2,000).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np
from scipy.optimize import brentq
from scipy.stats import norm
from scipy.stats import t as t_dist

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from metrics.core.stats import gsb_from_verdicts, tango_intervals
from metrics.core.stats.cluster import MIN_RATER_CLUSTERS

SAME = 0.4
GSB_GRID = (0.0, 0.1, 0.2, 0.3, 0.4, 0.55)
QUERIES = (10, 30, 100)
ICCS = (0.0, 0.3, 0.9)
RATERS_NESTED = ("1", "3", "5", "1-5")
RATERS_CROSSED = (3, 10, 30)
LENIENCY = (0.0, 0.3, 0.6)
THETA_SD = 0.5
CONFIDENCE = 0.95


def _deff(g, b, n, v_robust, singletons, n_queries):
    """deff from totals (S,), the robust variance (S,) and whether nothing is clustered."""
    naive = ((g + b) / n - ((g - b) / n) ** 2) / n
    alike = (g == n) | (b == n) | (g + b == 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(alike, 1.0, v_robust / np.where(naive > 0, naive, 1.0))
    ratio = np.where(ratio <= 1.0 + 1e-9, 1.0, ratio)
    deff = np.where(alike, n / n_queries, ratio)
    return np.where(singletons, 1.0, deff)


def _widen(deff, df, alike):
    """deff·(t_df/z)² where the library uses a t critical value (df > 0), else deff."""
    df = np.where((deff == 1.0) | alike, 0, df)
    z = norm.ppf(0.5 + CONFIDENCE / 2)
    t = t_dist.ppf(0.5 + CONFIDENCE / 2, np.maximum(df, 1))
    return deff * np.where(df > 0, (t / z) ** 2, 1.0)


def _cover(g, b, n, deff, truth) -> float:
    low, high = tango_intervals(g / deff, b / deff, n / deff, CONFIDENCE)
    return float(np.mean((low <= truth) & (truth <= high)))


# ---- nested: raters not shared -----------------------------------------------------------------


def _probabilities(rng, icc: float, gsb: float, shape) -> np.ndarray:
    mean = np.array([(1 - SAME + gsb) / 2, SAME, (1 - SAME - gsb) / 2])
    if icc == 0:
        return np.broadcast_to(mean, (*shape, 3))
    return rng.dirichlet(mean * (1 / icc - 1), size=shape)


def nested_counts(rng, icc, gsb, raters, n_queries, datasets):
    """Per-query (g, s, b), each (S, n)."""
    p = _probabilities(rng, icc, gsb, (datasets, n_queries))
    m = rng.integers(1, 6, size=(datasets, n_queries)) if raters == "1-5" else int(raters)
    counts = rng.multinomial(m, p)
    return counts[..., 0], counts[..., 1], counts[..., 2]


def nested_deff(g, s, b):
    """Queries clustered (n/(n − 1)); every verdict its own rater (N/(N − 1)), so V_2 = V_query."""
    m = g + s + b
    n_q = g.shape[1]
    gt, bt, nt = g.sum(1), b.sum(1), m.sum(1)
    r = (gt - bt) / nt
    v_query = n_q / (n_q - 1) * np.sum((g - b - r[:, None] * m) ** 2, axis=1) / nt**2
    naive = ((gt + bt) / nt - r * r) / nt
    rater_clustered = nt >= MIN_RATER_CLUSTERS
    v_rater = np.where(rater_clustered, nt / (nt - 1) * naive, 0.0)
    robust = np.maximum(v_query, v_rater)
    singletons = np.all(m == 1, axis=1)
    deff = _deff(gt, bt, nt, robust, singletons, n_q)
    # Raters clustered: t with G − 1 df, G = n (every rater judged once, so N ≥ n raters).
    df = np.where(rater_clustered, n_q - 1, 0)
    return gt, bt, nt, _widen(deff, df, (gt == nt) | (bt == nt) | (gt + bt == 0))


def nested_cell(rng, icc, raters, gsb, n_queries, datasets) -> float:
    g, s, b = nested_counts(rng, icc, gsb, raters, n_queries, datasets)
    gt, bt, nt, deff = nested_deff(g, s, b)
    return _cover(gt, bt, nt, deff, gsb)


# ---- crossed: the same raters judge every query ----------------------------------------------


def _cut_and_shift(gsb: float, leniency: float) -> tuple[float, float]:
    total = math.sqrt(THETA_SD**2 + leniency**2 + 1.0)
    c = total * norm.ppf(0.5 + SAME / 2)

    def population_gsb(mu):
        return norm.cdf((mu - c) / total) - norm.cdf((-c - mu) / total) - gsb

    mu = 0.0 if gsb == 0 else brentq(population_gsb, 0.0, 10.0)
    return c, mu


def crossed_scores(rng, gsb, leniency, n_raters, n_queries, datasets) -> np.ndarray:
    c, mu = _cut_and_shift(gsb, leniency)
    theta = rng.normal(0, THETA_SD, (datasets, n_queries, 1))
    u = rng.normal(0, leniency, (datasets, 1, n_raters)) if leniency else 0.0
    latent = mu + theta + u + rng.normal(size=(datasets, n_queries, n_raters))
    return np.where(latent > c, 1, np.where(latent < -c, -1, 0)).astype(np.int8)


def crossed_deff(x: np.ndarray):
    """Two-way clustered deff of (S, n, K) scores, one verdict per query-rater pair."""
    _, n_q, n_r = x.shape
    nt = float(n_q * n_r)
    gt = (x == 1).sum(axis=(1, 2)).astype(float)
    bt = (x == -1).sum(axis=(1, 2)).astype(float)
    r = (gt - bt) / nt
    e = x - r[:, None, None]
    v_query = n_q / (n_q - 1) * np.sum(e.sum(axis=2) ** 2, axis=1) / nt**2
    robust = v_query
    df = np.zeros(gt.shape, int)
    if n_r >= MIN_RATER_CLUSTERS:
        v_rater = n_r / (n_r - 1) * np.sum(e.sum(axis=1) ** 2, axis=1) / nt**2
        v_pair = nt / (nt - 1) * np.sum(e**2, axis=(1, 2)) / nt**2
        robust = np.maximum.reduce([v_query, v_rater, v_query + v_rater - v_pair])
        df = np.where(robust == v_query, n_q - 1, min(n_q, n_r) - 1)
    deff = _deff(gt, bt, nt, robust, np.zeros(gt.shape, bool), n_q)
    alike = (gt == nt) | (bt == nt) | (gt + bt == 0)
    return gt, bt, np.full_like(gt, nt), _widen(deff, df, alike)


def crossed_cell(rng, n_raters, leniency, gsb, n_queries, datasets) -> float:
    x = crossed_scores(rng, gsb, leniency, n_raters, n_queries, datasets)
    gt, bt, nt, deff = crossed_deff(x)
    return _cover(gt, bt, nt, deff, gsb)


# ---- the library itself, on a few data sets ----------------------------------------------------


def _same_interval(res, shrink: float) -> None:
    """The library's interval equals Tango's on the counts divided by this script's shrink."""
    low, high = tango_intervals(
        np.array([res.good / shrink]), np.array([res.bad / shrink]),
        np.array([res.n_verdicts / shrink]), CONFIDENCE,
    )  # fmt: skip
    ok = math.isclose(low[0], res.ci_low, abs_tol=1e-9) and math.isclose(
        high[0], res.ci_high, abs_tol=1e-9
    )
    if not ok:
        raise SystemExit(f"simulation and library differ: {res.ci_low, res.ci_high} {low, high}")


def check_against_library(rng) -> int:
    """The interval of this script == that of gsb_from_verdicts, on data sets of every design."""
    checked = 0
    for icc, raters, n_q in ((0.3, "1-5", 10), (0.9, "3", 30), (0.0, "1", 30)):
        g, s, b = nested_counts(rng, icc, 0.2, raters, n_q, 3)
        *_, deff = nested_deff(g, s, b)
        for k in range(3):
            q = np.repeat(np.arange(n_q), g[k] + s[k] + b[k])
            v = np.concatenate([[1] * gi + [0] * si + [-1] * bi
                                for gi, si, bi in zip(g[k], s[k], b[k], strict=True)])  # fmt: skip
            res = gsb_from_verdicts(q, v, raters=np.arange(v.size), agreement=False)
            _same_interval(res, deff[k])
            checked += 1
    for n_r, sd in ((3, 0.6), (10, 0.3), (30, 0.6)):
        x = crossed_scores(rng, 0.2, sd, n_r, 30, 3)
        *_, deff = crossed_deff(x)
        for k in range(3):
            q, r = np.meshgrid(np.arange(30), np.arange(n_r), indexing="ij")
            res = gsb_from_verdicts(q.ravel(), x[k].ravel(), raters=r.ravel(), agreement=False)
            _same_interval(res, deff[k])
            checked += 1
    return checked


def _table(title, header, rows) -> str:
    out = [f"### {title}", "", "| " + " | ".join(header) + " |",
           "| " + " | ".join("---" for _ in header) + " |"]  # fmt: skip
    out += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(out)


def run(datasets: int, seed: int, quick: bool) -> None:
    rng = np.random.default_rng(seed)
    print(f"checked against gsb_from_verdicts on {check_against_library(rng)} data sets")
    gsbs = (0.0, 0.3, 0.55) if quick else GSB_GRID
    header = ["design", *[f"n={n}, GSB {t:g}" for n in QUERIES for t in gsbs]]
    start = time.perf_counter()
    rows, low = [], []
    for icc in ICCS:
        for raters in RATERS_NESTED:
            cells = []
            for n_q in QUERIES:
                for gsb in gsbs:
                    cov = nested_cell(rng, icc, raters, gsb, n_q, datasets)
                    cells.append(f"{cov:.3f}")
                    low.append((f"nested ICC {icc:g}, {raters} raters, n={n_q}, GSB {gsb:g}", cov))
            rows.append([f"ICC {icc:g}, {raters} raters a query", *cells])
    print(_table("Nested (raters not shared)", header, rows))
    crossed_rows = []
    for n_r in RATERS_CROSSED:
        for sd in LENIENCY:
            cells = []
            for n_q in QUERIES:
                for gsb in gsbs:
                    cov = crossed_cell(rng, n_r, sd, gsb, n_q, datasets)
                    cells.append(f"{cov:.3f}")
                    low.append((f"crossed {n_r} raters, SD {sd:g}, n={n_q}, GSB {gsb:g}", cov))
            crossed_rows.append([f"{n_r} raters, leniency SD {sd:g}", *cells])
    print()
    print(_table("Crossed (the same raters judge every query)", header, crossed_rows))
    mc = math.sqrt(0.95 * 0.05 / datasets)
    print(f"\n{datasets} data sets a cell, seed {seed}, Monte Carlo SE ≈ {mc:.4f}; "
          f"{time.perf_counter() - start:.0f} s")  # fmt: skip
    print("\nCells below 0.93:")
    for name, cov in low:
        if cov < 0.93:
            print(f"- {name}: {cov:.3f}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--datasets", type=int, default=2000)
    p.add_argument("--seed", type=int, default=20261124)
    p.add_argument("--quick", action="store_true", help="three GSB values instead of six")
    args = p.parse_args()
    run(args.datasets, args.seed, args.quick)


if __name__ == "__main__":
    main()
