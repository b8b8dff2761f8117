"""The reports' charts drawn from a snapshot's summary. A snapshot stores them next to its
numbers (EvaluationSnapshot.charts): drawing a chart costs a few hundred milliseconds, which a
page read from a snapshot should not pay on every view."""

from __future__ import annotations

import numpy as np

from metrics.reports import charts


def display_name(system: dict) -> str:
    """The system's name, with the run's when they differ (a system may have several runs)."""
    if system["run"] == system["system"]:
        return system["system"]
    return f"{system['system']} ({system['run']})"


def scores_charts(summary: dict) -> dict[str, str]:
    """Bars with intervals per system and measure, and the NDCG@1..k curves."""
    systems = summary["systems"]
    if not systems:
        return {}
    keys = [m["key"] for m in summary["measures"]]
    names = [display_name(s) for s in systems]
    values = {
        bound: np.array(
            [
                [np.nan if s["values"][k][bound] is None else s["values"][k][bound] for k in keys]
                for s in systems
            ]
        )
        for bound in ("mean", "low", "high")
    }
    k = len(systems[0]["curve"])
    return {
        "bars": charts.bars_with_intervals(
            title=f"Systems: means with {summary['confidence']:.0%} intervals",
            groups=[m["label"] for m in summary["measures"]],
            series=names,
            means=values["mean"],
            lows=values["low"],
            highs=values["high"],
        ),
        "curves": charts.curves(
            title=f"NDCG@1 … NDCG@{k} per system",
            ks=list(range(1, k + 1)),
            series={name: s["curve"] for name, s in zip(names, systems, strict=True)},
        ),
    }


def dashboard_charts(*, progress: dict, agreement: dict) -> dict[str, str]:
    """Grades over time (stacked by rater) and the raters' kappa matrix."""
    from metrics.selectors.progress import timeline_from

    out = {}
    timeline = timeline_from(progress["timeline"])
    if timeline.buckets:
        out["timeline"] = charts.stacked_time_bars(
            title=f"Grades per {timeline.unit}, by rater",
            buckets=timeline.buckets,
            series=timeline.series,
            unit=timeline.unit,
        )
    names = [r["username"] for r in agreement["raters"]]
    if len(names) >= 2 and agreement["pairs"]:
        kappa = np.full((len(names), len(names)), np.nan)
        shared = np.zeros((len(names), len(names)), dtype=int)
        for pair in agreement["pairs"]:
            a, b = pair["a"], pair["b"]
            shared[a, b] = shared[b, a] = pair["shared"]
            if pair["kappa"] is not None:
                kappa[a, b] = kappa[b, a] = pair["kappa"]
        out["kappa"] = charts.matrix(
            title="Weighted Cohen's kappa between raters (linear weights)",
            names=names,
            values=kappa,
            notes=np.vectorize(lambda n: f"n={n}")(shared),
        )
    return out
