"""The report's charts, drawn on the server as SVG to embed in the page (DESIGN.md section 6).

matplotlib's object API (Figure + its SVG canvas) is used instead of pyplot: no global state
and no GUI backend, so charts can be drawn from any request thread. Text stays text in the SVG
(svg.fonttype "none"), so the numbers are readable by tests and screen readers alike, and the
hash salt and a missing date make the same data give the same bytes.
"""

from __future__ import annotations

import io
import re

import matplotlib
from matplotlib.backends.backend_svg import FigureCanvasSVG
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

COLOURS = {
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
    "svg.hashsalt": "sxs-report",
    "font.family": "sans-serif",
    "font.size": 10,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.spines.left": False,
}


def _svg(fig: Figure, title: str) -> str:
    FigureCanvasSVG(fig)
    out = io.StringIO()
    fig.savefig(out, format="svg", metadata={"Date": None}, bbox_inches="tight")
    svg = out.getvalue()
    # Keep only the <svg> element: the XML prolog and doctype are not allowed inside HTML.
    svg = svg[svg.index("<svg") :]
    label = title.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
    return re.sub(r"<svg ", f'<svg role="img" aria-label="{label}" ', svg, count=1)


def verdict_bar_svg(*, good: int, same_rated: int, same_identical: int, bad: int) -> str:
    """One horizontal bar stacked Good | Same | Same (identical lists) | Bad, with the counts."""
    total = good + same_rated + same_identical + bad
    title = f"Verdicts for the candidate ({total:,} in all)"
    segments = [
        ("Good: candidate better", good, COLOURS["good"], "white", None),
        ("Same", same_rated, COLOURS["same"], "white", None),
        ("Same (identical lists)", same_identical, COLOURS["identical"], "#3c4043", "///"),
        ("Bad: candidate worse", bad, COLOURS["bad"], "white", None),
    ]
    with matplotlib.rc_context(_RC):
        fig = Figure(figsize=(9, 1.5))
        ax = fig.add_subplot()
        left = 0
        for name, count, colour, ink, hatch in segments:
            if not count and name.startswith("Same (identical"):
                continue  # no legend entry for something that did not happen
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
        ax.set_xlabel("verdicts")
        ax.set_title(title, loc="left", fontsize=11)
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.75), ncol=4, frameon=False)
        return _svg(fig, title)


def strength_svg(distribution: dict[int, int]) -> str:
    """Bars of the 7-point scale −3 … +3 (candidate much worse … much better)."""
    points = list(range(-3, 4))
    counts = [distribution.get(p, 0) for p in points]
    title = "How much better or worse, for the candidate (−3 … +3)"
    colours = [COLOURS["bad"]] * 3 + [COLOURS["same"]] + [COLOURS["good"]] * 3
    with matplotlib.rc_context(_RC):
        fig = Figure(figsize=(6, 2.2))
        ax = fig.add_subplot()
        bars = ax.bar([f"{p:+d}" if p else "0" for p in points], counts, color=colours)
        ax.bar_label(bars, labels=[f"{c:,}" for c in counts], padding=2)
        ax.set_ylim(0, max(max(counts), 1) * 1.2)
        ax.set_yticks([])
        ax.set_title(title, loc="left", fontsize=11)
        return _svg(fig, title)
