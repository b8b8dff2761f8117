"""The manager's pages for model judges: the list and a new judge; one judge's settings with
a preview of the exact prompt for one item, a dry run, a run as a background job, and its
runs with what they cost. Managers of the campaign only: anyone else gets 404."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from annotate.models import Campaign
from annotate.selectors import campaign_managed_by
from llmjudge.forms import ModelJudgeForm
from llmjudge.items import Item, builder_for, selected_items
from llmjudge.jobs import start_judge_job
from llmjudge.models import ModelJudge, ModelReply
from llmjudge.prompt import DEFAULT_TEMPLATE
from llmjudge.queue_order import (
    model_doubts,
    prioritized_queries,
    queue_order_by_doubt,
    queue_order_reset,
)
from llmjudge.run import judge_dry_run

PREVIEW_CHOICES = 200  # items offered for the preview


def judge_managed_by(user, slug: str, name: str) -> tuple[Campaign, ModelJudge]:
    campaign = campaign_managed_by(user, slug)
    judge = ModelJudge.objects.filter(campaign=campaign, name=name).first()
    if judge is None:
        raise Http404("No such judge")
    judge.campaign = campaign
    return campaign, judge


@login_required
@require_http_methods(["GET", "POST"])
def judges(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = campaign_managed_by(request.user, slug)
    if request.method == "POST":
        form = ModelJudgeForm(request.POST, campaign=campaign)
        if form.is_valid():
            judge = form.save()
            messages.success(request, _("Judge %(name)s saved.") % {"name": judge.source_name})
            return redirect("llmjudge:judge", slug=campaign.slug, name=judge.name)
    else:
        form = ModelJudgeForm(campaign=campaign, initial={"template": DEFAULT_TEMPLATE})
    context = {
        "campaign": campaign,
        "judges": ModelJudge.objects.filter(campaign=campaign).prefetch_related("runs"),
        "form": form,
    }
    return render(request, "llmjudge/judges.html", context, status=400 if form.errors else 200)


@login_required
@require_http_methods(["GET", "POST"])
def judge_page(request: HttpRequest, slug: str, name: str) -> HttpResponse:
    """POST action=save | preview (the posted template, not saved) | dry (count what a run
    would send) | run (start it as a job) | order / unorder (serve the queries the model
    doubts first in the raters' queue, or stop)."""
    campaign, judge = judge_managed_by(request.user, slug, name)
    action = request.POST.get("action", "")
    form = ModelJudgeForm(request.POST or None, instance=judge, campaign=campaign)
    context: dict = {"campaign": campaign, "judge": judge, "form": form}
    status = 200
    if action == "run":
        try:
            job, _run = start_judge_job(judge=judge, user=request.user)
        except ValueError as exc:
            messages.error(request, str(exc))
            return redirect("jobs:campaign", slug=campaign.slug)
        messages.success(request, _("Started as job %(id)s: follow it below.") % {"id": job.pk})
        return redirect("jobs:campaign", slug=campaign.slug)
    if action in ("order", "unorder"):
        if action == "order":
            count = queue_order_by_doubt(judge)
            messages.success(
                request,
                _("%(n)s queries the model doubts now come first in the raters' queue.")
                % {"n": count},
            )
        else:
            queue_order_reset(campaign)
            messages.success(request, _("The raters' queue is back to its usual order."))
        return redirect("llmjudge:judge", slug=campaign.slug, name=judge.name)
    if action == "dry":
        form = ModelJudgeForm(instance=judge, campaign=campaign)
        context |= {"form": form, "dry": _dry(judge)}
    elif action in ("save", "preview"):
        if not form.is_valid():
            status = 400
        elif action == "save":
            form.save()
            messages.success(request, _("Saved."))
            return redirect("llmjudge:judge", slug=campaign.slug, name=judge.name)
    elif request.method == "POST":
        messages.error(request, _("Unknown action."))
        status = 400
    template = form.cleaned_data["template"] if action == "preview" and status == 200 else None
    context |= _preview(request, judge, template)
    context["runs"] = judge.runs.all()[:20]
    context["unreadable"] = unreadable_replies(judge)
    context["doubts"] = model_doubts(judge)[:50]
    context["prioritized"] = prioritized_queries(campaign)
    return render(request, "llmjudge/judge.html", context, status=status)


def unreadable_replies(judge: ModelJudge, limit: int = 10) -> list[ModelReply]:
    """The latest replies of the judge's model that gave no grade, kept as sent."""
    rows = ModelReply.objects.filter(
        campaign=judge.campaign, endpoint=judge.base_url, model=judge.model, grade__isnull=True
    )
    return list(rows.select_related("query", "document").order_by("-created_at", "-pk")[:limit])


def _dry(judge: ModelJudge):
    try:
        return judge_dry_run(judge)
    except ValueError as exc:
        return {"error": str(exc)}


def _preview(request: HttpRequest, judge: ModelJudge, template: str | None) -> dict:
    """The exact messages for one item (?item=<pool item's query-document as q:d ids>)."""
    items = selected_items(judge)
    if not items:
        return {"preview_items": [], "preview": None}
    chosen = _chosen(items, request.GET.get("item") or request.POST.get("item"))
    try:
        messages_ = builder_for(judge, template=template).messages(chosen.text)
    except ValueError as exc:
        return {"preview_items": [], "preview": None, "preview_error": str(exc)}
    choices = [(f"{i.query_id}:{i.document_id}", i) for i in items[:PREVIEW_CHOICES]]
    return {
        "preview_items": choices,
        "preview_key": f"{chosen.query_id}:{chosen.document_id}",
        "preview": messages_,
        "n_items": len(items),
    }


def _chosen(items: list[Item], key: str | None) -> Item:
    for item in items:
        if key == f"{item.query_id}:{item.document_id}":
            return item
    return items[0]
