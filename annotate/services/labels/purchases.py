"""Purchases as binary labels, ``purchases:<name>`` (seed 001: what users bought is what was
relevant).

For each (query, document) of a log with a purchases column, summed over positions:

- bought (purchases >= 1): the scale's top grade;
- shown at least ``min_impressions`` times (default 1) and never bought: grade 0.

Grade 0 rather than the scale's lowest label, because seed 001 scores "not bought" as gain 0
(a lowest label of 1, as in Good / Fair / Bad, would still add gain). With one positive grade
and 0, NDCG is the same whatever that grade is (linear or exponential gain), so seed 001's
numbers come out on any scale; the binary measures see "bought" as relevant as long as the top
grade reaches the campaign's "relevant from". A pair never shown and never bought has no label.
Both grades can be changed (``bought_grade``, ``not_bought_grade``).
"""

from __future__ import annotations

import numpy as np
from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from annotate.models import BehaviourLog, SourceKind
from annotate.services.imports.common import ImportSummary
from annotate.services.labels.clicks import log_rows
from annotate.services.labels.common import labels_write, scale_grades, source_name, source_open
from annotate.services.labels.sums import group_sums

METHOD = "purchases: bought = top grade, shown and not bought = 0"


def purchase_grades(
    *,
    impressions: np.ndarray,
    conversions: np.ndarray,
    bought_grade: float,
    not_bought_grade: float,
    min_impressions: int,
) -> tuple[np.ndarray, np.ndarray]:
    """(which pairs get a label, their grade) from per-pair sums."""
    bought = conversions > 0
    keep = bought | (impressions >= min_impressions)
    return keep, np.where(bought, bought_grade, not_bought_grade)[keep]


def derive_purchases(
    *,
    log: BehaviourLog,
    name: str,
    bought_grade: float | None = None,
    not_bought_grade: float = 0.0,
    min_impressions: int = 1,
    replace: bool = False,
) -> ImportSummary:
    """Store purchase labels of ``log`` as ``purchases:<name>``. Raises ValueError when the log
    has no purchases column or a parameter is bad, ImportFailed for a name already taken."""
    campaign = log.campaign
    bought_grade = _checked(log, bought_grade, not_bought_grade, min_impressions)
    rows = log_rows(log)
    (q, d), (imp, conv) = group_sums(
        [rows["query"], rows["document"]], [rows["impressions"], rows["conversions"]]
    )
    keep, grades = purchase_grades(
        impressions=imp,
        conversions=conv,
        bought_grade=bought_grade,
        not_bought_grade=not_bought_grade,
        min_impressions=min_impressions,
    )
    params = {
        "method": METHOD,
        "log": log.name,
        "bought_grade": bought_grade,
        "not_bought_grade": not_bought_grade,
        "min_impressions": min_impressions,
        "pairs": int(q.size),
        "bought": int((conv > 0).sum()),
        "labels": int(keep.sum()),
    }
    summary = ImportSummary(
        kind="purchases",
        path=_("log %(name)s") % {"name": repr(log.name)},
        noun=pgettext("import summary", "labels"),
    )
    with transaction.atomic():
        source = source_open(
            campaign=campaign,
            name=source_name(SourceKind.PURCHASES, name),
            kind=SourceKind.PURCHASES,
            replace=replace,
            params=params,
            path=summary.path,
            summary=summary,
        )
        summary.created = labels_write(
            source=source, query_id=q[keep], document_id=d[keep], grade=grades
        )
    summary.lines = int(rows["query"].size)
    if bought_grade < campaign.relevant_from:
        summary.warnings.append(_below_relevant(bought_grade, campaign.relevant_from))
    return summary


def _checked(
    log: BehaviourLog, bought_grade: float | None, not_bought_grade: float, min_impressions: int
) -> float:
    """The grade of a purchase (the scale's top by default), once the parameters are sound."""
    if not log.has_conversions:
        raise ValueError(
            _("log %(name)s has no purchases (or conversions) column: nothing to label")
            % {"name": repr(log.name)}
        )
    if min_impressions < 0:
        raise ValueError(_("the minimum number of impressions cannot be negative"))
    top = float(scale_grades(log.campaign)[0])
    bought_grade = top if bought_grade is None else float(bought_grade)
    if not bought_grade > not_bought_grade:
        raise ValueError(_("a purchase must earn a higher grade than no purchase"))
    return bought_grade


def _below_relevant(bought_grade: float, relevant_from: float) -> str:
    return _(
        "bought grade %(bought_grade)s is below the campaign's relevant-from "
        "grade %(relevant_from)s: MAP and P@k will not count purchases as "
        "relevant"
    ) % {
        "bought_grade": format(bought_grade, "g"),
        "relevant_from": format(relevant_from, "g"),
    }
