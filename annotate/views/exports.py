"""Downloads for the campaign's manager: qrels, grades and verdicts, streamed."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, StreamingHttpResponse
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_GET

from annotate.safecsv import with_bom
from annotate.selectors import campaign_managed_by
from annotate.services.exports import Export, export_grades, export_qrels, export_verdicts
from annotate.services.preferences import csv_bom_wanted

_TRUE, _FALSE = {"1", "true", "yes", "on"}, {"", "0", "false", "no", "off"}


@login_required
@require_GET
def qrels(request: HttpRequest, slug: str) -> HttpResponse:
    """?aggregation=mean|median|majority (default: the campaign's) or ?source=NAME, and
    ?real=1 to keep real-valued grades."""
    campaign = campaign_managed_by(request.user, slug)
    real = request.GET.get("real", "").lower()
    if real not in _TRUE | _FALSE:
        return HttpResponseBadRequest("real must be 1 or 0", content_type="text/plain")
    try:
        export = export_qrels(
            campaign=campaign,
            rule=request.GET.get("aggregation") or None,
            source_name=request.GET.get("source") or None,
            real=real in _TRUE,
        )
    except ValueError as exc:
        return HttpResponseBadRequest(str(exc), content_type="text/plain")
    return _stream(export)


@login_required
@require_GET
def grades(request: HttpRequest, slug: str) -> HttpResponse:
    """?format=csv (default) or jsonl."""
    campaign = campaign_managed_by(request.user, slug)
    try:
        export = export_grades(campaign=campaign, fmt=request.GET.get("format", "csv"))
    except ValueError as exc:
        return HttpResponseBadRequest(str(exc), content_type="text/plain")
    return _stream(export, request)


@login_required
@require_GET
def verdicts(request: HttpRequest, slug: str) -> HttpResponse:
    """?format=csv (default) or jsonl."""
    campaign = campaign_managed_by(request.user, slug)
    try:
        export = export_verdicts(campaign=campaign, fmt=request.GET.get("format", "csv"))
    except ValueError as exc:
        return HttpResponseBadRequest(str(exc), content_type="text/plain")
    return _stream(export, request)


def _stream(export: Export, request: HttpRequest | None = None) -> StreamingHttpResponse:
    # CSV only (?bom=1, or the user's preference): qrels and JSONL are read by programs.
    bom = request is not None and export.content_type.startswith("text/csv")
    return StreamingHttpResponse(
        with_bom(export.chunks, bom and csv_bom_wanted(request)),
        content_type=export.content_type,
        headers={
            "Content-Disposition": content_disposition_header(True, export.filename),
            **export.headers,
        },
    )
