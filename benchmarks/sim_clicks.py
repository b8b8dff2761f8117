"""Simulated click logs with known relevance, and how well click labels recover it.

The generator (seeded; every query draws from its own random stream, so changing one query
leaves every other query's rows as they were):

- each query has ``docs`` documents with a true grade (1 Bad, 2 Fair, 3 Good, drawn with
  ``grade_shares``) and a click propensity s_q (log-normal, ``propensity_sigma``);
- a document's attractiveness is α = s_q · ``ATTRACTIVENESS[grade]``: within a query, Good is
  about twice and Bad about a third of the query's average (the default thresholds 1.5 and
  0.75 of the click labels sit between them);
- on each of ``days`` days the query's results are ranked by grade plus noise (a production
  ranker that is right more often than not), and the query is searched a log-normal number of
  times (``sessions`` median, ``sessions_sigma``), split evenly over the days;
- position p is examined with probability ``EXAMINATION[p]`` (position-based model), so the
  row (q, d, p) of a day has I = that day's searches and C ~ Binomial(I, γ_p · α). The
  binomial is drawn by inverse CDF from a uniform fixed per row: scaling a query's propensity
  keeps each row's quantile, so what changes is the propensity, not the luck.

``evaluate`` labels the log with today's method (CTR per position pooled over all queries,
ratio = clicks / expected, at least 20 impressions) and with the click model (metrics.core.
clicks), on the same rows, and compares both with the true grades: exact-grade accuracy and
Spearman's rho (scipy.stats.spearmanr), on the pairs both methods label.

    .venv/bin/python benchmarks/sim_clicks.py                 # the figures in benchmarks/README.md
    .venv/bin/python benchmarks/sim_clicks.py --queries 2000 --seed 1
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from scipy.stats import binom, spearmanr

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from metrics.core.clicks import (
    DEFAULT_MIN_EXPECTED_CLICKS,
    click_model_scores,
    ctr_by_position,
    ctr_ratio_scores,
    default_thresholds,
    ratio_grades,
)

GRADES = np.array([3.0, 2.0, 1.0])  # Good, Fair, Bad: highest first, as a campaign's scale
ATTRACTIVENESS = {1: 0.06, 2: 0.18, 3: 0.40}
EXAMINATION = np.array([1.0, 0.75, 0.58, 0.46, 0.38, 0.32, 0.27, 0.23, 0.2, 0.17])
OLD_MIN_IMPRESSIONS = 20


@dataclass(frozen=True)
class Spec:
    queries: int = 400
    docs: int = 10
    days: int = 4
    sessions: float = 150.0  # median searches per query over the whole log
    sessions_sigma: float = 1.2
    propensity_sigma: float = 0.5
    grade_shares: tuple[float, float, float] = (0.4, 0.35, 0.25)  # Bad, Fair, Good
    ranking_noise: float = 1.0  # sd of the noise added to the grade when ranking
    seed: int = 0
    scale: dict[int, float] = field(default_factory=dict)  # query -> propensity factor
    propensity_of: dict[int, float] = field(default_factory=dict)  # query -> s_q (fixed)
    sessions_of: dict[int, int] = field(default_factory=dict)  # query -> searches (fixed)
    # An average document added to every query (document number ``docs``, true grade Fair):
    # α = the mean α of the query's documents, shown this many times, always at this position,
    # in impressions of its own (a summed log does not say who else was on the page).
    probe_impressions: int = 0
    probe_position: int = 9


@dataclass(frozen=True)
class SimLog:
    query: np.ndarray
    document: np.ndarray
    position: np.ndarray
    impressions: np.ndarray
    clicks: np.ndarray
    truth: dict[tuple[int, int], float]  # (query, document) -> true grade


def _query_rows(spec: Spec, q: int) -> tuple[list[np.ndarray], np.ndarray]:
    rng = np.random.default_rng([spec.seed, q])
    grade = rng.choice([1, 2, 3], size=spec.docs, p=spec.grade_shares)
    propensity = np.exp(rng.normal(0.0, spec.propensity_sigma))
    propensity = spec.propensity_of.get(q, propensity) * spec.scale.get(q, 1.0)
    alpha = np.clip(propensity * np.vectorize(ATTRACTIVENESS.get)(grade), 0.0, 0.99)
    searches = spec.sessions_of.get(q)
    if searches is None:
        searches = int(np.ceil(spec.sessions * np.exp(rng.normal(0.0, spec.sessions_sigma))))
    per_day = np.diff(np.linspace(0, searches, spec.days + 1).round().astype(np.int64))
    cols: list[list[np.ndarray]] = [[], [], [], []]
    docs = np.arange(spec.docs)
    for day in range(spec.days):
        order = np.argsort(-(grade + rng.normal(0.0, spec.ranking_noise, spec.docs)))
        pos = np.empty(spec.docs, dtype=np.int64)
        pos[order] = np.arange(1, spec.docs + 1)
        shown = np.full(spec.docs, per_day[day])
        u = rng.uniform(size=spec.docs)
        p_click = EXAMINATION[np.minimum(pos, EXAMINATION.size) - 1] * alpha
        for col, values in zip(cols, (docs, pos, shown, binom.ppf(u, shown, p_click)), strict=True):
            col.append(values)
    if spec.probe_impressions:
        _add_probe(spec, q, float(alpha.mean()), cols)
        grade = np.r_[grade, 2]
    return [np.concatenate(c) for c in cols], grade


def _add_probe(spec: Spec, q: int, alpha: float, cols: list[list[np.ndarray]]) -> None:
    """The average document's rows: its own stream, so the other rows stay as they were."""
    rng = np.random.default_rng([spec.seed, q, 1])
    shown = np.diff(np.linspace(0, spec.probe_impressions, spec.days + 1).round()).astype(int)
    p_click = EXAMINATION[min(spec.probe_position, EXAMINATION.size) - 1] * alpha
    clicks = binom.ppf(rng.uniform(size=spec.days), shown, p_click)
    values = (np.full(spec.days, spec.docs), np.full(spec.days, spec.probe_position), shown, clicks)
    for col, value in zip(cols, values, strict=True):
        col.append(value)


def simulate(spec: Spec) -> SimLog:
    """The log of ``spec`` (rows with 0 impressions left out)."""
    parts, truth = [], {}
    for q in range(spec.queries):
        (doc, pos, imp, clk), grade = _query_rows(spec, q)
        parts.append((np.full(doc.size, q), doc, pos, imp, clk))
        truth.update({(q, int(d)): float(g) for d, g in enumerate(grade)})
    query, document, position, impressions, clicks = (
        np.concatenate(c) for c in zip(*parts, strict=True)
    )
    keep = impressions > 0
    return SimLog(
        query[keep], document[keep], position[keep], impressions[keep].astype(np.int64),
        clicks[keep].astype(np.int64), truth,
    )  # fmt: skip


def csv_text(log: SimLog) -> str:
    """The log as an import_logs CSV: query q is ``q<q>``, its document d is ``d<q>-<d>``."""
    lines = ["qid,docno,position,impressions,clicks"]
    rows = zip(*(c.tolist() for c in (log.query, log.document, log.position, log.impressions,
                                      log.clicks)), strict=True)  # fmt: skip
    lines += [f"q{q},d{q}-{d},{p},{i},{c}" for q, d, p, i, c in rows]
    return "\n".join(lines) + "\n"


def old_labels(log: SimLog) -> dict[tuple[int, int], tuple[float, float]]:
    """Today's method: (q, d) -> (ratio, grade) for the pairs it labels."""
    positions = np.unique(log.position)
    idx = np.searchsorted(positions, log.position)
    imp = np.bincount(idx, weights=log.impressions)
    clk = np.bincount(idx, weights=log.clicks)
    ctr_pos, ctr = ctr_by_position(positions, imp, clk)
    s = ctr_ratio_scores(
        query=log.query, document=log.document, position=log.position,
        impressions=log.impressions, clicks=log.clicks, ctr_positions=ctr_pos, ctr=ctr,
    )  # fmt: skip
    keep = (s.impressions >= OLD_MIN_IMPRESSIONS) & ~np.isnan(s.ratio)
    grade = ratio_grades(s.ratio[keep], default_thresholds(GRADES.size), GRADES)
    pairs = zip(s.query_id[keep].tolist(), s.document_id[keep].tolist(), strict=True)
    return {
        p: (r, g) for p, r, g in zip(pairs, s.ratio[keep].tolist(), grade.tolist(), strict=True)
    }


def new_labels(log: SimLog, **options) -> tuple[dict, int]:
    """The click model: ((q, d) -> (ratio, grade) for the pairs labelled, too-little-data count)."""
    s = click_model_scores(
        query=log.query, document=log.document, position=log.position,
        impressions=log.impressions, clicks=log.clicks, **options,
    )  # fmt: skip
    grade = ratio_grades(s.ratio[s.enough], default_thresholds(GRADES.size), GRADES)
    pairs = zip(s.query_id[s.enough].tolist(), s.document_id[s.enough].tolist(), strict=True)
    labelled = zip(pairs, s.ratio[s.enough].tolist(), grade.tolist(), strict=True)
    return {p: (r, g) for p, r, g in labelled}, int((~s.enough).sum())


@dataclass(frozen=True)
class Quality:
    pairs: int
    accuracy: float
    rho_grade: float  # Spearman between the label and the true grade
    rho_score: float  # Spearman between the ratio and the true grade


def quality(labels: dict, truth: dict, pairs: list) -> Quality:
    true = np.array([truth[p] for p in pairs])
    ratio = np.array([labels[p][0] for p in pairs])
    grade = np.array([labels[p][1] for p in pairs])
    return Quality(
        len(pairs), float(np.mean(grade == true)),
        float(spearmanr(grade, true).statistic), float(spearmanr(ratio, true).statistic),
    )  # fmt: skip


def evaluate(spec: Spec, **options) -> dict:
    log = simulate(spec)
    old = old_labels(log)
    new, too_little = new_labels(log, **options)
    both = sorted(set(old) & set(new))
    return {
        "rows": int(log.query.size),
        "pairs": len(log.truth),
        "old": quality(old, log.truth, both),
        "new": quality(new, log.truth, both),
        "old_labelled": len(old),
        "new_labelled": len(new),
        "too_little_data": too_little,
        "old_alone": quality(old, log.truth, sorted(old)),
        "new_alone": quality(new, log.truth, sorted(new)),
    }


def timing(spec: Spec, **options) -> None:
    """Seconds of each method on the same rows, best of two, and the ratio."""
    log = simulate(spec)
    best = {}
    for name, method in (("old", old_labels), ("new", new_labels)):
        runs = []
        for _ in range(2):
            t0 = time.perf_counter()
            if method is new_labels:
                new_labels(log, **options)
            else:
                old_labels(log)
            runs.append(time.perf_counter() - t0)
        best[name] = min(runs)
        print(f"{name}: {best[name]:.2f} s on {log.query.size:,} rows")
    print(f"new / old: {best['new'] / best['old']:.1f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=Spec.queries)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--min-expected", type=float, default=None,
        help=f"the click model's floor (default {DEFAULT_MIN_EXPECTED_CLICKS:g})",
    )  # fmt: skip
    parser.add_argument(
        "--time", action="store_true", help="also time both methods on the log (in process)"
    )
    args = parser.parse_args(argv)
    options = {} if args.min_expected is None else {"min_expected": args.min_expected}
    if args.time:
        timing(Spec(queries=args.queries, seed=args.seed), **options)
    out = evaluate(Spec(queries=args.queries, seed=args.seed), **options)
    print(f"{out['rows']:,} rows, {out['pairs']:,} (query, document) pairs")
    print(f"today's method labels {out['old_labelled']:,}; the click model {out['new_labelled']:,} "
          f"(too little data: {out['too_little_data']:,})")  # fmt: skip
    print(f"on the {out['old'].pairs:,} pairs both label:")
    for name in ("old", "new"):
        q = out[name]
        print(f"  {name}: exact grade {q.accuracy:.3f}, Spearman (label) {q.rho_grade:.3f}, "
              f"Spearman (ratio) {q.rho_score:.3f}")  # fmt: skip
    old, new = out["old"], out["new"]
    print(f"  difference: accuracy {100 * (new.accuracy - old.accuracy):+.1f} points, "
          f"Spearman (label) {new.rho_grade - old.rho_grade:+.3f}, "
          f"(ratio) {new.rho_score - old.rho_score:+.3f}")  # fmt: skip
    for name, what in (("old_alone", "today's method"), ("new_alone", "the click model")):
        q = out[name]
        print(f"{what} on all the {q.pairs:,} pairs it labels: exact grade {q.accuracy:.3f}, "
              f"Spearman (label) {q.rho_grade:.3f}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
