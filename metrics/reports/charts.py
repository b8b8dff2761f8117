"""The reports' charts, drawn on the server as SVG to embed in the page (DESIGN.md section 6).

One module for every chart, the NDCG reports' and the side-by-side report's: matplotlib's object
API with the SVG canvas (no pyplot global state, no GUI backend, safe in request threads), text
kept as text in the SVG so the numbers and names are readable by tests and screen readers, a
fixed hash salt and no date so the same data give the same bytes. Every chart is titled; its
numbers are also in a table on the page. Systems keep one colour across all charts (their order
in the systems table).
"""

from __future__ import annotations

import functools
import io
import re
from collections.abc import Sequence
from datetime import datetime

import matplotlib
import numpy as np
from django.utils.translation import get_language, pgettext
from django.utils.translation import gettext as _
from matplotlib import font_manager
from matplotlib.backends.backend_svg import FigureCanvasSVG
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

# Okabe–Ito: distinguishable with the common colour-vision deficiencies.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")
OTHERS = "#9aa0a6"  # the series that gathers the rest
# The side-by-side verdicts: green for the candidate, red against it.
VERDICT_COLOURS = {
    "good": "#1b7f3b",
    "same": "#9aa0a6",
    "identical": "#d5d8dc",
    "bad": "#b3261e",
}
_RC = {
    # Labels are data (run, system and query names): never read "$...$" as mathtext, which
    # fails on a name like "$\\foo$ cand", and never hand text to LaTeX.
    "text.parse_math": False,
    "text.usetex": False,
    "svg.fonttype": "none",
    "svg.hashsalt": "metrics-report",
    "font.family": "sans-serif",
    "font.size": 10,
    "axes.spines.top": False,
    "axes.spines.right": False,
}


# The side-by-side charts have no left spine (their bars carry their counts) and their own salt.
_SXS_RC = {**_RC, "svg.hashsalt": "sxs-report", "axes.spines.left": False}

# Fonts with the Chinese characters, best first (Debian: fonts-noto-cjk, fonts-wqy-zenhei).
CJK_FONTS = ("Noto Sans CJK SC", "Source Han Sans SC", "WenQuanYi Zen Hei", "Noto Sans CJK JP")


@functools.cache
def cjk_font() -> str | None:
    """The first of CJK_FONTS that matplotlib knows, or None (then Chinese text is measured
    with DejaVu Sans and a browser draws it with whatever font it has)."""
    known = {font.name for font in font_manager.fontManager.ttflist}
    return next((name for name in CJK_FONTS if name in known), None)


def rc(base: dict | None = None) -> dict:
    """`base` (the reports' settings) with the fonts for the active language. matplotlib's SVG
    writer measures text with the first font of the list only (no per-glyph fallback), so a
    Chinese page's charts put the CJK font first; English ones keep DejaVu Sans first and name
    the CJK font after it, for the browser to draw Chinese data (a system or rater name)."""
    fonts = ["DejaVu Sans"]
    cjk = cjk_font()
    if cjk is not None:
        chinese = (get_language() or "").lower().startswith("zh")
        fonts = [cjk, *fonts] if chinese else [*fonts, cjk]
    return {**(_RC if base is None else base), "font.sans-serif": fonts}


def colour(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def svg(fig: Figure, title: str) -> str:
    """The figure as an inline <svg> element, labelled with its title for assistive tools."""
    FigureCanvasSVG(fig)
    out = io.StringIO()
    fig.savefig(out, format="svg", metadata={"Date": None}, bbox_inches="tight")
    text = out.getvalue()
    # Keep only the <svg> element: the XML prolog and doctype are not allowed inside HTML.
    text = text[text.index("<svg") :]
    label = title.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
    return re.sub(r"<svg ", f'<svg role="img" aria-label="{label}" ', text, count=1)


def _figure(width: float, height: float) -> Figure:
    return Figure(figsize=(width, height))


def bars_with_intervals(
    *,
    title: str,
    groups: Sequence[str],
    series: Sequence[str],
    means: np.ndarray,
    lows: np.ndarray,
    highs: np.ndarray,
) -> str:
    """Grouped bars: one group per measure, one bar per system, with its interval as a
    whisker. Arrays are (series × groups); NaN bounds draw no whisker."""
    means = np.asarray(means, dtype=float)
    with matplotlib.rc_context(rc()):
        fig = _figure(9, 3.4)
        ax = fig.add_subplot()
        width = 0.8 / max(len(series), 1)
        x = np.arange(len(groups))
        for i, name in enumerate(series):
            pos = x - 0.4 + width * (i + 0.5)
            low = np.where(np.isnan(lows[i]), means[i], lows[i])
            high = np.where(np.isnan(highs[i]), means[i], highs[i])
            err = np.vstack([means[i] - low, high - means[i]])
            ax.bar(pos, means[i], width * 0.92, color=colour(i), label=name)
            ax.errorbar(pos, means[i], yerr=err, fmt="none", ecolor="#222", capsize=3, lw=1)
        ax.set_xticks(x, groups)
        ax.set_ylim(0, 1.05)
        ax.set_ylabel(_("mean over queries"))
        ax.set_title(title, loc="left", fontsize=11)
        ax.grid(axis="y", alpha=0.3)
        ax.legend(
            loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=min(len(series), 4), frameon=False
        )
        return svg(fig, title)


def curves(*, title: str, ks: Sequence[int], series: dict[str, Sequence[float]]) -> str:
    """One line per system over the cut-offs (NDCG@1 … NDCG@k)."""
    with matplotlib.rc_context(rc()):
        fig = _figure(9, 3.4)
        ax = fig.add_subplot()
        for i, (name, values) in enumerate(series.items()):
            ax.plot(ks, values, marker="o", ms=3, color=colour(i), label=name)
        ax.set_xlabel(_("cut-off k"))
        ax.set_ylabel("NDCG@k")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_ylim(0, 1.02)
        ax.grid(alpha=0.3)
        ax.set_title(title, loc="left", fontsize=11)
        ax.legend(
            loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=min(len(series), 4), frameon=False
        )
        return svg(fig, title)


def histogram(
    *, title: str, edges: np.ndarray, counts: np.ndarray, xlabel: str, mean: float | None = None
) -> str:
    """Bars over bins (`edges` has one more entry than `counts`), a line at 0 and the mean."""
    edges = np.asarray(edges, dtype=float)
    with matplotlib.rc_context(rc()):
        fig = _figure(9, 3.0)
        ax = fig.add_subplot()
        centres = (edges[:-1] + edges[1:]) / 2
        signs = np.sign(centres)
        colours = ["#b3261e" if s < 0 else "#1b7f3b" if s > 0 else "#9aa0a6" for s in signs]
        ax.bar(centres, counts, width=np.diff(edges) * 0.95, color=colours)
        ax.axvline(0, color="#333", lw=1)
        if mean is not None:
            label = _("mean %(mean)s") % {"mean": f"{mean:+.4f}"}
            ax.axvline(mean, color="#0072B2", lw=1.5, ls="--", label=label)
            ax.legend(frameon=False, loc="upper right")
        ax.set_xlabel(xlabel)
        ax.set_ylabel(pgettext("chart axis", "queries"))
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_title(title, loc="left", fontsize=11)
        return svg(fig, title)


# Tick spacings a calendar reader expects, in hours: hours that divide a day, then days, weeks
# (on Mondays) and months (on the 1st).
_HOUR_STEPS = (1, 2, 3, 6, 12)
_DAY_STEPS = (1, 2)
_WEEK_STEPS = (1, 2)
MAX_TICKS = 10


def _aligned(moment: datetime, kind: str, size: int) -> bool:
    """Whether `moment` starts a `size`-long step of `kind` (hour, day, week or month)."""
    day = moment.toordinal()  # days since year 1: steps of days stay aligned across months
    midnight = moment.hour == 0 and moment.minute == 0
    if kind == "hour":
        return moment.minute == 0 and moment.hour % size == 0
    if kind == "day":
        return midnight and day % size == 0
    if kind == "week":
        return midnight and moment.weekday() == 0 and (day // 7) % size == 0
    return midnight and moment.day == 1 and (moment.month - 1) % size == 0


def calendar_ticks(buckets: Sequence[datetime], unit: str, max_ticks: int = MAX_TICKS) -> list[int]:
    """Indices of the buckets to label: at most `max_ticks`, on calendar boundaries (whole
    hours that divide a day, midnights, Mondays, the 1st of a month), the finest spacing that
    fits. A time chart ticked every 21 hours is hard to read (#21). Hours are ticked only when
    the span holds fewer than two midnights: over days a reader counts days, and a tick at noon
    splits them."""
    if not buckets:
        return []
    midnights = sum(1 for b in buckets if _aligned(b, "day", 1))
    steps = [("hour", s) for s in _HOUR_STEPS] if unit == "hour" and midnights < 2 else []
    steps += [("day", s) for s in _DAY_STEPS] + [("week", s) for s in _WEEK_STEPS]
    steps += [("month", s) for s in (1, 2, 3, 6, 12)]
    for kind, size in steps:
        ticks = [i for i, b in enumerate(buckets) if _aligned(b, kind, size)]
        if ticks and len(ticks) <= max_ticks:
            return ticks
    return [0]  # under an hour or a day of data: the first bucket names it


def _tick_label(moment: datetime, unit: str) -> str:
    if unit == "hour" and (moment.hour or moment.minute):
        return moment.strftime("%H:00")
    return moment.strftime("%m-%d") if unit == "hour" else moment.strftime("%Y\n%m-%d")


def stacked_time_bars(
    *, title: str, buckets: Sequence[datetime], series: dict[str, Sequence[int]], unit: str
) -> str:
    """Answers per time bucket, stacked by rater. Drawn as one stepped band per rater (a
    histogram's stairs), not one rectangle per bucket: a few paths whatever the number of hours
    (a month of hourly bars would be thousands of SVG elements, and seconds to draw)."""
    with matplotlib.rc_context(rc()):
        fig = _figure(9, 3.0)
        ax = fig.add_subplot()
        n = len(buckets)
        edges = np.arange(n + 1) - 0.5
        bottom = np.zeros(n)
        for i, (name, values) in enumerate(series.items()):
            top = bottom + np.asarray(values, dtype=float)
            ink = OTHERS if name == "others" else colour(i)
            shown = _("others") if name == "others" else name
            ax.stairs(top, edges, baseline=bottom, fill=True, color=ink, label=shown)
            bottom = top
        ticks = calendar_ticks(buckets, unit)
        ax.set_xticks(ticks, [_tick_label(buckets[i], unit) for i in ticks])
        pad = max(0.0, (8 - n) / 2)  # a few buckets: narrow bars, not a wall
        ax.set_xlim(-0.6 - pad, n - 0.4 + pad)
        ax.set_ylim(0, max(float(bottom.max()) if n else 1.0, 1.0) * 1.08)
        ax.set_ylabel(_("grades per hour") if unit == "hour" else _("grades per day"))
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_title(title, loc="left", fontsize=11)
        ax.legend(
            loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=min(len(series), 5), frameon=False
        )
        return svg(fig, title)


def matrix(
    *, title: str, names: Sequence[str], values: np.ndarray, notes: np.ndarray | None = None
) -> str:
    """A square heat map (rater × rater) with each cell's value written in it; NaN cells stay
    blank. `notes` adds a second line per cell (e.g. "n=120")."""
    values = np.asarray(values, dtype=float)
    n = len(names)
    size = min(9.0, 1.6 + 0.75 * n)
    with matplotlib.rc_context(rc({**_RC, "axes.spines.left": False, "axes.spines.bottom": False})):
        fig = _figure(size, size * 0.85)
        ax = fig.add_subplot()
        shown = np.ma.masked_invalid(values)
        image = ax.imshow(shown, cmap="RdYlGn", vmin=-1, vmax=1)
        for (r, c), v in np.ndenumerate(values):
            if np.isnan(v):
                continue
            text = f"{v:.2f}" + (f"\n{notes[r, c]}" if notes is not None else "")
            ink = "white" if abs(v) > 0.75 else "#111"
            ax.text(c, r, text, ha="center", va="center", fontsize=8, color=ink)
        ax.set_xticks(range(n), names, rotation=30, ha="right")
        ax.set_yticks(range(n), names)
        fig.colorbar(image, ax=ax, shrink=0.7, label=_("weighted kappa"))
        ax.set_title(title, loc="left", fontsize=11)
        return svg(fig, title)


# Side-by-side report ------------------------------------------------------------------------


def verdict_bar_svg(*, good: int, same_rated: int, same_identical: int, bad: int) -> str:
    """One horizontal bar stacked Good | Same | Same (identical lists) | Bad, with the counts."""
    total = good + same_rated + same_identical + bad
    title = _("Verdicts for the candidate (%(total)s in all)") % {"total": f"{total:,}"}
    segments = [
        (_("Good: candidate better"), good, VERDICT_COLOURS["good"], "white", None),
        (_("Same"), same_rated, VERDICT_COLOURS["same"], "white", None),
        ("identical", same_identical, VERDICT_COLOURS["identical"], "#3c4043", "///"),
        (_("Bad: candidate worse"), bad, VERDICT_COLOURS["bad"], "white", None),
    ]
    with matplotlib.rc_context(rc(_SXS_RC)):
        fig = Figure(figsize=(9, 1.5))
        ax = fig.add_subplot()
        left = 0
        for name, count, colour, ink, hatch in segments:
            if name == "identical":
                if not count:
                    continue  # no legend entry for something that did not happen
                name = _("Same (identical lists)")
            ax.barh(
                [0], [count], left=left, height=0.6, color=colour, label=f"{name} ({count:,})",
                hatch=hatch, edgecolor="white", linewidth=1,
            )  # fmt: skip
            if total and count / total >= 0.06:
                ax.text(left + count / 2, 0, f"{count:,}", ha="center", va="center", color=ink)
            left += count
        ax.set_xlim(0, max(total, 1))
        ax.set_ylim(-0.45, 0.45)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # counts: no 0.5 verdicts
        ax.set_yticks([])
        ax.set_xlabel(_("verdicts"))
        ax.set_title(title, loc="left", fontsize=11)
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.75), ncol=4, frameon=False)
        return svg(fig, title)


def strength_svg(distribution: dict[int, int]) -> str:
    """Bars of the 7-point scale −3 … +3 (candidate much worse … much better)."""
    points = list(range(-3, 4))
    counts = [distribution.get(p, 0) for p in points]
    title = _("How much better or worse, for the candidate (−3 … +3)")
    colours = (
        [VERDICT_COLOURS["bad"]] * 3 + [VERDICT_COLOURS["same"]] + [VERDICT_COLOURS["good"]] * 3
    )
    with matplotlib.rc_context(rc(_SXS_RC)):
        fig = Figure(figsize=(6, 2.2))
        ax = fig.add_subplot()
        bars = ax.bar([f"{p:+d}" if p else "0" for p in points], counts, color=colours)
        ax.bar_label(bars, labels=[f"{c:,}" for c in counts], padding=2)
        ax.set_ylim(0, max(max(counts), 1) * 1.2)
        ax.set_yticks([])
        ax.set_title(title, loc="left", fontsize=11)
        return svg(fig, title)
