"""Two systems compared on a snapshot's per-query values (STATISTICS.md section 6).

The primary measure (NDCG@k unless another is chosen) gets the full treatment of
metrics.core.stats.compare_runs: paired t-test with its interval, the randomization test (exact
up to 20 queries, else 10,000 sign flips) and the BCa bootstrap of the mean difference (10,000
resamples), both from a stored seed, plus the queries won and lost most. The other quality
measures of the table are a planned family of a few comparisons: their paired-t p-values are
shown raw and Holm-adjusted (judged@k is a coverage figure, not a quality measure, and stays
out of the family). The resampling tests run for the primary measure only: at 10,000 queries
each costs about a second, and the t-test agrees with them at that size.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from django.utils.translation import gettext, ngettext

from metrics.core.stats import RunComparison, compare_runs, holm, paired_t_test

COMPARE_SEED = 20261001
TOP = 10
BINS = 21  # odd: one bin is centred on 0 (no change)


@dataclass(frozen=True)
class FamilyRow:
    key: str
    label: str
    diff: float
    p_t: float
    p_t_holm: float
    primary: bool


@dataclass(frozen=True)
class ComparisonReport:
    a: dict
    b: dict
    a_name: str
    b_name: str
    measure: str
    measure_label: str
    result: RunComparison
    family: list[FamilyRow]
    edges: np.ndarray
    counts: np.ndarray
    differences: list[tuple[str, float, float, float]]  # by difference, largest gain first
    missing_a: int | None = None  # campaign queries A has no results for (they count as 0)
    missing_b: int | None = None
    notice: str | None = None

    @property
    def listed_queries(self) -> list[str]:
        return [c.query for c in (*self.result.gained, *self.result.lost)]

    def test_rows(self) -> list[tuple]:
        """The tests as CSV rows: (what, measure, B − A, statistic, p, p Holm, low, high)."""
        r = self.result
        label = self.measure_label
        rows = [
            ("paired t-test", label, r.diff, r.t, r.p_t, None, r.ci_t_low, r.ci_t_high),
            ("randomization test", label, r.diff, None, r.p_randomization, None, None, None),
            ("BCa bootstrap", label, r.diff, None, None, None, r.ci_boot_low, r.ci_boot_high),
        ]
        rows += [
            ("paired t-test, family", f.label, f.diff, None, f.p_t, f.p_t_holm, None, None)
            for f in self.family
        ]
        return rows

    @property
    def ci_t(self) -> tuple[float, float]:
        """The t-interval of B − A, clipped to [−1, 1]: the measures of the table lie in [0, 1],
        so no difference can leave it (a t-interval on few queries can)."""
        return _clip(self.result.ci_t_low), _clip(self.result.ci_t_high)

    @property
    def ci_boot(self) -> tuple[float, float]:
        return _clip(self.result.ci_boot_low), _clip(self.result.ci_boot_high)

    @property
    def sentence(self) -> str:
        """The comparison in two sentences a product manager reads correctly."""
        r = self.result
        low, high = self.ci_t
        values = {
            "measure": self.measure_label,
            "b": self.b_name,
            "a": self.a_name,
            "gap": f"{abs(r.diff):.3f}",
            "n": r.n,
            "wins": r.wins,
            "losses": r.losses,
            "pct": f"{r.confidence:.0%}",
            "low": f"{low:+.3f}",
            "high": f"{high:+.3f}",
        }
        if r.diff > 0:
            head = ngettext(
                "On %(measure)s, the candidate %(b)s scored %(gap)s higher than the baseline "
                "%(a)s on average over %(n)s query (better on %(wins)s, worse on %(losses)s).",
                "On %(measure)s, the candidate %(b)s scored %(gap)s higher than the baseline "
                "%(a)s on average over %(n)s queries (better on %(wins)s, worse on %(losses)s).",
                r.n,
            )
        elif r.diff < 0:
            head = ngettext(
                "On %(measure)s, the candidate %(b)s scored %(gap)s lower than the baseline "
                "%(a)s on average over %(n)s query (better on %(wins)s, worse on %(losses)s).",
                "On %(measure)s, the candidate %(b)s scored %(gap)s lower than the baseline "
                "%(a)s on average over %(n)s queries (better on %(wins)s, worse on %(losses)s).",
                r.n,
            )
        else:
            head = ngettext(
                "On %(measure)s, the candidate %(b)s scored no different than the baseline "
                "%(a)s on average over %(n)s query (better on %(wins)s, worse on %(losses)s).",
                "On %(measure)s, the candidate %(b)s scored no different than the baseline "
                "%(a)s on average over %(n)s queries (better on %(wins)s, worse on %(losses)s).",
                r.n,
            )
        if low > 0:
            verdict = gettext(
                "With %(pct)s confidence the true difference lies between %(low)s and "
                "%(high)s, so the candidate is better."
            )
        elif high < 0:
            verdict = gettext(
                "With %(pct)s confidence the true difference lies between %(low)s and "
                "%(high)s, so the candidate is worse."
            )
        else:
            verdict = gettext(
                "With %(pct)s confidence the true difference lies between %(low)s and "
                "%(high)s, so the difference could be chance."
            )
        # Two sentences: English puts a space between them, Chinese none.
        return gettext("%(first)s %(second)s") % {
            "first": head % values,
            "second": verdict % values,
        }

    @property
    def bins(self) -> list[tuple[float, float, int]]:
        return [
            (float(lo), float(hi), int(n))
            for lo, hi, n in zip(self.edges[:-1], self.edges[1:], self.counts, strict=True)
        ]


def _clip(value: float) -> float:
    return float(min(1.0, max(-1.0, value)))


def missing_queries(n_queries: int | None, system: dict) -> int | None:
    """Campaign queries the system has no results for (they count as 0), when known."""
    with_results = system.get("queries_with_results")
    if n_queries is None or with_results is None:
        return None
    return max(0, int(n_queries) - int(with_results))


def missing_notice(n_queries: int | None, named: list[tuple[str, int | None]]) -> str | None:
    """The line shown first: which system lacks results for how many queries, counted as 0."""
    parts = [
        gettext("%(name)s has no results for %(n)s of the %(total)s queries.")
        % {"name": name, "n": n, "total": n_queries}
        for name, n in named
        if n  # None (unknown) or 0: nothing to say
    ]
    if not parts:
        return None
    tail = gettext("They count as 0 (a query left out would hide exactly that loss).")
    return " ".join([*parts, tail])


def _name(system: dict) -> str:
    if system["run"] == system["system"]:
        return system["system"]
    return f"{system['system']} ({system['run']})"


def _pick(systems: list[dict], raw: str | None, default: dict | None) -> dict | None:
    if raw in (None, ""):
        return default
    try:
        wanted = int(raw)
    except (TypeError, ValueError):
        return None
    return next((s for s in systems if s["run_id"] == wanted), None)


def default_pair(
    systems: list[dict], *, production: set[str], declared: tuple[int, int] | None = None
) -> tuple[dict | None, dict | None]:
    """(baseline A, candidate B) when the manager has not chosen. A is the system marked as in
    production, else the baseline a side-by-side comparison declares, else the first run; B is
    the declared candidate, else the first other run that is not in production. The table's
    order (by name or score) must never make the candidate the baseline: a form preset the wrong
    way round reads a win as a loss."""
    by_id = {s["run_id"]: s for s in systems}
    declared_a, declared_b = (by_id.get(r) for r in declared or (None, None))
    marked = [s for s in systems if s["system"] in production]
    base = marked[0] if marked else declared_a or (systems[0] if systems else None)
    if base is None:
        return None, None
    others = [s for s in systems if s["run_id"] != base["run_id"]]
    if declared_b is not None and declared_b["run_id"] != base["run_id"]:
        return base, declared_b
    not_production = [s for s in others if s["system"] not in production]
    return base, (not_production or others or [None])[0]


def _pair(
    systems: list[dict], a: str | None, b: str | None, production: set[str] | None,
    declared: tuple[int, int] | None,
) -> tuple[dict | None, dict | None, str]:  # fmt: skip
    """The systems A and B chosen (or defaulted), or why not."""
    if len(systems) < 2:
        return None, None, gettext("A comparison needs two systems; this campaign has fewer runs.")
    base, cand = default_pair(systems, production=production or set(), declared=declared)
    sys_a, sys_b = _pick(systems, a, base), _pick(systems, b, cand)
    if b in (None, "") and sys_a is not None and sys_b is not None and sys_a is sys_b:
        sys_b = next(s for s in systems if s is not sys_a)  # A chosen, B left to default
    if sys_a is None or sys_b is None:
        return None, None, gettext("Choose systems A and B among the campaign's runs.")
    if sys_a["run_id"] == sys_b["run_id"]:
        return None, None, gettext("Choose two different systems.")
    return sys_a, sys_b, ""


def _family(va: dict, vb: dict, labels: dict[str, str], measure: str) -> list[FamilyRow]:
    """Every quality measure's paired t-test, raw and Holm-adjusted (judged@k left out)."""
    tests = []
    for key in (k for k in labels if not k.startswith("judged_")):
        fa, fb = np.asarray(va[key]), np.asarray(vb[key])
        _, p_t, _, _ = paired_t_test(fa, fb)
        tests.append((key, float(np.mean(fb - fa)), p_t))
    adjusted = holm(np.array([t[2] for t in tests]))
    return [
        FamilyRow(key, labels[key], diff, p_t, float(adjusted[i]), key == measure)
        for i, (key, diff, p_t) in enumerate(tests)
    ]


def _histogram(d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Bins symmetric around 0 over the largest change (edges, counts)."""
    reach = float(np.max(np.abs(d))) if d.size else 0.0
    reach = reach if reach > 0 else 0.05
    edges = np.linspace(-reach, reach, BINS + 1)
    counts, _ = np.histogram(d, bins=edges)
    return edges, counts


def comparison_report(
    *,
    summary: dict,
    per_query: dict,
    a: str | None,
    b: str | None,
    measure: str | None,
    production: set[str] | None = None,
    declared: tuple[int, int] | None = None,
    confidence: float = 0.95,
) -> tuple[ComparisonReport | None, str]:
    """(report, "") or (None, why not) for the runs `a` (baseline) and `b` (candidate), given as
    run ids (default: `default_pair` from the production system and the declared comparison),
    on `measure` (an engine output name of the table; default NDCG@k)."""
    sys_a, sys_b, why = _pair(summary["systems"], a, b, production, declared)
    if why:
        return None, why
    labels = {m["key"]: m["label"] for m in summary["measures"]}
    measure = measure or summary["measures"][0]["key"]
    if measure not in labels:
        return None, gettext("Unknown measure %(measure)s: choose one of %(labels)s.") % {
            "measure": repr(measure),
            "labels": ", ".join(labels.values()),
        }
    qids = per_query["qids"]
    if len(qids) < 2:
        return None, gettext("A comparison needs at least two queries.")
    va = per_query["runs"][str(sys_a["run_id"])]
    vb = per_query["runs"][str(sys_b["run_id"])]
    x, y = np.asarray(va[measure]), np.asarray(vb[measure])
    result = compare_runs(
        x, y, query_ids=np.array(qids), seed=COMPARE_SEED, top=TOP, confidence=confidence
    )
    d = y - x
    edges, counts = _histogram(d)
    order = np.lexsort((np.array(qids), -d))
    n_queries = summary.get("n_queries")
    miss_a, miss_b = missing_queries(n_queries, sys_a), missing_queries(n_queries, sys_b)
    notice = missing_notice(n_queries, [(f"A ({_name(sys_a)})", miss_a),
                                        (f"B ({_name(sys_b)})", miss_b)])  # fmt: skip
    report = ComparisonReport(
        a=sys_a,
        b=sys_b,
        a_name=_name(sys_a),
        b_name=_name(sys_b),
        measure=measure,
        measure_label=labels[measure],
        result=result,
        family=_family(va, vb, labels, measure),
        edges=edges,
        counts=counts,
        differences=[(qids[i], float(x[i]), float(y[i]), float(d[i])) for i in order],
        missing_a=miss_a,
        missing_b=miss_b,
        notice=notice,
    )
    return report, ""
