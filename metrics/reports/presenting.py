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

from annotate import safecsv
from annotate.models import Campaign
from annotate.services.aggregation import SOURCE_RULE, rule_note
from metrics.services.snapshots import Fresh


def basis_text(*, rule: str, source: str | None, adjudicated: int = 0) -> str:
    """Which labels the numbers come from, in one sentence."""
    if rule == SOURCE_RULE or source:
        return f"Labels: the imported label source “{source}”, as imported."
    text = f"Labels: the raters' grades aggregated by {rule} ({rule_note(rule)})"
    if adjudicated:
        pairs = "pair" if adjudicated == 1 else "pairs"
        text += f"; {adjudicated} {pairs} settled by a manager's adjudication, which wins"
    return text + "."


def age_text(fresh: Fresh, *, now: datetime | None = None) -> str:
    """How old the stored numbers are, and whether they were just recomputed (and why)."""
    now = now or timezone.now()
    snap = fresh.snapshot
    took = f"{snap.seconds:.1f} s" if snap.seconds >= 0.1 else "under 0.1 s"
    if fresh.recomputed and fresh.replaced_at is not None:
        return (
            f"Recomputed just now (took {took}): the judgments or runs changed since the "
            f"previous snapshot, computed {timesince(fresh.replaced_at, now)} ago."
        )
    if fresh.recomputed:
        return f"Computed just now (took {took}); stored for the next views."
    return (
        f"From a snapshot computed {timesince(snap.computed_at, now)} ago (took {took}); "
        "the judgments and runs have not changed since."
    )


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
