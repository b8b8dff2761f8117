"""What every report page says about its numbers (which labels, which settings, how old), and
the CSV answer every table offers. Shared by the report views; no queries here."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import datetime

from django.http import HttpResponse
from django.utils import timezone
from django.utils.text import slugify
from django.utils.timesince import timesince
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, pgettext

from annotate import safecsv
from annotate.models import Campaign
from annotate.services.aggregation import RULE_NOTES, SOURCE_RULE
from metrics.services.snapshots import Fresh

# The aggregation rules as a report page explains them (rule_note is the English of export
# headers, which must stay ASCII).
_RULE_NOTES_SHOWN = {
    "mean": gettext_lazy("mean of the raters' grades"),
    "median": gettext_lazy(
        "median of the raters' grades; an even count takes the mean of the two middle grades"
    ),
    "majority": gettext_lazy("most frequent grade; a tie goes to the lower grade"),
    "dawid_skene": gettext_lazy(
        "most probable grade under Dawid-Skene: each rater weighted by their estimated "
        "confusion matrix"
    ),
}


def rule_name(rule: str | None) -> str:
    """An aggregation rule's name as a page says it ("the raters' grades aggregated by
    mean"); an unknown or missing rule is named as stored."""
    return {
        "mean": pgettext("aggregation rule", "mean"),
        "median": pgettext("aggregation rule", "median"),
        "majority": pgettext("aggregation rule", "majority"),
        "dawid_skene": pgettext("aggregation rule", "Dawid–Skene"),
    }.get(rule or "", rule or "")


def basis_text(*, rule: str, source: str | None, adjudicated: int = 0) -> str:
    """Which labels the numbers come from, in one sentence."""
    if rule == SOURCE_RULE or source:
        return _("Labels: the imported label source “%(source)s”, as imported.") % {
            "source": source
        }
    note = _RULE_NOTES_SHOWN.get(rule)
    values = {
        "rule": rule_name(rule),
        "note": note if note is not None else RULE_NOTES.get(rule, rule),
        "n": adjudicated,
    }
    if adjudicated:  # one whole sentence either way, so a translation can reorder it
        return (
            ngettext(
                "Labels: the raters' grades aggregated by %(rule)s (%(note)s; can't-judge answers "
                "left out); %(n)s pair settled by a manager's adjudication, which wins.",
                "Labels: the raters' grades aggregated by %(rule)s (%(note)s; can't-judge answers "
                "left out); %(n)s pairs settled by a manager's adjudication, which wins.",
                adjudicated,
            )
            % values
        )
    return (
        _(
            "Labels: the raters' grades aggregated by %(rule)s (%(note)s; can't-judge answers left "
            "out)."
        )
        % values
    )


def age_text(fresh: Fresh, *, now: datetime | None = None) -> str:
    """How old the stored numbers are, and whether they were just recomputed (and why)."""
    now = now or timezone.now()
    snap = fresh.snapshot
    took = _("%(s)s s") % {"s": f"{snap.seconds:.1f}"} if snap.seconds >= 0.1 else _("under 0.1 s")
    if fresh.recomputed and fresh.replaced_at is not None:
        return _(
            "Recomputed just now (took %(took)s): the judgments or runs changed since the "
            "previous snapshot, computed %(ago)s ago."
        ) % {"took": took, "ago": timesince(fresh.replaced_at, now)}
    if fresh.recomputed:
        return _("Computed just now (took %(took)s); stored for the next views.") % {"took": took}
    return _(
        "From a snapshot computed %(ago)s ago (took %(took)s); the judgments and runs have not "
        "changed since."
    ) % {"ago": timesince(snap.computed_at, now), "took": took}


def number(value: float | None, digits: int = 4) -> str:
    return "" if value is None else f"{value:.{digits}f}"


def csv_response(
    *,
    campaign: Campaign,
    name: str,
    header: Sequence[str],
    rows: Iterable[Sequence[object]],
    notes: Sequence[str] = (),
    bom: bool = False,
) -> HttpResponse:
    """A CSV download. `notes` (the labels and settings used) travel in a header, so the file
    stays a plain table a spreadsheet opens. `bom`: start with the UTF-8 byte-order mark (for
    Excel; annotate.services.preferences.csv_bom_wanted)."""
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    if bom:
        response.write(safecsv.BOM)
    filename = f"{campaign.slug}-{slugify(name) or 'table'}.csv"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    if notes:
        # Header values must be Latin-1: keep the ASCII of the notes.
        ascii_notes = " | ".join(notes).encode("ascii", "replace").decode()
        # Every control character out (a CR or LF in a label source's name would end the
        # header: BadHeaderError, a 500).
        response["X-Report-Basis"] = re.sub(r"[\x00-\x1f\x7f]", " ", ascii_notes)
    writer = safecsv.writer(response)
    writer.writerow(header)
    for row in rows:
        # Floats in full (repr reads back exactly), so a download can be checked to the bit.
        writer.writerow(["" if v is None else repr(v) if isinstance(v, float) else v for v in row])
    return response
