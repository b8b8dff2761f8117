"""How many more queries a "more data needed" decision may take (STATISTICS.md §3).

The decision launches only when three conditions hold: the interval clears the bar, there are
at least n_min informative queries (lists that differ), and (for τ ≥ 0) the sign test over
queries favours the candidate. Each condition gives a number of queries; the estimate is the
largest. Each is computed from rates seen so far, which are themselves uncertain: the range
evaluates the same formulas at the ends of an 80% interval for those rates (Tango's, with the
design effect, for GSB; Wilson's for the share of leaning queries that favour the candidate), so
the range shows how far the estimate could move with the data (an audit found the point estimate
from 100 queries anywhere between half and ten times the true need).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from scipy.stats import binomtest

from metrics.core.stats.interval import score_null_variance, tango_interval, z_value

__all__ = [
    "MAX_QUERIES_ESTIMATE",
    "RANGE_CONFIDENCE",
    "Z_BETA",
    "MoreQueries",
    "describe_more_queries",
    "interval_queries",
    "more_queries_plan",
    "sign_test_queries",
]

# z for power 0.8, as written in STATISTICS.md §3 (norm.ppf(0.8) = 0.841621…; the document's
# rounded value is normative and is what reproduces its 1,525).
Z_BETA = 0.8416
# Cap of an estimate (reached only when a rate is within ~1e-6 of where no amount of data helps).
MAX_QUERIES_ESTIMATE = 10**12
# Confidence of the intervals whose ends give the range of the estimate.
RANGE_CONFIDENCE = 0.80


@dataclass(frozen=True)
class MoreQueries:
    """The estimate (``more``), its range (``high`` None: no upper end) and what limits it."""

    more: int
    low: int
    high: int | None
    limited_by: str  # "interval", "sign test" or "minimum queries"


def _ceil(x: float) -> int:
    # Rounding guard: a product can land a hair above an integer it equals exactly.
    return min(MAX_QUERIES_ESTIMATE, math.ceil(x - 1e-9))


def interval_queries(
    *, good: float, bad: float, n_verdicts: float, n_queries: int, deff: float,
    threshold: float, confidence: float,
) -> int | None:  # fmt: skip
    """Total queries for the interval to clear τ with power 0.8 (STATISTICS.md §3).

    ``n_total = ⌈(deff/m̄)·((z√V₀ + z_β√V₁)/δ)²⌉``; None when R ≤ τ (no number suffices).
    """
    r = (good - bad) / n_verdicts
    delta = r - threshold
    if delta <= 0.0:
        return None
    z = z_value(confidence)
    v1 = max(0.0, (good + bad) / n_verdicts - r * r)
    v0 = max(0.0, score_null_variance(good, bad, n_verdicts, threshold))
    ratio = (z * math.sqrt(v0) + Z_BETA * math.sqrt(v1)) / delta
    if ratio > 1e6:
        return MAX_QUERIES_ESTIMATE
    return _ceil((deff * n_queries / n_verdicts) * ratio**2)


def sign_test_queries(*, share: float, leaning: float, confidence: float) -> int | None:
    """Total queries for the two-sided sign test to favour the candidate with power 0.8.

    With a share q of the leaning queries favouring the candidate and a share f of all queries
    leaning, the normal approximation of the binomial test needs
    ``n′ = ((z·½ + z_β·√(q(1 − q)))/(q − ½))²`` leaning queries, ``n′/f`` in all; None when
    q ≤ ½ (the sign test is not expected ever to favour the candidate).
    """
    if share <= 0.5 or leaning <= 0.0:
        return None
    z = z_value(confidence)
    ratio = (z * 0.5 + Z_BETA * math.sqrt(share * (1.0 - share))) / (share - 0.5)
    if ratio > 1e6:
        return MAX_QUERIES_ESTIMATE
    return _ceil(ratio**2 / leaning)


def _wilson(k: int, n: int, confidence: float) -> tuple[float, float]:
    ci = binomtest(k, n).proportion_ci(confidence_level=confidence, method="wilson")
    return float(ci.low), float(ci.high)


def _interval_range(good, bad, n_verdicts, n_queries, deff, threshold, confidence):
    """The interval condition at the ends of an 80% interval for GSB, discordance held fixed."""
    low, high = tango_interval(good / deff, bad / deff, n_verdicts / deff, RANGE_CONFIDENCE)
    discordant = (good + bad) / n_verdicts
    out = []
    for r in (min(high, discordant), max(low, -discordant)):
        g = n_verdicts * (discordant + r) / 2.0
        b = n_verdicts * (discordant - r) / 2.0
        out.append(
            interval_queries(good=g, bad=b, n_verdicts=n_verdicts, n_queries=n_queries,
                             deff=deff, threshold=threshold, confidence=confidence)
        )  # fmt: skip
    return out


def _sign_range(sign_k, sign_n, n_queries, confidence):
    if sign_n == 0:
        return [None, None]
    low, high = _wilson(sign_k, sign_n, RANGE_CONFIDENCE)
    f = sign_n / n_queries
    return [sign_test_queries(share=q, leaning=f, confidence=confidence) for q in (high, low)]


def _worst(values: list[int | None]) -> int | None:
    return None if any(v is None for v in values) else max(values)


def more_queries_plan(
    *, good: int, bad: int, n_verdicts: int, n_queries: int, n_informative: int,
    deff: float, sign_k: int, sign_n: int, threshold: float, confidence: float,
    min_queries: int,
) -> MoreQueries:  # fmt: skip
    """Further queries until every condition of the launch decision is expected to hold.

    ``more = max(1, max(n_interval, n_sign, n_min·n/n_informative) − n)``: the interval
    condition as in STATISTICS.md §3, the sign test's (τ ≥ 0 only) by
    :func:`sign_test_queries`, and n_min informative queries at the share of informative queries
    seen so far. ``low``/``high`` are the same at the favourable and unfavourable ends of 80%
    intervals for the rates; ``high`` is None when that end is no gain at all.

    Raises
    ------
    ValueError
        If R ≤ τ (no number of further queries is expected to clear the bar).
    """
    common = dict(n_verdicts=n_verdicts, n_queries=n_queries, deff=deff, threshold=threshold,
                  confidence=confidence)  # fmt: skip
    point_interval = interval_queries(good=good, bad=bad, **common)
    if point_interval is None:
        raise ValueError("more queries cannot be estimated when GSB does not exceed the threshold")
    informative_share = n_informative / n_queries if n_informative else 0.0
    n_min_total = (
        _ceil(min_queries / informative_share) if informative_share else MAX_QUERIES_ESTIMATE
    )
    point = {"interval": point_interval, "minimum queries": n_min_total}
    ranges = {"interval": _interval_range(good, bad, n_verdicts, n_queries, deff, threshold,
                                          confidence),
              "minimum queries": [n_min_total, n_min_total]}  # fmt: skip
    if threshold >= 0:
        share = sign_k / sign_n if sign_n else 0.0
        point["sign test"] = sign_test_queries(
            share=share, leaning=sign_n / n_queries, confidence=confidence
        )
        ranges["sign test"] = _sign_range(sign_k, sign_n, n_queries, confidence)
    # No point estimate for a condition (the sign test leaning to the baseline): the cap.
    totals = {k: MAX_QUERIES_ESTIMATE if v is None else v for k, v in point.items()}
    limited_by = max(totals, key=lambda k: totals[k])
    low_total = max(v[0] if v[0] is not None else MAX_QUERIES_ESTIMATE for v in ranges.values())
    high_total = _worst([v[1] for v in ranges.values()])

    def more(total: int) -> int:
        return max(1, total - n_queries)

    point_more = more(totals[limited_by])
    return MoreQueries(
        more=point_more,
        low=min(more(low_total), point_more),
        high=None if high_total is None else max(more(high_total), point_more),
        limited_by=limited_by,
    )


_CONDITION_WORDS = {
    "interval": "the interval clearing the bar",
    "sign test": "the sign test over queries",
    "minimum queries": "the minimum number of queries whose lists differ",
}


def describe_more_queries(plan: MoreQueries) -> str:
    """The estimate in words, range first: "between 119 and 4,210 more queries (…)"."""
    if plan.more >= MAX_QUERIES_ESTIMATE - 1:
        return (
            "no number of further queries is expected to be enough at the rates seen so far "
            f"(limited by {_CONDITION_WORDS[plan.limited_by]})"
        )
    if plan.high is None:
        span = f"at least {plan.low:,} more queries, with no upper end"
    elif plan.low == plan.high:
        span = f"{plan.low:,} more quer{'y' if plan.low == 1 else 'ies'}"
    else:
        span = f"between {plan.low:,} and {plan.high:,} more queries"
    return (
        f"{span} (an estimate at {RANGE_CONFIDENCE:.0%}; central {plan.more:,}, set by "
        f"{_CONDITION_WORDS[plan.limited_by]})"
    )
