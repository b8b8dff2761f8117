"""The reports' charts drawn from a snapshot's summary. A snapshot stores them next to its
numbers (EvaluationSnapshot.charts): drawing a chart costs a few hundred milliseconds, which a
page read from a snapshot should not pay on every view."""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Callable

import numpy as np
from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext as _

from metrics.reports import charts

# The charts last drawn, by what they were drawn from: a snapshot recomputed with the same
# figures (a forced recompute, a change that moves no number a chart shows, another campaign
# with the same data) reuses them instead of paying matplotlib again (~0.1 s a chart and
# language). Drawing is deterministic (charts.py: fixed hash salt, no date), so a hit is the
# very SVG a new drawing would give.
_DRAWN: OrderedDict[str, dict[str, dict[str, str]]] = OrderedDict()
_DRAWN_MAX = 64
_DRAWN_LOCK = threading.Lock()


def in_every_language(
    draw: Callable[[dict], dict[str, str]], inputs: dict
) -> dict[str, dict[str, str]]:
    """`draw(inputs)` once per language of the interface, keyed by its code: a snapshot is
    shared by every manager of the campaign, whatever language each one reads. `inputs` is
    all that `draw` reads (JSON): the same function and inputs give the charts drawn before."""
    key = json.dumps([draw.__module__, draw.__qualname__, inputs, settings.LANGUAGES], default=str)
    with _DRAWN_LOCK:
        if key in _DRAWN:
            _DRAWN.move_to_end(key)
            return {code: dict(charts) for code, charts in _DRAWN[key].items()}
    drawn = {}
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            drawn[code] = draw(inputs)
    with _DRAWN_LOCK:
        _DRAWN[key] = {code: dict(charts) for code, charts in drawn.items()}
        while len(_DRAWN) > _DRAWN_MAX:
            _DRAWN.popitem(last=False)
    return drawn


def forget_drawn() -> None:
    """Forget the charts drawn so far: for when the catalogues change under a running process
    (a test's pseudo-language, built anew for each of its runs); a release restarts anyway."""
    with _DRAWN_LOCK:
        _DRAWN.clear()


def in_this_language(charts: dict) -> dict[str, str]:
    """The charts of a snapshot in the active language (else the default one)."""
    codes = {code for code, _name in settings.LANGUAGES}
    if not set(charts) <= codes:
        return charts  # stored before charts were drawn per language: English only
    return charts.get(translation.get_language() or "") or charts.get(settings.LANGUAGE_CODE, {})


def display_name(system: dict) -> str:
    """The system's name, with the run's when they differ (a system may have several runs)."""
    if system["run"] == system["system"]:
        return system["system"]
    return f"{system['system']} ({system['run']})"


def scores_charts(summary: dict) -> dict[str, dict[str, str]]:
    """A scores snapshot's charts in every language, from the parts of `summary` they show."""
    shown = ("run", "system", "values", "curve")
    inputs = {
        "systems": [{key: s[key] for key in shown} for s in summary["systems"]],
        "measures": summary["measures"],
        "confidence": summary["confidence"],
    }
    return in_every_language(_draw_scores, inputs)


def _draw_scores(summary: dict) -> dict[str, str]:
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
            title=_("Systems: means with %(confidence)s intervals")
            % {"confidence": f"{summary['confidence']:.0%}"},
            groups=[m["label"] for m in summary["measures"]],
            series=names,
            means=values["mean"],
            lows=values["low"],
            highs=values["high"],
        ),
        "curves": charts.curves(
            title=_("NDCG@1 … NDCG@%(k)s per system") % {"k": k},
            ks=list(range(1, k + 1)),
            series={name: s["curve"] for name, s in zip(names, systems, strict=True)},
        ),
    }


def dashboard_charts(*, progress: dict, agreement: dict) -> dict[str, dict[str, str]]:
    """The dashboard's charts in every language, from the parts of the progress and agreement
    summaries they show."""
    pairs = ("a", "b", "shared", "kappa")
    inputs = {
        "timeline": progress["timeline"],
        "raters": [r["username"] for r in agreement["raters"]],
        "pairs": [{key: pair[key] for key in pairs} for pair in agreement["pairs"]],
    }
    return in_every_language(_draw_dashboard, inputs)


def _draw_dashboard(inputs: dict) -> dict[str, str]:
    """Grades over time (stacked by rater) and the raters' kappa matrix."""
    from metrics.selectors.progress import timeline_from

    out = {}
    timeline = timeline_from(inputs["timeline"])
    if timeline.buckets:
        out["timeline"] = charts.stacked_time_bars(
            title=_("Grades per hour, by rater")
            if timeline.unit == "hour"
            else _("Grades per day, by rater"),
            buckets=timeline.buckets,
            series=timeline.series,
            unit=timeline.unit,
        )
    names = inputs["raters"]
    if len(names) >= 2 and inputs["pairs"]:
        kappa = np.full((len(names), len(names)), np.nan)
        shared = np.zeros((len(names), len(names)), dtype=int)
        for pair in inputs["pairs"]:
            a, b = pair["a"], pair["b"]
            shared[a, b] = shared[b, a] = pair["shared"]
            if pair["kappa"] is not None:
                kappa[a, b] = kappa[b, a] = pair["kappa"]
        out["kappa"] = charts.matrix(
            title=_("Weighted Cohen's kappa between raters (linear weights)"),
            names=names,
            values=kappa,
            notes=np.vectorize(lambda n: f"n={n}")(shared),
        )
    return out
