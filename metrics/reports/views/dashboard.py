"""Manager report pages: the reports index, the campaign dashboard (progress and agreement), and
the disagreements with their adjudication form. System scores are in
metrics.reports.views.scores.

Managers of the campaign only: anyone else gets a 404 (campaign_managed_by), an anonymous
visitor the login page. Every table is also a CSV download (``?download=<table>``).
"""

from __future__ import annotations

from datetime import datetime

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from annotate.models import Role
from annotate.selectors import campaign_managed_by, campaigns_for
from annotate.selectors.progress import live_leases
from annotate.selectors.real import excluded_answers
from annotate.selectors_judge import Card
from annotate.services.adjudication import (
    AdjudicationRefused,
    adjudication_clear,
    adjudication_set,
)
from annotate.services.preferences import csv_bom_wanted
from metrics.reports import dashboard_tables as tables
from metrics.reports.forms import AdjudicationForm, BasisForm
from metrics.reports.presenting import age_text, basis_text, csv_response, rule_name
from metrics.reports.snapshot_charts import in_this_language
from metrics.selectors.disagreements import PAGE, disagreements
from metrics.selectors.progress import PoolProgress, timeline_from
from metrics.services.snapshots import dashboard_snapshots


@login_required
@require_GET
def index(request: HttpRequest) -> HttpResponse:
    campaigns = campaigns_for(request.user, role=Role.MANAGER).order_by("name")
    return render(request, "metrics/index.html", {"campaigns": campaigns})


@login_required
@require_GET
def dashboard(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = campaign_managed_by(request.user, slug)
    progress_fresh, fresh = dashboard_snapshots(campaign=campaign)
    progress = progress_fresh.summary
    leases = live_leases(campaign=campaign)
    holding = leases.by_rater
    raters = [
        {
            **r,
            "holding": holding.get(r["user_id"], 0),
            "last_activity": datetime.fromisoformat(r["last_activity"])
            if r["last_activity"]
            else None,
        }
        for r in progress["raters"]
    ]
    timeline = timeline_from(progress["timeline"])
    agreement = fresh.summary
    names = [r["username"] for r in agreement["raters"]]

    download = request.GET.get("download")
    if download:
        return _dashboard_csv(
            campaign, download, raters, timeline, agreement, names, bom=csv_bom_wanted(request)
        )

    pool = PoolProgress(**progress["pool"], leased=leases.items)
    context = {
        "excluded": excluded_answers(campaign),
        "campaign": campaign,
        "progress": pool,
        "progress_age": age_text(progress_fresh),
        "basis": _(
            "Labels: each rater's own grades, not aggregated. The campaign aggregates them by "
            "%(rule)s for the qrels and the system scores."
        )
        % {"rule": campaign.get_aggregation_display()},
        "raters": raters,
        "timeline": timeline,
        "agreement": agreement,
        "agreement_age": age_text(fresh),
        "pairs": [
            {**p, "a_name": names[p["a"]], "b_name": names[p["b"]]} for p in agreement["pairs"]
        ],
    }
    drawn = in_this_language(progress_fresh.snapshot.charts)
    context["timeline_svg"] = drawn.get("timeline")
    context["kappa_svg"] = drawn.get("kappa")
    return render(request, "metrics/dashboard.html", context)


def _dashboard_csv(
    campaign, download, raters, timeline, agreement, names, *, bom: bool
) -> HttpResponse:
    downloads = {
        "raters": ("raters", lambda: tables.raters_table(raters), []),
        "timeline": (f"grades-per-{timeline.unit}", lambda: tables.timeline_table(timeline), []),
        "agreement": (
            "rater-agreement",
            lambda: tables.agreement_table(agreement),
            [f"items with 2+ grades: {agreement['n_items']}"],
        ),
        "pairs": ("rater-pairs-kappa", lambda: tables.pairs_table(agreement, names), []),
    }
    if download not in downloads:
        return HttpResponseBadRequest(
            "Unknown table: download one of raters, timeline, agreement, pairs.",
            content_type="text/plain; charset=utf-8",
        )
    name, table, notes = downloads[download]
    header, rows = table()
    return csv_response(
        campaign=campaign, name=name, header=header, rows=rows, notes=notes, bom=bom
    )


@login_required
@require_GET
def disagreements_view(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = campaign_managed_by(request.user, slug)
    return _disagreements_page(request, campaign)


def _disagreements_page(
    request: HttpRequest, campaign, *, status: int = 200, error: str = ""
) -> HttpResponse:
    form = BasisForm(request.GET, campaign=campaign)
    only_open = request.GET.get("show") == "open"
    if not form.is_valid():
        context = {"campaign": campaign, "form": form, "rows": [], "only_open": only_open}
        return render(request, "metrics/disagreements.html", context, status=400)
    rule = form.rule
    excluded = excluded_answers(campaign)
    if request.GET.get("download") == "disagreements":
        found = disagreements(campaign=campaign, rule=rule, only_open=only_open, limit=None)
        header, rows = tables.disagreements_table(found, rule)
        notes = [basis_text(rule=rule, source=None)]
        if excluded.total:
            notes.append(f"answers of excluded raters left out: {excluded.total}")
        return csv_response(
            campaign=campaign,
            name="disagreements",
            header=header,
            rows=rows,
            notes=notes,
            bom=csv_bom_wanted(request),
        )
    found = disagreements(campaign=campaign, rule=rule, only_open=only_open, limit=PAGE)
    context = {
        "excluded": excluded,
        "campaign": campaign,
        "form": form,
        "found": found,
        "rule_name": rule_name(found.rule),
        "rows": found.rows,
        "only_open": only_open,
        "page_size": PAGE,
        "labels": list(campaign.labels.order_by("position")),
        "card": Card.of(campaign).parts,  # each document as the raters saw it
        "basis": basis_text(rule=rule, source=None),
        "error": error,
        "query_string": request.GET.urlencode(),
    }
    return render(request, "metrics/disagreements.html", context, status=status)


@login_required
@require_POST
def adjudicate(request: HttpRequest, slug: str, item_id: int) -> HttpResponse:
    """Settle (or, with action=clear, unsettle) one pool item; back to the list."""
    campaign = campaign_managed_by(request.user, slug)
    back = reverse("metrics:disagreements", kwargs={"slug": slug})
    # Re-encoded, so only well-formed parameters of our own page travel back.
    query = QueryDict(request.POST.get("return_query", "")).urlencode()
    if request.POST.get("action") == "clear":
        if adjudication_clear(campaign=campaign, item_id=item_id):
            messages.success(request, _("Ruling removed: the raters' aggregate applies again."))
        return redirect(f"{back}?{query}#item-{item_id}" if query else f"{back}#item-{item_id}")
    form = AdjudicationForm(request.POST, campaign=campaign)
    if not form.is_valid():
        return _disagreements_page(
            request, campaign, status=400, error=_("Choose one of the campaign's labels.")
        )
    try:
        ruling = adjudication_set(
            campaign=campaign,
            manager=request.user,
            item_id=item_id,
            label_id=form.cleaned_data["label"].pk,
            note=form.cleaned_data["note"],
        )
    except AdjudicationRefused as refused:
        return _disagreements_page(request, campaign, status=400, error=refused.message)
    messages.success(
        request,
        _(
            "Settled as %(label)s: this label now wins over the raters' aggregate in every "
            "report and export."
        )
        % {"label": ruling.label.name},
    )
    return redirect(f"{back}?{query}#item-{item_id}" if query else f"{back}#item-{item_id}")
