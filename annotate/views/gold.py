"""The manager's gold page: gold items and tasks, marked and unmarked by hand, imported from a
file or made from the rulings in one action; the share of honeypots; the answers to gold as a
download. Managers of the campaign only (404 for anyone else, as every managed page)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_POST

from annotate.forms.gold import (
    GoldImportForm,
    GoldItemForm,
    GoldTaskForm,
    GoldTaskImportForm,
    HoneypotShareForm,
    PurposeForm,
)
from annotate.models import Adjudication, Campaign, GoldTask
from annotate.safecsv import with_bom
from annotate.selectors import campaign_managed_by
from annotate.selectors.gold import gold_items
from annotate.services.gold import (
    GoldRefused,
    gold_from_adjudications,
    gold_item_clear,
    gold_item_set,
    gold_task_by_names,
    gold_task_clear,
    gold_task_set,
    honeypot_share_set,
    pool_item_by_names,
)
from annotate.services.gold_exports import export_gold_answers
from annotate.services.imports import ImportFailed
from annotate.services.imports.gold import import_gold
from annotate.services.imports.gold_sxs import import_sxs_gold
from annotate.services.preferences import csv_bom_wanted

SHOWN = 500


def _page(request: HttpRequest, campaign: Campaign, status: int = 200, **forms) -> HttpResponse:
    items = gold_items(campaign=campaign)
    tasks = (
        GoldTask.objects.filter(task__comparison__campaign=campaign)
        .select_related("task__query", "task__comparison")
        .order_by("task__comparison__name", "task__query__external_id", "task__position")
    )
    context = {
        "campaign": campaign,
        "items": items[:SHOWN],
        "item_count": items.count(),
        "tasks": tasks[:SHOWN],
        "task_count": tasks.count(),
        "shown": SHOWN,
        "item_form": forms.get("item_form") or GoldItemForm(campaign=campaign),
        "task_form": forms.get("task_form") or GoldTaskForm(campaign=campaign),
        "import_form": forms.get("import_form") or GoldImportForm(),
        "task_import_form": forms.get("task_import_form") or GoldTaskImportForm(campaign=campaign),
        "purpose_form": PurposeForm(),
        "share_form": forms.get("share_form")
        or HoneypotShareForm(initial={"share": campaign.honeypot_share}),
    }
    return render(request, "annotate/manage_gold.html", context, status=status)


@login_required
@require_GET
def gold(request: HttpRequest, slug: str) -> HttpResponse:
    return _page(request, campaign_managed_by(request.user, slug))


@login_required
@require_POST
def gold_item_mark(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = campaign_managed_by(request.user, slug)
    form = GoldItemForm(request.POST, campaign=campaign)
    if not form.is_valid():
        return _page(request, campaign, status=400, item_form=form)
    data = form.cleaned_data
    try:
        item = pool_item_by_names(campaign=campaign, query=data["query"], document=data["document"])
        gold_item_set(
            campaign=campaign,
            manager=request.user,
            item_id=item.pk,
            label_id=data["label"].pk,
            accepted=[label.pk for label in data["also"]],
            explanation=data["explanation"],
            purpose=data["purpose"],
        )
    except GoldRefused as refused:
        form.add_error(None, refused.message)
        return _page(request, campaign, status=400, item_form=form)
    messages.success(request, _("The pair is gold now."))
    return redirect("annotate:manage_gold", slug=slug)


@login_required
@require_POST
def gold_item_unmark(request: HttpRequest, slug: str, item_id: int) -> HttpResponse:
    campaign = campaign_managed_by(request.user, slug)
    try:
        cleared = gold_item_clear(campaign=campaign, item_id=item_id)
    except GoldRefused as refused:
        messages.error(request, refused.message)
        return _page(request, campaign, status=400)
    if cleared:
        messages.success(request, _("The pair is real work again; its answers count."))
    return redirect("annotate:manage_gold", slug=slug)


@login_required
@require_POST
def gold_task_mark(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = campaign_managed_by(request.user, slug)
    form = GoldTaskForm(request.POST, campaign=campaign)
    if not form.is_valid():
        return _page(request, campaign, status=400, task_form=form)
    data = form.cleaned_data
    comparison = data["comparison"]
    try:
        task = gold_task_by_names(
            comparison=comparison, query=data["query"], position=data["position"]
        )
        gold_task_set(
            comparison=comparison,
            manager=request.user,
            task_id=task.pk,
            value=data["value"],
            explanation=data["explanation"],
            purpose=data["purpose"],
        )
    except GoldRefused as refused:
        form.add_error(None, refused.message)
        return _page(request, campaign, status=400, task_form=form)
    messages.success(request, _("The task is gold now."))
    return redirect("annotate:manage_gold", slug=slug)


@login_required
@require_POST
def gold_task_unmark(request: HttpRequest, slug: str, task_id: int) -> HttpResponse:
    campaign = campaign_managed_by(request.user, slug)
    gold = GoldTask.objects.filter(task_id=task_id, task__comparison__campaign=campaign).first()
    if gold is None:
        messages.error(request, _("That task is not gold."))
        return _page(request, campaign, status=400)
    gold_task_clear(comparison=gold.task.comparison, task_id=task_id)
    messages.success(request, _("The task is real work again; its answers count."))
    return redirect("annotate:manage_gold", slug=slug)


@login_required
@require_POST
def gold_import(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = campaign_managed_by(request.user, slug)
    form = GoldImportForm(request.POST, request.FILES)
    if not form.is_valid():
        return _page(request, campaign, status=400, import_form=form)
    upload = form.cleaned_data["file"]
    try:
        summary = import_gold(
            campaign=campaign,
            file=upload,
            manager=request.user,
            purpose=form.cleaned_data["purpose"],
            name=upload.name,
        )
    except ImportFailed as failed:
        form.add_error("file", str(failed))
        return _page(request, campaign, status=400, import_form=form)
    messages.success(
        request,
        ngettext("%(n)s pair is gold now.", "%(n)s pairs are gold now.", summary.created)
        % {"n": summary.created},
    )
    return redirect("annotate:manage_gold", slug=slug)


@login_required
@require_POST
def gold_task_import(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = campaign_managed_by(request.user, slug)
    form = GoldTaskImportForm(request.POST, request.FILES, campaign=campaign)
    if not form.is_valid():
        return _page(request, campaign, status=400, task_import_form=form)
    upload = form.cleaned_data["file"]
    try:
        summary = import_sxs_gold(
            comparison=form.cleaned_data["comparison"],
            file=upload,
            manager=request.user,
            purpose=form.cleaned_data["purpose"],
            name=upload.name,
        )
    except ImportFailed as failed:
        form.add_error("file", str(failed))
        return _page(request, campaign, status=400, task_import_form=form)
    n = summary.created + summary.updated
    messages.success(
        request,
        ngettext("%(n)s task is gold now.", "%(n)s tasks are gold now.", n) % {"n": n},
    )
    return redirect("annotate:manage_gold", slug=slug)


@login_required
@require_POST
def gold_from_rulings(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = campaign_managed_by(request.user, slug)
    form = PurposeForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Choose what the gold is for: honeypot or quiz."))
        return _page(request, campaign, status=400)
    made = gold_from_adjudications(
        campaign=campaign, manager=request.user, purpose=form.cleaned_data["purpose"]
    )
    messages.success(
        request,
        ngettext(
            "%(n)s adjudicated pair is gold now.", "%(n)s adjudicated pairs are gold now.", made
        )
        % {"n": made},
    )
    # What the honeypot action left: pairs raters met in the quiz (gold_from_adjudications).
    left = Adjudication.objects.filter(pool_item__campaign=campaign, pool_item__gold=False)
    if left_n := left.count():
        messages.warning(
            request,
            ngettext(
                "%(n)s adjudicated pair stays real work: raters have seen it in the "
                "qualification quiz, so it cannot be a honeypot.",
                "%(n)s adjudicated pairs stay real work: raters have seen them in the "
                "qualification quiz, so they cannot be honeypots.",
                left_n,
            )
            % {"n": left_n},
        )
    return redirect("annotate:manage_gold", slug=slug)


@login_required
@require_POST
def honeypot_share(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = campaign_managed_by(request.user, slug)
    form = HoneypotShareForm(request.POST)
    if not form.is_valid():
        return _page(request, campaign, status=400, share_form=form)
    honeypot_share_set(campaign=campaign, share=form.cleaned_data["share"])
    messages.success(request, _("Saved the share of honeypots."))
    return redirect("annotate:manage_gold", slug=slug)


@login_required
@require_GET
def gold_answers_export(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = campaign_managed_by(request.user, slug)
    fmt = request.GET.get("format", "csv")
    if fmt not in ("csv", "jsonl"):
        return HttpResponse(_("Use format csv or jsonl."), status=400, content_type="text/plain")
    export = export_gold_answers(campaign=campaign, fmt=fmt)
    # A mark for Excel on CSV only, as on the other exports (?bom=1, else the preference).
    chunks = with_bom(export.chunks, fmt == "csv" and csv_bom_wanted(request))
    response = StreamingHttpResponse(chunks, content_type=export.content_type)
    response["Content-Disposition"] = f'attachment; filename="{export.filename}"'
    return response
