"""Every system against one baseline, paired query by query (the systems page).

Per-system intervals drawn side by side invite reading overlap as "no difference"; two systems
judged on the same queries are compared by their paired differences d_i = B_i − A_i, whose
interval is far narrower when the queries vary more than the systems do (STATISTICS.md §6).
The baseline is the system marked as in production, else the one the manager picks (the first
of the table until then).
"""

from __future__ import annotations

from dataclasses import dataclass

import matplotlib
import numpy as np
from django.utils.translation import gettext as _

from annotate.models import System
from metrics.core.stats import paired_t_test
from metrics.reports.charts import _figure, colour, rc, svg
from metrics.reports.snapshot_charts import display_name

__all__ = [
    "PairedCell",
    "PairedRow",
    "baseline_first",
    "choose_baseline",
    "paired_context",
    "paired_rows",
    "paired_svg",
]


@dataclass(frozen=True)
class PairedCell:
    diff: float
    low: float | None
    high: float | None
    p: float


@dataclass(frozen=True)
class PairedRow:
    name: str
    run_id: int
    index: int  # the system's position in the table (its colour)
    cells: list[PairedCell]


def choose_baseline(
    systems: list[dict], *, picked: str | None, production: set[str]
) -> tuple[dict | None, str]:
    """(baseline system, why): the manager's pick by run id, else a system marked as in
    production, else the first; None without systems."""
    if not systems:
        return None, ""
    if picked:
        chosen = next((s for s in systems if str(s["run_id"]) == str(picked)), None)
        if chosen is not None:
            return chosen, "picked"
    marked = [s for s in systems if s["system"] in production]
    if marked:
        return marked[0], "production"
    return systems[0], "first"


def baseline_first(rows: list[dict], baseline: dict | None) -> list[dict]:
    """The table's rows with the baseline's (production, or the pick) first, the rest in their
    order: every other row is read against it. Each row keeps its ``index`` (its colour)."""
    if baseline is None:
        return rows
    first = [r for r in rows if r["system"]["run_id"] == baseline["run_id"]]
    return first + [r for r in rows if r["system"]["run_id"] != baseline["run_id"]]


def paired_rows(
    systems: list[dict], per_query: dict, baseline: dict, keys: list[str], confidence: float
) -> list[PairedRow]:
    """Each other system's mean paired difference from the baseline per measure, with the
    paired t-interval and p-value."""
    base = per_query["runs"][str(baseline["run_id"])]
    if keys and len(base[keys[0]]) < 2:
        return []  # a paired difference needs two queries or more (was a 500 with one)
    rows = []
    for index, system in enumerate(systems):
        if system["run_id"] == baseline["run_id"]:
            continue
        other = per_query["runs"][str(system["run_id"])]
        cells = []
        for key in keys:
            a, b = np.asarray(base[key], float), np.asarray(other[key], float)
            _t, p, low, high = paired_t_test(a, b, confidence=confidence)
            cells.append(PairedCell(float(np.mean(b - a)), _finite(low), _finite(high), float(p)))
        rows.append(PairedRow(display_name(system), system["run_id"], index, cells))
    return rows


def _finite(x) -> float | None:
    return float(x) if x is not None and np.isfinite(x) else None


def paired_svg(*, title: str, labels: list[str], rows: list[PairedRow]) -> str:
    """One point per system and measure at its mean difference, whiskers for its interval,
    a line at 0 (the baseline)."""
    with matplotlib.rc_context(rc()):
        fig = _figure(9, 3.4)
        ax = fig.add_subplot()
        x = np.arange(len(labels))
        step = 0.8 / max(len(rows), 1)
        for j, row in enumerate(rows):
            pos = x - 0.4 + step * (j + 0.5)
            diff = np.array([c.diff for c in row.cells])
            low = np.array([c.diff if c.low is None else c.low for c in row.cells])
            high = np.array([c.diff if c.high is None else c.high for c in row.cells])
            ax.errorbar(pos, diff, yerr=np.vstack([diff - low, high - diff]), fmt="o",
                        color=colour(row.index), capsize=3, lw=1.2, label=row.name)  # fmt: skip
        ax.axhline(0, color="#333", lw=1)
        ax.set_xticks(x, labels)
        ax.set_ylabel(_("mean difference from the baseline"))
        ax.set_title(title, loc="left", fontsize=11)
        ax.grid(axis="y", alpha=0.3)
        if rows:
            ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12),
                      ncol=min(len(rows), 4), frameon=False)  # fmt: skip
        return svg(fig, title)


def paired_context(
    campaign, summary: dict, per_query: dict, picked: str | None, keys: list[str]
) -> dict:
    """The baseline (production, else the manager's pick) and everyone's paired differences."""
    production = set(
        System.objects.filter(campaign=campaign, is_production=True).values_list("name", flat=True)
    )
    systems = summary["systems"]
    baseline, why = choose_baseline(systems, picked=picked, production=production)
    if baseline is None or len(systems) < 2:
        return {"baseline": baseline, "paired": []}
    rows = paired_rows(systems, per_query, baseline, keys, summary["confidence"])
    labels = [m["label"] for m in summary["measures"]]
    title = _("Difference from the baseline %(name)s, paired by query") % {
        "name": display_name(baseline)
    }
    return {
        "baseline": baseline,
        "baseline_name": display_name(baseline),
        "baseline_why": why,
        "paired": rows,
        "paired_svg": paired_svg(title=title, labels=labels, rows=rows),
    }
