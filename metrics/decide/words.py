"""The figures of metrics.core's GSB result in the reader's language (issue 20).

metrics.core has no Django, so the reasons, estimates and warnings it writes are English: the
API and `python -m metrics` keep them as they are. A page words them again here from the
result's fields, whole sentences with named placeholders, so a translation may reorder them.
A text this module does not know (a warning added later to the core) is shown as the core
wrote it rather than dropped.
"""

from __future__ import annotations

import re

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from metrics.core.stats import GsbResult
from metrics.core.stats.cluster import MIN_RATER_CLUSTERS
from metrics.core.stats.planning import MAX_QUERIES_ESTIMATE, RANGE_CONFIDENCE
from metrics.core.stats.verdicts import few_raters_warning

_FEWER = re.compile(r"fewer than (\d+) queries( whose lists differ)?")


def reason_words(result: GsbResult) -> str:
    """Why the fixed-sample rule decided as it did (GsbResult.reason), translated."""
    fixed = {
        "the candidate is worse than the bar": _("the candidate is worse than the bar"),
        "the candidate did not beat the bar": _("the candidate did not beat the bar"),
        "the candidate beats the bar": _("the candidate beats the bar"),
        "the interval still includes the bar": _("the interval still includes the bar"),
        "the sign test over queries does not favour the candidate": _(
            "the sign test over queries does not favour the candidate"
        ),
    }
    if result.reason in fixed:
        return fixed[result.reason]
    if match := _FEWER.fullmatch(result.reason):
        n = int(match.group(1))
        if match.group(2):
            return ngettext(
                "fewer than %(n)s query whose lists differ",
                "fewer than %(n)s queries whose lists differ",
                n,
            ) % {"n": n}
        return ngettext("fewer than %(n)s query", "fewer than %(n)s queries", n) % {"n": n}
    return result.reason


def _condition(limited_by: str | None) -> str:
    return {
        "sign test": _("the sign test over queries"),
        "minimum queries": _("the minimum number of queries whose lists differ"),
    }.get(limited_by or "interval", _("the interval clearing the bar"))


def more_queries_words(result: GsbResult) -> str | None:
    """How many more queries a decision needs, as a range in words (None unless it needs
    more): the page's wording of GsbResult.more_queries_text."""
    if result.more_queries is None:
        return None
    more = result.more_queries
    low = result.more_queries_low if result.more_queries_low is not None else more
    high = result.more_queries_high
    condition = _condition(result.more_queries_limited_by)
    if more >= MAX_QUERIES_ESTIMATE - 1:
        return _(
            "no number of further queries is expected to be enough at the rates seen so far "
            "(limited by %(condition)s)"
        ) % {"condition": condition}
    values = {
        "low": f"{low:,}",
        "high": f"{high:,}" if high is not None else "",
        "more": f"{more:,}",
        "confidence": f"{RANGE_CONFIDENCE:.0%}",
        "condition": condition,
    }
    if high is None:
        return (
            ngettext(
                "at least %(low)s more query, with no upper end (an estimate at %(confidence)s; "
                "central %(more)s, set by %(condition)s)",
                "at least %(low)s more queries, with no upper end (an estimate at %(confidence)s; "
                "central %(more)s, set by %(condition)s)",
                low,
            )
            % values
        )
    if low == high:
        return (
            ngettext(
                "%(low)s more query (an estimate at %(confidence)s; central %(more)s, set by "
                "%(condition)s)",
                "%(low)s more queries (an estimate at %(confidence)s; central %(more)s, set by "
                "%(condition)s)",
                low,
            )
            % values
        )
    return (
        _(
            "between %(low)s and %(high)s more queries (an estimate at %(confidence)s; central "
            "%(more)s, set by %(condition)s)"
        )
        % values
    )


def warning_words(result: GsbResult) -> list[str]:
    """The result's warnings, translated where this module knows them."""
    few = few_raters_warning(result.n_raters) if result.n_raters is not None else None
    out = []
    for warning in result.warnings:
        if warning == few:
            # One message whatever the count: the core's English says "raters" even for 1.
            warning = _(
                "only %(raters)s raters: the interval describes these raters, not raters in "
                "general (at least %(needed)s are needed to allow for how raters differ)"
            ) % {"raters": result.n_raters, "needed": MIN_RATER_CLUSTERS}
        elif warning.startswith("position bias: ") and result.position_bias is not None:
            pb = result.position_bias
            warning = _(
                "position bias: %(share)s of preferences went to the left side (p = %(p)s)"
            ) % {"share": f"{pb.share_left:.1%}", "p": f"{pb.p_value:.2g}"}
        elif warning == "the bootstrap cross-check needs at least two queries":
            warning = _("the bootstrap cross-check needs at least two queries")
        elif warning == "bootstrap with fewer than 30 queries: do not rely on it":
            warning = _("bootstrap with fewer than 30 queries: do not rely on it")
        out.append(warning)
    return out


def plan_error_words(error: ValueError) -> str:
    """Why the size planner (metrics.core.stats.plan_size) cannot answer, translated."""
    known = {
        "the effect must be above 0 and leave GSB inside [−1, 1]": _(
            "the effect must be above 0 and leave GSB inside [−1, 1]"
        ),
        "the share of Same must lie in [0, 1)": _("the share of Same must lie in [0, 1)"),
        "raters ≥ 1, correlation in [0, 1] and power in (0, 1)": _(
            "raters ≥ 1, correlation in [0, 1] and power in (0, 1)"
        ),
        "with this share of Same, GSB cannot reach the bar plus the effect": _(
            "with this share of Same, GSB cannot reach the bar plus the effect"
        ),
    }
    return known.get(str(error), str(error))
