"""The rater's judging pages. Each works as a plain form post (post, redirect, get);
static/js/judge.js takes the queue page over when JavaScript runs (see judging_api.py)."""

from __future__ import annotations

import time

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import AbstractBaseUser
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from annotate.forms.judge import ACTION_SKIP, JudgeForm
from annotate.judging import handles
from annotate.judging.graded import GRADED, GradeRefused
from annotate.judging.leasing import PAUSED_MESSAGE
from annotate.judging.open import legacy_held_ids
from annotate.judging.progress import rater_progress
from annotate.judging.qualification import quiz_blocks, quiz_needed_message, quiz_url
from annotate.judging.screens import answer_token, item_of, judge_state, judgment_record
from annotate.models import Campaign, PoolItem
from annotate.selectors import campaign_managed_by
from annotate.selectors_judge import (
    Card,
    campaign_progress,
    campaign_rated_by,
    grade_of,
    is_skipped,
    item_payload,
    item_seen_by,
    label_keys,
    last_touched_item_id,
    rater_history,
    rater_paused,
    rater_skips,
)
from annotate.services.markdown import guidelines_html

HISTORY_PAGE_SIZE = 50


def paused_page(request: HttpRequest, campaign: Campaign) -> HttpResponse:
    """What a paused rater sees instead of work (#18), with status 403 for any client."""
    context = {"campaign": campaign, "message": PAUSED_MESSAGE}
    return render(request, "annotate/judge_paused.html", context, status=403)


@login_required
@require_http_methods(["GET", "POST"])
def judge(request: HttpRequest, slug: str) -> HttpResponse:
    """The queue: the next item the rater holds, or "All done". A manager of the campaign who
    is not one of its raters is shown the preview instead of a bare 404 (#21)."""
    try:
        campaign = campaign_rated_by(request.user, slug)
    except Http404:
        if request.method != "GET":
            raise
        campaign_managed_by(request.user, slug)  # 404 for anyone else, as before
        return redirect("annotate:judge_preview", slug=slug)
    if rater_paused(campaign):
        return paused_page(request, campaign)
    if quiz_blocks(campaign, request.user):
        messages.info(request, quiz_needed_message())
        return redirect(quiz_url(campaign))
    if request.method == "POST":
        form = JudgeForm(request.POST)
        if not form.is_valid():
            return _queue_page(request, campaign, error=form.error_text(), status=400)
        try:
            _record(request, campaign, form)
        except GradeRefused as refusal:
            return _queue_page(request, campaign, error=refusal.message, status=refusal.status)
        return redirect("annotate:judge", slug=campaign.slug)
    return _queue_page(request, campaign)


@login_required
@require_http_methods(["GET", "POST"])
def judge_item(request: HttpRequest, slug: str, handle: str) -> HttpResponse:
    """One item the rater already graded or skipped (or holds): see it and change the grade.
    The URL names it by the rater's handle (a numeric id only for an item held when handles
    came, see screens.item_of)."""
    campaign = campaign_rated_by(request.user, slug)
    item_id = item_of(request.user, handle)
    if item_id is None:
        raise Http404("No such item")
    item = item_seen_by(campaign=campaign, rater=request.user, item_id=item_id)
    back_to = "history" if request.GET.get("next") == "history" else "judge"
    if request.method == "POST":
        data = request.POST.copy()
        data["item"] = handle  # the URL names the item; a posted one cannot redirect it
        form = JudgeForm(data)
        if not form.is_valid():
            return _item_page(request, campaign, item, back_to, error=form.error_text(), status=400)
        try:
            result = _record(request, campaign, form)
        except GradeRefused as refusal:
            return _item_page(
                request, campaign, item, back_to, error=refusal.message, status=refusal.status
            )
        if result == "changed":
            messages.success(request, _("Your grade was changed; the earlier one is kept."))
        elif result == "unskipped":
            messages.success(request, _("The skip is undone."))
        return redirect(_back_url(campaign, back_to))
    return _item_page(request, campaign, item, back_to)


@login_required
@require_http_methods(["GET"])
def judge_history(request: HttpRequest, slug: str) -> HttpResponse:
    """The rater's own grades, latest first, each with its earlier values and a way to change."""
    campaign = campaign_rated_by(request.user, slug)
    grades = Paginator(rater_history(campaign=campaign, rater=request.user), HISTORY_PAGE_SIZE)
    page = grades.get_page(request.GET.get("page"))
    for grade in page.object_list:
        # What the rater may see of it, as judged, named by the rater's handle.
        grade.shown = item_payload(grade.pool_item, request.user)
    context = {
        "campaign": campaign,
        "page": page,
        "skips": rater_skips(campaign=campaign, rater=request.user),
        "progress": rater_progress(rater=request.user, campaign=campaign),
    }
    return render(request, "annotate/judge_history.html", context)


def _record(request: HttpRequest, campaign: Campaign, form: JudgeForm) -> str:
    data = form.cleaned_data
    return judgment_record(rater=request.user, campaign=campaign, data=data).result


def _item_url(campaign: Campaign, rater: AbstractBaseUser, item_id: int) -> str:
    handle = handles.handle_for(rater.pk, handles.GRADED, item_id)
    return reverse("annotate:judge_item", kwargs={"slug": campaign.slug, "handle": handle})


def _back_url(campaign: Campaign, back_to: str) -> str:
    name = "annotate:judge_history" if back_to == "history" else "annotate:judge"
    return reverse(name, kwargs={"slug": campaign.slug})


def _queue_page(
    request: HttpRequest, campaign: Campaign, *, error: str = "", status: int = 200
) -> HttpResponse:
    items, state = judge_state(rater=request.user, campaign=campaign, progress=True)
    if not items:
        context = {"campaign": campaign, "progress": state["progress"], "error": error}
        context["overall"] = state["campaign"]
        return render(request, "annotate/judge_done.html", context, status=status)
    current = items[0]
    back_id = last_touched_item_id(campaign=campaign, rater=request.user)
    slug = {"slug": campaign.slug}
    context = screen_context(request, campaign, current, state, error=error)
    context.update(
        mode="queue",
        left_in_query=sum(1 for item in items if item.query_id == current.query_id),
        back_url=_item_url(campaign, request.user, back_id) if back_id else "",
        form_action=reverse("annotate:judge", kwargs=slug),
        js_state={
            **state,
            "urls": {
                "api": reverse("annotate:judge_api", kwargs=slug),
                "queue": reverse("annotate:judge_api_queue", kwargs=slug),
                "progress": reverse("annotate:judge_api_progress", kwargs=slug),
                "done": reverse("annotate:judge", kwargs=slug),
            },
            # Grades waiting to be sent survive a reload in this browser, per rater (a
            # keyed hash: the page names neither the rater nor anything by id).
            "storageKey": handles.storage_key("judge-outbox", request.user.pk, campaign.slug),
            **_legacy_key(request.user, campaign),
        },
    )
    return render(request, "annotate/judge.html", context, status=status)


def _legacy_key(rater: AbstractBaseUser, campaign: Campaign) -> dict:
    """The outbox key pages used before handles, and the handles of the items the rater held
    then (whose ids those pages showed), only while such leases remain: grades kept under the
    old key are sent once more under their handles, then the key is gone (handles.py)."""
    ids = legacy_held_ids(GRADED, scope=campaign, rater=rater)
    if not ids:
        return {}
    return {
        "legacyStorageKey": f"judge-outbox:{campaign.slug}:{rater.pk}",
        "legacyIds": {str(pk): handles.handle_for(rater.pk, handles.GRADED, pk) for pk in ids},
    }


def _item_page(
    request: HttpRequest,
    campaign: Campaign,
    item: PoolItem,
    back_to: str,
    *,
    error: str = "",
    status: int = 200,
) -> HttpResponse:
    state = {
        "progress": rater_progress(rater=request.user, campaign=campaign),
        "campaign": campaign_progress(campaign),
    }
    grade = grade_of(rater=request.user, item=item)
    skipped = grade is None and is_skipped(rater=request.user, item=item)
    context = screen_context(request, campaign, item, state, error=error)
    item_url = _item_url(campaign, request.user, item.pk)
    context.update(
        mode="change",
        grade=grade,
        skipped=skipped,
        # What this page shows as stored: a change sent from it replaces exactly that.
        replaces=answer_token(GRADED, grade, skipped),
        back_url=_back_url(campaign, back_to),
        back_to=back_to,
        form_action=f"{item_url}?next={back_to}" if back_to == "history" else item_url,
        js_state=None,
    )
    return render(request, "annotate/judge.html", context, status=status)


def screen_context(
    request: HttpRequest, campaign: Campaign, item: PoolItem, state: dict, *, error: str
) -> dict:
    progress = state["progress"]
    card = Card.of(campaign)
    return {
        "campaign": campaign,
        "item": item_payload(item, request.user, card),
        "card": card.parts,
        "highlight": card.highlight,
        "labels": label_keys(campaign),
        "progress": progress,
        "overall": state["campaign"],
        "guidelines": guidelines_html(request, campaign),
        # New raters read the guidelines first; later they stay folded away.
        "guidelines_open": progress["done"] == 0,
        "shown_at": f"{time.time():.3f}",
        "error": error,
        "skip_action": ACTION_SKIP,
    }
