"""A manager's preview of the judging screen as raters see it (#21): the campaign's items one
by one, read only. Nothing is leased and nothing can be stored: the page has no script that
sends answers, its buttons are disabled, and its form posts to this GET-only view (405)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET

from annotate.judging.progress import rater_progress
from annotate.models import PoolItem, SxsTask
from annotate.selectors import campaign_managed_by
from annotate.selectors_judge import campaign_progress
from annotate.selectors_sxs import comparison_managed_by, side_for, task_payloads
from annotate.views.judge import screen_context
from annotate.views.sxs import base_context


def _position(raw: str | None, count: int) -> int:
    try:
        n = int(raw or 0)
    except ValueError:
        n = 0
    return min(max(n, 0), max(count - 1, 0))


def _preview_context(here: str, n: int, count: int) -> dict:
    """What both previews add to a judging screen: where in the list, and no way to answer
    (the form posts here, which only answers GET; no script state, so no script sends)."""
    return {
        "mode": "preview",
        "preview_position": n + 1,
        "preview_count": count,
        "preview_previous": f"{here}?n={n - 1}" if n > 0 else "",
        "preview_next": f"{here}?n={n + 1}" if n + 1 < count else "",
        "form_action": here,
        "back_url": "",
        "js_state": None,
    }


@login_required
@require_GET
def judge_preview(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = campaign_managed_by(request.user, slug)
    items = PoolItem.objects.filter(campaign=campaign).order_by("query__external_id", "pk")
    count = items.count()
    if not count:
        progress = rater_progress(rater=request.user, campaign=campaign)
        context = {"campaign": campaign, "progress": progress, "error": "", "preview": True}
        context["overall"] = campaign_progress(campaign)
        return render(request, "annotate/judge_done.html", context)
    n = _position(request.GET.get("n"), count)
    item = items.select_related("query", "document")[n]
    state = {
        "progress": rater_progress(rater=request.user, campaign=campaign),
        "campaign": campaign_progress(campaign),
    }
    here = reverse("annotate:judge_preview", kwargs={"slug": slug})
    context = screen_context(request, campaign, item, state, error="")
    context.update(_preview_context(here, n, count), left_in_query=0)
    return render(request, "annotate/judge_preview.html", context)


@login_required
@require_GET
def sxs_preview(request: HttpRequest, slug: str, comparison_id: int) -> HttpResponse:
    """A comparison's tasks one by one as a rater sees them, sides drawn for the manager as
    for any rater, read only."""
    comparison = comparison_managed_by(request.user, slug, comparison_id)
    tasks = SxsTask.objects.filter(
        comparison=comparison, identical=False, mirror_of__isnull=True
    ).select_related("query")
    tasks = tasks.order_by("query__external_id", "position", "pk")
    count = tasks.count()
    here = reverse("annotate:sxs_preview", kwargs={"slug": slug, "comparison_id": comparison.pk})
    context = base_context(request, comparison, error="")
    context["progress"] = rater_progress(rater=request.user, campaign=comparison.campaign)
    if not count:
        return render(request, "annotate/sxs_done.html", context)
    n = _position(request.GET.get("n"), count)
    task = tasks[n]
    side = side_for(rater=request.user, task=task)
    context.update(
        _preview_context(here, n, count),
        task=task_payloads(comparison, [(task, side)], request.user)[0],
        guidelines_open=False,
    )
    return render(request, "annotate/sxs_preview.html", context)
