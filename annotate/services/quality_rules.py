"""The automatic rules on a rater's quality (#18): each reads one rater's figures and the
campaign's thresholds and may find a reason to pause the rater or to flag them for review.

A rule is a plain function (campaign, figures) -> Finding | None, listed in RULES; the service
(annotate/services/quality.py) applies the first pausing finding and records flags. The
gold-accuracy rules pause after the campaign's number of answers to gold (default 10): graded
within one grade below 70% or exact below 40%, side-by-side below 60% (the issue's defaults,
each a campaign setting).

A finding is stored as data ({"rule": ..., figures}), not as text, so it is shown in the
reader's language (reason_text).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from annotate.models import Campaign
from annotate.selectors.quality import RaterQuality

PAUSE = "pause"
FLAG = "flag"
# Fast answers are judged once this many answers were timed: two quick ones are no pattern.
MIN_TIMED = 10


@dataclass(frozen=True)
class Finding:
    rule: str
    action: str  # PAUSE or FLAG
    figures: dict  # with "n", the answers (or pairs) it rests on
    # After a manager resumed the rater, the rule acts again only on this many new answers.
    minimum: int = 1

    def as_reason(self) -> dict:
        return {"rule": self.rule, **self.figures}


Rule = Callable[[Campaign, RaterQuality], "Finding | None"]


def low_consistency(campaign: Campaign, figures: RaterQuality) -> Finding | None:
    """Mirrored consistency below the campaign's floor after enough pairs: pause."""
    share = figures.consistency
    if campaign.min_consistency <= 0 or share.n < campaign.min_pairs:
        return None
    if share.k / share.n >= campaign.min_consistency:
        return None
    return Finding(
        rule="consistency",
        action=PAUSE,
        figures={"k": share.k, "n": share.n, "threshold": campaign.min_consistency},
        minimum=campaign.min_pairs,
    )


def many_fast(campaign: Campaign, figures: RaterQuality) -> Finding | None:
    """More fast answers than the campaign allows: flag for review, without pausing."""
    fast = figures.timing.fast
    if fast.n < MIN_TIMED or fast.k / fast.n <= campaign.max_fast_share:
        return None
    return Finding(
        rule="fast",
        action=FLAG,
        figures={
            "k": fast.k,
            "n": fast.n,
            "threshold": campaign.max_fast_share,
            "floor": campaign.fast_seconds,
        },
    )


def low_gold_graded(campaign: Campaign, figures: RaterQuality) -> Finding | None:
    """Graded gold accuracy below a floor, within one grade or exact: pause."""
    within, exact = figures.gold_within, figures.gold_exact
    if exact.n < campaign.min_gold_answers:
        return None
    for rule, share, floor in (
        ("gold_within", within, campaign.min_gold_within),
        ("gold_exact", exact, campaign.min_gold_exact),
    ):
        if floor > 0 and share.k / share.n < floor:
            return Finding(
                rule=rule,
                action=PAUSE,
                figures={"k": share.k, "n": share.n, "threshold": floor},
                minimum=campaign.min_gold_answers,
            )
    return None


def low_gold_sxs(campaign: Campaign, figures: RaterQuality) -> Finding | None:
    """Side-by-side gold accuracy below the floor: pause."""
    share, floor = figures.sxs_gold, campaign.min_sxs_gold
    if share.n < campaign.min_gold_answers or floor <= 0 or share.k / share.n >= floor:
        return None
    return Finding(
        rule="gold_sxs",
        action=PAUSE,
        figures={"k": share.k, "n": share.n, "threshold": floor},
        minimum=campaign.min_gold_answers,
    )


RULES: list[Rule] = [low_gold_graded, low_gold_sxs, low_consistency, many_fast]


def findings(campaign: Campaign, figures: RaterQuality, rules: list[Rule] | None = None) -> list:
    found = (rule(campaign, figures) for rule in (RULES if rules is None else rules))
    return [finding for finding in found if finding is not None]


def _percent(value: object) -> str:
    return f"{100 * float(value):.0f}%"  # type: ignore[arg-type]


GOLD_WORDS = {
    "gold_within": gettext_lazy(
        "Graded gold within one grade: %(k)s of %(n)s right (%(share)s), below %(threshold)s."
    ),
    "gold_exact": gettext_lazy(
        "Graded gold, exact: %(k)s of %(n)s right (%(share)s), below %(threshold)s."
    ),
    "gold_sxs": gettext_lazy(
        "Side-by-side gold: %(k)s of %(n)s right (%(share)s), below %(threshold)s."
    ),
}


def reason_text(reason: dict) -> str:
    """A stored reason in the reader's language."""
    rule = reason.get("rule")
    if rule == "consistency":
        return _("Mirrored consistency %(k)s of %(n)s pairs (%(share)s), below %(threshold)s.") % {
            "k": reason["k"],
            "n": reason["n"],
            "share": _percent(reason["k"] / reason["n"]),
            "threshold": _percent(reason["threshold"]),
        }
    if rule in GOLD_WORDS:
        return GOLD_WORDS[rule] % {
            "k": reason["k"],
            "n": reason["n"],
            "share": _percent(reason["k"] / reason["n"]),
            "threshold": _percent(reason["threshold"]),
        }
    if rule == "fast":
        return _(
            "%(k)s of %(n)s answers (%(share)s) faster than %(floor)s s, above %(threshold)s."
        ) % {
            "k": reason["k"],
            "n": reason["n"],
            "share": _percent(reason["k"] / reason["n"]),
            "floor": f"{float(reason['floor']):g}",
            "threshold": _percent(reason["threshold"]),
        }
    if "note" in reason:
        note = reason["note"]
        return _("By a manager: %(note)s") % {"note": note} if note else _("By a manager.")
    return ""
